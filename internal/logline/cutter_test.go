package logline

import (
	"bytes"
	"testing"
)

// FuzzCutter: Cutter, in chunks of any size, and Splitter cut a stream as
// the simple reference does.
func FuzzCutter(f *testing.F) {
	f.Add([]byte("a\nb\r\nc\rd\r\re"), uint16(3), uint16(1))
	f.Add([]byte("Loading: 10%\rLoading: 50%\rLoading: 100%\n"), uint16(5), uint16(1))
	f.Add([]byte("\r\n\r\n\n\r"), uint16(1), uint16(1))
	f.Add([]byte("0123456789abcdef"), uint16(4000), uint16(9000))
	f.Fuzz(func(t *testing.T, data []byte, chunk, rep uint16) {
		if n := int(rep); n > 1 && len(data) > 0 {
			data = bytes.Repeat(data, min(n, (256<<10)/len(data)))
		}
		var want []Span
		var ref refSplitter
		emit := func(l Line) {
			// Lines have no numbers: count the newlines before.
			no := 1 + int64(bytes.Count(data[:l.Offset], []byte("\n")))
			want = append(want, Span{Text: l.Text, Off: l.Offset, No: no, Cut: l.Cut, CR: l.CR})
		}
		ref.Write(data, emit)
		ref.Flush(emit)

		var lines []Line
		var spl Splitter
		for i := 0; i < len(data); i += int(chunk) + 1 {
			spl.Write(data[i:min(i+int(chunk)+1, len(data))], func(l Line) { lines = append(lines, l) })
		}
		spl.Flush(func(l Line) { lines = append(lines, l) })
		if len(lines) != len(want) {
			t.Fatalf("Splitter: %d lines, the reference gives %d", len(lines), len(want))
		}
		for i, l := range lines {
			if w := want[i]; l.Text != w.Text || l.Offset != w.Off || l.Cut != w.Cut || l.CR != w.CR {
				t.Fatalf("Splitter line %d: %+v, the reference gives %+v", i, l, w)
			}
		}

		sp := NewCutter()
		var got []Span
		size := int(chunk) + 1
		for i := 0; i < len(data); i += size {
			got = sp.Split(string(data[i:min(i+size, len(data))]), got)
		}
		got = sp.Flush(got)
		if len(got) != len(want) {
			t.Fatalf("%d lines, the reference gives %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("line %d: %+v, the reference gives %+v", i, got[i], want[i])
			}
		}
	})
}
