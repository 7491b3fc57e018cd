package procstat

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func pidsOf(ps []Proc) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.PID)
	}
	return out
}

func TestSamplerFixture(t *testing.T) {
	now := t0
	s := NewSampler(fixtureT0, 4100)
	s.Now = func() time.Time { return now }

	first, d, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pidsOf(first.Procs), []int{4100, 4179, 4180, 4181, 4182, 4250}; !slices.Equal(got, want) {
		t.Fatalf("first sample: got pids %v, want %v", got, want)
	}
	if d.Interval != 0 || d.Busy() || d.Procs != 6 {
		t.Errorf("first delta: got interval %v, busy %v, procs %d, want 0, false, 6", d.Interval, d.Busy(), d.Procs)
	}

	now = now.Add(time.Second)
	s.FS = fixtureT1
	_, d, err = s.Next()
	if err != nil {
		t.Fatal(err)
	}
	const MiB = 1 << 20
	checks := []struct {
		name      string
		got, want any
	}{
		{"interval", d.Interval, time.Second},
		{"cpu cores", round2(d.CPU), 1.63},
		{"disk read B/s", d.ReadBytes, float64(200 * MiB)},
		{"disk write B/s", d.WriteBytes, 0.0},
		{"read chars B/s", d.ReadChars, float64(211 * MiB)},
		{"rss", d.RSS, int64((314572 + 4200 + 2097152 + 2097152 + 51200 + 131072 + 51200) * 4096)},
		{"rss B/s", d.RSSRate, float64(400*MiB - 2600*4096)},
		{"procs", d.Procs, 6},
		{"appeared", pidsOf(d.Appeared), []int{4301}},
		{"died", pidsOf(d.Died), []int{4250}},
		{"died comm", d.Died[0].Comm, "ninja"},
		// Every process of the fixture has taken 1200 major faults, at
		// both times: only the new one's count since its start is new.
		{"major faults/s", d.MajorFaults, 1200.0},
		{"busy", d.Busy(), true},
		{"activity", strings.Join(d.Activity(), "; "),
			"cpu 1.6 cores; disk read 200.0 MiB/s; read 211.0 MiB/s; rss +389.8 MiB/s; page-ins 1200/s; 1 process started; 1 process ended"},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !equalAny(c.got, c.want) {
				t.Errorf("got %v, want %v", c.got, c.want)
			}
		})
	}
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

func equalAny(a, b any) bool {
	if as, ok := a.([]int); ok {
		bs, _ := b.([]int)
		return slices.Equal(as, bs)
	}
	return a == b
}

func TestSamplerTreeGone(t *testing.T) {
	now := t0
	fsys := writeTree(t,
		fakeProc{pid: 600, ppid: 1, pgrp: 600, sid: 600, comm: "launcher", state: 'S', rssPages: 10},
		fakeProc{pid: 601, ppid: 600, pgrp: 600, sid: 600, comm: "worker", state: 'S', rssPages: 20},
	)
	s := NewSampler(fsys, 600)
	s.Now = func() time.Time { return now }
	if _, _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if err := removeAll(fsys.Root + "/600"); err != nil {
		t.Fatal(err)
	}
	if err := removeAll(fsys.Root + "/601"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Second)
	cur, d, err := s.Next()
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got error %v, want fs.ErrNotExist", err)
	}
	if len(cur.Procs) != 0 {
		t.Errorf("got %d processes, want 0", len(cur.Procs))
	}
	if got, want := pidsOf(d.Died), []int{600, 601}; !slices.Equal(got, want) {
		t.Errorf("got died %v, want %v", got, want)
	}
}

