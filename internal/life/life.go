// Package life judges a server's life after its ready verdict: the lines
// that say it died or is stuck (its own watchdogs, engine-dead errors, shard
// deaths, runtime OOMs, CUDA faults), health answers failing past a
// threshold, and its end. It is pure: the live monitor feeds it as the
// server runs, explain feeds it a finished log's last lines.
package life

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"vigil/internal/ansi"
	"vigil/internal/classify"
	"vigil/internal/lazyre"
	"vigil/internal/litset"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// How a server's life after ready ended.
const (
	// Died: the server ended without being asked to.
	Died = "died"
	// Hung: the server is alive but its health kept failing past the
	// threshold, or its own watchdog said it is stuck.
	Hung = "hung"
	// Stopped: the server ended after a stop was asked for.
	Stopped = "stopped"
)

// Defaults of a Config.
const (
	DefaultHangAfter = 60 * time.Second
	DefaultSettle    = 10 * time.Second
)

// Config tunes a Judge.
type Config struct {
	// Server is the server kind, for its catalogue.
	Server string
	// HangAfter is how long the health answers may keep failing before
	// the server counts as hung (0: DefaultHangAfter).
	HangAfter time.Duration
	// Settle is how long a watchdog or death line may go unanswered by the
	// process ending before the server counts as hung (0: DefaultSettle).
	Settle time.Duration
	// Stopping reports whether a stop was asked for, so that the server's
	// end is a stop and not a death (nil: never).
	Stopping func() bool
	// Memo, when set, classifies the lines (it belongs to the goroutine
	// that calls Line: a Memo takes no locks).
	Memo *classify.Memo
}

// End is how the life ended, with its explanation.
type End struct {
	How      string
	Cause    v.Cause
	Summary  string
	Evidence []string
	At       time.Time
	// Exit is the server's exit, when it ended.
	Exit *observe.Exit
}

// Rule is a line that says a serving server is dead or stuck, which the
// startup catalogue either does not know or knows without a cause.
type Rule struct {
	ID string
	re *lazyre.Regexp
	// lits: a line the expression matches holds one of these, so a line
	// with none is passed over without running it (explain reads every
	// ready run's last lines through these rules).
	lits  []string
	Cause v.Cause // "" : the cause comes from the lines around it, else crash
	Title string
}

// Rules are the servers' own watchdogs and death notices.
var Rules = []Rule{
	// sglang managers/scheduler.py: the watchdog thread, then it kills
	// its process tree.
	{ID: "sglang.watchdog", re: lazyre.New(`[Ww]atchdog timeout \(`), lits: []string{"atchdog timeout ("}, Title: "SGLang's scheduler watchdog found the scheduler stuck"},
	// vllm v1/engine/core.py: run_engine_core logs a fatal error and the
	// engine core exits when its busy loop raises; a traceback through
	// that loop is its death even where the log lost the lines above.
	{ID: "vllm.busy_loop_raised", re: lazyre.New(`, in (?:run_busy_loop|_process_engine_step)$`), lits: []string{", in run_busy_loop", ", in _process_engine_step"}, Title: "vLLM's engine core raised while serving"},
	// vllm v1/engine/exceptions.py and the v0 async engine.
	// (V0's multiprocessing engine: client.py's "Engine process (pid N)
	// died." and entrypoints/launcher.py's "MQLLMEngine is already dead,
	// terminating server process", after which the server shuts itself
	// down.)
	{ID: "vllm.engine_dead", re: lazyre.New(`EngineDeadError|Engine loop has died|EngineCore encountered a fatal error|AsyncEngineDeadError|MQLLMEngine is already dead|Engine process \(pid \d+\) died`), lits: []string{"EngineDeadError", "Engine loop has died", "EngineCore encountered a fatal error", "MQLLMEngine is already dead", "Engine process (pid "}, Title: "vLLM's engine died"},
	// TGI launcher/src/main.rs.
	{ID: "tgi.shard_dead", re: lazyre.New(`Shard \d+ crashed|Shard process was signaled|Shard \d+ terminated`), lits: []string{"Shard "}, Title: "a TGI shard died"},
	// NCCL's watchdog in torch's ProcessGroupNCCL.
	{ID: "nccl.watchdog", re: lazyre.New(`Watchdog caught collective operation timeout`), lits: []string{"Watchdog caught collective operation timeout"}, Cause: v.NCCL, Title: "an NCCL collective timed out"},
}

