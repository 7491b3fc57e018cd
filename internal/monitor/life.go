package monitor

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"golang.org/x/sync/errgroup"

	"vigil/internal/classify"
	"vigil/internal/logline"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// How a server's life after ready ended.
const (
	// LifeDied: the server ended without being asked to.
	LifeDied = "died"
	// LifeHung: the server is alive but its health kept failing past the
	// threshold, or its own watchdog said it is stuck.
	LifeHung = "hung"
	// LifeStopped: the server ended after a stop was asked for.
	LifeStopped = "stopped"
)

// LifeSpec is one server's life after a ready verdict.
type LifeSpec struct {
	// Spec is the startup's spec; its Log is followed from Offset (where
	// the startup's judging stopped reading).
	Spec Spec
	// ReadyAt is when the startup's verdict came.
	ReadyAt time.Time
	// HangAfter is how long the health answers may keep failing before
	// the server counts as hung (0: DefaultHangAfter).
	HangAfter time.Duration
	// Settle is how long a watchdog or death line may go unanswered by the
	// process ending before the server counts as hung (0: DefaultSettle).
	Settle time.Duration
	// Stopping reports whether a stop was asked for, so that the server's
	// end is a stop and not a death (nil: never).
	Stopping func() bool
}

// Defaults of a LifeSpec.
const (
	DefaultHangAfter = 60 * time.Second
	DefaultSettle    = 10 * time.Second
)

// LifeEnd is how the life ended, with its explanation.
type LifeEnd struct {
	How      string
	Cause    v.Cause
	Summary  string
	Evidence []string
	At       time.Time
	// Exit is the server's exit, when it ended.
	Exit *observe.Exit
}

// LifeSink is told what happens after ready.
type LifeSink interface {
	// Health is every change of the health answer.
	Health(h observe.Health, at time.Time)
	// Note is a remark for the person (health flapping, a watchdog line).
	Note(at time.Time, format string, a ...any)
}

// Follow keeps judging a server after its ready verdict, until it dies,
// hangs, or ctx ends (then it returns ctx's error). It never signals the
// server: stopping a hung one is the caller's choice. Every goroutine it
// starts has ended when it returns.
func Follow(ctx context.Context, ls LifeSpec, deps Deps, sink LifeSink) (*LifeEnd, error) {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	m := &monitor{
		spec: ls.Spec, deps: deps,
		lines:   make(chan logline.Line, 4096),
		health:  make(chan observe.Health, 16),
		exit:    make(chan observe.Exit, 1),
		notes:   make(chan string, 16),
		drained: make(chan struct{}, 1),
	}
	m.emitted.Store(ls.Spec.Offset)
	lj := newLifeJudge(ls, m.spec.Judge.Server)

	srcCtx, stopSources := context.WithCancel(ctx)
	defer stopSources()
	g, gctx := errgroup.WithContext(srcCtx)
	s := m.spec
	if s.Unit != nil {
		g.Go(func() error { m.followJournal(gctx, *s.Unit); return nil })
	} else if s.Log != "" {
		g.Go(func() error { m.followLog(gctx); return nil })
	}
	if s.URL != "" {
		g.Go(func() error { m.probeHealth(gctx); return nil })
	}
	switch {
	case s.Proc != nil:
		g.Go(func() error { m.watchExit(gctx); return nil })
	case s.PID > 0:
		g.Go(func() error { m.watchAlive(gctx); return nil })
	}
	defer func() { stopSources(); _ = g.Wait() }()

	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	lines := (<-chan logline.Line)(m.lines)
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case l := <-lines:
			if note := lj.line(l, deps.Now()); note != "" {
				sink.Note(deps.Now(), "%s", note)
			}
		case h := <-m.health:
			if lj.healthChanged(h, deps.Now()) {
				sink.Health(h, deps.Now())
			}
			if note := lj.flapNote(); note != "" {
				sink.Note(deps.Now(), "%s", note)
			}
		case n := <-m.notes:
			sink.Note(deps.Now(), "%s", n)
		case e := <-m.exit:
			// The last words before the end are judged first.
			for len(lines) > 0 {
				lj.line(<-lines, deps.Now())
			}
			return lj.exited(e, deps.Now()), nil
		case <-t.C:
		}
		if end := lj.tick(deps.Now()); end != nil {
			return end, nil
		}
	}
}

// lifeRule is a line that says a serving server is dead or stuck, which the
// startup catalogue either does not know or knows without a cause.
type lifeRule struct {
	ID    string
	re    *regexp.Regexp
	Cause v.Cause // "" : the cause comes from the lines around it, else crash
	Title string
}