// TestSamplerSeesNewMembers checks the link cache: a process that joins the
// tree after the first scan is found, and one that leaves is dropped.
func TestSamplerSeesNewMembers(t *testing.T) {
	fsys := writeTree(t,
		fakeProc{pid: 600, ppid: 1, pgrp: 600, sid: 600, comm: "launcher", state: 'S'},
		fakeProc{pid: 900, ppid: 1, pgrp: 900, sid: 900, comm: "other", state: 'S'},
	)
	s := NewSampler(fsys, 600)
	if _, _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, fsys.Root+"/601/stat", statLine(601, "rank", 'S', 600, 600, 600, 0, 0, 1, 0))
	mustWrite(t, fsys.Root+"/602/stat", statLine(602, "orphan", 'S', 1, 600, 600, 0, 0, 1, 0))
	cur, d, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pidsOf(cur.Procs), []int{600, 601, 602}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, want := pidsOf(d.Appeared), []int{601, 602}; !slices.Equal(got, want) {
		t.Errorf("got appeared %v, want %v", got, want)
	}
}

func TestDeltaBusy(t *testing.T) {
	const MiB = 1 << 20
	tests := []struct {
		name string
		d    Delta
		want []string
	}{
		{"first sample", Delta{CPU: 5}, nil},
		{"idle", Delta{Interval: time.Second, CPU: 0.03, ReadChars: 4096, RSSRate: -MiB}, nil},
		{"cpu", Delta{Interval: time.Second, CPU: 3.9}, []string{"cpu 3.9 cores"}},
		{"cpu just below", Delta{Interval: time.Second, CPU: BusyCPU - 0.01}, nil},
		{"silent download", Delta{Interval: time.Second, WriteBytes: 80 * MiB, WriteChars: 80 * MiB},
			[]string{"disk write 80.0 MiB/s", "write 80.0 MiB/s"}},
		{"cached weights", Delta{Interval: time.Second, ReadChars: 2 * MiB}, []string{"read 2.0 MiB/s"}},
		{"rss growth", Delta{Interval: time.Second, RSSRate: 512 * MiB}, []string{"rss +512.0 MiB/s"}},
		{"only D threads", Delta{Interval: time.Second, Threads: ThreadStates{DiskWait: 3}}, nil},
		{"mmap-ed weights paged in", Delta{Interval: time.Second, MajorFaults: 40, RSSRate: 5 * MiB}, []string{"page-ins 40/s"}},
		{"a few faults", Delta{Interval: time.Second, MajorFaults: BusyFaults - 1}, nil},
		{"process churn", Delta{Interval: time.Second, Appeared: make([]Proc, 2), Died: make([]Proc, 1)},
			[]string{"2 processes started", "1 process ended"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.d.Activity()
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if busy := tt.d.Busy(); busy != (len(tt.want) > 0) {
				t.Errorf("got busy %v, want %v", busy, len(tt.want) > 0)
			}
		})
	}
}

