package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A log that only exists as a stream is judged as it arrives: a played
// startup piped through cat into `watch --log -`, or written into a FIFO
// given as --log (with --pid, the writer is also sampled). An earlier run
// the stream starts with (kubectl logs -f of a restarted container) is cut
// off by the run-start rules.
func TestWatchAStream(t *testing.T) {
	t.Parallel()
	needVigil(t)
	root := repoRoot(t)
	scen := func(name string) string { return filepath.Join(root, "testdata", "scenarios", "shared", name+".json") }
	const earlier = "[2026-11-12 09:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B-Instruct', tp_size=1)\n" +
		"[2026-11-12 09:00:05 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
		"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n"
	tests := []struct {
		name     string
		scenario string
		how      string // "pipe", "pipe-earlier", "fifo"
		verdict  string
		cause    string
	}{
		{"ready through cat", "sglang-ready-qwen25-7b-single-gpu", "pipe", "ready", ""},
		{"failure through cat", "sglang-kv-pool-not-enough-memory-eagle", "pipe", "failed", "gpu_oom"},
		{"an earlier failed run first", "sglang-ready-qwen25-7b-single-gpu", "pipe-earlier", "ready", ""},
		{"ready through a FIFO, with --pid", "sglang-ready-qwen25-7b-single-gpu", "fifo", "ready", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			takeSlot(t)
			sb := newSandbox(t)
			port := freePort(t)
			url := fmt.Sprintf("http://127.0.0.1:%d", port)
			play := fmt.Sprintf("%s play %s --port %d -- python3 -m sglang.launch_server --port %d", vigilBin, scen(tt.scenario), port, port)
			watch := []string{"watch", "--json", "--no-history", "--url", url, "--stall-after", "4s", "--timeout", "40s"}
			// The writer runs in its own group, killed at the end: a
			// played server keeps serving after ready.
			var src string
			var stdin *os.File
			switch tt.how {
			case "pipe":
				src = play + " 2>&1 | cat"
				watch = append(watch, "--log", "-")
			case "pipe-earlier":
				stale := sb.path("earlier.log")
				if err := os.WriteFile(stale, []byte(earlier), 0o600); err != nil {
					t.Fatal(err)
				}
				src = "{ cat " + stale + "; " + play + " 2>&1; } | cat"
				watch = append(watch, "--log", "/dev/stdin")
			case "fifo":
				fifo := sb.path("server.fifo")
				if err := syscall.Mkfifo(fifo, 0o600); err != nil {
					t.Fatal(err)
				}
				// exec: the player keeps the shell's pid, known before it
				// can open the FIFO (which waits for vigil to read).
				src = "exec " + play + " > " + fifo + " 2>&1"
				watch = append(watch, "--log", fifo)
			}
			writer := exec.Command("sh", "-c", src)
			writer.Env = sb.env
			writer.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if tt.how != "fifo" {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				writer.Stdout, stdin = w, r
				defer r.Close()
				defer w.Close()
			}
			if err := writer.Start(); err != nil {
				t.Fatal(err)
			}
			wdone := make(chan struct{})
			go func() { _ = writer.Wait(); close(wdone) }()
			t.Cleanup(func() { killGroup(writer.Process.Pid); <-wdone })
			if tt.how == "fifo" {
				watch = append(watch, "--pid", strconv.Itoa(writer.Process.Pid))
			}

			cmd := exec.Command(vigilBin, watch...)
			cmd.Env = sb.env
			cmd.Stdin = stdin
			var out, errOut syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			cmd.WaitDelay = 5 * time.Second
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if stdin != nil {
				stdin.Close() // vigil holds its copy; EOF comes when the writer ends
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(90 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("vigil did not finish in 90s\nstderr:\n%s", errOut.String())
			}
			events, v, problems := parseEvents(out.Bytes())
			if len(problems) > 0 {
				t.Fatalf("%s\nstderr:\n%s", strings.Join(problems, "\n"), errOut.String())
			}
			if v.str("verdict") != tt.verdict || v.str("cause") != tt.cause {
				t.Errorf("verdict %s/%s, want %s/%s\nstdout:\n%s\nstderr:\n%s", v.str("verdict"), v.str("cause"), tt.verdict, tt.cause, out.String(), errOut.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != exitFor[tt.verdict] {
				t.Errorf("exit %d, want %d", code, exitFor[tt.verdict])
			}
			var notes []string
			for _, e := range events {
				if e.str("event") == "note" {
					notes = append(notes, e.str("message"))
				}
			}
			joined := strings.Join(notes, "\n")
			if tt.how == "pipe-earlier" && !strings.Contains(joined, "ignored 3 lines from an earlier run") {
				t.Errorf("no note of the earlier run skipped; notes:\n%s", joined)
			}
			if tt.how == "fifo" && events[0]["pid"] == nil {
				t.Errorf("start event without the --pid: %v", events[0])
			}
		})
	}
}
