package judge

import (
	"fmt"
	"time"

	"vigil/internal/classify"
	"vigil/internal/observe"
	"vigil/internal/srvconfig"
	v "vigil/internal/verdict"
)

// Readiness holds the numbers of the readiness and health rules. The rules
// are one set, live and offline: a live judge gets its health answers from
// the prober, an offline one from the access-log lines of the server's own
// log (classify.AccessHealth). Only the numbers differ, and only here.
type Readiness struct {
	// BadAnswers unexpected health answers in a row after the server
	// said it is up, the first at least badHold before, are a health
	// failure.
	BadAnswers int
	// Settle > 0 makes a ready line wait for the health answers after
	// it: a good one confirms it, BadAnswers answers that are not good
	// (a 503 too: the line said ready) turn it into a health failure, and
	// after Settle (or SettleLines lines) without either the line is
	// believed. The ready verdict keeps the line's time. 0: the ready
	// line waits for a good answer as the prober brings it.
	Settle      time.Duration
	SettleLines int
	// UpWithoutAnswer > 0: a server whose readiness is its health answer
	// (no ReadyNeedsLine) and that said it listens is ready, as of that
	// line, once this long (or SettleLines lines) passed with no error
	// and no bad answer. 0: only an answer makes it ready.
	UpWithoutAnswer time.Duration
}

// LiveReadiness is the live judge's: vigil's own prober asks every
// moment, so a ready line waits for its good answer and three bad ones in
// a row are a failure, not a probe's hiccup.
var LiveReadiness = Readiness{BadAnswers: 3}

// LogReadiness is the offline judge's (explain). A log holds only the
// answers that somebody asked for while it was written (a kubelet's
// probe every ten seconds, a person's curl), far fewer than the prober's:
// two bad answers in a row in it span what three of the prober's do, and
// most logs hold none at all, so a ready line (or a listening line, for a
// server whose readiness is its answer) is believed once 10 s (200 lines,
// for stamps that stand still) passed without an answer against it.
var LogReadiness = Readiness{BadAnswers: 2, Settle: 10 * time.Second, SettleLines: 200, UpWithoutAnswer: 10 * time.Second}

// badHold: the first of the bad answers in a row is this old before they
// make a health failure (a restart of the health handler is no failure).
const badHold = time.Second

// upSilentSeen is the health evidence of a server ready by UpWithoutAnswer.
const upSilentSeen = "[vigil] no error and no bad health answer in the log after the server said it listens"

// unansweredGrace is how long a ready line may stand without the health
// URL answering before vigil trusts the line alone.
func (j *Judge) unansweredGrace() time.Duration {
	return max(3*time.Second, min(10*time.Second, j.cfg.StallAfter))
}

// needsLine: a health 200 alone is not readiness for this server, unless
// its command line hides the ready line.
func (j *Judge) needsLine() bool {
	return j.prof.ReadyNeedsLine && !classify.ReadyLineHidden(j.prof, j.cfg.Argv)
}

// okGrace is how long a health 200 must hold, without the server's ready
// line, before it alone means readiness. While the kind is unknown, the
// log gets a moment to name it: some servers answer 200 before they are
// usable. A server that prints a ready line as it starts answering 200
// (llama.cpp, TGI) gets a moment to print it: a 200 without it is more
// likely another process on the port, which the starting server is about
// to fail to bind.
func (j *Judge) okGrace() time.Duration {
	if j.server == "" || len(j.prof.Ready) > 0 {
		return okWithoutLineGrace
	}
	return 0
}

const okWithoutLineGrace = time.Second

// Health feeds one health probe result (offline: one answer read from the
// access log, with its line's time).
func (j *Judge) Health(h observe.Health, now time.Time) {
	if j.result != nil {
		return
	}
	if w := j.waiting; w != nil {
		j.answerWaiting(w, h, now)
		return
	}
	if h.State != j.health.State || h.Code != j.health.Code {
		j.healthChanged = now
		if !j.healthAt.IsZero() || h.State != observe.HealthRefused {
			j.lastProgress = now
		}
		j.emit(now, observe.HealthChange{State: h.State, Code: h.Code})
	}
	if h.State == observe.HealthOK && j.health.State != observe.HealthOK {
		j.healthOKSince = now
	}
	j.health, j.healthAt = h, now
	j.noteAnswer(h)
	// Only real answers with an unexpected status count against the
	// server: a probe that times out or is reset says more about the
	// network path than about the server.
	if h.State == observe.HealthOther && j.upSaid {
		if j.badHealth == 0 {
			j.badHealthAt = now
		}
		j.badHealth++
	} else {
		j.badHealth = 0
	}
}

