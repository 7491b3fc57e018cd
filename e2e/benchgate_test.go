package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBenchGateFailsStartup: run --bench with a baseline the server cannot
// reach makes the startup failed with cause regression and exit 1, the
// figures as evidence, names the baseline used, and stops the server;
// with --keep the server is left running.
func TestBenchGateFailsStartup(t *testing.T) {
	needVigil(t)
	t.Parallel()
	for _, keep := range []bool{false, true} {
		t.Run("keep="+strconv.FormatBool(keep), func(t *testing.T) {
			t.Parallel()
			takeSlot(t)
			sb := newSandbox(t)
			port := freePort(t)
			args := []string{"run", "--json", "--url", "http://127.0.0.1:" + strconv.Itoa(port),
				"--bench=c=1;n=2;in=16;out=16;baseline=c=1:100000"}
			if keep {
				args = append(args, "--keep")
			}
			pidfile := sb.path("server.pid")
			killPidfileGroupAtEnd(t, pidfile)
			args = append(args, "--", vigilBin, "play", "builtin:sglang-ready", "--port", strconv.Itoa(port), "--pidfile", pidfile,
				"--", "python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B")
			p := startVigil(t, sb.env, args...)
			if !p.wait(t, 120*time.Second) {
				t.Fatalf("vigil did not finish\n%s", p.excerpt())
			}
			v := expectVerdict(t, p, "failed", "regression")
			ev := strings.Join(evidence(v), "\n")
			if !strings.Contains(ev, "below the baseline") || !strings.Contains(ev, "100000") {
				t.Errorf("evidence %q does not give the figures", ev)
			}
			if !strings.Contains(p.stdout.String(), "as given with --bench baseline=") {
				t.Errorf("the output does not say which baseline was used\n%s", p.excerpt())
			}
			pid := readPid(pidfile)
			if keep {
				if !alive(pid) {
					t.Errorf("--keep: the server (pid %d) was stopped", pid)
				}
			} else if left := deadWithin(5*time.Second, pid); len(left) > 0 {
				t.Errorf("the server (pid %d) is still running after a failed bench gate\n%s", pid, p.excerpt())
			}
		})
	}
}

// TestBenchSkipsAModelThatGeneratesNoText: run --bench of a server whose
// command line starts it with an embedding model (SGLang's
// --is-embedding) runs no generation benchmark, so a baseline it would
// miss does not fail the startup; its smoke request asks for embeddings
// and a ranking and, none served (the player answers every POST as a
// generation request), says its answers were not checked.
func TestBenchSkipsAModelThatGeneratesNoText(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	sb := newSandbox(t)
	port := freePort(t)
	pidfile := sb.path("server.pid")
	killPidfileGroupAtEnd(t, pidfile)
	p := startVigil(t, sb.env, "run", "--json", "--url", "http://127.0.0.1:"+strconv.Itoa(port),
		"--bench=c=1;n=2;in=16;out=16;baseline=c=1:100000",
		"--", vigilBin, "play", "builtin:sglang-ready", "--port", strconv.Itoa(port), "--pidfile", pidfile,
		"--", "python3", "-m", "sglang.launch_server", "--model-path", "Alibaba-NLP/gte-Qwen2-1.5B-instruct", "--is-embedding")
	if !p.wait(t, 120*time.Second) {
		t.Fatalf("vigil did not finish\n%s", p.excerpt())
	}
	v := expectVerdict(t, p, "ready", "")
	if !strings.Contains(v.str("summary"), "answers were not checked") {
		t.Errorf("summary %q does not say the answers were not checked", v.str("summary"))
	}
	out := p.stdout.String()
	if !strings.Contains(out, "no serving benchmark: the model generates no text") || strings.Contains(out, "running the serving benchmark") {
		t.Errorf("the benchmark ran, or its skipping was not said\n%s", p.excerpt())
	}
	if !strings.Contains(out, "/v1/embeddings answered, but not with this API's answer") {
		t.Errorf("the smoke request did not ask for embeddings\n%s", p.excerpt())
	}
}
