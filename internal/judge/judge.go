// Package judge decides how a server's startup is going and how it ended.
//
// A Judge is a pure state machine: it is fed the server's log lines, health
// probe results, liveness samples and the process's exit, each with the time
// it happened, and Tick tells it what time it is now. It never reads a clock
// or does I/O, so every decision (including stalls and timeouts) is tested
// with plain values.
package judge

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"vigil/internal/classify"
	"vigil/internal/lazyre"
	"vigil/internal/learn"
	"vigil/internal/logline"
	"vigil/internal/observe"
	"vigil/internal/srvconfig"
	v "vigil/internal/verdict"
)

// Config holds what the judge needs to know about this startup.
type Config struct {
	// Server is the server kind; "" means detect it from Argv or the log.
	Server string
	// Argv is the server's command line, when known (for hints).
	Argv []string
	// StallAfter is how long without any sign of progress counts as a stall.
	StallAfter time.Duration
	// Timeout is the whole startup's budget.
	Timeout time.Duration
	// Attached, when after the start, is when vigil attached to a startup
	// already under way (the lines before are judged at their stamps'
	// times): the budget and the quiet before a stall count from then, as
	// they would have without those stamps.
	Attached time.Time
	// URLGuessed is true when the health URL was not given but guessed;
	// then a server whose ready line came but whose guessed port never
	// answers is still called ready, with a warning. With the URL given,
	// a health endpoint that never answers fails the start instead
	// (unanswered.go).
	URLGuessed bool
	// Smoke asks for a generation request once the server is ready.
	Smoke bool
	// NoHealth is true when there is no health endpoint to probe at all.
	NoHealth bool
	// SplitRuns: the log is one vigil only watches, where a later start of
	// the server may follow this one: a start clue restarts the judge, and
	// so does a truncation or rotation (logline.Line.Fresh) whose first
	// line is one. Without it (vigil launched the server and holds its log)
	// a truncated log is the same process's, cut by copytruncate: the same
	// run.
	SplitRuns bool
	// Member: this is a non-serving member of a multi-node start (a node
	// of rank > 0); the profile's MemberReady lines are its ready lines.
	Member bool
	// Readiness are the numbers of the readiness rules (readiness.go);
	// zero: LiveReadiness.
	Readiness Readiness
	// Expect are values the server's printed configuration must show.
	Expect []srvconfig.Expect
	// Learned is what history says about startups like this one, and
	// LearnedFingerprint the configuration it was learned for; nil when
	// there is no history. LearnedConfig is that configuration itself,
	// when known: then only settings this start has printed so far are
	// compared with it, so an early partial line (vLLM's non-default
	// args before the engine's full config) does not look like another
	// configuration.
	Learned            *learn.Expectation
	LearnedFingerprint string
	LearnedConfig      srvconfig.Config
	// AutoWindows: Timeout and StallAfter came from Learned. When the
	// server turns out to run another configuration, they fall back to
	// FallbackTimeout and FallbackStall.
	AutoWindows                    bool
	FallbackTimeout, FallbackStall time.Duration
	// PortTaken is the preflight's note that something already listened
	// on the server's port before the launch ("" when nothing did): a
	// server that then exits with an error status and no error line of
	// its own (llama-server may lose its last lines when it exits fast)
	// most likely failed to bind.
	PortTaken string
	// LastGood is the configuration the last good (ready) start of the same
	// model on the same host printed, and LastGoodID its history ID: the
	// keys that now differ are named (drift.go). Empty: no such start.
	LastGood   srvconfig.Config
	LastGoodID int64
	// CheckpointQuant are the names of the model checkpoint's own
	// quantization (checkpoint.Quantization.Names; nil: unknown): a
	// server that prints quantization=None runs with it, and --expect
	// quantization is judged against it.
	CheckpointQuant []string
	// NoConfig: the caller reads no configuration from the result (explain
	// reports none), so the printed configuration is not collected, unless
	// something here needs it (Expect, LastGood, Learned). Result.Config,
	// Important and Fingerprint are empty then, and no ConfigSeen comes.
	NoConfig bool
	// NoProgressEvents: the caller reads no Progress events (explain,
	// which drains after every line of a log full of bars), so none is
	// made. Progress still holds the latest bar.
	NoProgressEvents bool
}

// Settle is how long the log must be quiet after a fatal line before the
// judge decides, so that the rest of a traceback belongs to the evidence.
const Settle = 700 * time.Millisecond

// SettleShort is the quiet that ends the wait after a fatal line when a
// rule names the cause and the last line closes its evidence (a
// traceback's final exception line, a complete log record): the rest of a
// burst arrives with it. The long Settle is for evidence that may
// continue, and for echoes without a cause, whose root may come later.
const SettleShort = 50 * time.Millisecond

// SettleMax bounds the wait after a fatal line for a server that keeps
// printing.
const SettleMax = 3 * time.Second

// signal is a line that says something went wrong.
type signal struct {
	rule      *classify.FailureRule
	exception bool
	// frame is the cause its traceback's frames give (classify.Frame)
	// to an exception without a rule of its own; phase the step they show
	// it was raised in (classify.Frame).
	frame  *classify.FailureRule
	phase  v.Phase
	raw    string
	msg    string
	source string
	at     time.Time
	seq    int
}

// earlyLine is a line read before the server was known.
type earlyLine struct {
	raw string
	at  time.Time
	seq int
	// notable: a notable rule read it already (a common one).
	notable bool
}

// maxEarly bounds the lines kept while the server is not known.
const maxEarly = 64

// shownLine is a line kept to be shown as evidence, with its source.
type shownLine struct {
	raw, source string
}

type recentLine struct {
	raw    string
	source string
	msg    string                // set in errLines only
	rule   *classify.FailureRule // the failure rule of an errLines line, if any
	at     time.Time             // when an errLines line came
}

// Judge is the state machine. Its zero value is not usable: use New.
type Judge struct {
	cfg    Config
	base   Config // as given to New, for a restart (restart.go)
	prof   *classify.Profile
	server string
	start  time.Time
	// memo classifies lines (nil: without remembering); UseMemo sets it.
	memo *classify.Memo
	// budgetFrom is when the budget counts from: the start, or the attach
	// (Config.Attached).
	budgetFrom time.Time
	phase      v.Phase
	phaseIx    int
	spans      []observe.PhaseSpan

	lastProgress time.Time
	// waitMsg is the last line's message when it is one a server repeats
	// while it waits (classify.IsWaiting); a stall then says what for.
	waitMsg      string
	lastLineAt   time.Time
	evidenceOpen bool // the last line may be continued (see evidenceOpen)
	lastMeaning  string
	progress     *classify.Progress
	seq          int

	health        observe.Health
	healthAt      time.Time
	healthChanged time.Time
	healthOKSince time.Time
	badHealth     int // consecutive unexpected statuses after the server said it is up
	badHealthAt   time.Time
	readyLine     bool
	readyLineAt   time.Time
	noHTTP        bool // the ready line said the server serves no HTTP
	upSaid        bool
	readyLineText string
	upLineText    string
	upSaidAt      time.Time
	listenURL     string // where the server said it listens (ListenURL)
	// servingBefore is the line that showed the log begins mid-serving
	// (BeginsServing).
	servingBefore string
	// rootAt is when the line was read whose traceback showed the step
	// of the failure being decided (failure, for Tick).
	rootAt time.Time
	// assertText is the latest assert statement a traceback printed, on
	// line assertLine (assertion).
	assertText string
	assertLine int
	// sawStep: a line marked a step of the start (its banner too).
	sawStep bool
	// early are the lines that said nothing while the server was not
	// known yet (at most maxEarly): its catalogue reads them once it is.
	early []earlyLine
	// lines counts the lines fed, upLines at the first up line; waiting
	// is a ready verdict held for the answers after its line, holdReady
	// set by the rule that asks for that (readiness.go).
	lines     int
	upLines   int
	waiting   *waitingReady
	holdReady bool
	answered  bool // a probe got an HTTP answer from the server (unanswered.go)

	signals []signal // lines with a cause or an exception
	// killsOwn: a line said the server SIGKILLs its own processes now
	// (FailureRule.KillsOwn).
	killsOwn   bool
	fatal      []signal // lines that end the startup
	fatalAt    time.Time
	lastErrAt  time.Time
	lastErrSrc string

	exit    *observe.Exit
	partial logline.Line // an unterminated last line, judged if the server dies

	recent []shownLine // last lines, for stall evidence
	// wrapLine is the number of the last line of a wrapper's failure (its
	// announcement or the detail right under it).
	wrapLine int
	// panicLine is the number of a Rust panic's header or message line
	// (0: none yet).
	panicLine int
	// errLines are the first lines at an error level that no rule gives a
	// cause (an unknown message after format drift): the evidence and
	// summary of a failure no rule explains.
	errLines []recentLine
	pulse    pulse           // kernel configs and notable warnings (pulse.go)
	drifted  map[string]bool // config keys already named as changed (drift.go)

	smokeState int // 0 none, 1 wanted, 2 running, 3 done
	smokeRes   *observe.SmokeResult
	authSaid   bool

	events []observe.Event
	result *observe.Result
	warned map[string]bool
	// frame is the cause the frames of the traceback being printed give
	// (classify.Frame), for an exception without one of its own.
	frame *classify.FailureRule
	// framePhase is the phase of the innermost frame, so far, of the
	// traceback being printed that names one (classify.Frame).
	framePhase v.Phase

	activity  string
	quietSaid time.Time

	config *srvconfig.Collector
	// collect: the configuration is read from the lines (not NoConfig).
	collect bool
	// configGen and configKind are the collector's generation and the
	// server kind configChanged last read.
	configGen   int
	configKind  string
	fingerprint string
	// relClock is the last relative time (llama.cpp's clock) a line
	// carried, relTicking whether one did (newRun).
	relClock   time.Duration
	relTicking bool
	// learnedDeclared is LearnedConfig's declared settings (otherConfig).
	learnedDeclared map[string]string
	mismatch        *srvconfig.Outcome
	phaseAt         time.Time
}

