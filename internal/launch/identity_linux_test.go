package launch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitUntil polls cond for up to 10 s: real processes on a loaded machine.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitUntil(t, "the pid file "+filepath.Base(path), func() bool {
		b, _ := os.ReadFile(path)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	return pid
}

// kill ends and reaps a process a test left behind.
func kill(pid int) {
	_ = syscall.Kill(pid, syscall.SIGKILL)
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, 0, nil)
}

func alive(pid int) bool {
	st, err := readStat(pid)
	return err == nil && !zombie(st.state)
}

// The leader's exit is known while its zombie still holds the PID.
func TestExitedLeaderIsKeptUntilReleased(t *testing.T) {
	p, _ := start(t, `exit 7`)
	wait(t, p)
	if e := p.Exit(); e.Code != 7 {
		t.Errorf("exit = %+v, want status 7", e)
	}
	st, err := readStat(p.Pid)
	if err != nil || st.state != 'Z' {
		t.Fatalf("leader after exit: %+v, %v; want a zombie", st, err)
	}
	p.Release()
	if _, err := readStat(p.Pid); err == nil {
		t.Errorf("leader %d still there after Release", p.Pid)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("Signal after Release = %v, want nil (and no signal sent)", err)
	}
}

// A process that takes the server's PID number must never be signalled.
// ns_last_pid makes the kernel hand out the server's PID next; the
// unreaped leader keeps it from being reused at all.
func TestReusedPIDIsNeverSignalled(t *testing.T) {
	const knob = "/proc/sys/kernel/ns_last_pid"
	if f, err := os.OpenFile(knob, os.O_WRONLY, 0); err != nil {
		t.Skipf("cannot write %s here (%v): the PID-reuse test needs it", knob, err)
	} else {
		f.Close()
	}
	p, _ := start(t, `exit 0`)
	wait(t, p)
	// Ask for the server's PID for a newcomer leading its own group, as
	// a server started later would. The unreaped leader holds it, so the
	// newcomer gets another; a launcher that reaped early would have given
	// it away (see the control below).
	if err := os.WriteFile(knob, []byte(strconv.Itoa(p.Pid-1)), 0); err != nil {
		t.Skipf("cannot write %s: %v", knob, err)
	}
	// Its own group, in vigil's session: as vigil's GPU sampler starts its
	// children (a child in a session of its own would be taken for a
	// daemon of the server, see adopted).
	stranger := exec.Command("sleep", "30")
	stranger.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stranger.Process.Kill(); stranger.Wait() })
	if stranger.Process.Pid == p.Pid {
		t.Fatalf("the kernel reused the unreaped server's PID %d", p.Pid)
	}
	p.Stop(time.Second, nil)
	if !alive(stranger.Process.Pid) {
		t.Fatalf("the newcomer %d was killed by Stop", stranger.Process.Pid)
	}
	// Control: once released the PID is free, and this test would have
	// caught a launcher that reaps early.
	os.WriteFile(knob, []byte(strconv.Itoa(p.Pid-1)), 0)
	c := exec.Command("true")
	if err := c.Start(); err == nil {
		if c.Process.Pid != p.Pid {
			t.Logf("control: got PID %d, not the freed %d (another process took it)", c.Process.Pid, p.Pid)
		}
		c.Wait()
	}
}

// A stopped server is continued before SIGTERM, so its handler runs and
// it exits cleanly instead of being killed at the end of the grace.
func TestStopContinuesAStoppedServer(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	// No child comes and goes: when one exits, the kernel sends SIGHUP
	// and SIGCONT to a stopped orphaned group.
	p, _ := start(t, `trap 'exit 0' TERM; echo $$ > `+ready+`; sleep 1000 & wait`)
	readPid(t, ready)
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the server to stop", func() bool {
		st, err := readStat(p.Pid)
		return err == nil && st.state == 'T'
	})
	p.Stop(time.Minute, nil)
	wait(t, p)
	if e := p.Exit(); e.Code != 0 || e.Signal != "" {
		t.Errorf("exit = %+v, want a clean exit from the TERM handler (no SIGKILL)", e)
	}
}

