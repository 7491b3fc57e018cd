package monitor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vigil/internal/explain"
	"vigil/internal/judge"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// floodLog is an SGLang startup that floods its log with serving lines
// and then dies of a KV cache OOM: the shape of e2e's TestFloodedLog.
func floodLog(size int) []byte {
	var b bytes.Buffer
	b.WriteString("[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')\n")
	b.WriteString("[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB\n")
	const flood = "[2026-11-29 10:00:05 TP0] Decode batch. #running-req: 1, #token: 100, token usage: 0.00, gen throughput (token/s): 50.00, #queue-req: 0\n"
	for b.Len() < size {
		b.WriteString(flood)
	}
	b.WriteString("[2026-11-29 10:00:06 TP0] Scheduler hit an exception: Traceback (most recent call last):\n")
	b.WriteString("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n")
	return b.Bytes()
}

// BenchmarkFloodedLog reads the same 32 MB flooded log through the live
// path (follower, session and judge, from a launched server's exit to
// the verdict) and through explain: MB/s of each.
func BenchmarkFloodedLog(b *testing.B) {
	data := floodLog(32 << 20)
	dir := b.TempDir()
	log := filepath.Join(dir, "server.log")
	if err := os.WriteFile(log, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("live", func(b *testing.B) {
		const pid = 4500
		proc := procTree(b, pid, "S", 0)
		b.SetBytes(int64(len(data)))
		for range b.N {
			p := &fakeProcess{done: make(chan struct{}), exit: observe.Exit{Code: 1}}
			close(p.done)
			spec := Spec{
				Judge: judge.Config{Server: "sglang", StallAfter: time.Hour, Timeout: 2 * time.Hour},
				Start: time.Now(), PID: pid, Proc: p, Log: log, URL: "http://127.0.0.1:30000",
			}
			out, err := Run(context.Background(), spec, deps(proc, &fakeHealth{}), &sink{})
			if err != nil {
				b.Fatal(err)
			}
			if r := out.Result; r.Cause != v.GPUOOM {
				b.Fatalf("got %s/%s (%s), want failed/gpu_oom", r.Verdict, r.Cause, r.Summary)
			}
		}
	})
	b.Run("explain", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			var cause v.Cause
			err := explain.Read(bytes.NewReader(data), explain.Options{Now: time.Now()}, func(r *explain.Run) { cause = r.Cause })
			if err != nil {
				b.Fatal(err)
			}
			if cause != v.GPUOOM {
				b.Fatalf("explain says %s, want gpu_oom", cause)
			}
		}
	})
}
