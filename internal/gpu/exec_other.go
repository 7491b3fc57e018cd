//go:build !unix

package gpu

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"time"
)

// Exec runs commands for real.
var Exec Runner = execRunner{}

// KillGrace is how long Exec waits for a killed command's output pipes.
const KillGrace = 500 * time.Millisecond

type execRunner struct{}

func (execRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = KillGrace
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.Bytes(), &ExitError{Code: exit.ExitCode(), Output: out.String()}
	}
	return out.Bytes(), err
}
