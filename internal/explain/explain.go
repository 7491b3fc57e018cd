// Package explain judges a finished log offline: it splits the log into
// the runs it holds (a file a server was restarted into holds several),
// feeds each run's lines into its own judge with the times the lines were
// stamped with, and tells for each run its server, phases with durations,
// and how it ended: ready, failed (with cause, evidence and hint), or
// without a verdict (a stall or a timeout can only be suspected offline).
//
// # Runs
//
// A new run starts at a start banner (classify.BannerServer, together with the
// platform lines vLLM prints just before it) unless the banner belongs to
// the run so far (acceptsBanner says when). A process that dies before
// its banner (an import error in its entry point, an argparse error)
// starts a run at its crash block instead (crash.go). A container image's
// own banner ("== CUDA ==" between rules of "=") among the unstamped lines
// just before a start begins that run: a restarted container prints it
// first. Without either, a new run starts after a failure when the stamps
// jump forward by 10 minutes or back by one: a dead server prints nothing,
// so what comes much later is a new process. A ready run is only ended by a
// banner or a crash block: a ready server may idle for hours.
//
// # Offline verdicts
//
// Time comes from the lines' stamps (unstamped lines take the last stamp;
// llama.cpp's default prefix, the time since its process started, is a
// stamp too, without a date: such a run is Relative),
// so the judge settles a fatal error's evidence as it would live. The
// health answers in the server's access log are the judge's probes, and
// its readiness rules are the live ones with judge.LogReadiness's numbers:
// a run is ready at its ready line unless the answers of the next 10 s (or
// 200 lines) say otherwise; a server whose readiness is its health answer
// (vLLM, TensorRT-LLM) is ready once it said it listens and nothing went
// wrong for as long. Once a run has its verdict its further lines are only
// counted.
// Redraws of a progress bar between its first and last state are skipped.
// A generation's answer (bad_output) cannot be judged from a log.
//
// # Speed and memory
//
// The input is read in chunks and never held whole: workers take turns
// reading the next chunk and splitting it into lines without copying them,
// then judge the runs that start inside it in parallel (guessing that a
// chunk's first banner starts a new run), and one goroutine stitches
// chunks together in order: it finishes the run left open by the previous
// chunk with the lines before the guessed start, checks the guess, and
// when it was wrong (rare: a banner inside an early run right at a chunk
// start) judges the rest of the chunk again itself. A few chunks are in
// flight at a time.
package explain

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"time"
	"unsafe"

	"vigil/internal/classify"
	"vigil/internal/judge"
	"vigil/internal/life"
	"vigil/internal/logline"
	"vigil/internal/stamp"
	v "vigil/internal/verdict"
)

// Options configure Read.
type Options struct {
	// Server is the server kind; "" or "auto" detects it from each run.
	Server string
	// Loc is the zone of the servers' local stamps (nil: time.Local).
	Loc *time.Location
	// Now places vLLM's year-less stamps (zero: time.Now()).
	Now time.Time
	// Workers is how many goroutines judge chunks (0: GOMAXPROCS).
	Workers int
	// Service is the compose service the log was narrowed to
	// (OnlyService), named on each run; "" for a log of one stream.
	Service string
}

// Run is one startup found in a log and how it ended.
type Run struct {
	// Index counts runs from 1 in their log (in their service's lines,
	// with Service).
	Index   int
	Service string
	Server  string
	// Start and End are the run's first and last stamps; zero when its
	// lines carry none (Timed is false then). Relative: the stamps are
	// llama.cpp's time since its process started ("0.03.673.355 I "), so
	// Start and End are that far after the zero time, not wall-clock
	// times; durations hold all the same.
	Start, End time.Time
	Timed      bool
	Relative   bool
	// FirstLine is the number of the run's first line, Lines how many it
	// has, Offset where its first line starts.
	FirstLine, Lines, Offset int64
	// Verdict is ready, failed, or "" when the run ended without one;
	// Phase is the phase it reached.
	Verdict  v.Verdict
	Cause    v.Cause
	Phase    v.Phase
	Summary  string
	Hint     string
	Evidence []string
	// RuleID names the catalogue entry behind a failure.
	RuleID string
	Phases []Phase
	// Life is how a ready run's life went after ready (life.go).
	Life *AfterReady
	// Notable are the warnings the run printed that change what the
	// server computes or how fast (classify.NotableRule), whatever its
	// verdict.
	Notable []judge.Notable
}

