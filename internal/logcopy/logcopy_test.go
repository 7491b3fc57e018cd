package logcopy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"vigil/internal/procfind"
)

// startCopier starts a copier into log and hands the test the writer the
// server would get, vigil's copy already closed.
func startCopier(t *testing.T, log *os.File) (*Copier, *os.File) {
	t.Helper()
	c, err := Start(log)
	if err != nil {
		t.Fatal(err)
	}
	w, err := dup(c.Writer())
	c.CloseWriter()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Close()
		if st := c.Wait(10 * time.Second); !st.Final && !st.Died {
			t.Errorf("the copier did not end after its writers closed")
		}
	})
	return c, w
}

// newLog creates an empty log to append to, closed when t ends.
func newLog(t testing.TB) (string, *os.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.log")
	log, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	return path, log
}

func dup(f *os.File) (*os.File, error) {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "server-output"), nil
}

func TestCopiesEveryByteInOrder(t *testing.T) {
	path, log := newLog(t)
	if _, err := log.WriteString("an earlier run\n"); err != nil {
		t.Fatal(err)
	}
	c, w := startCopier(t, log)
	var want bytes.Buffer
	want.WriteString("an earlier run\n")
	// Larger than the pipe and the copier's buffer, in odd sizes.
	for i := range 3000 {
		line := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i%997)
		line = append(line, '\n')
		want.Write(line)
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	st := c.Wait(10 * time.Second)
	l := st.Loss
	if !st.Final {
		t.Fatalf("no final count after the output ended: %+v", st)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the log holds %d bytes, want %d (the same bytes in order)", len(got), want.Len())
	}
	if l.Lost != 0 || l.Err != "" || l.Copied != int64(want.Len()-len("an earlier run\n")) {
		t.Errorf("counts %+v, want %d copied and nothing lost", l, want.Len()-len("an earlier run\n"))
	}
}

func TestCountsWhatTheLogRefuses(t *testing.T) {
	// /dev/full refuses every write with ENOSPC, as a full disk does.
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	c, w := startCopier(t, full)
	var all bytes.Buffer
	for i := range 5000 {
		line := fmt.Appendf(nil, "line %d of the output %s\n", i, bytes.Repeat([]byte("."), i%50))
		all.Write(line)
		if _, err := w.Write(line); err != nil {
			t.Fatalf("the server's write failed: %v (it must never see the log's error)", err)
		}
		if i == 100 {
			// A sync hands over the refused tail as it is then.
			c.Sync(context.Background())
			if st := c.State(); !bytes.Equal(st.Refused, all.Bytes()) {
				t.Errorf("after a sync the refused tail is %d bytes, want the %d written", len(st.Refused), all.Len())
			}
		}
	}
	w.Close()
	st := c.Wait(10 * time.Second)
	l := st.Loss
	if !st.Final {
		t.Fatalf("no final count: %+v", st)
	}
	if l.Lost != int64(all.Len()) || l.Copied != 0 {
		t.Errorf("counts %+v, want all %d bytes lost", l, all.Len())
	}
	if l.Err != "no space left on device" {
		t.Errorf("error %q, want ENOSPC's text", l.Err)
	}
	if want := all.Bytes()[all.Len()-tailMax:]; !bytes.Equal(st.Refused, want) {
		t.Errorf("the refused tail is %d bytes ending %q, want the last %d written", len(st.Refused), lastBytes(st.Refused, 40), tailMax)
	}
}

func lastBytes(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

// A tail caught mid-write, or none at all, reads as none.
func TestReadTailChecksItsFrame(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "tail")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	frame := frameTail([]byte("Traceback (most recent call last):\n"))
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, ""},
		{"whole", frame, "Traceback (most recent call last):\n"},
		{"cut short", frame[:len(frame)-3], ""},
		{"a byte changed", append(append([]byte(nil), frame[:10]...), append([]byte{'X'}, frame[11:]...)...), ""},
		{"too long a length", append([]byte{0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0}, frame[8:]...), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := f.Truncate(0); err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(tc.file, 0); err != nil {
				t.Fatal(err)
			}
			if got := readTail(f); string(got) != tc.want {
				t.Errorf("readTail = %q, want %q", got, tc.want)
			}
		})
	}
}

