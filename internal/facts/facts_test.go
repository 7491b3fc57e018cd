package facts

import (
	"testing"
	"time"

	"vigil/internal/verdict"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func sec(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Second))) }

func TestStartupAndPhaseSeconds(t *testing.T) {
	tests := []struct {
		name      string
		build     func(b *Board)
		now       time.Time
		wantTotal float64
		want      map[verdict.Phase]float64
	}{
		{
			name:      "just launched",
			build:     func(*Board) {},
			now:       sec(2),
			wantTotal: 2,
			want:      map[verdict.Phase]float64{verdict.Launch: 2},
		},
		{
			name: "loading weights, counted so far",
			build: func(b *Board) {
				b.Phase(verdict.Init, sec(1))
				b.Phase(verdict.Weights, sec(4))
			},
			now:       sec(10),
			wantTotal: 10,
			want:      map[verdict.Phase]float64{verdict.Launch: 1, verdict.Init: 3, verdict.Weights: 6},
		},
		{
			name: "ready stops every clock",
			build: func(b *Board) {
				b.Phase(verdict.Weights, sec(1))
				b.Phase(verdict.Serving, sec(5))
				b.Ready(sec(6))
			},
			now:       sec(100),
			wantTotal: 6,
			want:      map[verdict.Phase]float64{verdict.Launch: 1, verdict.Weights: 4, verdict.Serving: 1, verdict.PhaseReady: 0},
		},
		{
			name: "a failed startup stops at its verdict",
			build: func(b *Board) {
				b.Phase(verdict.KVCache, sec(3))
				b.Failed(verdict.Failed, verdict.GPUOOM, "no memory", sec(7))
			},
			now:       sec(50),
			wantTotal: 7,
			want:      map[verdict.Phase]float64{verdict.Launch: 3, verdict.KVCache: 4},
		},
		{
			name: "a phase entered twice adds both stays",
			build: func(b *Board) {
				b.Phase(verdict.Compile, sec(1))
				b.Phase(verdict.CUDAGraph, sec(3))
				b.Phase(verdict.Compile, sec(4))
			},
			now:       sec(9),
			wantTotal: 9,
			want:      map[verdict.Phase]float64{verdict.Launch: 1, verdict.Compile: 7, verdict.CUDAGraph: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBoard(t0)
			tt.build(b)
			s := b.Snapshot()
			if got := s.StartupSeconds(tt.now); got != tt.wantTotal {
				t.Errorf("StartupSeconds = %v, want %v", got, tt.wantTotal)
			}
			got := s.PhaseSeconds(tt.now)
			if len(got) != len(tt.want) {
				t.Errorf("PhaseSeconds = %v, want %v", got, tt.want)
			}
			for ph, w := range tt.want {
				if got[ph] != w {
					t.Errorf("PhaseSeconds[%s] = %v, want %v", ph, got[ph], w)
				}
			}
		})
	}
}

func TestBoardRecords(t *testing.T) {
	b := NewBoard(t0)
	changed := b.Changed()
	b.Progress("Loading 3/9", sec(2))
	select {
	case <-changed:
	default:
		t.Fatal("Changed not closed after Progress")
	}
	b.Progressed(sec(1)) // an older sign never moves LastProgress back
	s := b.Snapshot()
	if s.LastProgress != sec(2) || s.Progress != "Loading 3/9" {
		t.Errorf("after progress: LastProgress %v Progress %q", s.LastProgress, s.Progress)
	}
	if got := s.SinceProgress(sec(5)); got != 3*time.Second {
		t.Errorf("SinceProgress = %v, want 3s", got)
	}
	b.Phase(verdict.KVCache, sec(3))
	if s := b.Snapshot(); s.Progress != "" {
		t.Errorf("a new phase keeps the old progress %q", s.Progress)
	}
	b.Ready(sec(4))
	b.Hung(true, verdict.Health, "no answer for 30s")
	s = b.Snapshot()
	if !s.Failed() || s.StartupFailed() || s.Cause != verdict.Health {
		t.Errorf("hung after ready: Failed %v StartupFailed %v Cause %q", s.Failed(), s.StartupFailed(), s.Cause)
	}
	b.Hung(false, "", "")
	if s := b.Snapshot(); s.Failed() || s.Cause != "" {
		t.Errorf("answering again: Failed %v Cause %q", s.Failed(), s.Cause)
	}
	b.Died(verdict.CUDA, "illegal memory access", sec(9))
	b.Restarted()
	s = b.Snapshot()
	if !s.Died || !s.Failed() || s.Cause != verdict.CUDA || s.Restarts != 1 || s.EndedAt != sec(9) {
		t.Errorf("after death: %+v", s)
	}
	// Snapshots are copies: a later phase does not reach an old one.
	s.Phases[0].Phase = verdict.Warmup
	if b.Snapshot().Phases[0].Phase != verdict.Launch {
		t.Error("a snapshot shares its phases with the board")
	}
}

func TestExitStatus(t *testing.T) {
	const term, intr, kill = 15, 2, 9
	ready := func(b *Board) { b.Ready(sec(5)) }
	exited := func(code int) func(*Board) { return func(b *Board) { b.Exited(Exit{Code: code}) } }
	killedBy := func(sig int, forced bool) func(*Board) {
		return func(b *Board) { b.Exited(Exit{Signal: sig, Forced: forced}) }
	}
	stop := func(sig int) func(*Board) { return func(b *Board) { b.StopRequested(sig) } }
	tests := []struct {
		name  string
		steps []func(*Board)
		want  int
	}{
		{"failed startup", []func(*Board){func(b *Board) { b.Failed(verdict.Failed, verdict.GPUOOM, "", sec(3)) }, exited(1)}, 1},
		{"stalled startup", []func(*Board){func(b *Board) { b.Failed(verdict.Stalled, "", "", sec(3)) }, killedBy(term, false)}, 3},
		{"startup timeout", []func(*Board){func(b *Board) { b.Failed(verdict.Timeout, "", "", sec(3)) }}, 124},
		{"stop after ready, exit 0", []func(*Board){ready, stop(term), exited(0)}, 0},
		{"stop after ready, died of the signal sent", []func(*Board){ready, stop(term), killedBy(term, false)}, 0},
		{"Ctrl-C while loading", []func(*Board){stop(intr), killedBy(intr, false)}, 0},
		{"stop, a shell wrapper reports the signal", []func(*Board){ready, stop(term), exited(128 + term)}, 0},
		{"stop, but the server exits 1", []func(*Board){ready, stop(term), exited(1)}, 128 + term},
		{"stop, but it had to be killed", []func(*Board){ready, stop(term), killedBy(kill, true)}, 128 + term},
		{"only the first stop request counts", []func(*Board){ready, stop(intr), stop(term), killedBy(intr, false)}, 0},
		{"died after ready", []func(*Board){ready, func(b *Board) { b.Died(verdict.CUDA, "", sec(50)) }, exited(1)}, 4},
		{"exit 0 after ready, unasked", []func(*Board){ready, exited(0)}, 4},
		{"hung after ready, then stopped by vigil", []func(*Board){ready, func(b *Board) { b.Hung(true, verdict.Health, "") }, killedBy(term, false)}, 5},
		{"gone while starting, no verdict", []func(*Board){exited(0)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBoard(t0)
			for _, s := range tt.steps {
				s(b)
			}
			if got := b.Snapshot().ExitStatus(); got != tt.want {
				t.Errorf("ExitStatus = %d, want %d", got, tt.want)
			}
		})
	}
}
