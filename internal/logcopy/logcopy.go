// Package logcopy carries a launched server's output into its log through
// a small process of its own, the copier, so that what the log's
// filesystem refuses (a full disk, a quota) is counted instead of lost
// unseen, and the server never sees the error: a Python server whose
// print raises ENOSPC dies of a full disk.
//
// The copier is vigil's own binary started again under another name (the
// re-exec pattern: this package's init runs it and exits before any main
// or test does, in every binary that links launch). It holds the read end
// of the server's stdout and stderr pipe and nothing else of vigil's: it
// has a process group of its own, ignores the terminal's and the stop
// signals, and ends only when every writer has closed the pipe, so it
// outlives the server to take its last words and outlives vigil, like
// conmon beside a container engine. The server therefore neither dies of
// SIGPIPE nor blocks when vigil is killed. It tells vigil its counts over
// a second pipe, never blocking on it: a report that does not fit is
// dropped, as the next one carries the totals.
package logcopy

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// copierName is the copier's argv[0] (and, through prctl, its comm): what
// ps shows beside the server, and what procfind.CopierComm looks for.
const copierName = "vigil-logcopy"

// copierEnv marks the copier's environment, with its name: a binary
// called vigil-logcopy by chance is not taken for the copier.
const copierEnv = "VIGIL_LOG_COPIER=1"

func init() {
	if len(os.Args) == 1 && os.Args[0] == copierName && os.Getenv("VIGIL_LOG_COPIER") == "1" {
		os.Exit(copyMain())
	}
}

// Loss is what became of the server's output so far.
type Loss struct {
	// Copied is the bytes written to the log; Lost those the log's
	// filesystem refused, Err the first refusal ("no space left on
	// device").
	Copied, Lost int64
	Err          string
}

// tailMax is how much of the output the log refused last the copier
// keeps for vigil: a traceback's worth, the error a full disk would hide.
const tailMax = 64 << 10

// Copier is a started copier, seen from vigil.
type Copier struct {
	cmd *exec.Cmd
	w   *os.File
	// tail is the memory file the copier keeps the refused tail in.
	tail *os.File
	// sync asks for a sync, a byte each; syncs are made one at a time.
	sync   *os.File
	syncMu sync.Mutex
	mu     sync.Mutex
	got    Loss
	// synced counts the copier's answers to sync requests; answered is
	// closed and replaced at each.
	synced   int
	answered chan struct{}
	// ended is closed when the copier has exited; finished says whether it
	// read the pipe to its end (false: it died, and the server's output
	// goes nowhere from then on).
	ended    chan struct{}
	finished bool
}

// unsupported, when set, is why no copier can run on this system.
var unsupported error

// pipeSize is asked for the server's pipe: a burst of output as large as
// this is taken at once even while the copier waits for the disk.
const pipeSize = 1 << 20

// Start starts a copier appending to log (which it gets a descriptor of;
// the caller may close its own). The server is to be given Writer() as
// its stdout and stderr, after which the caller calls CloseWriter.
func Start(log *os.File) (*Copier, error) {
	if unsupported != nil {
		return nil, unsupported
	}
	// Everything opened here is closed if the copier cannot be started;
	// the copier's own ends are closed here once it has them.
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	var ends [3][2]*os.File // output, reports, syncs: read and write ends
	for i := range ends {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, err
		}
		ends[i] = [2]*os.File{r, w}
		opened = append(opened, r, w)
	}
	r, w := ends[0][0], ends[0][1]
	rr, rw := ends[1][0], ends[1][1]
	sr, sw := ends[2][0], ends[2][1]
	setPipeSize(w)
	tail, err := newTailFile()
	if err != nil {
		closeAll()
		return nil, err
	}
	opened = append(opened, tail)
	cmd := &exec.Cmd{
		Path: "/proc/self/exe",
		Args: []string{copierName},
		// GORACE: a race-instrumented build (the tests') would sleep a
		// second at exit, holding up the final count.
		Env:        []string{copierEnv, "GOMAXPROCS=1", "GORACE=atexit_sleep_ms=0"},
		Dir:        "/",
		Stdin:      r,
		Stdout:     log,
		Stderr:     nil, // /dev/null: it has nothing to say there
		ExtraFiles: []*os.File{rw, sr, tail},
		// A group of its own: a signal to vigil's group (a Ctrl-C,
		// timeout(1)'s kill) does not reach it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("starting the log copier: %w", err)
	}
	for _, f := range []*os.File{r, rw, sr} {
		f.Close()
	}
	c := &Copier{cmd: cmd, w: w, sync: sw, tail: tail, ended: make(chan struct{}), answered: make(chan struct{})}
	go c.readReports(rr)
	return c, nil
}

// Writer is the pipe's write end, for the server's stdout and stderr.
func (c *Copier) Writer() *os.File { return c.w }

// CloseWriter closes vigil's copy of the write end, once the server has
// its own (or could not be started): the copier sees the end of the
// output when the server's processes have closed theirs.
func (c *Copier) CloseWriter() { c.w.Close() }

