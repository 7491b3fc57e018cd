package journal

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vigil/internal/logline"
)

// fakeJournalctl stands in for journalctl. It records its arguments in
// $FAKE_ARGS and its PID in $FAKE_PID, prints $FAKE_JOURNAL, and then, by
// $FAKE_MODE: exits ("" ), keeps running until killed ("follow"), or
// fails ("fail").
const fakeJournalctl = `#!/bin/sh
printf '%s\n' "$@" > "$FAKE_ARGS"
echo $$ > "$FAKE_PID"
if [ "$FAKE_MODE" = fail ]; then
	echo "Failed to open journal: Permission denied" >&2
	exit 1
fi
cat "$FAKE_JOURNAL"
if [ "$FAKE_MODE" = follow ]; then
	exec sleep 30
fi
`

// fake puts a script named name on PATH for the rest of the test.
func fake(t *testing.T, name, script string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

type fakeRun struct {
	args, pid string
}

// setupJournalctl installs the fake journalctl printing journal.
func setupJournalctl(t *testing.T, journal, mode string) fakeRun {
	t.Helper()
	fake(t, "journalctl", fakeJournalctl)
	dir := t.TempDir()
	r := fakeRun{args: filepath.Join(dir, "args"), pid: filepath.Join(dir, "pid")}
	t.Setenv("FAKE_ARGS", r.args)
	t.Setenv("FAKE_PID", r.pid)
	t.Setenv("FAKE_JOURNAL", journal)
	t.Setenv("FAKE_MODE", mode)
	return r
}

func (r fakeRun) argv(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(r.args)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func (r fakeRun) processID(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(r.pid)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestFollowRecorded(t *testing.T) {
	start := time.Unix(1763000000, 999_000_000)
	tests := []struct {
		name     string
		opts     Options
		wantArgs []string
		want     []string
	}{
		{
			name:     "new entries only",
			opts:     Options{},
			wantArgs: []string{"-n", "0"},
			want:     messages(recorded(t, Options{})),
		},
		{
			name:     "current activation since its start",
			opts:     Options{Since: start, InvocationID: currentRun},
			wantArgs: []string{"--since", "@1763000000", "--no-tail"},
			want:     currentMessages(),
		},
		{
			name:     "user unit",
			opts:     Options{User: true},
			wantArgs: []string{"-n", "0"},
			want:     messages(recorded(t, Options{})),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := setupJournalctl(t, filepath.Join(mustAbs(t, "testdata"), "sglang.json"), "")
			var got []Entry
			if err := Follow(t.Context(), "sglang.service", tt.opts, func(e Entry) { got = append(got, e) }); err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if !slices.Equal(messages(got), tt.want) {
				t.Errorf("got messages %q, want %q", abbrev(messages(got)), abbrev(tt.want))
			}
			unitFlag := "-u"
			if tt.opts.User {
				unitFlag = "--user-unit"
			}
			wantArgs := append([]string{unitFlag, "sglang.service", "-o", "json", "-f", "--no-pager", "--all",
				"--output-fields=MESSAGE,_PID,PRIORITY,__REALTIME_TIMESTAMP,_SYSTEMD_INVOCATION_ID,INVOCATION_ID,_COMM,_LINE_BREAK"},
				tt.wantArgs...)
			if got := run.argv(t); !slices.Equal(got, wantArgs) {
				t.Errorf("got journalctl args %q, want %q", got, wantArgs)
			}
		})
	}
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func TestFollowCancel(t *testing.T) {
	run := setupJournalctl(t, filepath.Join(mustAbs(t, "testdata"), "sglang.json"), "follow")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var mu sync.Mutex
	var got []string
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, "sglang.service", Options{InvocationID: currentRun}, func(e Entry) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, e.Message)
		})
	}()
	want := currentMessages()
	deadline := time.Now().Add(time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == len(want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %d entries before the deadline, want %d", n, len(want))
		}
		time.Sleep(2 * time.Millisecond)
	}

	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got error %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Follow did not return after its context ended")
	}
	// journalctl was stopped and reaped, not left behind.
	if err := syscall.Kill(run.processID(t), 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("got %v signalling the fake journalctl, want ESRCH (gone)", err)
	}
}