// waitingReady is a ready verdict that waits for the health answers after
// its line (Readiness.Settle).
type waitingReady struct {
	result *observe.Result
	lines  int // the judge's line count at the ready line
	good   bool
	bad    []string // the bad answers' lines (BadAnswers at most)
	last   observe.Health
	// unbound is a line after the ready line saying the port could not
	// be bound.
	unbound *recentLine
}

// over: the wait has run out by now.
func (j *Judge) over(w *waitingReady, now time.Time) bool {
	r := j.cfg.Readiness
	return now.Sub(w.result.At) >= r.Settle || r.SettleLines > 0 && j.lines-w.lines >= r.SettleLines
}

func (j *Judge) answerWaiting(w *waitingReady, h observe.Health, now time.Time) {
	if w.good || len(w.bad) >= j.cfg.Readiness.BadAnswers || j.over(w, now) {
		return
	}
	if h.State == observe.HealthOK {
		w.good = true
		return
	}
	w.bad = append(w.bad, clip(h.Seen, 300))
	w.last = h
}

// settleWaiting ends the wait of a ready verdict, if it is over by now.
func (j *Judge) settleWaiting(now time.Time) *observe.Result {
	w := j.waiting
	switch {
	case w.unbound != nil:
		r := *w.result
		u := w.unbound
		r.Verdict, r.Cause, r.Phase, r.RuleID = v.Failed, u.rule.Cause, j.phaseBeforeReady(), u.rule.ID
		r.Summary = summarize(u.rule.Title, u.source, u.msg)
		r.Hint = fillPort(expandHint(u.rule.Hint, j.cfg.Argv), u.msg)
		r.Evidence = append([]string{u.raw}, r.Evidence[:min(1, len(r.Evidence))]...)
		j.result = &r
	case len(w.bad) >= j.cfg.Readiness.BadAnswers:
		r := *w.result
		r.Verdict, r.Cause, r.Phase, r.RuleID, r.Hint = v.Failed, v.Health, j.phaseBeforeReady(), "health.after_ready", UnhealthyHint
		r.Summary = fmt.Sprintf("the server printed its ready line but /health then answered HTTP %d", w.last.Code)
		r.Evidence = append(append([]string{}, r.Evidence[:min(1, len(r.Evidence))]...), w.bad...)
		j.result = &r
	case w.good || j.over(w, now):
		j.result = w.result
	default:
		return nil
	}
	j.waiting = nil
	return j.result
}

// phaseBeforeReady is the phase a ready line left.
func (j *Judge) phaseBeforeReady() v.Phase {
	if n := len(j.spans); n >= 2 {
		return j.spans[n-2].Phase
	}
	return v.Serving
}

