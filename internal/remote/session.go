package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Spec is one remote vigil run.
type Spec struct {
	// Args are vigil's arguments, the subcommand first ("run", flags,
	// "--", COMMAND...). --json is added after the subcommand.
	Args []string
	// Detach keeps the remote vigil going when the connection drops.
	Detach bool
}

// Detached says whether a vigil subcommand must outlive a dropped
// connection: run and supervise own the server and must stop it on failure
// (or keep it) whoever is listening; watch and explain only read, and a
// judgement nobody receives is no use, so they end with the connection.
func Detached(subcommand string) bool {
	return subcommand == "run" || subcommand == "supervise"
}

// Event is one line of the remote vigil's stdout.
type Event struct {
	// Name is the "event" field; empty when the line is not a JSON object
	// with one (it is still handed on: no byte is lost).
	Name string
	// T is the "t" field: seconds since the remote vigil started.
	T float64
	// Raw is the line as written, without its newline.
	Raw []byte
	// Received is when the line arrived here.
	Received time.Time
}

func parseEvent(line []byte, now time.Time) Event {
	e := Event{Raw: bytes.Clone(line), Received: now}
	var head struct {
		Event string  `json:"event"`
		T     float64 `json:"t"`
	}
	if json.Unmarshal(line, &head) == nil {
		e.Name, e.T = head.Event, head.T
	}
	return e
}

// Result is how a remote vigil ended.
type Result struct {
	// Code is the remote vigil's exit status (contract.md's table).
	Code int
	// Verdict is its last "verdict" event; nil if it wrote none.
	Verdict *Event
	// Stderr is the tail of its stderr: for usage errors (exit 2).
	Stderr string
	// PID and Dir are the remote vigil's process and session directory.
	PID int
	Dir string
}

// Session is a remote vigil running.
type Session struct {
	c     *Conn
	spec  Spec
	stopW *os.File
	done  chan struct{}
	now   func() time.Time

	mu      sync.Mutex
	started bool // the first stdout line arrived
	pending int  // interrupts asked for before it
	pid     int
	dir     string
	stderr  tailBuffer
	verdict *Event
	runErr  error
	ctxErr  error
}

// Run starts a remote vigil, hands each stdout line to on, and waits for
// it to end. See [Conn.Start].
func (c *Conn) Run(ctx context.Context, spec Spec, on func(Event)) (*Result, error) {
	s, err := c.Start(ctx, spec, on)
	if err != nil {
		return nil, err
	}
	return s.Wait()
}

// Start starts the remote vigil. on is called for every stdout line, in
// order, from one goroutine; it should not block for long (ssh waits, the
// remote vigil never does: it writes to a file). Cancelling ctx abandons
// the session: the local ssh client ends; a detached remote vigil keeps
// going, an attached one stops. Use [Session.Interrupt] to stop it the way
// Ctrl-C would.
func (c *Conn) Start(ctx context.Context, spec Spec, on func(Event)) (*Session, error) {
	if len(spec.Args) == 0 {
		return nil, fmt.Errorf("remote: no vigil subcommand given")
	}
	if on == nil {
		on = func(Event) {}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	s := &Session{c: c, spec: spec, stopW: w, done: make(chan struct{}), now: time.Now}
	s.stderr.max = 16 << 10
	s.stderr.b = new(bytes.Buffer)
	mode := "attached"
	if spec.Detach {
		mode = "detached"
	}
	args := append([]string{mode, c.binPath}, withJSON(spec.Args)...)
	command := remoteCommand(sessionScript, args...)
	out := &lineWriter{on: func(line []byte) {
		e := parseEvent(line, s.now())
		s.mu.Lock()
		if e.Name == "verdict" {
			s.verdict = &e
		}
		if !s.started {
			s.started = true
			for ; s.pending > 0; s.pending-- {
				_, _ = s.stopW.Write([]byte("stop\n"))
			}
		}
		s.mu.Unlock()
		on(e)
	}}
	errw := &lineWriter{on: s.stderrLine}
	go func() {
		defer close(s.done)
		err := c.opts.Runner.Run(ctx, Command{
			Args:  c.sshArgs("--", c.target, command),
			Stdin: r, Stdout: out, Stderr: errw,
		})
		out.Flush()
		errw.Flush()
		r.Close()
		s.mu.Lock()
		s.runErr, s.ctxErr = err, ctx.Err()
		s.mu.Unlock()
	}()
	return s, nil
}

// withJSON puts --json after the subcommand unless it is among vigil's own
// flags already (before "--").
func withJSON(args []string) []string {
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			return args
		}
	}
	return append([]string{args[0], "--json"}, args[1:]...)
}