// Descriptors vigil inherited do not reach the server.
func TestInheritedDescriptorsAreClosed(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// As a shell's 7>&1 leaves it: inheritable.
	if _, err := fcntlClearCloexec(w.Fd()); err != nil {
		t.Fatal(err)
	}
	fd := int(w.Fd())
	p, log := start(t, `ls /proc/$$/fd`)
	wait(t, p)
	b, _ := os.ReadFile(log)
	fds := strings.Fields(string(b))
	for _, f := range fds {
		if f == strconv.Itoa(fd) {
			t.Errorf("the server got descriptor %d; its descriptors: %v", fd, fds)
		}
	}
}

func fcntlClearCloexec(fd uintptr) (uintptr, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFD, 0)
	if e != 0 {
		return 0, e
	}
	return r, nil
}

// A server that daemonizes (setsid, the parent exits 0) is followed to its
// daemon, which Stop ends too.
func TestDaemonIsFollowedAndStopped(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "daemon.pid")
	log := filepath.Join(dir, "server.log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	script := `setsid sh -c 'echo $$ > ` + pidfile + `; exec sleep 60' & exit 0`
	p, err := Start(Spec{Argv: []string{"sh", "-c", script}, Env: os.Environ(), Log: f, Subreaper: true})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, p)
	if e := p.Exit(); e.Code != 0 {
		t.Fatalf("exit = %+v, want 0", e)
	}
	daemon := readPid(t, pidfile)
	t.Cleanup(func() { kill(daemon) })
	var got []int
	waitUntil(t, "the daemon to be handed to vigil", func() bool {
		got = p.Daemons()
		return len(got) == 1 && got[0] == daemon
	})
	if st, _ := readStat(daemon); st.sid == p.Pid {
		t.Fatalf("the daemon did not leave the server's session: %+v", st)
	}
	p.Stop(5*time.Second, nil)
	if alive(daemon) {
		t.Errorf("daemon %d survived Stop", daemon)
	}
	if _, err := readStat(daemon); err == nil {
		t.Errorf("daemon %d was not reaped", daemon)
	}
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want procStat
		err  bool
	}{
		{"plain", "42 (python3) S 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9000 0 0", procStat{pid: 42, ppid: 1, pgrp: 42, sid: 42, state: 'S', start: 9000}, false},
		{"comm with ) and spaces", "7 (a) b (c) Z 3 4 5 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77 0 0", procStat{pid: 7, ppid: 3, pgrp: 4, sid: 5, state: 'Z', start: 77}, false},
		{"short", "7 (x) S 1 2", procStat{}, true},
		{"garbage", "nothing", procStat{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.in))
			if (err != nil) != tt.err || got != tt.want {
				t.Errorf("parseStat = %+v, %v; want %+v, err %v", got, err, tt.want, tt.err)
			}
			if err != nil && !errors.Is(err, errStat) {
				t.Errorf("err = %v, want errStat", err)
			}
		})
	}
}

// An orphan of the server handed to vigil is reaped; the leader's zombie
// is not.
func TestReapOrphansLeavesTheLeader(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "orphan.pid")
	f, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The orphan stays in the server's session, exits soon after its
	// parent, and is handed to vigil.
	script := `sh -c 'echo $$ > ` + pidfile + `; sleep 0.3' & exit 0`
	p, err := Start(Spec{Argv: []string{"sh", "-c", script}, Env: os.Environ(), Log: f, Subreaper: true})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, p)
	orphan := readPid(t, pidfile)
	waitUntil(t, "the orphan to exit", func() bool {
		st, err := readStat(orphan)
		return err == nil && zombie(st.state) && st.ppid == os.Getpid()
	})
	if !Owned(p.Pid) {
		t.Fatalf("leader %d not owned", p.Pid)
	}
	ReapOrphans()
	if _, err := readStat(orphan); err == nil {
		t.Errorf("orphan %d not reaped", orphan)
	}
	if st, err := readStat(p.Pid); err != nil || st.state != 'Z' {
		t.Errorf("the leader's zombie was taken: %+v, %v", st, err)
	}
	p.Release()
	if Owned(p.Pid) {
		t.Errorf("leader still owned after Release")
	}
}

