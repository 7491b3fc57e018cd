//go:build linux

package reaper

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vigil/internal/launch"
)

// The tests run the test binary as a child subreaper: orphans of the
// processes they start come to it, as they would to vigil as PID 1.
func TestMain(m *testing.M) {
	if err := BecomeSubreaper(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// reaped collects what a running reaper reaps.
type reaped struct {
	mu   sync.Mutex
	got  map[int]syscall.WaitStatus
	wake chan struct{}
}

func running(t *testing.T, linger time.Duration) (*Reaper, *reaped) {
	t.Helper()
	rec := &reaped{got: map[int]syscall.WaitStatus{}, wake: make(chan struct{}, 1)}
	r := &Reaper{Linger: linger, OnReap: func(pid int, ws syscall.WaitStatus) {
		rec.mu.Lock()
		rec.got[pid] = ws
		rec.mu.Unlock()
		select {
		case rec.wake <- struct{}{}:
		default:
		}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return r, rec
}

// waitReaped waits (bounded, for a loaded machine) until every pid in want
// was reaped, and returns their statuses.
func (rec *reaped) waitReaped(t *testing.T, want ...int) map[int]syscall.WaitStatus {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		rec.mu.Lock()
		all := true
		for _, pid := range want {
			if _, ok := rec.got[pid]; !ok {
				all = false
			}
		}
		got := make(map[int]syscall.WaitStatus, len(rec.got))
		for k, v := range rec.got {
			got[k] = v
		}
		rec.mu.Unlock()
		if all {
			return got
		}
		select {
		case <-rec.wake:
		case <-deadline:
			var states []string
			for _, pid := range want {
				b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
				states = append(states, string(b)+fmtErr(err))
			}
			t.Fatalf("not reaped: want %v, reaped %v; zombies left: %v; processes: %q", want, keys(got), zombiePids(t), states)
		}
	}
}

func keys(m map[int]syscall.WaitStatus) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}

func zombiePids(t *testing.T) []int {
	zs, err := (&Reaper{}).zombies()
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, z := range zs {
		out = append(out, z.pid)
	}
	return out
}

// orphans runs a shell that leaves n background children behind, which
// exit with codes 10, 11, ... once the file gate exists (so surely after
// the shell itself exited, and it cannot reap them), and returns their pids.
func orphans(t *testing.T, n int, gate string) []int {
	t.Helper()
	var script strings.Builder
	for i := range n {
		// Its output goes elsewhere: the pipe must close when the shell exits.
		script.WriteString("(" + waitFor(gate) + "; exit " + strconv.Itoa(10+i) + ") >/dev/null 2>&1 & echo $!\n")
	}
	out, err := exec.Command("sh", "-c", script.String()).Output()
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// waitFor is shell that waits (bounded) until path exists.
func waitFor(path string) string {
	return "i=0; while [ ! -e " + path + " ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i+1)); done"
}

func open(t *testing.T, gate string) {
	t.Helper()
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReapsOrphans(t *testing.T) {
	_, rec := running(t, 100*time.Millisecond)
	gate := filepath.Join(t.TempDir(), "go")
	pids := orphans(t, 5, gate)
	open(t, gate)
	got := rec.waitReaped(t, pids...)
	for i, pid := range pids {
		if ws := got[pid]; !ws.Exited() || ws.ExitStatus() != 10+i {
			t.Errorf("orphan %d: status %v, want exit %d", pid, ws, 10+i)
		}
	}
	for _, z := range zombiePids(t) {
		for _, pid := range pids {
			if z == pid {
				t.Errorf("orphan %d is still a zombie", pid)
			}
		}
	}
}

// The launcher gets its leader's own exit status even when the reaper
// reaps at first sight and the leader dies at once, leaving orphans.
func TestLeaderStatusStaysWithItsLauncher(t *testing.T) {
	r, rec := running(t, -1)
	dir := t.TempDir()
	for i := range 25 {
		log, err := os.Create(filepath.Join(dir, "server.log"))
		if err != nil {
			t.Fatal(err)
		}
		gate := filepath.Join(dir, "go"+strconv.Itoa(i))
		pidFile := filepath.Join(dir, "orphan.pid")
		// One orphan exits once the leader is surely gone; another races
		// the leader's own exit (whoever reaps it, the leader's status
		// must stay with the launcher).
		script := "(" + waitFor(gate) + "; exit 3) & echo $! > " + pidFile + "; (exit 4) & exit 9"
		var p *launch.Process
		err = r.Start(func() (int, <-chan struct{}, error) {
			var err error
			p, err = launch.Start(launch.Spec{Argv: []string{"sh", "-c", script}, Env: os.Environ(), Log: log})
			if err != nil {
				return 0, nil, err
			}
			return p.Pid, p.Done(), nil
		})
		log.Close()
		if err != nil {
			t.Fatal(err)
		}
		<-p.Done()
		if e := p.Exit(); e.Code != 9 || e.Signal != "" {
			t.Fatalf("round %d: the launcher saw %v, want exit status 9", i, e)
		}
		open(t, gate)
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		orphan, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		if ws := rec.waitReaped(t, orphan)[orphan]; ws.ExitStatus() != 3 {
			t.Fatalf("round %d: orphan status %v, want exit 3", i, ws)
		}
		rec.mu.Lock()
		_, stolen := rec.got[p.Pid]
		rec.mu.Unlock()
		if stolen {
			t.Fatalf("round %d: the reaper reaped the leader %d", i, p.Pid)
		}
	}
}

// A leader that is a zombie, its launcher not having waited yet, is never
// reaped, even by a reaper that reaps every other zombie at first sight.
func TestOwnedZombieIsLeftToItsLauncher(t *testing.T) {
	r := &Reaper{Linger: -1}
	cmd := exec.Command("sh", "-c", "exit 9")
	waited := make(chan struct{})
	if err := r.Start(func() (int, <-chan struct{}, error) {
		if err := cmd.Start(); err != nil {
			return 0, nil, err
		}
		return cmd.Process.Pid, waited, nil
	}); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(20 * time.Second); !slices.Contains(zombiePids(t), pid); {
		if time.Now().After(deadline) {
			t.Fatal("the leader never became a zombie")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for range 3 {
		if _, err := r.Sweep(); err != nil {
			t.Fatal(err)
		}
	}
	err := cmd.Wait()
	close(waited)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 9 {
		t.Fatalf("the launcher's wait: %v, want exit status 9", err)
	}
	// Once waited for, the pid is forgotten.
	if _, err := r.Sweep(); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.owned[pid]; ok {
		t.Error("a leader once waited for is still owned")
	}
}

// vigil's own helpers (nvidia-smi, journalctl) are waited for by os/exec;
// the reaper must leave them be while reaping orphans beside them.
func TestHelpersKeepTheirStatus(t *testing.T) {
	_, rec := running(t, 200*time.Millisecond)
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for range 4 {
		wg.Go(func() {
			for range 50 {
				err := exec.Command("sh", "-c", "exit 4").Run()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
					errs <- err
				}
			}
		})
	}
	gate := filepath.Join(t.TempDir(), "go")
	pids := orphans(t, 3, gate)
	open(t, gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a helper lost its status: %v", err)
	}
	rec.waitReaped(t, pids...)
}

func TestNilReaperJustStarts(t *testing.T) {
	var r *Reaper
	called := false
	if err := r.Start(func() (int, <-chan struct{}, error) { called = true; return 1, nil, nil }); err != nil || !called {
		t.Errorf("nil reaper: called %v err %v", called, err)
	}
	if next, err := r.Sweep(); err != nil || !next.IsZero() {
		t.Errorf("nil sweep: %v %v", next, err)
	}
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want stat
		ok   bool
	}{
		{"plain", "123 (python3) Z 1 123 123 0 -1 4228 0 0 0 0 0 0 0 0 20 0 1 0 98765 0 0", stat{'Z', 1, 98765}, true},
		{"name with parens and spaces", "77 (a) b (c) S 5 77 77 0 -1 4228 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0", stat{'S', 5, 42}, true},
		{"cut short", "77 (x) Z 5 77", stat{}, false},
		{"no name", "garbage", stat{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseStat(tt.in)
			if ok != tt.ok || got != tt.want {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func fmtErr(err error) string {
	if err != nil {
		return err.Error()
	}
	return ""
}
