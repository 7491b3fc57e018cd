package explain

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"vigil/internal/classify"
	"vigil/internal/judge"
	"vigil/internal/life"
	"vigil/internal/logline"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

const (
	// settleLines bounds how many lines after a fatal line are still read
	// into the evidence when the log's stamps do not move (unstamped
	// logs, or a traceback printed within one second); the live judge
	// would have decided after judge.SettleMax.
	settleLines = 400
	// gapAfterFailure: after a failure, a line stamped this much later
	// (or earlier by backGap) than the run's last stamp starts a new run
	// even without a start banner.
	gapAfterFailure = 10 * time.Minute
	backGap         = time.Minute
	// sameCrashGap: the same start-up crash stamped this much later than
	// the last one is a restart, not another rank.
	sameCrashGap = 30 * time.Second
	// servingLook: a run's first lines, before any step of a start, are
	// looked at for one that shows the log begins mid-serving
	// (judge.BeginsServing); a tail shows it early, and a crash loop's
	// long tracebacks need not be.
	servingLook = 64
	// ringSize lines are kept for the evidence of a run without verdict.
	ringSize = 6
	// maxSpans bounds the phase changes kept per run: a hostile log can
	// make a server go back and forth between phases on every line
	// (llama.cpp's projector loading moves the phase back); after that,
	// the last phase kept runs on.
	maxSpans = 64
)

// runState judges one run as its lines come.
type runState struct {
	j      *judge.Judge
	prof   *classify.Profile
	t0     time.Time
	off    int64
	first  int64 // number of the run's first line
	last   int64
	start  int64 // first and last stamp, Unix ns (0: none yet)
	end    int64
	t      int64 // the time of the latest line
	result *observe.Result
	spans  []observe.PhaseSpan
	// fatal is the line number of the first fatal line, or 0.
	fatal int64
	// banners are the start banners this run printed (a few).
	banners []string
	// died: the run printed a start-up crash block (crash.go) ending in
	// diedLine: its process is gone.
	died     bool
	diedLine string
	// stale: lines were counted without reading their stamps (idle).
	stale bool
	ring  [ringSize]string
	ringN int
	// said holds the last ringSize of those lines that do not begin with
	// a blank: however long the traceback after an error, its frames do
	// not push the error out.
	said   [ringSize]string
	saidN  int
	server string
	// readyLine is the ready line, or the line of a ready verdict
	// without one (0: none); tail the lines after it that tell how the
	// life ended (life.go); atLogEnd is set when the log ends with the
	// run.
	readyLine int64
	tail      *lifeTail // (made once there is a ready line: most runs of a crash loop never have one)
	// stepped: a line moved the phase past starting the processes;
	// leadStep: only a lead banner's line did (llama.cpp's -hf download,
	// weights, before its logger's banner), which a main banner then
	// goes on from.
	stepped, leadStep bool
	// servingAtStart: a line before any step of a start showed the server
	// serving (judge.BeginsServing): the log begins mid-serving.
	servingAtStart bool
	atLogEnd       bool
	// memo is the classifier memo of the goroutine judging the run now,
	// text its arena for the lines the run keeps.
	memo *classify.Memo
	text *arena
	// tickedAt is the time of the latest tick, and still is set while
	// nothing was fed to the judge since (tick).
	tickedAt time.Time
	still    bool
	// endsSpan is the span an unstamped line that ends a step began,
	// until the next stamp dates it (0: none; the first span is launch).
	endsSpan int
	// replayAt is the stamp of the line after which the server replays a
	// child's earlier output (fReplay), while it does: lines stamped
	// before it are the child's (0: no replay).
	replayAt int64
}

// newRun starts judging a run whose first line is lines[0]; t0 is its
// start (the first stamp near its start, or a fixed time when unstamped).
func newRun(server string, first *logline.Span, t0 int64, own *owned) *runState {
	st := &runState{off: first.Off, first: first.No, last: first.No}
	st.t0 = time.Unix(0, t0)
	st.t = t0
	// Offline the health answers are those of the access log, and the
	// readiness rules take their offline numbers; a run's bars are only
	// counted.
	st.j = judge.New(judge.Config{Server: server, Readiness: judge.LogReadiness, NoConfig: true, NoProgressEvents: true}, st.t0)
	st.use(own)
	st.server = st.j.Server()
	st.prof = classify.Lookup(st.server)
	st.spans = []observe.PhaseSpan{{Phase: v.Launch, Start: st.t0}}
	st.drain()
	return st
}

