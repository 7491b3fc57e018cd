package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"vigil/internal/classify"
	"vigil/internal/endpoint"
	"vigil/internal/judge"
	"vigil/internal/observe"
	"vigil/internal/procfind"
	"vigil/internal/procstat"
	"vigil/internal/redact"
	"vigil/internal/render"
	v "vigil/internal/verdict"
)

// preflightFinding is one thing that will likely break the startup.
type preflightFinding struct {
	cause v.Cause
	text  string
	hint  string // what to do, when not the port's or the GPUs' usual
}

// The preflight looks, before launching, for what commonly breaks a
// start: a --host address that is not this machine's, the port already
// taken, GPU memory still held by earlier runs, and leftover processes of
// the same server kind. It only reads; it never stops anything.

// runPreflight runs the checks --preflight MODE (checked: off, warn or
// strict) asks for before a launch. Strict mode checks everything; warn
// mode only the address and the port, and the host once the server runs
// (preflightLater), so as not to delay it.
func runPreflight(mode, kind, base string, guessed bool, argv []string) []preflightFinding {
	if mode == "off" {
		return nil
	}
	// (An address that is not this machine's has no port to dial.)
	findings := preflightAddress(base, guessed, net.InterfaceAddrs)
	if len(findings) == 0 {
		findings = preflightPort(portToCheck(base, guessed, argv))
	}
	if mode == "strict" {
		findings = append(findings, preflightHost(kind, 0)...)
	}
	return findings
}

// preflightLater is warn mode's look at the host once the server (pid)
// runs, as notes.
func preflightLater(kind string, pid int, red *redact.Redactor) func() []string {
	return func() []string {
		var later []string
		for _, f := range preflightHost(kind, pid) {
			later = append(later, "preflight: "+f.text)
		}
		return redactNotes(red, later)
	}
}

// preflightNotes are the findings told as notes of a launched startup; a
// taken port is also the judge's evidence should the server die silently.
func preflightNotes(findings []preflightFinding, cfg *judge.Config) []string {
	var notes []string
	for _, f := range findings {
		notes = append(notes, "preflight: "+f.text)
		if f.cause == v.PortInUse {
			cfg.PortTaken = f.text
		}
	}
	return notes
}

// refuseLaunch tells the verdict of a --preflight=strict that found a
// problem: nothing is launched, and the exit status is failed's.
func refuseLaunch(env *Env, f *judgeFlags, info render.Info, findings []preflightFinding) error {
	r := pickRenderer(env, f)
	r.Begin(info)
	refusal := preflightRefusal(findings, info.Start)
	redactResult(f.red, refusal)
	r.End(refusal, render.Status{Now: info.Start})
	return &ExitError{Code: v.Failed.ExitCode()}
}

// portToCheck is the base URL whose port must be free before the launch:
// none when the URL was guessed for a server told to take any port.
func portToCheck(base string, guessed bool, argv []string) string {
	if guessed && classify.PicksAnyPort(argv) {
		return ""
	}
	return base
}

// preflightAddress checks that the host of a URL guessed from the command
// line (its --host) is one of this machine's addresses (addrs: the
// interfaces'), which the server must have to bind it, and that its port
// is one. A host name, a
// given --url (a port forward may be meant) and a socket are left alone.
func preflightAddress(base string, guessed bool, addrs func() ([]net.Addr, error)) []preflightFinding {
	if !guessed {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "unix" {
		return nil
	}
	if p, err := strconv.Atoi(u.Port()); err == nil && p > 65535 {
		return []preflightFinding{{cause: v.Config, text: fmt.Sprintf("the --port %d is no TCP port (1-65535): the server cannot listen there, and vigil cannot probe it", p),
			hint: "give a --port from 1 to 65535, then start again; --preflight=warn only reports"}}
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil || ip.IsLoopback() || ip.IsUnspecified() {
		return nil
	}
	own, err := addrs()
	if err != nil {
		return nil
	}
	for _, a := range own {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return nil
		}
	}
	return []preflightFinding{{cause: v.Config, text: fmt.Sprintf("the --host address %s is none of this machine's (`ip -brief addr` lists them): the server cannot bind it", ip),
		hint: "give --host 0.0.0.0, 127.0.0.1 or an address `ip -brief addr` lists, then start again; --preflight=warn only reports"}}
}

// preflightPort is the check that must come before the launch: once the
// server runs, the port is its own. base "" checks nothing.
func preflightPort(base string) []preflightFinding {
	if base == "" {
		return nil
	}
	if sock, ok := endpoint.Socket(base); ok {
		c, err := net.DialTimeout("unix", sock, 300*time.Millisecond)
		if err == nil {
			c.Close()
			return []preflightFinding{{cause: v.PortInUse, text: fmt.Sprintf("something already listens on the Unix socket %s", sock)}}
		}
		// A socket file nothing listens on: an earlier server was killed
		// before it removed it, and a new one cannot bind there.
		if fi, serr := os.Lstat(sock); serr == nil && fi.Mode()&os.ModeSocket != 0 && errors.Is(err, syscall.ECONNREFUSED) {
			return []preflightFinding{{cause: v.Config, text: fmt.Sprintf("a socket file is left at %s with nothing listening on it: the server cannot bind there until it is removed", sock)}}
		}
		return nil
	}
	var out []preflightFinding
	if u, err := url.Parse(base); err == nil {
		addr := net.JoinHostPort(u.Hostname(), u.Port())
		if c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond); err == nil {
			c.Close()
			out = append(out, preflightFinding{cause: v.PortInUse, text: fmt.Sprintf("something already listens on %s", addr)})
		}
	}
	return out
}

