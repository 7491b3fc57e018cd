package oomkill

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		want   Record
		wantOK bool
	}{
		{
			name: "Linux 6.x",
			line: "[183412.005390] Out of memory: Killed process 51207 (sglang::schedul) total-vm:98765432kB, anon-rss:61234564kB, file-rss:81920kB, shmem-rss:4096kB, UID:0 pgtables:32000kB oom_score_adj:0",
			want: Record{PID: 51207, Comm: "sglang::schedul", TotalVM: 98765432 << 10, AnonRSS: 61234564 << 10,
				FileRSS: 81920 << 10, ShmemRSS: 4096 << 10, Uptime: 183412005390 * time.Microsecond},
			wantOK: true,
		},
		{
			name: "memory cgroup",
			line: "[ 9021.337655] Memory cgroup out of memory: Killed process 2317 (python3) total-vm:81234560kB, anon-rss:66012344kB, file-rss:102400kB, shmem-rss:0kB, UID:1000 pgtables:130000kB oom_score_adj:936",
			want: Record{PID: 2317, Comm: "python3", TotalVM: 81234560 << 10, AnonRSS: 66012344 << 10, FileRSS: 102400 << 10,
				UID: 1000, OOMScoreAdj: 936, Cgroup: true, Uptime: 9021337655 * time.Microsecond},
			wantOK: true,
		},
		{
			name:   "old kernel, no timestamp",
			line:   "Killed process 3178 (python) total-vm:45678900kB, anon-rss:30123456kB, file-rss:0kB, shmem-rss:0kB",
			want:   Record{PID: 3178, Comm: "python", TotalVM: 45678900 << 10, AnonRSS: 30123456 << 10, Uptime: -1},
			wantOK: true,
		},
		{
			name: "journal prefix and a comm with spaces",
			line: "[  77.5] host kernel: Out of memory: Killed process 4242 (Web Content) total-vm:10kB, anon-rss:5kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:-100",
			want: Record{PID: 4242, Comm: "Web Content", TotalVM: 10 << 10, AnonRSS: 5 << 10, OOMScoreAdj: -100,
				Uptime: 77500 * time.Millisecond},
			wantOK: true,
		},
		{name: "reaper", line: "[183412.512004] oom_reaper: reaped process 51207 (sglang::schedul), now anon-rss:0kB, file-rss:0kB, shmem-rss:4096kB"},
		{name: "old kernel's choice line", line: "[ 5211.332110] Out of memory: Kill process 3178 (python) score 912 or sacrifice child"},
		{name: "tasks table", line: "[183412.005144] [  51207]     0 51207 24691358 15308641 32768000        0             0 sglang::schedul"},
		{name: "summary line", line: "[183412.005301] oom-kill:constraint=CONSTRAINT_NONE,task=python3,pid=51207,uid=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Parse(tt.line)
			if ok != tt.wantOK {
				t.Fatalf("got ok %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			tt.want.Line = tt.line
			got.Lines = nil
			if !equalRecord(got, tt.want) {
				t.Errorf("got  %+v,\nwant %+v", got, tt.want)
			}
		})
	}
}

func equalRecord(a, b Record) bool {
	a.Lines, b.Lines = nil, nil
	return a.PID == b.PID && a.Comm == b.Comm && a.TotalVM == b.TotalVM && a.AnonRSS == b.AnonRSS &&
		a.FileRSS == b.FileRSS && a.ShmemRSS == b.ShmemRSS && a.UID == b.UID && a.OOMScoreAdj == b.OOMScoreAdj &&
		a.Cgroup == b.Cgroup && a.Constraint == b.Constraint && a.MemCG == b.MemCG && a.Uptime == b.Uptime && a.Line == b.Line
}