// use makes the run classify through the memo of the goroutine that
// judges it from now on, and copy lines into its arena.
func (st *runState) use(own *owned) {
	st.memo, st.text = own.memo, &own.text
	st.j.UseMemo(own.memo)
}

func (st *runState) now() time.Time { return time.Unix(0, st.t) }

// idle: the run is ready, so its further lines change nothing but its
// line count and end.
func (st *runState) idle() bool {
	return st.result != nil && st.result.Verdict == v.Ready
}

// ready: the run is ready, or its judge holds a ready verdict while it
// waits for the health answers after the ready line (judge.Readiness).
func (st *runState) ready() bool {
	if st.result != nil {
		return st.result.Verdict == v.Ready
	}
	return st.j.Phase() == v.PhaseReady
}

// stampAt takes the stamp t (Unix ns) of the latest line.
func (st *runState) stampAt(t int64) {
	if st.start == 0 {
		st.start = t
	}
	st.end = t
	st.t = t
}

// feed judges one line stamped at t (0: unstamped); banner is its
// banner's text (meta.banner).
func (st *runState) feed(l *logline.Span, m *meta, banner string, t int64) {
	st.last = l.No
	if t != 0 {
		st.stampAt(t)
		if st.endsSpan > 0 {
			st.dateEnded(t)
		}
	}
	if m.flags&fDied != 0 && !st.died {
		st.died, st.diedLine = true, st.text.clone(l.Text)
	}
	if st.result != nil {
		return
	}
	if m.flags&fSkip != 0 {
		return
	}
	if m.flags&fBanner != 0 && len(st.banners) < 4 {
		st.banners = append(st.banners, st.text.clone(banner))
	}
	// The line's text lives in a read buffer that is reused: whatever
	// keeps it (the judge, the evidence ring) gets a copy.
	text := st.text.clone(l.Text)
	if !logline.Blank(text) && st.j.Phase() != v.PhaseReady {
		// (After the ready line, while the judge waits for health
		// answers, the lines are the life after ready's.)
		st.ring[st.ringN%ringSize] = text
		st.ringN++
		if !indented(text) {
			st.said[st.saidN%ringSize] = text
			st.saidN++
		}
	}
	now := st.now()
	// The live judge decides when time passes; so does this one, by the
	// line's stamp, before the line counts. A stamp to the second may be
	// up to a second later than the moment the line was printed, so the
	// gap it shows is not taken as a settled quiet spell.
	before := now
	if st.t%int64(time.Second) == 0 {
		before = now.Add(-time.Second)
	}
	if st.tick(before) {
		if st.readyLine == l.No {
			// Ready before this line: it is the life's, and its stamp
			// may be the one that dates how that ended.
			st.readyLine--
		}
		return
	}
	st.still = false
	if len(st.spans) == 1 && l.No-st.first < servingLook && st.j.BeginsServing(text, now) {
		st.drain()
		if st.tick(now) {
			// All of the run is its life after ready, this line too.
			st.readyLine, st.servingAtStart = st.first-1, true
		}
		return
	}
	spans := len(st.spans)
	st.j.Line(logline.Line{Text: text, Offset: l.Off, CR: l.CR, Cut: l.Cut}, now)
	st.drain()
	if len(st.spans) > spans && !st.stepped && st.progressed() {
		// (The lines read early, once the server is known, move it on
		// the line that named it.)
		if m.flags&fBanner != 0 && classify.IsLeadBanner(banner) || st.memo.Classify(st.prof, text).Phase == "" {
			st.leadStep = true
		} else {
			st.stepped = true
		}
	}
	if t == 0 && len(st.spans) > spans {
		if r := st.memo.Classify(st.prof, text).PhaseRule; r != nil && r.Ends {
			st.endsSpan = len(st.spans) - 1
		}
	}
	st.answer(text, now)
	if st.tick(now) {
		return
	}
	if st.fatal > 0 && st.last-st.fatal >= settleLines {
		st.tick(now.Add(judge.SettleMax))
	}
}

