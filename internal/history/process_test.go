package history

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// startChild runs this test binary as a recording child process.
func startChild(t *testing.T, path, mode string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VIGIL_HISTORY_CHILD="+mode, "VIGIL_HISTORY_DB="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// TestTwoProcessesWriting: two vigil processes record 200 startups each at
// the same time on one database; all 400 are there.
func TestTwoProcessesWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	a, errA := startChild(t, path, "record:200:a")
	b, errB := startChild(t, path, "record:200:b")
	if err := a.Wait(); err != nil {
		t.Fatalf("child a: %v: %s", err, errA)
	}
	if err := b.Wait(); err != nil {
		t.Fatalf("child b: %v: %s", err, errB)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, tag := range []string{"a", "b"} {
		got, err := s.List(ctx, Filter{Model: tag})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 200 {
			t.Errorf("%s: %d startups, want 200", tag, len(got))
		}
	}
}

// TestKilledWriterLeavesUsableDatabase: a vigil SIGKILLed while recording
// leaves a database that opens without repair, passes integrity_check and
// lists its startups.
func TestKilledWriterLeavesUsableDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	cmd, stderr := startChild(t, path, "loop")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// Wait until it has written a few rows, so the kill lands mid-stream.
	deadline := time.Now().Add(15 * time.Second)
	for {
		if n := countRows(t, path); n >= 100 { // past a WAL checkpoint (1000 pages)
			break
		}
		select {
		case err := <-done:
			t.Fatalf("child ended early: %v: %s", err, stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("child wrote too little in 15 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if w := s.Warnings(); len(w) > 0 {
		t.Errorf("Open had to repair: %v", w)
	}
	var res string
	if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Errorf("integrity_check = %q, %v", res, err)
	}
	got, err := s.List(context.Background(), Filter{})
	if err != nil || len(got) < 100 {
		t.Errorf("List: %d startups, %v; want at least 100", len(got), err)
	}
	if _, err := s.Record(context.Background(), sample("after", 0)); err != nil {
		t.Errorf("Record after the kill: %v", err)
	}
}

// countRows reads the row count through a separate connection, as another
// process would; an error (database not created yet) counts as zero.
func countRows(t *testing.T, path string) int {
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	s, err := Open(path)
	if err != nil {
		return 0
	}
	defer s.Close()
	var n int
	s.db.QueryRow("SELECT count(*) FROM startups").Scan(&n)
	return n
}
