package explain

import (
	"bytes"
	"testing"

	"vigil/internal/logline"
)

// FuzzSplitter: the chunk splitter cuts lines exactly as logline.Splitter
// does, however the input is chunked. rep repeats data to build lines far
// longer than logline.MaxLen.
func FuzzSplitter(f *testing.F) {
	f.Add([]byte("a\nb\r\nc\rd\r\re"), uint16(3), uint16(1))
	f.Add([]byte("Loading: 10%\rLoading: 50%\rLoading: 100%\n"), uint16(5), uint16(1))
	f.Add([]byte("\r\n\r\n\n\r"), uint16(1), uint16(1))
	f.Add([]byte("0123456789abcdef"), uint16(4000), uint16(9000))
	f.Fuzz(func(t *testing.T, data []byte, chunk, rep uint16) {
		if n := int(rep); n > 1 && len(data) > 0 {
			data = bytes.Repeat(data, min(n, (256<<10)/len(data)))
		}
		var want []span
		var ls logline.Splitter
		no := int64(1)
		emit := func(l logline.Line) {
			// logline has no line numbers: count the newlines before.
			no = 1 + int64(bytes.Count(data[:l.Offset], []byte("\n")))
			want = append(want, span{text: l.Text, off: l.Offset, no: no, cut: l.Cut, cr: l.CR})
		}
		ls.Write(data, emit)
		ls.Flush(emit)

		sp := newSplitter()
		var got []span
		size := int(chunk) + 1
		for i := 0; i < len(data); i += size {
			got = sp.split(string(data[i:min(i+size, len(data))]), got)
		}
		got = sp.flush(got)
		if len(got) != len(want) {
			t.Fatalf("%d lines, logline.Splitter gives %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("line %d: %+v, logline.Splitter gives %+v", i, got[i], want[i])
			}
		}
	})
}

// FuzzRead: any input explains without panicking, and the runs cover its
// lines once each, in order.
func FuzzRead(f *testing.F) {
	f.Add([]byte("[2026-05-01 10:00:00] server_args=ServerArgs(x)\n[2026-05-01 10:00:01] The server is fired up and ready to roll!\n"))
	f.Add([]byte("Traceback (most recent call last):\n  File \"x\"\nRuntimeError: CUDA out of memory\n\nargs: Namespace(a=1)\n"))
	f.Add([]byte("INFO 05-01 10:00:00 [x.py:1] vLLM API server version 1\nINFO:     Application startup complete.\n" +
		"INFO:     127.0.0.1:1 - \"GET /health HTTP/1.1\" 500 Internal Server Error\n"))
	f.Add([]byte("ggml_cuda_init: x\nbuild: 1 (a)\nmain: exiting due to model loading error\nggml_cuda_init: y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var runs []*Run
		err := Read(bytes.NewReader(data), Options{Now: now}, func(r *Run) { runs = append(runs, r) })
		if err != nil {
			t.Fatal(err)
		}
		next := int64(1)
		for _, r := range runs {
			if r.FirstLine != next || r.Lines < 1 {
				t.Fatalf("run %d: lines %d..+%d, want it to start at %d", r.Index, r.FirstLine, r.Lines, next)
			}
			next = r.FirstLine + r.Lines
			switch r.Verdict {
			case "ready", "failed", "":
			default:
				t.Fatalf("run %d: verdict %q", r.Index, r.Verdict)
			}
		}
	})
}
