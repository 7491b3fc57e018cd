// Package logline splits a server's output into lines the way a person reads
// it: on "\n", "\r\n" and on a bare "\r", because tqdm progress bars redraw
// themselves with carriage returns.
package logline

import "time"

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
}

// Splitter turns a byte stream into Lines. It keeps at most MaxLen bytes of
// the line being assembled. The zero value is ready to use.
type Splitter struct {
	buf     []byte
	start   int64 // offset of the line being assembled
	off     int64 // offset of the next byte
	cut     int64
	pending bool // sawCR's line was already emitted; swallow a following '\n'
}

// SetOffset sets the offset of the next byte written, e.g. the position in
// a file where reading starts. It discards any partial line.
func (s *Splitter) SetOffset(off int64) {
	s.buf = s.buf[:0]
	s.start, s.off, s.cut = off, off, 0
	s.pending = false
}

// Offset is the offset of the next byte to be written.
func (s *Splitter) Offset() int64 { return s.off }

// Write feeds p and calls emit for every line completed by it.
func (s *Splitter) Write(p []byte, emit func(Line)) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if s.pending {
			s.pending = false
			if c == '\n' {
				// "\r\n": the line already went out as a CR line; this
				// newline only finishes it.
				s.off++
				s.start = s.off
				continue
			}
		}
		switch c {
		case '\n':
			s.emit(emit, false)
			s.off++
			s.start = s.off
		case '\r':
			s.emit(emit, true)
			s.off++
			s.start = s.off
			s.pending = true
		default:
			// Copy a run of ordinary bytes at once.
			j := i
			for j < len(p) && p[j] != '\n' && p[j] != '\r' {
				j++
			}
			s.append(p[i:j])
			s.off += int64(j - i)
			i = j - 1
		}
	}
}

// Pending returns the unterminated tail as a Partial line, if there is one.
func (s *Splitter) Pending() (Line, bool) {
	if len(s.buf) == 0 && s.cut == 0 {
		return Line{}, false
	}
	return Line{Text: string(s.buf), Offset: s.start, Cut: s.cut, Partial: true}, true
}

// Flush emits the unterminated tail as a finished line (at the end of a
// stream that will not grow).
func (s *Splitter) Flush(emit func(Line)) {
	if len(s.buf) > 0 || s.cut > 0 {
		s.emit(emit, false)
		s.start = s.off
	}
	s.pending = false
}

func (s *Splitter) append(b []byte) {
	room := MaxLen - len(s.buf)
	if room >= len(b) {
		s.buf = append(s.buf, b...)
		return
	}
	if room > 0 {
		s.buf = append(s.buf, b[:room]...)
	}
	s.cut += int64(len(b) - max(room, 0))
}

func (s *Splitter) emit(emit func(Line), cr bool) {
	// An empty segment between "\r" and "\r" carries nothing.
	if cr && len(s.buf) == 0 && s.cut == 0 {
		return
	}
	emit(Line{Text: string(s.buf), Offset: s.start, CR: cr, Cut: s.cut})
	s.buf = s.buf[:0]
	s.cut = 0
}
