package follow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vigil/internal/logline"
)

// wait is how long a test waits for something that should happen within
// milliseconds. It only matters when the test is about to fail, and is
// generous because a loaded CI machine running -race is slow.
const wait = 5 * time.Second

// collector records what a Follower reports.
type collector struct {
	mu     sync.Mutex
	lines  []logline.Line
	events []Event
	n      int // complete lines
	// batches counts the hand-overs, when the collector takes batches.
	batches int
}

func (c *collector) emit(l logline.Line) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, l)
	if !l.Partial {
		c.n++
	}
}

func (c *collector) emitBatch(b []logline.Line) {
	c.mu.Lock()
	c.batches++
	c.mu.Unlock()
	for _, l := range b {
		c.emit(l)
	}
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *collector) event(e Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, e)
}

// complete returns the texts of the finished (not Partial) lines.
func (c *collector) complete() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, l := range c.lines {
		if !l.Partial {
			out = append(out, l.Text)
		}
	}
	return out
}

func (c *collector) all() []logline.Line {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.lines)
}

// fresh returns the texts of the lines marked Fresh.
func (c *collector) fresh() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, l := range c.lines {
		if l.Fresh {
			out = append(out, l.Text)
		}
	}
	return out
}

func (c *collector) hasEvent(k EventKind) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.ContainsFunc(c.events, func(e Event) bool { return e.Kind == k })
}

// waitFor fails the test if cond does not become true in time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitLines waits until the complete lines equal want; it fails at once on
// a line that cannot lead there (a lost, repeated or reordered line).
func waitLines(t *testing.T, c *collector, want []string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		got := c.complete()
		if slices.Equal(got, want) {
			return
		}
		if len(got) > len(want) || !slices.Equal(got, want[:len(got)]) || time.Now().After(deadline) {
			t.Fatalf("got lines %s, want %s", show(got), show(want))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func show(s []string) string {
	if len(s) > 12 {
		return fmt.Sprintf("%q ... (%d lines) ... %q", s[:5], len(s), s[len(s)-5:])
	}
	return fmt.Sprintf("%q", s)
}

// start runs a Follower until the test ends. The returned func stops it
// by cancelling its context and returns Run's error.
func start(t *testing.T, path string, opts Options) (*collector, *Follower, func() error) {
	t.Helper()
	c := &collector{}
	opts.OnEvent = c.event
	f := New(path, opts)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- f.RunBatches(ctx, c.emitBatch) }()
	var once sync.Once
	var err error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(wait):
				t.Errorf("Run did not return after its context ended")
			}
		})
		return err
	}
	t.Cleanup(func() { stop() })
	return c, f, stop
}

// modes runs a test with fsnotify (and a poll too slow to matter) and with
// polling alone.
func modes(t *testing.T, test func(t *testing.T, opts Options)) {
	for _, m := range []struct {
		name string
		opts Options
	}{
		{"notify", Options{Poll: 5 * time.Second}},
		{"poll", Options{PollOnly: true, Poll: 10 * time.Millisecond}},
	} {
		t.Run(m.name, func(t *testing.T) { test(t, m.opts) })
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func numbered(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s %d", prefix, i))
	}
	return out
}

func joinLines(lines []string) string { return strings.Join(lines, "\n") + "\n" }

func TestAppend(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		path := filepath.Join(t.TempDir(), "server.log")
		appendFile(t, path, "first\nsecond\n")
		c, f, _ := start(t, path, opts)
		waitLines(t, c, []string{"first", "second"})
		appendFile(t, path, "third\n")
		waitLines(t, c, []string{"first", "second", "third"})

		var offsets []int64
		for _, l := range c.all() {
			offsets = append(offsets, l.Offset)
			if l.At.IsZero() {
				t.Errorf("line %q has no read time", l.Text)
			}
		}
		if want := []int64{0, 6, 13}; !slices.Equal(offsets, want) {
			t.Errorf("got offsets %v, want %v", offsets, want)
		}
		if got := c.fresh(); got != nil {
			t.Errorf("lines %q of a log that only grew are marked fresh", got)
		}
		if got, want := f.Offset(), int64(19); got != want {
			t.Errorf("got Offset() %d, want %d", got, want)
		}
	})
}

