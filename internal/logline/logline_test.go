package logline

import (
	"strings"
	"testing"
)

func split(chunks ...string) (lines []Line, pending *Line) {
	var s Splitter
	for _, c := range chunks {
		s.Write([]byte(c), func(l Line) { lines = append(lines, l) })
	}
	if p, ok := s.Pending(); ok {
		pending = &p
	}
	return lines, pending
}

func TestSplitter(t *testing.T) {
	tests := []struct {
		name    string
		chunks  []string
		texts   []string
		crs     []bool
		offsets []int64
		pending string
	}{
		{"newlines", []string{"a\nbb\n"}, []string{"a", "bb"}, []bool{false, false}, []int64{0, 2}, ""},
		{"crlf is one end", []string{"a\r\nb\r\n"}, []string{"a", "b"}, []bool{true, true}, []int64{0, 3}, ""},
		{"crlf split across writes", []string{"a\r", "\nb\n"}, []string{"a", "b"}, []bool{true, false}, []int64{0, 3}, ""},
		{"tqdm redraws", []string{"\rx: 10%|\rx: 20%|\rx: 30%|\n"}, []string{"x: 10%|", "x: 20%|", "x: 30%|"}, []bool{true, true, false}, []int64{1, 9, 17}, ""},
		{"unterminated tail is pending", []string{"done\nhalf a li", "ne"}, []string{"done"}, []bool{false}, []int64{0}, "half a line"},
		{"empty lines count", []string{"\n\nx\n"}, []string{"", "", "x"}, []bool{false, false, false}, []int64{0, 1, 2}, ""},
		{"invalid utf-8 and NUL pass through", []string{"a\x00\xff\xfeb\n"}, []string{"a\x00\xff\xfeb"}, []bool{false}, []int64{0}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, pending := split(tt.chunks...)
			if len(lines) != len(tt.texts) {
				t.Fatalf("got %d lines %+v, want %d", len(lines), lines, len(tt.texts))
			}
			for i, l := range lines {
				if l.Text != tt.texts[i] || l.CR != tt.crs[i] || l.Offset != tt.offsets[i] {
					t.Errorf("line %d = %q cr=%v off=%d, want %q cr=%v off=%d", i, l.Text, l.CR, l.Offset, tt.texts[i], tt.crs[i], tt.offsets[i])
				}
			}
			got := ""
			if pending != nil {
				got = pending.Text
			}
			if got != tt.pending {
				t.Errorf("pending = %q, want %q", got, tt.pending)
			}
		})
	}
}

func TestHugeLineIsCut(t *testing.T) {
	huge := strings.Repeat("x", 10<<20)
	var s Splitter
	var lines []Line
	for i := 0; i < len(huge); i += 1 << 16 {
		s.Write([]byte(huge[i:min(i+1<<16, len(huge))]), func(l Line) { lines = append(lines, l) })
	}
	s.Write([]byte("\nnext\n"), func(l Line) { lines = append(lines, l) })
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2", len(lines))
	}
	if len(lines[0].Text) != MaxLen || lines[0].Cut != int64(len(huge)-MaxLen) {
		t.Errorf("kept %d bytes and cut %d, want %d and %d", len(lines[0].Text), lines[0].Cut, MaxLen, len(huge)-MaxLen)
	}
	if lines[1].Text != "next" || lines[1].Offset != int64(len(huge)+1) {
		t.Errorf("next line = %q at %d, want %q at %d", lines[1].Text, lines[1].Offset, "next", len(huge)+1)
	}
}

func TestFlushAndSetOffset(t *testing.T) {
	var s Splitter
	s.SetOffset(100)
	var lines []Line
	s.Write([]byte("tail"), func(l Line) { lines = append(lines, l) })
	s.Flush(func(l Line) { lines = append(lines, l) })
	if len(lines) != 1 || lines[0].Text != "tail" || lines[0].Offset != 100 {
		t.Fatalf("got %+v, want one line \"tail\" at 100", lines)
	}
	if s.Offset() != 104 {
		t.Errorf("Offset() = %d, want 104", s.Offset())
	}
}