const (
	sessionTag = "vigil-remote: pid "
	endTag     = "vigil-remote: end"
)

// stderrLine keeps one stderr line, or takes the session's own lines: its
// pid, and its end, which is acknowledged so that it removes its files.
func (s *Session) stderrLine(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if string(line) == endTag {
		_, _ = s.stopW.Write([]byte("ack\n"))
		return
	}
	if rest, ok := strings.CutPrefix(string(line), sessionTag); ok && s.pid == 0 {
		pid, dir, _ := strings.Cut(rest, " dir ")
		if n, err := strconv.Atoi(pid); err == nil {
			s.pid, s.dir = n, dir
			return
		}
	}
	s.stderr.Write(line)
	s.stderr.Write([]byte{'\n'})
}

// Remote says the remote vigil's pid and session directory, once known.
func (s *Session) Remote() (pid int, dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pid, s.dir
}

// Interrupt stops the remote vigil as Ctrl-C would locally (it gets
// SIGTERM, which vigil treats the same): `run` stops the server and says
// so; a second Interrupt kills it at once. Until the remote vigil's first
// event it is held back: before that vigil has not yet taken over SIGTERM,
// which would kill it and leave its server unwatched.
func (s *Session) Interrupt() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.pending++
		return nil
	}
	_, err := s.stopW.Write([]byte("stop\n"))
	return err
}

// Done is closed when the local ssh client has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Wait waits for the session to end. A nil error means the remote vigil
// ran to its end: Result.Code is its exit status. A *Error of kind
// ErrDropped comes with the Result so far.
func (s *Session) Wait() (*Result, error) {
	<-s.done
	s.stopW.Close()
	s.mu.Lock()
	res := &Result{Verdict: s.verdict, Stderr: s.stderr.b.String(), PID: s.pid, Dir: s.dir}
	runErr, ctxErr := s.runErr, s.ctxErr
	s.mu.Unlock()
	code := exitCode(runErr)
	res.Code = code
	target := s.c.target
	switch {
	case ctxErr != nil && code != 0:
		return res, fmt.Errorf("remote vigil on %s: %w", target, ctxErr)
	case code == -1:
		return res, &Error{Kind: ErrUnreachable, Host: target, Msg: fmt.Sprintf("cannot run %s: %v", s.c.opts.SSH, runErr)}
	case code == 255 || code == 254:
		return res, s.lostError(code)
	case code == 126 || code == 127:
		return res, &Error{Kind: ErrNoExec, Host: target, Stderr: res.Stderr,
			Msg: fmt.Sprintf("cannot execute vigil on %s (exit %d): %s", target, code, orDefault(lastLine(res.Stderr), "no message"))}
	case code > 128 && !stopStatus(code):
		return res, &Error{Kind: ErrRemote, Host: target, Stderr: res.Stderr,
			Msg: fmt.Sprintf("the remote vigil on %s was killed by signal %d", target, code-128)}
	}
	return res, nil
}

// lostError explains an ssh failure or a broken session stream.
func (s *Session) lostError(code int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.mu.Lock()
	pid, dir, stderr := s.pid, s.dir, s.stderr.b.String()
	s.mu.Unlock()
	target := s.c.target
	dropped := !s.c.masterAlive(ctx) || classify255(stderr) == ErrDropped
	if !dropped {
		return &Error{Kind: ErrRemote, Host: target, Stderr: stderr,
			Msg: fmt.Sprintf("the remote vigil on %s ended without an exit status (ssh exit %d): %s", target, code, orDefault(lastLine(stderr), "no message"))}
	}
	var msg string
	switch {
	case !s.spec.Detach:
		msg = fmt.Sprintf("the ssh connection to %s dropped; this says nothing about the server; the remote %s stopped with the connection (it never touches the server)", target, s.spec.Args[0])
	case pid > 0:
		msg = fmt.Sprintf("the ssh connection to %s dropped; this is not a server failure: the remote vigil (pid %d) keeps judging and stops the server on failure itself; its events go to %s:%s/events", target, pid, target, dir)
	default:
		msg = fmt.Sprintf("the ssh connection to %s dropped before the remote vigil reported its pid; check %s for a running vigil", target, target)
	}
	return &Error{Kind: ErrDropped, Host: target, Stderr: stderr, Msg: msg}
}

// stopStatus reports whether code is how vigil itself ends after a stop
// signal it handles (SIGHUP, SIGINT, SIGPIPE, SIGTERM: 128+N), not a death
// by a signal it could not handle.
func stopStatus(code int) bool {
	switch code - 128 {
	case 1, 2, 13, 15:
		return true
	}
	return false
}
