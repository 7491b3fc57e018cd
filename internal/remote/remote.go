// Package remote drives a vigil on another machine over the system ssh
// client, so that ~/.ssh/config, ProxyJump and agents work as they do for
// the user. It pushes vigil's own static binary there when missing or
// different, runs it with --json and streams its NDJSON events back.
//
// Every ssh command of a [Conn] shares one multiplexed connection (a
// ControlMaster whose socket lives in a private 0700 directory), never asks
// for a password (BatchMode) and ends with [Conn.Close].
//
// A dropped connection is not a server failure. `run` is started detached
// on the host ([Spec.Detach]): it keeps judging and stops the server on
// failure by itself, exactly as locally, when the connection breaks.
// `watch` is attached: it stops when the connection does, since it never
// touches the server and nobody would read its judgement.
package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Options configures a connection. The zero value works.
type Options struct {
	// Runner runs the ssh client; ExecRunner{} when nil.
	Runner Runner
	// SSH is the ssh program; "ssh" when empty.
	SSH string
	// SSHArgs go before the target on every ssh command (-F FILE, -p PORT).
	SSHArgs []string
	// ControlDir holds the master's socket. When empty a private temporary
	// directory is made and removed by Close.
	ControlDir string
	// Persist is ControlPersist: how long an idle master waits for another
	// command, so a vigil killed without Close leaves no connection for
	// long. Default 30s.
	Persist time.Duration
	// KeepAlive is ServerAliveInterval: a connection is dropped after three
	// unanswered ones. Default 5s.
	KeepAlive time.Duration
	// ConnectTimeout bounds reaching the host. Default 10s.
	ConnectTimeout time.Duration
	// Binary is the local vigil binary to push; os.Executable when empty.
	Binary string
	// GOOS and GOARCH are Binary's platform; runtime's when empty.
	GOOS, GOARCH string
}

func (o *Options) fill() error {
	if o.Runner == nil {
		o.Runner = ExecRunner{}
	}
	if o.SSH == "" {
		o.SSH = "ssh"
	}
	if o.Persist <= 0 {
		o.Persist = 30 * time.Second
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 5 * time.Second
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.GOARCH == "" {
		o.GOARCH = runtime.GOARCH
	}
	if o.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find vigil's own binary: %w", err)
		}
		o.Binary = exe
	}
	return nil
}

// Conn is a prepared host: reachable, of the binary's platform, with the
// binary installed and runnable.
type Conn struct {
	target  string
	opts    Options
	dir     string // control directory
	ownDir  bool
	sum     string // hex SHA-256 of the binary
	binPath string // the binary's path on the host
	// Pushed says whether Connect had to copy the binary.
	Pushed bool
}

