package procstat

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Fixture trees; see testdata/README.md.
var (
	fixtureT0 = FS{Root: "testdata/sglang-tp2-t0", PageSize: 4096}
	fixtureT1 = FS{Root: "testdata/sglang-tp2-t1", PageSize: 4096}
)

// fakeProc is one process of a tree written into a temporary directory.
type fakeProc struct {
	pid, ppid, pgrp, sid int
	comm                 string
	state                byte
	utime, stime         int
	threads              string // thread states, one letter each; "" means the main state
	rssPages             int
	io                   string // contents of io; "" means no io file
}

func statLine(pid int, comm string, state byte, ppid, pgrp, sid, utime, stime, threads, rss int) string {
	return fmt.Sprintf("%d (%s) %c %d %d %d 0 -1 4194304 100 0 0 0 %d %d 0 0 20 0 %d 0 5000 10000000 %d 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
		pid, comm, state, ppid, pgrp, sid, utime, stime, threads, rss)
}

// writeTree writes procs as a /proc tree under a new temporary directory.
func writeTree(t *testing.T, procs ...fakeProc) FS {
	t.Helper()
	root := t.TempDir()
	for _, p := range procs {
		states := p.threads
		if states == "" {
			states = string(p.state)
		}
		dir := filepath.Join(root, fmt.Sprint(p.pid))
		mustWrite(t, filepath.Join(dir, "stat"), statLine(p.pid, p.comm, p.state, p.ppid, p.pgrp, p.sid, p.utime, p.stime, len(states), p.rssPages))
		if p.io != "" {
			mustWrite(t, filepath.Join(dir, "io"), p.io)
		}
		for i := range len(states) {
			tid := p.pid + i
			mustWrite(t, filepath.Join(dir, "task", fmt.Sprint(tid), "stat"),
				statLine(tid, p.comm, states[i], p.ppid, p.pgrp, p.sid, 0, 0, len(states), 0))
		}
	}
	return FS{Root: root, PageSize: 4096}
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sampleAt samples pids from fsys and stamps the sample with at.
func sampleAt(t *testing.T, fsys FS, at time.Time, pids ...int) Sample {
	t.Helper()
	s, err := fsys.Sample(pids)
	if err != nil {
		t.Fatal(err)
	}
	s.At = at
	return s
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func removeAll(path string) error { return os.RemoveAll(path) }
