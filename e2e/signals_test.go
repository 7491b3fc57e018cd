package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStopSignalsStopServer: SIGHUP (a closed terminal) and SIGTERM to
// vigil run during a startup stop the server's whole group,
// vigil exits 128+N, and the history records the startup as interrupted
// with the signal as its cause.
func TestStopSignalsStopServer(t *testing.T) {
	needVigil(t)
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
	}{
		{syscall.SIGHUP, "SIGHUP"},
		{syscall.SIGTERM, "SIGTERM"},
		// SIGPIPE stops only when stdout or stderr is gone (the kernel also
		// raises it for a write to a socket the peer reset, e.g. a health
		// probe): TestClosedStdoutStopsServer covers it.
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			takeSlot(t)
			s := runScript(t, "loading.sh", []string{"--grace", "5s"})
			server, child := s.pids(t)
			s.waitLoading(t, 4)
			if err := s.v.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			if !s.v.wait(t, 20*time.Second) {
				return
			}
			if want := 128 + int(tc.sig); s.v.code != want {
				t.Errorf("exit status %d after %s, want %d\n%s", s.v.code, tc.name, want, s.v.excerpt())
			}
			if left := deadWithin(3*time.Second, server, child); len(left) > 0 {
				t.Errorf("pids %v still alive after %s\n%s", left, tc.name, s.v.excerpt())
			}
			checkInterruptedInHistory(t, s.v.cmd.Env, tc.name)
		})
	}
}

func checkInterruptedInHistory(t *testing.T, env []string, cause string) {
	t.Helper()
	cmd := exec.Command(vigilBin, "history", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("vigil history --json: %v", err)
	}
	var list []map[string]any
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("vigil history --json: %v\n%s", err, out)
	}
	if len(list) != 1 || list[0]["verdict"] != "interrupted" || list[0]["cause"] != cause {
		t.Errorf("history %s, want one startup interrupted by %s", out, cause)
	}
}

// TestClosedStdoutStopsServer: `vigil run ... | head -1` once head has
// gone: the failed write to stdout stops the server as SIGPIPE does, and
// vigil exits 141 instead of leaving a hung server behind.
func TestClosedStdoutStopsServer(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	script, _ := filepath.Abs(filepath.Join("testdata", "servers", "loading.sh"))
	sb := newSandbox(t)
	serverPid, childPid := sb.path("server.pid"), sb.path("child.pid")
	killPidfileGroupAtEnd(t, serverPid, childPid)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before vigil writes its first line
	cmd := exec.Command(vigilBin, "run", "--json", "--server", "vllm", "--grace", "5s",
		"--url", fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), "--log-file", sb.path("server.log"), "--", "sh", script)
	cmd.Env = sb.with("SERVER_PIDFILE="+serverPid, "CHILD_PIDFILE="+childPid)
	cmd.Stdout = w
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("vigil did not exit within 30s of losing its stdout\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 141 {
		t.Errorf("exit status %d (%v), want 141\n%s", code, cmd.ProcessState, stderr.String())
	}
	// The server may not have written its pid files yet when vigil
	// stopped it; what it did start must be gone.
	for _, f := range []string{serverPid, childPid} {
		if pid := readPid(f); pid > 0 {
			if left := deadWithin(3*time.Second, pid); len(left) > 0 {
				t.Errorf("pid %d still alive after vigil lost its stdout\n%s", pid, stderr.String())
			}
		}
	}
}

// TestWatchStopSignalsLeaveServer: watch ends on SIGHUP or SIGTERM with
// 128+N and never signals the server it watches.
func TestWatchStopSignalsLeaveServer(t *testing.T) {
	needVigil(t)
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			takeSlot(t)
			sb := newSandbox(t)
			log := sb.path("server.log")
			if err := os.WriteFile(log, []byte("INFO 11-29 16:00:00 [api_server.py:1043] vLLM API server version 0.8.5\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			server := exec.Command("sleep", "1000")
			server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := server.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { server.Process.Kill(); server.Wait() }()
			v := startVigil(t, sb.env, "watch", "--json", "--server", "vllm", "--log", log,
				"--pid", fmt.Sprint(server.Process.Pid), "--url", fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
			if !waitUntil(20*time.Second, func() bool { return v.finished() || len(v.stdout.Bytes()) > 0 }) || v.finished() {
				t.Fatalf("watch did not start\n%s", v.excerpt())
			}
			if err := v.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if !v.wait(t, 20*time.Second) {
				return
			}
			if want := 128 + int(sig); v.code != want {
				t.Errorf("exit status %d after %v, want %d\n%s", v.code, sig, want, v.excerpt())
			}
			if !alive(server.Process.Pid) {
				t.Errorf("watch signalled the server it watched (%v)", sig)
			}
		})
	}
}