// New starts judging a startup that began at start.
func New(cfg Config, start time.Time) *Judge {
	if cfg.Readiness == (Readiness{}) {
		cfg.Readiness = LiveReadiness
	}
	budgetFrom := start
	if cfg.Attached.After(start) {
		budgetFrom = cfg.Attached
	}
	j := &Judge{cfg: cfg, base: cfg, start: start, budgetFrom: budgetFrom, lastProgress: budgetFrom, warned: map[string]bool{}, phaseAt: start}
	j.collect = !cfg.NoConfig || len(cfg.Expect) > 0 || len(cfg.LastGood) > 0 || cfg.Learned != nil
	kind := cfg.Server
	if kind == "" || kind == "auto" {
		kind = classify.DetectCommand(cfg.Argv)
	}
	j.setServer(kind, start)
	j.phase = v.Launch
	j.spans = []observe.PhaseSpan{{Phase: v.Launch, Start: start}}
	return j
}

func (j *Judge) setServer(kind string, now time.Time) {
	j.server = kind
	j.prof = classify.Lookup(kind)
	if j.config == nil {
		j.config = srvconfig.NewCollector(kind)
	}
	j.config.Kind = kind
	j.phaseIx = j.prof.Index(j.phase)
	if kind != "" {
		j.emit(now, observe.ServerSeen{Server: kind})
		j.reclassify()
		j.readEarly()
	}
}

// readEarly reads the lines that said nothing before the server was known
// with its catalogue: a tail of a log may name a step or an error before
// any line names the server (SGLang's untagged "Capture cuda graph
// begin.", a node's "Scheduler or DataParallelController N terminated
// with 255" before its tagged lines), or a notable warning
// (llama-server's "no usable GPU found", printed before its logger
// starts).
func (j *Judge) readEarly() {
	early := j.early
	j.early = nil
	for _, e := range early {
		c := j.memo.Classify(j.prof, e.raw)
		if c.Notable != nil && !e.notable {
			j.feedPulse(&c, e.at)
		}
		if c.Phase != "" && c.Failure == nil && !c.Exception {
			// (Not advance: the errors read since came after this line,
			// and a step before them does not clear them.)
			j.sawStep = true
			if ix := j.prof.Index(c.Phase); ix > j.phaseIx || c.Back && ix >= 0 && c.Phase != j.phase {
				j.reached(c.Phase, e.at)
			}
		}
		f := c.Failure
		if f == nil || f.Cause == "" && !f.Fatal || len(j.signals) >= maxSignals || len(j.fatal) >= maxSignals {
			continue
		}
		sg := signal{rule: f, raw: c.Raw, msg: c.Msg, source: c.Source, at: e.at, seq: e.seq}
		if f.Fatal {
			j.fatal = insertBySeq(j.fatal, sg)
			if j.fatalAt.IsZero() || e.at.Before(j.fatalAt) {
				j.fatalAt = e.at
				j.emit(e.at, observe.Failing{Line: c.Raw})
			}
		}
		if f.Cause != "" {
			j.signals = insertBySeq(j.signals, sg)
		}
	}
}

// insertBySeq inserts s among ss, which are in the order they were read.
func insertBySeq(ss []signal, s signal) []signal {
	i := len(ss)
	for i > 0 && ss[i-1].seq > s.seq {
		i--
	}
	return slices.Insert(ss, i, s)
}

// reclassify reads the errors recorded before the server was known again,
// with its catalogue: a log that starts late (a pasted tail, a watch
// attached mid-start) may show the error before any line that names the
// server ("NotImplementedError: Sharded Llama requires Flash Attention
// enabled models." above TGI's launcher lines).
func (j *Judge) reclassify() {
	for i := range j.signals {
		s := &j.signals[i]
		if s.rule != nil && s.rule.Fatal {
			continue // (already decisive)
		}
		f := j.memo.Classify(j.prof, s.raw).Failure
		if f == nil || f == s.rule || f.Cause == "" {
			continue
		}
		s.rule, s.exception = f, false
		if f.Fatal && len(j.fatal) < maxSignals {
			j.fatal = append(j.fatal, *s)
			if j.fatalAt.IsZero() {
				j.fatalAt = s.at
			}
		}
	}
}

// Server is the server kind, or "" while unknown.
func (j *Judge) Server() string { return j.server }

// UseMemo makes the judge classify lines through m (nil: none). A Memo
// takes no locks: m must belong to the goroutine that feeds the judge
// from now on.
func (j *Judge) UseMemo(m *classify.Memo) { j.memo = m }

// Phase is the phase the server has reached.
func (j *Judge) Phase() v.Phase { return j.phase }

// Progress is the latest progress bar, or nil.
func (j *Judge) Progress() *classify.Progress { return j.progress }

// LastLine is the last meaningful line of output.
func (j *Judge) LastLine() string { return j.lastMeaning }

// Up reports whether a ready or listening line has been seen.
func (j *Judge) Up() bool { return j.upSaid }

// ListenURL is the base URL the server printed that it listens at, when
// the health URL was guessed (--port 0, a port from a config file or an
// environment the guess does not read), or "".
func (j *Judge) ListenURL() string { return j.listenURL }

// HealthNow is the latest health probe result.
func (j *Judge) HealthNow() observe.Health { return j.health }

// LastProgress is when the latest sign of progress of any kind came.
func (j *Judge) LastProgress() time.Time { return j.lastProgress }

// Done is the verdict, once there is one.
func (j *Judge) Done() *observe.Result { return j.result }

// Budget is the --timeout and --stall-after in force now (a learned one
// falls back when the configuration differs) and the last sign of
// progress, from which the stall window counts.
func (j *Judge) Budget() (timeout, stallAfter time.Duration, lastProgress time.Time) {
	return j.cfg.Timeout, j.cfg.StallAfter, j.lastProgress
}

func (j *Judge) emit(at time.Time, data observe.Payload) {
	// Undrained events (a judge fed a whole stale log at once) are
	// dropped past a cap rather than kept without bound.
	if len(j.events) >= maxEvents {
		return
	}
	j.events = append(j.events, observe.Event{At: at, Data: data})
}

// Events returns and forgets the events since the last call.
func (j *Judge) Events() []observe.Event {
	ev := j.events
	j.events = nil
	return ev
}

// DrainEvents calls fn with each event since the last call, in order,
// and forgets them, keeping their array for the next ones: for a caller
// that drains after every line (explain), where a new array each time was
// one allocation per line with an event. fn must not feed the judge.
func (j *Judge) DrainEvents(fn func(observe.Event)) {
	for _, e := range j.events {
		fn(e)
	}
	clear(j.events)
	j.events = j.events[:0]
}

