package explain

import (
	"fmt"
	"strings"
	"time"

	"vigil/internal/classify"
	"vigil/internal/judge"
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
	// upSettle and upSettleLines: a server without a ready line of its
	// own (vLLM, TensorRT-LLM) is ready offline once it said it listens
	// ("Application startup complete") and this long passed, by the
	// stamps or in lines, without an error or a bad health answer.
	upSettle      = 10 * time.Second
	upSettleLines = 200
	// gapAfterFailure: after a failure, a line stamped this much later
	// (or earlier by backGap) than the run's last stamp starts a new run
	// even without a start banner.
	gapAfterFailure = 10 * time.Minute
	backGap         = time.Minute
	// sameCrashGap: the same start-up crash stamped this much later than
	// the last one is a restart, not another rank.
	sameCrashGap = 30 * time.Second
	// badRunEnd: a log that ends in this many bad health answers in a row
	// ends unhealthy (fewer may be a moment's hiccup).
	badRunEnd = 2
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
	// up: the HTTP server said it is up (line number and time).
	up   int64
	upAt time.Time
	// badRun counts the bad health answers in a row at the end of the
	// answers seen in the log so far (0: the last one was good), bad the
	// last of them.
	badRun int
	bad    observe.Health
	// readyNo is the line of the ready verdict while the run is on
	// probation (0: not), readyAt its time; badLines are the bad health
	// answers seen on probation (badRunEnd at most).
	readyNo  int64
	readyAt  time.Time
	badLines []string
	// banners are the start banners this run printed (a few).
	banners []string
	// died: the run printed a start-up crash block (crash.go) ending in
	// diedLine: its process is gone.
	died     bool
	diedLine string
	// stale: lines were counted without reading their stamps (idle).
	stale  bool
	ring   [ringSize]string
	ringN  int
	server string
	// readyLine is the line of the ready verdict (0: none); tail the
	// lines after it that tell how the life ended (life.go); atLogEnd is
	// set when the log ends with the run.
	readyLine int64
	tail      lifeTail
	atLogEnd  bool
}

// newRun starts judging a run whose first line is lines[0]; t0 is its
// start (the first stamp near its start, or a fixed time when unstamped).
func newRun(server string, first *logline.Span, t0 int64) *runState {
	st := &runState{off: first.Off, first: first.No, last: first.No}
	st.t0 = time.Unix(0, t0)
	st.t = t0
	st.j = judge.New(judge.Config{Server: server, NoHealth: true, NoConfig: true}, st.t0)
	st.server = st.j.Server()
	st.prof = classify.Lookup(st.server)
	st.spans = []observe.PhaseSpan{{Phase: v.Launch, Start: st.t0}}
	st.drain()
	return st
}

func (st *runState) now() time.Time { return time.Unix(0, st.t) }

// idle: the run is ready, so its further lines change nothing but its
// line count and end.
func (st *runState) idle() bool {
	return st.result != nil && st.result.Verdict == v.Ready && !st.probation()
}

// probation: the run printed its ready line a moment ago; the health
// answers in its access log may still show it unhealthy.
func (st *runState) probation() bool { return st.readyNo > 0 }

// afterReady reads a line of a run on probation: a good health answer
// confirms it ready, bad ones in a row make it a health failure, and the
// probation ends after upSettle (by the stamps) or upSettleLines.
func (st *runState) afterReady(l *logline.Span, now time.Time) {
	if now.Sub(st.readyAt) >= upSettle || l.No-st.readyNo >= upSettleLines {
		st.readyNo = 0
		return
	}
	text := l.Text
	if strings.Contains(text, "HTTP/1.") || strings.Contains(text, "request: ") {
		if h, ok := accessHealth(text); ok {
			if h.State == observe.HealthOK {
				st.readyNo = 0
				return
			}
			st.badRun++
			st.bad = h
			st.badLines = append(st.badLines, clip(text, 300))
			if st.badRun >= badRunEnd {
				st.unhealthy()
			}
		}
	}
}

// unhealthy turns a ready verdict into a health failure: after its ready
// line the server's access log shows its health endpoint answering badly.
func (st *runState) unhealthy() {
	r := st.result
	ev := append([]string{}, r.Evidence[:min(1, len(r.Evidence))]...)
	ev = append(ev, st.badLines...)
	phase := v.Serving
	if n := len(st.spans); n >= 2 {
		phase = st.spans[n-2].Phase // the one before ready
	}
	st.result = &observe.Result{Verdict: v.Failed, Cause: v.Health, Phase: phase, At: r.At,
		Summary:  fmt.Sprintf("the server printed its ready line but /health then answered HTTP %d", st.bad.Code),
		Evidence: ev, Hint: judge.UnhealthyHint, RuleID: "health.after_ready"}
	st.readyNo = 0
}

// stampAt takes the stamp t (Unix ns) of the latest line.
func (st *runState) stampAt(t int64) {
	if st.start == 0 {
		st.start = t
	}
	st.end = t
	st.t = t
}

