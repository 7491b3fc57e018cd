package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// IO is a process's I/O counters from /proc/PID/io, in bytes.
type IO struct {
	// RChar and WChar count every read and write system call: files
	// (including the page cache), pipes, sockets.
	RChar, WChar int64
	// ReadBytes and WriteBytes count what reached the storage layer: a
	// weight file read from disk shows here, a cached one does not.
	ReadBytes, WriteBytes int64
}

func (a IO) add(b IO) IO {
	return IO{a.RChar + b.RChar, a.WChar + b.WChar, a.ReadBytes + b.ReadBytes, a.WriteBytes + b.WriteBytes}
}

func (a IO) sub(b IO) IO {
	return IO{a.RChar - b.RChar, a.WChar - b.WChar, a.ReadBytes - b.ReadBytes, a.WriteBytes - b.WriteBytes}
}

// ThreadStates counts threads by scheduler state.
type ThreadStates struct {
	Running  int // R: on a CPU or runnable
	DiskWait int // D: uninterruptible sleep, almost always waiting for I/O
	Sleeping int // S (and I): waiting for an event, a lock, a timer, the network
	Stopped  int // T, t: stopped by a signal or a tracer
	Zombie   int // Z, X: exited, not yet reaped
	Other    int
}

// Add counts one thread in state s (the letter from /proc/PID/stat).
func (t *ThreadStates) Add(s byte) {
	switch s {
	case 'R':
		t.Running++
	case 'D':
		t.DiskWait++
	case 'S', 'I':
		t.Sleeping++
	case 'T', 't':
		t.Stopped++
	case 'Z', 'X', 'x':
		t.Zombie++
	default:
		t.Other++
	}
}

func (t ThreadStates) plus(u ThreadStates) ThreadStates {
	return ThreadStates{t.Running + u.Running, t.DiskWait + u.DiskWait, t.Sleeping + u.Sleeping,
		t.Stopped + u.Stopped, t.Zombie + u.Zombie, t.Other + u.Other}
}

// Total is the number of threads counted.
func (t ThreadStates) Total() int {
	return t.Running + t.DiskWait + t.Sleeping + t.Stopped + t.Zombie + t.Other
}

// String lists the non-zero counts, busiest first: "2 running, 1 D, 95 sleeping".
func (t ThreadStates) String() string {
	var parts []string
	for _, c := range []struct {
		n    int
		name string
	}{{t.Running, "running"}, {t.DiskWait, "D (I/O wait)"}, {t.Sleeping, "sleeping"},
		{t.Stopped, "stopped"}, {t.Zombie, "zombie"}, {t.Other, "other"}} {
		if c.n > 0 {
			parts = append(parts, strconv.Itoa(c.n)+" "+c.name)
		}
	}
	if len(parts) == 0 {
		return "no threads"
	}
	return strings.Join(parts, ", ")
}

// Proc is one process at one moment.
type Proc struct {
	PID, PPID, PGID, SID int
	Comm                 string // kernel's command name, at most 15 bytes
	State                byte   // R, S, D, Z, T, ... of the main thread
	CPU                  time.Duration
	RSS                  int64 // resident memory, bytes
	// MajorFaults counts the pages the process waited to have read in
	// (majflt): an mmap-ed model file being loaded.
	MajorFaults uint64
	IO          IO
	HasIO       bool // false when /proc/PID/io was unreadable (another user)
	NumThreads  int  // from /proc/PID/stat
	// Threads counts the threads by state, from task/*/stat (see
	// Sampler.ThreadEvery for samples that reuse an earlier count).
	Threads ThreadStates
	// Start is when the process started, counted from boot; together with
	// PID it names a process even when PIDs are reused.
	Start time.Duration
	// Waited is how long the main thread has waited on a run queue for a
	// CPU it was ready to use (/proc/PID/schedstat); HasWaited is false
	// where the kernel does not keep it.
	Waited    time.Duration
	HasWaited bool
	// waitedAll: Waited sums every thread's wait, not the main thread's.
	waitedAll bool
}

// key names a process uniquely across PID reuse.
type key struct {
	pid   int
	start time.Duration
}

func (p Proc) key() key { return key{p.PID, p.Start} }

// Totals sums a sample over the tree.
type Totals struct {
	Procs   int
	CPU     time.Duration
	RSS     int64
	IO      IO
	Threads ThreadStates
}

func (t *Totals) add(p Proc) {
	t.Procs++
	t.CPU += p.CPU
	t.RSS += p.RSS
	t.IO = t.IO.add(p.IO)
	t.Threads = t.Threads.plus(p.Threads)
}

// Sample is a process tree at one moment.
type Sample struct {
	At time.Time
	// ThreadsAt is when the thread states were counted: At, or earlier
	// when a Sampler reused an earlier count (Sampler.ThreadEvery).
	ThreadsAt time.Time
	Procs     []Proc // in the order of the PIDs asked for
	Total     Totals
}

// Proc returns the process with the given PID.
func (s Sample) Proc(pid int) (Proc, bool) {
	for _, p := range s.Procs {
		if p.PID == pid {
			return p, true
		}
	}
	return Proc{}, false
}