// Line feeds one line of output read at now; a JSON record whose message
// holds several lines is fed as one record per line.
func (j *Judge) Line(l logline.Line, now time.Time) {
	if len(l.Text) < 2 || l.Text[0] != '{' {
		j.line(l, now) // not a JSON record: most lines
		return
	}
	if records, ok := classify.SplitJSONRecord(l.Text); ok {
		for i, r := range records {
			part := l
			part.Text, part.Fresh = r, l.Fresh && i == 0
			j.line(part, now)
		}
		return
	}
	j.line(l, now)
}

func (j *Judge) line(l logline.Line, now time.Time) {
	if j.result != nil {
		return
	}
	if j.cfg.SplitRuns && (l.Fresh && j.lines > 0 && startClue(l.Text) || j.newRun(l)) {
		j.restart(now)
	}
	j.lines++
	if w := j.waiting; w != nil {
		// After a ready line only the health answers count
		// (readiness.go), and a failure to bind the port: TGI's router
		// says "Connected" before it binds, and one that cannot never
		// served.
		if w.unbound == nil && classify.MayFailBind(l.Text) && !j.over(w, now) {
			if c := j.memo.Classify(j.prof, l.Text); c.Failure != nil && c.Failure.Cause == v.PortInUse {
				w.unbound = &recentLine{raw: l.Text, source: c.Source, msg: c.Msg, rule: c.Failure}
			}
		}
		return
	}
	j.lastLineAt = now
	if j.server == "" {
		if kind := classify.DetectLog(l.Text); kind != "" {
			j.setServer(kind, now)
		}
	}
	c := j.memo.Classify(j.prof, l.Text)
	j.assertion(&c)
	if j.server == "" && c.Phase == "" && c.Failure == nil && !c.Exception && len(j.early) < maxEarly && !logline.Blank(c.Msg) {
		j.seq++
		j.early = append(j.early, earlyLine{raw: l.Text, at: now, seq: j.seq, notable: c.Notable != nil})
	}
	j.evidenceOpen = evidenceOpen(l, c.Msg)
	if !c.Waiting {
		j.lastProgress = now
		j.waitMsg = ""
	} else {
		j.waitMsg = c.Msg
	}
	// A step's own line gone wrong says the server got to that step; an
	// error that merely names a step (a missing libmpi, a failed NCCL
	// call) is not the server reaching it.
	if c.Failure != nil && c.Failure.Reached != "" {
		j.advance(c.Failure.Reached, false, c.Source, now)
	}
	if c.Phase != "" {
		j.sawStep = true
	}
	if c.Phase != "" && c.Failure == nil && !c.Exception {
		if r := c.PhaseRule; r != nil && r.Lasted != "" {
			j.lasted(r.Lasted, c.Msg, c.Source, now)
		}
		j.advance(c.Phase, c.Back, c.Source, now)
		if c.Source != "" {
			// A rank that printed a step after its errors was not
			// stopped by them, though another rank had moved the phase
			// there first (SGLang's TP3 warns that amdsmi did not import,
			// then loads its weights like the seven others).
			j.dropSignals(c.Source)
		}
	}
	if c.Progress != nil {
		p := *c.Progress
		j.progress = &p
		if !j.cfg.NoProgressEvents {
			j.emit(now, observe.Progress{Desc: p.Desc, Done: p.Done, Total: p.Total, Percent: p.Percent, Rate: p.Rate, ETA: p.ETA})
		}
	}
	if l.Partial {
		j.partial = l
		return
	}
	j.partial = logline.Line{}
	if c.Kernel != nil || c.Notable != nil {
		j.feedPulse(&c, now)
	}
	if j.collect {
		if kv := j.config.Feed(c.Msg); len(kv) > 0 {
			j.configChanged(now)
		}
	}
	if !logline.Blank(c.Msg) && c.Progress == nil {
		j.lastMeaning = c.Raw
		if j.recent == nil {
			j.recent = make([]shownLine, 0, 65)
		}
		j.recent = append(j.recent, shownLine{raw: c.Raw, source: c.Source})
		if len(j.recent) > 64 {
			// Moved to the front, so that the array is allocated once.
			j.recent = j.recent[:copy(j.recent, j.recent[len(j.recent)-32:])]
		}
	}
	if !c.Ready && j.cfg.Member && !j.readyLine && j.memberReady(c.Msg) {
		c.Ready = true
	}
	if c.Ready && !j.readyLine {
		j.readyLineText = c.Raw
		j.readyLine = true
		j.readyLineAt = now
		j.noHTTP = c.NoHTTP
		j.sayUp(now)
		j.emit(now, observe.ReadyLine{Line: c.Raw})
	}
	if c.Listening {
		j.upLineText = c.Raw
		j.sayUp(now)
	}
	if j.cfg.URLGuessed && j.listenURL == "" && (c.Listening || c.Ready || c.Phase == v.Serving) {
		j.listenURL = classify.ListenAddress(c.Msg)
	}
	source := c.Source
	if source == "" && c.Stamp == "" && now.Sub(j.lastErrAt) < time.Second {
		// Unprefixed continuation lines (traceback frames and the final
		// exception) belong to the process whose error is being printed.
		source = j.lastErrSrc
	}
	if c.Failure == nil && !c.Exception && j.afterWrapper(now) && strings.HasPrefix(c.Msg, "  ") && !strings.HasPrefix(c.Msg, "   ") {
		// The errors a wrapper line announces follow it indented by two
		// spaces (pydantic); read them without the indent, which
		// otherwise marks a traceback's source line. One that no rule
		// knows is the wrapper's detail ("  Value error, max_batch_size
		// [2048] is greater than build_config.max_batch_size [64]"): it
		// is evidence of the wrapper's failure.
		c.Failure = j.memo.Classify(j.prof, c.Msg[2:]).Failure
		if c.Failure == nil && j.wrapLine == j.lines-1 && !strings.HasPrefix(c.Msg, `  File "`) {
			c.Failure = j.signals[len(j.signals)-1].rule
		}
	}
	if c.Failure == nil && !c.Exception && c.Stamp == "" && j.panicLine > 0 && j.panicLine == j.lines-1 &&
		!logline.Blank(c.Msg) && !strings.HasPrefix(c.Msg, "note: run with `RUST_BACKTRACE") && !strings.HasPrefix(c.Msg, "stack backtrace:") {
		// The panic's own account, on the lines under its header.
		c.Failure = classify.PanicMessage
		j.panicLine = j.lines
	}
	if c.Failure != nil && c.Failure.MessageBelow && strings.HasSuffix(c.Msg, ":") {
		j.panicLine = j.lines
	}
	if c.Failure != nil && c.Failure.Wrapper {
		j.wrapLine = j.lines
	}
	if c.Failure != nil || c.Exception || c.Traceback {
		j.lastErrAt = now
		j.lastErrSrc = source
	}
	if c.IsError() && len(j.errLines) < maxErrLines && !logline.Blank(c.Msg) {
		j.errLines = append(j.errLines, recentLine{raw: c.Raw, source: source, msg: c.Msg, rule: c.Failure, at: now})
	}
	if c.Traceback {
		j.frame, j.framePhase = nil, ""
	} else if c.Failure == nil && !c.Exception {
		rule, ph := classify.Frame(c.Msg)
		if j.frame == nil {
			j.frame = rule
		}
		if ph != "" {
			j.framePhase = ph
		}
	}
	if c.Failure == nil && !c.Exception {
		return
	}
	if c.Failure != nil && c.Failure.KillsOwn {
		j.killsOwn = true
	}
	if inner := j.memo.QuotedFailure(j.prof, c.Failure, c.Msg); inner != nil && len(j.signals) < maxSignals {
		// The announcement quotes the error: its own rule is the cause,
		// counted just before the announcement.
		j.seq++
		j.signals = append(j.signals, signal{rule: inner, raw: c.Raw, msg: c.Msg, source: source, at: now, seq: j.seq})
	}
	if c.Failure != nil && c.Failure.ByKill && j.killsOwn {
		// The server is SIGKILLing its own processes: a "Killed" now
		// says nothing of the host's memory.
		return
	}
	j.seq++
	s := signal{rule: c.Failure, exception: c.Exception, raw: c.Raw, msg: c.Msg, source: source, at: now, seq: j.seq}
	if c.Failure == nil {
		s.frame = j.frame
	}
	s.phase = j.framePhase
	// Memory stays bounded on a log with millions of errors: the first
	// ones are the roots, later ones only echo them.
	if len(j.signals) >= maxSignals || len(j.fatal) >= maxSignals {
		return
	}
	if c.Failure != nil && c.Failure.Fatal {
		j.fatal = append(j.fatal, s)
		if j.fatalAt.IsZero() {
			j.fatalAt = now
			j.emit(now, observe.Failing{Line: c.Raw})
		}
	}
	if c.Exception || (c.Failure != nil && c.Failure.Cause != "") {
		j.signals = append(j.signals, s)
	}
}