// readiness decides ready (or a health failure after the server said it
// is up). A ready verdict is dated now unless the rule says otherwise.
func (j *Judge) readiness(now time.Time) *observe.Result {
	if j.smokeState != 0 {
		return nil
	}
	rd := j.cfg.Readiness
	healthOK := j.health.State == observe.HealthOK
	noEndpoint := j.cfg.NoHealth || j.noHTTP || j.health.State == observe.HealthNone
	// A 401/403 is the server answering: trouble with the key, not with
	// the server; its ready line decides.
	authUp := j.health.State == HealthAuth && (j.readyLine || j.upSaid)
	if authUp && !j.authSaid {
		j.authSaid = true
		j.emit(now, observe.Warning{Message: AuthHint})
	}
	if r := j.neverAnswered(now); r != nil {
		return r
	}
	ready, at := false, now
	switch {
	case authUp:
		ready = true
	case j.readyLine && rd.Settle > 0 && !j.noHTTP:
		// The line says ready as of its time; the answers after it may
		// still undo it (Tick holds the verdict for them).
		ready, at = true, j.readyLineAt
		j.holdReady = true
	case j.readyLine && (healthOK || noEndpoint):
		ready = true
	case healthOK && !j.needsLine() && now.Sub(j.healthOKSince) >= j.okGrace():
		ready = true
		if rd.UpWithoutAnswer > 0 && j.upSaid && j.upSaidAt.Before(j.healthOKSince) {
			// Offline, a 200 in the log is whoever asked, whenever: it
			// confirms the server that said it listens, as of then.
			at = j.upSaidAt
		}
	case j.readyLine && now.Sub(j.readyLineAt) >= j.unansweredGrace() &&
		(j.health.State == observe.HealthError || (j.cfg.URLGuessed && j.health.State == observe.HealthRefused)):
		ready = true
		msg := "the server says it is ready but nothing answers at the guessed URL; pass --url to check its health"
		if j.health.State == observe.HealthError {
			msg = "the server says it is ready but its health endpoint does not answer (" + j.health.Err + "); trusting its ready line"
		}
		j.emit(now, observe.Warning{Message: msg})
	case rd.UpWithoutAnswer > 0 && j.upSaid && !j.readyLine && !j.needsLine() && j.badHealth == 0 && j.fatalAt.IsZero() &&
		(now.Sub(j.upSaidAt) >= rd.UpWithoutAnswer || rd.SettleLines > 0 && j.lines-j.upLines >= rd.SettleLines):
		ready, at = true, j.upSaidAt
		j.health = observe.Health{State: observe.HealthOK, Code: 200, Seen: upSilentSeen}
	}
	if ready {
		for _, o := range srvconfig.Check(j.server, j.config.Config(), j.cfg.Expect) {
			if o.Status == srvconfig.Pending {
				j.emit(now, observe.Warning{Message: "never confirmed by the server's log: " + o.Expect.String()})
			}
		}
		j.advance(v.PhaseReady, false, "", at)
		if j.cfg.Smoke && j.noHTTP {
			j.emit(now, observe.Warning{Message: "the server serves no HTTP (its ready line says so): no generation check"})
		}
		if j.cfg.Smoke && !j.noHTTP {
			j.smokeState = 1
			return nil
		}
		return &observe.Result{Verdict: v.Ready, Phase: v.PhaseReady, Summary: j.readySummary(at), Evidence: j.readyEvidence(), At: at}
	}
	// The server said it is up but its health endpoint keeps answering an
	// unexpected status, or stays "starting" long after its ready line.
	if j.upSaid && j.badHealth >= rd.BadAnswers && now.Sub(j.badHealthAt) >= badHold {
		return j.healthFailure(fmt.Sprintf("the server said it is up but /health keeps answering %s", j.healthText()))
	}
	if j.readyLine && j.health.State == observe.HealthStarting && j.cfg.StallAfter > 0 && now.Sub(j.readyLineAt) >= j.cfg.StallAfter {
		return j.healthFailure(fmt.Sprintf("the server printed its ready line %.0fs ago but /health still answers 503", now.Sub(j.readyLineAt).Seconds()))
	}
	return nil
}

// LogEnds decides a finished log at its end (now): no line and no answer
// will come, so every wait the rules make is over. It returns the verdict
// if there is one by then, as Tick does.
func (j *Judge) LogEnds(now time.Time) *observe.Result {
	rd := j.cfg.Readiness
	return j.Tick(now.Add(max(SettleMax, rd.Settle, rd.UpWithoutAnswer, badHold) + 3*time.Second))
}

func (j *Judge) healthText() string {
	if j.health.State == observe.HealthError {
		return "with an error (" + j.health.Err + ")"
	}
	return fmt.Sprintf("HTTP %d", j.health.Code)
}

func (j *Judge) healthFailure(summary string) *observe.Result {
	ev := []string{fmt.Sprintf("[vigil] GET %s -> %s", j.prof.HealthPath, j.healthText())}
	if j.health.Seen != "" {
		ev[0] = j.health.Seen
	}
	if j.readyLine {
		ev = append(ev, j.lastLines(2)...)
	}
	return &observe.Result{Verdict: v.Failed, Cause: v.Health, Summary: summary, Evidence: ev,
		Hint: UnhealthyHint}
}
