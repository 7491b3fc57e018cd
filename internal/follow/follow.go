// Package follow reads a log file that another process is still writing,
// the way `tail -F` does, without losing or repeating a line.
//
// The server writes its output straight into the file, so vigil never sits
// in the server's way: a slow or stopped vigil cannot block it. The price is
// that the file can change under the reader. A [Follower] copes with each
// change a log file sees in practice:
//
//   - the file does not exist yet (Options.WaitForFile);
//   - it is truncated in place (logrotate's copytruncate), including when
//     the writer has already written past the old offset by the time the
//     follower looks again;
//   - it is rotated: renamed away and recreated under the same name (the
//     old file is read to its end before the follower switches, and the
//     switch waits until the new file holds data, because a server whose
//     stdout is the log keeps writing to the old file);
//   - it is deleted (the open file is still read; a file created later
//     under the name is followed from its start).
//
// Changes are noticed through fsnotify on the parent directory and, because
// fsnotify does not work on NFS, SMB, FUSE and the like, also by polling.
// Whichever notices first reads.
//
// Memory use is bounded whatever the file holds: reads go through one
// fixed buffer and [logline.Splitter] keeps at most [logline.MaxLen] bytes
// of a line.
package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"vigil/internal/logline"
)

const (
	// chunkSize is how much one read asks for. Big enough that a burst of
	// output costs few system calls, small enough to live in one buffer.
	chunkSize = 256 << 10
	// chunksPerWake bounds one round of reading (2 MiB), so that a file
	// that grows faster than it is read cannot keep the loop from seeing
	// ctx, Stop or the partial-line timer for long. Reading resumes at
	// once.
	chunksPerWake = 8
	// tailKeep is how many bytes before the offset are remembered to tell
	// a truncated-and-regrown file from one that only grew.
	tailKeep = 64

	defaultPoll         = 250 * time.Millisecond
	defaultPartialAfter = 100 * time.Millisecond
	defaultCoalesce     = 3 * time.Millisecond
)

// Options configures a [Follower]. The zero value follows an existing file
// from its start.
type Options struct {
	// Offset is where reading starts in the file found at start. A
	// negative value (use -1) means the end of the file at start, so that
	// lines of an earlier run already in the file are skipped. An offset
	// past the end is taken as a truncation and reading starts at 0. A
	// file that only appears later is always read from its start.
	Offset int64
	// Poll is the polling period; polling runs alongside fsnotify because
	// fsnotify misses changes on network file systems. Zero means 250ms.
	Poll time.Duration
	// PartialAfter is how long the file must stay quiet with an
	// unterminated last line before that line is reported once as a
	// Partial line, so that a progress bar being redrawn with "\r" is
	// visible. Zero means 100ms; a negative value turns this off.
	PartialAfter time.Duration
	// WaitForFile lets the file not exist yet: the follower waits for it
	// (until ctx ends) instead of failing.
	WaitForFile bool
	// PollOnly turns fsnotify off and relies on polling alone.
	PollOnly bool
	// Coalesce is how long reading waits after the first change fsnotify
	// reports, so that a burst of writes (a traceback, a block of
	// settings, one write per line) is read in one wake-up instead of one
	// per line. It is counted from the first change, so no line waits
	// longer than this. Zero means 3ms; a negative value reads at once.
	Coalesce time.Duration
	// OnEvent, when set, is told about creation, truncation, rotation,
	// removal and read errors. It is called from Run's goroutine, between
	// lines, so it must not block for long.
	OnEvent func(Event)
}

// EventKind says what happened to the followed file.
type EventKind int

const (
	// Created: the file appeared after the follower started waiting.
	Created EventKind = iota + 1
	// Truncated: the file shrank or was rewritten from its start; reading
	// restarts at offset 0.
	Truncated
	// Rotated: the path now names a different file holding data; the
	// old one was read to its end and the new one is read from its start.
	Rotated
	// Removed: the path no longer names the open file (it was deleted,
	// renamed, or replaced by an empty file); the open file is still read.
	Removed
	// ReadError: reading, opening or checking the file failed; the
	// follower keeps trying.
	ReadError
	// PollingOnly: fsnotify could not be used, so only polling notices
	// changes.
	PollingOnly
)