// feed judges one line stamped at t (0: unstamped).
func (st *runState) feed(l *logline.Span, m *meta, t int64) {
	st.last = l.No
	if t != 0 {
		st.stampAt(t)
	}
	if m.flags&fDied != 0 && !st.died {
		st.died, st.diedLine = true, strings.Clone(l.Text)
	}
	if st.result != nil {
		if st.probation() {
			st.afterReady(l, st.now())
		}
		return
	}
	if m.flags&fSkip != 0 {
		return
	}
	if m.flags&fBanner != 0 && len(st.banners) < 4 {
		st.banners = append(st.banners, strings.Clone(m.banner))
	}
	// The line's text lives in a read buffer that is reused: whatever
	// keeps it (the judge, the evidence ring) gets a copy.
	text := strings.Clone(l.Text)
	if strings.TrimSpace(text) != "" {
		st.ring[st.ringN%ringSize] = text
		st.ringN++
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
		return
	}
	st.j.Line(logline.Line{Text: text, Offset: l.Off, CR: l.CR, Cut: l.Cut}, now)
	st.drain()
	st.watch(text, now)
	if st.tick(now) {
		return
	}
	switch {
	case st.fatal > 0 && st.last-st.fatal >= settleLines:
		st.tick(now.Add(judge.SettleMax))
	case st.up > 0 && st.fatal == 0 && st.badRun == 0 && !st.prof.ReadyNeedsLine &&
		(now.Sub(st.upAt) >= upSettle || st.last-st.up >= upSettleLines):
		st.readyByUp()
	}
}

// tick asks the judge for a verdict at now.
func (st *runState) tick(now time.Time) bool {
	r := st.j.Tick(now)
	if r == nil {
		return false
	}
	st.result = r
	st.drain()
	if r.Verdict == v.Ready {
		// See what the health answers say next (readyByUp has waited
		// already and ends this).
		st.readyNo, st.readyAt, st.badRun = st.last, now, 0
		st.readyLine = st.last
	}
	return true
}

// drain takes the judge's events: phases, the server kind, the first
// fatal line.
func (st *runState) drain() {
	for _, e := range st.j.Events() {
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
		}
	}
}

// watch looks for what only the log can tell offline: the server saying
// it listens, and health answers in its access log.
func (st *runState) watch(t string, now time.Time) {
	if st.up == 0 && classify.SaysListening(t) {
		st.up, st.upAt = st.last, now
	}
	if strings.Contains(t, "HTTP/1.") || strings.Contains(t, "request: ") {
		if h, ok := accessHealth(t); ok {
			h.Seen = clip(t, 300)
			if h.State == observe.HealthOther {
				st.badRun++
				st.bad = h
			} else {
				st.badRun = 0
			}
			st.j.Health(h, now)
			st.drain()
		}
	}
}

// readyByUp decides ready for a server whose readiness is its health
// answer: it said it listens and nothing went wrong since.
func (st *runState) readyByUp() {
	st.j.Health(observe.Health{State: observe.HealthOK, Code: 200,
		Seen: "[vigil] no error and no bad health answer in the log after the server said it listens"}, st.upAt)
	st.tick(st.upAt)
	st.readyNo = 0
}

// healthPaths are the endpoints whose answers tell the server's health.
var healthPaths = map[string]bool{
	"/health": true, "/health_generate": true, "/v1/models": true, "/ping": true,
	"/get_model_info": true, "/model_info": true, "/get_server_info": true,
}

// accessHealth reads a health answer from an access-log line: uvicorn's
// `"GET /health HTTP/1.1" 500 Internal Server Error` or llama.cpp's
// `request: GET /health 127.0.0.1 503`. A 2xx answer to any request means
// the server answers; other statuses count only from health endpoints.
func accessHealth(line string) (observe.Health, bool) {
	var method, path string
	code := 0
	if i := strings.Index(line, " HTTP/1."); i > 0 {
		q := strings.LastIndexByte(line[:i], '"')
		if q < 0 {
			return observe.Health{}, false
		}
		method, path, _ = strings.Cut(line[q+1:i], " ")
		code = statusAfter(line[i+1:])
	} else if i := strings.Index(line, "request: "); i >= 0 {
		f := strings.Fields(line[i+9:])
		if len(f) < 4 {
			return observe.Health{}, false
		}
		method, path = f[0], f[1]
		code = leadingInt(f[3])
	}
	if method == "" || code < 100 || code > 599 {
		return observe.Health{}, false
	}
	path, _, _ = strings.Cut(path, "?")
	switch {
	case code >= 200 && code < 300:
		return observe.Health{State: observe.HealthOK, Code: code}, true
	case !healthPaths[path], code == 401 || code == 403:
		// A refused API key says nothing about the server's health.
		return observe.Health{}, false
	case code == 503:
		return observe.Health{State: observe.HealthStarting, Code: code}, true
	}
	return observe.Health{State: observe.HealthOther, Code: code}, true
}

// statusAfter reads the status after `1.1" ` in an access line.
func statusAfter(s string) int {
	i := strings.IndexByte(s, '"')
	if i < 0 {
		return 0
	}
	return leadingInt(strings.TrimLeft(s[i+1:], " "))
}

