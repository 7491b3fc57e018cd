package procstat

import (
	"strings"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    stat
		wantErr bool
	}{
		{
			name: "recorded scheduler",
			line: "4180 (sglang::schedul) R 4100 4100 4100 0 -1 4194560 250000 0 1200 0 41200 3100 0 0 20 0 6 0 17280245 25769803776 2097152 18446744073709551615 94489280512 0\n",
			want: stat{pid: 4180, ppid: 4100, pgrp: 4100, sid: 4100, comm: "sglang::schedul", state: 'R',
				majflt: 1200, utime: 41200, stime: 3100, threads: 6, start: 17280245, rssPages: 2097152},
		},
		{
			name: "comm with spaces and parentheses",
			line: "77 (a) b (c)) S 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 12 0\n",
			want: stat{pid: 77, ppid: 1, pgrp: 77, sid: 77, comm: "a) b (c)", state: 'S', utime: 5, stime: 6, threads: 1, start: 99, rssPages: 12},
		},
		{name: "truncated", line: "77 (x) S 1 77 77 0 -1 0 0 0 0 0 5 6", wantErr: true},
		{name: "no comm", line: "77 x S 1 77 77", wantErr: true},
		{name: "bad state", line: "77 (x) SS 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 12 0", wantErr: true},
		{name: "bad number", line: "77 (x) S 1 77 77 0 -1 0 0 0 0 0 5x 6 0 0 20 0 1 0 99 0 12 0", wantErr: true},
		{name: "empty", line: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.line), true)
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v, want error %v", err, tt.wantErr)
			}
			if err == nil && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSampleFixture(t *testing.T) {
	s, err := fixtureT0.Sample([]int{4100, 4180, 4181, 4182, 4250, 9999})
	if err != nil {
		t.Fatal(err)
	}
	const GiB = 1 << 30
	const MiB = 1 << 20
	tests := []struct {
		name string
		pid  int
		want Proc
	}{
		{
			name: "launcher",
			pid:  4100,
			want: Proc{PID: 4100, PPID: 4090, PGID: 4100, SID: 4100, Comm: "python3", State: 'S',
				CPU: 27600 * time.Millisecond, RSS: 314572 * 4096,
				IO:    IO{RChar: 412876543, WChar: 1048576, ReadBytes: 35651584, WriteBytes: 4096},
				HasIO: true, MajorFaults: 1200, NumThreads: 4, Threads: ThreadStates{Sleeping: 4}, Start: 172800 * time.Second},
		},
		{
			name: "running scheduler",
			pid:  4180,
			want: Proc{PID: 4180, PPID: 4100, PGID: 4100, SID: 4100, Comm: "sglang::schedul", State: 'R',
				CPU: 443 * time.Second, RSS: 8 * GiB,
				IO:    IO{RChar: 58*GiB + 123*MiB, WChar: 2 * MiB, ReadBytes: 58*GiB + 123*MiB - 300*MiB, WriteBytes: 12 * MiB},
				HasIO: true, MajorFaults: 1200, NumThreads: 6, Threads: ThreadStates{Running: 1, Sleeping: 5}, Start: 172802450 * time.Millisecond},
		},
		{
			name: "scheduler in disk wait",
			pid:  4181,
			want: Proc{PID: 4181, PPID: 4100, PGID: 4100, SID: 4100, Comm: "sglang::schedul", State: 'D',
				CPU: 431 * time.Second, RSS: 8 * GiB,
				IO:    IO{RChar: 58*GiB + 123*MiB, WChar: 2 * MiB, ReadBytes: 58*GiB + 123*MiB - 280*MiB, WriteBytes: 12 * MiB},
				HasIO: true, MajorFaults: 1200, NumThreads: 6, Threads: ThreadStates{DiskWait: 1, Sleeping: 5}, Start: 172802460 * time.Millisecond},
		},
		{
			name: "orphan",
			pid:  4250,
			want: Proc{PID: 4250, PPID: 1, PGID: 4100, SID: 4100, Comm: "ninja", State: 'S',
				CPU: 50 * time.Millisecond, RSS: 2600 * 4096,
				IO:    IO{RChar: 331776, WChar: 2048},
				HasIO: true, MajorFaults: 1200, NumThreads: 1, Threads: ThreadStates{Sleeping: 1}, Start: 172890 * time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := s.Proc(tt.pid)
			if !ok {
				t.Fatalf("got no process %d", tt.pid)
			}
			if got != tt.want {
				t.Errorf("got %+v,\nwant %+v", got, tt.want)
			}
		})
	}
	t.Run("totals", func(t *testing.T) {
		want := Totals{Procs: 5, CPU: (2760 + 44300 + 43100 + 220 + 5) * 10 * time.Millisecond,
			RSS: (314572 + 2*2097152 + 131072 + 2600) * 4096, Threads: ThreadStates{Running: 1, DiskWait: 1, Sleeping: 17}}
		got := s.Total
		got.IO = IO{}
		if got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
}

func TestSampleEdgeCases(t *testing.T) {
	tests := []struct {
		name      string
		procs     []fakeProc
		extra     func(t *testing.T, fsys FS)
		pids      []int
		wantPIDs  []int
		wantErr   string
		wantHasIO bool
	}{
		{
			name:     "no io file is not an error",
			procs:    []fakeProc{{pid: 10, ppid: 1, pgrp: 10, sid: 10, comm: "py", state: 'S'}},
			pids:     []int{10},
			wantPIDs: []int{10},
		},
		{
			name:      "io file read",
			procs:     []fakeProc{{pid: 10, ppid: 1, pgrp: 10, sid: 10, comm: "py", state: 'S', io: "rchar: 5\nwchar: 6\n"}},
			pids:      []int{10},
			wantPIDs:  []int{10},
			wantHasIO: true,
		},
		{
			name: "vanished processes are skipped silently",
			procs: []fakeProc{
				{pid: 10, ppid: 1, pgrp: 10, sid: 10, comm: "py", state: 'S'},
			},
			extra:    func(t *testing.T, fsys FS) { mustWrite(t, fsys.Root+"/11/cmdline", "") },
			pids:     []int{11, 10, 12},
			wantPIDs: []int{10},
		},
		{
			name: "malformed stat is reported, the rest kept",
			procs: []fakeProc{
				{pid: 10, ppid: 1, pgrp: 10, sid: 10, comm: "py", state: 'S'},
			},
			extra:    func(t *testing.T, fsys FS) { mustWrite(t, fsys.Root+"/11/stat", "11 (py) S 1") },
			pids:     []int{10, 11},
			wantPIDs: []int{10},
			wantErr:  "11/stat: malformed stat line",
		},
		{
			name: "no task directory: main state stands for all threads",
			procs: []fakeProc{
				{pid: 10, ppid: 1, pgrp: 10, sid: 10, comm: "py", state: 'S', threads: "SSS"},
			},
			extra: func(t *testing.T, fsys FS) {
				if err := removeAll(fsys.Root + "/10/task"); err != nil {
					t.Fatal(err)
				}
			},
			pids:     []int{10},
			wantPIDs: []int{10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := writeTree(t, tt.procs...)
			if tt.extra != nil {
				tt.extra(t, fsys)
			}
			s, err := fsys.Sample(tt.pids)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("got error %v, want %q", err, tt.wantErr)
			}
			var got []int
			for _, p := range s.Procs {
				got = append(got, p.PID)
				if p.HasIO != tt.wantHasIO {
					t.Errorf("pid %d: got HasIO %v, want %v", p.PID, p.HasIO, tt.wantHasIO)
				}
				if n := p.Threads.Total(); n != 1 && n != 3 {
					t.Errorf("pid %d: got %d threads, want 1 or 3", p.PID, n)
				}
			}
			if len(got) != len(tt.wantPIDs) || (len(got) > 0 && got[0] != tt.wantPIDs[0]) {
				t.Errorf("got pids %v, want %v", got, tt.wantPIDs)
			}
		})
	}
}

func TestThreadStatesString(t *testing.T) {
	tests := []struct {
		name   string
		states string
		want   string
	}{
		{"none", "", "no threads"},
		{"mixed", "RSDSSIZTX?", "1 running, 1 D (I/O wait), 4 sleeping, 1 stopped, 2 zombie, 1 other"},
		{"all sleeping", "SSS", "3 sleeping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ts ThreadStates
			for i := range len(tt.states) {
				ts.Add(tt.states[i])
			}
			if got := ts.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMemInfo(t *testing.T) {
	tests := []struct {
		name    string
		fsys    FS
		want    MemInfo
		wantErr bool
	}{
		{
			name: "recorded 2 TiB host",
			fsys: fixtureT0,
			want: MemInfo{Total: 2113533952 * 1024, Free: 1480012388 * 1024, Available: 1912345600 * 1024},
		},
		{name: "missing", fsys: FS{Root: "testdata/none"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.fsys.MemInfo()
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