// Phase is one phase a run went through.
type Phase struct {
	Name  v.Phase
	Start time.Time
	// Seconds is how long it lasted, when the run is timed.
	Seconds float64
	Timed   bool
}

// firstChunkSize is the first chunk's buffer, grown to chunkSize once the
// input fills it. Most logs explain is given are small, and a megabyte
// buffer for a one-line file was what pushed a short run into a garbage
// collection. A variable, so that a test can compare it with one size.
var firstChunkSize = 64 << 10

const (
	chunkSize = 1 << 20
	// inFlight bounds the chunks read but not yet stitched (or, with
	// more workers than that, one per worker).
	inFlight = 4
	// preBannerMax is how many platform lines may precede a banner.
	preBannerMax = 8
	// containerScan is how far before a banner a container image's own
	// banner (with its license text) is looked for.
	containerScan = 24
	// t0Lookahead: a run whose first line carries no stamp starts at the
	// first stamp among its next lines.
	t0Lookahead = 64
	// restartNear and restartPause shape a restart's preamble (preamble).
	restartNear  = 5 * time.Second
	restartPause = 30 * time.Second
	// unitStartMax: systemd's line that it started a unit is the start
	// of the run whose first line comes at most this much later (a
	// server's imports take tens of seconds).
	unitStartMax = 5 * time.Minute
)

// meta is what a worker learns about a line before judging.
type meta struct {
	stamp int64 // Unix ns, 0 when unstamped (once fStamped)
	// banner is 1 + the index in the chunk's banners of the line's banner
	// (a start banner's message, or the error line of a crash block that
	// starts at the line), 0 for none: a meta is 16 bytes, and a chunk
	// has one per line.
	banner int32
	flags  uint16
}

const (
	fBanner  = 1 << iota // a start banner
	fStart               // a possible run start: a banner block's first line (or the platform lines before it)
	fSkip                // a progress bar redraw between its first and last state
	fStamped             // stamp is known (stamps are read lazily)
	fCrash               // a possible run start: a start-up crash block (crash.go); banner holds its error line
	fDied                // the error line that ends a start-up crash block
	fRestart             // a new process: a relative clock dropped back near zero
	fLoose               // a possible run start: lines without the relative clock just before it restarts
	fShort               // the line holds a short banner literal (markShortBanners)
	fClock               // the line carries a relative clock, in stamp until fStamped
	fReplay              // after the line the server replays a child's earlier output (classify.Profile.Replays)
)

// chunk is one read's worth of lines on its way through the pipeline.
type chunk struct {
	buf []byte
	// n is how much of buf was read, base the input's offset of buf[0].
	n     int
	base  int64
	lines []logline.Span
	meta  []meta
	// now places the chunk's year-less stamps (stamp.YearNow of the
	// log's first chunk).
	now time.Time
	// banners holds the texts meta.banner points at.
	banners []string
	// first is the first possible run start in the chunk, or -1.
	first int
	// runs finished inside the chunk and the run open at its end, judged
	// on the guess that first starts a new run.
	runs []*Run
	open *runState
	done chan struct{}
	// free is the worker's that owns the chunk: its buffers are used on
	// one core.
	free chan *chunk
}

