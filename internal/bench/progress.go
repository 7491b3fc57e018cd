package bench

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Progress is the live state of a run, for a progress bar. Run updates it;
// a renderer reads Snapshot from another goroutine. A nil *Progress is
// valid and records nothing, so callers without a bar pass nil.
type Progress struct {
	mu     sync.Mutex
	level  int
	total  int           // requests planned; 0 when the level runs for a duration
	dur    time.Duration // the level's duration, when it has one
	warmup bool
	began  time.Time

	done, failed, tokens atomic.Int64
}

// ProgressSnapshot is a copy of the progress at one moment.
type ProgressSnapshot struct {
	Concurrency int
	Warmup      bool
	Done        int
	Failed      int
	Total       int
	Duration    time.Duration
	Tokens      int
	Start       time.Time
}

func (p *Progress) start(level, total int, dur time.Duration, warmup bool, now time.Time) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.level, p.total, p.dur, p.warmup, p.began = level, total, dur, warmup, now
	p.mu.Unlock()
	p.done.Store(0)
	p.failed.Store(0)
	p.tokens.Store(0)
}

func (p *Progress) add(rec record) {
	if p == nil {
		return
	}
	p.done.Add(1)
	if rec.err != nil {
		p.failed.Add(1)
	} else {
		p.tokens.Add(int64(rec.tokens))
	}
}

// Snapshot returns the current state.
func (p *Progress) Snapshot() ProgressSnapshot {
	if p == nil {
		return ProgressSnapshot{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return ProgressSnapshot{
		Concurrency: p.level, Warmup: p.warmup, Total: p.total, Duration: p.dur, Start: p.began,
		Done: int(p.done.Load()), Failed: int(p.failed.Load()), Tokens: int(p.tokens.Load()),
	}
}

// Line renders the snapshot as one terminal line of at most width columns:
//
//	c=8  [██████████░░░░░░░░░░]  45/128  2 failed  412.3 tok/s  0:12
func (s ProgressSnapshot) Line(now time.Time, width int) string {
	if s.Concurrency == 0 {
		return ""
	}
	elapsed := now.Sub(s.Start)
	frac := 0.0
	count := fmt.Sprintf("%d", s.Done)
	switch {
	case s.Total > 0:
		frac = float64(s.Done) / float64(s.Total)
		count = fmt.Sprintf("%d/%d", s.Done, s.Total)
	case s.Duration > 0:
		frac = elapsed.Seconds() / s.Duration.Seconds()
	}
	frac = min(max(frac, 0), 1)
	label := fmt.Sprintf("c=%-4d", s.Concurrency)
	if s.Warmup {
		label = "warmup"
	}
	tail := "  " + count
	if s.Failed > 0 {
		tail += fmt.Sprintf("  %d failed", s.Failed)
	}
	if secs := elapsed.Seconds(); secs > 0 && !s.Warmup {
		tail += fmt.Sprintf("  %.1f tok/s", float64(s.Tokens)/secs)
	}
	tail += fmt.Sprintf("  %d:%02d", int(elapsed.Minutes()), int(elapsed.Seconds())%60)
	barWidth := min(30, width-len(label)-len(tail)-4)
	if barWidth < 5 {
		return label + tail
	}
	filled := int(frac * float64(barWidth))
	return label + " [" + strings.Repeat("█", filled) + strings.Repeat("░", barWidth-filled) + "]" + tail
}
