package journal

import (
	"bytes"
	"os"
	"testing"

	"vigil/internal/logline"
)

// FuzzParse: any line of would-be journalctl JSON parses or fails cleanly.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"MESSAGE":"hello","_PID":"7","PRIORITY":"6","__REALTIME_TIMESTAMP":"1763000000001000"}`))
	f.Add([]byte(`{"MESSAGE":[104,105,13,255],"_PID":7}`))
	f.Add([]byte(`{"MESSAGE":null,"_LINE_BREAK":"line-max"}`))
	f.Add([]byte(`{"MESSAGE":"x","__REALTIME_TIMESTAMP":"-99999999999999999999"}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := Parse(line)
		if err != nil {
			return
		}
		if e.Priority < -1 {
			t.Errorf("Parse(%q): priority %d", line, e.Priority)
		}
	})
}

// FuzzReadEntries: any recorded output reads to its end without panicking,
// every entry's message comes from the input, and the entries turn into
// lines no longer than logline.MaxLen.
func FuzzReadEntries(f *testing.F) {
	if b, err := os.ReadFile("testdata/sglang.json"); err == nil {
		// A few lines: the mutator is slow on the whole file.
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:min(len(lines), 6)], nil), 0)
	}
	f.Add([]byte(`{"MESSAGE":"a","_PID":"1","_LINE_BREAK":"line-max"}`+"\n"+`{"MESSAGE":"b","_PID":"1"}`+"\n"), 1)
	f.Add([]byte("{\"MESSAGE\":\"x\"}\n{broken\n\n"), 3)
	f.Fuzz(func(t *testing.T, data []byte, lineMax int) {
		var msgs int
		var lines Lines
		emit := func(l logline.Line) {
			if len(l.Text) > logline.MaxLen {
				t.Fatalf("a line of %d bytes, over MaxLen", len(l.Text))
			}
		}
		err := ReadEntries(bytes.NewReader(data), Options{LineMax: lineMax % 100000, Warn: func(error) {}}, func(e Entry) {
			msgs += len(e.Message)
			lines.Write(e, emit)
		})
		if err != nil {
			return
		}
		// Joined entries are at most the input's bytes (an array message
		// spells each byte with at least one digit and a comma), except
		// that a string message's invalid UTF-8 byte decodes to U+FFFD,
		// three bytes. (journalctl writes a message that is not UTF-8 as
		// an array, so that only happens to input it did not write.)
		if msgs > 3*len(data) {
			t.Fatalf("%d message bytes out of %d input bytes", msgs, len(data))
		}
	})
}