// Read judges the log r and calls emit for each run, in order, from one
// goroutine at a time. It returns an error only when reading fails, after
// emitting the runs read so far.
func Read(r io.Reader, opts Options, emit func(*Run)) error {
	o := opts
	if o.Server == "auto" {
		o.Server = ""
	}
	if o.Loc == nil {
		o.Loc = time.Local
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if o.Service != "" {
		all := emit
		emit = func(r *Run) {
			r.Service = o.Service
			all(r)
		}
	}

	// Each worker reads the next chunk itself, in turn, and judges it:
	// the chunk's bytes and lines are then written and read on one core.
	// A reader goroutine handing chunks to the workers made every line
	// cross from one core's cache to the other's (a fifth of a large
	// log's time on two cores). order takes the chunks in input order
	// for the stitcher; each worker owns inFlight/workers chunks, which
	// the stitcher hands back to it when done with them.
	order := make(chan *chunk, inFlight)
	in := &input{r: r, sp: logline.NewCutter(), size: firstChunkSize, order: order, loc: o.Loc, now: o.Now, margin: -1}
	perWorker := max(1, inFlight/workers)
	// The workers end once the input does; Read returns only after all
	// of them.
	var wg sync.WaitGroup
	defer wg.Wait()
	for range workers {
		free := make(chan *chunk, perWorker)
		for range perWorker {
			free <- &chunk{free: free}
		}
		wg.Go(func() {
			st := stamp.NewReader(o.Loc, o.Now)
			own := newOwn()
			for {
				c := <-free
				if !in.next(c) {
					return
				}
				c.judge(&o, st, own)
			}
		})
	}

	n := 0
	out := func(run *Run) {
		n++
		run.Index = n
		if n == 1 && run.FirstLine > 1 {
			// Only empty segments ended by "\r" (dropped, as the live
			// splitter drops them) come before the first run: they are
			// its lines too, so that the runs cover the file.
			run.Lines += run.FirstLine - 1
			run.FirstLine, run.Offset = 1, 0
		}
		emit(run)
	}
	var open *runState
	sp := stamp.NewReader(o.Loc, o.Now)
	own := newOwn()
	for c := range order {
		<-c.done
		open = c.stitch(&o, sp, own, open, out)
		c.runs, c.open = nil, nil
		c.free <- c
	}
	if open != nil {
		open.use(own)
		open.atLogEnd = true
		out(open.finish())
	}
	return in.err
}

// input is the log being read: the workers take turns reading the next
// chunk of it, so that chunks are read and cut in order.
type input struct {
	mu    sync.Mutex
	r     io.Reader
	sp    *logline.Cutter
	size  int   // the next chunk's buffer size
	base  int64 // the offset of the next chunk
	ended bool
	err   error // a read error, once ended
	order chan<- *chunk
	// loc and now place year-less stamps; yearNow is decided by the
	// first chunk, before any is judged, so that every chunk's (and
	// every worker's) stamps agree.
	loc     *time.Location
	now     time.Time
	yearNow time.Time
	// margin is what a paste put before every line (a Markdown code
	// block's indent, a quote's "> "): the first chunk decides it, and
	// every line is read without it (-1: not decided yet).
	margin int
}

// next reads the next chunk with lines into c, splits it into lines and
// hands it to the stitcher (order); it reports false once the input has
// ended. Lines point into c's buffer, which is read into again once the
// chunk is free, so nothing may keep a line's text once its chunk is done
// (what is kept is cloned).
func (in *input) next(c *chunk) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	for !in.ended {
		if c.buf == nil {
			c.buf = make([]byte, in.size)
		}
		n, err := io.ReadFull(in.r, c.buf)
		if err == nil && len(c.buf) < chunkSize {
			// The input outgrew the small first buffer: read on into a
			// whole chunk, so that chunks end where they always do.
			big := make([]byte, chunkSize)
			copy(big, c.buf[:n])
			var more int
			more, err = io.ReadFull(in.r, big[n:])
			n += more
			c.buf, in.size = big, chunkSize
		}
		c.lines = c.lines[:0]
		c.n, c.base = n, in.base
		in.base += int64(n)
		if n > 0 {
			c.lines = in.sp.Split(unsafe.String(&c.buf[0], n), c.lines)
		}
		if err != nil {
			c.lines = in.sp.Flush(c.lines)
			in.ended = true
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				in.err = fmt.Errorf("read log: %w", err)
			}
		}
		if len(c.lines) > 0 {
			if in.margin < 0 {
				in.margin = marginOf(c.lines)
			}
			if in.margin > 0 {
				dedent(c.lines, in.margin)
			}
			if in.yearNow.IsZero() {
				in.yearNow = stamp.YearNow(func(yield func(string) bool) {
					for _, l := range c.lines {
						if !yield(l.Text) {
							return
						}
					}
				}, in.loc, in.now)
			}
			c.now = in.yearNow
			c.done = make(chan struct{})
			in.order <- c
			in.closeOrder()
			return true
		}
		// A chunk inside one long line: nothing to send, and the
		// splitter kept what it needs; the chunk is read into again.
	}
	in.closeOrder()
	return false
}