func TestScan(t *testing.T) {
	tests := []struct {
		name           string
		file           string
		proc           Proc
		wantOK         bool
		wantAnonRSS    int64
		wantConstraint string
		wantCgroup     bool
		wantLines      int
	}{
		{name: "global OOM", file: "dmesg-oom.txt", proc: Proc{PID: 51207}, wantOK: true,
			wantAnonRSS: 61234564 << 10, wantConstraint: "CONSTRAINT_NONE", wantLines: 3},
		{name: "global OOM, full process title", file: "dmesg-oom.txt", proc: Proc{PID: 51207, Comm: "sglang::scheduler_TP3"}, wantOK: true,
			wantAnonRSS: 61234564 << 10, wantConstraint: "CONSTRAINT_NONE", wantLines: 3},
		{name: "global OOM, started before the kill", file: "dmesg-oom.txt", proc: Proc{PID: 51207, Start: 183000 * time.Second}, wantOK: true,
			wantAnonRSS: 61234564 << 10, wantConstraint: "CONSTRAINT_NONE", wantLines: 3},
		{name: "other name", file: "dmesg-oom.txt", proc: Proc{PID: 51207, Comm: "python3"}},
		{name: "sibling only in the tasks table", file: "dmesg-oom.txt", proc: Proc{PID: 51204}},
		{name: "journalctl", file: "journal-oom.txt", proc: Proc{PID: 51207}, wantOK: true,
			wantAnonRSS: 61234564 << 10, wantConstraint: "CONSTRAINT_NONE", wantLines: 3},
		{name: "container limit", file: "dmesg-cgroup-oom.txt", proc: Proc{PID: 2317}, wantOK: true,
			wantAnonRSS: 66012344 << 10, wantConstraint: "CONSTRAINT_MEMCG", wantCgroup: true, wantLines: 3},
		{name: "old kernel", file: "dmesg-old-kernel.txt", proc: Proc{PID: 3178}, wantOK: true,
			wantAnonRSS: 30123456 << 10, wantLines: 2},
		{name: "server killed its own tree", file: "dmesg-selfkill.txt", proc: Proc{PID: 51207}},
		{name: "PID reused: old record ignored", file: "dmesg-pid-reused.txt", proc: Proc{PID: 51207, Start: 183000 * time.Second}},
		{name: "PID reused: start unknown", file: "dmesg-pid-reused.txt", proc: Proc{PID: 51207}, wantOK: true,
			wantAnonRSS: 7654320 << 10, wantConstraint: "CONSTRAINT_NONE", wantLines: 2},
		{name: "empty log", file: "", proc: Proc{PID: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []byte
			if tt.file != "" {
				log = fixture(t, tt.file)
			}
			got, ok := Scan(log, tt.proc)
			if ok != tt.wantOK {
				t.Fatalf("got found %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if got.PID != tt.proc.PID || got.AnonRSS != tt.wantAnonRSS || got.Constraint != tt.wantConstraint ||
				got.Cgroup != tt.wantCgroup || len(got.Lines) != tt.wantLines {
				t.Errorf("got pid %d, anon-rss %d, constraint %q, cgroup %v, %d lines; want %d, %d, %q, %v, %d",
					got.PID, got.AnonRSS, got.Constraint, got.Cgroup, len(got.Lines),
					tt.proc.PID, tt.wantAnonRSS, tt.wantConstraint, tt.wantCgroup, tt.wantLines)
			}
			if got.Lines[len(got.Lines)-1] != got.Line {
				t.Errorf("got last evidence line %q, want the kill line %q", got.Lines[len(got.Lines)-1], got.Line)
			}
		})
	}
}

func TestRecordSummary(t *testing.T) {
	tests := []struct {
		name string
		file string
		pid  int
		want string
	}{
		{"host", "dmesg-oom.txt", 51207, "the kernel's OOM killer killed pid 51207 (sglang::schedul), anon-rss 58.4 GiB"},
		{"cgroup", "dmesg-cgroup-oom.txt", 2317, "the kernel's OOM killer (memory cgroup limit) killed pid 2317 (python3), anon-rss 63.0 GiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := Scan(fixture(t, tt.file), Proc{PID: tt.pid})
			if !ok {
				t.Fatal("got no record")
			}
			if got := r.Summary(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
