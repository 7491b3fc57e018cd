package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"vigil/internal/remote"
	"vigil/internal/termsafe"
	"vigil/internal/verdict"
)

// The commands that take --ssh: they judge a server on another host by
// running vigil there (internal/remote) and showing its events here.
var sshCommands = map[string]bool{"run": true, "watch": true, "explain": true, "supervise": true}

// exitDropped is the exit status when the connection to the host broke
// while the remote vigil ran: the server's fate is unknown here, and it is
// no verdict (EX_TEMPFAIL).
const exitDropped = 75

// addSSHFlag gives each remote-capable command its --ssh flag, so that help
// and completion show it. Main takes the flag off before cobra parses the
// rest: the remote vigil gets the same arguments without it.
func addSSHFlag(root *cobra.Command) {
	for _, c := range root.Commands() {
		if sshCommands[c.Name()] {
			c.Flags().String("ssh", "", "judge on another host: run vigil there over ssh ([USER@]HOST; ~/.ssh/config applies; never asks for a password)")
		}
	}
}

// splitSSH finds --ssh HOST (or --ssh=HOST) among a remote-capable
// command's own flags, before any "--", and returns the arguments without
// it. ok is false when there is no such flag.
func splitSSH(args []string) (target string, rest []string, ok bool, err error) {
	return splitFlag(args, sshCommands, "--ssh", "--ssh needs a host ([USER@]HOST)")
}

// splitFlag takes flag VALUE (or flag=VALUE) out of the own flags, before
// any "--", of one of the commands: vigil reads it before cobra does.
// missing is the error for a flag without a value.
func splitFlag(args []string, commands map[string]bool, flag, missing string) (value string, rest []string, ok bool, err error) {
	if len(args) == 0 || !commands[args[0]] {
		return "", args, false, nil
	}
	rest = append(rest, args[0])
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			i = len(args)
		case a == flag:
			if i+1 >= len(args) || args[i+1] == "--" {
				return "", nil, false, Usagef("%s", missing)
			}
			value, ok = args[i+1], true
			i++
		case strings.HasPrefix(a, flag+"="):
			value, ok = strings.TrimPrefix(a, flag+"="), true
		default:
			rest = append(rest, a)
		}
	}
	if ok && value == "" {
		return "", nil, false, Usagef("%s", missing)
	}
	return value, rest, ok, nil
}

// runRemote runs vigil's command args on target and shows its events as
// they arrive: NDJSON relayed with "host" added under --json, else one line
// per event on stderr and the verdict on stdout. The exit status is the
// remote vigil's.
func runRemote(ctx context.Context, env *Env, target string, args []string) error {
	asJSON, quiet := false, false
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		switch a {
		case "--json", "--json=true":
			asJSON = true
		case "--quiet", "-q", "--quiet=true":
			quiet = true
		}
	}
	c, err := remote.Connect(ctx, target, remote.Options{SSH: env.Getenv("VIGIL_SSH"), Binary: env.SelfExe})
	if err != nil {
		return remoteError(err)
	}
	defer c.Close()
	show := remoteText{out: env.IO.Out, err: env.IO.ErrOut, host: target}.event
	if args[0] == "run" || args[0] == "watch" {
		// A remote startup is shown as a local one would be.
		view := &remoteView{r: pickRenderer(env, &judgeFlags{quiet: quiet}), host: target, fallback: show}
		show = view.event
	}
	rec, record := remoteRecord(target, args)
	on := func(e remote.Event) {
		rec.take(e)
		if asJSON {
			env.IO.Out.Write(withHost(e.Raw, target))
			return
		}
		show(e)
	}
	s, err := c.Start(ctx, remote.Spec{Args: args, Detach: remote.Detached(args[0])}, on)
	if err != nil {
		return remoteError(err)
	}
	// Ctrl-C and SIGTERM reach the remote vigil the way they would a local
	// one: the first asks it to stop the startup, a second kills at once.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	for {
		select {
		case <-sigs:
			_ = s.Interrupt()
			continue
		case <-s.Done():
		}
		break
	}
	res, err := s.Wait()
	if err != nil {
		return remoteError(err)
	}
	if record {
		recordRemote(env, *rec)
	}
	if res.Code == verdict.ExitUsage && res.Stderr != "" {
		fmt.Fprintln(env.IO.ErrOut, termsafe.String(strings.TrimSpace(lastNonEmpty(res.Stderr))))
	}
	if res.Code != 0 {
		return &ExitError{Code: res.Code}
	}
	return nil
}