// pasteMargin reports whether b may be part of what a paste put before
// a log's lines: an indent, a Markdown quote's ">".
func pasteMargin(b byte) bool { return b == ' ' || b == '\t' || b == '>' }

// marginOf is the shortest run of pasteMargin bytes that begins a line
// with more than them: what every line of a pasted log begins with. A
// server's own lines begin at their first column (a traceback's frames
// are indented further than its header).
func marginOf(lines []logline.Span) int {
	m := -1
	for _, l := range lines {
		n := 0
		for n < len(l.Text) && pasteMargin(l.Text[n]) {
			n++
		}
		if n == len(l.Text) {
			continue // blank, or a quote's empty line
		}
		if m < 0 || n < m {
			m = n
		}
		if m == 0 {
			return 0
		}
	}
	return max(m, 0)
}

// dedent takes up to margin pasteMargin bytes off the start of each line.
func dedent(lines []logline.Span, margin int) {
	for i := range lines {
		t := lines[i].Text
		n := 0
		for n < margin && n < len(t) && pasteMargin(t[n]) {
			n++
		}
		lines[i].Text = t[n:]
	}
}

// closeOrder tells the stitcher, once, that no chunk follows.
func (in *input) closeOrder() {
	if in.ended && in.order != nil {
		close(in.order)
		in.order = nil
	}
}

// judge is a worker's part: learn about the lines, then judge the runs
// that start in the chunk on the guess that its first possible start is
// one. st and own are the worker's own.
func (c *chunk) judge(o *Options, st *stamp.Reader, own *owned) {
	defer close(c.done)
	st.SetNow(c.now)
	c.learn(st, own.memo)
	c.first = -1
	for i := range c.meta {
		if c.meta[i].flags&fStart != 0 {
			c.first = i
			break
		}
	}
	if c.first < 0 {
		return
	}
	c.open = c.walk(o, st, own, c.first, len(c.lines), nil, func(r *Run) { c.runs = append(c.runs, r) })
}

// stitch is the in-order part: the open run takes the lines before the
// chunk's first possible start; then the guess is checked.
func (c *chunk) stitch(o *Options, sp *stamp.Reader, own *owned, open *runState, emit func(*Run)) *runState {
	head := len(c.lines)
	if c.first >= 0 {
		head = c.first
	}
	sp.SetNow(c.now)
	open = c.walk(o, sp, own, 0, head, open, emit)
	if c.first < 0 {
		return open
	}
	if open == nil || c.accepts(open, c.first, sp) {
		if open != nil {
			emit(open.finish())
		}
		for _, r := range c.runs {
			emit(r)
		}
		return c.open
	}
	// The guess was wrong: the run goes on through the chunk.
	return c.walk(o, sp, own, c.first, len(c.lines), open, emit)
}

