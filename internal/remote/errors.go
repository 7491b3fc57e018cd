package remote

import (
	"errors"
	"strings"
)

// The classes of remote failure. Test with errors.Is; every error the
// package returns for them is an *Error that unwraps to one of these.
var (
	// ErrUnreachable: ssh could not connect (name, route, refused, timeout).
	ErrUnreachable = errors.New("host unreachable")
	// ErrAuth: the host refused the login or its host key (BatchMode never
	// asks for a password).
	ErrAuth = errors.New("ssh login refused")
	// ErrArch: the host's OS or architecture differs from the binary's.
	ErrArch = errors.New("architecture differs")
	// ErrNoExec: the pushed binary cannot be executed there.
	ErrNoExec = errors.New("cannot execute vigil on the host")
	// ErrInstall: the binary could not be checked or written there.
	ErrInstall = errors.New("cannot install vigil on the host")
	// ErrDropped: the connection broke while the remote vigil ran. It says
	// nothing about the server: the remote vigil may still be judging it.
	ErrDropped = errors.New("connection dropped")
	// ErrRemote: the remote side ended without an exit status of vigil's
	// (killed by a signal, or the wrapper itself failed).
	ErrRemote = errors.New("remote vigil ended abnormally")
)

// Error is a remote failure with its host and a one-line message.
type Error struct {
	Kind error  // one of the Err* classes
	Host string // the ssh target
	Msg  string // one line, for people
	// Stderr is the tail of what ssh and the remote side printed.
	Stderr string
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

// classify255 names the class of an ssh failure (exit status 255) from
// ssh's stderr: what ssh says is the only sign of why it failed.
func classify255(stderr string) error {
	s := strings.ToLower(stderr)
	switch {
	case strings.Contains(s, "permission denied"),
		strings.Contains(s, "host key verification failed"),
		strings.Contains(s, "too many authentication failures"),
		strings.Contains(s, "no supported authentication methods"),
		strings.Contains(s, "not allowed because"):
		return ErrAuth
	case strings.Contains(s, "closed by remote host"),
		strings.Contains(s, "connection reset"),
		strings.Contains(s, "broken pipe"),
		strings.Contains(s, "server not responding"),
		strings.Contains(s, "timeout, server"),
		strings.Contains(s, "client_loop"):
		return ErrDropped
	}
	return ErrUnreachable
}

// lastLine is the last non-empty line of s, trimmed: ssh's final word.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}
