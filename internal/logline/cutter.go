package logline

import "strings"

// Span is one line of the input, as a Line says it (FuzzCutter compares
// the two with the simple reference splitter), plus its line number. Its
// Text points into the chunk it was read in, so cutting copies nothing.
type Span struct {
	Text string
	Off  int64
	// No is the line's number: one more than the newlines before it. The
	// segments of a progress bar redrawn with "\r" share their number.
	No  int64
	Cut int64
	CR  bool
}

// Cutter cuts a stream into spans across the chunks it is read in: "\n",
// "\r\n" and a bare "\r" end a line, an empty segment between two "\r" is
// dropped, and at most MaxLen bytes of a line are kept (the rest is
// counted in Cut). It is the one line splitter: Splitter wraps it for
// streams whose lines must outlive their chunk.
type Cutter struct {
	off     int64 // offset of the next byte
	start   int64 // offset of the line being assembled
	no      int64 // number of the line being assembled
	carry   []byte
	cut     int64
	pending bool // a "\r" ended the last line; swallow a following "\n"
}

// NewCutter starts cutting at offset 0, line 1.
func NewCutter() *Cutter { return &Cutter{no: 1} }

// Split appends the lines data completes to out. data must not change
// afterwards: the spans point into it.
func (s *Cutter) Split(data string, out []Span) []Span {
	nl := -1 // position of the next "\n" at or after i, once known
	cr := -1 // position of the next "\r" at or after i, once known
	for i := 0; i < len(data); {
		if s.pending {
			s.pending = false
			if data[i] == '\n' {
				// "\r\n": the line already went out; this only ends it.
				i++
				s.off++
				s.start = s.off
				s.no++
				continue
			}
		}
		if nl < i {
			nl = strings.IndexByte(data[i:], '\n')
			if nl >= 0 {
				nl += i
			} else {
				nl = len(data)
			}
		}
		if cr < i {
			// Most chunks hold no "\r" outside progress bars: one search
			// finds the next, however many lines lie before it.
			cr = strings.IndexByte(data[i:], '\r')
			if cr >= 0 {
				cr += i
			} else {
				cr = len(data)
			}
		}
		end := min(nl, cr)
		if end == len(data) {
			s.hold(data[i:])
			s.off += int64(len(data) - i)
			break
		}
		isCR := data[end] == '\r'
		out = s.emit(out, data[i:end], isCR)
		s.off += int64(end - i + 1)
		s.start = s.off
		if isCR {
			s.pending = true
		} else {
			s.no++
		}
		i = end + 1
	}
	return out
}

// Flush emits the unterminated tail at the end of the stream.
func (s *Cutter) Flush(out []Span) []Span {
	if len(s.carry) > 0 || s.cut > 0 {
		out = s.emit(out, "", false)
		s.start = s.off
	}
	s.pending = false
	return out
}

// hold keeps the start of a line that continues in the next chunk.
func (s *Cutter) hold(b string) {
	room := MaxLen - len(s.carry)
	if room >= len(b) {
		s.carry = append(s.carry, b...)
		return
	}
	if room > 0 {
		s.carry = append(s.carry, b[:room]...)
	}
	s.cut += int64(len(b) - max(room, 0))
}

func (s *Cutter) emit(out []Span, seg string, cr bool) []Span {
	text, cut := seg, s.cut
	if len(s.carry) > 0 {
		s.hold(seg)
		text, cut = string(s.carry), s.cut
		s.carry = s.carry[:0]
	} else if len(seg) > MaxLen {
		text, cut = seg[:MaxLen], cut+int64(len(seg)-MaxLen)
	}
	s.cut = 0
	// An empty segment between "\r" and "\r" carries nothing.
	if cr && text == "" && cut == 0 {
		return out
	}
	return append(out, Span{Text: text, Off: s.start, No: s.no, Cut: cut, CR: cr})
}
