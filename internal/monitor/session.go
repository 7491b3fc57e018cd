package monitor

import (
	"context"
	"sync"
	"time"

	"vigil/internal/judge"
	"vigil/internal/logline"
	"vigil/internal/observe"
)

// Session is the loop that owns the judge: it feeds it from the log,
// health, liveness and exit sources, keeps time, and hands every event to
// the sink. One goroutine owns the judge; the sources talk to it over
// channels.
type Session struct {
	Judge *judge.Judge
	Now   func() time.Time
	// Backlog times the lines the log held at attach (nil: none).
	Backlog *Backlog
	// Lines come in batches, each the lines of one read of the log.
	Lines    <-chan []logline.Line
	Health   <-chan observe.Health
	Activity <-chan observe.Activity
	Exit     <-chan observe.Exit
	// Notes are remarks from the sources (a rotated log, skipped lines).
	Notes  <-chan string
	OnNote func(at time.Time, msg string)
	// Smoke runs the smoke request when the judge asks for it, for the
	// server kind the judge knows then.
	Smoke func(ctx context.Context, server string) observe.SmokeResult
	// Sink receives every event, in order.
	Sink func(observe.Event)
	// OnTick is called after every step, in the judge's goroutine, so a
	// live view can read the judge's state.
	OnTick func(now time.Time)
	// Tick is how often time-based decisions are checked (default 50 ms).
	Tick time.Duration
	// Nudge, when set, is told (without blocking) when the server first
	// says it is up and when its ready line comes: the health prober
	// probes at once then rather than at its next tick.
	Nudge chan<- struct{}
	// Listen, when set, is told each new address the server says it
	// listens at (Judge.ListenURL) and returns a note to show, or "".
	Listen func(base string) (note string)
}

// failingTick is how often time is checked once a fatal line is in: the
// judge waits only a short quiet after one whose evidence is complete, and
// the regular tick would add up to its whole period to that.
const failingTick = 10 * time.Millisecond

// starvedAfter is how late the loop may run before vigil counts itself
// starved.
const starvedAfter = time.Second

// Run judges until there is a verdict or ctx ends.
func (s *Session) Run(ctx context.Context) (*observe.Result, error) {
	tick := s.Tick
	if tick <= 0 {
		tick = 50 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	smokeDone := make(chan observe.SmokeResult, 1)
	// The smoke request is joined before Run returns; it ends with ctx.
	var smoking sync.WaitGroup
	defer smoking.Wait()
	smokeCtx, stopSmoke := context.WithCancel(ctx)
	defer stopSmoke() // before the Wait: a verdict cuts a smoke request short
	lines := s.Lines
	lastLoop := s.Now()
	up, fastTick, listen := false, false, ""
	for {
		select {
		case <-ctx.Done():
			s.flush()
			return nil, ctx.Err()
		case b, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			s.takeNotes()
			s.feed(b)
			// Take whatever else is already queued before deciding, so a
			// burst of lines is judged as a whole.
			s.drainLines(&lines)
		case h := <-s.Health:
			s.Judge.Health(h, s.Now())
		case a := <-s.Activity:
			s.Judge.Activity(a, s.Now())
		case e := <-s.Exit:
			// Everything the server wrote before it died is judged first.
			for lines != nil && len(lines) > 0 {
				s.drainLines(&lines)
			}
			s.Judge.Exit(e, s.Now())
		case n := <-s.Notes:
			s.showNote(n)
		case r := <-smokeDone:
			s.Judge.Smoke(r, s.Now())
		case <-t.C:
		}
		if s.Judge.WantSmoke() && s.Smoke != nil {
			server := s.Judge.Server()
			smoking.Go(func() { smokeDone <- s.Smoke(smokeCtx, server) })
		}
		if u := s.Judge.ListenURL(); u != "" && u != listen {
			listen = u
			if note := s.listen(u); note != "" {
				s.showNote(note)
			}
		}
		if !up && s.Judge.Up() {
			up = true
			s.nudge()
		}
		now := s.Now()
		// The loop runs at least every tick; a much longer gap means vigil
		// itself got no CPU, which must not look like the server stalling.
		if gap := now.Sub(lastLoop); gap > tick+starvedAfter {
			s.Judge.Starved(gap - tick)
		}
		lastLoop = now
		r := s.Judge.Tick(now)
		if s.flush() && !fastTick && failingTick < tick {
			fastTick = true
			t.Reset(failingTick)
		}
		if r == nil && s.OnTick != nil {
			s.OnTick(now)
		}
		if r != nil {
			return r, nil
		}
	}
}

// lineBatches bounds the batches of lines queued for the session. A batch
// holds at most one read of the log (256 KiB) or one journal entry, so a
// flooded log keeps at most a few MiB of lines waiting, about what 4,096
// single lines did.
const lineBatches = 16

// drainLines judges the lines already queued, up to about 4096 of them,
// so that the loop still keeps time during a flood.
func (s *Session) drainLines(lines *<-chan []logline.Line) {
	for n := 0; n < 4096 && *lines != nil; {
		select {
		case b, ok := <-*lines:
			if !ok {
				*lines = nil
				return
			}
			s.takeNotes()
			s.feed(b)
			n += len(b)
		default:
			return
		}
	}
}

// takeNotes shows the notes already queued. A source queues its note (the
// follower's "now names a new file") before the lines that follow it, so
// they are shown before those lines are judged; left to the loop's select,
// a batch that decides could be taken first and the note never shown.
func (s *Session) takeNotes() {
	for {
		select {
		case n := <-s.Notes:
			s.showNote(n)
		default:
			return
		}
	}
}

func (s *Session) showNote(n string) {
	if s.OnNote != nil {
		s.OnNote(s.Now(), n)
	}
}

// feed judges a batch line by line, each at the time it is judged, as
// lines sent one at a time were.
func (s *Session) feed(b []logline.Line) {
	for _, l := range b {
		s.Judge.Line(l, s.Backlog.At(l, s.Now()))
	}
}

func (s *Session) listen(base string) string {
	if s.Listen == nil {
		return ""
	}
	return s.Listen(base)
}

func (s *Session) nudge() {
	select {
	case s.Nudge <- struct{}{}:
	default:
	}
}

// flush hands the judge's events to the sink and reports whether one of
// them says the startup is failing.
func (s *Session) flush() (failing bool) {
	for _, e := range s.Judge.Events() {
		switch e.Kind() {
		case observe.KindReadyLine:
			s.nudge()
		case observe.KindFailing:
			failing = true
		}
		if s.Sink != nil {
			s.Sink(e)
		}
	}
	return failing
}
