// Package oomkill finds the kernel OOM killer's record of a process, so that
// vigil can tell a server killed by the host running out of memory
// (host_oom) from one killed by SIGKILL for another reason: a server that
// kills its own process tree after a rank failed, or a person.
//
// The kernel writes one record per kill to its log:
//
//	[183412.005301] oom-kill:constraint=CONSTRAINT_NONE,...,task=sglang::schedul,pid=51207,uid=0
//	[183412.005390] Out of memory: Killed process 51207 (sglang::schedul) total-vm:..., anon-rss:61234560kB, ...
//
// (or "Memory cgroup out of memory: Killed process ..." when a container's
// limit was hit). The log is read with dmesg, then journalctl -k, each under
// a short timeout. Reading it often needs privileges (kernel.dmesg_restrict,
// the systemd-journal group); a log that cannot be read means "no record",
// never an error that stops anything.
package oomkill

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"vigil/internal/lazyre"
)

// Record is one OOM kill.
type Record struct {
	PID  int
	Comm string // the kernel's name for the task, at most 15 bytes
	// Memory of the killed process, in bytes (0 when the kernel's line
	// does not say).
	TotalVM, AnonRSS, FileRSS, ShmemRSS int64
	UID, OOMScoreAdj                    int
	// Cgroup is true when a memory cgroup's limit (a container's), not the
	// whole machine, ran out.
	Cgroup bool
	// Constraint and MemCG come from the "oom-kill:" summary line, when
	// present: CONSTRAINT_NONE, CONSTRAINT_MEMCG, ...; the task's cgroup.
	Constraint, MemCG string
	// Uptime is the kernel timestamp, time since boot; -1 when the line has
	// none.
	Uptime time.Duration
	// Line is the "Killed process" line as logged; Lines holds it with the
	// lines that belong to the same kill ("invoked oom-killer", "oom-kill:"),
	// in log order, for evidence.
	Line  string
	Lines []string
}

// CommLen is the most bytes of a task name the kernel keeps.
const CommLen = 15

var (
	killedRE  = lazyre.New(`Killed process (\d+) \((.*?)\)(?: total-vm|,|$| )`)
	fieldRE   = lazyre.New(`(total-vm|anon-rss|file-rss|shmem-rss|UID|oom_score_adj):(-?\d+)`)
	stampRE   = lazyre.New(`^\[\s*(\d+)\.(\d+)\]`)
	invokedRE = lazyre.New(`invoked oom-killer:`)
)

// Parse reads one "Killed process" line, with or without the dmesg or
// journalctl prefix. ok is false for any other line.
func Parse(line string) (Record, bool) {
	m := killedRE.Get().FindStringSubmatch(line)
	if m == nil {
		return Record{}, false
	}
	pid, err := strconv.Atoi(m[1])
	if err != nil {
		return Record{}, false
	}
	r := Record{PID: pid, Comm: m[2], Uptime: uptime(line), Line: line,
		Cgroup: strings.Contains(line, "Memory cgroup out of memory")}
	for _, f := range fieldRE.Get().FindAllStringSubmatch(line, -1) {
		n, _ := strconv.ParseInt(f[2], 10, 64)
		switch f[1] {
		case "total-vm":
			r.TotalVM = n << 10
		case "anon-rss":
			r.AnonRSS = n << 10
		case "file-rss":
			r.FileRSS = n << 10
		case "shmem-rss":
			r.ShmemRSS = n << 10
		case "UID":
			r.UID = int(n)
		case "oom_score_adj":
			r.OOMScoreAdj = int(n)
		}
	}
	return r, true
}

// summary is an "oom-kill:" line's fields.
type summary struct {
	constraint, memcg, task string
	line                    string
}

// parseSummary reads an "oom-kill:k=v,k=v,..." line; pid is 0 for any
// other line.
func parseSummary(line string) (pid int, s summary) {
	_, rest, ok := strings.Cut(line, "oom-kill:")
	if !ok {
		return 0, s
	}
	s.line = line
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		switch k {
		case "constraint":
			s.constraint = v
		case "task_memcg":
			s.memcg = v
		case "task":
			s.task = v
		case "pid":
			pid, _ = strconv.Atoi(v)
		}
	}
	return pid, s
}

// uptime reads the "[12345.678901]" timestamp at the start of a dmesg or
// journalctl -o short-monotonic line; -1 when there is none.
func uptime(line string) time.Duration {
	m := stampRE.Get().FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return -1
	}
	sec, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return -1
	}
	frac := m[2]
	for len(frac) < 9 {
		frac += "0"
	}
	ns, _ := strconv.ParseInt(frac[:9], 10, 64)
	return time.Duration(sec)*time.Second + time.Duration(ns)
}

// Proc names the process to look for.
type Proc struct {
	PID int
	// Comm, when set, must match the record's task name (compared on the
	// first CommLen bytes, as the kernel truncates).
	Comm string
	// Start, when set, is when the process started, as time since boot
	// (procstat.Proc.Start): records older than that belong to an earlier
	// process with the same PID.
	Start time.Duration
	// any matches a record of any process (since Start).
	any bool
}

func (p Proc) matches(r Record) bool {
	if !p.any && r.PID != p.PID {
		return false
	}
	if p.Comm != "" && truncate(p.Comm) != truncate(r.Comm) {
		return false
	}
	return p.Start <= 0 || r.Uptime < 0 || r.Uptime >= p.Start
}

func truncate(s string) string {
	if len(s) > CommLen {
		return s[:CommLen]
	}
	return s
}

// Scan looks through a kernel log for the last OOM-kill record of p.
func Scan(log []byte, p Proc) (Record, bool) {
	var (
		found   Record
		ok      bool
		invoked string
		pending = map[int]summary{}
	)
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if invokedRE.Get().MatchString(line) {
			invoked = line
			continue
		}
		if pid, s := parseSummary(line); pid != 0 {
			pending[pid] = s
			continue
		}
		r, isKill := Parse(line)
		if !isKill {
			continue
		}
		if invoked != "" {
			r.Lines = append(r.Lines, invoked)
		}
		if s, has := pending[r.PID]; has {
			r.Constraint, r.MemCG = s.constraint, s.memcg
			r.Cgroup = r.Cgroup || s.constraint == "CONSTRAINT_MEMCG"
			r.Lines = append(r.Lines, s.line)
			delete(pending, r.PID)
		}
		r.Lines = append(r.Lines, line)
		invoked = ""
		if p.matches(r) {
			found, ok = r, true
		}
	}
	return found, ok
}

// Summary is a one-line account: "the kernel's OOM killer killed pid 51207
// (sglang::schedul), anon-rss 58.4 GiB".
func (r Record) Summary() string {
	who := "the kernel's OOM killer"
	if r.Cgroup {
		who = "the kernel's OOM killer (memory cgroup limit)"
	}
	s := fmt.Sprintf("%s killed pid %d (%s)", who, r.PID, r.Comm)
	if r.AnonRSS > 0 {
		s += ", anon-rss " + gib(r.AnonRSS)
	}
	return s
}

func gib(n int64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }
