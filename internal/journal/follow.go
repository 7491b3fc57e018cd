package journal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	// LineMax is journald's default LineMax: longer lines are split.
	LineMax = 48 << 10
	// MaxMessage bounds a joined message. A longer line is handed out in
	// pieces of at most this size, each but the last marked Continued,
	// so that a 10 MB line cannot blow up memory.
	MaxMessage = 1 << 20
	// maxJSONLine bounds one line of journalctl output. A message of
	// LineMax bytes printed as a byte array takes about 4 bytes a byte.
	maxJSONLine = 8 << 20

	defaultJoinWait = 250 * time.Millisecond
	// stopGrace is how long journalctl gets to exit after SIGTERM before
	// it is killed.
	stopGrace = 2 * time.Second
)

// outputFields are the fields asked of journalctl; it adds __CURSOR,
// __REALTIME_TIMESTAMP, __MONOTONIC_TIMESTAMP and _BOOT_ID itself.
// INVOCATION_ID carries the activation on systemd's own messages about the
// unit ("Main process exited, code=killed"), _LINE_BREAK marks lines that
// journald split.
var outputFields = strings.Join([]string{
	"MESSAGE", "_PID", "PRIORITY", "__REALTIME_TIMESTAMP",
	"_SYSTEMD_INVOCATION_ID", "INVOCATION_ID", "_COMM", "_LINE_BREAK",
}, ",")

// Options configures [Follow] and [UnitInfo]. The zero value follows new
// entries of a system unit with journalctl and systemctl from PATH.
type Options struct {
	// Journalctl is the journalctl command; default "journalctl".
	Journalctl string
	// Systemctl is the systemctl command; default "systemctl".
	Systemctl string
	// User selects the user's service manager (--user-unit, --user).
	User bool
	// Since, when set, makes Follow start with the entries from that
	// time on (`--since @UNIX`); when zero, only entries logged from
	// now on are read (`-n 0`).
	Since time.Time
	// InvocationID, when set, drops entries of other activations of the
	// unit. Entries without an invocation ID are kept.
	InvocationID string
	// LineMax is journald's LineMax setting; default 48K.
	LineMax int
	// JoinWait is how long an entry that journald split is held back
	// waiting for its continuation; default 250ms.
	JoinWait time.Duration
	// Warn, when set, is told about output lines that could not be
	// parsed; they are skipped.
	Warn func(error)
}

func (o Options) journalctl() string {
	if o.Journalctl == "" {
		return "journalctl"
	}
	return o.Journalctl
}

func (o Options) lineMax() int {
	if o.LineMax <= 0 {
		return LineMax
	}
	return o.LineMax
}

func (o Options) joinWait() time.Duration {
	if o.JoinWait <= 0 {
		return defaultJoinWait
	}
	return o.JoinWait
}

func (o Options) warn(err error) {
	if o.Warn != nil {
		o.Warn(err)
	}
}

// checkUnit refuses a name that the commands would take for an option.
func checkUnit(unit string) error {
	if unit == "" || strings.HasPrefix(unit, "-") {
		return fmt.Errorf("invalid unit name %q", unit)
	}
	return nil
}

// journalctlArgs builds journalctl's command line.
func journalctlArgs(unit string, opts Options) []string {
	flag := "-u"
	if opts.User {
		flag = "--user-unit"
	}
	args := []string{flag, unit, "-o", "json", "-f", "--no-pager",
		// Without --all, journalctl prints fields of 4096 bytes or more
		// as null, and a line journald split at 48K would be lost.
		"--all",
		"--output-fields=" + outputFields}
	if opts.Since.IsZero() {
		return append(args, "-n", "0")
	}
	// Whole seconds, rounded down, so the first entry is not missed;
	// --no-tail because -f alone would start with the last 10 entries.
	return append(args, "--since", "@"+strconv.FormatInt(opts.Since.Unix(), 10), "--no-tail")
}