var kindNames = map[EventKind]string{
	Created:     "created",
	Truncated:   "truncated",
	Rotated:     "rotated",
	Removed:     "removed",
	ReadError:   "read_error",
	PollingOnly: "polling_only",
}

// String returns a short snake_case name, fit for JSON events.
func (k EventKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event reports a change to the followed file.
type Event struct {
	Kind EventKind
	// Msg says what happened in words, naming the path.
	Msg string
	// At is when the follower noticed.
	At time.Time
}

// Follower follows one log file. Create it with [New] and call
// [Follower.Run] once.
type Follower struct {
	path string
	opts Options

	off      atomic.Int64
	stop     chan struct{}
	stopOnce sync.Once
}

// New returns a Follower for the file at path.
func New(path string, opts Options) *Follower {
	if opts.Poll <= 0 {
		opts.Poll = defaultPoll
	}
	if opts.PartialAfter == 0 {
		opts.PartialAfter = defaultPartialAfter
	}
	if opts.Coalesce == 0 {
		opts.Coalesce = defaultCoalesce
	}
	return &Follower{path: filepath.Clean(path), opts: opts, stop: make(chan struct{})}
}

// Offset returns the offset in the current file of the next byte to be
// read. It is safe to call from any goroutine while Run runs.
func (f *Follower) Offset() int64 { return f.off.Load() }

// Stop asks Run to read what the file holds now, report its unterminated
// last line as a finished line, and return nil. Call it once the writer has
// exited, so that the server's last words are not lost. It is safe to call
// from any goroutine, more than once, and before Run.
func (f *Follower) Stop() { f.stopOnce.Do(func() { close(f.stop) }) }

// Run follows the file and calls emit for each line, in order, from the
// calling goroutine. It returns nil after [Follower.Stop]; the error of ctx
// when ctx ends first (also wrapping [fs.ErrNotExist] if the file never
// appeared); or an error at once when the file cannot be opened at start,
// including when it does not exist and Options.WaitForFile is false.
func (f *Follower) Run(ctx context.Context, emit func(logline.Line)) error {
	return f.RunBatches(ctx, func(b []logline.Line) {
		for _, l := range b {
			emit(l)
		}
	})
}

// RunBatches is Run handing over the lines of each read at once: emit gets
// every line one read of the file produced (or the lines a truncation, a
// rotation or the end flushed, or a partial line), in order, and owns the
// slice. A consumer on another goroutine then wakes once per read, not
// once per line.
func (f *Follower) RunBatches(ctx context.Context, emit func([]logline.Line)) error {
	r := &runner{f: f, emitBatch: emit, buf: make([]byte, chunkSize), partialAt: -1}
	defer r.close()
	if err := r.openInitial(); err != nil {
		return err
	}

	var events <-chan fsnotify.Event
	var errs <-chan error
	var w *fsnotify.Watcher
	dir := filepath.Dir(f.path)
	if !f.opts.PollOnly {
		var err error
		w, err = fsnotify.NewWatcher()
		if err != nil {
			r.event(PollingOnly, "cannot watch for changes (%v); polling every %v", err, f.opts.Poll)
		} else {
			defer w.Close()
			events, errs = w.Events, w.Errors
			addWatch(w, dir, r)
		}
	}

	tick := time.NewTicker(f.opts.Poll)
	defer tick.Stop()
	// settle fires Coalesce after the first change of a burst; settling is
	// true until then, and until any other reason to read comes.
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	settling := false
	partial := time.NewTimer(time.Hour)
	partial.Stop()
	defer partial.Stop()
	// kick holds a pending "read again now" when a round of reading
	// stopped at its budget rather than at the end of the file.
	kick := make(chan struct{}, 1)

	check := func() {
		if settling {
			settling = false
			settle.Stop()
		}
		before := r.off
		file := r.file
		more := r.check()
		r.flush()
		if more {
			select {
			case kick <- struct{}{}:
			default:
			}
		}
		if f.opts.PartialAfter > 0 && (r.off != before || r.file != file) {
			// Quiet is measured from the last byte read.
			partial.Reset(f.opts.PartialAfter)
		}
	}

	check()
	for {
		select {
		case <-ctx.Done():
			if !r.opened {
				return fmt.Errorf("follow %s: the file never appeared: %w: %w", f.path, fs.ErrNotExist, context.Cause(ctx))
			}
			return ctx.Err()
		case <-f.stop:
			for r.check() {
				r.flush()
			}
			r.sp.Flush(r.emitAt(time.Now()))
			r.flush()
			if !r.opened {
				return fmt.Errorf("follow %s: the file never appeared: %w", f.path, fs.ErrNotExist)
			}
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			relevant := r.relevant(ev)
			// Coalesce a burst of events (one per write) into one read.
		drain:
			for range 1024 {
				select {
				case ev, ok := <-events:
					if !ok {
						events = nil
						break drain
					}
					relevant = relevant || r.relevant(ev)
				default:
					break drain
				}
			}
			switch {
			case !relevant || settling:
			case f.opts.Coalesce > 0:
				settling = true
				settle.Reset(f.opts.Coalesce)
			default:
				check()
			}
		case <-settle.C:
			check()
		case _, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// Typically an overflowed event queue: events were lost,
			// so look for ourselves.
			check()
		case <-kick:
			check()
		case <-tick.C:
			if w != nil && len(w.WatchList()) == 0 {
				addWatch(w, dir, r)
			}
			check()
		case <-partial.C:
			r.reportPartial()
			r.flush()
		}
	}
}

// addWatch watches dir. A directory that does not exist yet (the file will
// appear later) or was removed is retried on every poll tick; any other
// failure, such as running out of inotify watches, is reported once.
func addWatch(w *fsnotify.Watcher, dir string, r *runner) {
	err := w.Add(dir)
	if err == nil || errors.Is(err, fs.ErrNotExist) || r.watchFailed {
		return
	}
	r.watchFailed = true
	r.event(PollingOnly, "cannot watch %s for changes (%v); polling every %v", dir, err, r.f.opts.Poll)
}

// runner is the state of one Run, owned by Run's goroutine.
type runner struct {
	f         *Follower
	emitBatch func([]logline.Line)
	batch     []logline.Line // lines read and not yet handed over
	buf       []byte

	file   *os.File
	fi     os.FileInfo // of file, taken when it was opened
	off    int64       // offset in file of the next byte to read
	sp     logline.Splitter
	opened bool // a file has been opened at some point

	tail    [tailKeep]byte // the bytes just before off ...
	tailLen int            // ... of which this many are known

	gone      bool   // the path no longer names file
	partialAt int64  // splitter offset when a partial line was last emitted
	lastErr   string // last ReadError message, to report each error once

	watchFailed bool // a PollingOnly event about the watch was sent

	// fresh: a truncation or rotation was reported, and the next line
	// emitted is the first of the new content (logline.Line.Fresh).
	fresh bool
}

func (r *runner) close() {
	if r.file != nil {
		r.file.Close()
	}
}

// emit queues a line for the next flush.
func (r *runner) emit(l logline.Line) { r.batch = append(r.batch, l) }

// flush hands the queued lines over.
func (r *runner) flush() {
	if len(r.batch) > 0 {
		b := r.batch
		r.batch = nil
		r.emitBatch(b)
	}
}

func (r *runner) event(k EventKind, format string, args ...any) {
	// The lines read before what is reported are handed over first.
	r.flush()
	if k == Truncated || k == Rotated {
		r.fresh = true
	}
	if r.f.opts.OnEvent != nil {
		r.f.opts.OnEvent(Event{Kind: k, Msg: fmt.Sprintf(format, args...), At: time.Now()})
	}
}

// readError reports a failure once, not on every poll while it lasts.
func (r *runner) readError(err error) {
	if msg := err.Error(); msg != r.lastErr {
		r.lastErr = msg
		r.event(ReadError, "%v", err)
	}
}

func (r *runner) emitAt(at time.Time) func(logline.Line) {
	return func(l logline.Line) {
		l.At = at
		r.out(l)
	}
}

// out emits l, marked Fresh when it is the first line after a truncation
// or rotation.
func (r *runner) out(l logline.Line) {
	l.Fresh, r.fresh = r.fresh, false
	r.emit(l)
}

// relevant reports whether ev may concern the followed file. Once the
// path no longer names the open file, writes to that file are reported
// under whatever name it has now (server.log.1 after a rename), so every
// event in the directory counts.
func (r *runner) relevant(ev fsnotify.Event) bool {
	return r.gone || filepath.Clean(ev.Name) == r.f.path
}

// openInitial opens the file as it is at start.
func (r *runner) openInitial() error {
	file, err := os.Open(r.f.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && r.f.opts.WaitForFile {
			return nil
		}
		return fmt.Errorf("follow: %w", err)
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return fmt.Errorf("follow: %w", err)
	}
	if fi.IsDir() {
		file.Close()
		return fmt.Errorf("follow %s: is a directory", r.f.path)
	}
	start, size := r.f.opts.Offset, fi.Size()
	switch {
	case start < 0:
		start = size
	case start > size:
		r.event(Truncated, "%s holds %d bytes, fewer than the starting offset %d; reading from the start", r.f.path, size, start)
		start = 0
	}
	r.use(file, fi, start)
	// Remember the bytes before the start, so that a truncation that
	// happens before anything new is read is still noticed.
	if n := min(start, tailKeep); n > 0 {
		got, _ := file.ReadAt(r.tail[:n], start-n)
		r.tailLen = got
		if int64(got) != n {
			r.tailLen = 0
		}
	}
	return nil
}

// use makes file the one being read, from offset off.
func (r *runner) use(file *os.File, fi os.FileInfo, off int64) {
	r.file, r.fi, r.off, r.opened = file, fi, off, true
	r.tailLen = 0
	r.gone = false
	r.partialAt = -1
	r.sp.SetOffset(off)
	r.f.off.Store(off)
}

// check reads whatever is new, after dealing with creation, truncation,
// rotation and removal. It reports whether it stopped before the end of
// the file, in which case it should be called again soon.
func (r *runner) check() (more bool) {
	if r.file == nil {
		file, err := os.Open(r.f.path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				r.readError(err)
			}
			return false
		}
		fi, err := file.Stat()
		if err != nil {
			file.Close()
			r.readError(err)
			return false
		}
		r.use(file, fi, 0)
		r.event(Created, "%s appeared", r.f.path)
	}
	r.checkTruncated()
	if r.read() {
		return true
	}
	return r.checkReplaced()
}

