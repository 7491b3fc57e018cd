package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func start(t *testing.T, script string) (*Process, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "server.log")
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Start(Spec{Argv: []string{"sh", "-c", script}, Env: os.Environ(), Log: f})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) })
	return p, log
}

func wait(t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the process did not exit")
	}
}

func TestOutputGoesToTheLogAndEnvIsSet(t *testing.T) {
	p, log := start(t, `echo out; echo err >&2; echo "unbuffered=$PYTHONUNBUFFERED"; stat -L -c "stdout=%F" /proc/self/fd/1; exit 3`)
	wait(t, p)
	if e := p.Exit(); e.Code != 3 || e.Signal != "" {
		t.Errorf("exit = %+v, want status 3", e)
	}
	p.SyncOutput(context.Background())
	b, _ := os.ReadFile(log)
	// The output reaches the log through the copier's pipe.
	for _, want := range []string{"out\n", "err\n", "unbuffered=1\n", "stdout=fifo\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("log %q lacks %q", b, want)
		}
	}
}

func TestDeathBySignal(t *testing.T) {
	p, _ := start(t, `kill -SEGV $$`)
	wait(t, p)
	if e := p.Exit(); e.Signal != "SIGSEGV" {
		t.Errorf("exit = %+v, want SIGSEGV", e)
	}
}

func TestOwnSession(t *testing.T) {
	p, _ := start(t, `sleep 30`)
	sid, err := syscall.Getpgid(p.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if sid != p.Pid {
		t.Errorf("process group %d, want its own (%d)", sid, p.Pid)
	}
}

// Stop ends the whole group, also a worker that ignores SIGTERM.
func TestStopKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "worker.pid")
	p, _ := start(t, `sh -c 'trap "" TERM; echo $$ > `+pidfile+`; while :; do sleep 1; done' & wait`)
	var worker int
	for i := 0; i < 100 && worker == 0; i++ {
		b, _ := os.ReadFile(pidfile)
		worker, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(20 * time.Millisecond)
	}
	if worker == 0 {
		t.Fatal("the worker did not start")
	}
	began := time.Now()
	p.Stop(300*time.Millisecond, nil)
	if took := time.Since(began); took > 6*time.Second {
		t.Errorf("Stop took %s", took)
	}
	for i := 0; i < 100; i++ {
		if err := syscall.Kill(worker, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("worker %d survived Stop", worker)
}

func TestNotFound(t *testing.T) {
	_, err := Start(Spec{Argv: []string{"no-such-command-for-vigil"}})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

// The copier counts what the log refuses, and the server, whose writes
// never fail, goes on: /dev/full refuses every write as a full disk does.
func TestOutputLostToAFullLogIsCounted(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	p, err := Start(Spec{Argv: []string{"sh", "-c", `head -c 300000 /dev/zero && echo wrote-all`}, Env: os.Environ(), Log: full})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) })
	wait(t, p)
	if e := p.Exit(); e.Code != 0 || e.Signal != "" {
		t.Errorf("exit = %+v: the server's writes failed", e)
	}
	st, ok := p.Output(10 * time.Second)
	if !ok || !st.Final {
		t.Fatalf("output state %+v (counted %v), want final", st, ok)
	}
	if want := int64(300000 + len("wrote-all\n")); st.Lost != want || st.Copied != 0 || st.Err == "" {
		t.Errorf("output state %+v, want all %d bytes lost with the error", st, want)
	}
}