// Follow runs journalctl to follow unit's log and calls emit for each
// entry, in order, from the calling goroutine. It returns ctx's error once
// ctx ends, after stopping journalctl (SIGTERM to its PID, then SIGKILL);
// an error when journalctl cannot start or fails; or nil when journalctl
// exits by itself without an error.
func Follow(ctx context.Context, unit string, opts Options, emit func(Entry)) error {
	if err := checkUnit(unit); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	cmd := exec.CommandContext(ctx, opts.journalctl(), journalctlArgs(unit, opts)...)
	// journalctl is vigil's own child: signal it by its PID only.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = stopGrace
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("journal: start journalctl: %w", err)
	}

	items := make(chan item)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { readItems(stdout, items, done) })

	j := joiner{lineMax: opts.lineMax(), emit: emit}
	hold := time.NewTimer(time.Hour)
	hold.Stop()
	defer hold.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case it, ok := <-items:
			if !ok {
				break loop
			}
			if it.err != nil {
				opts.warn(it.err)
				continue
			}
			if opts.InvocationID != "" && it.e.InvocationID != "" && it.e.InvocationID != opts.InvocationID {
				continue
			}
			j.add(it.e)
			if j.holding() {
				hold.Reset(opts.joinWait())
			} else {
				hold.Stop()
			}
		case <-hold.C:
			j.flush(true)
		}
	}
	// What is held is real output: hand it out before returning.
	j.flush(false)
	close(done)
	// Wait closes our end of the pipe, which ends readItems.
	werr := cmd.Wait()
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if werr != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("journal: journalctl: %w: %s", werr, msg)
		}
		return fmt.Errorf("journal: journalctl: %w", werr)
	}
	return nil
}

// ReadEntries reads recorded `journalctl -o json` output to its end and
// calls emit for each entry, joining split lines as [Follow] does. Lines
// that cannot be parsed are passed to opts.Warn and skipped.
func ReadEntries(r io.Reader, opts Options, emit func(Entry)) error {
	j := joiner{lineMax: opts.lineMax(), emit: emit}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		it, err := nextItem(br)
		if it != nil {
			if it.err != nil {
				opts.warn(it.err)
			} else if opts.InvocationID == "" || it.e.InvocationID == "" || it.e.InvocationID == opts.InvocationID {
				j.add(it.e)
			}
		}
		if err != nil {
			j.flush(false)
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("journal: %w", err)
		}
	}
}

// item is one parsed line of journalctl output, or why it failed.
type item struct {
	e   Entry
	err error
}

// readItems sends the entries read from r until r ends or done is closed.
func readItems(r io.Reader, items chan<- item, done <-chan struct{}) {
	defer close(items)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		it, err := nextItem(br)
		if it != nil {
			select {
			case items <- *it:
			case <-done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// nextItem reads one line, keeping at most maxJSONLine bytes of it, and
// parses it. It returns a nil item for an empty line.
func nextItem(br *bufio.Reader) (*item, error) {
	var long []byte // the line so far, once it spans several buffers
	size := 0
	for {
		frag, err := br.ReadSlice('\n')
		size += len(frag)
		if err == bufio.ErrBufferFull {
			if size <= maxJSONLine {
				long = append(long, frag...)
			}
			continue
		}
		line := frag
		if long != nil {
			if size > maxJSONLine {
				return &item{e: Entry{
					Message:  fmt.Sprintf("[journal entry left out: %d bytes of JSON is too long]", size),
					Priority: -1,
				}}, err
			}
			line = append(long, frag...)
		}
		line = bytesTrimNewline(line)
		if len(line) == 0 {
			return nil, err
		}
		e, perr := Parse(line)
		if perr != nil {
			return &item{err: perr}, err
		}
		return &item{e: e}, err
	}
}

func bytesTrimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// joiner puts back together the entries journald split from one long
// line: consecutive entries of one PID where the earlier one ends because
// of LineMax.
type joiner struct {
	lineMax int
	emit    func(Entry)
	held    Entry
	has     bool
}

func (j *joiner) holding() bool { return j.has }

// continues reports whether journald cut e's line short at LineMax. Newer
// journald says so in _LINE_BREAK; for older ones, a message of exactly
// LineMax bytes is taken as cut.
func (j *joiner) continues(e Entry) bool {
	if e.LineBreak != "" {
		return e.LineBreak == "line-max"
	}
	return len(e.Message) == j.lineMax && !strings.HasSuffix(e.Message, "\n")
}

func (j *joiner) add(e Entry) {
	if j.has {
		if e.PID != j.held.PID {
			// The continuation never came.
			j.flush(false)
		} else if len(j.held.Message)+len(e.Message) > MaxMessage {
			j.flush(true)
		} else {
			j.held.Message += e.Message
			j.held.LineBreak = e.LineBreak
			j.held.Cursor = e.Cursor
			if !j.continues(e) {
				j.flush(false)
			}
			return
		}
	}
	if j.continues(e) {
		j.held, j.has = e, true
		return
	}
	j.emit(e)
}

// flush hands out the held entry, marked as going on in a later entry when
// continued is true.
func (j *joiner) flush(continued bool) {
	if !j.has {
		return
	}
	e := j.held
	e.Continued = continued
	j.held, j.has = Entry{}, false
	j.emit(e)
}

// tailBuffer keeps the last max bytes written to it: enough of
// journalctl's stderr to explain a failure, whatever it prints.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
