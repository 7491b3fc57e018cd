package logline

// refSplitter is the simple reference for Cutter and Splitter: a byte
// at a time, copying each line. FuzzCutter compares them.
type refSplitter struct {
	buf     []byte
	start   int64 // offset of the line being assembled
	off     int64 // offset of the next byte
	cut     int64
	pending bool // sawCR's line was already emitted; swallow a following '\n'
}

// SetOffset sets the offset of the next byte written, e.g. the position in
// a file where reading starts. It discards any partial line.
func (s *refSplitter) SetOffset(off int64) {
	s.buf = s.buf[:0]
	s.start, s.off, s.cut = off, off, 0
	s.pending = false
}

// Offset is the offset of the next byte to be written.
func (s *refSplitter) Offset() int64 { return s.off }

// Write feeds p and calls emit for every line completed by it.
func (s *refSplitter) Write(p []byte, emit func(Line)) {
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
func (s *refSplitter) Pending() (Line, bool) {
	if len(s.buf) == 0 && s.cut == 0 {
		return Line{}, false
	}
	return Line{Text: string(s.buf), Offset: s.start, Cut: s.cut, Partial: true}, true
}

// Flush emits the unterminated tail as a finished line (at the end of a
// stream that will not grow).
func (s *refSplitter) Flush(emit func(Line)) {
	if len(s.buf) > 0 || s.cut > 0 {
		s.emit(emit, false)
		s.start = s.off
	}
	s.pending = false
}

func (s *refSplitter) append(b []byte) {
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

func (s *refSplitter) emit(emit func(Line), cr bool) {
	// An empty segment between "\r" and "\r" carries nothing.
	if cr && len(s.buf) == 0 && s.cut == 0 {
		return
	}
	emit(Line{Text: string(s.buf), Offset: s.start, CR: cr, Cut: s.cut})
	s.buf = s.buf[:0]
	s.cut = 0
}