// Connect reaches target ([user@]host, as ssh takes it), checks its OS and
// architecture against the binary's, and installs the binary under
// ${XDG_CACHE_HOME:-$HOME/.cache}/vigil/<hash prefix>/vigil on the host
// unless the same one is there already.
func Connect(ctx context.Context, target string, o Options) (*Conn, error) {
	if err := checkTarget(target); err != nil {
		return nil, err
	}
	if err := o.fill(); err != nil {
		return nil, err
	}
	sum, err := fileSum(o.Binary)
	if err != nil {
		return nil, err
	}
	c := &Conn{target: target, opts: o, dir: o.ControlDir, sum: sum}
	if c.dir == "" {
		// MkdirTemp makes it 0700: the socket gives a shell on the host.
		if c.dir, err = os.MkdirTemp("", "vigil-ssh-"); err != nil {
			return nil, fmt.Errorf("make a directory for the ssh control socket: %w", err)
		}
		c.ownDir = true
	}
	if err := c.prepare(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// checkTarget refuses what ssh would read as an option or that cannot be
// a host: the target comes from the command line.
func checkTarget(t string) error {
	if t == "" || strings.HasPrefix(t, "-") || strings.ContainsFunc(t, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("bad ssh host %q: want [USER@]HOST", t)
	}
	return nil
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read vigil's binary: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read vigil's binary: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Target is the ssh target the Conn was made for.
func (c *Conn) Target() string { return c.target }

// BinaryPath is where the binary lives on the host.
func (c *Conn) BinaryPath() string { return c.binPath }

// sshArgs is the ssh command line for a remote command string.
func (c *Conn) sshArgs(extra ...string) []string {
	o := c.opts
	args := []string{o.SSH, "-T",
		"-o", "BatchMode=yes",
		"-o", "ControlMaster=auto",
		"-o", "ControlPath=" + filepath.Join(c.dir, "%C"),
		"-o", fmt.Sprintf("ControlPersist=%d", max(1, int(o.Persist.Seconds()))),
		"-o", fmt.Sprintf("ServerAliveInterval=%d", max(1, int(o.KeepAlive.Seconds()))),
		"-o", "ServerAliveCountMax=3",
		"-o", fmt.Sprintf("ConnectTimeout=%d", max(1, int(o.ConnectTimeout.Seconds()))),
		// No "Warning: Permanently added ..." lines in what we report.
		"-o", "LogLevel=ERROR",
	}
	args = append(args, o.SSHArgs...)
	return append(args, extra...)
}

// run runs one remote command to its end and returns its stdout; stderr
// is returned too for messages.
func (c *Conn) run(ctx context.Context, stdin io.Reader, command string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	err = c.opts.Runner.Run(ctx, Command{
		Args:   c.sshArgs("--", c.target, command),
		Stdin:  stdin,
		Stdout: &out,
		Stderr: &tailBuffer{max: 8 << 10, b: &errb},
	})
	return out.String(), errb.String(), err
}

// sshError turns a failed ssh command into an *Error: exit 255 is ssh's
// own failure, anything else is the remote command's.
func (c *Conn) sshError(err error, stderr, doing string) error {
	code := exitCode(err)
	if code == -1 {
		return &Error{Kind: ErrUnreachable, Host: c.target, Stderr: stderr,
			Msg: fmt.Sprintf("cannot run %s: %v", c.opts.SSH, err)}
	}
	if code != 255 {
		return &Error{Kind: ErrInstall, Host: c.target, Stderr: stderr,
			Msg: fmt.Sprintf("%s on %s failed (exit %d): %s", doing, c.target, code, orDefault(lastLine(stderr), "no message"))}
	}
	kind := classify255(stderr)
	why := orDefault(lastLine(stderr), "ssh exited 255 without a message")
	e := &Error{Kind: kind, Host: c.target, Stderr: stderr}
	switch kind {
	case ErrAuth:
		e.Msg = fmt.Sprintf("%s refused the ssh login (BatchMode: no password prompt): %s; check the key in your agent or ~/.ssh/config, and that the host key is known", c.target, why)
	case ErrDropped:
		e.Msg = fmt.Sprintf("the ssh connection to %s dropped while %s: %s", c.target, doing, why)
	default:
		e.Kind = ErrUnreachable
		e.Msg = fmt.Sprintf("cannot reach %s over ssh: %s", c.target, why)
	}
	return e
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// prepare checks the platform and installs the binary: one round trip
// when it is there already, two when it must be pushed.
func (c *Conn) prepare(ctx context.Context) error {
	prefix := c.sum[:16]
	out, stderr, err := c.run(ctx, nil, remoteCommand(prepareScript, prefix, c.sum))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return c.sshError(err, stderr, "checking vigil's binary")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		return &Error{Kind: ErrInstall, Host: c.target, Stderr: stderr,
			Msg: fmt.Sprintf("unexpected answer from %s while checking vigil's binary: %q", c.target, out)}
	}
	goos, goarch := platform(lines[0])
	if goos != c.opts.GOOS || goarch != c.opts.GOARCH {
		return &Error{Kind: ErrArch, Host: c.target,
			Msg: fmt.Sprintf("%s is %s/%s (uname: %s) but this vigil binary is %s/%s: use a %s/%s build of vigil",
				c.target, goos, goarch, strings.TrimSpace(lines[0]), c.opts.GOOS, c.opts.GOARCH, goos, goarch)}
	}
	state, path, _ := strings.Cut(lines[1], " ")
	c.binPath = path
	execLine := ""
	switch state {
	case "present":
		if len(lines) > 2 {
			execLine = lines[2]
		}
	case "missing":
		f, err := os.Open(c.opts.Binary)
		if err != nil {
			return fmt.Errorf("read vigil's binary: %w", err)
		}
		defer f.Close()
		out, stderr, err := c.run(ctx, f, remoteCommand(pushScript, prefix, c.sum))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return c.sshError(err, stderr, "copying vigil's binary")
		}
		c.Pushed = true
		pl := strings.Split(strings.TrimSpace(out), "\n")
		execLine = pl[len(pl)-1]
	default:
		return &Error{Kind: ErrInstall, Host: c.target, Stderr: stderr,
			Msg: fmt.Sprintf("unexpected answer from %s while checking vigil's binary: %q", c.target, lines[1])}
	}
	return c.execError(execLine)
}

// execError reads the probe's line.
func (c *Conn) execError(line string) error {
	dir := filepath.Dir(c.binPath)
	switch {
	case line == "exec ok":
		return nil
	case line == "exec noexec":
		return &Error{Kind: ErrNoExec, Host: c.target,
			Msg: fmt.Sprintf("cannot execute vigil on %s: %s is on a filesystem mounted noexec; set XDG_CACHE_HOME on %s to a directory that allows programs", c.target, dir, c.target)}
	case line == "exec denied":
		return &Error{Kind: ErrNoExec, Host: c.target,
			Msg: fmt.Sprintf("cannot execute vigil on %s: permission denied running %s (a noexec mount or a security policy); set XDG_CACHE_HOME on %s to a directory that allows programs", c.target, c.binPath, c.target)}
	}
	return &Error{Kind: ErrNoExec, Host: c.target,
		Msg: fmt.Sprintf("cannot execute vigil on %s: %s --help: %s", c.target, c.binPath, strings.TrimPrefix(line, "exec "))}
}

// platform maps `uname -sm` to Go's GOOS and GOARCH names.
func platform(uname string) (goos, goarch string) {
	f := strings.Fields(uname)
	if len(f) < 2 {
		return "unknown", "unknown"
	}
	goos = strings.ToLower(f[0])
	m := f[len(f)-1]
	switch m {
	case "x86_64", "amd64":
		goarch = "amd64"
	case "aarch64", "arm64", "aarch64_be":
		goarch = "arm64"
	case "i386", "i486", "i586", "i686":
		goarch = "386"
	case "armv6l", "armv7l", "armv7":
		goarch = "arm"
	case "ppc64le", "ppc64", "s390x", "riscv64", "loong64", "mips64":
		goarch = m
	default:
		goarch = m
	}
	return goos, goarch
}

// Close ends the shared connection and removes the socket's directory.
func (c *Conn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errb bytes.Buffer
	err := c.opts.Runner.Run(ctx, Command{
		Args:   c.sshArgs("-O", "exit", "--", c.target),
		Stdout: io.Discard, Stderr: &errb,
	})
	if exitCode(err) == 255 {
		err = nil // no master: nothing to end
	}
	if c.ownDir {
		err = errors.Join(err, os.RemoveAll(c.dir))
	}
	return err
}

// masterAlive asks the master whether it still runs: after an ssh failure
// it tells a dropped connection from a remote side that ended oddly.
func (c *Conn) masterAlive(ctx context.Context) bool {
	err := c.opts.Runner.Run(ctx, Command{
		Args:   c.sshArgs("-O", "check", "--", c.target),
		Stdout: io.Discard, Stderr: io.Discard,
	})
	return err == nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   *bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

// lineWriter calls on with each complete line written to it; Flush hands
// on the last one when it has no newline. No byte is dropped.
type lineWriter struct {
	buf []byte
	on  func([]byte)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.on(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) == 0 {
		w.buf = nil
	}
	return len(p), nil
}

func (w *lineWriter) Flush() {
	if len(w.buf) > 0 {
		w.on(w.buf)
		w.buf = nil
	}
}
