package judge

import (
	"fmt"
	"time"

	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// UnansweredHint is the hint when the health URL the user gave never
// answered.
const UnansweredHint = "nothing answers at --url: check its host and port against the server's own --host/--port, and that the server listens where vigil runs (a container's port mapping, a firewall)"

// noteAnswer remembers that the server itself answered a probe with some
// HTTP status: from then on its endpoint exists, whatever it said. A 200
// from another process on the port is no answer of the server's.
func (j *Judge) noteAnswer(h observe.Health) {
	if h.Code != 0 && h.State != observe.HealthForeign {
		j.answered = true
	}
}

// neverAnswered fails a start whose ready line came but whose health URL,
// given with --url, has not answered once (refused or no answer at all)
// within the grace a ready line gets: the user named where the server must
// answer, and a ready line alone does not make it answer there. A guessed
// URL keeps the ready line's word (with a warning, in readiness), and an
// endpoint that answered before and then stopped is judged there too.
func (j *Judge) neverAnswered(now time.Time) *observe.Result {
	if j.cfg.URLGuessed || j.cfg.NoHealth || j.noHTTP || !j.readyLine || j.answered {
		return nil
	}
	st := j.health.State
	if st != observe.HealthRefused && st != observe.HealthError {
		return nil
	}
	waited := now.Sub(j.readyLineAt)
	if waited < j.unansweredGrace() {
		return nil
	}
	why := "connection refused"
	if st == observe.HealthError {
		why = "no answer"
		if j.health.Err != "" {
			why = j.health.Err
		}
	}
	path := j.prof.HealthPath
	if path == "" {
		path = "/health"
	}
	ev := []string{fmt.Sprintf("[vigil] GET %s -> %s", path, why)}
	if j.readyLineText != "" {
		ev = append(ev, j.readyLineText)
	}
	return &observe.Result{Verdict: v.Failed, Cause: v.Health, RuleID: "health.never_answered",
		Summary:  fmt.Sprintf("the server printed its ready line %.0fs ago but its health endpoint never answered (%s)", waited.Seconds(), why),
		Evidence: ev, Hint: UnansweredHint}
}