func TestStartOffset(t *testing.T) {
	tests := []struct {
		name      string
		offset    int64
		want      []string
		truncated bool
	}{
		{name: "start", offset: 0, want: []string{"old", "new"}},
		{name: "end of file", offset: -1, want: []string{"new"}},
		{name: "middle", offset: 2, want: []string{"d", "new"}},
		{name: "past the end", offset: 100, want: []string{"old", "new"}, truncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "server.log")
			appendFile(t, path, "old\n")
			c, f, _ := start(t, path, Options{Offset: tt.offset, Poll: 10 * time.Millisecond})
			// Wait for the first read before appending, or "new" could
			// already be there when the end of the file is taken.
			waitFor(t, "the first read", func() bool { return f.Offset() == 4 })
			appendFile(t, path, "new\n")
			waitLines(t, c, tt.want)
			if got := c.hasEvent(Truncated); got != tt.truncated {
				t.Errorf("got truncated event %v, want %v", got, tt.truncated)
			}
		})
	}
}

func TestProgressRedraws(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		path := filepath.Join(t.TempDir(), "server.log")
		appendFile(t, path, "")
		c, _, _ := start(t, path, opts)
		appendFile(t, path, "Loading 10%\rLoading 55%\rLoading 100%\r\ndone\n")
		waitLines(t, c, []string{"Loading 10%", "Loading 55%", "Loading 100%", "done"})
		var crs []bool
		for _, l := range c.all() {
			crs = append(crs, l.CR)
		}
		if want := []bool{true, true, true, false}; !slices.Equal(crs, want) {
			t.Errorf("got CR flags %v, want %v", crs, want)
		}
	})
}

func TestPartialTail(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		const after = 20 * time.Millisecond
		opts.PartialAfter = after
		path := filepath.Join(t.TempDir(), "server.log")
		appendFile(t, path, "start\nCapturing graphs 3/8")
		c, _, _ := start(t, path, opts)

		partials := func() []logline.Line {
			var out []logline.Line
			for _, l := range c.all() {
				if l.Partial {
					out = append(out, l)
				}
			}
			return out
		}
		waitFor(t, "a partial line", func() bool { return len(partials()) > 0 })
		time.Sleep(5 * after) // it must not be repeated while nothing changes
		p := partials()
		if len(p) != 1 || p[0].Text != "Capturing graphs 3/8" || p[0].Offset != 6 {
			t.Fatalf("got partial lines %+v, want one %q at offset 6", p, "Capturing graphs 3/8")
		}

		appendFile(t, path, "\rCapturing graphs 8/8\n")
		waitLines(t, c, []string{"start", "Capturing graphs 3/8", "Capturing graphs 8/8"})
		if got := len(partials()); got != 1 {
			t.Errorf("got %d partial lines, want 1", got)
		}
	})
}

func TestPartialDisabled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	appendFile(t, path, "a\nno end")
	c, _, _ := start(t, path, Options{PartialAfter: -1})
	waitLines(t, c, []string{"a"})
	time.Sleep(150 * time.Millisecond)
	if got := len(c.all()); got != 1 {
		t.Errorf("got %d lines, want 1 (no partial line)", got)
	}
}

func TestLateCreation(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		path := filepath.Join(t.TempDir(), "server.log")
		opts.WaitForFile = true
		opts.Offset = -1 // ignored for a file that appears later
		c, _, _ := start(t, path, opts)
		time.Sleep(30 * time.Millisecond)
		appendFile(t, path, "hello\nworld\n")
		waitLines(t, c, []string{"hello", "world"})
		if !c.hasEvent(Created) {
			t.Errorf("got no created event")
		}
	})
}

func TestLateDirectory(t *testing.T) {
	// The directory itself appears later: the watch is added on a poll
	// tick.
	dir := filepath.Join(t.TempDir(), "logs")
	path := filepath.Join(dir, "server.log")
	c, _, _ := start(t, path, Options{WaitForFile: true, Poll: 20 * time.Millisecond})
	time.Sleep(30 * time.Millisecond)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, "up\n")
	waitLines(t, c, []string{"up"})
}

func TestMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.log")

	t.Run("not waiting", func(t *testing.T) {
		err := New(path, Options{}).Run(t.Context(), func(logline.Line) {})
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("got error %v, want one wrapping fs.ErrNotExist", err)
		}
	})
	t.Run("waiting past the deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		err := New(path, Options{WaitForFile: true}).Run(ctx, func(logline.Line) {})
		if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got error %v, want one wrapping fs.ErrNotExist and context.DeadlineExceeded", err)
		}
	})
}

