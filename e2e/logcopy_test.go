package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServerOutlivesVigil: vigil run's whole process group is killed
// outright (SIGKILL, as a job control or timeout(1) kill of the job, with
// nothing to clean up) while its server starts. The server's output goes
// through vigil's log copier, in a group of its own, not through vigil:
// the server writes on without an error or SIGPIPE, and every byte it
// writes after vigil's death still reaches its log, in order.
func TestServerOutlivesVigil(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	sb := newSandbox(t)
	logPath, pidfile, doneFile := sb.path("server.log"), sb.path("server.pid"), sb.path("server.done")
	killPidfileGroupAtEnd(t, pidfile)
	// Without a trap, a write to a pipe nobody reads kills sh with
	// SIGPIPE, and the done file is never made.
	script := `echo $$ > "$SERVER_PIDFILE"
i=0
while [ "$i" -lt 60 ]; do
	echo "INFO loading weights: step $i of 60"
	echo "step $i to stderr" >&2
	sleep 0.05
	i=$((i + 1))
done
echo "INFO all steps written"
: > "$DONE_FILE"
sleep 30`
	url := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	cmd := exec.Command(vigilBin, "run", "--json", "--url", url, "--log-file", logPath, "--timeout", "2m", "--", "sh", "-c", script)
	cmd.Env = sb.with("SERVER_PIDFILE="+pidfile, "DONE_FILE="+doneFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-waited })
	if !waitUntil(20*time.Second, func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "step 5 of 60")
	}) {
		t.Fatalf("the server's output did not reach its log")
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-waited
	if !waitUntil(30*time.Second, func() bool { _, err := os.Stat(doneFile); return err == nil }) {
		t.Fatalf("the server did not get through its output after vigil died (killed by SIGPIPE?)")
	}
	want := func() string {
		var b strings.Builder
		for i := range 60 {
			fmt.Fprintf(&b, "INFO loading weights: step %d of 60\nstep %d to stderr\n", i, i)
		}
		return b.String() + "INFO all steps written\n"
	}()
	// The copier writes what it has read; the last line is in at once or
	// within moments.
	var got []byte
	waitUntil(10*time.Second, func() bool {
		got, _ = os.ReadFile(logPath)
		return len(got) >= len(want)
	})
	if string(got) != want {
		t.Errorf("the log after vigil's death is not all the server wrote, in order:\n got %d bytes\nwant %d bytes\nlast lines: %q", len(got), len(want), lastLines(string(got), 3))
	}
	pid := readPid(pidfile)
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		t.Errorf("the server (pid %d) is not running after vigil's death", pid)
	}
}

func lastLines(s string, n int) []string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return l[max(0, len(l)-n):]
}

// TestWatchFindsTheServerBehindTheCopier: vigil watch --log on the log of
// a server that vigil run launched finds the server itself as the writer,
// not the copier that writes the file for it.
func TestWatchFindsTheServerBehindTheCopier(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	sb := newSandbox(t)
	logPath, pidfile := sb.path("server.log"), sb.path("server.pid")
	killPidfileGroupAtEnd(t, pidfile)
	url := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	run := startVigil(t, sb.with("SERVER_PIDFILE="+pidfile), "run", "--url", url, "--log-file", logPath,
		"--stall-after", "2m", "--timeout", "2m", "--", "sh", "-c", `echo $$ > "$SERVER_PIDFILE"; echo "INFO loading weights"; exec sleep 60`)
	pid := 0
	if !waitUntil(20*time.Second, func() bool {
		pid = readPid(pidfile)
		b, _ := os.ReadFile(logPath)
		return pid > 0 && strings.Contains(string(b), "loading weights")
	}) {
		t.Fatalf("the server did not start\n%s", run.excerpt())
	}
	w := startVigil(t, sb.env, "watch", "--log", logPath, "--url", url, "--timeout", "1s")
	if !w.wait(t, 20*time.Second) {
		return
	}
	first, _, _ := strings.Cut(w.stderr.String(), "\n")
	if want := fmt.Sprintf("vigil: watching pid %d,", pid); !strings.HasPrefix(first, want) {
		t.Errorf("watch found another writer: %q, want it to start %q\n%s", first, want, w.excerpt())
	}
}
