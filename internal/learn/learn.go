// Package learn turns past startups into expectations for the next one:
// how long each phase usually takes, when a startup is late, when a phase is
// slow. It is pure arithmetic over durations; the store that keeps the past
// startups is package history.
//
// history.Store.Expectation summarises the last [SampleSize] READY startups with
// the same server, model, configuration fingerprint and host: per phase the
// typical (median) and high (90th percentile, nearest rank; with fewer than
// 10 samples that is the maximum or close to it) duration, and the same for
// the whole startup. Pure functions turn it into decisions:
//
//   - [AutoTimeout]: max(2 × high total, typical total + 5 min), capped at
//     4 h and rounded up to a second. With fewer than 2 samples: the
//     caller's fallback (the documented --timeout default).
//   - [AutoStallAfter]: max(60 s, 2 × the longest typical phase, the
//     longest high phase + 30 s), capped at 30 min. With fewer than 2
//     samples: the caller's fallback (the --stall-after default).
//   - [ETA]: the time left in the current phase (its typical duration minus
//     what has elapsed, never negative) and in the whole startup (that plus
//     the typical durations of the phases that usually follow; for a phase
//     history has never seen, the typical total minus the elapsed total).
//   - [SlowPhase]: a phase is flagged while it runs when it has taken more
//     than 2 × its typical duration, more than typical + 30 s, and more
//     than its high duration, with at least 2 samples of that phase.
package learn

import (
	"math"
	"slices"
	"sort"
	"time"

	"vigil/internal/verdict"
)

// Phase is how long one startup phase took.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// SampleSize is how many recent ready startups an Expectation is built
// from: enough to smooth out one slow run, few enough to follow a change
// of driver or disk.
const SampleSize = 10

// The margins of the learned windows; see the package doc.
const (
	// MinSamples is the history needed before learned windows replace
	// the fallbacks.
	MinSamples = 2

	TimeoutFactor = 2
	TimeoutSlack  = 5 * time.Minute
	TimeoutCap    = 4 * time.Hour

	StallFloor  = 60 * time.Second
	StallFactor = 2
	StallSlack  = 30 * time.Second
	StallCap    = 30 * time.Minute

	SlowFactor = 2
	SlowMargin = 30 * time.Second
)

// PhaseStat is what history says about one phase.
type PhaseStat struct {
	Name string
	// Typical is the median duration, High the 90th percentile.
	Typical, High time.Duration
	// Samples is how many of the startups passed through this phase.
	Samples int
}

// Expectation is what history says about a startup like this one.
type Expectation struct {
	// Samples is the number of past ready startups it is built from.
	Samples int
	// Phases in the order startups pass through them.
	Phases                  []PhaseStat
	TotalTypical, TotalHigh time.Duration
}

// Phase returns the statistics of one phase.
func (e Expectation) Phase(name string) (PhaseStat, bool) {
	for _, p := range e.Phases {
		if p.Name == name {
			return p, true
		}
	}
	return PhaseStat{}, false
}

// Summarise builds an Expectation from past startups' phases and totals
// (seconds), newest first.
func Summarise(samples [][]Phase, totals []float64) Expectation {
	e := Expectation{Samples: len(samples)}
	if len(samples) == 0 {
		return e
	}
	byName := map[string][]float64{}
	var order []string
	for _, ph := range samples {
		for _, p := range ph {
			if _, seen := byName[p.Name]; !seen {
				order = append(order, p.Name)
			}
			byName[p.Name] = append(byName[p.Name], p.Seconds)
		}
	}
	sortPhases(order)
	for _, name := range order {
		xs := byName[name]
		e.Phases = append(e.Phases, PhaseStat{Name: name, Typical: secs(median(xs)), High: secs(p90(xs)), Samples: len(xs)})
	}
	e.TotalTypical, e.TotalHigh = secs(median(totals)), secs(p90(totals))
	return e
}

// sortPhases puts the contract's phases in their order, unknown names
// after them in the order first seen.
func sortPhases(names []string) {
	rank := func(n string) int {
		if i := slices.Index(verdict.Phases, verdict.Phase(n)); i >= 0 {
			return i
		}
		return len(verdict.Phases)
	}
	sort.SliceStable(names, func(i, j int) bool { return rank(names[i]) < rank(names[j]) })
}

// PhasesFrom orders per-phase seconds (render.PhaseDurations' map) in the
// contract's phase order, for Startup.Phases.
func PhasesFrom(m map[string]float64) []Phase {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names) // a stable order for unknown names
	sortPhases(names)
	out := make([]Phase, 0, len(names))
	for _, n := range names {
		out = append(out, Phase{Name: n, Seconds: m[n]})
	}
	return out
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// p90 is the nearest-rank 90th percentile.
func p90(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	i := int(math.Ceil(0.9*float64(len(s)))) - 1
	return s[max(i, 0)]
}

