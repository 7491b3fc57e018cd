package judge

import (
	"time"

	"vigil/internal/classify"
	"vigil/internal/logline"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// restartNote is the warning a restart emits.
const restartNote = "the log was truncated or rotated: its new content is judged as a new start, the lines before are not this start's"

// restart begins judging anew at now: a watched log (Config.SplitRuns)
// was truncated or rotated (logline.Line.Fresh), so what follows is a new
// run (a server restarted with `> server.log`, or a supervisor that moves
// the old log aside), or another start clue came; nothing fed so far
// belongs to it. The configuration is the one given to
// New; events not yet taken are kept.
func (j *Judge) restart(now time.Time) {
	events, memo := j.events, j.memo
	*j = *New(j.base, now)
	j.events = append(events, j.events...)
	j.memo = memo
	j.emit(now, observe.Warning{Message: restartNote})
}

// startClue reports whether the first line after a truncation or rotation
// opens a new process's output: a banner, a line a server prints just
// before its banner, or a relative clock near zero. Anything else is the
// same process writing on after a copytruncate rotation; a banner that
// comes later is still caught by newRun.
func startClue(text string) bool {
	if t, ok := classify.ClockOf(text); ok {
		return t < classify.RestartNear
	}
	if classify.IsPreBanner(text) {
		return true
	}
	return classify.MayBeBanner(text) && classify.BannerServer(classify.ParseFast(text).Msg) != ""
}

// newRun reports whether a line of a log vigil only watches starts a new
// run of the server (Config.SplitRuns): the start clues explain's splitter
// reads, for the case a start is appended to a log while vigil watches it
// (one attached without --pid takes the last run so far for the current
// one, and the next start comes after it). A relative clock that drops
// back to near zero is a new process; a start banner is a new start once
// this one got past its first steps, was said ready or failing, or when
// another server starts.
func (j *Judge) newRun(l logline.Line) bool {
	if t, ok := classify.ClockOf(l.Text); ok {
		was, ticking := j.relClock, j.relTicking
		j.relClock, j.relTicking = t, true
		if ticking && classify.ClockRestarts(was, t) {
			return true
		}
	}
	if j.lines == 0 || !classify.MayBeBanner(l.Text) {
		return false
	}
	s := classify.BannerServer(classify.ParseFast(l.Text).Msg)
	if s == "" {
		return false
	}
	switch j.phase {
	case v.Launch, v.Init, v.Distributed:
		return j.readyLine || !j.fatalAt.IsZero() || j.server != "" && s != j.server
	}
	return true
}
