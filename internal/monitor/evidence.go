package monitor

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"vigil/internal/ansi"
	"vigil/internal/gpu"
	"vigil/internal/logcopy"
	"vigil/internal/observe"
	"vigil/internal/oomkill"
	"vigil/internal/procstat"
	v "vigil/internal/verdict"
)

// seenProcs remembers every process seen in the server's tree, by pid and
// start time, so that workers that left the tree (setsid, reparented to
// init) can still be found after the server is stopped.
type seenProcs struct {
	mu    sync.Mutex
	procs map[int]time.Duration
}

func (s *seenProcs) add(procs []procstat.Proc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.procs == nil {
		s.procs = map[int]time.Duration{}
	}
	for _, p := range procs {
		if len(s.procs) < 4096 {
			s.procs[p.PID] = p.Start
		}
	}
}

// start is when pid started, as time since boot, if it was ever sampled.
func (s *seenProcs) start(pid int) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.procs[pid]
}

// stillRunning returns the seen processes that still run as themselves
// (same pid and start time).
func (s *seenProcs) stillRunning(fs procstat.FS) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for pid, start := range s.procs {
		smp, err := fs.Sample([]int{pid})
		if err != nil || len(smp.Procs) == 0 || smp.Procs[0].Start != start || smp.Procs[0].State == 'Z' {
			continue
		}
		out = append(out, pid)
	}
	sort.Ints(out)
	return out
}

// diagnoseStall adds where the server's processes wait to a stall verdict:
// idle processes and their wait channels, a Python stack dump when py-spy
// is installed, and the GPUs' state. It runs before anything is stopped.
func (m *monitor) diagnoseStall(res *observe.Result) {
	pid := m.serverPID()
	if res.Verdict != v.Stalled || pid <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	fs := m.deps.Proc
	pids, err := fs.Tree(pid)
	if err == nil && len(pids) > 0 {
		diags, err := fs.Diagnose(ctx, pids, 300*time.Millisecond)
		if err == nil {
			for i, d := range diags {
				if i == 8 {
					res.Evidence = append(res.Evidence, fmt.Sprintf("[vigil] ... and %d more processes", len(diags)-i))
					break
				}
				res.Evidence = append(res.Evidence, "[vigil] "+d.String())
			}
		}
	}
	if dump, err := procstat.PySpyDump(ctx, pid); err == nil && dump != "" {
		lines := strings.Split(strings.TrimSpace(dump), "\n")
		if len(lines) > 12 {
			lines = lines[:12]
		}
		for _, l := range lines {
			res.Evidence = append(res.Evidence, "[py-spy] "+l)
		}
	}
	if m.deps.GPU == nil {
		return
	}
	if snap := m.deps.GPU.Snapshot(ctx); snap.Available || snap.Hung {
		res.Evidence = append(res.Evidence, "[vigil] GPUs: "+snap.Summary())
	}
}

// noteStart remembers when the server's process started, at once: one
// killed before the first activity sample must still be matched against
// the kernel's log by its start (attributeKill).
func (m *monitor) noteStart() {
	if m.spec.PID <= 0 {
		return
	}
	if smp, err := m.deps.Proc.Sample([]int{m.spec.PID}); err == nil {
		m.seen.add(smp.Procs)
	}
}

// attributeKill adds to e what the kernel's log says of the server's end:
// its OOM-kill record, or that the log reaches back to the server's start
// and has no OOM kill since (so a SIGKILL came from outside).
func (m *monitor) attributeKill(ctx context.Context, e *observe.Exit) {
	if m.deps.OOMRecord == nil {
		return
	}
	pid := m.serverPID()
	p := oomkill.Proc{PID: pid, Start: m.seen.start(pid)}
	res := m.deps.OOMRecord(ctx, p)
	if res.Found {
		e.OOMRecord = res.Record.Line
	}
	e.KernelLogRead = res.Covers(p)
}

// memoryPressure describes the tree's memory against the machine's just
// before a SIGKILL, for the host_oom evidence.
func (m *monitor) memoryPressure() string {
	rss := m.rss.Load()
	mi, err := m.deps.Proc.MemInfo()
	if err != nil || mi.Total == 0 || rss == 0 {
		return ""
	}
	return fmt.Sprintf("just before, the server's processes used %s of the machine's %s (%s available)",
		procstat.FormatBytes(rss), procstat.FormatBytes(mi.Total), procstat.FormatBytes(mi.Available))
}

// diskFullBelow is the free space under which a log's filesystem counts as
// full.
const diskFullBelow = 64 << 10

// outputSettle is how long the evidence waits for the copier to take the
// last of a stopped server's output, so that the count of what a full
// disk took is final: the group is gone by then, and only a survivor that
// holds the output keeps it open.
const outputSettle = 2 * time.Second

// outputLoss is what the log refused of the server's output, waiting up
// to wait for the count to be final (nil: not counted, the server writes
// its log itself).
func (m *monitor) outputLoss(wait time.Duration) *logcopy.State {
	if m.spec.Output == nil {
		return nil
	}
	st, ok := m.spec.Output.Output(wait)
	if !ok {
		return nil
	}
	return &st
}