func TestCopyTruncate(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		path := filepath.Join(t.TempDir(), "server.log")
		// The server writes through an O_APPEND descriptor, as with
		// `>> server.log`, so after the truncation it writes at 0.
		w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		before := numbered("before", 0, 50)
		after := numbered("after", 0, 10)
		c, _, _ := start(t, path, opts)
		w.WriteString(joinLines(before))
		waitLines(t, c, before)

		// logrotate copies the file, then truncates it.
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		w.WriteString(joinLines(after))
		waitLines(t, c, append(before, after...))
		if !c.hasEvent(Truncated) {
			t.Errorf("got no truncated event")
		}
		if got, want := c.fresh(), after[:1]; !slices.Equal(got, want) {
			t.Errorf("fresh lines %q, want the first after the truncation, %q", got, want)
		}
	})
}

func TestTruncateRegrowPastOffset(t *testing.T) {
	// Between two looks the file is truncated and written past the old
	// offset again: the size alone cannot show it. Driven step by step,
	// so the follower cannot look in between.
	path := filepath.Join(t.TempDir(), "server.log")
	appendFile(t, path, "old 1\nold 2\n")
	c := &collector{}
	r := &runner{f: New(path, Options{OnEvent: c.event}), emitBatch: c.emitBatch, buf: make([]byte, chunkSize)}
	defer r.close()
	if err := r.openInitial(); err != nil {
		t.Fatal(err)
	}
	r.check()
	if err := os.WriteFile(path, []byte("new line 1\nnew line 2\nnew line 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.check()
	want := []string{"old 1", "old 2", "new line 1", "new line 2", "new line 3"}
	if got := c.complete(); !slices.Equal(got, want) {
		t.Errorf("got lines %q, want %q", got, want)
	}
	if !c.hasEvent(Truncated) {
		t.Errorf("got no truncated event")
	}
}

func TestTruncatedAtStartOffset(t *testing.T) {
	// Attached at the end of the file, then the file is rewritten
	// before anything new was read.
	path := filepath.Join(t.TempDir(), "server.log")
	appendFile(t, path, "previous run 1\nprevious run 2\n")
	c := &collector{}
	r := &runner{f: New(path, Options{Offset: -1, OnEvent: c.event}), emitBatch: c.emitBatch, buf: make([]byte, chunkSize)}
	defer r.close()
	if err := r.openInitial(); err != nil {
		t.Fatal(err)
	}
	r.check()
	if err := os.WriteFile(path, []byte("this run: a longer first line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.check()
	if got, want := c.complete(), []string{"this run: a longer first line"}; !slices.Equal(got, want) {
		t.Errorf("got lines %q, want %q", got, want)
	}
	if got, want := c.fresh(), []string{"this run: a longer first line"}; !slices.Equal(got, want) {
		t.Errorf("fresh lines %q, want %q", got, want)
	}
}

func TestRotation(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		path := filepath.Join(t.TempDir(), "server.log")
		old, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer old.Close()
		c, _, _ := start(t, path, opts)
		first := numbered("old", 0, 20)
		old.WriteString(joinLines(first))
		waitLines(t, c, first)

		// Written just before the rename: the follower has not seen
		// these yet and must read them from the old file.
		late := numbered("late", 0, 5)
		old.WriteString(joinLines(late) + "unterminated")
		if err := os.Rename(path, path+".1"); err != nil {
			t.Fatal(err)
		}
		fresh := numbered("new", 0, 15)
		appendFile(t, path, joinLines(fresh))

		want := slices.Concat(first, late, []string{"unterminated"}, fresh)
		waitLines(t, c, want)
		if !c.hasEvent(Rotated) {
			t.Errorf("got no rotated event")
		}
		if got, want := c.fresh(), fresh[:1]; !slices.Equal(got, want) {
			t.Errorf("fresh lines %q, want the new file's first, %q", got, want)
		}
	})
}

func TestRotationWriterKeepsOldFile(t *testing.T) {
	// logrotate's "create" mode: the log is renamed and an empty one
	// created, but the server, whose stdout is the log, never reopens it.
	modes(t, func(t *testing.T, opts Options) {
		path := filepath.Join(t.TempDir(), "server.log")
		w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		c, _, _ := start(t, path, opts)
		w.WriteString("before\n")
		waitLines(t, c, []string{"before"})

		if err := os.Rename(path, path+".1"); err != nil {
			t.Fatal(err)
		}
		appendFile(t, path, "")
		waitFor(t, "a removed event", func() bool { return c.hasEvent(Removed) })
		w.WriteString("still the old file\n")
		waitLines(t, c, []string{"before", "still the old file"})

		// Now the server reopens its log, as on SIGHUP.
		appendFile(t, path, "reopened\n")
		waitLines(t, c, []string{"before", "still the old file", "reopened"})
		if !c.hasEvent(Rotated) {
			t.Errorf("got no rotated event")
		}
	})
}

func TestDeleteRecreate(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		path := filepath.Join(t.TempDir(), "server.log")
		old, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer old.Close()
		c, _, _ := start(t, path, opts)
		old.WriteString("one\n")
		waitLines(t, c, []string{"one"})

		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "a removed event", func() bool { return c.hasEvent(Removed) })
		// The writer still holds the deleted file: keep reading it.
		old.WriteString("two\n")
		waitLines(t, c, []string{"one", "two"})

		appendFile(t, path, "three\n")
		waitLines(t, c, []string{"one", "two", "three"})
		if !c.hasEvent(Rotated) {
			t.Errorf("got no rotated event")
		}
	})
}