// checkTruncated restarts at offset 0 when the open file shrank below the
// offset or no longer holds the bytes last read just before the offset:
// with copytruncate the writer may already have written past the old
// offset again by the time we look, so the size alone can miss it.
func (r *runner) checkTruncated() {
	fi, err := r.file.Stat()
	if err != nil {
		r.readError(err)
		return
	}
	size := fi.Size()
	why := ""
	if size < r.off {
		why = fmt.Sprintf("shrank from %d to %d bytes", r.off, size)
	} else if r.tailLen > 0 {
		var b [tailKeep]byte
		n, _ := r.file.ReadAt(b[:r.tailLen], r.off-int64(r.tailLen))
		if n != r.tailLen || string(b[:n]) != string(r.tail[:r.tailLen]) {
			why = "was rewritten from its start"
		}
	}
	if why == "" {
		return
	}
	// An unterminated last line was real output; keep it rather than
	// letting SetOffset drop it.
	r.sp.Flush(r.emitAt(time.Now()))
	r.event(Truncated, "%s %s; reading it again from the start", r.f.path, why)
	r.use(r.file, r.fi, 0)
}

// read reads from the open file up to its end or the round's budget, and
// reports whether the budget ran out first.
func (r *runner) read() (more bool) {
	for range chunksPerWake {
		n, err := r.file.ReadAt(r.buf, r.off)
		if n > 0 {
			r.sp.Write(r.buf[:n], r.emitAt(time.Now()))
			r.flush() // one batch per read
			r.off += int64(n)
			r.remember(r.buf[:n])
			r.f.off.Store(r.off)
			r.lastErr = "" // a later failure is news again
		}
		if err != nil {
			if err != io.EOF {
				r.readError(err)
			}
			return false
		}
	}
	return true
}