// assertion reads a bare AssertionError with the assert statement that
// its traceback printed just above it (the source line, then Python
// 3.11's carets at most): "AssertionError: assert self.total_num_heads %
// tp_size == 0" says what failed, and the catalogue may know it.
func (j *Judge) assertion(c *classify.Class) {
	// (By hand: strings.TrimLeft builds its set on every call, and this
	// runs on every line.)
	i := 0
	for i < len(c.Msg) && (c.Msg[i] == ' ' || c.Msg[i] == '\t') {
		i++
	}
	if t := c.Msg[i:]; strings.HasPrefix(t, "assert ") && len(t) <= 300 && c.Failure == nil {
		j.assertText, j.assertLine = strings.TrimRight(t, " \t\r"), j.lines
		return
	}
	if !c.Exception || c.Failure != nil || strings.TrimRight(c.Msg, " \t\r") != "AssertionError" || j.assertText == "" || j.lines-j.assertLine > 2 {
		return
	}
	c.Msg = "AssertionError: " + j.assertText
	c.Failure = j.memo.Classify(j.prof, c.Msg).Failure
	j.assertText = ""
}

// evidenceOpen reports whether more of an error's evidence may follow a
// line: a traceback's header or frames (indented), a line that announces
// more (ending in ':'), the blank line between chained tracebacks, or an
// unterminated line.
func evidenceOpen(l logline.Line, msg string) bool {
	// strings.TrimRight(msg, " \t\r") by hand: it builds its set on
	// every call, and this runs on every line.
	n := len(msg)
	for n > 0 && (msg[n-1] == ' ' || msg[n-1] == '\t' || msg[n-1] == '\r') {
		n--
	}
	return l.Partial || n == 0 || msg[n-1] == ':' || msg[0] == ' ' || msg[0] == '\t'
}

func (j *Judge) sayUp(now time.Time) {
	if !j.upSaid {
		j.upSaid = true
		j.upSaidAt = now
		j.upLines = j.lines
	}
}

// advance moves to phase ph if it lies ahead in the server's order (or if
// the marker may move backwards).
func (j *Judge) advance(ph v.Phase, back bool, source string, now time.Time) {
	ix := j.prof.Index(ph)
	if ix < 0 || ph == j.phase || (ix < j.phaseIx && !back) {
		return
	}
	// The process that moved on was not stopped by the errors it printed,
	// unless a fatal line said they ended the start (llama.cpp goes on
	// to its slots after a warm-up that failed).
	j.dropSignals(source)
	from := j.phase
	j.phase, j.phaseIx = ph, ix
	// A server that flips between two phases on every line (llama.cpp's
	// projector and context lines) must not grow the list without bound:
	// past the cap, only the latest phase is kept.
	if len(j.spans) < maxSpans {
		j.spans = append(j.spans, observe.PhaseSpan{Phase: ph, Start: now})
	} else {
		j.spans[len(j.spans)-1] = observe.PhaseSpan{Phase: ph, Start: now}
	}
	j.phaseAt = now
	j.progress = nil
	j.emit(now, observe.PhaseChange{Phase: string(ph), From: string(from)})
	if e := j.cfg.Learned; e != nil && ph != v.PhaseReady {
		phaseLeft, totalLeft := learn.ETA(*e, string(ph), 0, now.Sub(j.start))
		j.emit(now, observe.ETA{Phase: string(ph), PhaseLeftS: round1(phaseLeft), TotalLeftS: round1(totalLeft), Samples: e.Samples})
	}
}

// lasted moves to phase ph from the time before now that msg says it
// lasted (classify.PhaseRule.Lasted), when ph lies ahead: no line
// announced it. It begins no earlier than the phase before it.
func (j *Judge) lasted(ph v.Phase, msg, source string, now time.Time) {
	secs, ok := classify.Seconds(msg)
	if ix := j.prof.Index(ph); !ok || ix <= j.phaseIx {
		return
	}
	at := now.Add(-time.Duration(secs * float64(time.Second)))
	if at.Before(j.phaseAt) {
		at = j.phaseAt
	}
	j.advance(ph, false, source, at)
}

// reached records a step that only an error's traceback, or a line read
// before the server was known, showed the start in, from at (no earlier
// than the step before).
func (j *Judge) reached(ph v.Phase, at time.Time) {
	if at.Before(j.phaseAt) {
		at = j.phaseAt
	}
	from := j.phase
	j.phase, j.phaseIx, j.phaseAt = ph, j.prof.Index(ph), at
	if len(j.spans) < maxSpans {
		j.spans = append(j.spans, observe.PhaseSpan{Phase: ph, Start: at})
	}
	j.emit(at, observe.PhaseChange{Phase: string(ph), From: string(from)})
}

// dropSignals forgets the errors source printed, unless a fatal line
// said that they ended the start.
func (j *Judge) dropSignals(source string) {
	if !j.fatalAt.IsZero() {
		return
	}
	kept := j.signals[:0]
	for _, s := range j.signals {
		if s.source != source {
			kept = append(kept, s)
		}
	}
	j.signals = kept
}

func round1(d time.Duration) float64 {
	return float64(d.Round(100*time.Millisecond)) / float64(time.Second)
}

// configChanged reacts to a configuration line: it tells what matters,
// checks the expectations, and drops learned windows that were learned
// for another configuration.
func (j *Judge) configChanged(now time.Time) {
	// A server prints its configuration a few times, and a line that
	// repeats what was printed changes nothing derived from it.
	if gen := j.config.Generation(); gen == j.configGen && j.server == j.configKind {
		return
	}
	j.configGen, j.configKind = j.config.Generation(), j.server
	cfg := j.config.Config()
	fp := j.config.Fingerprint(j.server)
	if fp != j.fingerprint {
		j.fingerprint = fp
		important := map[string]string{}
		for _, kv := range j.config.Important(j.server) {
			important[kv.Key] = kv.Value
		}
		j.emit(now, observe.ConfigSeen{Fingerprint: fp, Important: important})
		if j.cfg.Learned != nil && fp != "" && j.otherConfig(cfg, fp) {
			j.cfg.Learned = nil
			msg := "the configuration differs from the last start's: no ETA"
			if j.cfg.AutoWindows {
				j.cfg.Timeout, j.cfg.StallAfter = j.cfg.FallbackTimeout, j.cfg.FallbackStall
				msg += fmt.Sprintf(", windows back to --timeout %s --stall-after %s", j.cfg.Timeout, j.cfg.StallAfter)
			}
			j.emit(now, observe.Warning{Message: msg})
		}
	}
	j.checkDrift(cfg, now)
	if len(j.cfg.Expect) > 0 && j.mismatch == nil {
		for _, o := range srvconfig.Check(j.server, cfg, j.cfg.Expect) {
			if o = j.fromCheckpoint(o); o.Status == srvconfig.Mismatch {
				o := o
				j.mismatch = &o
				break
			}
		}
	}
}

// memberReady reports whether msg says a non-serving member finished
// starting.
func (j *Judge) memberReady(msg string) bool {
	for _, lit := range j.prof.MemberReady {
		if strings.Contains(msg, lit) {
			return true
		}
	}
	return false
}

// otherConfig reports whether the configuration printed so far (fp its
// fingerprint) is not the one the learned figures come from. Against the
// learned start's own configuration, each declared setting printed so far
// must have the same value there; one the learned start never printed is
// a difference too. Settings not printed yet may still come.
func (j *Judge) otherConfig(cfg srvconfig.Config, fp string) bool {
	if len(j.cfg.LearnedConfig) == 0 {
		return j.cfg.LearnedFingerprint != "" && fp != j.cfg.LearnedFingerprint
	}
	if j.learnedDeclared == nil {
		j.learnedDeclared = map[string]string{}
		for _, kv := range srvconfig.Declared(j.server, j.cfg.LearnedConfig) {
			j.learnedDeclared[kv.Key] = kv.Value
		}
	}
	for _, kv := range srvconfig.Declared(j.server, cfg) {
		if was, ok := j.learnedDeclared[kv.Key]; !ok || was != kv.Value {
			return true
		}
	}
	return false
}

