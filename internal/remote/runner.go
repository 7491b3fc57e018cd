package remote

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// Command is one local process the package runs: always the ssh client.
type Command struct {
	Args   []string // Args[0] is the program
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Runner runs a command to its end. The error is nil for exit status 0;
// otherwise it has an ExitCode() int method when the process ran and
// exited (an *exec.ExitError does), and is anything else when it could not
// start. Cancelling ctx ends the command.
type Runner interface {
	Run(ctx context.Context, c Command) error
}

// RunnerFunc adapts a function to a Runner.
type RunnerFunc func(ctx context.Context, c Command) error

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, c Command) error { return f(ctx, c) }

// ExecRunner runs commands with os/exec. A cancelled command gets SIGTERM
// (ssh then closes its session cleanly) and SIGKILL after Grace.
type ExecRunner struct {
	Grace time.Duration // default 5s
}

// Run starts c and waits for it.
func (r ExecRunner) Run(ctx context.Context, c Command) error {
	if len(c.Args) == 0 {
		return errors.New("remote: empty command")
	}
	cmd := exec.CommandContext(ctx, c.Args[0], c.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = r.Grace
	if cmd.WaitDelay <= 0 {
		cmd.WaitDelay = 5 * time.Second
	}
	err := cmd.Run()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok && ee.ExitCode() < 0 {
		// Killed by a signal: ssh never exits so unless we ended it.
		return &signalled{err: ee}
	}
	return err
}

// signalled is an ssh client killed by a signal; ExitCode reports 255,
// ssh's own failure status.
type signalled struct{ err *exec.ExitError }

func (s *signalled) Error() string { return s.err.Error() }
func (s *signalled) Unwrap() error { return s.err }
func (s *signalled) ExitCode() int { return 255 }

// exitCode is the exit status err carries: 0 for nil, -1 when the command
// did not run at all.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return -1
}