// logDiskFull reports whether the server's output could not all be written
// to its log: the log's filesystem has no room left, or refused some of it
// (a quota). A server that writes its log itself fails to write (ENOSPC)
// and may die or block on it, which the log itself cannot tell; through
// vigil's copier (loss set) it writes on, and the copier counts what the
// log refused. The message gives the log's size, where its output stops,
// and the count when there is one.
func logDiskFull(path string, loss *logcopy.State) (bool, string) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &st); err != nil {
		return false, ""
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	lost := loss != nil && loss.Lost > 0
	if free >= diskFullBelow && !lost {
		return false, ""
	}
	size := "its log"
	if fi, err := os.Stat(path); err == nil {
		size = fmt.Sprintf("its log stops at %s (%d bytes)", procstat.FormatBytes(fi.Size()), fi.Size())
	}
	var msg string
	if free < diskFullBelow {
		msg = fmt.Sprintf("the log's filesystem is full (%s free at %s): ", procstat.FormatBytes(free), filepath.Dir(path))
	} else {
		msg = fmt.Sprintf("the log's filesystem at %s refused some of the server's output (%s): ", filepath.Dir(path), loss.Err)
	}
	switch {
	case loss == nil:
		msg += fmt.Sprintf("the server cannot write its output (ENOSPC); %s, and what it writes after that is lost", size)
	case !lost:
		msg += fmt.Sprintf("%s; nothing of the server's output is lost yet (ENOSPC comes when it next writes)", size)
	default:
		msg += fmt.Sprintf("%s; %s", size, lostText(*loss))
	}
	return true, msg
}

// refusedLines is how many of the last lines the log refused the
// evidence shows (a traceback's end, its error last), each cut at
// refusedWidth bytes as the judge cuts the log's lines.
const (
	refusedLines = 10
	refusedWidth = 300
)

// refusedPrefix marks a line of the evidence that is not in the log.
const refusedPrefix = "[vigil: not in the log, refused by it] "

// refusedEvidence is the end of what the log refused, as evidence lines:
// what a full disk kept out of the log, the server's last error often
// among it.
func refusedEvidence(loss *logcopy.State) []string {
	if loss == nil || len(loss.Refused) == 0 {
		return nil
	}
	text := string(loss.Refused)
	if int64(len(loss.Refused)) < loss.Lost {
		// The kept tail starts inside a line: leave that part out.
		if _, rest, ok := strings.Cut(text, "\n"); ok {
			text = rest
		}
	}
	var lines []string
	for l := range strings.Lines(text) {
		l = strings.TrimRight(ansi.Strip(l), "\r\n")
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:] // a bar redrawn: its last state
		}
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(l) > refusedWidth {
			cut := refusedWidth
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			l = l[:cut] + "…"
		}
		lines = append(lines, refusedPrefix+l)
	}
	return lines[max(0, len(lines)-refusedLines):]
}

// lostText says how much of the server's output the log refused, and
// whether more may follow.
func lostText(st logcopy.State) string {
	n := fmt.Sprintf("%d bytes (%s) of the server's output were lost (%s)", st.Lost, procstat.FormatBytes(st.Lost), st.Err)
	switch {
	case st.Died:
		return n + ", and vigil's copier of its output was killed: what it wrote after that went nowhere"
	case !st.Final:
		return "so far " + n + "; the server writes on without errors, its output counted, not kept"
	}
	return n
}

// survivors lists processes of the stopped server that still run: workers
// that left its process group. vigil does not stop processes outside the
// group it started, so it names them, and what they hold.
func (m *monitor) survivors() []string {
	pids, _ := m.deps.Proc.Tree(m.spec.PID)
	if pid := m.serverPID(); pid != m.spec.PID {
		// The daemon the server left, and its own tree.
		daemon, _ := m.deps.Proc.Tree(pid)
		pids = append(pids, daemon...)
		slices.Sort(pids)
		pids = slices.Compact(pids)
	}
	for _, p := range m.seen.stillRunning(m.deps.Proc) {
		if !slices.Contains(pids, p) {
			pids = append(pids, p)
		}
	}
	if len(pids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var out []string
	var snap gpu.Snapshot
	if m.deps.GPU != nil {
		snap = m.deps.GPU.Snapshot(ctx)
	}
	for _, p := range pids {
		if !m.deps.Procs.Exists(p) {
			continue
		}
		s := fmt.Sprintf("still running after the stop: pid %d %s", p, m.deps.Procs.CmdlineText(p))
		if snap.Available {
			if mib := snap.ProcessMiB([]int{p}); mib > 0 {
				s += fmt.Sprintf("; holds %d MiB of GPU memory", mib)
			}
		}
		out = append(out, s)
	}
	if len(out) > 0 {
		if u, err := url.Parse(m.spec.URL); err == nil {
			if c, err := net.DialTimeout("tcp", net.JoinHostPort(u.Hostname(), u.Port()), 300*time.Millisecond); err == nil {
				c.Close()
				out = append(out, "the server's port "+u.Port()+" is still taken")
			}
		}
	}
	return out
}