// AutoTimeout is the learned --timeout: max(2 × high total, typical total
// + 5 min), capped at 4 h, rounded up to a second; fallback with fewer than
// MinSamples samples.
func AutoTimeout(e Expectation, fallback time.Duration) time.Duration {
	if e.Samples < MinSamples {
		return fallback
	}
	t := min(max(TimeoutFactor*e.TotalHigh, e.TotalTypical+TimeoutSlack), TimeoutCap)
	if r := t % time.Second; r != 0 {
		t += time.Second - r
	}
	return t
}

// AutoStallAfter is the learned --stall-after: max(60 s, 2 × the longest
// typical phase, the longest high phase + 30 s), capped at 30 min; fallback
// with fewer than MinSamples samples. A phase can be legitimately silent
// for its whole length (a weight download, a kernel build), so the window
// scales with the longest one.
func AutoStallAfter(e Expectation, fallback time.Duration) time.Duration {
	if e.Samples < MinSamples {
		return fallback
	}
	var typ, high time.Duration
	for _, p := range e.Phases {
		typ, high = max(typ, p.Typical), max(high, p.High)
	}
	d := max(StallFloor, StallFactor*typ, high+StallSlack)
	return min(d, StallCap).Truncate(time.Second)
}

// ETA returns the time left in the current phase and in the whole startup,
// given how long each has run. Both are zero without history.
func ETA(e Expectation, phase string, phaseElapsed, totalElapsed time.Duration) (phaseLeft, totalLeft time.Duration) {
	if e.Samples == 0 {
		return 0, 0
	}
	i := slices.IndexFunc(e.Phases, func(p PhaseStat) bool { return p.Name == phase })
	if i < 0 {
		return 0, max(0, e.TotalTypical-totalElapsed)
	}
	phaseLeft = max(0, e.Phases[i].Typical-phaseElapsed)
	totalLeft = phaseLeft
	for _, p := range e.Phases[i+1:] {
		totalLeft += p.Typical
	}
	return phaseLeft, totalLeft
}

// SlowPhase reports whether a phase that has run for elapsed is well past
// its usual duration: more than 2 × typical, more than typical + 30 s and
// more than its high mark, with at least MinSamples samples of it.
func SlowPhase(e Expectation, phase string, elapsed time.Duration) bool {
	p, ok := e.Phase(phase)
	if !ok || p.Samples < MinSamples {
		return false
	}
	return elapsed > SlowFactor*p.Typical && elapsed > p.Typical+SlowMargin && elapsed > p.High
}

// Windows are a startup's time budgets and where they came from.
type Windows struct {
	Timeout, StallAfter time.Duration
	// Auto: at least one of them was learned. Fallback are the values to
	// use instead when the server turns out to run another configuration.
	Auto                           bool
	FallbackTimeout, FallbackStall time.Duration
	// TimeoutFrom and StallFrom say where each came from, to be shown.
	TimeoutFrom, StallFrom Origin
}

// Origin is where a budget came from.
type Origin string

// The origins of a budget.
const (
	FromFlag    Origin = "flag"
	FromLearned Origin = "learned"
	FromDefault Origin = "default"
)

func originOf(given, learned time.Duration) Origin {
	switch {
	case given > 0:
		return FromFlag
	case learned > 0:
		return FromLearned
	}
	return FromDefault
}

// Decide picks the budgets: a value the user gave (timeout or stall above
// zero) wins; else the learned one, with at least MinSamples samples; else
// the default.
func Decide(e *Expectation, timeout, stall, defaultTimeout, defaultStall time.Duration) Windows {
	var learnedTimeout, learnedStall time.Duration
	if e != nil && e.Samples >= MinSamples {
		learnedTimeout = AutoTimeout(*e, defaultTimeout)
		learnedStall = AutoStallAfter(*e, defaultStall)
	}
	pick := func(given, learned, fallback time.Duration) time.Duration {
		switch {
		case given > 0:
			return given
		case learned > 0:
			return learned
		}
		return fallback
	}
	w := Windows{
		Timeout:         pick(timeout, learnedTimeout, defaultTimeout),
		StallAfter:      pick(stall, learnedStall, defaultStall),
		Auto:            (timeout <= 0 && learnedTimeout > 0) || (stall <= 0 && learnedStall > 0),
		FallbackTimeout: pick(timeout, 0, defaultTimeout),
		FallbackStall:   pick(stall, 0, defaultStall),
		TimeoutFrom:     originOf(timeout, learnedTimeout),
		StallFrom:       originOf(stall, learnedStall),
	}
	return w
}
