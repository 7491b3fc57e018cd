// Package facts holds what a supervisor knows about its server at one moment
// (phase, progress, readiness, health, how the startup or the server's life
// ended) as a [Snapshot] that the systemd notifier and the probe endpoints
// read. The supervisor writes a [Board] as the monitor's events arrive; the
// readers never see the events themselves.
package facts

import (
	"sync"
	"time"

	"vigil/internal/verdict"
)

// Source is anything that can tell the facts now.
type Source interface {
	Snapshot() Snapshot
}

// SourceFunc adapts a function to [Source].
type SourceFunc func() Snapshot

// Snapshot calls f.
func (f SourceFunc) Snapshot() Snapshot { return f() }

// PhaseSpan is one phase the server entered and when.
type PhaseSpan struct {
	Phase verdict.Phase
	Start time.Time
}

// Snapshot is the supervisor's knowledge at one moment. The zero value is a
// supervisor that has started nothing yet.
type Snapshot struct {
	// Server is the server kind ("sglang"), once known.
	Server string
	// Started is when the server was launched.
	Started time.Time
	// Phase is the phase the server is in now; Phases every phase it
	// entered, in order (the last one is Phase).
	Phase  verdict.Phase
	Phases []PhaseSpan
	// Progress is the latest progress report within the phase, already in
	// words ("Loading safetensors checkpoint shards 9/20"); "" for none.
	Progress string
	// LastProgress is the latest sign of progress of any kind: a log line,
	// a progress bar, CPU, disk reads, GPU memory growing.
	LastProgress time.Time
	// Ready is set once the startup's verdict is ready (with a smoke test,
	// once it answered sanely); ReadyAt is when.
	Ready   bool
	ReadyAt time.Time
	// Health is the state of the latest health answer ("ok", "starting",
	// "status", ...; "" before the first); Healthy whether that answer was
	// a 200; HealthAt when it came.
	Health   string
	Healthy  bool
	HealthAt time.Time
	// Verdict is the startup's verdict, "" while starting. With failed,
	// stalled or timeout, Cause and Summary say why.
	Verdict verdict.Verdict
	// Died is set when the server ended after ready (it exited, or vigil
	// judged it dead); Hung when it is alive after ready but hangs.
	// Cause and Summary say why.
	Died bool
	Hung bool
	// Cause and Summary explain a failed startup, a death or a hang.
	Cause   verdict.Cause
	Summary string
	// EndedAt is when the startup failed or the server died.
	EndedAt time.Time
	// Stopping is set once the supervisor is on its way down (a stop was
	// asked for, or it is stopping a failed server).
	Stopping bool
	// Restarts counts the server restarts seen in its log (a wrapper that
	// started it again within this run).
	Restarts int
	// StopSignal is the signal (a number) that asked vigil to stop, 0 if
	// none did.
	StopSignal int
	// Exit is how the server's leader ended, once it has.
	Exit *Exit
}

// Exit is how the server's leader ended.
type Exit struct {
	Code   int // its exit status, when it exited
	Signal int // the signal that killed it, 0 when it exited
	// Forced is set when vigil had to kill it after the grace period.
	Forced bool
}

// Failed reports whether the startup failed or the server died or hangs.
func (s Snapshot) Failed() bool {
	return s.StartupFailed() || s.Died || s.Hung
}

// StartupFailed reports whether the startup ended in anything but ready.
func (s Snapshot) StartupFailed() bool {
	return s.Verdict != "" && s.Verdict != verdict.Ready
}

// StartupSeconds is how long the startup took: to ready, to its failure,
// or so far.
func (s Snapshot) StartupSeconds(now time.Time) float64 {
	if s.Started.IsZero() {
		return 0
	}
	end := now
	switch {
	case s.Ready:
		end = s.ReadyAt
	case s.StartupFailed():
		end = s.EndedAt
	}
	return nonNeg(end.Sub(s.Started))
}

// PhaseSeconds is how long each phase lasted (the current one so far), in
// the order entered; a phase entered twice counts both stays. The ready
// phase lasts no time: the startup ends there.
func (s Snapshot) PhaseSeconds(now time.Time) map[verdict.Phase]float64 {
	out := make(map[verdict.Phase]float64, len(s.Phases))
	end := now
	switch {
	case s.Ready:
		end = s.ReadyAt
	case s.StartupFailed():
		end = s.EndedAt
	}
	for i, p := range s.Phases {
		if p.Phase == verdict.PhaseReady {
			out[p.Phase] = 0
			continue
		}
		stop := end
		if i+1 < len(s.Phases) {
			stop = s.Phases[i+1].Start
		}
		out[p.Phase] += nonNeg(stop.Sub(p.Start))
	}
	return out
}

// SinceProgress is how long ago the latest sign of progress came.
func (s Snapshot) SinceProgress(now time.Time) time.Duration {
	if s.LastProgress.IsZero() {
		return 0
	}
	return max(now.Sub(s.LastProgress), 0)
}

