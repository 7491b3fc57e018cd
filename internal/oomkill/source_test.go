package oomkill

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func logSource(b []byte) Source {
	return SourceFunc(func(context.Context) ([]byte, error) { return b, nil })
}

func failSource(msg string) Source {
	return SourceFunc(func(context.Context) ([]byte, error) { return nil, errors.New(msg) })
}

func TestFinderSearch(t *testing.T) {
	oom := fixture(t, "dmesg-oom.txt")
	clean := fixture(t, "dmesg-selfkill.txt")
	tests := []struct {
		name         string
		sources      []Source
		wantFound    bool
		wantReadable bool
		wantProblems []string
	}{
		{"dmesg has it", []Source{logSource(oom), failSource("unused")}, true, true, nil},
		{"dmesg restricted, journal has it",
			[]Source{failSource("dmesg: exit status 1: dmesg: read kernel buffer failed: Operation not permitted"), logSource(oom)},
			true, true, []string{"dmesg: exit status 1: dmesg: read kernel buffer failed: Operation not permitted"}},
		{"ring buffer wrapped, journal has it", []Source{logSource(clean), logSource(oom)}, true, true, nil},
		{"self-kill: readable, no record", []Source{logSource(clean), logSource(clean)}, false, true, nil},
		{"nothing readable", []Source{failSource("dmesg: not found"),
			logSource([]byte("No journal files were opened due to insufficient permissions.\n"))},
			false, false, []string{"dmesg: not found", "no kernel log lines: No journal files were opened due to insufficient permissions."}},
		{"journal has no entries", []Source{logSource([]byte("-- No entries --\n"))}, false, false,
			[]string{"no kernel log lines: -- No entries --"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Finder{Sources: tt.sources}.Search(t.Context(), Proc{PID: 51207})
			if res.Found != tt.wantFound || res.Readable != tt.wantReadable {
				t.Errorf("got found %v, readable %v, want %v, %v", res.Found, res.Readable, tt.wantFound, tt.wantReadable)
			}
			if !slices.Equal(res.Problems, tt.wantProblems) {
				t.Errorf("got problems %q, want %q", res.Problems, tt.wantProblems)
			}
		})
	}
}

func TestFinderCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	called := false
	src := SourceFunc(func(context.Context) ([]byte, error) { called = true; return nil, nil })
	if _, ok := (Finder{Sources: []Source{src}}).Find(ctx, 1); ok || called {
		t.Errorf("got found %v, source called %v, want false, false", ok, called)
	}
}

func TestAttribute(t *testing.T) {
	const GiB = 1 << 30
	oom := logSource(fixture(t, "dmesg-oom.txt"))
	clean := logSource(fixture(t, "dmesg-selfkill.txt"))
	denied := failSource("dmesg: exit status 1")
	tight := Pressure{TreeRSS: 120 * GiB, MemTotal: 128 * GiB, MemAvailable: GiB}
	roomy := Pressure{TreeRSS: 40 * GiB, MemTotal: 2048 * GiB, MemAvailable: 1900 * GiB}
	tests := []struct {
		name          string
		src           Source
		before        Pressure
		start         time.Duration // the process's start, since boot
		wantHostOOM   bool
		wantSuspected bool
		wantSummary   string
		wantEvidence  int
	}{
		{"OOM record", oom, tight, 0, true, false,
			"the kernel's OOM killer killed pid 51207 (sglang::schedul), anon-rss 58.4 GiB", 4},
		{"OOM record, memory unknown", oom, Pressure{}, 0, true, false,
			"the kernel's OOM killer killed pid 51207 (sglang::schedul), anon-rss 58.4 GiB", 3},
		{"server killed its own tree", clean, roomy, 20 * time.Second, false, false,
			"pid 51207 was killed by SIGKILL but the kernel log has no OOM-kill record of it: not the OOM killer", 1},
		{"no record even with memory tight", clean, tight, 20 * time.Second, false, false,
			"pid 51207 was killed by SIGKILL but the kernel log has no OOM-kill record of it: not the OOM killer", 1},
		{"log starts after the process", clean, roomy, 5 * time.Second, false, false,
			"pid 51207 was killed by SIGKILL; the kernel log has no OOM-kill record of it", 1},
		{"start unknown, memory tight", clean, tight, 0, false, true,
			"pid 51207 was killed by SIGKILL while memory was nearly exhausted; the kernel log does not reach back to its start", 1},
		{"another process OOM-killed since the start", oom, roomy, time.Second, false, false,
			"pid 51208 was killed by SIGKILL; the kernel log has no OOM-kill record of it", 1},
		{"log unreadable, memory exhausted", denied, tight, 20 * time.Second, false, true,
			"pid 51207 was killed by SIGKILL while memory was nearly exhausted; the kernel log could not be read to confirm an OOM kill", 1},
		{"log unreadable, memory fine", denied, roomy, 20 * time.Second, false, false,
			"pid 51207 was killed by SIGKILL; the kernel log could not be read", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pid := 51207
			if strings.HasPrefix(tt.name, "another") {
				pid = 51208
			}
			a := Finder{Sources: []Source{tt.src}}.Attribute(t.Context(), Proc{PID: pid, Start: tt.start}, tt.before)
			if a.HostOOM != tt.wantHostOOM || a.Suspected != tt.wantSuspected {
				t.Errorf("got host_oom %v, suspected %v, want %v, %v", a.HostOOM, a.Suspected, tt.wantHostOOM, tt.wantSuspected)
			}
			if a.Summary != tt.wantSummary {
				t.Errorf("got summary %q, want %q", a.Summary, tt.wantSummary)
			}
			if len(a.Evidence) != tt.wantEvidence {
				t.Errorf("got evidence %q, want %d lines", a.Evidence, tt.wantEvidence)
			}
		})
	}
}