// tick asks the judge for a verdict at now. A tick no later than the
// last one, with nothing fed in between, is passed over: each of the
// judge's time rules fires once at least so long has passed since
// something, so what did not fire then cannot fire at an earlier time
// (lines of one second share their stamp: most ticks are such repeats).
func (st *runState) tick(now time.Time) bool {
	if st.still && !now.After(st.tickedAt) {
		return false
	}
	st.tickedAt, st.still = now, true
	return st.took(st.j.Tick(now))
}

// dateEnded dates the phase that an unstamped line ending the step
// before it began (classify.PhaseRule.Ends) by t, the next stamp, and the
// phases after it no earlier.
func (st *runState) dateEnded(t int64) {
	at := time.Unix(0, t)
	for i := st.endsSpan; i < len(st.spans); i++ {
		if st.spans[i].Start.Before(at) {
			st.spans[i].Start = at
		}
	}
	st.endsSpan = 0
}

// took takes the judge's verdict r, if any.
func (st *runState) took(r *observe.Result) bool {
	if r == nil {
		return false
	}
	st.result = r
	st.drain()
	if r.Verdict == v.Ready && st.readyLine == 0 {
		st.readyLine = st.last
	}
	return true
}

// drain takes the judge's events: phases, the server kind, the first
// fatal line.
func (st *runState) drain() {
	st.j.DrainEvents(st.take)
}

// take takes one of the judge's events.
func (st *runState) take(e observe.Event) {
	switch d := e.Data.(type) {
	case observe.PhaseChange:
		if len(st.spans) < maxSpans {
			st.spans = append(st.spans, observe.PhaseSpan{Phase: v.Phase(d.Phase), Start: e.At})
		}
	case observe.ServerSeen:
		st.server = st.j.Server()
		st.prof = classify.Lookup(st.server)
	case observe.Failing:
		if st.fatal == 0 {
			st.fatal = st.last
		}
	case observe.ReadyLine:
		st.readyLine = st.last
	}
}

// answer feeds the health answer an access-log line holds, if any.
func (st *runState) answer(t string, now time.Time) {
	if h, ok := accessAnswer(t); ok {
		h.Seen = clip(t, 300)
		st.still = false
		st.j.Health(h, now)
		st.drain()
	}
}

// progressed: the run got past starting its processes (so a banner now is
// a new run, not a rank of this one announcing itself).
func (st *runState) progressed() bool {
	switch st.j.Phase() {
	case v.Launch, v.Init, v.Distributed:
		return false
	}
	return true
}

// ended: the run has a verdict, announced a failure, or its output ends
// in an error.
func (st *runState) ended() bool {
	return st.result != nil || st.ready() || st.failed()
}

// failed: the run failed, announced a failure, or its output ends in an
// error (the traceback a dying Python process prints last).
func (st *runState) failed() bool {
	if st.result != nil || st.ready() {
		return st.result != nil && st.result.Verdict == v.Failed
	}
	return st.fatal > 0 || st.died || st.endsInError() && st.j.Offline().Verdict == v.Failed
}

// endsInError reports whether the run's last line that says something is
// an error: a failure line or the exception line that ends a traceback.
// Benign lines and indented ones (the source line Python prints under a
// warning, a traceback's frames) are passed over: a restart's first
// lines, before its banner, may be such noise, and a log cut in the
// traceback a dying process prints after its error ends in that error.
func (st *runState) endsInError() bool {
	plain := 0
	for i := st.saidN - 1; i >= 0 && i >= st.saidN-ringSize; i-- {
		l := st.said[i%ringSize]
		c := st.memo.Classify(st.prof, l)
		if c.Benign || classify.TracebackBody(c.Msg) {
			// (A traceback begun, its frames under a process's prefix,
			// or the line multiprocessing prints before one: the error
			// it ends in, if the log has it, is further up.)
			continue
		}
		if c.Level != "" && c.Level != "error" && c.Level != "critical" && c.Failure == nil && c.Phase == "" && !c.Ready && !c.Listening {
			// A note the dying process printed after its traceback
			// ("INFO: Please install aiter if you want to infer with
			// aiter_moe.") is no sign that it went on.
			continue
		}
		if c.Failure != nil || c.Exception {
			return true
		}
		// An exception's message may run on over lines of its own
		// (PyYAML's "expected <block end>, but found ..." under
		// "yaml.parser.ParserError: while parsing a block mapping"):
		// a few plain lines, with no stamp, level or meaning, are read
		// as the error's above them.
		if plain++; plain > maxMessageLines || c.Stamp != "" || c.Level != "" || c.Phase != "" || c.Progress != nil || c.Ready || c.Listening || c.Traceback {
			return false
		}
	}
	return false
}

