package explain

import (
	"strings"
	"unsafe"

	"vigil/internal/classify"
)

// owned is what one goroutine that judges runs (a worker, the stitcher)
// owns: a run judged by it classifies through its memo and copies the
// lines it keeps into its arena.
type owned struct {
	memo *classify.Memo
	text arena
}

func newOwn() *owned { return &owned{memo: classify.NewMemo()} }

const (
	// arenaBlock is the size of an arena's blocks; a line of
	// arenaOwnLine bytes or more is copied on its own, so that one kept
	// line never holds more than a block of others' alive.
	arenaBlock   = 8 << 10
	arenaOwnLine = 512
)

// arena copies the lines a run keeps (read buffers are reused, and the
// judge keeps each fed line for a while) into shared blocks: one
// allocation per block instead of one per line, the line that cost most
// in a dense log. A block is only ever appended to, so the strings taken
// from it never change; it is freed once none of them is referenced. Its
// owner alone appends; a string from it may be read by another goroutine
// once the run is handed over (a chunk's done channel orders the two).
type arena struct {
	buf []byte
}

// clone is strings.Clone(s), copied into the arena.
func (a *arena) clone(s string) string {
	if len(s) == 0 || len(s) >= arenaOwnLine {
		return strings.Clone(s)
	}
	if cap(a.buf)-len(a.buf) < len(s) {
		a.buf = make([]byte, 0, arenaBlock)
	}
	n := len(a.buf)
	a.buf = append(a.buf, s...)
	return unsafe.String(&a.buf[n], len(s))
}
