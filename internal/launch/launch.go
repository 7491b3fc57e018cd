// Package launch starts a server the way vigil needs it: in its own session
// and process group, with stdout and stderr written straight into a log
// file (never through a pipe of vigil's, so the server can neither block on
// vigil nor die with it), and stops the whole group on request.
package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"vigil/internal/observe"
)

// Spec is what to start.
type Spec struct {
	Argv []string
	// Env is the complete environment; PYTHONUNBUFFERED=1 is added.
	Env []string
	// Log is the file that receives stdout and stderr.
	Log *os.File
}

// Process is a started server.
type Process struct {
	Pid  int
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	exit observe.Exit
}

// ErrNotFound means the command does not exist or is not executable.
var ErrNotFound = errors.New("command not found")

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
	cmd := &exec.Cmd{
		Path:   path,
		Args:   spec.Argv,
		Env:    append(append([]string(nil), spec.Env...), "PYTHONUNBUFFERED=1"),
		Stdin:  devnull,
		Stdout: spec.Log,
		Stderr: spec.Log,
		// A session of its own: a Ctrl-C in vigil's terminal does not reach
		// the server, and the group can be stopped as a whole.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Argv[0], err)
	}
	p := &Process{Pid: cmd.Process.Pid, cmd: cmd, done: make(chan struct{})}
	go p.wait()
	return p, nil
}

func (p *Process) wait() {
	err := p.cmd.Wait()
	var e observe.Exit
	if st := p.cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = SignalName(ws.Signal())
		} else {
			e.Code = st.ExitCode()
		}
	} else if err != nil {
		e.Code = -1
	}
	p.mu.Lock()
	p.exit = e
	p.mu.Unlock()
	close(p.done)
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit is how the process ended; valid once Done is closed.
func (p *Process) Exit() observe.Exit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// Signal sends sig to the server's whole process group.
func (p *Process) Signal(sig syscall.Signal) error {
	// The group id is the leader's pid because of Setsid.
	err := syscall.Kill(-p.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Stop ends the process group: SIGTERM, up to grace for it to exit, then
// SIGKILL. It returns once the leader has exited (or after a last short
// wait following SIGKILL). Stop only signals the group vigil created.
func (p *Process) Stop(grace time.Duration, now <-chan struct{}) {
	_ = p.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		// The leader is gone; give the rest of its group the same grace.
		if p.groupGone(grace, now) {
			return
		}
	case <-t.C:
	case <-now:
	}
	_ = p.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
	}
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

// groupGone waits up to grace for every member of the group to exit.
func (p *Process) groupGone(grace time.Duration, now <-chan struct{}) bool {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if errors.Is(syscall.Kill(-p.Pid, 0), syscall.ESRCH) {
			return true
		}
		select {
		case <-now:
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
	return false
}
