// Package logline splits a server's output into lines the way a person reads
// it: on "\n", "\r\n" and on a bare "\r", because tqdm progress bars redraw
// themselves with carriage returns.
package logline

import (
	"strings"
	"time"
)

// MaxLen bounds how much of one line is kept. Longer lines are cut (the rest
// is counted, not stored) so that a 10 MB line cannot blow up memory.
const MaxLen = 64 << 10

// Line is one line of server output.
type Line struct {
	Text string
	// Offset is where the line starts in its source (file offset, or bytes
	// read so far for a stream).
	Offset int64
	// CR is true when the line ended with a bare carriage return: a redraw
	// of a progress bar rather than a finished line.
	CR bool
	// Cut is the number of bytes dropped because the line exceeded MaxLen.
	Cut int64
	// Partial is true for the unterminated tail of the output, reported so
	// that a progress bar that is being redrawn is visible before it ends.
	// The same text is reported again, complete, once its terminator comes.
	Partial bool
	// At is when vigil read the line (zero when unknown).
	At time.Time
	// Fresh marks the first line read after the file was truncated or
	// rotated (follow): new content, which a judge takes as a new run.
	Fresh bool
}

// Splitter turns a byte stream into Lines that own their text (they
// outlive the bytes written). It keeps at most MaxLen bytes of the line
// being assembled. The zero value is ready to use.
type Splitter struct {
	c     *Cutter
	spans []Span
}

func (s *Splitter) cutter() *Cutter {
	if s.c == nil {
		s.c = NewCutter()
	}
	return s.c
}

// SetOffset sets the offset of the next byte written, e.g. the position in
// a file where reading starts. It discards any partial line.
func (s *Splitter) SetOffset(off int64) {
	s.c = &Cutter{no: 1, off: off, start: off}
}

// Offset is the offset of the next byte to be written.
func (s *Splitter) Offset() int64 { return s.cutter().off }

// Write feeds p and calls emit for every line completed by it.
func (s *Splitter) Write(p []byte, emit func(Line)) {
	// One copy of p; each line then gets its own, so that a kept line does
	// not hold the whole write.
	s.spans = s.cutter().Split(string(p), s.spans[:0])
	s.send(emit)
}

// Pending returns the unterminated tail as a Partial line, if there is one.
func (s *Splitter) Pending() (Line, bool) {
	c := s.cutter()
	if len(c.carry) == 0 && c.cut == 0 {
		return Line{}, false
	}
	return Line{Text: string(c.carry), Offset: c.start, Cut: c.cut, Partial: true}, true
}

// Flush emits the unterminated tail as a finished line (at the end of a
// stream that will not grow).
func (s *Splitter) Flush(emit func(Line)) {
	s.spans = s.cutter().Flush(s.spans[:0])
	s.send(emit)
}

func (s *Splitter) send(emit func(Line)) {
	for _, sp := range s.spans {
		emit(Line{Text: strings.Clone(sp.Text), Offset: sp.Off, CR: sp.CR, Cut: sp.Cut})
	}
	clear(s.spans)
}

// Blank reports whether s is empty or white space: strings.TrimSpace(s)
// == "", without trimming both ends (the judge asks it of every line, and
// nearly every line's first byte answers).
func Blank(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			return strings.TrimSpace(s[i:]) == ""
		case !asciiSpace[c]:
			return false
		}
	}
	return true
}

// asciiSpace is unicode.IsSpace for the ASCII bytes.
var asciiSpace = [128]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
