// Package launch starts a server the way vigil needs it: in its own session
// and process group, with stdout and stderr carried into a log file by a
// copier process of their own (logcopy; never through a pipe of vigil's,
// so the server can neither block on vigil nor die with it, and what a full
// disk refuses is counted), and stops the whole group on request.
//
// Process identity: a signal sent to a PID that has been reused reaches a
// stranger. The server's leader is therefore not reaped when it exits: its
// zombie holds the PID (and with it the group id) until Stop has signalled
// the group or Release is called. Likewise vigil can become a subreaper
// (Spec.Subreaper), so that a server that daemonizes (setsid, parent exits
// 0) leaves its daemon as vigil's child, to be found by [Process.Daemons],
// followed as the server ([Process.FollowDaemon]) and stopped with the
// rest; a daemon is signalled only while its start time is the one seen.
package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"vigil/internal/logcopy"
	"vigil/internal/observe"
)

// Spec is what to start.
type Spec struct {
	Argv []string
	// Env is the complete environment; PYTHONUNBUFFERED=1 is added.
	Env []string
	// Log is the file that receives stdout and stderr.
	Log *os.File
	// Subreaper makes vigil the reaper of the server's orphans (Linux
	// PR_SET_CHILD_SUBREAPER, for the whole vigil process), so that a
	// server that daemonizes can be followed to its daemon.
	Subreaper bool
}

// Process is a started server.
type Process struct {
	Pid  int
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	exit observe.Exit
	// startTicks is the leader's start time, to tell its daemons from
	// older children of vigil.
	startTicks uint64
	release    sync.Once
	daemons    []member // every daemon seen, kept until reaped
	// copier carries the output into the log; nil when it could not be
	// started and the server writes the log itself.
	copier *logcopy.Copier
}

// member is a daemon of the server: its PID and start time, checked
// before every signal so that a PID the kernel gave to a newcomer is never
// signalled.
type member struct {
	pid   int
	start uint64
}

// ErrNotFound means the command does not exist or is not executable.
var ErrNotFound = errors.New("command not found")

// leaders are the PIDs of the servers launched and not yet reaped, whose
// zombies no orphan reaping may take; kept are the daemons followed as the
// server ([Process.FollowDaemon]), whose zombies are kept the same way
// until Stop has signalled them.
var leaders = struct {
	sync.Mutex
	pids map[int]bool
	kept map[int]bool
}{pids: map[int]bool{}, kept: map[int]bool{}}

// Start launches spec.
func Start(spec Spec) (*Process, error) {
	if len(spec.Argv) == 0 {
		return nil, fmt.Errorf("no command given")
	}
	path, err := exec.LookPath(spec.Argv[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Argv[0], ErrNotFound)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	if spec.Subreaper {
		if err := setSubreaper(); err != nil {
			return nil, fmt.Errorf("becoming the server's subreaper: %w", err)
		}
	}
	// Descriptors vigil inherited (a shell's 7>&1) must not reach the
	// server: it would hold a pipe open that someone waits on.
	closeInherited()
	out := spec.Log
	// Without a copier (no /proc/self/exe to start again, say) the server
	// writes its log itself, as it would under a shell's redirection: the
	// launch goes on, and only a full disk's loss goes uncounted.
	copier, cerr := logcopy.Start(spec.Log)
	if cerr == nil {
		out = copier.Writer()
		defer copier.CloseWriter()
	}
	cmd := &exec.Cmd{
		Path:   path,
		Args:   spec.Argv,
		Env:    append(append([]string(nil), spec.Env...), "PYTHONUNBUFFERED=1"),
		Stdin:  devnull,
		Stdout: out,
		Stderr: out,
		// A session of its own: a Ctrl-C in vigil's terminal does not reach
		// the server, and the group can be stopped as a whole.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	leaders.Lock()
	err = cmd.Start()
	if err == nil {
		leaders.pids[cmd.Process.Pid] = true
	}
	leaders.Unlock()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Argv[0], err)
	}
	p := &Process{Pid: cmd.Process.Pid, cmd: cmd, done: make(chan struct{}), copier: copier}
	if st, err := readStat(p.Pid); err == nil {
		p.startTicks = st.start
	}
	go p.wait()
	return p, nil
}

