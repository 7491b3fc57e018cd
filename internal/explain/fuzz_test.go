package explain

import (
	"bytes"
	"testing"
)

// FuzzSplitter: the chunk splitter cuts lines exactly as logline.Splitter
// does, however the input is chunked. rep repeats data to build lines far
// longer than logline.MaxLen.
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