// Activity feeds one liveness sample.
func (j *Judge) Activity(a observe.Activity, now time.Time) {
	if j.result != nil {
		return
	}
	if a.Busy {
		j.lastProgress = now
		j.activity = a.Detail
	} else {
		j.activity = ""
		// Time the server spent waiting for a CPU it was ready to use
		// says nothing about it (a crowded machine), like vigil's own
		// starvation: it does not count towards a stall.
		if a.Waited > 0 {
			if j.lastProgress = j.lastProgress.Add(a.Waited); j.lastProgress.After(now) {
				j.lastProgress = now
			}
		}
	}
	// While the log is silent but the processes work, say so now and then:
	// the first time after a few seconds, then every 30 seconds.
	quiet := now.Sub(j.lastLineAt)
	if a.Busy && !j.lastLineAt.IsZero() && quiet >= quietFirst && now.Sub(j.quietSaid) >= quietEvery {
		j.quietSaid = now
		j.emit(now, observe.Quiet{QuietS: math.Round(quiet.Seconds()), Activity: a.Detail})
	}
}

// quietFirst and quietEvery pace the "quiet but still working" events.
const (
	quietFirst = 3 * time.Second
	quietEvery = 30 * time.Second
)

// ActivityText says what the processes did at the last sample, or "".
func (j *Judge) ActivityText() string { return j.activity }

// Exit feeds the end of the server's main process. Its output up to the
// exit must have been fed already.
func (j *Judge) Exit(e observe.Exit, now time.Time) {
	if j.exit == nil {
		if j.partial.Text != "" {
			l := j.partial
			l.Partial = false
			j.Line(l, now)
		}
		j.exit = &e
		j.emit(now, observe.ExitSeen{Status: e.String()})
	}
}

// Starved tells the judge that vigil itself did not run for d (a machine
// so loaded that vigil's own loop stalled): that time says nothing about
// the server, so it does not count towards a stall.
func (j *Judge) Starved(d time.Duration) {
	if j.result == nil && d > 0 {
		j.lastProgress = j.lastProgress.Add(d)
	}
}

// WantSmoke reports whether the smoke request should start now.
func (j *Judge) WantSmoke() bool {
	if j.smokeState == 1 {
		j.smokeState = 2
		return true
	}
	return false
}

// Smoke feeds the smoke request's outcome.
func (j *Judge) Smoke(r observe.SmokeResult, now time.Time) {
	j.smokeRes = &r
	j.smokeState = 3
	j.emit(now, observe.Smoke{OK: r.OK, Reason: r.Reason, Answer: r.Answer, LatencyMS: r.Latency.Milliseconds(), Endpoint: r.Endpoint})
}

// BeginsServing is for the offline judge, given each line before Line
// until the server reached a step: when it is one only a started server
// prints (a pasted crash, a rotated file, a launcher's last words), or a
// request to its API that it served, readiness passed before the log
// began, and the next Tick says so with the line as its evidence.
func (j *Judge) BeginsServing(line string, now time.Time) bool {
	if j.result != nil || j.sawStep || !j.fatalAt.IsZero() || j.readyLine {
		return false
	}
	path, served := classify.ServedRequest(line)
	if !served && !classify.MayBeServingOnly(line) {
		return false
	}
	kind := j.server
	if kind == "" {
		kind = classify.DetectLog(line)
	}
	if kind == "" && !served {
		// The line itself names the server that alone prints it.
		kind = classify.ServingOnlyServer(line)
	}
	if served {
		if path == "/generate" && (kind == "sglang" || kind == "") {
			return false // SGLang's warmup request, maybe
		}
	} else if !classify.ServingOnly(classify.Lookup(kind), line) {
		return false
	}
	if kind != j.server {
		j.setServer(kind, now)
	}
	j.servingBefore = clip(line, 300)
	return true
}

// Tick decides, if the startup is over by now. It returns the verdict the
// first time one is reached, else nil.
func (j *Judge) Tick(now time.Time) *observe.Result {
	if j.result != nil {
		return nil
	}
	if j.waiting != nil {
		return j.settleWaiting(now)
	}
	r := j.decide(now)
	if r == nil {
		return nil
	}
	r.Server = j.server
	if r.At.IsZero() {
		r.At = now // a rule may date the verdict earlier (readiness.go)
	}
	if r.Verdict == v.Failed && r.Phase != "" && j.prof.Index(r.Phase) > j.phaseIx {
		// A failure's traceback showed the step it was in (failure).
		j.reached(r.Phase, j.rootAt)
	}
	r.Phases = append([]observe.PhaseSpan(nil), j.spans...)
	if r.Phase == "" {
		r.Phase = j.phase
	}
	if len(r.Evidence) > maxEvidence {
		r.Evidence = r.Evidence[:maxEvidence]
	}
	if j.collect {
		j.config.Flush()
		r.Config = j.config.Config()
		r.Important = j.config.Important(j.server)
		r.Fingerprint = j.config.Fingerprint(j.server)
	}
	j.attachPulse(r)
	j.attachDrift(r)
	if j.holdReady {
		j.holdReady = false
		j.waiting = &waitingReady{result: r, lines: j.lines}
		return j.settleWaiting(now)
	}
	j.result = r
	return r
}

const maxEvidence = 10

// maxSpans and maxEvents bound the phase list and the undrained events.
const (
	maxSpans  = 64
	maxEvents = 4096
)

// maxSignals bounds the error lines a judge keeps.
const maxSignals = 256

func (j *Judge) decide(now time.Time) *observe.Result {
	if j.servingBefore != "" {
		j.advance(v.PhaseReady, false, "", now)
		return &observe.Result{Verdict: v.Ready, Phase: v.PhaseReady, Summary: j.readySummary(now), Evidence: []string{j.servingBefore}}
	}
	switch j.smokeState {
	case 2:
		return nil // waiting for the smoke request, which has its own timeout
	case 3:
		return j.smokeVerdict()
	}
	if j.mismatch != nil {
		return j.expectFailure()
	}
	if j.exit != nil {
		return j.failure(now)
	}
	j.checkSlowPhase(now)
	settle := Settle
	if !j.evidenceOpen && j.hasCause() {
		settle = SettleShort
	}
	if !j.fatalAt.IsZero() {
		if now.Sub(j.lastLineAt) >= settle || now.Sub(j.fatalAt) >= SettleMax {
			return j.failure(now)
		}
		// The start is over; a ready line printed while the failure's
		// evidence comes in (llama.cpp says "model loaded" after a warm-up
		// that failed) does not make it ready.
		return nil
	}
	if r := j.readiness(now); r != nil {
		return r
	}
	// After its ready line a server idles by design; the health rules
	// above decide from there.
	// (The time is read last: without a stall window, as offline, this
	// runs after every line for nothing.)
	if j.cfg.StallAfter > 0 && j.smokeState == 0 && !j.readyLine && now.Sub(j.lastProgress) >= j.cfg.StallAfter {
		if len(j.signals) > 0 && j.hasCause() {
			return j.failure(now)
		}
		return j.stalled(now)
	}
	if j.cfg.Timeout > 0 && now.Sub(j.budgetFrom) >= j.cfg.Timeout {
		return j.timedOut(now)
	}
	return nil
}

// checkSlowPhase warns once per phase when it runs well past its usual
// duration while still progressing.
func (j *Judge) checkSlowPhase(now time.Time) {
	e := j.cfg.Learned
	if e == nil || j.warned["slow:"+string(j.phase)] {
		return
	}
	if learn.SlowPhase(*e, string(j.phase), now.Sub(j.phaseAt)) {
		j.warned["slow:"+string(j.phase)] = true
		var typ time.Duration
		if ps, ok := e.Phase(string(j.phase)); ok {
			typ = ps.Typical
		}
		j.emit(now, observe.Warning{Message: fmt.Sprintf("%s is slow: %s so far, usually %s", j.phase, fmtDur(now.Sub(j.phaseAt)), fmtDur(typ)), Phase: string(j.phase), Slow: true})
	}
}

// fromCheckpoint settles an expected quantization the server printed as
// None: the checkpoint's own quantization_config decides it.
func (j *Judge) fromCheckpoint(o srvconfig.Outcome) srvconfig.Outcome {
	names := j.cfg.CheckpointQuant
	if o.Key != "quantization" || !o.Found || o.Status != srvconfig.Pending || len(names) == 0 {
		return o
	}
	for _, n := range names {
		if srvconfig.ValueMatches(o.Value, n) {
			o.Status, o.Actual = srvconfig.Met, n+" (the checkpoint's own)"
			return o
		}
	}
	o.Status, o.Actual = srvconfig.Mismatch, names[0]+" (the checkpoint's own; the server printed "+o.Actual+")"
	return o
}