// remember keeps the last tailKeep bytes read.
func (r *runner) remember(b []byte) {
	if len(b) >= tailKeep {
		r.tailLen = copy(r.tail[:], b[len(b)-tailKeep:])
		return
	}
	keep := min(r.tailLen, tailKeep-len(b))
	copy(r.tail[:], r.tail[r.tailLen-keep:r.tailLen])
	r.tailLen = keep + copy(r.tail[keep:], b)
}

// checkReplaced looks at what the path names now. Called only when the
// open file has been read to its end, so that nothing written to the old
// file before a rotation is lost.
//
// A new file at the path is switched to only once it holds data. Until
// then the old file is still read: a server whose stdout was redirected
// to the log never reopens it, so after logrotate renames the log and
// creates an empty one, the server's output still goes to the old file.
func (r *runner) checkReplaced() (more bool) {
	fi, err := os.Stat(r.f.path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.readError(err)
			return false
		}
		if !r.gone {
			r.gone = true
			r.event(Removed, "%s was removed or renamed; still reading the open file", r.f.path)
		}
		return false
	}
	if os.SameFile(fi, r.fi) {
		r.gone = false
		return false
	}
	if fi.Size() == 0 {
		if !r.gone {
			r.gone = true
			r.event(Removed, "%s now names a new, empty file; still reading the old one until the new one is written to", r.f.path)
		}
		return false
	}
	file, err := os.Open(r.f.path)
	if err != nil {
		// Replaced again, or unreadable: keep the old file and retry.
		if !errors.Is(err, fs.ErrNotExist) {
			r.readError(err)
		}
		return false
	}
	nfi, err := file.Stat()
	if err != nil {
		file.Close()
		r.readError(err)
		return false
	}
	// Drain what was written to the old file since the last read.
	for r.read() {
	}
	r.sp.Flush(r.emitAt(time.Now()))
	r.file.Close()
	r.use(file, nfi, 0)
	r.event(Rotated, "%s now names a new file; reading it from the start", r.f.path)
	return r.read()
}

// reportPartial emits the unterminated last line once per quiet spell.
func (r *runner) reportPartial() {
	if r.file == nil || r.sp.Offset() == r.partialAt {
		return
	}
	l, ok := r.sp.Pending()
	if !ok {
		return
	}
	r.partialAt = r.sp.Offset()
	l.At = time.Now()
	r.out(l)
}

// ReadAll reads a finished file or stream to its end and calls emit for
// each line, the unterminated tail included. Offsets count bytes from the
// start of r; At is when the line's bytes were read. It returns nil at EOF,
// or a wrapped error when reading fails, after emitting everything read
// before the failure.
func ReadAll(r io.Reader, emit func(logline.Line)) error {
	var sp logline.Splitter
	buf := make([]byte, chunkSize)
	at := time.Now()
	stamp := func(l logline.Line) {
		l.At = at
		emit(l)
	}
	for {
		n, err := r.Read(buf)
		at = time.Now()
		if n > 0 {
			sp.Write(buf[:n], stamp)
		}
		if err != nil {
			sp.Flush(stamp)
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("read log: %w", err)
		}
	}
}