func TestDiffPIDReuse(t *testing.T) {
	prev := Sample{At: t0, Procs: []Proc{{PID: 10, CPU: 50 * time.Second, Start: time.Second}}}
	cur := Sample{At: t0.Add(time.Second), Procs: []Proc{{PID: 10, CPU: 200 * time.Millisecond, Start: 9 * time.Second}}}
	d := Diff(prev, cur)
	if got, want := round2(d.CPU), 0.2; got != want {
		t.Errorf("got cpu %v, want %v", got, want)
	}
	if len(d.Appeared) != 1 || len(d.Died) != 1 {
		t.Errorf("got %d appeared, %d died, want 1 and 1", len(d.Appeared), len(d.Died))
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		name string
		n    int64
		want string
	}{
		{"bytes", 512, "512 B"},
		{"KiB", 1536, "1.5 KiB"},
		{"GiB", 61 << 30, "61.0 GiB"},
		{"negative", -3 << 20, "-3.0 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatBytes(tt.n); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSamplerThreadEvery(t *testing.T) {
	fsys := writeTree(t,
		fakeProc{pid: 600, ppid: 1, pgrp: 600, sid: 600, comm: "rank", state: 'S', threads: "SSD"},
	)
	now := t0
	s := NewSampler(fsys, 600)
	s.Now = func() time.Time { return now }
	s.ThreadEvery = 5 * time.Second
	setThreads := func(states string) {
		if err := removeAll(fsys.Root + "/600/task"); err != nil {
			t.Fatal(err)
		}
		for i := range len(states) {
			mustWrite(t, fsys.Root+"/600/task/"+strconv.Itoa(600+i)+"/stat",
				statLine(600+i, "rank", states[i], 1, 600, 600, 0, 0, len(states), 0))
		}
	}
	steps := []struct {
		name        string
		after       time.Duration
		states      string // threads on disk before the sample
		want        ThreadStates
		wantCounted time.Time
	}{
		{"first sample counts", 0, "SSD", ThreadStates{Sleeping: 2, DiskWait: 1}, t0},
		{"1s later reuses the count", time.Second, "SSS", ThreadStates{Sleeping: 2, DiskWait: 1}, t0},
		{"4s later still reuses", 3 * time.Second, "SSS", ThreadStates{Sleeping: 2, DiskWait: 1}, t0},
		{"5s later counts again", time.Second, "SSS", ThreadStates{Sleeping: 3}, t0.Add(5 * time.Second)},
	}
	for _, st := range steps {
		now = now.Add(st.after)
		setThreads(st.states)
		cur, _, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if got := cur.Procs[0].Threads; got != st.want {
			t.Errorf("%s: got %v, want %v", st.name, got, st.want)
		}
		if !cur.ThreadsAt.Equal(st.wantCounted) {
			t.Errorf("%s: got counted at %v, want %v", st.name, cur.ThreadsAt, st.wantCounted)
		}
	}
}

func TestParseSchedstat(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want time.Duration
		ok   bool
	}{
		{"kernel line", "769618 19805 2\n", 19805 * time.Nanosecond, true},
		{"long wait", "12000000000 4500000000 310\n", 4500 * time.Millisecond, true},
		{"one field", "769618\n", 0, false},
		{"not a number", "769618 x 2\n", 0, false},
		{"empty", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseSchedstat([]byte(tt.in))
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %v %v, want %v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestDiffWaited(t *testing.T) {
	proc := func(pid int, waited time.Duration) Proc {
		return Proc{PID: pid, Start: time.Second, Waited: waited, HasWaited: true}
	}
	tests := []struct {
		name      string
		prev, cur []Proc
		want      time.Duration
	}{
		{"the longest wait of one process", []Proc{proc(1, time.Second), proc(2, 0)},
			[]Proc{proc(1, 1300*time.Millisecond), proc(2, 700*time.Millisecond)}, 700 * time.Millisecond},
		{"never more than the interval", []Proc{proc(1, 0)}, []Proc{proc(1, 5*time.Second)}, time.Second},
		{"a new process counts from its start", nil, []Proc{proc(3, 400*time.Millisecond)}, 400 * time.Millisecond},
		{"unknown waits count nothing", []Proc{{PID: 1, Start: time.Second}}, []Proc{{PID: 1, Start: time.Second}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Diff(Sample{At: t0, Procs: tt.prev}, Sample{At: t0.Add(time.Second), Procs: tt.cur})
			if d.Waited != tt.want {
				t.Errorf("got waited %v, want %v", d.Waited, tt.want)
			}
		})
	}
}

// The run-queue wait of a process is all its threads' together: a Go
// program's main thread may sleep while a worker thread waits for a CPU.
func TestWaitedSumsThreads(t *testing.T) {
	fsys := writeTree(t, fakeProc{pid: 100, ppid: 1, pgrp: 100, sid: 100, comm: "player", state: 'S', threads: "SR"})
	mustWrite(t, filepath.Join(fsys.Root, "100", "schedstat"), "1000 5 1\n")
	mustWrite(t, filepath.Join(fsys.Root, "100", "task", "100", "schedstat"), "1000 5 1\n")
	mustWrite(t, filepath.Join(fsys.Root, "100", "task", "101", "schedstat"), "9000 700000000 3\n")
	s, err := fsys.Sample([]int{100})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.Proc(100)
	if !p.HasWaited || p.Waited != 700000005 {
		t.Errorf("got waited %v (known %v), want the threads' 700000005ns", p.Waited, p.HasWaited)
	}
}
