// Package procfind finds a server's processes through /proc when vigil did
// not start them: the processes writing a log file, a process's children,
// and when a process started (so that only the current run is judged).
//
// Everything reads a proc file system at a root that tests can point at a
// fixture tree. Processes come and go while /proc is read, and other
// users' processes cannot be inspected without privileges; both are
// skipped, never reported as errors.
package procfind

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"vigil/internal/procstat"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat times: 100 on every
// Linux architecture vigil runs on (sysconf(_SC_CLK_TCK) needs cgo).
const clockTicks = 100

// Open-flag bits as /proc/PID/fdinfo prints them (octal), from Linux's
// asm-generic/fcntl.h.
const (
	oAccMode = 0o3
	oWronly  = 0o1
	oRdwr    = 0o2
)

// FS is a proc file system mounted at Root. The zero value is the host's
// /proc.
type FS struct {
	// Root is where proc is mounted; "/proc" when empty.
	Root string
}

func (p FS) root() string {
	if p.Root == "" {
		return "/proc"
	}
	return p.Root
}

func (p FS) path(elem ...string) string {
	return filepath.Join(append([]string{p.root()}, elem...)...)
}

// Process is what /proc/PID/stat says about a process.
type Process struct {
	PID  int
	PPID int
	// Comm is the command name, at most 15 bytes.
	Comm string
	// State is the one-letter state: R, S, D, Z (zombie), T, X (dead), ...
	State byte
	// Start is when the process started, to the clock tick (10ms).
	Start time.Time
}

// WritersOf returns the PIDs of processes that have the file at path open
// for writing, using the host's /proc. See [FS.WritersOf].
func WritersOf(path string) ([]int, error) { return FS{}.WritersOf(path) }

// StartTime returns when process pid started, using the host's /proc.
func StartTime(pid int) (time.Time, error) { return FS{}.StartTime(pid) }

// Exists reports whether process pid is alive, using the host's /proc.
func Exists(pid int) bool { return FS{}.Exists(pid) }

// Descendants returns the children of pid, their children and so on,
// using the host's /proc.
func Descendants(pid int) ([]int, error) { return FS{}.Descendants(pid) }

// CopierComm is the command name of vigil's log copier (logcopy), which
// writes a launched server's log for it.
const CopierComm = "vigil-logcopy"

// WritersOf returns the PIDs, in increasing order, of processes that have
// the file at path open for writing (write-only or read-write; O_APPEND
// included), found through the /proc/PID/fd links and the flags in
// /proc/PID/fdinfo. A server and the workers that inherited its stdout all
// appear; [FS.Roots] picks out the top ones. A vigil log copier that
// writes the file stands for the processes that write into its pipe: the
// server started by a vigil run. Processes that vanish or that may not be
// inspected are skipped.
func (p FS) WritersOf(path string) ([]int, error) {
	real, err := filepath.Abs(path)
	if err == nil {
		real, err = filepath.EvalSymlinks(real)
	}
	if err != nil {
		return nil, fmt.Errorf("procfind: %w", err)
	}
	target, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("procfind: %w", err)
	}
	pids, err := p.PIDs()
	if err != nil {
		return nil, err
	}
	var writers, copiers []int
	for _, pid := range pids {
		if !p.writes(pid, real, target) {
			continue
		}
		if st, err := p.Stat(pid); err == nil && st.Comm == CopierComm {
			copiers = append(copiers, pid)
			continue
		}
		writers = append(writers, pid)
	}
	for _, c := range copiers {
		writers = append(writers, p.pipeWriters(pids, c)...)
	}
	slices.Sort(writers)
	return slices.Compact(writers), nil
}

// pipeWriters returns the processes that hold the write end of the pipe
// the copier reads (its stdin), the copier itself not counted.
func (p FS) pipeWriters(pids []int, copier int) []int {
	pipe, err := os.Readlink(p.path(strconv.Itoa(copier), "fd", "0"))
	if err != nil || !strings.HasPrefix(pipe, "pipe:[") {
		return nil
	}
	var out []int
	for _, pid := range pids {
		if pid != copier && p.holds(pid, func(_, link string) bool { return link == pipe }) {
			out = append(out, pid)
		}
	}
	return out
}

// holds reports whether process pid has a descriptor open for writing
// that match accepts, given the descriptor's path under /proc and its
// link's target.
func (p FS) holds(pid int, match func(fdPath, link string) bool) bool {
	dir := p.path(strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false // gone, or not ours to look at
	}
	for _, fd := range fds {
		fdPath := filepath.Join(dir, fd.Name())
		link, err := os.Readlink(fdPath)
		if err != nil || !match(fdPath, link) {
			continue
		}
		flags, err := p.fdFlags(pid, fd.Name())
		if acc := flags & oAccMode; err == nil && (acc == oWronly || acc == oRdwr) {
			return true
		}
	}
	return false
}

// writes reports whether process pid has the file open for writing.
func (p FS) writes(pid int, real string, target os.FileInfo) bool {
	return p.holds(pid, func(fdPath, link string) bool {
		if link == real {
			return true
		}
		// The same file can show under another path (a bind mount,
		// another mount namespace): compare the files themselves when at
		// least the name matches.
		if !strings.HasPrefix(link, "/") || filepath.Base(link) != filepath.Base(real) {
			return false
		}
		fi, err := os.Stat(fdPath)
		return err == nil && os.SameFile(fi, target)
	})
}

// fdFlags reads the open flags of descriptor fd of process pid.
func (p FS) fdFlags(pid int, fd string) (int64, error) {
	b, err := os.ReadFile(p.path(strconv.Itoa(pid), "fdinfo", fd))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 8, 64)
		}
	}
	return 0, errors.New("no flags in fdinfo")
}

