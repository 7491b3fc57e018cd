package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests here check who stops the server and when: vigil run stops the
// whole process group of a startup that failed or that the user
// interrupted, leaves it with --keep, and is never itself the reason a
// server dies. The servers are the shell scripts of testdata/servers.

// scriptServer is a shell-script server launched by vigil run.
type scriptServer struct {
	v                   *vigilProc
	log                 string // the server's log (--log-file)
	serverPid, childPid string // pid files the script writes
}

// runScript launches testdata/servers/NAME under vigil run --json with
// extra vigil flags and extra environment, in a fresh sandbox. The server
// and its worker are killed when t ends.
func runScript(t *testing.T, name string, vigilArgs []string, env ...string) *scriptServer {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "servers", name))
	if err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t)
	s := &scriptServer{log: sb.path("server.log"), serverPid: sb.path("server.pid"), childPid: sb.path("child.pid")}
	killPidfileGroupAtEnd(t, s.serverPid, s.childPid)
	args := []string{"run", "--json", "--server", "vllm", "--url", fmt.Sprintf("http://127.0.0.1:%d", freePort(t)),
		"--log-file", s.log}
	args = append(append(args, vigilArgs...), "--", "sh", script)
	env = append([]string{"SERVER_PIDFILE=" + s.serverPid, "CHILD_PIDFILE=" + s.childPid}, env...)
	s.v = startVigil(t, sb.with(env...), args...)
	return s
}

// pids waits for the script to write both pid files.
func (s *scriptServer) pids(t *testing.T) (server, child int) {
	t.Helper()
	return waitPid(t, s.serverPid, 20*time.Second), waitPid(t, s.childPid, 20*time.Second)
}

// waitLoading waits until the server has written n lines to its log and
// vigil has begun judging (its "start" event, printed once its signal
// handlers are in place).
func (s *scriptServer) waitLoading(t *testing.T, n int) {
	t.Helper()
	ok := waitUntil(20*time.Second, func() bool {
		b, _ := os.ReadFile(s.log)
		return strings.Count(string(b), "\n") >= n && strings.Contains(s.v.stdout.String(), `"event":"start"`)
	})
	if !ok {
		t.Fatalf("in 20s, the server did not write %d lines to %s or vigil did not start judging\n%s", n, s.log, s.v.excerpt())
	}
}

// expectVerdict checks vigil's --json output ends with this verdict and
// cause, and its exit status goes with it.
func expectVerdict(t *testing.T, v *vigilProc, verdict, cause string) event {
	t.Helper()
	_, got, problems := parseEvents(v.stdout.Bytes())
	for _, p := range problems {
		t.Errorf("--json output: %s", p)
	}
	if got == nil {
		t.Fatalf("no verdict\n%s", v.excerpt())
	}
	if got.str("verdict") != verdict || got.str("cause") != cause {
		t.Errorf("verdict %s/%s, want %s/%s\n%s", got.str("verdict"), orNull(got.str("cause")), verdict, orNull(cause), v.excerpt())
	}
	if want := exitFor[verdict]; v.code != want {
		t.Errorf("exit status %d, want %d for %s\n%s", v.code, want, verdict, v.excerpt())
	}
	for _, p := range verdictFieldProblems(got) {
		t.Errorf("verdict event: %s", p)
	}
	return got
}

// TestKeepLeavesFailedServer: with --keep a failed startup's server and its
// workers are left running for inspection.
func TestKeepLeavesFailedServer(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	s := runScript(t, "fail-fork.sh", []string{"--keep", "--stall-after", "2s", "--grace", "1s"}, "STAY=1")
	server, child := s.pids(t)
	if !s.v.wait(t, 30*time.Second) {
		return
	}
	expectVerdict(t, s.v, "failed", "gpu_oom")
	for _, pid := range []int{server, child} {
		if !alive(pid) {
			t.Errorf("--keep: pid %d was stopped, want it left running\n%s", pid, s.v.excerpt())
		}
	}
}

// TestFailedStartupStopsWholeGroup: when a startup fails, vigil run stops
// the server's whole process group, SIGKILLing after --grace what ignores
// SIGTERM, whether or not the server itself has already exited.
func TestFailedStartupStopsWholeGroup(t *testing.T) {
	needVigil(t)
	t.Parallel()
	t.Run("server stays", func(t *testing.T) {
		takeSlot(t)
		s := runScript(t, "fail-fork.sh", []string{"--stall-after", "2s", "--grace", "1s"}, "STAY=1")
		server, child := s.pids(t)
		if !s.v.wait(t, 30*time.Second) {
			return
		}
		expectVerdict(t, s.v, "failed", "gpu_oom")
		if left := deadWithin(3*time.Second, server, child); len(left) > 0 {
			t.Errorf("pids %v (of server %d, worker %d; both ignore SIGTERM) still alive 3s after vigil exited; want them SIGKILLed after --grace 1s\n%s",
				left, server, child, s.v.excerpt())
		}
	})
	t.Run("server exits, worker lingers", func(t *testing.T) {
		takeSlot(t)
		s := runScript(t, "fail-fork.sh", []string{"--stall-after", "5s", "--grace", "1s"})
		server, child := s.pids(t)
		if !s.v.wait(t, 30*time.Second) {
			return
		}
		expectVerdict(t, s.v, "failed", "gpu_oom")
		if left := deadWithin(3*time.Second, server); len(left) > 0 {
			t.Errorf("the server (pid %d) exits 1 by itself but is still alive\n%s", server, s.v.excerpt())
		}
		if left := deadWithin(3*time.Second, child); len(left) > 0 {
			knownBug(t, "vigil run does not stop the process group of a failed startup when the group leader "+
				"has already exited: the worker (pid %d, same process group, ignores SIGTERM) is still running 3s "+
				"after vigil exited (run.go only calls proc.Stop when proc.Done() is not yet closed; contract.md: "+
				"failed => stop the server's whole process group)\n%s", child, s.v.excerpt())
		}
	})
}