// shutdowns are the lines a server prints when it shuts down in order
// (asked to by a signal): llama.cpp's tools/server/server.cpp clean-up
// ("srv    operator(): cleaning up before exit..."), uvicorn's end (vLLM,
// SGLang, TensorRT-LLM), TGI's router (router/src/server.rs),
// llama.cpp's context freed (src/llama-context.cpp ~llama_context, which
// reports its compute buffers: a build whose clean-up line is filtered
// out or missing still prints it), vLLM's own shutdown (0.2x: the engine
// core's and the API server's "[shutdown]" lines, after which the API
// server's output handler reports the engine dead) and SGLang's
// (tokenizer_manager.py's SIGTERM handler, after which its subprocesses
// report the signal as a crash). Offline, a run whose life after ready
// says so was stopped, not still serving, and what it printed after is
// not read.
var shutdowns = sync.OnceValue(func() *litset.Set {
	return litset.New("leaning up before exit...", "Application shutdown complete", "Finished server process [", "signal received, starting graceful shutdown", "~llama_context: ",
		"EngineCore: trigger received signal=", "API server: shutdown triggered", "Draining requests and shutting down")
})

// Shutdown reports whether a line is one a server prints when it shuts
// down in order (see shutdowns).
func Shutdown(text string) bool { return shutdowns().Scan(text) != 0 }

// ruleLits holds every rule's literals; ruleMasks[i] has the bits of
// Rules[i]'s. A line is searched for all of them in one pass: explain
// reads the last lines of every ready run through these rules, and one
// search per literal was most of that. Built on first use, as shutdowns.
var ruleLits = sync.OnceValues(func() (*litset.Set, []uint64) {
	groups := make([][]string, len(Rules))
	for i, r := range Rules {
		groups[i] = r.lits
	}
	return litset.NewGroups(groups...)
})

// maxEvidence bounds the lines kept as evidence.
const maxEvidence = 12

// Judge reads lines, health answers and the exit of a server after ready,
// and decides how its life ended.
type Judge struct {
	hangAfter, settle time.Duration
	stopping          func() bool
	profile           *classify.Profile
	memo              *classify.Memo

	cause    v.Cause
	title    string
	evidence []string
	// alarm is when a watchdog or death line came (zero: none); firstAt
	// when the first line kept as evidence came.
	alarm   time.Time
	firstAt time.Time

	// stopAt and stopLine: the first line that said the server shuts
	// down, before any line said it died.
	stopAt   time.Time
	stopLine string

	healthOK    bool
	haveHealth  bool
	failingFrom time.Time
	lastState   observe.HealthState
	flaps       int
	flapNoted   bool

	// badRun counts the failing answers since the last good one; badFirst
	// and badLast are the first and the latest of them (Offline reads a
	// log that ends in them).
	badRun            int
	badFirst, badLast observe.Health
	badFrom           time.Time
	// exceptionKept: the evidence was full, and its last line was given to
	// an exception after it.
	exceptionKept bool
}

// OfflineBadAnswers is how many failing health answers in a row, with no
// good one after them, make a finished log's server unhealthy where it
// ends: one may be a hiccup (as before ready, judge.LogReadiness).
const OfflineBadAnswers = 2

// New returns a judge of a server that just became ready.
func New(cfg Config) *Judge {
	lj := &Judge{hangAfter: cfg.HangAfter, settle: cfg.Settle, stopping: cfg.Stopping,
		profile: classify.Lookup(cfg.Server), memo: cfg.Memo,
		// The ready verdict came with a healthy answer (or no endpoint).
		healthOK: true, haveHealth: true, lastState: observe.HealthOK}
	if lj.hangAfter <= 0 {
		lj.hangAfter = DefaultHangAfter
	}
	if lj.settle <= 0 {
		lj.settle = DefaultSettle
	}
	if lj.stopping == nil {
		lj.stopping = func() bool { return false }
	}
	return lj
}

