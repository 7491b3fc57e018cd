package follow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A log that only exists as a stream (`kubectl logs -f POD | vigil watch
// --log -`, a FIFO) cannot be re-read or seeked, yet attaching needs to cut
// the backlog into runs and the follower reads a file. A [Spool] copies the
// stream, byte for byte, into a private file as it arrives; that file is
// then cut and followed like any log.

// IsStream reports whether path names a log that can only be read as a
// stream: "-" (standard input), a FIFO, a socket or a character device
// (/dev/stdin of a pipe resolves to one of these).
func IsStream(path string) bool {
	if path == "-" {
		return true
	}
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	return fi.Mode()&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeCharDevice) != 0
}

// OpenStream opens a stream so that reading it can be interrupted by
// closing it. "-" is in (standard input, not closed by the caller's
// Close: a copy of its descriptor is read). A FIFO is opened without
// blocking for a writer; it waits up to writerWait for one and fails
// when none comes, rather than waiting in open() where neither a timeout
// nor a signal can reach it.
func OpenStream(path string, in io.Reader, writerWait time.Duration) (io.ReadCloser, error) {
	if path == "-" {
		f, ok := in.(*os.File)
		if !ok {
			return io.NopCloser(in), nil
		}
		return pollable(f)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeNamedPipe == 0 {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return pollable(f)
	}
	// O_NONBLOCK: open returns at once, and the poller then makes reads
	// wait for data and Close wake them.
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	head, ok := waitWriter(f, writerWait)
	if !ok {
		f.Close()
		return nil, fmt.Errorf("a FIFO that no process writes (waited %v)", writerWait)
	}
	return prefixed{Reader: io.MultiReader(bytes.NewReader(head), f), Closer: f}, nil
}

type prefixed struct {
	io.Reader
	io.Closer
}

// waitWriter waits for a writer on a FIFO opened without blocking: a
// non-blocking read sees end of file while there is none, EAGAIN when one
// is there but quiet, or data (returned, so no byte is lost).
func waitWriter(f *os.File, wait time.Duration) ([]byte, bool) {
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, true
	}
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(wait)
	for {
		var n int
		var rerr error
		if err := sc.Control(func(fd uintptr) { n, rerr = unix.Read(int(fd), buf) }); err != nil {
			return nil, true
		}
		switch {
		case n > 0:
			return buf[:n], true
		case rerr != nil:
			// EAGAIN: a writer, no data yet; any other error is for Read
			// to report.
			return nil, true
		}
		if time.Now().After(deadline) {
			return nil, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pollable returns a copy of f's descriptor in non-blocking mode, which the
// runtime's poller takes, so that Close interrupts a Read that waits.
func pollable(f *os.File) (io.ReadCloser, error) {
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil, fmt.Errorf("dup: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("set non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// Spool copies a stream into a file.
type Spool struct {
	w io.Writer

	mu      sync.Mutex
	n       int64
	last    time.Time
	ended   bool
	err     error
	changed chan struct{} // closed and replaced on every write and at the end
}

// NewSpool returns a spool writing to w.
func NewSpool(w io.Writer) *Spool {
	return &Spool{w: w, changed: make(chan struct{})}
}

// Run copies r into the spool's writer until r ends, fails, or ctx ends
// (the caller then closes r to wake a read that waits). Every byte read is
// written before Run returns.
func (s *Spool) Run(ctx context.Context, r io.Reader) error {
	buf := make([]byte, chunkSize)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			if _, err := s.w.Write(buf[:n]); err != nil {
				s.finish(fmt.Errorf("spool: %w", err))
				return s.Err()
			}
			s.mu.Lock()
			s.n += int64(n)
			s.last = time.Now()
			s.wake()
			s.mu.Unlock()
		}
		if rerr != nil {
			if errors.Is(rerr, io.EOF) || ctx.Err() != nil {
				rerr = nil
			}
			s.finish(rerr)
			return s.Err()
		}
	}
}

func (s *Spool) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Spool) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended, s.err = true, err
	s.wake()
}

// Err is the read or write error that ended the copy, nil for end of
// stream.
func (s *Spool) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Bytes is how many bytes were copied so far, and whether the stream
// ended.
func (s *Spool) Bytes() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, s.ended
}

// Backlog waits until the stream has delivered what it held when it was
// opened: `kubectl logs -f` and `docker logs -f` write the earlier output
// in one burst, then follow. It returns once the stream ended, once it
// has been quiet for quiet after some data, when no data came within
// most, or most after the first data (a stream that never pauses), or
// when ctx ends. The limit counts from the first data, so that a writer
// slow to start (a loaded machine) does not cut the burst short.
func (s *Spool) Backlog(ctx context.Context, quiet, most time.Duration) {
	limit := time.NewTimer(most)
	defer limit.Stop()
	started := false
	for {
		s.mu.Lock()
		ended, n, last, ch := s.ended, s.n, s.last, s.changed
		s.mu.Unlock()
		if ended {
			return
		}
		if n > 0 && !started {
			started = true
			limit.Reset(most)
		}
		var gap <-chan time.Time
		var t *time.Timer
		if n > 0 {
			wait := quiet - time.Since(last)
			if wait <= 0 {
				return
			}
			t = time.NewTimer(wait)
			gap = t.C
		}
		stop := false
		select {
		case <-ch:
		case <-gap:
		case <-limit.C:
			stop = true
		case <-ctx.Done():
			stop = true
		}
		if t != nil {
			t.Stop()
		}
		if stop {
			return
		}
	}
}