func (p *Process) wait() {
	e, ok := waitExit(p.Pid)
	if !ok {
		// No way to wait without reaping here: reap, as before.
		p.Release()
		e = exitOf(p.cmd.ProcessState)
	}
	p.mu.Lock()
	p.exit = e
	p.mu.Unlock()
	close(p.done)
}

func exitOf(st *os.ProcessState) observe.Exit {
	if st == nil {
		return observe.Exit{Code: -1}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return observe.Exit{Signal: SignalName(ws.Signal())}
	}
	return observe.Exit{Code: st.ExitCode()}
}

// Release reaps the leader once it has exited (waiting for that), freeing
// its PID. After Release, Signal and Stop no longer signal anything: the
// PID may belong to someone else.
func (p *Process) Release() {
	p.release.Do(func() {
		_ = p.cmd.Wait()
		leaders.Lock()
		delete(leaders.pids, p.Pid)
		leaders.Unlock()
	})
}

func (p *Process) released() bool {
	leaders.Lock()
	defer leaders.Unlock()
	return !leaders.pids[p.Pid]
}

// Output is what became of the server's output on its way to the log: it
// waits up to wait for the copier to take the last of it (every process
// holding the output has closed it). ok is false when nothing is counted
// (no copier: the server writes its log itself).
func (p *Process) Output(wait time.Duration) (st logcopy.State, ok bool) {
	if p.copier == nil {
		return logcopy.State{}, false
	}
	return p.copier.Wait(wait), true
}