// Pid is the copier's process id.
func (c *Copier) Pid() int { return c.cmd.Process.Pid }

// readReports keeps the latest counts the copier sent until it exits, then
// reaps it.
func (c *Copier) readReports(rr *os.File) {
	defer rr.Close()
	sc := bufio.NewScanner(rr)
	for sc.Scan() {
		l, tag, ok := parseReport(sc.Text())
		if !ok {
			continue
		}
		c.mu.Lock()
		c.got = l
		c.finished = c.finished || tag == "end"
		if tag == "sync" {
			c.synced++
			close(c.answered)
			c.answered = make(chan struct{})
		}
		c.mu.Unlock()
	}
	_ = c.cmd.Wait()
	c.sync.Close()
	close(c.ended)
}

// Sync returns once everything written to the server's output before it
// was called is in the log (or counted as lost), or the copier has ended,
// or ctx ends. It has no clock of its own: a copier waiting for a slow
// disk is waited for, as the server itself would have waited.
func (c *Copier) Sync(ctx context.Context) {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	c.mu.Lock()
	want := c.synced + 1
	c.mu.Unlock()
	if _, err := c.sync.Write([]byte{1}); err != nil {
		return // the copier has ended
	}
	for {
		c.mu.Lock()
		done, answered := c.synced >= want, c.answered
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-answered:
		case <-c.ended:
			return
		case <-ctx.Done():
			return
		}
	}
}

// State is the copier's latest count and where it stands.
type State struct {
	Loss
	// Final: the copier has read the server's output to its end, so
	// nothing more can be lost. Died: it exited before that (killed by
	// someone), so the output goes nowhere from then on. Pid is the
	// copier's.
	Final, Died bool
	Pid         int
	// Refused is the end of what the log refused (at most 64 KiB), as of
	// the copier's last sync or its end: the lines a full disk kept out of
	// the log, the server's last error often among them.
	Refused []byte
}

// State is the latest count.
func (c *Copier) State() State {
	ended := false
	select {
	case <-c.ended:
		ended = true
	default:
	}
	c.mu.Lock()
	st := State{Loss: c.got, Final: c.finished, Died: ended && !c.finished, Pid: c.Pid()}
	c.mu.Unlock()
	if st.Lost > 0 {
		st.Refused = readTail(c.tail)
	}
	return st
}

// frameTail frames the refused tail for the memory file: its length and
// CRC-32, then the bytes.
func frameTail(b []byte) []byte {
	out := make([]byte, 8, 8+len(b))
	binary.LittleEndian.PutUint32(out, uint32(len(b)))
	binary.LittleEndian.PutUint32(out[4:], crc32.ChecksumIEEE(b))
	return append(out, b...)
}

// readTail reads the refused tail from the memory file; nil when there is
// none or the copier was rewriting it (its frame does not check out).
func readTail(f *os.File) []byte {
	buf := make([]byte, 8+tailMax)
	n, _ := f.ReadAt(buf, 0)
	if n < 8 {
		return nil
	}
	size := binary.LittleEndian.Uint32(buf)
	if size > tailMax || int(size) > n-8 {
		return nil
	}
	b := buf[8 : 8+size]
	if crc32.ChecksumIEEE(b) != binary.LittleEndian.Uint32(buf[4:]) {
		return nil
	}
	return b
}

// Wait waits up to d for the copier to end (every process holding the
// server's output has closed it and the copier has written, or counted,
// the rest), and returns its state then.
func (c *Copier) Wait(d time.Duration) State {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.ended:
	case <-t.C:
	}
	return c.State()
}

// report is one line: "lost N copied N[ TAG][ : ERR]". TAG says what
// the report answers: "end" (the output ended: the counts are final) or
// "sync" (a sync request). ERR, the first refusal's text, comes last, as
// it holds spaces.
func report(l Loss, tag string) []byte {
	b := fmt.Appendf(nil, "lost %d copied %d", l.Lost, l.Copied)
	if tag != "" {
		b = append(b, ' ')
		b = append(b, tag...)
	}
	if l.Err != "" {
		b = append(b, " : "...)
		b = append(b, strings.ReplaceAll(l.Err, "\n", " ")...)
	}
	return append(b, '\n')
}

func parseReport(s string) (l Loss, tag string, ok bool) {
	head, errText, _ := strings.Cut(s, " : ")
	f := strings.Fields(head)
	if len(f) < 4 || len(f) > 5 || f[0] != "lost" || f[2] != "copied" {
		return Loss{}, "", false
	}
	lost, e1 := strconv.ParseInt(f[1], 10, 64)
	copied, e2 := strconv.ParseInt(f[3], 10, 64)
	if e1 != nil || e2 != nil || lost < 0 || copied < 0 {
		return Loss{}, "", false
	}
	if len(f) == 5 {
		tag = f[4]
		if tag != "end" && tag != "sync" {
			return Loss{}, "", false
		}
	}
	return Loss{Copied: copied, Lost: lost, Err: errText}, tag, true
}