// maxMessageLines bounds the lines an exception's message may run on
// over after its first (see endsInError).
const maxMessageLines = 4

// indented reports whether a line's text begins with a blank, after the
// process tags vLLM puts before a child's lines ("(EngineCore pid=114)
// "): a traceback's frame, or the source line under a warning.
func indented(s string) bool {
	for range 2 {
		if s == "" || s[0] != '(' {
			break
		}
		k := strings.IndexByte(s, ')')
		if k < 0 || k+1 >= len(s) || s[k+1] != ' ' {
			break
		}
		s = s[k+2:]
	}
	return s != "" && (s[0] == ' ' || s[0] == '\t')
}

// acceptsCrash decides whether a start-up crash block ending in the error
// line e, stamped at t (0: unstamped), begins a new run after this one. It
// does unless this run is a preamble of the same process (no banner,
// nothing failed yet) or itself died of the very same error at about the
// same time: ranks started together print the same crash.
func (st *runState) acceptsCrash(e string, t int64) bool {
	switch {
	case st.died:
		return e != st.diedLine || t != 0 && st.end != 0 && time.Duration(t-st.end) >= sameCrashGap
	case len(st.banners) == 0 && !st.progressed() && !st.failed():
		return false
	}
	return true
}

// acceptsBanner decides whether a start banner (its message b) begins a
// new run after this one. It does when this run got past starting its
// processes, ended, or the banner is another server's. It does not when
// this run is only a preamble (no banner yet: lines a starting server
// printed before its banner). A run still starting takes further banners
// of its own server only where they belong to one start: a server whose
// profile prints one banner per start (classify.Starts.OneBanner) restarts
// on its next main banner; the others only on the very same banner again.
func (st *runState) acceptsBanner(b string) bool {
	if st.ended() || st.progressed() && !(st.leadStep && !st.stepped) {
		return true
	}
	if len(st.banners) == 0 {
		return false
	}
	if s := st.memo.BannerServer(b); st.server != "" && s != "" && s != st.server {
		return true // another server starts
	}
	if classify.StartsOf(st.server).RankBanners {
		return false // a rank announcing itself (progressed and ended are above)
	}
	if classify.StartsOf(st.server).OneBanner {
		// One banner per start, though SGLang may lead it with another
		// (its launcher warning): after a lead banner, the main one is
		// the same start.
		if classify.IsLeadBanner(b) {
			return true
		}
		for _, seen := range st.banners {
			if !classify.IsLeadBanner(seen) {
				return true
			}
		}
		return false
	}
	for _, seen := range st.banners {
		if seen == b {
			return true
		}
	}
	return false
}

// acceptsJump decides whether a line stamped at t, with no banner, begins a
// new run: only after a failure, and only across a big gap in the stamps
// (a dead server prints nothing; whatever comes much later is a new
// process).
func (st *runState) acceptsJump(t int64) bool {
	if t == 0 || st.end == 0 {
		return false
	}
	d := time.Duration(t - st.end)
	if d < gapAfterFailure && d > -backGap {
		return false
	}
	return st.failed()
}