// Line judges one log line; it returns a remark for the person, if any.
func (lj *Judge) Line(text string, now time.Time) string {
	// (Evidence reads without a line's colours, as the startup's does.)
	text = ansi.Strip(text)
	lits, masks := ruleLits()
	found := lits.Scan(text)
	for i := range Rules {
		r := &Rules[i]
		if found&masks[i] == 0 || !r.re.Get().MatchString(text) {
			continue
		}
		lj.keepAt(text, now)
		if r.Cause != "" && lj.cause == "" {
			lj.cause = r.Cause
		}
		if lj.title == "" {
			lj.title = r.Title
		}
		if lj.alarm.IsZero() {
			lj.alarm = now
			return "after ready: " + r.Title
		}
		return ""
	}
	if lj.stopAt.IsZero() && lj.alarm.IsZero() && lj.cause == "" && shutdowns().Scan(text) != 0 &&
		!strings.HasPrefix(classify.ParseFast(text).Source, "port ") {
		// (Not a model server that llama-server's router stopped: the
		// router goes on.)
		lj.stopAt, lj.stopLine = now, text
		return ""
	}
	// (A served request's lines are mostly one of a kind.)
	c := lj.memo.ClassifyRepeats(lj.profile, text)
	if c.Benign {
		return ""
	}
	if f := c.Failure; f != nil {
		lj.keepAt(text, now)
		cause := f
		if inner := lj.memo.QuotedFailure(lj.profile, f, c.Msg); inner != nil {
			// The announcement quotes the error ("Worker failed with
			// error 'NPU out of memory ...'"): its own rule is the cause.
			cause = inner
		}
		if cause.Cause != "" && lj.cause == "" {
			lj.cause, lj.title = cause.Cause, cause.Title
		}
		if f.Fatal && lj.alarm.IsZero() {
			lj.alarm = now
			return "after ready: " + f.Title
		}
		return ""
	}
	if c.IsError() && len(lj.evidence) > 0 {
		if len(lj.evidence) == maxEvidence && c.Exception && !lj.exceptionKept {
			// A traceback longer than the evidence: its exception, the
			// line that says what went wrong, takes the last place.
			lj.evidence[maxEvidence-1] = text
			lj.exceptionKept = true
			return ""
		}
		lj.keep(text)
	}
	return ""
}

func (lj *Judge) keepAt(text string, now time.Time) {
	if lj.firstAt.IsZero() {
		lj.firstAt = now
	}
	lj.keep(text)
}

func (lj *Judge) keep(text string) {
	if len(lj.evidence) < maxEvidence {
		lj.evidence = append(lj.evidence, text)
	}
}

// Health takes a health answer and reports whether its state
// differs from the previous one.
func (lj *Judge) Health(h observe.Health, now time.Time) bool {
	changed := !lj.haveHealth || h.State != lj.lastState
	lj.haveHealth, lj.lastState = true, h.State
	switch {
	case h.State == observe.HealthOK:
		lj.badRun = 0
	case h.State != observe.HealthNone:
		if lj.badRun == 0 {
			lj.badFirst, lj.badFrom = h, now
		}
		lj.badRun++
		lj.badLast = h
	}
	switch ok := h.State == observe.HealthOK; {
	case ok && !lj.healthOK:
		lj.healthOK, lj.failingFrom = true, time.Time{}
		lj.flaps++
	case !ok && h.State != observe.HealthNone && lj.healthOK:
		lj.healthOK, lj.failingFrom = false, now
	}
	return changed
}

// flapThreshold is how many recoveries after ready make the health
// flapping, worth one remark.
const flapThreshold = 3

func (lj *Judge) FlapNote() string {
	if lj.flaps >= flapThreshold && !lj.flapNoted {
		lj.flapNoted = true
		return fmt.Sprintf("after ready: the health answer keeps flapping (%d recoveries)", lj.flaps)
	}
	return ""
}

