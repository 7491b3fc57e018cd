package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/term"

	"vigil/internal/follow"
)

// A log given as a stream ("-", a pipe, a FIFO, /dev/stdin) is copied into
// a private file as it arrives and judged from there: the backlog the
// stream holds at first (kubectl and docker print the earlier output, then
// follow) is cut into runs like a log file's, and nothing is lost however
// slowly vigil reads.
const (
	// backlogQuiet and backlogMost bound the wait for that first burst.
	backlogQuiet = 200 * time.Millisecond
	backlogMost  = 5 * time.Second
	// fifoWriterWait is how long a FIFO may stay without a writer.
	fifoWriterWait = 2 * time.Second
)

// streamLog is a stream being spooled.
type streamLog struct {
	path   string // the spool file
	dir    string
	src    io.ReadCloser
	file   *os.File
	spool  *follow.Spool
	cancel context.CancelFunc
	g      *errgroup.Group
}

// openStreamLog opens the stream named by log ("-": standard input) and
// starts copying it.
func openStreamLog(ctx context.Context, env *Env, log string) (*streamLog, error) {
	if log == "-" {
		if f, ok := env.IO.In.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return nil, fmt.Errorf("standard input is a terminal: pipe the log in, e.g. kubectl logs -f POD | vigil watch --log -")
		}
		if env.IO.In == nil {
			return nil, fmt.Errorf("no standard input")
		}
	}
	src, err := follow.OpenStream(log, env.IO.In, fifoWriterWait)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "vigil-stream-")
	if err != nil {
		src.Close()
		return nil, fmt.Errorf("a private copy of the stream: %w", err)
	}
	path := filepath.Join(dir, "stream.log")
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		src.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("a private copy of the stream: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &streamLog{path: path, dir: dir, src: src, file: file, spool: follow.NewSpool(file), cancel: cancel}
	s.g, ctx = errgroup.WithContext(ctx)
	s.g.Go(func() error { return s.spool.Run(ctx, src) })
	return s, nil
}

// backlog waits for the stream's first burst.
func (s *streamLog) backlog(ctx context.Context) {
	s.spool.Backlog(ctx, backlogQuiet, backlogMost)
}

// checkHead refuses a stream whose first burst is binary data (gzip piped
// in), as a binary --log file is refused, rather than judging its bytes.
func (s *streamLog) checkHead(name string) error {
	f, err := os.Open(s.path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, _, err = sniffStream(f, name)
	return err
}

// close stops the copy, joins it and removes the private copy.
func (s *streamLog) close() error {
	s.cancel()
	s.src.Close() // wakes a read that waits
	err := s.g.Wait()
	s.file.Close()
	os.RemoveAll(s.dir)
	return err
}

// streamName is how a stream is named to people.
func streamName(log string) string {
	if log == "-" {
		return "standard input"
	}
	return log
}

// spoolState is how much of the stream has been copied and whether it
// ended; a nil stream has neither.
func (s *streamLog) spoolState() (int64, bool) {
	if s == nil {
		return 0, false
	}
	return s.spool.Bytes()
}
