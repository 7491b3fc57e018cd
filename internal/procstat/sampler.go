package procstat

import (
	"fmt"
	"slices"
	"time"
)

// Thresholds for Delta.Busy. Below all of them a tree is idle: an idle
// Python process with a few polling threads uses well under 0.05 core, while
// loading weights, compiling kernels or capturing CUDA graphs keeps at least
// one core busy or moves many MiB per second.
const (
	// BusyCPU is the CPU use, in cores, at which a tree counts as working.
	BusyCPU = 0.2
	// BusyIO is the I/O rate, in bytes per second (storage or syscall
	// level, read or write), at which a tree counts as working.
	BusyIO = 1 << 20
	// BusyRSS is the RSS growth, in bytes per second, at which a tree counts
	// as working (weights being copied into memory).
	BusyRSS = 8 << 20
	// BusyFaults is the rate of major page faults, per second, at which a
	// tree counts as working: a model mmap-ed from a slow network file
	// system is read in by faults, which neither the I/O counters (read
	// calls, block devices) nor a slow RSS growth show. Each fault reads
	// at least a page; an idle process takes none, and one blocked on a
	// dead mount completes none.
	BusyFaults = 16
)

// Delta is the change between two samples of a tree.
type Delta struct {
	// Interval is the wall time between the samples; 0 for the first one.
	Interval time.Duration
	// CPU is CPU time used per wall second, in cores: 3.9 means 390%.
	CPU float64
	// ReadBytes and WriteBytes are storage-level rates (read_bytes,
	// write_bytes), ReadChars and WriteChars syscall-level rates (rchar,
	// wchar), all in bytes per second.
	ReadBytes, WriteBytes, ReadChars, WriteChars float64
	// RSS is the tree's resident memory now, RSSRate its change in bytes
	// per second (negative when memory is released).
	RSS     int64
	RSSRate float64
	// MajorFaults is the rate of major page faults, per second.
	MajorFaults float64
	// Procs and Threads describe the tree now.
	Procs   int
	Threads ThreadStates
	// Appeared and Died list processes that joined or left the tree; Died
	// holds each process as last seen, so its RSS and name are known.
	Appeared, Died []Proc
	// Waited is the most run-queue wait one of the tree's processes had
	// (its threads' waits together; at most Interval): on a crowded
	// machine, time in which the tree could not have shown progress. An
	// idle process waits for no CPU, so a hang never hides behind it.
	Waited time.Duration
}

// Diff computes the change from prev to cur. Counters are compared per
// process (by PID and start time), so a process that died does not make the
// totals go backwards; a process that appeared counts from zero, which is
// right for a fresh fork.
func Diff(prev, cur Sample) Delta {
	d := Delta{
		Interval: cur.At.Sub(prev.At),
		RSS:      cur.Total.RSS,
		Procs:    cur.Total.Procs,
		Threads:  cur.Total.Threads,
	}
	before := make(map[key]Proc, len(prev.Procs))
	for _, p := range prev.Procs {
		before[p.key()] = p
	}
	var cpu time.Duration
	var io IO
	var rss int64
	var faults uint64
	for _, p := range cur.Procs {
		old, ok := before[p.key()]
		if !ok {
			d.Appeared = append(d.Appeared, p)
			if p.HasWaited {
				d.Waited = max(d.Waited, p.Waited)
			}
			cpu += p.CPU
			io = io.add(p.IO)
			rss += p.RSS
			faults += p.MajorFaults
			continue
		}
		delete(before, p.key())
		if p.HasWaited && old.HasWaited && p.waitedAll == old.waitedAll {
			d.Waited = max(d.Waited, p.Waited-old.Waited)
		}
		cpu += p.CPU - old.CPU
		if p.HasIO && old.HasIO {
			io = io.add(p.IO.sub(old.IO))
		}
		rss += p.RSS - old.RSS
		if p.MajorFaults >= old.MajorFaults {
			faults += p.MajorFaults - old.MajorFaults
		}
	}
	for _, p := range before {
		d.Died = append(d.Died, p)
		rss -= p.RSS
	}
	byPID := func(a, b Proc) int { return a.PID - b.PID }
	slices.SortFunc(d.Appeared, byPID)
	slices.SortFunc(d.Died, byPID)
	if d.Interval <= 0 {
		d.Waited = 0
		return d
	}
	d.Waited = min(d.Waited, d.Interval)
	sec := d.Interval.Seconds()
	d.CPU = cpu.Seconds() / sec
	d.ReadBytes = float64(io.ReadBytes) / sec
	d.WriteBytes = float64(io.WriteBytes) / sec
	d.ReadChars = float64(io.RChar) / sec
	d.WriteChars = float64(io.WChar) / sec
	d.RSSRate = float64(rss) / sec
	d.MajorFaults = float64(faults) / sec
	return d
}

// Busy reports whether the tree did work between the two samples: CPU at
// least BusyCPU cores, any I/O rate at least BusyIO, RSS growing at least
// BusyRSS, major page faults at least BusyFaults a second, or a process
// starting or ending. Threads in D state alone do not
// count: a thread stuck on a dead NFS mount sits in D forever.
func (d Delta) Busy() bool {
	return len(d.Activity()) > 0
}