// lifeRules are the servers' own watchdogs and death notices.
var lifeRules = []lifeRule{
	// sglang managers/scheduler.py: the watchdog thread, then it kills
	// its process tree.
	{ID: "sglang.watchdog", re: regexp.MustCompile(`[Ww]atchdog timeout \(`), Title: "SGLang's scheduler watchdog found the scheduler stuck"},
	// vllm v1/engine/exceptions.py and the v0 async engine.
	{ID: "vllm.engine_dead", re: regexp.MustCompile(`EngineDeadError|Engine loop has died|EngineCore encountered a fatal error|AsyncEngineDeadError`), Title: "vLLM's engine died"},
	// TGI launcher/src/main.rs.
	{ID: "tgi.shard_dead", re: regexp.MustCompile(`Shard \d+ crashed|Shard process was signaled|Shard \d+ terminated`), Title: "a TGI shard died"},
	// NCCL's watchdog in torch's ProcessGroupNCCL.
	{ID: "nccl.watchdog", re: regexp.MustCompile(`Watchdog caught collective operation timeout`), Cause: v.NCCL, Title: "an NCCL collective timed out"},
}

// maxLifeEvidence bounds the lines kept as evidence.
const maxLifeEvidence = 12

// lifeJudge is the pure core of Follow: it reads lines, health answers and
// the exit, and decides how the life ended.
type lifeJudge struct {
	hangAfter, settle time.Duration
	stopping          func() bool
	profile           *classify.Profile

	cause    v.Cause
	title    string
	evidence []string
	// alarm is when a watchdog or death line came (zero: none).
	alarm time.Time

	healthOK    bool
	haveHealth  bool
	failingFrom time.Time
	lastState   observe.HealthState
	flaps       int
	flapNoted   bool
}

func newLifeJudge(ls LifeSpec, server string) *lifeJudge {
	lj := &lifeJudge{hangAfter: ls.HangAfter, settle: ls.Settle, stopping: ls.Stopping,
		profile: classify.Lookup(server),
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

// line judges one log line; it returns a remark for the person, if any.
func (lj *lifeJudge) line(l logline.Line, now time.Time) string {
	text := l.Text
	for i := range lifeRules {
		r := &lifeRules[i]
		if !r.re.MatchString(text) {
			continue
		}
		lj.keep(text)
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
	c := lj.profile.Classify(text)
	if c.Benign {
		return ""
	}
	if f := c.Failure; f != nil {
		lj.keep(text)
		if f.Cause != "" && lj.cause == "" {
			lj.cause, lj.title = f.Cause, f.Title
		}
		if f.Fatal && lj.alarm.IsZero() {
			lj.alarm = now
			return "after ready: " + f.Title
		}
		return ""
	}
	if c.IsError() && len(lj.evidence) > 0 {
		lj.keep(text)
	}
	return ""
}

func (lj *lifeJudge) keep(text string) {
	if len(lj.evidence) < maxLifeEvidence {
		lj.evidence = append(lj.evidence, text)
	}
}

// healthChanged takes a health answer and reports whether its state
// differs from the previous one.
func (lj *lifeJudge) healthChanged(h observe.Health, now time.Time) bool {
	changed := !lj.haveHealth || h.State != lj.lastState
	lj.haveHealth, lj.lastState = true, h.State
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

func (lj *lifeJudge) flapNote() string {
	if lj.flaps >= flapThreshold && !lj.flapNoted {
		lj.flapNoted = true
		return fmt.Sprintf("after ready: the health answer keeps flapping (%d recoveries)", lj.flaps)
	}
	return ""
}

// tick decides the hangs: health failing past the threshold, or a watchdog
// line the process did not end after.
func (lj *lifeJudge) tick(now time.Time) *LifeEnd {
	if lj.stopping() {
		return nil
	}
	if !lj.healthOK && now.Sub(lj.failingFrom) >= lj.hangAfter {
		ev := append(lj.evidence, fmt.Sprintf("[vigil] health: %s for %s", lj.lastState, round(now.Sub(lj.failingFrom))))
		cause := lj.cause
		if cause == "" {
			cause = v.Health
		}
		return &LifeEnd{How: LifeHung, Cause: cause, At: now, Evidence: ev,
			Summary: fmt.Sprintf("the health endpoint kept failing for %s after ready", round(now.Sub(lj.failingFrom)))}
	}
	if !lj.alarm.IsZero() && now.Sub(lj.alarm) >= lj.settle {
		cause := lj.cause
		if cause == "" {
			cause = v.Crash
		}
		return &LifeEnd{How: LifeHung, Cause: cause, At: now, Evidence: lj.evidence,
			Summary: lj.title + ", and the server did not exit"}
	}
	return nil
}

// exited decides how an end of the process reads.
func (lj *lifeJudge) exited(e observe.Exit, now time.Time) *LifeEnd {
	end := &LifeEnd{How: LifeDied, Cause: lj.cause, At: now, Exit: &e, Evidence: lj.evidence}
	if lj.stopping() {
		end.How = LifeStopped
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

func round(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
