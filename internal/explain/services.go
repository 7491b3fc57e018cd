package explain

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"unsafe"

	"vigil/internal/classify"
)

// `docker compose logs` interleaves the lines of every service, each line
// after its service's name ("qwen3.5-9b  | "). Two servers' startups
// judged as one stream read one's failure as the other's death, so a log
// of several services is judged once per service, the others' lines
// blanked.

// Services names the compose services whose lines the head of a log
// holds, in order of first sight, when there are two or more of them
// (each on two lines at least); nil otherwise.
func Services(head []byte) []string {
	var names []string
	count := map[string]int{}
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		name, _ := classify.ComposeService(unsafe.String(unsafe.SliceData(line), len(line)))
		if name == "" {
			continue
		}
		if count[name] == 0 {
			names = append(names, strings.Clone(name))
		}
		count[name]++
	}
	var seen []string
	for _, n := range names {
		if count[n] >= 2 {
			seen = append(seen, n)
		}
	}
	if len(seen) < 2 {
		return nil
	}
	return seen
}

// OnlyService reads r with the lines of every other compose service
// turned into spaces: line numbers and byte offsets stay the log's, and
// the judge passes blank lines over. Lines without a service prefix are
// blanked too: whose they are cannot be told (a progress bar redrawn on a
// terminal loses its prefix, and one service's "Capturing CUDA graphs"
// would move another's phase).
func OnlyService(r io.Reader, name string) io.Reader {
	return &serviceFilter{r: bufio.NewReaderSize(r, 64<<10), name: name, lineStart: true}
}

type serviceFilter struct {
	r         *bufio.Reader
	name      string
	rest      []byte // read and filtered, not yet returned
	lineStart bool   // the next byte starts a line
	blank     bool   // the line being read is another service's
	err       error
}

func (f *serviceFilter) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(f.rest) == 0 {
			if f.err != nil {
				break
			}
			f.fill()
			continue
		}
		k := copy(p[n:], f.rest)
		f.rest = f.rest[k:]
		n += k
	}
	if n > 0 {
		return n, nil
	}
	return 0, f.err
}

// fill reads the next line, or as much of a long one as the buffer holds,
// into rest.
func (f *serviceFilter) fill() {
	line, err := f.r.ReadSlice('\n')
	if err != nil && err != bufio.ErrBufferFull {
		f.err = err
	}
	if len(line) == 0 {
		return
	}
	if f.lineStart {
		name, _ := classify.ComposeService(unsafe.String(unsafe.SliceData(line), len(line)))
		f.blank = name != f.name
	}
	f.lineStart = line[len(line)-1] == '\n'
	if f.blank {
		for i, c := range line {
			if c != '\n' {
				line[i] = ' '
			}
		}
	}
	f.rest = line
}
