package follow

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestIsStream(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.log")
	fifo := filepath.Join(dir, "a.fifo")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want bool
	}{
		{"-", true}, {fifo, true}, {"/dev/null", true}, {file, false}, {dir, false}, {filepath.Join(dir, "none"), false},
	}
	for _, tt := range tests {
		if got := IsStream(tt.path); got != tt.want {
			t.Errorf("IsStream(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// Every byte of the stream reaches the spool, in order, and the end of
// the stream ends the copy and the wait for the backlog.
func TestSpoolCopiesEveryByte(t *testing.T) {
	var in bytes.Buffer
	for i := range 20000 {
		in.WriteString(strings.Repeat("x", i%97) + "\n")
	}
	want := in.String()
	var out bytes.Buffer
	s := NewSpool(&out)
	if err := s.Run(context.Background(), io.MultiReader(strings.NewReader(want[:1000]), strings.NewReader(want[1000:]))); err != nil {
		t.Fatal(err)
	}
	s.Backlog(context.Background(), time.Hour, time.Hour) // returns at once: the stream ended
	if out.String() != want {
		t.Fatalf("spooled %d bytes, want %d", out.Len(), len(want))
	}
	if n, ended := s.Bytes(); n != int64(len(want)) || !ended {
		t.Errorf("Bytes() = %d, %v; want %d, true", n, ended, len(want))
	}
}

// A FIFO nobody writes to is an error, not a wait in open().
func TestOpenStreamFIFOWithoutWriter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "a.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStream(fifo, nil, 0); err == nil || !strings.Contains(err.Error(), "FIFO that no process writes") {
		t.Fatalf("err = %v, want no process writes to the FIFO", err)
	}
}

// Data a writer put in the FIFO before vigil looked is kept, and closing
// the stream wakes a read that waits for more.
func TestOpenStreamFIFOKeepsEarlyBytesAndCloses(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "a.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			opened <- nil
			return
		}
		_, _ = w.WriteString("first line\n")
		opened <- w
	}()
	r, err := OpenStream(fifo, nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	w := <-opened
	if w == nil {
		t.Fatal("writer could not open the FIFO")
	}
	defer w.Close()
	var out bytes.Buffer
	s := NewSpool(&out)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), r) }()
	s.Backlog(context.Background(), 50*time.Millisecond, 10*time.Second)
	r.Close()
	if err := <-done; err != nil && !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Run: %v", err)
	}
	if out.String() != "first line\n" {
		t.Errorf("spooled %q, want the first line", out.String())
	}
}
