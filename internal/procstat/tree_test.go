package procstat

import (
	"errors"
	"io/fs"
	"slices"
	"testing"
)

func TestTreeFixture(t *testing.T) {
	tests := []struct {
		name string
		fsys FS
		root int
		want []int
	}{
		{"session leader with orphan", fixtureT0, 4100, []int{4100, 4179, 4180, 4181, 4182, 4250}},
		{"later: orphan gone, grandchild new", fixtureT1, 4100, []int{4100, 4179, 4180, 4181, 4182, 4301}},
		{"not a session leader: descendants only", fixtureT1, 4180, []int{4180, 4301}},
		{"parent outside the session misses the orphan", fixtureT0, 4090, []int{4090, 4100, 4179, 4180, 4181, 4182}},
		{"leaf", fixtureT0, 5001, []int{5001}},
		{"init", fixtureT0, 1, []int{1, 812, 3001, 4090, 4100, 4179, 4180, 4181, 4182, 4250, 5001}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.fsys.Tree(tt.root)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTreeEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		procs   []fakeProc
		extra   func(t *testing.T, fsys FS)
		root    int
		want    []int
		wantErr error
	}{
		{
			name: "other sessions only",
			procs: []fakeProc{
				{pid: 1, comm: "init", state: 'S', pgrp: 1, sid: 1},
				{pid: 700, ppid: 1, pgrp: 700, sid: 700, comm: "python3", state: 'S'},
				{pid: 701, ppid: 700, pgrp: 700, sid: 700, comm: "python3", state: 'S'},
				{pid: 800, ppid: 1, pgrp: 800, sid: 800, comm: "other", state: 'S'},
			},
			root: 600, want: nil, wantErr: fs.ErrNotExist,
		},
		{
			name: "orphans of a dead leader",
			procs: []fakeProc{
				{pid: 1, comm: "init", state: 'S', pgrp: 1, sid: 1},
				{pid: 701, ppid: 1, pgrp: 600, sid: 600, comm: "python3", state: 'S'},
				{pid: 702, ppid: 701, pgrp: 600, sid: 600, comm: "python3", state: 'S'},
				{pid: 703, ppid: 1, pgrp: 703, sid: 703, comm: "other", state: 'S'},
			},
			root: 600, want: []int{701, 702},
		},
		{
			name: "child that made its own session is still a descendant",
			procs: []fakeProc{
				{pid: 600, ppid: 1, pgrp: 600, sid: 600, comm: "launcher", state: 'S'},
				{pid: 601, ppid: 600, pgrp: 601, sid: 601, comm: "worker", state: 'S'},
				{pid: 602, ppid: 601, pgrp: 601, sid: 601, comm: "worker", state: 'S'},
			},
			root: 600, want: []int{600, 601, 602},
		},
		{
			name: "comm with spaces and parentheses",
			procs: []fakeProc{
				{pid: 600, ppid: 1, pgrp: 600, sid: 600, comm: "a) (b c", state: 'S'},
				{pid: 601, ppid: 600, pgrp: 600, sid: 600, comm: ") 1 2 3 (", state: 'S'},
			},
			root: 600, want: []int{600, 601},
		},
		{
			name: "vanished, malformed and non-numeric entries are skipped",
			procs: []fakeProc{
				{pid: 600, ppid: 1, pgrp: 600, sid: 600, comm: "launcher", state: 'S'},
				{pid: 601, ppid: 600, pgrp: 600, sid: 600, comm: "worker", state: 'S'},
			},
			extra: func(t *testing.T, fsys FS) {
				mustWrite(t, fsys.Root+"/602/status", "Name: gone\n") // no stat: vanished
				mustWrite(t, fsys.Root+"/603/stat", "603 (bad")
				mustWrite(t, fsys.Root+"/self/stat", statLine(600, "x", 'S', 600, 600, 600, 0, 0, 1, 0))
				mustWrite(t, fsys.Root+"/meminfo", "MemTotal: 1 kB\n")
			},
			root: 600, want: []int{600, 601},
		},
		{
			name: "unknown root",
			procs: []fakeProc{
				{pid: 600, ppid: 1, pgrp: 600, sid: 600, comm: "launcher", state: 'S'},
			},
			root: 9999, wantErr: fs.ErrNotExist,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := writeTree(t, tt.procs...)
			if tt.extra != nil {
				tt.extra(t, fsys)
			}
			got, err := fsys.Tree(tt.root)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got error %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTreeMissingRoot(t *testing.T) {
	_, err := FS{Root: t.TempDir() + "/nope"}.Tree(1)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v, want an error wrapping fs.ErrNotExist", err)
	}
}