// expectFailure ends a startup whose configuration is not the expected one.
func (j *Judge) expectFailure() *observe.Result {
	o := j.mismatch
	return &observe.Result{Verdict: v.Failed, Cause: v.Config, RuleID: "expect.mismatch",
		Summary:  "the server runs another configuration than expected: " + o.String(),
		Evidence: []string{"[vigil] " + o.String()},
		Hint:     "the flag did not take effect, or was overridden by the server's own defaults: check the command line and the printed configuration"}
}

func (j *Judge) hasCause() bool {
	for _, s := range j.signals {
		if s.rule != nil && s.rule.Cause != "" {
			return true
		}
	}
	return false
}

// HealthAuth is health.StateAuth: a 401 or 403 answer.
const HealthAuth observe.HealthState = "auth"

// AuthHint is said when the server refuses vigil's requests for the key.
const AuthHint = "the server refuses the API key (401/403): give it with --api-key or VIGIL_API_KEY"

// UnhealthyHint is the hint of a health failure.
const UnhealthyHint = "the server is up but unhealthy: read its log after the ready line, and probe /health by hand; a 500 usually means the engine died after startup"

// readyEvidence is what proves readiness: the server's ready (or startup
// complete) line and the health answer.
func (j *Judge) readyEvidence() []string {
	var ev []string
	if j.readyLineText != "" {
		ev = append(ev, j.readyLineText)
	} else if j.upLineText != "" {
		ev = append(ev, j.upLineText)
	}
	switch {
	case j.health.Seen != "":
		ev = append(ev, j.health.Seen)
	case j.health.State == observe.HealthOK:
		ev = append(ev, fmt.Sprintf("[vigil] GET %s -> 200", j.prof.HealthPath))
	case j.health.State == observe.HealthRefused, j.health.State == observe.HealthError, j.health.State == observe.HealthNone:
		ev = append(ev, fmt.Sprintf("[vigil] GET %s -> %s", j.prof.HealthPath, j.health.State))
	}
	if len(ev) == 0 {
		ev = j.lastLines(1)
	}
	return ev
}

func (j *Judge) readySummary(now time.Time) string {
	name := j.server
	if name == "" {
		name = "the server"
	}
	return fmt.Sprintf("%s is ready after %s", name, fmtDur(now.Sub(j.start)))
}

func (j *Judge) smokeVerdict() *observe.Result {
	r := j.smokeRes
	if r.Auth {
		return &observe.Result{Verdict: v.Ready, Phase: v.PhaseReady,
			Summary:  fmt.Sprintf("%s is ready; its answers were not checked: it refused the API key", orServer(j.server)),
			Evidence: []string{"[vigil] " + r.Endpoint + ": " + r.Reason},
			Hint:     AuthHint}
	}
	if r.Unchecked {
		return &observe.Result{Verdict: v.Ready, Phase: v.PhaseReady,
			Summary:  fmt.Sprintf("%s is ready; its answers were not checked: its model generates no text, and vigil has no known answer for what it serves", orServer(j.server)),
			Evidence: []string{"[vigil] " + r.Reason}}
	}
	if r.OK {
		return &observe.Result{Verdict: v.Ready, Phase: v.PhaseReady,
			Summary:  fmt.Sprintf("%s is ready and answered sanely in %s", orServer(j.server), fmtDur(r.Latency)),
			Evidence: []string{"[vigil] " + r.Endpoint + " answered: " + clip(r.Answer, 200)}}
	}
	ev := []string{"[vigil] " + r.Endpoint + ": " + r.Reason}
	if r.NoModel {
		return &observe.Result{Verdict: v.Failed, Cause: v.BadOutput, Phase: v.PhaseReady,
			Summary:  "the server is up but serves no model: " + r.Reason,
			Evidence: ev,
			Hint:     "it was started without a model (llama-server's router mode with no -m, --models-dir or --models-preset), or its model did not register: start it with the model to serve"}
	}
	if r.Answer != "" {
		ev = append(ev, "[vigil] answer: "+clip(r.Answer, 300))
	}
	return &observe.Result{Verdict: v.Failed, Cause: v.BadOutput, Phase: v.PhaseReady,
		Summary:  "the server is up but its answer is bad: " + r.Reason,
		Evidence: ev,
		Hint:     "the model produces garbage: check the dtype and quantization (FP16 overflow gives NaN '!!!!'), the checkpoint files, the attention backend and the chat template; compare with a known-good start"}
}

func orServer(s string) string {
	if s == "" {
		return "the server"
	}
	return s
}

func (j *Judge) stalled(now time.Time) *observe.Result {
	quiet := now.Sub(j.lastProgress)
	ev := []string{fmt.Sprintf("[vigil] no log output, CPU or I/O activity for %s in phase %s", fmtDur(quiet), j.phase)}
	ev = append(ev, j.lastLinesPerSource(6)...)
	hint := cmp.Or(j.prof.StallHint(j.phase), stallHint(j.phase))
	if h := classify.WaitHint(j.waitMsg); h != "" {
		hint = h
	}
	return &observe.Result{Verdict: v.Stalled, Summary: fmt.Sprintf("no sign of progress for %s during %s", fmtDur(quiet), j.phase),
		Evidence: ev, Hint: hint}
}

func (j *Judge) timedOut(now time.Time) *observe.Result {
	ev := []string{fmt.Sprintf("[vigil] --timeout %s ran out in phase %s while the startup was still progressing", fmtDur(j.cfg.Timeout), j.phase)}
	if j.progress != nil {
		ev = append(ev, fmt.Sprintf("[vigil] progress: %s %d/%d (%d%%)", j.progress.Desc, j.progress.Done, j.progress.Total, j.progress.Percent))
	}
	ev = append(ev, j.lastLines(3)...)
	return &observe.Result{Verdict: v.Timeout, Summary: fmt.Sprintf("still in %s after %s", j.phase, fmtDur(now.Sub(j.budgetFrom))),
		Evidence: ev, Hint: "the startup was still making progress: give it a longer --timeout, or make the slow step faster (local weights, a warm compile cache)"}
}

// stopSignal reports whether sig is one that asks a process to stop
// (a person, a supervisor), not one a crash raises.
func stopSignal(sig string) bool {
	return sig == "SIGTERM" || sig == "SIGINT" || sig == "SIGHUP" || sig == "SIGQUIT"
}

// stallHint says where to look when a phase stops moving.
func stallHint(ph v.Phase) string {
	switch ph {
	case v.Distributed:
		return "a rank or node never joined: check that every node started, that they reach each other (--dist-init-addr / MASTER_ADDR, firewalls), NCCL_SOCKET_IFNAME, and rerun with NCCL_DEBUG=INFO"
	case v.Weights:
		return "weight loading stopped: a download without network or a lock held by another process on the same Hugging Face cache, a hung network filesystem, or (at 100%) post-load processing or a collective that never completes; py-spy dump shows where it waits"
	case v.KVCache, v.CUDAGraph, v.Compile:
		return "a GPU step stopped: check nvidia-smi (a GPU at 0% with memory held), dmesg for Xid errors, and py-spy dump for the waiting rank"
	case v.Launch, v.Init:
		return "the server stopped before loading anything: it may wait for a lock, a download of its config, or input on stdin"
	default:
		return "the server stopped making progress: py-spy dump shows where its processes wait"
	}
}

