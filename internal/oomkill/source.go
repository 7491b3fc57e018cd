package oomkill

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// CommandTimeout bounds each command that reads the kernel log.
const CommandTimeout = 3 * time.Second

// Source reads (the recent part of) the kernel log.
type Source interface {
	KernelLog(ctx context.Context) ([]byte, error)
}

// SourceFunc adapts a function to Source.
type SourceFunc func(ctx context.Context) ([]byte, error)

// KernelLog calls f.
func (f SourceFunc) KernelLog(ctx context.Context) ([]byte, error) { return f(ctx) }

// Command is a Source that runs a command under CommandTimeout and returns
// its standard output. A command that is missing, fails or times out is an
// error (which Finder treats as an unreadable log).
func Command(name string, args ...string) Source {
	return SourceFunc(func(ctx context.Context) ([]byte, error) {
		ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.WaitDelay = 500 * time.Millisecond
		err := cmd.Run()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", name, ctx.Err())
		}
		if err != nil {
			if msg := strings.TrimSpace(stderr.String()); msg != "" {
				return nil, fmt.Errorf("%s: %w: %s", name, err, firstLine(msg))
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return stdout.Bytes(), nil
	})
}

// DefaultSources reads the kernel ring buffer with dmesg, then the current
// boot's kernel messages from the journal (which survive a ring buffer that
// has wrapped).
var DefaultSources = []Source{
	Command("dmesg"),
	Command("journalctl", "-k", "-o", "short-monotonic", "--no-pager", "-n", "2000"),
}

// Finder looks for OOM-kill records in kernel logs.
type Finder struct {
	// Sources are read in order until one holds a record; nil means
	// DefaultSources.
	Sources []Source
}

// Find looks for the kernel's OOM-kill record of pid with DefaultSources.
func Find(ctx context.Context, pid int) (Record, bool) {
	return Finder{}.Find(ctx, pid)
}

// Find looks for the kernel's OOM-kill record of pid.
func (f Finder) Find(ctx context.Context, pid int) (Record, bool) {
	res := f.Search(ctx, Proc{PID: pid})
	return res.Record, res.Found
}

// Result is what a search found.
type Result struct {
	Record Record
	Found  bool
	// Readable is true when at least one source returned kernel log lines:
	// without a record, the process was then not killed by the OOM killer
	// (as far as the log still reaches).
	Readable bool
	// Problems lists why sources could not be read ("dmesg: exit status 1:
	// dmesg: read kernel buffer failed: Operation not permitted").
	Problems []string
	// Oldest is the earliest kernel timestamp (time since boot) of the
	// sources read; -1 when none was readable. A log whose oldest line is
	// younger than the process has lost what happened at its start.
	Oldest time.Duration
	// Others is true when a readable source holds an OOM-kill record of
	// another process since p started: a worker the server did not report.
	Others bool
}

// Covers reports whether the log was readable and reaches back to p's start,
// with no OOM kill of any process since: then a SIGKILL of p was not the
// OOM killer's. A p without a start time is never covered.
func (r Result) Covers(p Proc) bool {
	return r.Readable && !r.Found && !r.Others && p.Start > 0 && r.Oldest >= 0 && r.Oldest <= p.Start
}

// Search reads each source in turn until one holds a record of p.
func (f Finder) Search(ctx context.Context, p Proc) Result {
	sources := f.Sources
	if sources == nil {
		sources = DefaultSources
	}
	res := Result{Oldest: -1}
	for _, src := range sources {
		if ctx.Err() != nil {
			break
		}
		log, err := src.KernelLog(ctx)
		if err != nil {
			res.Problems = append(res.Problems, err.Error())
			continue
		}
		if !kernelLines(log) {
			res.Problems = append(res.Problems, "no kernel log lines: "+firstLine(string(log)))
			continue
		}
		res.Readable = true
		if o := oldest(log); o >= 0 && (res.Oldest < 0 || o < res.Oldest) {
			res.Oldest = o
		}
		if r, ok := Scan(log, p); ok {
			res.Record, res.Found = r, true
			return res
		}
		if _, ok := Scan(log, Proc{Start: p.Start, any: true}); ok {
			res.Others = true
		}
	}
	return res
}

// kernelLines reports whether log holds at least one timestamped line, as
// opposed to "-- No entries --" or "No journal files were opened due to
// insufficient permissions."
func kernelLines(log []byte) bool {
	for line := range strings.SplitSeq(string(log), "\n") {
		if uptime(line) >= 0 {
			return true
		}
	}
	return false
}

// oldest is the first kernel timestamp in log; -1 when it has none.
func oldest(log []byte) time.Duration {
	for line := range strings.SplitSeq(string(log), "\n") {
		if u := uptime(line); u >= 0 {
			return u
		}
	}
	return -1
}

func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// Pressure is the memory picture just before a process died: the server's
// process tree against the machine (procstat.Sample and procstat.MemInfo).
// Zero fields are unknown.
type Pressure struct {
	TreeRSS, MemTotal, MemAvailable int64
}

// Exhausted reports whether memory was nearly gone: less than 5% of the
// machine available, or the tree holding more than 90% of it.
func (p Pressure) Exhausted() bool {
	if p.MemTotal <= 0 {
		return false
	}
	return p.MemAvailable*20 < p.MemTotal || p.TreeRSS*10 > p.MemTotal*9
}

func (p Pressure) String() string {
	if p.MemTotal <= 0 {
		return ""
	}
	return fmt.Sprintf("the server's processes held %s of %s host memory (%s available) just before",
		gib(p.TreeRSS), gib(p.MemTotal), gib(p.MemAvailable))
}

// Attribution says whether a SIGKILL was the host running out of memory.
type Attribution struct {
	// HostOOM is true only when the kernel's log holds an OOM-kill record
	// of the process.
	HostOOM bool
	// Suspected is true when the log could not be read but memory was
	// nearly exhausted: likely an OOM kill, without proof.
	Suspected bool
	Result    Result
	Summary   string
	// Evidence holds the kernel's lines, then the memory picture.
	Evidence []string
}

// Attribute explains the SIGKILL of p. Call it only for a process that died
// by SIGKILL. Without a record in a readable log the kill is not the OOM
// killer's: typically the server killed its own tree after a rank failed,
// and the rank's own error is the cause.
func (f Finder) Attribute(ctx context.Context, p Proc, before Pressure) Attribution {
	res := f.Search(ctx, p)
	a := Attribution{Result: res}
	switch {
	case res.Found:
		a.HostOOM = true
		a.Summary = res.Record.Summary()
		a.Evidence = append(a.Evidence, res.Record.Lines...)
	case res.Covers(p):
		a.Summary = fmt.Sprintf("pid %d was killed by SIGKILL but the kernel log has no OOM-kill record of it: not the OOM killer", p.PID)
	case res.Readable && !res.Others && before.Exhausted():
		a.Suspected = true
		a.Summary = fmt.Sprintf("pid %d was killed by SIGKILL while memory was nearly exhausted; the kernel log does not reach back to its start", p.PID)
	case res.Readable:
		a.Summary = fmt.Sprintf("pid %d was killed by SIGKILL; the kernel log has no OOM-kill record of it", p.PID)
	case before.Exhausted():
		a.Suspected = true
		a.Summary = fmt.Sprintf("pid %d was killed by SIGKILL while memory was nearly exhausted; the kernel log could not be read to confirm an OOM kill", p.PID)
	default:
		a.Summary = fmt.Sprintf("pid %d was killed by SIGKILL; the kernel log could not be read", p.PID)
	}
	if s := before.String(); s != "" {
		a.Evidence = append(a.Evidence, s)
	}
	return a
}