// Activity lists what made the tree busy, as short phrases for evidence:
// "cpu 3.9 cores", "disk read 210.0 MiB/s", "2 processes started".
func (d Delta) Activity() []string {
	var out []string
	if d.Interval <= 0 {
		return nil
	}
	if d.CPU >= BusyCPU {
		out = append(out, fmt.Sprintf("cpu %.1f cores", d.CPU))
	}
	for _, r := range []struct {
		rate float64
		what string
	}{{d.ReadBytes, "disk read"}, {d.WriteBytes, "disk write"}, {d.ReadChars, "read"}, {d.WriteChars, "write"}} {
		if r.rate >= BusyIO {
			out = append(out, fmt.Sprintf("%s %s/s", r.what, FormatBytes(int64(r.rate))))
		}
	}
	if d.RSSRate >= BusyRSS {
		out = append(out, fmt.Sprintf("rss +%s/s", FormatBytes(int64(d.RSSRate))))
	}
	if d.MajorFaults >= BusyFaults {
		out = append(out, fmt.Sprintf("page-ins %.0f/s", d.MajorFaults))
	}
	if n := len(d.Appeared); n > 0 {
		out = append(out, plural(n, "process", "processes")+" started")
	}
	if n := len(d.Died); n > 0 {
		out = append(out, plural(n, "process", "processes")+" ended")
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// FormatBytes renders a byte count in binary units: "512 B", "1.5 KiB",
// "210.0 MiB", "61.3 GiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		f /= unit
		if f < unit && f > -unit {
			return fmt.Sprintf("%.1f %s", f, u)
		}
	}
	return fmt.Sprintf("%.1f PiB", f/unit)
}

// Sampler samples one process tree over and over, keeping the previous
// sample so each call returns what changed. It is not safe for concurrent use.
//
// Between calls it remembers how every other process on the machine hangs in
// the tree of processes, so each call reads /proc/PID/stat only for processes
// it has not seen before and for the tree's own members (whose parent can
// change when they are orphaned). A PID number is not reused within a second
// on any real machine, so the cache is sound at vigil's sampling rates.
type Sampler struct {
	FS   FS
	Root int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// ThreadEvery, when positive, counts thread states (one read of
	// task/TID/stat per thread, about 3 µs each) at most this often; the
	// samples in between reuse each process's last count, and a new
	// process counts as all threads in its main thread's state. A rank of
	// a tensor-parallel server has 100 to 300 threads, so for eight ranks
	// sampled at 1 Hz, ThreadEvery of 5s cuts the cost from an estimated
	// 0.7% of a core to about 0.2% (see BenchmarkSampleThreads).
	ThreadEvery time.Duration

	prev, cur Sample
	n         int
	links     map[int]link
	members   map[int]bool
	r         reader
}

// NewSampler returns a sampler of root's process tree (see FS.Tree).
func NewSampler(fsys FS, root int) *Sampler {
	return &Sampler{FS: fsys, Root: root}
}

// Next samples the tree and returns the sample and its change since the
// previous call (the first call's Delta has no rates). When the whole tree
// has gone, Next returns an empty sample, a Delta whose Died lists the last
// members, and an error wrapping fs.ErrNotExist.
func (s *Sampler) Next() (Sample, Delta, error) {
	pids, treeErr := s.tree()
	if treeErr != nil && !vanished(treeErr) {
		return Sample{}, Delta{}, treeErr
	}
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	var reuse map[key]ThreadStates
	if s.ThreadEvery > 0 && s.n > 0 && now.Sub(s.cur.ThreadsAt) < s.ThreadEvery {
		reuse = make(map[key]ThreadStates, len(s.cur.Procs))
		for _, p := range s.cur.Procs {
			reuse[p.key()] = p.Threads
		}
	}
	cur, err := s.FS.sample(pids, reuse)
	cur.At, cur.ThreadsAt = now, now
	if reuse != nil {
		cur.ThreadsAt = s.cur.ThreadsAt
	}
	if err == nil {
		err = treeErr
	}
	var d Delta
	if s.n == 0 {
		d = Diff(cur, cur)
	} else {
		d = Diff(s.cur, cur)
	}
	s.prev, s.cur = s.cur, cur
	s.n++
	return cur, d, err
}

// Last returns the two most recent samples (prev is zero before the second
// call to Next).
func (s *Sampler) Last() (prev, cur Sample) {
	return s.prev, s.cur
}

// Diagnose says where each process of the tree waits, from the two most
// recent samples (see FS.DiagnoseSamples).
func (s *Sampler) Diagnose() []Diagnosis {
	if s.n < 2 {
		return s.FS.DiagnoseSamples(s.cur, s.cur)
	}
	return s.FS.DiagnoseSamples(s.prev, s.cur)
}

// tree is FS.Tree with the link cache described on Sampler.
func (s *Sampler) tree() ([]int, error) {
	names, err := readDirNames(s.FS.root())
	if err != nil {
		return nil, err
	}
	links := make(map[int]link, len(names))
	for _, name := range names {
		pid, ok := pidOf(name)
		if !ok {
			continue
		}
		if l, ok := s.links[pid]; ok && !s.members[pid] {
			links[pid] = l
			continue
		}
		if l, ok := s.FS.readLink(&s.r, pid); ok {
			links[pid] = l
		}
	}
	s.links = links
	pids, err := collect(s.Root, links)
	s.members = make(map[int]bool, len(pids))
	for _, pid := range pids {
		s.members[pid] = true
	}
	return pids, err
}