// walk judges lines [from, to) as the continuation of st (nil: a run
// starts at from) and returns the run open at to. sp and own belong to
// the calling goroutine: a run started by a worker may go on in the
// stitcher.
func (c *chunk) walk(o *Options, sp *stamp.Reader, own *owned, from, to int, st *runState, finish func(*Run)) *runState {
	seg := from // where st's lines in this chunk start
	if st != nil {
		st.use(own)
	}
	for i := from; i < to; i++ {
		if st == nil {
			st = newRun(o.Server, &c.lines[i], c.t0(i, sp), own)
			seg = i
		} else if c.accepts(st, i, sp) {
			c.keepTail(st, seg, i, sp)
			c.settle(st, seg, i, sp)
			finish(st.finish())
			st = newRun(o.Server, &c.lines[i], c.t0(i, sp), own)
			seg = i
		}
		if st.replayAt != 0 && !c.replayed(i, st.replayAt, sp) {
			st.replayAt = 0 // the server's own stamps again
		}
		if st.idle() {
			// A ready run only counts its lines; its last stamp is read
			// when it ends or the chunk does. (Its first, too, when it
			// was ready before any: a log that begins mid-serving.)
			st.last = c.lines[i].No
			st.stale = true
			if st.start == 0 {
				if t := c.stamp(i, sp); t != 0 {
					st.stampAt(t)
				}
			}
		} else {
			st.feed(&c.lines[i], &c.meta[i], c.bannerOf(i), c.stamp(i, sp))
		}
		if c.meta[i].flags&fReplay != 0 {
			// (An unstamped one replays from the run's last stamp.)
			st.replayAt = cmp.Or(c.stamp(i, sp), st.end)
		}
	}
	if st != nil {
		c.keepTail(st, seg, to, sp)
		c.settle(st, seg, to, sp)
	}
	return st
}

// stamp is line i's stamp (Unix ns, 0 for none), read on first use. A
// line with llama.cpp's relative clock and no date is stamped with its
// time since the process started (relStamp).
func (c *chunk) stamp(i int, sp *stamp.Reader) int64 {
	m := &c.meta[i]
	if m.flags&fStamped == 0 {
		t := sp.Of(c.lines[i].Text)
		if t == 0 && m.flags&fClock != 0 {
			t = m.stamp // the clock learn read
		}
		m.stamp = t
		m.flags |= fStamped
	}
	return m.stamp
}

// relStamp is a relative clock's reading as a stamp: that long after the
// zero time, plus a nanosecond so that the very first line's is no "no
// stamp". Every wall-clock stamp is far above relLimit.
func relStamp(d time.Duration) int64 { return int64(d) + 1 }

// relLimit: stamps below it are relative clocks (a year of uptime).
const relLimit = int64(365 * 24 * time.Hour)

// settle brings an idle run's end up to the last stamp among lines
// [from, to).
func (c *chunk) settle(st *runState, from, to int, sp *stamp.Reader) {
	if !st.stale {
		return
	}
	st.stale = false
	for k := to - 1; k >= from; k-- {
		if t := c.stamp(k, sp); t != 0 {
			st.stampAt(t)
			return
		}
	}
}

// accepts decides whether line i starts a new run after st.
func (c *chunk) accepts(st *runState, i int, sp *stamp.Reader) bool {
	m := &c.meta[i]
	if st.replayAt != 0 && c.replayed(i, st.replayAt, sp) && m.flags&fCrash != 0 {
		// A crash block in a child's replayed output is the child's (and
		// its stamps, taken as none, make no jump); a server's banner
		// still starts a run.
		return false
	}
	if m.flags&fRestart != 0 {
		return true
	}
	// (The run's own clock is looked at first: reading the line's stamp
	// costs more than everything else here, and a ready run's lines only
	// count.)
	if st.end != 0 && st.end < relLimit && st.fatal == 0 && !st.died && c.relativeFrom(i, st.end, sp) &&
		(m.flags&fStart == 0 || !c.shutDownBefore(i)) {
		// llama.cpp's clock runs on from the run's, which nothing ended:
		// the same process, whatever it prints (its logger's banner after
		// a download's error). A new one's clock drops back (fRestart),
		// unless the process before died within milliseconds of its
		// start (a fatal line said so) or shut down in order within
		// about as long (a banner after its clean-up: on a busy machine a
		// new process's first line may come later than a short-lived
		// one's last).
		return false
	}
	if m.flags&fCrash != 0 && st.acceptsCrash(c.bannerOf(i), c.t0(i, sp)) {
		return true
	}
	if m.flags&fStart != 0 && m.flags&fCrash == 0 && st.acceptsBanner(c.bannerAt(i)) {
		return true
	}
	if m.flags&fLoose != 0 && st.ended() {
		return true // the run had ended; the unclocked lines are a short-lived process's
	}
	if st.ready() {
		return false // no jump ends a ready run: a ready server may idle for hours
	}
	t := c.stamp(i, sp)
	return t != 0 && st.acceptsJump(t)
}