// Tick decides the hangs: health failing past the threshold, or a watchdog
// line the process did not end after.
func (lj *Judge) Tick(now time.Time) *End {
	if lj.stopping() {
		return nil
	}
	if !lj.healthOK && now.Sub(lj.failingFrom) >= lj.hangAfter {
		ev := append(lj.evidence, fmt.Sprintf("[vigil] health: %s for %s", lj.lastState, round(now.Sub(lj.failingFrom))))
		cause := lj.cause
		if cause == "" {
			cause = v.Health
		}
		return &End{How: Hung, Cause: cause, At: now, Evidence: ev,
			Summary: fmt.Sprintf("the health endpoint kept failing for %s after ready", round(now.Sub(lj.failingFrom)))}
	}
	if !lj.alarm.IsZero() && now.Sub(lj.alarm) >= lj.settle {
		cause := lj.cause
		if cause == "" {
			cause = v.Crash
		}
		return &End{How: Hung, Cause: cause, At: now, Evidence: lj.evidence,
			Summary: lj.title + ", and the server did not exit"}
	}
	return nil
}

// Exit decides how an end of the process reads.
func (lj *Judge) Exit(e observe.Exit, now time.Time) *End {
	end := &End{How: Died, Cause: lj.cause, At: now, Exit: &e, Evidence: lj.evidence}
	if lj.stopping() {
		end.How = Stopped
		end.Summary = "the server stopped when asked (" + e.String() + ")"
		end.Cause = ""
		return end
	}
	if e.OOMRecord != "" && end.Cause == "" {
		end.Cause = v.HostOOM
		end.Evidence = append(end.Evidence, e.OOMRecord)
	}
	if end.Cause == "" {
		end.Cause = v.Crash
	}
	what := lj.title
	if what == "" || lj.cause == "" && lj.title == "" {
		what = "the server " + e.String()
	} else {
		what += "; the server " + e.String()
	}
	end.Summary = what
	end.Evidence = append(end.Evidence, "[vigil] "+e.String())
	return end
}

// Offline is how a finished log's life after ready reads once its lines
// and health answers are judged: nil when nothing said the server died, is
// stuck or shut down (it was still serving where the log ends, or ended
// without a word); a stop when it said it shuts down before anything said
// it died (what it prints while it tears down is no death); a death at the
// first line that said so (offline there is no exit to wait for: a death
// line is the end); else a hang when its health answers were failing where
// the lines end (OfflineBadAnswers in a row, none good after them), from
// the first of those. A log has no clock to run a hang's threshold on: its
// answers may carry no time.
func (lj *Judge) Offline() *End {
	if !lj.stopAt.IsZero() {
		return &End{How: Stopped, At: lj.stopAt, Summary: "the server shut down", Evidence: []string{lj.stopLine}}
	}
	if lj.alarm.IsZero() && lj.cause == "" {
		if lj.badRun >= OfflineBadAnswers {
			return lj.failingAtEnd()
		}
		return nil
	}
	at := lj.alarm
	if at.IsZero() || lj.firstAt.Before(at) {
		at = lj.firstAt
	}
	cause, what := lj.cause, lj.title
	if cause == "" {
		cause = v.Crash
	}
	return &End{How: Died, Cause: cause, At: at, Summary: what, Evidence: lj.evidence}
}

// failingAtEnd is the hang of a log whose health answers fail to its end.
func (lj *Judge) failingAtEnd() *End {
	var ev []string
	for _, h := range []observe.Health{lj.badFirst, lj.badLast} {
		if h.Seen != "" && (len(ev) == 0 || ev[0] != h.Seen) {
			ev = append(ev, h.Seen)
		}
	}
	return &End{How: Hung, Cause: v.Health, At: lj.badFrom, Evidence: ev,
		Summary: fmt.Sprintf("the health endpoint kept failing to the run's last line: %d answers in a row, the last %s", lj.badRun, answerText(lj.badLast))}
}

// answerText names a failing answer: its status, else its state.
func answerText(h observe.Health) string {
	if h.Code != 0 {
		return fmt.Sprintf("HTTP %d", h.Code)
	}
	return string(h.State)
}

func round(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