// finish decides what the run's lines support and describes it.
func (st *runState) finish() *Run {
	end := st.now()
	if st.result == nil {
		// A fatal line settles, a bad health streak counts, a ready line
		// or a listening server is believed, as they would have live once
		// time moved on.
		st.still = false
		st.took(st.j.LogEnds(end))
	}
	if st.result == nil && (st.j.Offline().Verdict == v.Failed || st.endsInError()) {
		// Errors but no fatal line, and the log ends: the server died of
		// them (a traceback is the last thing a dying Python process
		// prints). Judge them as the live judge does when the process is
		// gone, without claiming to have seen it go.
		st.still = false
		st.j.Exit(observe.Exit{Gone: true}, end)
		if st.tick(end) {
			ev := st.result.Evidence
			if n := len(ev); n > 0 && strings.HasPrefix(ev[n-1], "[vigil] the server process") {
				st.result.Evidence = ev[:n-1]
			}
		}
	}
	// A run whose last stamp, or its verdict, is before its first stamp
	// cannot be timed (a clock set back, lines pasted out of order): no
	// negative durations.
	backwards := st.end < st.start || st.result != nil && st.result.At.UnixNano() < st.start
	if st.server == "" && st.idle() {
		// Ready before any line named the server (a log that begins
		// mid-serving): the lines after ready may.
		st.server = st.tail.server()
	}
	r := &Run{
		Server:    st.server,
		FirstLine: st.first,
		Lines:     st.last - st.first + 1,
		Offset:    st.off,
		Timed:     st.start != 0 && !backwards,
		Relative:  st.start != 0 && !backwards && st.start < relLimit,
	}
	if r.Timed {
		r.Start, r.End = time.Unix(0, st.start), time.Unix(0, st.end)
	}
	r.Notable = st.j.Notable()
	res := st.result
	if res != nil && (res.Verdict == v.Ready || res.Verdict == v.Failed) {
		r.Verdict, r.Cause, r.Phase = res.Verdict, res.Cause, res.Phase
		r.Summary, r.Hint, r.RuleID = res.Summary, res.Hint, res.RuleID
		r.Evidence = clone(res.Evidence)
		// The judge decides a failure once its evidence settled, a moment
		// after the run's last line; the phases end with that line.
		at := res.At
		if r.Timed && at.After(r.End) {
			at = r.End
		}
		if st.servingAtStart && r.Timed {
			// No step of a start is in the log: its lines before the one
			// that showed it serving are its life's.
			for i := range st.spans {
				st.spans[i].Start = r.Start
			}
			at = r.Start
		}
		r.Phases = phases(st.spans, r.Start, at, r.Timed, res.Verdict == v.Ready)
		if res.Verdict == v.Ready {
			r.Life = st.lifeAfterReady(at, r.Timed)
		}
		switch {
		case res.Verdict != v.Ready:
		case onlyServing(st.spans) && (st.servingAtStart || st.readyLine == st.first || r.Timed && !res.At.After(r.Start)):
			// Ready at its first line, through no startup step: the log
			// begins mid-serving (a rotated file, kubectl logs --since, a
			// pasted crash), and how long the start took is not in it.
			r.Summary = orServer(st.server) + " was already serving where the log begins: its startup is not in the log"
		case backwards:
			r.Summary = orServer(st.server) + " is ready (its stamps go back in time, so no durations)"
		case !r.Timed:
			r.Summary = orServer(st.server) + " is ready (its lines carry no timestamps, so no durations)"
		case st.t0.UnixNano() == 0:
			// The run's first lines carried no stamp: count from its first.
			r.Summary = fmt.Sprintf("%s is ready after %s", orServer(st.server), fmtDur(res.At.Sub(r.Start)))
		}
		return r
	}
	ph := st.j.Phase()
	r.Phase = ph
	stop := st.stopLine()
	if stop != "" {
		r.Summary = fmt.Sprintf("stopped in phase %s without a verdict", ph)
	} else {
		r.Summary = fmt.Sprintf("ended in phase %s without a verdict", ph)
	}
	if r.Timed {
		r.Summary += fmt.Sprintf(" (%s after its first line)", fmtDur(end.Sub(time.Unix(0, st.start))))
	}
	said := "[vigil] the log ends in phase " + string(ph) + " with no ready line and no failure: offline, a stall or a timeout can only be suspected"
	r.Hint = noVerdictHint(ph, st.waitHint())
	if stop != "" {
		r.Summary += ": " + clip(stop, 200)
		said = "[vigil] the log ends in phase " + string(ph) + " with a stop (a signal or Ctrl-C), before a ready line or a failure"
		r.Hint = stoppedHint
	}
	r.Evidence = append([]string{said}, st.lastLines()...)
	if stop != "" {
		// The stop first, then the lines up to it.
		r.Evidence = append([]string{said, clip(stop, 500)}, slices.DeleteFunc(r.Evidence[1:], func(l string) bool { return l == clip(stop, 300) })...)
	}
	r.Phases = phases(st.spans, r.Start, end, r.Timed, false)
	return r
}

// stoppedHint is the hint of a start stopped from outside.
const stoppedHint = "the server was stopped while it started: if not by you, find who sent the signal (a liveness or startup probe that gave up too soon, systemd's TimeoutStartSec, docker stop, a job's time limit) and give the start more time"