func TestFollowJoinWait(t *testing.T) {
	// The first part of a split line arrives, the rest does not: after
	// JoinWait it is handed out, marked Continued.
	dir := t.TempDir()
	journal := filepath.Join(dir, "part.json")
	if err := os.WriteFile(journal, []byte(`{"MESSAGE":"`+strings.Repeat("p", LineMax)+`","_PID":"5"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	setupJournalctl(t, journal, "follow")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	got := make(chan Entry, 1)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, "x.service", Options{JoinWait: 20 * time.Millisecond}, func(e Entry) { got <- e })
	}()
	select {
	case e := <-got:
		if len(e.Message) != LineMax || !e.Continued {
			t.Errorf("got %d bytes, Continued %v; want %d bytes, Continued true", len(e.Message), e.Continued, LineMax)
		}
	case <-time.After(time.Second):
		t.Fatal("the held entry was not handed out")
	}
	cancel()
	<-done
}

func TestFollowErrors(t *testing.T) {
	t.Run("journalctl fails", func(t *testing.T) {
		setupJournalctl(t, "/dev/null", "fail")
		err := Follow(t.Context(), "x.service", Options{}, func(Entry) {})
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) || !strings.Contains(err.Error(), "Permission denied") {
			t.Errorf("got error %v, want an exit error with journalctl's message", err)
		}
	})
	t.Run("no journalctl", func(t *testing.T) {
		err := Follow(t.Context(), "x.service", Options{Journalctl: "vigil-test-no-such-journalctl"}, func(Entry) {})
		if !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("got error %v, want exec.ErrNotFound", err)
		}
	})
	t.Run("unit looks like a flag", func(t *testing.T) {
		if err := Follow(t.Context(), "--merge", Options{}, func(Entry) {}); err == nil {
			t.Error("got nil error, want one")
		}
	})
	t.Run("bad lines are skipped", func(t *testing.T) {
		journal := filepath.Join(t.TempDir(), "bad.json")
		os.WriteFile(journal, []byte("garbage\n{\"MESSAGE\":\"ok\"}\n\n{\"MESSAGE\":[300]}\n"), 0o644)
		setupJournalctl(t, journal, "")
		var warnings int
		var got []string
		err := Follow(t.Context(), "x.service", Options{Warn: func(error) { warnings++ }}, func(e Entry) { got = append(got, e.Message) })
		if err != nil || !slices.Equal(got, []string{"ok"}) || warnings != 2 {
			t.Errorf("got %q, %d warnings, error %v; want [ok], 2 warnings, nil", got, warnings, err)
		}
	})
}

func TestLines(t *testing.T) {
	at := time.Unix(1763000000, 0)
	tests := []struct {
		name string
		in   []Entry
		want []logline.Line
	}{
		{
			name: "tqdm redraws",
			in:   []Entry{{Message: "a 1%\ra 50%\ra 100%\r", PID: 1, Time: at}, {Message: "done", PID: 1, Time: at}},
			want: []logline.Line{
				{Text: "a 1%", CR: true, Offset: 0, At: at},
				{Text: "a 50%", CR: true, Offset: 5, At: at},
				{Text: "a 100%", CR: true, Offset: 11, At: at},
				{Text: "done", Offset: 19, At: at},
			},
		},
		{
			name: "continued entry",
			in:   []Entry{{Message: "first half ", PID: 1, Continued: true, Time: at}, {Message: "second half", PID: 1, Time: at}},
			want: []logline.Line{{Text: "first half second half", At: at}},
		},
		{
			name: "continued, but another PID speaks",
			in:   []Entry{{Message: "cut", PID: 1, Continued: true, Time: at}, {Message: "other", PID: 2, Time: at}},
			want: []logline.Line{{Text: "cut", At: at}, {Text: "other", Offset: 3, At: at}},
		},
		{
			name: "empty and multi-line messages",
			in:   []Entry{{Message: "", Time: at}, {Message: "x\ny", Time: at}},
			want: []logline.Line{{Text: "", At: at}, {Text: "x", Offset: 1, At: at}, {Text: "y", Offset: 3, At: at}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Lines
			var got []logline.Line
			for _, e := range tt.in {
				l.Write(e, func(x logline.Line) { got = append(got, x) })
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLinesPending(t *testing.T) {
	var l Lines
	l.Write(Entry{Message: "50% |#####", Continued: true}, func(logline.Line) { t.Error("got a line, want none yet") })
	p, ok := l.Pending()
	if !ok || p.Text != "50% |#####" || !p.Partial {
		t.Errorf("got pending %+v, %v; want the partial progress bar", p, ok)
	}
}