func TestHugeLine(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		path := filepath.Join(t.TempDir(), "server.log")
		const size = 10 << 20
		appendFile(t, path, "start\n"+strings.Repeat("x", size)+"\nafter 1\nafter 2\n")
		c, _, _ := start(t, path, opts)
		waitFor(t, "four lines", func() bool { return c.count() == 4 })
		lines := c.all()
		if got, want := c.complete(), []string{"start", strings.Repeat("x", logline.MaxLen), "after 1", "after 2"}; !slices.Equal(got, want) {
			t.Fatalf("got lines %s, want %s", show(got), show(want))
		}
		if got, want := lines[1].Cut, int64(size-logline.MaxLen); got != want {
			t.Errorf("got Cut %d, want %d", got, want)
		}
		if got, want := lines[2].Offset, int64(6+size+1); got != want {
			t.Errorf("got offset %d after the long line, want %d", got, want)
		}
	})
}

func TestHostileBytes(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{name: "invalid UTF-8", input: "bad \xff\xfe\xc3(\n", want: []string{"bad \xff\xfe\xc3("}},
		{name: "NUL bytes", input: "a\x00b\x00\x00c\n", want: []string{"a\x00b\x00\x00c"}},
		{name: "carriage returns only", input: "1%\r2%\r3%\r", want: []string{"1%", "2%", "3%"}},
		{name: "blank lines", input: "\n\n\n", want: []string{"", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "server.log")
			appendFile(t, path, tt.input)
			c, _, _ := start(t, path, Options{})
			waitLines(t, c, tt.want)
		})
	}
}

func TestBurst(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		path := filepath.Join(t.TempDir(), "server.log")
		appendFile(t, path, "")
		c, _, _ := start(t, path, opts)
		w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		const n = 100_000
		var want []string
		var batch bytes.Buffer
		for i := range n {
			line := fmt.Sprintf("[rank %d] step %06d", i%8, i)
			want = append(want, line)
			batch.WriteString(line + "\n")
			if i%1000 == 999 {
				w.Write(batch.Bytes())
				batch.Reset()
			}
		}
		waitFor(t, "all lines", func() bool { return c.count() >= n })
		if got := c.complete(); !slices.Equal(got, want) {
			t.Fatalf("got lines %s, want %s", show(got), show(want))
		}
	})
}

func TestStop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	appendFile(t, path, "a\n")
	c := &collector{}
	f := New(path, Options{PartialAfter: -1})
	done := make(chan error, 1)
	go func() { done <- f.Run(t.Context(), c.emit) }()
	waitLines(t, c, []string{"a"})
	appendFile(t, path, "b\nlast words")
	f.Stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("got error %v, want nil", err)
		}
	case <-time.After(wait):
		t.Fatal("Run did not return after Stop")
	}
	if got, want := c.complete(), []string{"a", "b", "last words"}; !slices.Equal(got, want) {
		t.Errorf("got lines %q, want %q", got, want)
	}
}

func TestCancelReturnsContextError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	appendFile(t, path, "a\n")
	c, _, stop := start(t, path, Options{})
	waitLines(t, c, []string{"a"})
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Errorf("got error %v, want context.Canceled", err)
	}
}