// TestInterruptStopsServer: Ctrl-C (SIGINT to vigil) during a startup stops
// the server's whole group and vigil exits 130.
func TestInterruptStopsServer(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	s := runScript(t, "loading.sh", []string{"--grace", "5s"})
	server, child := s.pids(t)
	s.waitLoading(t, 4)
	if err := s.v.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if !s.v.wait(t, 20*time.Second) {
		return
	}
	if s.v.code != 130 {
		t.Errorf("exit status %d after SIGINT, want 130\n%s", s.v.code, s.v.excerpt())
	}
	if left := deadWithin(3*time.Second, server, child); len(left) > 0 {
		t.Errorf("pids %v (of server %d, worker %d) still alive after vigil was interrupted\n%s", left, server, child, s.v.excerpt())
	}
	checkJSONLines(t, s.v)
}

// TestSecondInterruptKillsAtOnce: while vigil waits out --grace for a
// server that ignores SIGTERM, a second Ctrl-C SIGKILLs the group at once.
func TestSecondInterruptKillsAtOnce(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	s := runScript(t, "loading.sh", []string{"--grace", "60s"}, "IGNORE_TERM=1")
	server, child := s.pids(t)
	s.waitLoading(t, 4)
	if err := s.v.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// vigil says it is stopping the server once it has sent SIGTERM.
	stopping := waitUntil(15*time.Second, func() bool {
		return strings.Contains(s.v.stdout.String()+s.v.stderr.String(), "interrupted") || s.v.finished()
	})
	if !stopping || s.v.finished() {
		t.Fatalf("after one SIGINT vigil did not report that it is stopping the server, or exited\n%s", s.v.excerpt())
	}
	if !alive(server) || !alive(child) {
		t.Fatalf("the server ignores SIGTERM, but after one SIGINT it is gone before the 60s grace\n%s", s.v.excerpt())
	}
	second := time.Now()
	if err := s.v.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if !s.v.wait(t, 20*time.Second) {
		return
	}
	if d := s.v.exited.Sub(second); d > 5*time.Second {
		t.Errorf("vigil took %.1fs to exit after the second SIGINT, want at once (well under --grace 60s)", d.Seconds())
	}
	if s.v.code != 130 {
		t.Errorf("exit status %d after SIGINT, want 130\n%s", s.v.code, s.v.excerpt())
	}
	if left := deadWithin(3*time.Second, server, child); len(left) > 0 {
		t.Errorf("pids %v (of server %d, worker %d) still alive after the second SIGINT\n%s", left, server, child, s.v.excerpt())
	}
	checkJSONLines(t, s.v)
}

// TestVigilKilledLeavesServerRunning: vigil must never be the reason the
// server dies. SIGKILLed mid-startup, it leaves the server running and
// still writing its log (which is a file, not a pipe of vigil's).
func TestVigilKilledLeavesServerRunning(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	s := runScript(t, "loading.sh", nil)
	server, child := s.pids(t)
	s.waitLoading(t, 4)
	if err := s.v.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.v.wait(t, 10*time.Second)
	for _, pid := range []int{server, child} {
		if !alive(pid) {
			t.Fatalf("pid %d died with vigil", pid)
		}
	}
	size := func() int64 {
		fi, err := os.Stat(s.log)
		if err != nil {
			return -1
		}
		return fi.Size()
	}
	before := size()
	// The server writes a line every 0.2s.
	if !waitUntil(5*time.Second, func() bool { return size() > before }) {
		t.Errorf("the server's log stopped growing at %d bytes after vigil was killed", before)
	}
	if !alive(server) {
		t.Errorf("the server (pid %d) died after vigil was killed", server)
	}
}

// checkJSONLines checks that every stdout line is a JSON event, verdict or
// not (an interrupted session ends without one).
func checkJSONLines(t *testing.T, v *vigilProc) {
	t.Helper()
	_, _, problems := parseEvents(v.stdout.Bytes())
	for _, p := range problems {
		if !strings.Contains(p, "not a verdict") {
			t.Errorf("--json output: %s", p)
		}
	}
}