// shutDownBack is how many lines before a start shutDownBefore reads:
// llama-server's clean-up line is followed by its memory breakdown, a
// line per device.
const shutDownBack = 32

// shutDownBefore reports whether one of the few lines before line i (in
// this chunk) says the server shut down in order (life.Shutdown).
func (c *chunk) shutDownBefore(i int) bool {
	for k := i - 1; k >= 0 && i-k <= shutDownBack; k-- {
		if c.meta[k].flags&fStart != 0 {
			return false
		}
		if life.Shutdown(c.lines[k].Text) {
			return true
		}
	}
	return false
}

// replayed reports whether line i, in a replay of a child's output that
// began at the stamp at, is part of it: unstamped, or stamped before at.
// Such a line's stamp is the child's, not the run's time: it is taken as
// unstamped from now on.
func (c *chunk) replayed(i int, at int64, sp *stamp.Reader) bool {
	t := c.stamp(i, sp)
	if t != 0 && t < at {
		c.meta[i].stamp = 0
		return true
	}
	return t == 0
}

// relativeFrom: line i carries a relative clock that reads end or later.
func (c *chunk) relativeFrom(i int, end int64, sp *stamp.Reader) bool {
	t := c.stamp(i, sp)
	return t != 0 && t < relLimit && t >= end
}

// keepBanner keeps a banner text for a line's meta.
func (c *chunk) keepBanner(s string) int32 {
	c.banners = append(c.banners, s)
	return int32(len(c.banners))
}

// bannerOf is line i's banner text ("" for none).
func (c *chunk) bannerOf(i int) string {
	if b := c.meta[i].banner; b > 0 {
		return c.banners[b-1]
	}
	return ""
}

// bannerAt is the banner of the block that starts at line i.
func (c *chunk) bannerAt(i int) string {
	for k := i; k < len(c.meta) && k <= i+preBannerMax; k++ {
		if c.meta[k].flags&fBanner != 0 {
			return c.bannerOf(k)
		}
	}
	return ""
}

// t0 is the start time of a run starting at line i: the first stamp
// among its first lines, or 0 (an unstamped run).
func (c *chunk) t0(i int, sp *stamp.Reader) int64 {
	for k := i; k < len(c.meta) && k < i+t0Lookahead; k++ {
		if s := c.stamp(k, sp); s != 0 {
			return s
		}
	}
	return 0
}