// preflightHost looks at the host: GPU memory held by other processes and
// leftover servers of the same kind.
func preflightHost(kind string, own int) []preflightFinding {
	var out []preflightFinding
	// A preflight check must not hold the launch up for long.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	snap := gpuClient.Snapshot(ctx)
	if snap.Hung {
		out = append(out, preflightFinding{cause: "", text: "nvidia-smi does not answer: a GPU may have fallen off the bus (check dmesg for Xid errors)"})
	}
	if snap.Available {
		for _, app := range snap.Apps {
			out = append(out, preflightFinding{cause: v.GPUOOM, text: fmt.Sprintf("GPU %d: pid %d holds %d MiB: %s", app.GPUIndex, app.PID, app.UsedMiB, procfind.FS{}.CmdlineText(app.PID))})
		}
	}
	if kind != "" {
		for _, pid := range sameKindProcesses(kind, own) {
			out = append(out, preflightFinding{cause: "", text: fmt.Sprintf("another %s process is running: pid %d: %s", kind, pid, procfind.FS{}.CmdlineText(pid))})
		}
	}
	return out
}

// sameKindProcesses lists running processes whose command line starts the
// same kind of server (not vigil's own ancestors or children).
func sameKindProcesses(kind string, ownSession int) []int {
	pids, _ := procfind.FS{}.PIDs()
	kin := ownKin(procfind.FS{}, os.Getpid())
	var out []int
	for _, pid := range pids {
		if kin[pid] {
			continue
		}
		argv := procfind.FS{}.Cmdline(pid)
		if len(argv) == 0 || filepath.Base(argv[0]) == filepath.Base(os.Args[0]) {
			continue
		}
		if classify.DetectCommand(argv) == kind && !inSession(pid, ownSession) {
			out = append(out, pid)
		}
		if len(out) == 8 {
			break
		}
	}
	return out
}

// preflightRefusal is the verdict when --preflight=strict finds a problem:
// the start would fail, so it is not launched.
func preflightRefusal(findings []preflightFinding, start time.Time) *observe.Result {
	r := &observe.Result{Verdict: v.Failed, Cause: v.Exception, Phase: v.Launch, At: start, RuleID: "preflight",
		Summary: "not launched: the preflight check found a problem (--preflight=strict)",
		Hint:    "stop the process holding the port or the GPUs (or choose another --port), then start again; --preflight=warn only reports"}
	for _, f := range findings {
		if f.cause != "" && r.Cause == v.Exception {
			r.Cause = f.cause
			if f.hint != "" {
				r.Hint = f.hint
			}
		}
		r.Evidence = append(r.Evidence, "[preflight] "+f.text)
	}
	r.Phases = []observe.PhaseSpan{{Phase: v.Launch, Start: start}}
	return r
}

// inSession reports whether pid belongs to the session vigil started (the
// server it launched and its workers), which are not leftovers.
func inSession(pid, session int) bool {
	if session <= 0 {
		return false
	}
	smp, err := procstat.FS{}.Sample([]int{pid})
	return err == nil && len(smp.Procs) == 1 && (smp.Procs[0].SID == session || pid == session)
}

// ownKin is vigil's own ancestors (a wrapper script, `timeout 60 ...`, the
// shell), the subshells of those (a forked copy of a wrapper script, with
// its command line, as the one that relays a remote session's input), and
// vigil's descendants (the server it launched): none of them is "another
// server".
func ownKin(fs procfind.FS, self int) map[int]bool {
	kin := map[int]bool{self: true}
	var ancestors []int
	for pid, n := self, 0; pid > 1 && n < 64; n++ {
		p, err := fs.Stat(pid)
		if err != nil || p.PPID <= 0 {
			break
		}
		pid = p.PPID
		kin[pid] = true
		ancestors = append(ancestors, pid)
	}
	if pids, err := fs.PIDs(); err == nil {
		for _, pid := range pids {
			if kin[pid] {
				continue
			}
			if p, err := fs.Stat(pid); err == nil && slices.Contains(ancestors, p.PPID) {
				if argv := fs.Cmdline(pid); len(argv) > 0 && slices.Equal(argv, fs.Cmdline(p.PPID)) {
					kin[pid] = true
				}
			}
		}
	}
	if desc, err := fs.Descendants(self); err == nil {
		for _, d := range desc {
			kin[d] = true
		}
	}
	return kin
}