func TestEventKindString(t *testing.T) {
	if got, want := Rotated.String(), "rotated"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := EventKind(99).String(), "EventKind(99)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

type failingReader struct{ r io.Reader }

var errBroken = errors.New("broken")

func (f failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errBroken
	}
	return n, err
}

func TestReadAll(t *testing.T) {
	tests := []struct {
		name    string
		r       io.Reader
		want    []string
		wantErr error
	}{
		{name: "empty", r: strings.NewReader("")},
		{name: "lines", r: strings.NewReader("a\nb\n"), want: []string{"a", "b"}},
		{name: "unterminated tail", r: strings.NewReader("a\nb"), want: []string{"a", "b"}},
		{name: "progress", r: strings.NewReader("1%\r50%\r100%\r\nok"), want: []string{"1%", "50%", "100%", "ok"}},
		{name: "one byte at a time", r: iotestOneByte("x\r\ny\n"), want: []string{"x", "y"}},
		{name: "read error", r: failingReader{strings.NewReader("a\npartial")}, want: []string{"a", "partial"}, wantErr: errBroken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := ReadAll(tt.r, func(l logline.Line) {
				if l.At.IsZero() {
					t.Errorf("line %q has no read time", l.Text)
				}
				got = append(got, l.Text)
			})
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("got error %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got lines %q, want %q", got, tt.want)
			}
		})
	}
}

// iotestOneByte returns a reader that hands out one byte per Read.
func iotestOneByte(s string) io.Reader { return &oneByte{s: s} }

type oneByte struct{ s string }

func (o *oneByte) Read(p []byte) (int, error) {
	if o.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = o.s[0]
	o.s = o.s[1:]
	return 1, nil
}

// benchFile writes a 200 MB log: mostly ordinary lines, some tqdm redraws.
func benchFile(b *testing.B) (string, int64) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "server.log")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	var size int64
	for i := 0; size < 200<<20; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&buf, "Loading safetensors checkpoint shards: %3d%% Completed | %d/64 [00:%02d<00:40, 1.5it/s]\r", i%100, i%64, i%60)
		} else {
			fmt.Fprintf(&buf, "[2026-11-12 10:00:%02d TP%d] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, mem usage=%d GB\n", i%60, i%8, i%80)
		}
		if buf.Len() > 1<<20 {
			size += int64(buf.Len())
			f.Write(buf.Bytes())
			buf.Reset()
		}
	}
	return path, size
}

func BenchmarkReadAll(b *testing.B) {
	path, size := benchFile(b)
	b.SetBytes(size)
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := ReadAll(f, func(logline.Line) { n++ }); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

func BenchmarkFollow(b *testing.B) {
	path, size := benchFile(b)
	b.SetBytes(size)
	for b.Loop() {
		f := New(path, Options{})
		f.Stop() // read what is there, then return
		n := 0
		if err := f.Run(b.Context(), func(logline.Line) { n++ }); err != nil {
			b.Fatal(err)
		}
		if f.Offset() != size {
			b.Fatalf("got offset %d, want %d", f.Offset(), size)
		}
	}
}

// TestCoalesceBurst checks that lines written one write each, in a burst,
// are read in one wake-up: they carry the time of one read. The window is
// long here so that a slow machine does not split the burst.
func TestCoalesceBurst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	appendFile(t, path, "")
	c, f, _ := start(t, path, Options{Poll: time.Hour, Coalesce: 500 * time.Millisecond, PartialAfter: -1})
	// The first change is noticed only once the directory is watched;
	// until then a line may be read by the initial check.
	appendFile(t, path, "first\n")
	waitFor(t, "the first line", func() bool { return c.count() == 1 })
	c.mu.Lock()
	before := c.batches
	c.mu.Unlock()
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 10 {
		fmt.Fprintf(w, "Traceback line %d\n", i)
	}
	waitFor(t, "the burst", func() bool { return c.count() == 11 })
	lines := c.all()[1:]
	for _, l := range lines[1:] {
		if !l.At.Equal(lines[0].At) {
			t.Fatalf("the burst was read in several wake-ups: %q at %v, %q at %v", lines[0].Text, lines[0].At, l.Text, l.At)
		}
	}
	c.mu.Lock()
	handed := c.batches - before
	c.mu.Unlock()
	if handed != 1 {
		t.Errorf("the burst was handed over in %d batches, want 1", handed)
	}
	if got := f.Offset(); got != int64(len("first\n")+10*len("Traceback line 0\n")) {
		t.Errorf("got offset %d", got)
	}
}
