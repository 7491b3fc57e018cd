package explain

import (
	"strings"

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
// allocation per block instead of one per line, which was a dense log's
// most frequent allocation. A block is a strings.Builder's buffer, which it
// allocates without zeroing it and only ever appends to while it has
// room, so the strings taken from it never change; it is freed once none
// of them is referenced. Its owner alone appends; a string from it may be
// read by another goroutine once the run is handed over (a chunk's done
// channel orders the two).
type arena struct {
	b strings.Builder
}

// clone is strings.Clone(s), copied into the arena.
func (a *arena) clone(s string) string {
	if len(s) == 0 || len(s) >= arenaOwnLine {
		return strings.Clone(s)
	}
	if a.b.Cap()-a.b.Len() < len(s) {
		a.b = strings.Builder{}
		a.b.Grow(arenaBlock)
	}
	n := a.b.Len()
	a.b.WriteString(s)
	return a.b.String()[n:]
}