// stopLine is the line among the run's last that says the server was
// asked to stop (a signal or Ctrl-C), or "": vLLM's SIGTERM handler
// raises KeyboardInterrupt("terminated") while it starts, a terminal
// echoes "^C", a server shutting down in order prints its clean-up
// (life.Shutdown).
func (st *runState) stopLine() string {
	for i := st.saidN - 1; i >= 0 && i >= st.saidN-ringSize; i-- {
		l := st.said[i%ringSize]
		msg := strings.TrimSpace(classify.ParseFast(l).Msg)
		if msg == "^C" || strings.HasPrefix(msg, "KeyboardInterrupt") || life.Shutdown(l) {
			return l
		}
	}
	return ""
}

// waitHint is the hint of the wait the run's last line repeats
// (classify.WaitHint), or "".
func (st *runState) waitHint() string {
	if st.saidN == 0 {
		return ""
	}
	return classify.WaitHint(classify.ParseFast(st.said[(st.saidN-1)%ringSize]).Msg)
}

func (st *runState) lastLines() []string {
	var out []string
	for i := max(0, st.ringN-ringSize); i < st.ringN; i++ {
		out = append(out, clip(st.ring[i%ringSize], 300))
	}
	return out
}

// onlyServing: the run reached ready through no startup phase.
func onlyServing(spans []observe.PhaseSpan) bool {
	for _, s := range spans {
		switch s.Phase {
		case v.Launch, v.Serving, v.PhaseReady:
		default:
			return false
		}
	}
	return true
}

// phases turns the phase spans into durations: each lasts until the next
// starts, the last until end (a ready phase has none). No phase starts
// before first, the run's first stamp (lines before it take it).
func phases(spans []observe.PhaseSpan, first, end time.Time, timed, ready bool) []Phase {
	at := func(t time.Time) time.Time {
		if timed && t.Before(first) {
			return first
		}
		return t
	}
	var out []Phase
	for i, s := range spans {
		p := Phase{Name: s.Phase, Start: at(s.Start)}
		stop := end
		if i+1 < len(spans) {
			stop = at(spans[i+1].Start)
		}
		if timed && !(ready && i == len(spans)-1) {
			p.Seconds = max(0, stop.Sub(p.Start).Seconds())
		}
		p.Timed = timed
		out = append(out, p)
	}
	return out
}

// noVerdictHint says what to suspect when a log ends mid-startup.
func noVerdictHint(ph v.Phase, wait string) string {
	base := "if the server is still starting, judge it live with `vigil watch --log FILE`; if it was stopped here, "
	if wait != "" {
		return base + "its last line was a wait: " + wait
	}
	switch ph {
	case v.Distributed:
		return base + "suspect a rank or node that never joined: check every node started and reaches --dist-init-addr / MASTER_ADDR, NCCL_SOCKET_IFNAME, and rerun with NCCL_DEBUG=INFO"
	case v.Weights:
		return base + "suspect weight loading: a download without network, a lock on the Hugging Face cache, or a slow network filesystem"
	case v.Compile:
		return base + "suspect a kernel compile that had not finished: a first start JIT-compiles kernels (DeepGEMM, FlashInfer, Triton, torch.compile) for up to 10-20 minutes on a big model; keep the compile caches on a persistent volume or precompile (python3 -m sglang.compile_deep_gemm), and give the start that long"
	case v.KVCache, v.CUDAGraph, v.Warmup:
		return base + "suspect a GPU step that stopped: nvidia-smi (a GPU at 0% with memory held), dmesg for Xid errors, py-spy dump of the waiting rank"
	case v.Serving:
		return base + "the server said it listens but the log shows no ready line or answered request: probe its health endpoint"
	}
	return base + "suspect an early wait: a lock, a download of its config, or input on stdin"
}

func clone(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}

// clip cuts s to at most n bytes, at a character's start, and marks the
// cut; the result holds none of s's memory.
func clip(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n]) + "…"
}

func fmtDur(d time.Duration) string { return string(appendDur(nil, d)) }

// appendDur appends fmtDur(d) to b.
func appendDur(b []byte, d time.Duration) []byte {
	if d < time.Minute {
		// (fmt's "%.1f" is strconv's 'f' with precision 1.)
		return append(strconv.AppendFloat(b, d.Seconds(), 'f', 1, 64), 's')
	}
	return append(b, d.Round(time.Second).String()...)
}

func orServer(s string) string {
	if s == "" {
		return "the server"
	}
	return s
}