// PIDs lists the processes in the proc file system, in increasing order.
func (p FS) PIDs() ([]int, error) {
	entries, err := os.ReadDir(p.root())
	if err != nil {
		return nil, fmt.Errorf("procfind: %w", err)
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids, nil
}

// Stat reads /proc/PID/stat.
func (p FS) Stat(pid int) (Process, error) {
	proc, ticks, err := p.stat(pid)
	if err != nil {
		return Process{}, err
	}
	boot, err := p.BootTime()
	if err != nil {
		return Process{}, err
	}
	proc.Start = boot.Add(time.Duration(ticks) * time.Second / clockTicks)
	return proc, nil
}

// stat reads /proc/PID/stat, leaving Start unset, and returns the start
// time in clock ticks since boot.
func (p FS) stat(pid int) (Process, uint64, error) {
	b, err := os.ReadFile(p.path(strconv.Itoa(pid), "stat"))
	if err != nil {
		return Process{}, 0, fmt.Errorf("procfind: process %d: %w", pid, err)
	}
	proc, ticks, err := parseStat(string(b))
	if err != nil {
		return Process{}, 0, fmt.Errorf("procfind: process %d: %w", pid, err)
	}
	return proc, ticks, nil
}

// parseStat parses a /proc/PID/stat line and returns the process and its
// start time in clock ticks since boot.
func parseStat(s string) (Process, uint64, error) {
	st, err := procstat.ParseStat([]byte(s))
	if err != nil {
		return Process{}, 0, err
	}
	return Process{PID: st.PID, PPID: st.PPID, Comm: st.Comm, State: st.State}, st.Start, nil
}

// BootTime returns when the system booted (btime in /proc/stat).
func (p FS) BootTime() (time.Time, error) {
	// btime is whole seconds, which would put every start time up to a
	// second early; /proc/uptime has hundredths.
	if b, err := os.ReadFile(p.path("uptime")); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if up, err := strconv.ParseFloat(f[0], 64); err == nil && up > 0 {
				return time.Now().Add(-time.Duration(up * float64(time.Second))), nil
			}
		}
	}
	b, err := os.ReadFile(p.path("stat"))
	if err != nil {
		return time.Time{}, fmt.Errorf("procfind: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, fmt.Errorf("procfind: btime: %w", err)
			}
			return time.Unix(sec, 0), nil
		}
	}
	return time.Time{}, errors.New("procfind: no btime in stat")
}

// StartTime returns when process pid started, to the clock tick.
func (p FS) StartTime(pid int) (time.Time, error) {
	proc, err := p.Stat(pid)
	if err != nil {
		return time.Time{}, err
	}
	return proc.Start, nil
}

// Exists reports whether process pid is alive. A zombie, which has exited
// but not been reaped, is not.
func (p FS) Exists(pid int) bool {
	if pid <= 0 {
		return false
	}
	proc, _, err := p.stat(pid)
	if err != nil {
		return false
	}
	switch proc.State {
	case 'Z', 'X', 'x':
		return false
	}
	return true
}

// Descendants returns the children of pid, their children and so on, in
// increasing order; empty when pid has none.
func (p FS) Descendants(pid int) ([]int, error) {
	children, err := p.children()
	if err != nil {
		return nil, err
	}
	var out []int
	queue := []int{pid}
	seen := map[int]bool{pid: true}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		for _, c := range children[next] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// children maps each PID to its children's PIDs.
func (p FS) children() (map[int][]int, error) {
	pids, err := p.PIDs()
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for _, pid := range pids {
		proc, _, err := p.stat(pid)
		if err != nil {
			continue // exited meanwhile
		}
		children[proc.PPID] = append(children[proc.PPID], pid)
	}
	return children, nil
}

// Roots returns those of pids whose parent is not among pids: of the
// processes writing a log, the server itself rather than the workers that
// inherited its output. A PID that has vanished counts as a root.
func (p FS) Roots(pids []int) []int {
	var roots []int
	for _, pid := range pids {
		proc, _, err := p.stat(pid)
		if err != nil || !slices.Contains(pids, proc.PPID) {
			roots = append(roots, pid)
		}
	}
	return roots
}

// Identity names one process for good: its PID and its start time in clock
// ticks since boot. A PID is reused once its process is reaped; the pair is
// not, so checking it never mistakes a newcomer for the process watched.
type Identity struct {
	PID        int
	StartTicks uint64
}

// Identify returns the identity of the process now holding pid.
func Identify(pid int) (Identity, error) { return FS{}.Identify(pid) }

// Still reports whether id's process is still alive: the PID is held by a
// process that started at the same tick, and it is not a zombie.
func Still(id Identity) bool { return FS{}.Still(id) }

// Identify returns the identity of the process now holding pid.
func (p FS) Identify(pid int) (Identity, error) {
	if pid <= 0 {
		return Identity{}, fmt.Errorf("procfind: no process %d", pid)
	}
	_, ticks, err := p.stat(pid)
	if err != nil {
		return Identity{}, err
	}
	return Identity{PID: pid, StartTicks: ticks}, nil
}

// Still reports whether id's process is still alive: the PID is held by a
// process that started at the same tick, and it is not a zombie.
func (p FS) Still(id Identity) bool {
	if id.PID <= 0 {
		return false
	}
	proc, ticks, err := p.stat(id.PID)
	if err != nil || ticks != id.StartTicks {
		return false
	}
	switch proc.State {
	case 'Z', 'X', 'x':
		return false
	}
	return true
}