// remoteError maps the remote package's failures to exit statuses: a host
// that cannot be used is a usage error (2); a dropped connection says
// nothing of the server (75).
func remoteError(err error) error {
	if errors.Is(err, remote.ErrDropped) {
		return &codedError{code: exitDropped, err: err}
	}
	var re *remote.Error
	if errors.As(err, &re) {
		return &UsageError{Err: err}
	}
	return err
}

// codedError is an error with its own exit status, printed like any other.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

func lastNonEmpty(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// withHost adds "host" to a JSON object line; other lines pass unchanged.
func withHost(raw []byte, host string) []byte {
	line := bytes.TrimSpace(raw)
	out := make([]byte, 0, len(line)+len(host)+16)
	if len(line) > 1 && line[0] == '{' {
		h, _ := json.Marshal(host)
		out = append(out, `{"host":`...)
		out = append(out, h...)
		if !bytes.Equal(line, []byte("{}")) {
			out = append(out, ',')
		}
		out = append(out, line[1:]...)
	} else {
		out = append(out, raw...)
	}
	return append(out, '\n')
}

// remoteText shows a remote vigil's events for people.
type remoteText struct {
	out, err io.Writer
	host     string
}

func (r remoteText) event(e remote.Event) {
	var m map[string]any
	if json.Unmarshal(e.Raw, &m) != nil {
		fmt.Fprintf(r.err, "[%s] %s\n", r.host, termsafe.String(string(e.Raw)))
		return
	}
	str := func(k string) string {
		if v, ok := m[k]; ok && v != nil {
			return termsafe.String(fmt.Sprint(v))
		}
		return ""
	}
	at := fmt.Sprintf("[%s %6.1fs]", r.host, e.T)
	switch e.Name {
	case "start":
		what := str("log_file")
		if u := str("url"); u != "" {
			what += ", " + u
		}
		fmt.Fprintf(r.err, "%s %s: %s\n", at, str("mode"), what)
	case "server":
		fmt.Fprintf(r.err, "%s server: %s\n", at, str("server"))
	case "phase":
		fmt.Fprintf(r.err, "%s phase %s\n", at, str("phase"))
	case "progress":
		fmt.Fprintf(r.err, "%s %s %s/%s\n", at, str("desc"), str("done"), str("total"))
	case "health":
		fmt.Fprintf(r.err, "%s health %s (%s)\n", at, str("state"), str("code"))
	case "verdict":
		r.verdict(m, str)
	default:
		msg := str("message")
		if msg == "" {
			msg = str("line")
		}
		if msg == "" {
			msg = str("summary")
		}
		fmt.Fprintf(r.err, "%s %s: %s\n", at, e.Name, msg)
	}
}

func (r remoteText) verdict(m map[string]any, str func(string) string) {
	word := str("verdict")
	head := strings.ToUpper(word) + " on " + r.host
	if c := str("cause"); c != "" {
		head += " (" + c + ")"
	}
	if p := str("phase"); p != "" && word != "ready" {
		head += " in phase " + p
	}
	if s, ok := m["elapsed_s"].(float64); ok {
		head += fmt.Sprintf(" after %.1fs", s)
	}
	fmt.Fprintf(r.out, "%s: %s\n", head, str("summary"))
	if ev, ok := m["evidence"].([]any); ok && len(ev) > 0 {
		fmt.Fprintln(r.out, "evidence:")
		for _, l := range ev {
			fmt.Fprintf(r.out, "  %s\n", termsafe.String(fmt.Sprint(l)))
		}
	}
	if h := str("hint"); h != "" {
		fmt.Fprintf(r.out, "hint: %s\n", h)
	}
	if l := str("log_file"); l != "" {
		fmt.Fprintf(r.out, "log: %s:%s\n", r.host, l)
	}
}
