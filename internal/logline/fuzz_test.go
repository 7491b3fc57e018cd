package logline

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzSplitter feeds random bytes in random chunk sizes: the Splitter must
// not panic, must report the same lines however the input is chunked,
// keep offsets consistent with the input, and keep no line longer than
// MaxLen. rep repeats data to build lines far longer than MaxLen.
func FuzzSplitter(f *testing.F) {
	f.Add([]byte("a\nb\r\nc\rd\r\re"), []byte{1, 2, 3}, uint16(1))
	f.Add([]byte("Loading: 10%\rLoading: 50%\rLoading: 100%\n"), []byte{5}, uint16(1))
	f.Add([]byte("\r\n\r\n\n\r"), []byte{1}, uint16(1))
	f.Add([]byte("0123456789abcdef"), []byte{7, 200}, uint16(9000))
	f.Fuzz(func(t *testing.T, data, cuts []byte, rep uint16) {
		if n := int(rep); n > 1 && len(data) > 0 {
			n = min(n, (256<<10)/len(data))
			data = bytes.Repeat(data, n)
		}
		whole := splitChunks(data, nil)
		chunked := splitChunks(data, cuts)
		if !reflect.DeepEqual(whole, chunked) {
			t.Fatalf("lines depend on how the input is chunked: %d lines whole, %d chunked by %v", len(whole), len(chunked), cuts)
		}
		var prev int64 = -1
		for i, l := range whole {
			if len(l.Text) > MaxLen {
				t.Fatalf("line %d is %d bytes, over MaxLen", i, len(l.Text))
			}
			if l.Offset < prev {
				t.Fatalf("line %d starts at %d, before line %d at %d", i, l.Offset, i-1, prev)
			}
			prev = l.Offset
			end := l.Offset + int64(len(l.Text)) + l.Cut
			if l.Offset < 0 || end > int64(len(data)) {
				t.Fatalf("line %d spans [%d, %d), outside the %d input bytes", i, l.Offset, end, len(data))
			}
			if got := string(data[l.Offset : l.Offset+int64(len(l.Text))]); got != l.Text {
				t.Fatalf("line %d text %q is not the input at its offset (%q)", i, l.Text, got)
			}
			if bytes.ContainsAny([]byte(l.Text), "\r\n") {
				t.Fatalf("line %d %q holds a line break", i, l.Text)
			}
		}
	})
}

// splitChunks runs data through a Splitter in chunks of the given sizes (all at
// once when cuts is empty) and returns every line, the tail included.
func splitChunks(data, cuts []byte) []Line {
	var s Splitter
	var out []Line
	emit := func(l Line) { out = append(out, l) }
	for i, k := 0, 0; i < len(data); k++ {
		n := len(data) - i
		if len(cuts) > 0 {
			n = min(n, int(cuts[k%len(cuts)])+1)
		}
		s.Write(data[i:i+n], emit)
		i += n
	}
	s.Flush(emit)
	return out
}
