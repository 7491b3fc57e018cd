package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"syscall"
	"time"

	"vigil/internal/remote"
)

// remoteMember is a member vigil on another host.
type remoteMember struct{ s *remote.Session }

func (r remoteMember) Interrupt() error { return r.s.Interrupt() }

func (r remoteMember) Wait() (int, string, error) {
	res, err := r.s.Wait()
	if res == nil {
		return -1, "", err
	}
	return res.Code, res.Stderr, err
}

// localMember is a member vigil on this host: vigil itself, in a process
// group of its own so that a Ctrl-C reaches it only through Interrupt.
type localMember struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan struct{}
	err    error
}

func startLocalMember(self string, args []string, on func(remote.Event)) (*localMember, error) {
	cmd := exec.Command(self, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	l := &localMember{cmd: cmd, stderr: new(bytes.Buffer), done: make(chan struct{})}
	cmd.Stderr = &tailWriter{max: 16 << 10, b: l.stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		defer close(l.done)
		r := bufio.NewReaderSize(out, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				on(localEvent(bytes.TrimRight(line, "\n")))
			}
			if err != nil {
				break
			}
		}
		l.err = cmd.Wait()
	}()
	return l, nil
}

func localEvent(line []byte) remote.Event {
	e := remote.Event{Raw: bytes.Clone(line), Received: time.Now()}
	var head struct {
		Event string  `json:"event"`
		T     float64 `json:"t"`
	}
	if json.Unmarshal(line, &head) == nil {
		e.Name, e.T = head.Event, head.T
	}
	return e
}

func (l *localMember) Interrupt() error {
	select {
	case <-l.done:
		return nil
	default:
	}
	return l.cmd.Process.Signal(syscall.SIGTERM)
}

func (l *localMember) Wait() (int, string, error) {
	<-l.done
	code := 0
	if l.err != nil {
		var ee *exec.ExitError
		if !errors.As(l.err, &ee) {
			return -1, l.stderr.String(), l.err
		}
		code = ee.ExitCode()
		if code < 0 {
			code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
		}
	}
	return code, l.stderr.String(), nil
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	max int
	b   *bytes.Buffer
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

var _ io.Writer = (*tailWriter)(nil)
