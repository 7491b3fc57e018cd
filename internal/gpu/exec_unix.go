//go:build unix

package gpu

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// Exec runs commands for real. On timeout it kills the command's whole
// process group and, if the process does not go away within KillGrace,
// returns a *StuckError instead of waiting for it.
var Exec Runner = execRunner{}

// KillGrace is how long Exec waits for a killed command to be reaped.
const KillGrace = 500 * time.Millisecond

type execRunner struct{}

func (execRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild holding the pipe must not keep Wait from returning.
	cmd.WaitDelay = KillGrace
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	waited := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		waited <- cmd.Wait()
		close(done)
	}()
	select {
	case err := <-waited:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.Bytes(), &ExitError{Code: exit.ExitCode(), Output: out.String()}
		}
		return out.Bytes(), err
	case <-ctx.Done():
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	t := time.NewTimer(KillGrace)
	defer t.Stop()
	select {
	case <-waited:
		return nil, ctx.Err()
	case <-t.C:
		return nil, &StuckError{Err: ctx.Err(), Done: done}
	}
}
