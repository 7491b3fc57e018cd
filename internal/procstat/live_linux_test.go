//go:build linux

package procstat

import (
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startSleep starts "sleep 60" as a child and kills it when the test ends.
func startSleep(tb testing.TB) int {
	tb.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd.Process.Pid
}

func TestLiveSelf(t *testing.T) {
	child := startSleep(t)
	self := os.Getpid()
	var fsys FS
	// CPU time is counted in 10 ms ticks: a test process that has barely
	// run may show none yet, so spend a few ticks first.
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil || ru.Utime.Nano()+ru.Stime.Nano() >= int64(30*time.Millisecond) {
			break
		}
	}

	// The child is visible in /proc once fork returned, but it may not have
	// exec'd or gone to sleep yet; wait for it to sleep as "sleep".
	var s Sample
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids, err := fsys.Tree(self)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(pids, self) || !slices.Contains(pids, child) {
			t.Fatalf("got tree %v, want it to hold %d and %d", pids, self, child)
		}
		if s, err = fsys.Sample(pids); err != nil {
			t.Fatal(err)
		}
		if p, _ := s.Proc(child); p.Comm == "sleep" && p.State == 'S' && fsys.Wchan(child) != "" || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}

	me, ok := s.Proc(self)
	if !ok {
		t.Fatal("got no sample of the test process")
	}
	kid, ok := s.Proc(child)
	if !ok {
		t.Fatal("got no sample of the child")
	}
	checks := []struct {
		name string
		ok   bool
		got  any
	}{
		{"self ppid", me.PPID == os.Getppid(), me.PPID},
		{"self cpu > 0", me.CPU > 0, me.CPU},
		{"self rss > 1 MiB", me.RSS > 1<<20, me.RSS},
		{"self io readable", me.HasIO, me.HasIO},
		{"self threads = stat's count", me.Threads.Total() >= 2, me.Threads},
		{"self start > 0", me.Start > 0, me.Start},
		{"self run-queue wait known", me.HasWaited || !schedstatKept(), me.HasWaited},
		{"child comm", kid.Comm == "sleep", kid.Comm},
		{"child parent", kid.PPID == self, kid.PPID},
		{"child one sleeping thread", kid.Threads == ThreadStates{Sleeping: 1}, kid.Threads},
		{"child after self", kid.Start >= me.Start, kid.Start},
		{"child wchan", fsys.Wchan(child) != "", fsys.Wchan(child)},
		{"child title", fsys.Title(child) == "sleep 60", fsys.Title(child)},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %v", c.name, c.got)
		}
	}
	m, err := fsys.MemInfo()
	if err != nil || m.Total <= 0 || m.Available <= 0 || m.Available > m.Total {
		t.Errorf("got meminfo %+v, %v, want 0 < available <= total", m, err)
	}
}

// TestLiveOrphanedSession launches a shell in its own session (as vigil does
// with setsid) that leaves a background worker behind and exits. The worker
// is reparented away from the shell but still belongs to the shell's session.
func TestLiveOrphanedSession(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	leader := cmd.Process.Pid
	orphan, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(orphan, syscall.SIGKILL)

	got, err := FS{}.Tree(leader)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{orphan}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestLiveSampler(t *testing.T) {
	startSleep(t)
	s := NewSampler(FS{}, os.Getpid())
	if _, _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	// Burn 300ms of CPU, however long a loaded machine takes to give it.
	before := selfCPU()
	for deadline := time.Now().Add(10 * time.Second); selfCPU()-before < 300*time.Millisecond && time.Now().Before(deadline); {
	}
	spent := selfCPU() - before
	_, d, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	// CPU time is counted in 10ms ticks, and per thread, so allow slack.
	used := time.Duration(d.CPU * float64(d.Interval))
	if used < spent*8/10 || d.Procs < 2 {
		t.Errorf("got %v CPU over %v in %d processes, want about %v in >= 2", used, d.Interval, d.Procs, spent)
	}
}

// selfCPU is this process's CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestLivePortHolder: the test process listens on a port; it holds it, a
// child of its own (the "sleep") does not, and a port nobody listens on
// cannot be told.
func TestLivePortHolder(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	self, child := os.Getpid(), startSleep(t)
	var fsys FS
	if got := fsys.PortHolder(port, []int{self, child}); got != HolderTree {
		t.Errorf("the listening tree: %v, want HolderTree", got)
	}
	got, holder := fsys.PortHolder(port, []int{child}), fsys.PortListener(port, []int{child})
	if got != HolderOther || holder != self {
		t.Errorf("another tree: %v held by %d, want HolderOther held by %d", got, holder, self)
	}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freePort := free.Addr().(*net.TCPAddr).Port
	free.Close()
	if got := fsys.PortHolder(freePort, []int{self}); got != HolderUnknown {
		t.Errorf("a port nobody listens on: %v, want HolderUnknown", got)
	}
}

// schedstatKept: the kernel keeps /proc/PID/schedstat (CONFIG_SCHED_INFO).
func schedstatKept() bool {
	_, err := os.Stat("/proc/self/schedstat")
	return err == nil
}

// TestLiveListeners: a port the test process listens on is found among its
// listeners, and not among those of a child that holds no socket.
func TestLiveListeners(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	want := ln.Addr().String()
	var fsys FS
	found := false
	for _, a := range fsys.Listeners([]int{os.Getpid()}) {
		found = found || a.String() == want
	}
	if !found {
		t.Errorf("Listeners of the test process lack %s: %v", want, fsys.Listeners([]int{os.Getpid()}))
	}
	if got := fsys.Listeners([]int{startSleep(t)}); len(got) != 0 {
		t.Errorf("Listeners of a sleep = %v, want none", got)
	}
}