// startDaemon launches a server whose leader exits 0 after a child of its
// own session has called setsid and exec'd script; it returns the leader
// and the daemon's PID.
func startDaemon(t *testing.T, script string) (*Process, int) {
	t.Helper()
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "daemon.pid")
	f, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	leader := `setsid sh -c 'echo $$ > ` + pidfile + `; ` + script + `' & exit 0`
	p, err := Start(Spec{Argv: []string{"sh", "-c", leader}, Env: os.Environ(), Log: f, Subreaper: true})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, p)
	daemon := readPid(t, pidfile)
	t.Cleanup(func() { kill(daemon); p.Stop(time.Second, nil) })
	return p, daemon
}

func followed(t *testing.T, p *Process, daemon int) *Daemon {
	t.Helper()
	var d *Daemon
	waitUntil(t, "the daemon to be followed", func() bool {
		var ok bool
		d, ok = p.FollowDaemon()
		return ok && d.Pid == daemon
	})
	return d
}

func TestFollowedDaemonsExit(t *testing.T) {
	tests := []struct {
		name   string
		script string
		signal syscall.Signal // sent to the daemon once followed (0: none)
		want   string
	}{
		{"its exit status", `while [ ! -e ` + "$GO" + ` ]; do sleep 0.05; done; exit 3`, 0, "3"},
		{"a signal that ends it", `exec sleep 60`, syscall.SIGTERM, "SIGTERM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The daemon ends once followed: when told to, or signalled.
			goFile := filepath.Join(t.TempDir(), "go")
			t.Setenv("GO", goFile)
			p, daemon := startDaemon(t, tt.script)
			d := followed(t, p, daemon)
			if err := os.WriteFile(goFile, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.signal != 0 {
				_ = syscall.Kill(daemon, tt.signal)
			}
			select {
			case <-d.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the daemon's exit was not seen")
			}
			e := d.Exit()
			got := e.Signal
			switch {
			case e.Gone:
				got = "gone"
			case got == "":
				got = strconv.Itoa(e.Code)
			}
			if got != tt.want {
				t.Fatalf("exit = %+v, want %s", e, tt.want)
			}
			// Its zombie holds the PID until Stop: no reaping takes it.
			ReapOrphans()
			if st, err := readStat(daemon); err != nil || !zombie(st.state) || !Owned(daemon) {
				t.Fatalf("the daemon's zombie was not kept: %+v, %v, owned %v", st, err, Owned(daemon))
			}
			p.Stop(time.Second, nil)
			if _, err := readStat(daemon); err == nil || Owned(daemon) {
				t.Errorf("daemon %d was not reaped by Stop", daemon)
			}
		})
	}
}

func TestNoDaemonToFollow(t *testing.T) {
	p, _ := start(t, `exit 0`)
	wait(t, p)
	if d, ok := p.FollowDaemon(); ok {
		t.Fatalf("FollowDaemon = %d, want none", d.Pid)
	}
}

// A daemon's PID taken by another process (another start time) is never
// signalled, counted alive, waited for or reaped.
func TestReusedDaemonPIDIsNeverSignalled(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { kill(pid) })
	st, err := readStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	stranger := member{pid: pid, start: st.start + 1} // what a reused PID looks like
	signalDaemon(stranger, syscall.SIGKILL)
	reapIfZombie(stranger)
	if !alive(pid) {
		t.Fatal("a process with another start time was signalled")
	}
	if daemonAlive(stranger) {
		t.Error("a process with another start time counts as the daemon")
	}
	awaitGone(stranger, time.Millisecond) // returns at once: not the daemon

	own := member{pid: pid, start: st.start}
	if !daemonAlive(own) {
		t.Fatal("the daemon itself does not count as alive")
	}
	signalDaemon(own, syscall.SIGKILL)
	awaitGone(own, time.Millisecond)
	if daemonAlive(own) {
		t.Error("the daemon survived its signal")
	}
}