// failure explains a failed startup: the root cause first, the failing
// process's own lines as evidence, echoes after.
func (j *Judge) failure(now time.Time) *observe.Result {
	var root *signal
	for i := range j.signals {
		s := &j.signals[i]
		if s.rule != nil && s.rule.Cause != "" {
			if s.rule.NoneBefore && j.exceptionBefore(s.seq) {
				continue
			}
			root = s
			if s.rule.Wrapper {
				root = j.unwrap(i)
			}
			break
		}
	}
	if root != nil {
		root = j.supersededBy(root)
	}
	if root != nil && root.rule.Because != "" {
		if r := j.because(root); r != nil {
			root = r
		}
	}
	// A fatal line with a cause of its own (a port bind error, an exit
	// code -9) counts when no earlier line explains more.
	if root == nil {
		for i := range j.fatal {
			if f := &j.fatal[i]; f.rule.Cause != "" && !(f.rule.NoneBefore && j.exceptionBefore(f.seq)) {
				root = f
				break
			}
		}
	}
	// (A fatal line that nothing before it explains may only sum up
	// what its process just printed.)
	closing := root != nil && root.rule != nil && root.rule.Fatal && !j.explainedBefore(root)
	r := &observe.Result{Verdict: v.Failed}
	switch {
	case root != nil:
		r.Cause = root.rule.Cause
		r.RuleID = root.rule.ID
		r.Summary = summarize(root.rule.Title, root.source, root.msg)
		r.Hint = expandHint(root.rule.Hint, j.cfg.Argv)
	case j.exit != nil && j.exit.Signal == "SIGKILL" && j.exit.KernelLogRead && j.exit.OOMRecord == "" && len(j.fatal) == 0:
		// The kernel's log reaches back to the start and no OOM kill is
		// in it: someone sent the SIGKILL.
		r.Cause = v.Crash
		r.RuleID = "exit.sigkill_outside"
		r.Summary = "killed by SIGKILL from outside: the kernel log has no OOM-kill record"
		r.Hint = "something outside the server killed it: a person, a supervisor or orchestrator (a liveness probe, systemd's timeout, a job's time limit); check who sends signals to it"
	case j.exit != nil && (j.exit.Signal == "SIGKILL" || j.exit.Code == 137 || j.exit.OOMRecord != "") && len(j.fatal) == 0:
		r.Cause = v.HostOOM
		r.RuleID = "exit.sigkill"
		r.Summary = "the server was killed by SIGKILL with no error of its own, most likely by the kernel's OOM killer"
		if j.exit.OOMRecord != "" {
			r.Summary = "the kernel's OOM killer killed the server"
		}
		r.Hint = "the host ran out of memory: check `dmesg -T | grep -i oom`, lower host memory use (fewer loader threads, smaller CPU swap/offload) or add RAM"
	case j.exit != nil && j.exit.Signal == "" && !j.exit.Gone && j.exit.Code != 0 && len(j.fatal) == 0 && len(j.signals) == 0 && j.cfg.PortTaken != "":
		r.Cause = v.PortInUse
		r.RuleID = "exit.port_taken"
		r.Summary = "the server " + j.exit.String() + " with no error of its own, and its port was already taken before the launch"
		r.Hint = "stop what listens on the port (`ss -ltnp`) or start the server on another --port"
	case len(j.signals) > 0 && j.lastException().frame != nil:
		// An exception vigil does not know, raised where its traceback
		// says what was being done (loading weights).
		e := j.lastException()
		r.Cause = e.frame.Cause
		r.RuleID = e.frame.ID
		r.Summary = summarize(e.frame.Title, e.source, e.msg)
		r.Hint = e.frame.Hint
		root = e
	case len(j.signals) > 0:
		e := j.lastException()
		r.Cause = v.Exception
		r.RuleID = "python.exception"
		r.Summary = summarize("the server raised an exception", e.source, e.msg)
		r.Hint = "read the traceback in the evidence; it is not one vigil knows, so the exception's own message is the best lead"
		root = e
	case j.exit != nil && stopSignal(j.exit.Signal) && j.firstError() == nil:
		// A stop signal and no error: someone stopped it, nothing broke.
		r.Cause = v.Crash
		r.RuleID = "exit.stopped"
		r.Summary = "the server was stopped by " + j.exit.Signal + " from another process before it was ready, with no error of its own"
		r.Hint = "something outside stopped it: a person, systemd (a stop, or TimeoutStartSec), docker stop, a Kubernetes probe or eviction, a job's time limit; find the sender (journalctl, kubectl describe pod) and give the start the time it needs"
	case j.exit != nil && j.exit.Signal != "":
		r.Cause = v.Crash
		r.RuleID = "exit.signal"
		r.Summary = "the server was " + j.exit.String()
		if e := j.firstError(); e != nil {
			r.Summary = summarize(r.Summary, e.source, e.msg)
		}
		r.Hint = "a native crash: run it by hand to see the last output, check dmesg, and the versions of torch, CUDA and the server"
	case j.exit != nil && !j.exit.Gone && j.exit.Code != 0 && j.causedError() != nil:
		// The process moved on after an error with a cause (a failed
		// download before llama.cpp's logger banner), then exited with an
		// error status and nothing else to explain it: that error is the
		// best account.
		e := j.causedError()
		r.Cause = e.rule.Cause
		r.RuleID = e.rule.ID
		r.Summary = summarize(e.rule.Title, e.source, e.msg)
		r.Hint = fillPort(expandHint(e.rule.Hint, j.cfg.Argv), e.msg)
	default:
		r.Cause = v.Crash
		r.RuleID = "exit.status"
		e := j.firstError()
		switch {
		case len(j.fatal) > 0 && e != nil:
			r.Summary = summarize(j.fatal[0].rule.Title, e.source, e.msg)
		case len(j.fatal) > 0:
			r.Summary = summarize(j.fatal[0].rule.Title, j.fatal[0].source, j.fatal[0].msg)
		case j.exit != nil && e != nil:
			r.Summary = summarize("the server "+j.exit.String()+" before it was ready", e.source, e.msg)
		case j.exit != nil:
			r.Summary = "the server " + j.exit.String() + " before it was ready, with no recognisable error"
		}
		r.Hint = "read the last lines of the log; vigil found no known error in them"
		if flag := j.prof.QuietFlag(j.cfg.Argv); flag != "" && e == nil {
			r.Hint = "the command line keeps the server's log from this output (" + flag + "): run it again without that flag to see its error"
		} else if e == nil && len(j.fatal) == 0 && j.exit != nil && j.prof.SilentExitHint != "" {
			r.Hint = j.prof.SilentExitHint
		}
	}
	r.Evidence = j.evidence(root)
	if closing {
		r.Evidence = j.withUnexplained(root, r.Evidence)
	}
	if root != nil && root.phase != "" && j.prof.Index(root.phase) > j.phaseIx {
		// The traceback shows a later step than any line announced (the
		// phases end in it too, once Tick gives this verdict).
		r.Phase, j.rootAt = root.phase, root.at
	}
	if root != nil && root.rule != nil && r.RuleID == root.rule.ID {
		if h := root.rule.PhaseHints[cmp.Or(r.Phase, j.phase)]; h != "" {
			r.Hint = expandHint(h, j.cfg.Argv)
		}
	}
	if root != nil {
		r.Hint = fillPort(r.Hint, j.sameRuleText(root))
	}
	if r.RuleID == "exit.port_taken" {
		r.Evidence = append([]string{"[vigil] preflight: " + j.cfg.PortTaken}, r.Evidence...)
	}
	return r
}

// exceptionBefore reports whether an exception no rule knows came
// before the line numbered seq (see classify.FailureRule.NoneBefore).
func (j *Judge) exceptionBefore(seq int) bool {
	for k := range j.signals {
		if s := &j.signals[k]; s.exception && s.seq < seq {
			return true
		}
	}
	return false
}

// afterWrapper reports whether the latest error line is a wrapper's,
// printed less than a second ago.
func (j *Judge) afterWrapper(now time.Time) bool {
	if len(j.signals) == 0 {
		return false
	}
	s := &j.signals[len(j.signals)-1]
	return s.rule != nil && s.rule.Wrapper && now.Sub(s.at) <= time.Second
}

// unwrap returns the signal that spells out what the wrapper signal i
// announces: the first one with a cause of its own printed by the same
// process within a second after it, or the wrapper itself.
func (j *Judge) unwrap(i int) *signal {
	w := &j.signals[i]
	for k := i + 1; k < len(j.signals); k++ {
		s := &j.signals[k]
		if s.at.Sub(w.at) > time.Second {
			break
		}
		if s.rule != nil && s.rule.Cause != "" && !s.rule.Wrapper && s.source == w.source {
			return s
		}
	}
	return w
}

// because is the reason an earlier notable warning gave for root's
// failure, as a signal of the reason's own rule, or nil when the warning
// did not come or its reason names no cause vigil knows.
func (j *Judge) because(root *signal) *signal {
	i, ok := j.pulse.notableIx[root.rule.Because]
	if !ok {
		return nil
	}
	n := j.pulse.notable[i]
	reason := n.rule.Reason(n.line)
	if reason == "" {
		return nil
	}
	inner := j.memo.Classify(j.prof, reason).Failure
	if inner == nil || inner.Cause == "" {
		return nil
	}
	return &signal{rule: inner, raw: n.line, msg: reason, source: root.source, at: root.at, seq: root.seq - 1}
}