func TestPressure(t *testing.T) {
	const GiB = 1 << 30
	tests := []struct {
		name          string
		p             Pressure
		wantExhausted bool
		wantString    string
	}{
		{"unknown", Pressure{}, false, ""},
		{"little available", Pressure{TreeRSS: 10 * GiB, MemTotal: 100 * GiB, MemAvailable: 4 * GiB}, true,
			"the server's processes held 10.0 GiB of 100.0 GiB host memory (4.0 GiB available) just before"},
		{"tree holds almost all", Pressure{TreeRSS: 95 * GiB, MemTotal: 100 * GiB, MemAvailable: 6 * GiB}, true,
			"the server's processes held 95.0 GiB of 100.0 GiB host memory (6.0 GiB available) just before"},
		{"plenty", Pressure{TreeRSS: 50 * GiB, MemTotal: 100 * GiB, MemAvailable: 45 * GiB}, false,
			"the server's processes held 50.0 GiB of 100.0 GiB host memory (45.0 GiB available) just before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Exhausted(); got != tt.wantExhausted {
				t.Errorf("got exhausted %v, want %v", got, tt.wantExhausted)
			}
			if got := tt.p.String(); got != tt.wantString {
				t.Errorf("got %q, want %q", got, tt.wantString)
			}
		})
	}
}

// fakeCommands makes PATH hold only shell scripts named after the map's keys
// and the tools they need, so a real dmesg or journalctl cannot answer.
func fakeCommands(t *testing.T, scripts map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The scripts need sh, cat and sleep: link those in, nothing else.
	for _, tool := range []string{"sh", "cat", "sleep"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(path, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
}

// TestDefaultSourcesFake runs Find with the real commands replaced by fake
// dmesg and journalctl scripts.
func TestDefaultSourcesFake(t *testing.T) {
	abs := func(name string) string {
		p, err := filepath.Abs(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	journal := `[ "$*" = "-k -o short-monotonic --no-pager -n 2000" ] || { echo "bad args: $*" >&2; exit 2; }
cat '` + abs("journal-oom.txt") + "'\n"
	tests := []struct {
		name      string
		scripts   map[string]string
		timeout   time.Duration
		wantFound bool
	}{
		{"dmesg has the record", map[string]string{"dmesg": "cat '" + abs("dmesg-oom.txt") + "'\n"}, 0, true},
		{"dmesg restricted, journalctl has it", map[string]string{
			"dmesg":      "echo 'dmesg: read kernel buffer failed: Operation not permitted' >&2\nexit 1\n",
			"journalctl": journal}, 0, true},
		{"neither installed", map[string]string{}, 0, false},
		{"self-kill", map[string]string{"dmesg": "cat '" + abs("dmesg-selfkill.txt") + "'\n",
			"journalctl": "cat '" + abs("dmesg-selfkill.txt") + "'\n"}, 0, false},
		{"dmesg hangs", map[string]string{"dmesg": "exec sleep 30\n"}, 300 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakeCommands(t, tt.scripts)
			ctx := t.Context()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			start := time.Now()
			r, ok := Find(ctx, 51207)
			if ok != tt.wantFound {
				t.Fatalf("got found %v, want %v", ok, tt.wantFound)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("got %v, want well under 3s", took)
			}
			if ok && !strings.Contains(r.Line, "Killed process 51207") {
				t.Errorf("got line %q, want the kill line", r.Line)
			}
		})
	}
}