// Sample reads the given processes. Processes that no longer exist are left
// out without error; the error reports only stat files that exist but cannot
// be parsed, and the sample then still holds every process that could be read.
func (fsys FS) Sample(pids []int) (Sample, error) {
	return fsys.sample(pids, nil)
}

// sample is Sample; when threads is non-nil it is used instead of reading
// task/*/stat, for the processes it holds.
func (fsys FS) sample(pids []int, threads map[key]ThreadStates) (Sample, error) {
	now := time.Now()
	s := Sample{At: now, ThreadsAt: now, Procs: make([]Proc, 0, len(pids))}
	var r reader
	var errs []error
	for _, pid := range pids {
		p, err := fsys.readProc(&r, pid, threads)
		if err != nil {
			if !vanished(err) {
				errs = append(errs, err)
			}
			continue
		}
		s.Procs = append(s.Procs, p)
		s.Total.add(p)
	}
	return s, errors.Join(errs...)
}

func (fsys FS) readProc(r *reader, pid int, threads map[key]ThreadStates) (Proc, error) {
	b, err := r.read(fsys.path(pid, "stat"))
	if err != nil {
		return Proc{}, err
	}
	st, err := parseStat(b, true)
	if err != nil {
		return Proc{}, fmt.Errorf("procstat: %s: %w", fsys.path(pid, "stat"), err)
	}
	p := Proc{
		PID: st.pid, PPID: st.ppid, PGID: st.pgrp, SID: st.sid,
		Comm:        st.comm,
		State:       st.state,
		CPU:         ticks(st.utime + st.stime),
		RSS:         st.rssPages * fsys.pageSize(),
		MajorFaults: st.majflt,
		Start:       ticks(st.start),
		NumThreads:  st.threads,
	}
	if b, err := r.read(fsys.path(pid, "io")); err == nil {
		p.IO, p.HasIO = parseIO(b), true
	}
	if b, err := r.read(fsys.path(pid, "schedstat")); err == nil {
		p.Waited, p.HasWaited = parseSchedstat(b)
	}
	if threads == nil {
		var waited time.Duration
		var ok bool
		p.Threads, waited, ok = fsys.threadStates(r, pid, st)
		if ok {
			p.Waited, p.HasWaited, p.waitedAll = waited, true, true
		}
	} else if ts, ok := threads[p.key()]; ok {
		p.Threads = ts
	} else {
		p.Threads = mainOnly(st.state, st.threads)
	}
	return p, nil
}

// threadStates reads task/*/stat, and task/*/schedstat for the run-queue
// wait of all threads together (waitedOK false where the kernel keeps
// none): the main thread of a Go or Java program may sleep while others
// wait for a CPU. If the task directory cannot be listed (the process is
// exiting) the main thread's state stands for all threads.
func (fsys FS) threadStates(r *reader, pid int, st stat) (ts ThreadStates, waited time.Duration, waitedOK bool) {
	dir := fsys.path(pid, "task")
	names, _ := readDirNames(dir)
	for _, name := range names {
		b, err := r.read(dir + "/" + name + "/stat")
		if err != nil {
			continue // the thread exited
		}
		if s, ok := threadState(b); ok {
			ts.Add(s)
		}
		if b, err := r.read(dir + "/" + name + "/schedstat"); err == nil {
			if w, ok := parseSchedstat(b); ok {
				waited, waitedOK = waited+w, true
			}
		}
	}
	if ts.Total() == 0 {
		ts = mainOnly(st.state, st.threads)
	}
	return ts, waited, waitedOK
}

// mainOnly counts n threads, all in the main thread's state: the best guess
// without reading every thread.
func mainOnly(state byte, n int) ThreadStates {
	var ts ThreadStates
	for range max(n, 1) {
		ts.Add(state)
	}
	return ts
}

// threadState extracts only the state letter from a stat line.
func threadState(b []byte) (byte, bool) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 || end+2 >= len(b) {
		return 0, false
	}
	return b[end+2], true
}

// parseIO reads the "key: value" lines of /proc/PID/io.
func parseIO(b []byte) IO {
	var io IO
	eachKeyValue(b, func(k, v []byte) {
		n, ok := atoi(v)
		if !ok {
			return
		}
		switch string(k) {
		case "rchar":
			io.RChar = n
		case "wchar":
			io.WChar = n
		case "read_bytes":
			io.ReadBytes = n
		case "write_bytes":
			io.WriteBytes = n
		}
	})
	return io
}

// eachKeyValue calls fn for every "key: value" line of a /proc file, the
// value trimmed of spaces.
func eachKeyValue(b []byte, fn func(k, v []byte)) {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok {
			fn(k, bytes.TrimSpace(v))
		}
	}
}

// parseSchedstat reads the run-queue wait, the second of schedstat's three
// numbers ("on-CPU ns, waiting ns, timeslices").
func parseSchedstat(b []byte) (time.Duration, bool) {
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || ns < 0 {
		return 0, false
	}
	return time.Duration(ns), true
}