// SyncOutput returns once all the server wrote before the call is in its
// log (at once without a copier: the server's writes went there
// directly), or ctx ends.
func (p *Process) SyncOutput(ctx context.Context) {
	if p.copier != nil {
		p.copier.Sync(ctx)
	}
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit is how the process ended; valid once Done is closed.
func (p *Process) Exit() observe.Exit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// Signal sends sig to the server's whole process group. It is safe until
// Release: the unreaped leader keeps the group id from being reused.
func (p *Process) Signal(sig syscall.Signal) error {
	if p.released() {
		return nil
	}
	// The group id is the leader's pid because of Setsid.
	err := syscall.Kill(-p.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Daemons returns the server's processes that left its session tree and
// were handed to vigil as their subreaper: a daemon after setsid and its
// parent's exit. Only with Spec.Subreaper; empty otherwise.
func (p *Process) Daemons() []int {
	found := p.adopted()
	pids := make([]int, len(found))
	for i, d := range found {
		pids[i] = d.pid
	}
	slices.Sort(pids)
	return pids
}

// adopted finds the daemons alive now, earliest started first, and
// remembers them for Stop.
func (p *Process) adopted() []member {
	found := adopted(p.Pid, p.startTicks)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range found {
		if !slices.Contains(p.daemons, d) {
			p.daemons = append(p.daemons, d)
		}
	}
	return found
}

// Daemon is the process a server that daemonized left running: it is the
// server from then on. Done and Exit work as the Process's do.
type Daemon struct {
	Pid  int
	done chan struct{}
	mu   sync.Mutex
	exit observe.Exit
}

// Done is closed when the daemon has exited.
func (d *Daemon) Done() <-chan struct{} { return d.done }

// Exit is how the daemon ended; valid once Done is closed. A daemon that
// is not vigil's child has no status to read: its end is Gone.
func (d *Daemon) Exit() observe.Exit {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.exit
}

// FollowDaemon is asked when the process vigil follows as the server (the
// leader, or a daemon followed before) has exited 0: it returns the
// server's daemon, the earliest started of [Process.Daemons], whose exit
// it then watches. Its zombie is kept, like the leader's, until Stop has
// signalled it. ok is false when no daemon lives (only with
// Spec.Subreaper are daemons found at all).
func (p *Process) FollowDaemon() (*Daemon, bool) {
	found := p.adopted()
	if len(found) == 0 {
		return nil, false
	}
	m := found[0]
	leaders.Lock()
	leaders.kept[m.pid] = true
	leaders.Unlock()
	d := &Daemon{Pid: m.pid, done: make(chan struct{})}
	go d.wait(m)
	return d, true
}

func (d *Daemon) wait(m member) {
	e, ok := waitExit(m.pid)
	if !ok {
		// Not vigil's child (any more): its end is seen in /proc, by its
		// start time, and it leaves no status.
		awaitGone(m, daemonPoll)
		e = observe.Exit{Gone: true}
	}
	d.mu.Lock()
	d.exit = e
	d.mu.Unlock()
	close(d.done)
}

// daemonPoll is how often a daemon that is not vigil's child is looked
// for in /proc.
const daemonPoll = 100 * time.Millisecond

// Stop ends the process group and any daemons: SIGCONT (a stopped server
// cannot act on SIGTERM, and would cost the whole grace), SIGTERM, up to
// grace for all of them to exit, then SIGKILL. It returns once they are
// gone (or after a last short wait following SIGKILL), and then reaps the
// leader. Stop only signals processes vigil started or was handed as
// their reaper, and only while their zombies hold their PIDs.
func (p *Process) Stop(grace time.Duration, now <-chan struct{}) {
	defer p.reapDaemons()
	defer func() {
		// A leader that outlived SIGKILL (stuck in the kernel) stays
		// unreaped: its PID stays ours.
		select {
		case <-p.done:
			p.Release()
		default:
		}
	}()
	p.Daemons()
	p.signalAll(syscall.SIGCONT)
	p.signalAll(syscall.SIGTERM)
	if p.waitGone(grace, now) {
		return
	}
	p.signalAll(syscall.SIGKILL)
	p.waitGone(5*time.Second, nil)
}

// signalAll signals the leader's group and each daemon's.
func (p *Process) signalAll(sig syscall.Signal) {
	_ = p.Signal(sig)
	p.mu.Lock()
	daemons := slices.Clone(p.daemons)
	p.mu.Unlock()
	for _, d := range daemons {
		signalDaemon(d, sig)
	}
}

// waitGone waits up to grace for the leader and every other member of the
// group, and every daemon, to exit.
func (p *Process) waitGone(grace time.Duration, now <-chan struct{}) bool {
	t := time.NewTimer(grace)
	defer t.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	done := p.done
	for {
		select {
		case <-p.done:
			done = nil // closed: wake on ticks from now on
			p.mu.Lock()
			daemons := slices.Clone(p.daemons)
			p.mu.Unlock()
			if !groupAlive(p.Pid) && !slices.ContainsFunc(daemons, daemonAlive) {
				return true
			}
		default:
		}
		select {
		case <-t.C:
			return false
		case <-now:
			return false
		case <-done:
		case <-tick.C:
		}
	}
}

// reapDaemons collects the daemons' zombies once nothing will signal them.
func (p *Process) reapDaemons() {
	p.mu.Lock()
	daemons := p.daemons
	p.daemons = nil
	p.mu.Unlock()
	leaders.Lock()
	for _, d := range daemons {
		delete(leaders.kept, d.pid)
	}
	leaders.Unlock()
	for _, d := range daemons {
		reapIfZombie(d)
	}
	reapOrphans()
}

// SignalName is the conventional name of sig ("SIGKILL").
func SignalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGFPE:
		return "SIGFPE"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// Owned reports whether pid is a launched server's leader that launch is
// keeping unreaped: a reaper (vigil as PID 1 or subreaper) must leave its
// zombie alone, or a reused PID could be signalled.
func Owned(pid int) bool {
	leaders.Lock()
	defer leaders.Unlock()
	return leaders.pids[pid] || leaders.kept[pid]
}

// ReapOrphans reaps the zombies of server processes handed to vigil as
// their subreaper (Spec.Subreaper), never a launched leader nor a child
// vigil started in its own session. Stop calls it; a long watch may call it
// now and then so that short-lived orphans do not pile up.
func ReapOrphans() { reapOrphans() }