func nonNeg(d time.Duration) float64 { return max(d, 0).Seconds() }

// Board is a [Source] the supervisor writes. Its methods are safe for
// concurrent use; each takes the time the fact became true, so the board
// never reads a clock itself.
type Board struct {
	mu      sync.Mutex
	s       Snapshot
	changed chan struct{}
}

// NewBoard starts the facts of a server launched at started.
func NewBoard(started time.Time) *Board {
	return &Board{
		s: Snapshot{
			Started:      started,
			Phase:        verdict.Launch,
			Phases:       []PhaseSpan{{Phase: verdict.Launch, Start: started}},
			LastProgress: started,
		},
		changed: make(chan struct{}),
	}
}

// Snapshot returns a copy of the facts now.
func (b *Board) Snapshot() Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.s
	s.Phases = append([]PhaseSpan(nil), b.s.Phases...)
	if b.s.Exit != nil {
		e := *b.s.Exit
		s.Exit = &e
	}
	return s
}

// Changed returns a channel closed at the next change of the facts.
func (b *Board) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

func (b *Board) update(f func(s *Snapshot)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(&b.s)
	close(b.changed)
	b.changed = make(chan struct{})
}

// SetServer records the server kind.
func (b *Board) SetServer(kind string) {
	b.update(func(s *Snapshot) { s.Server = kind })
}

// Phase records that the server entered ph at at; it is also progress.
func (b *Board) Phase(ph verdict.Phase, at time.Time) {
	b.update(func(s *Snapshot) {
		if ph != s.Phase {
			s.Phase = ph
			s.Phases = append(s.Phases, PhaseSpan{Phase: ph, Start: at})
			s.Progress = ""
		}
		s.LastProgress = later(s.LastProgress, at)
	})
}

// Progress records a progress report in words.
func (b *Board) Progress(text string, at time.Time) {
	b.update(func(s *Snapshot) {
		s.Progress = text
		s.LastProgress = later(s.LastProgress, at)
	})
}

// Progressed records a sign of progress that has no words (a log line,
// CPU or disk activity).
func (b *Board) Progressed(at time.Time) {
	b.update(func(s *Snapshot) { s.LastProgress = later(s.LastProgress, at) })
}

// Health records a health answer: its state and whether it was a 200.
func (b *Board) Health(state string, ok bool, at time.Time) {
	b.update(func(s *Snapshot) {
		s.Health, s.Healthy, s.HealthAt = state, ok, at
	})
}

// Ready records the ready verdict.
func (b *Board) Ready(at time.Time) {
	b.update(func(s *Snapshot) {
		if s.Phase != verdict.PhaseReady {
			s.Phase = verdict.PhaseReady
			s.Phases = append(s.Phases, PhaseSpan{Phase: verdict.PhaseReady, Start: at})
		}
		s.Progress = ""
		s.Ready, s.ReadyAt, s.Verdict = true, at, verdict.Ready
	})
}

// Failed records a startup verdict other than ready (failed, stalled,
// timeout) with its cause and summary. A ready verdict goes to [Board.Ready].
func (b *Board) Failed(v verdict.Verdict, cause verdict.Cause, summary string, at time.Time) {
	b.update(func(s *Snapshot) {
		s.Verdict, s.Cause, s.Summary, s.EndedAt = v, cause, summary, at
	})
}

// Died records that the server ended after ready.
func (b *Board) Died(cause verdict.Cause, summary string, at time.Time) {
	b.update(func(s *Snapshot) {
		s.Died, s.Hung, s.Cause, s.Summary, s.EndedAt = true, false, cause, summary, at
	})
}

// Hung records that the server, alive after ready, hangs (hung true) or
// answers again (hung false).
func (b *Board) Hung(hung bool, cause verdict.Cause, summary string) {
	b.update(func(s *Snapshot) {
		s.Hung = hung
		if hung {
			s.Cause, s.Summary = cause, summary
		} else if !s.Died {
			s.Cause, s.Summary = "", ""
		}
	})
}

// Stopping records that the supervisor is on its way down.
func (b *Board) Stopping() {
	b.update(func(s *Snapshot) { s.Stopping = true })
}

// StopRequested records that signal sig asked vigil to stop (it relays
// it to the server); the supervisor is then on its way down. Only the first
// request counts.
func (b *Board) StopRequested(sig int) {
	b.update(func(s *Snapshot) {
		if s.StopSignal == 0 {
			s.StopSignal = sig
		}
		s.Stopping = true
	})
}

// Exited records how the server's leader ended.
func (b *Board) Exited(e Exit) {
	b.update(func(s *Snapshot) { s.Exit = &e })
}

// Restarted counts a restart of the server seen in its log.
func (b *Board) Restarted() {
	b.update(func(s *Snapshot) { s.Restarts++ })
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
