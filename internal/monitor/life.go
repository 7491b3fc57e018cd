package monitor

import (
	"context"
	"time"

	"golang.org/x/sync/errgroup"

	"vigil/internal/life"
	"vigil/internal/logline"
	"vigil/internal/observe"
)

// LifeSpec is one server's life after a ready verdict.
type LifeSpec struct {
	// Spec is the startup's spec; its Log is followed from Offset (where
	// the startup's judging stopped reading).
	Spec Spec
	// ReadyAt is when the startup's verdict came.
	ReadyAt time.Time
	// HangAfter is how long the health answers may keep failing before
	// the server counts as hung (0: life.DefaultHangAfter).
	HangAfter time.Duration
	// Settle is how long a watchdog or death line may go unanswered by the
	// process ending before the server counts as hung (0: life.DefaultSettle).
	Settle time.Duration
	// Stopping reports whether a stop was asked for, so that the server's
	// end is a stop and not a death (nil: never).
	Stopping func() bool
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
func Follow(ctx context.Context, ls LifeSpec, deps Deps, sink LifeSink) (*life.End, error) {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	m := &monitor{
		spec: ls.Spec, deps: deps,
		lines:   make(chan []logline.Line, lineBatches),
		health:  make(chan observe.Health, 16),
		exit:    make(chan observe.Exit, 1),
		notes:   make(chan string, 16),
		nudge:   make(chan struct{}, 1),
		logDone: make(chan struct{}),
	}
	m.emitted.Store(ls.Spec.Offset)
	if ls.Spec.Log != "" && ls.Spec.Unit == nil {
		m.follower = m.newFollower()
	}
	lj := life.New(life.Config{Server: m.spec.Judge.Server, HangAfter: ls.HangAfter, Settle: ls.Settle, Stopping: ls.Stopping})

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
	lines := (<-chan []logline.Line)(m.lines)
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case b := <-lines:
			for _, l := range b {
				if note := lj.Line(l.Text, deps.Now()); note != "" {
					sink.Note(deps.Now(), "%s", note)
				}
			}
		case h := <-m.health:
			if lj.Health(h, deps.Now()) {
				sink.Health(h, deps.Now())
			}
			if note := lj.FlapNote(); note != "" {
				sink.Note(deps.Now(), "%s", note)
			}
		case n := <-m.notes:
			sink.Note(deps.Now(), "%s", n)
		case e := <-m.exit:
			// The last words before the end are judged first.
			for len(lines) > 0 {
				for _, l := range <-lines {
					lj.Line(l.Text, deps.Now())
				}
			}
			return lj.Exit(e, deps.Now()), nil
		case <-t.C:
		}
		if end := lj.Tick(deps.Now()); end != nil {
			return end, nil
		}
	}
}