// learn reads each line's banner and redraw status, and marks where runs
// may start.
func (c *chunk) learn(sp *stamp.Reader, memo *classify.Memo) {
	if cap(c.meta) < len(c.lines) {
		c.meta = make([]meta, len(c.lines))
	}
	c.meta = c.meta[:len(c.lines)]
	clear(c.meta)
	c.banners = c.banners[:0]
	c.markShortBanners()
	c.markReplays()
	// A relative clock (llama.cpp's "0.00.213.525 I ") that drops back
	// near zero is a new process. (A drop right at a chunk's start is not
	// seen: the previous chunk's clock is not known here.)
	// Lines without the clock just before such a drop, after clocked
	// ones, may be a process of their own: llama.cpp's argument errors
	// ("error: invalid argument: --foo") come before its logger starts.
	var clock time.Duration
	ticking := false
	loose := -1 // the first unclocked line since the last clocked one
	for i := range c.lines {
		l, m := &c.lines[i], &c.meta[i]
		if t, ok := classify.ClockOf(l.Text); ok {
			m.flags |= fClock
			m.stamp = relStamp(t) // (until stamp reads a date, which comes first)
			if ticking && classify.ClockRestarts(clock, t) {
				m.flags |= fRestart | fStart
				if loose >= 0 && i-loose <= preBannerMax && c.holdsError(loose, i, memo) {
					c.meta[loose].flags |= fLoose
				}
			}
			clock, ticking, loose = t, true, -1
		} else if ticking && loose < 0 {
			loose = i
		}
		if i > 0 && i+1 < len(c.lines) && c.redraw(i-1) && c.redraw(i) && classify.MaybeProgress(l.Text) {
			// A bar's state between its first and its last: no banner (half
			// of a dense log's lines are such redraws).
			m.flags |= fSkip
		} else if m.flags&fShort != 0 && classify.MayBeBanner(l.Text) || m.flags&fShort == 0 && classify.MayBeLongBanner(l.Text) {
			if msg := classify.ParseFast(l.Text).Msg; memo.BannerServer(msg) != "" {
				m.flags |= fBanner
				m.banner = c.keepBanner(msg)
			}
		}
	}
	for i := range c.lines {
		m := &c.meta[i]
		crash := -1
		if t := c.lines[i].Text; t != "" && (t[0] == 'T' || t[0] == 'u') {
			if end, ok := c.crashBlock(i); ok {
				crash = end
				c.meta[end].flags |= fDied
			}
		}
		if crash >= 0 || m.flags&fBanner != 0 && (i == 0 || c.meta[i-1].flags&fBanner == 0) {
			s := i
			for s > 0 && i-s < preBannerMax && c.meta[s-1].flags&fBanner == 0 && classify.IsPreBanner(c.lines[s-1].Text) {
				s--
			}
			if k := c.containerBanner(s, sp); k >= 0 {
				s = k
			} else if crash < 0 {
				s = c.preamble(s, sp)
			}
			if k := c.unitStart(s, sp); k >= 0 {
				s = k
			}
			c.meta[s].flags |= fStart
			if crash >= 0 && c.meta[s].flags&fBanner == 0 {
				c.meta[s].flags |= fCrash
				c.meta[s].banner = c.keepBanner(c.lines[crash].Text)
			}
		}
	}
}

// holdsError reports whether one of lines [from, to) is an error as
// llama.cpp's catalogue reads it: unclocked lines before a restart are a
// process of their own only when they say why it ended (an argument
// error printed before the logger starts), not when they are what a
// wrapper script printed between two starts.
func (c *chunk) holdsError(from, to int, memo *classify.Memo) bool {
	pr := classify.Lookup("llamacpp")
	for k := from; k < to; k++ {
		if cl := memo.Classify(pr, c.lines[k].Text); cl.IsError() {
			return true
		}
	}
	return false
}

// markShortBanners marks (fShort) the lines that hold a literal of the
// banner clauses too short for the banner filter's windows, looked for in
// the whole chunk at once; the other lines need only the windows
// (classify.MayBeLongBanner). A line begun in the chunk before is
// marked: its text is a copy, not in the buffer.
func (c *chunk) markShortBanners() {
	if len(c.lines) == 0 {
		return
	}
	if c.lines[0].Off < c.base {
		c.meta[0].flags |= fShort
	}
	text := ""
	if c.n > 0 {
		text = unsafe.String(&c.buf[0], c.n)
	}
	ok := classify.ShortBannerHits(text, func(at int) {
		if i := c.lineAt(at); i >= 0 {
			c.meta[i].flags |= fShort
		}
	})
	if !ok {
		for i := range c.meta {
			c.meta[i].flags |= fShort
		}
	}
}

// lineAt is the line that holds byte at of the chunk's buffer, or -1.
func (c *chunk) lineAt(at int) int {
	pos := c.base + int64(at)
	// The last line that starts at or before pos.
	i := sort.Search(len(c.lines), func(k int) bool { return c.lines[k].Off > pos }) - 1
	if i >= 0 && pos < c.lines[i].Off+int64(len(c.lines[i].Text)) {
		return i
	}
	return -1
}