// The copier ignores the stop and terminal signals and lives in a group
// of its own: it ends with the server's output, not before.
func TestOutlivesStopSignals(t *testing.T) {
	path, log := newLog(t)
	c, w := startCopier(t, log)
	pgid, err := syscall.Getpgid(c.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if pgid != c.Pid() || pgid == syscall.Getpgrp() {
		t.Errorf("the copier is in group %d, want its own (%d), not vigil's (%d)", pgid, c.Pid(), syscall.Getpgrp())
	}
	if _, err := w.WriteString("before\n"); err != nil {
		t.Fatal(err)
	}
	// Once the copier has written the first line it runs its own code (a
	// signal before that finds the runtime's defaults).
	for i := 0; ; i++ {
		if got, _ := os.ReadFile(path); string(got) == "before\n" {
			break
		}
		if i == 1000 {
			t.Fatal("the copier did not copy a line within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE} {
		if err := syscall.Kill(c.Pid(), sig); err != nil {
			t.Fatal(err)
		}
	}
	// A line written after the signals still reaches the log: the copier
	// read it, so it was alive.
	if _, err := w.WriteString("after\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if st := c.Wait(10 * time.Second); !st.Final {
		t.Fatalf("the copier died of a signal: %+v", st)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "before\nafter\n" {
		t.Errorf("log %q", got)
	}
}

func TestReportRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Loss
		tag  string
	}{
		{"nothing yet", Loss{}, ""},
		{"copied", Loss{Copied: 1 << 40}, "end"},
		{"lost with an error", Loss{Copied: 12, Lost: 345, Err: "no space left on device"}, ""},
		{"synced", Loss{Copied: 12, Lost: 345, Err: "no space left on device"}, "sync"},
		{"final loss", Loss{Copied: 1, Lost: 2, Err: "disk quota exceeded"}, "end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := report(tc.l, tc.tag)
			if b[len(b)-1] != '\n' || bytes.Count(b, []byte("\n")) != 1 {
				t.Fatalf("report %q is not one line", b)
			}
			l, tag, ok := parseReport(string(b[:len(b)-1]))
			if !ok || l != tc.l || tag != tc.tag {
				t.Errorf("parseReport(%q) = %+v, %q, %v", b, l, tag, ok)
			}
		})
	}
	for _, bad := range []string{"", "lost", "lost x copied 1", "lost 1 copied -2", "lost 1 copied 2 end more", "lost 1 copied 2 fin", "copied 1 lost 2"} {
		if _, _, ok := parseReport(bad); ok {
			t.Errorf("parseReport(%q) accepted", bad)
		}
	}
}

// A copier killed outright (SIGKILL cannot be ignored) is told from one
// that finished: the server's output goes nowhere from then on.
func TestKilledCopierIsSeen(t *testing.T) {
	_, log := newLog(t)
	c, _ := startCopier(t, log)
	if st := c.State(); st.Final || st.Died {
		t.Fatalf("a running copier's state: %+v", st)
	}
	if err := syscall.Kill(c.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st := c.Wait(10 * time.Second)
	if !st.Died || st.Final {
		t.Errorf("state after SIGKILL: %+v, want died", st)
	}
}

// After Sync, everything written before it is in the log, though the
// writer has not closed its end.
func TestSyncWaitsForWhatThePipeHolds(t *testing.T) {
	path, log := newLog(t)
	c, w := startCopier(t, log)
	want := 0
	for round := range 20 {
		b := bytes.Repeat([]byte{byte('a' + round)}, 1000*(round+1))
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
		want += len(b)
		c.Sync(context.Background())
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != int64(want) {
			t.Fatalf("round %d: after Sync the log holds %d bytes, want %d", round, fi.Size(), want)
		}
	}
	w.Close()
	if st := c.Wait(10 * time.Second); !st.Final {
		t.Fatalf("no final count: %+v", st)
	}
	// A sync after the end returns at once.
	c.Sync(context.Background())
}

// procfind knows the copier by its command name, to see through it to the
// server that writes into its pipe.
func TestProcfindKnowsTheCopiersName(t *testing.T) {
	if copierName != procfind.CopierComm {
		t.Errorf("the copier is named %q, procfind looks for %q", copierName, procfind.CopierComm)
	}
	if len(copierName) > 15 {
		t.Errorf("%q is longer than a comm (15 bytes)", copierName)
	}
}