func leadingInt(s string) int {
	n, d := 0, 0
	for d < len(s) && d < 4 && s[d] >= '0' && s[d] <= '9' {
		n = n*10 + int(s[d]-'0')
		d++
	}
	if d != 3 {
		return 0
	}
	return n
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
	return st.result != nil || st.failed()
}

// failed: the run failed, announced a failure, or its output ends in an
// error (the traceback a dying Python process prints last).
func (st *runState) failed() bool {
	if st.result != nil {
		return st.result.Verdict == v.Failed
	}
	return st.fatal > 0 || st.died || st.endsInError() && st.j.Offline().Verdict == v.Failed
}

// endsInError reports whether the run's last line that says something is
// an error: a failure line or the exception line that ends a traceback.
// Benign lines and indented ones (the source line Python prints under a
// warning) are passed over: a restart's first lines, before its banner,
// may be such noise.
func (st *runState) endsInError() bool {
	for i := st.ringN - 1; i >= 0 && i >= st.ringN-ringSize; i-- {
		l := st.ring[i%ringSize]
		if l[0] == ' ' || l[0] == '\t' {
			continue
		}
		c := st.prof.Classify(l)
		if c.Benign {
			continue
		}
		return c.Failure != nil || c.Exception
	}
	return false
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
	if st.progressed() || st.ended() {
		return true
	}
	if len(st.banners) == 0 {
		return false
	}
	if s := classify.BannerServer(b); st.server != "" && s != "" && s != st.server {
		return true // another server starts
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
	if st.result == nil && st.badRun >= badRunEnd {
		// The log ends in bad health answers: the server was stopped
		// unhealthy. Live, the probes would have gone on answering so.
		for i := range 3 {
			st.j.Health(st.bad, end.Add(time.Duration(i+1)*time.Second))
		}
	}
	if st.result == nil {
		// A fatal line settles, a bad health streak counts, as they would
		// have live once time moved on.
		st.tick(end.Add(judge.SettleMax + 3*time.Second))
	}
	if st.result == nil && st.up > 0 && st.badRun == 0 && !st.prof.ReadyNeedsLine {
		st.readyByUp()
	}
	if st.result == nil && (st.j.Offline().Verdict == v.Failed || st.endsInError()) {
		// Errors but no fatal line, and the log ends: the server died of
		// them (a traceback is the last thing a dying Python process
		// prints). Judge them as the live judge does when the process is
		// gone, without claiming to have seen it go.
		st.j.Exit(observe.Exit{Gone: true}, end)
		if st.tick(end) {
			ev := st.result.Evidence
			if n := len(ev); n > 0 && strings.HasPrefix(ev[n-1], "[vigil] the server process") {
				st.result.Evidence = ev[:n-1]
			}
		}
	}
	r := &Run{
		Server:    st.server,
		FirstLine: st.first,
		Lines:     st.last - st.first + 1,
		Offset:    st.off,
		Timed:     st.start != 0,
	}
	if st.start != 0 {
		r.Start, r.End = time.Unix(0, st.start), time.Unix(0, st.end)
	}
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
		r.Phases = phases(st.spans, r.Start, at, r.Timed, res.Verdict == v.Ready)
		if res.Verdict == v.Ready {
			r.Life = st.lifeAfterReady(res.At, r.Timed)
		}
		switch {
		case res.Verdict != v.Ready:
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
	r.Summary = fmt.Sprintf("ended in phase %s without a verdict", ph)
	if st.start != 0 {
		r.Summary += fmt.Sprintf(" (%s after its first line)", fmtDur(end.Sub(time.Unix(0, st.start))))
	}
	r.Hint = noVerdictHint(ph)
	r.Evidence = append([]string{"[vigil] the log ends in phase " + string(ph) + " with no ready line and no failure: offline, a stall or a timeout can only be suspected"}, st.lastLines()...)
	r.Phases = phases(st.spans, r.Start, end, r.Timed, false)
	return r
}

func (st *runState) lastLines() []string {
	var out []string
	for i := max(0, st.ringN-ringSize); i < st.ringN; i++ {
		out = append(out, clip(st.ring[i%ringSize], 300))
	}
	return out
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
func noVerdictHint(ph v.Phase) string {
	base := "if the server is still starting, judge it live with `vigil watch --log FILE`; if it was stopped here, "
	switch ph {
	case v.Distributed:
		return base + "suspect a rank or node that never joined: check every node started and reaches --dist-init-addr / MASTER_ADDR, NCCL_SOCKET_IFNAME, and rerun with NCCL_DEBUG=INFO"
	case v.Weights:
		return base + "suspect weight loading: a download without network, a lock on the Hugging Face cache, or a slow network filesystem"
	case v.KVCache, v.CUDAGraph, v.Compile, v.Warmup:
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

func clip(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	return strings.Clone(s[:n]) + "…"
}

func fmtDur(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func orServer(s string) string {
	if s == "" {
		return "the server"
	}
	return s
}