// supersededBy is the line raised from root's whose rule supersedes
// root's rule (classify.FailureRule.Supersedes), or root.
func (j *Judge) supersededBy(root *signal) *signal {
	for i := range j.signals {
		s := &j.signals[i]
		if s.seq > root.seq && s.rule != nil && s.rule.Supersedes == root.rule.ID && s.source == root.source && s.at.Sub(root.at) <= time.Second {
			return s
		}
	}
	return root
}

func (j *Judge) lastException() *signal {
	// The first exception of the last traceback is the root of a chain
	// ("During handling of the above exception, another exception occurred").
	var best *signal
	for i := len(j.signals) - 1; i >= 0; i-- {
		s := &j.signals[i]
		if best != nil && best.at.Sub(s.at) > time.Second {
			break
		}
		best = s
	}
	return best
}

// evidence lists the root line, the failing process's announcement of it,
// further lines of the same process, echoes from others and the exit.
func (j *Judge) evidence(root *signal) []string {
	var ev []string
	seen := map[string]bool{}
	add := func(s string) {
		key := strings.TrimSpace(classify.ParseFast(s).Msg)
		if key == "" || seen[key] {
			return
		}
		seen[key] = true
		ev = append(ev, clip(s, 500))
	}
	if root != nil {
		add(root.raw)
		// The wrapper that announced it (an abort, a validation error)
		// is what the operator saw first.
		for _, s := range j.signals {
			if s.seq < root.seq && s.rule != nil && s.rule.Wrapper && s.source == root.source && root.at.Sub(s.at) <= time.Second {
				add(s.raw)
			}
		}
		for _, f := range j.fatal {
			if f.source == root.source && f.seq <= root.seq+1 {
				add(f.raw)
				break
			}
		}
		for _, s := range j.signals {
			if s.seq > root.seq && s.source == root.source && len(ev) < 5 {
				add(s.raw)
			}
		}
	} else {
		for _, e := range j.errLines {
			if len(ev) < 4 {
				add(e.raw)
			}
		}
		for _, s := range j.signals {
			if len(ev) < 6 {
				add(s.raw)
			}
		}
	}
	for _, f := range j.fatal {
		if len(ev) < 8 {
			add(f.raw)
		}
	}
	if len(ev) == 0 {
		ev = append(ev, j.lastLines(5)...)
	}
	if j.exit != nil {
		ev = append(ev, "[vigil] the server process "+j.exit.String())
		if j.exit.OOMRecord != "" {
			ev = append(ev, "[kernel] "+j.exit.OOMRecord)
		}
		if j.exit.Memory != "" && (j.exit.Signal == "SIGKILL") {
			ev = append(ev, "[vigil] "+j.exit.Memory)
		}
	}
	return ev
}

// withUnexplained puts after a fatal line that closes the start ("exiting
// due to model loading error") the error lines no rule knows that its
// process printed just before it (a fork's "load_model: - cache:
// --cache-cold-max-mib requires --cache-mode hybrid"): they say what the
// closing line only sums up.
func (j *Judge) withUnexplained(root *signal, ev []string) []string {
	var before []string
	for _, e := range j.errLines {
		if e.raw == root.raw {
			break
		}
		if e.rule == nil && e.source == root.source && !e.at.After(root.at) && root.at.Sub(e.at) <= 2*time.Second {
			before = append(before, clip(e.raw, 500))
		}
	}
	if len(before) == 0 || len(ev) == 0 {
		return ev
	}
	before = before[max(0, len(before)-2):]
	out := append([]string{ev[0]}, before...)
	for _, e := range ev[1:] {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// explainedBefore reports whether a line with a cause or an exception came
// before root.
func (j *Judge) explainedBefore(root *signal) bool {
	for _, s := range j.signals {
		if s.seq < root.seq && (s.exception || s.rule != nil && s.rule.Cause != "") {
			return true
		}
	}
	return false
}

// maxErrLines bounds Judge.errLines: the first error lines are the roots.
const maxErrLines = 8

// firstError is the first error-level line that is not a traceback's
// body (classify.TracebackBody: its first frame is no error of its own to
// sum a failure up with; the frames stay evidence), else the first
// error-level line, if any.
func (j *Judge) firstError() *recentLine {
	if len(j.errLines) == 0 {
		return nil
	}
	for i := range j.errLines {
		if e := &j.errLines[i]; e.rule != nil || !classify.TracebackBody(e.msg) {
			return e
		}
	}
	return &j.errLines[0]
}

// causedError is the first error-level line whose rule names a cause.
func (j *Judge) causedError() *recentLine {
	for i := range j.errLines {
		if r := j.errLines[i].rule; r != nil && r.Cause != "" {
			return &j.errLines[i]
		}
	}
	return nil
}

func (j *Judge) lastLines(n int) []string {
	var out []string
	for i := len(j.recent) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, clip(j.recent[i].raw, 300))
	}
	for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
		out[a], out[b] = out[b], out[a]
	}
	return out
}

// lastLinesPerSource gives the last line of each process or rank, so a
// stall shows where every rank stopped.
func (j *Judge) lastLinesPerSource(n int) []string {
	seen := map[string]bool{}
	var out []string
	for i := len(j.recent) - 1; i >= 0 && len(out) < n; i-- {
		r := j.recent[i]
		if seen[r.source] {
			continue
		}
		seen[r.source] = true
		out = append(out, clip(r.raw, 300))
	}
	for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
		out[a], out[b] = out[b], out[a]
	}
	return out
}

func summarize(title, source, msg string) string {
	s := title
	if source != "" {
		s += " on " + source
	}
	msg = strings.TrimSpace(msg)
	if msg != "" {
		s += ": " + clip(msg, 200)
	}
	return s
}

// clip cuts s to at most n bytes, at a character's start, and marks the
// cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// portInMessage is the port a bind error names: uvicorn's "address
// ('0.0.0.0', 8000)", TensorRT-LLM's "localhost:8000: [Errno 98]",
// llama.cpp's "port: 8080".
var portInMessage = lazyre.New(`(?:', |port: ?|[\w\]]:)(\d{2,5})\b`)

// sameRuleText is root's message and those of the other lines its rule
// matched, one per line: a bind error's port may be on a later line
// (TensorRT-LLM's "OSError: [Errno 98] Address already in use", then
// "Failed to bind socket to localhost:8000: ...").
func (j *Judge) sameRuleText(root *signal) string {
	msgs := []string{root.msg}
	for _, s := range j.signals {
		if s.rule == root.rule && s.seq != root.seq {
			msgs = append(msgs, s.msg)
		}
	}
	for _, f := range j.fatal {
		if f.rule == root.rule && f.seq != root.seq {
			msgs = append(msgs, f.msg)
		}
	}
	return strings.Join(msgs, "\n")
}

// fillPort puts the port msg names for "{port}" in h, or "PORT" when it
// names none.
func fillPort(h, msg string) string {
	if !strings.Contains(h, "{port}") {
		return h
	}
	port := "PORT"
	if m := portInMessage.Get().FindStringSubmatch(msg); m != nil {
		port = m[1]
	}
	return strings.ReplaceAll(h, "{port}", port)
}

// expandHint fills "{flag:--x}" with " (now V)" when argv sets --x.
func expandHint(h string, argv []string) string {
	for {
		i := strings.Index(h, "{flag:")
		if i < 0 {
			return h
		}
		k := strings.IndexByte(h[i:], '}')
		if k < 0 {
			return h
		}
		flag := h[i+6 : i+k]
		val := ""
		if fv, ok := classify.FlagValue(argv, flag); ok {
			val = " (now " + fv + ")"
		}
		h = h[:i] + val + h[i+k+1:]
	}
}

func fmtDur(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// Offline is how a finished log ends when no clock is involved: the
// verdict that its lines alone support.
type Offline struct {
	Verdict v.Verdict // "" when the log ends without a verdict
	Cause   v.Cause
	Phase   v.Phase
	Summary string
}

// Offline judges what has been fed so far as a finished log: ready if the
// ready line came, failed if a failure was announced or explained, else
// no verdict (the run ended in its phase, or is cut short).
func (j *Judge) Offline() Offline {
	switch {
	case j.readyLine:
		return Offline{Verdict: v.Ready, Phase: v.PhaseReady}
	case len(j.fatal) > 0 || j.hasCause():
		r := j.failure(j.lastLineAt)
		return Offline{Verdict: v.Failed, Cause: r.Cause, Phase: j.phase, Summary: r.Summary}
	}
	return Offline{Phase: j.phase}
}