// markReplays marks (fReplay) the lines after which a server replays a
// child's output (classify.ReplayHits), looked for in the whole chunk at
// once; a line begun in the chunk before is looked at alone.
func (c *chunk) markReplays() {
	if len(c.lines) == 0 {
		return
	}
	if c.lines[0].Off < c.base {
		classify.ReplayHits(c.lines[0].Text, func(int) { c.meta[0].flags |= fReplay })
	}
	if c.n == 0 {
		return
	}
	classify.ReplayHits(unsafe.String(&c.buf[0], c.n), func(at int) {
		if i := c.lineAt(at); i >= 0 {
			c.meta[i].flags |= fReplay
		}
	})
}

// preamble moves a run's start at line s back over the few lines a
// restarting server printed just before its banner (a library's note, a
// default it chose): lines stamped within restartNear of the start, after
// a pause of at least restartPause since the stamped line before them
// (at most t0Lookahead lines back). Unstamped lines between the pause and
// those lines (the end of a traceback) stay with the run before; without
// such a pause the start stays at s.
func (c *chunk) preamble(s int, sp *stamp.Reader) int {
	tb := c.stamp(s, sp)
	if tb == 0 {
		return s
	}
	start, near := s, 0
	for k := s - 1; k >= 0 && s-k <= t0Lookahead && near <= preBannerMax; k-- {
		if c.meta[k].flags&(fBanner|fStart) != 0 {
			return s
		}
		tk := c.stamp(k, sp)
		switch d := time.Duration(tb - tk); {
		case tk == 0:
		case d <= restartNear && d >= 0:
			start = k
			near++
		case d >= restartPause:
			return start
		default:
			return s
		}
	}
	return s
}

// unitStart is where systemd's line that it started the unit is, when
// one came among the few lines just before a run's start at s (a restart
// of a unit, a boot: its launch is timed from there), with journalctl's
// mark of a new boot just before it; or -1.
func (c *chunk) unitStart(s int, sp *stamp.Reader) int {
	ts := c.stamp(s, sp)
	for k := s - 1; k >= 0 && s-k <= preBannerMax; k-- {
		if c.meta[k].flags&(fBanner|fStart) != 0 {
			return -1
		}
		if !classify.IsUnitStart(c.lines[k].Text) {
			continue
		}
		if tk := c.stamp(k, sp); tk == 0 || ts != 0 && (ts < tk || time.Duration(ts-tk) > unitStartMax) {
			return -1
		}
		if k > 0 && c.meta[k-1].flags&(fBanner|fStart) == 0 && classify.IsJournalBoot(c.lines[k-1].Text) {
			k--
		}
		return k
	}
	return -1
}

// containerBanner is where the banner of a container image starts, when
// one came among the unstamped lines just before a run's start at s (a
// restarted container prints it before the server prints anything), or -1.
func (c *chunk) containerBanner(s int, sp *stamp.Reader) int {
	for k := s - 1; k >= 0 && s-k <= containerScan; k-- {
		if c.meta[k].flags&(fBanner|fStart) != 0 || c.stamp(k, sp) != 0 {
			return -1
		}
		if !classify.IsContainerTitle(c.lines[k].Text) {
			continue
		}
		start := k
		if k > 0 && classify.IsRule(c.lines[k-1].Text) {
			start = k - 1
			if start > 0 && logline.Blank(c.lines[start-1].Text) && c.meta[start-1].flags&(fBanner|fStart) == 0 {
				start--
			}
		}
		return start
	}
	return -1
}

// redraw reports whether line i ended with a bare "\r" that line i+1
// overwrites.
func (c *chunk) redraw(i int) bool {
	l := &c.lines[i]
	return l.CR && c.lines[i+1].Off == l.Off+int64(len(l.Text))+l.Cut+1
}
