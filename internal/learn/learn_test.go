package learn

import (
	"reflect"
	"testing"
	"time"
)

func TestSummarise(t *testing.T) {
	// Phases out of order and one only some startups pass through.
	e := Summarise([][]Phase{
		{{"weights", 10}, {"launch", 1}},
		{{"launch", 1}, {"compile", 30}, {"weights", 12}},
		{{"launch", 2}, {"weights", 11}, {"mystery", 5}},
	}, []float64{11, 43, 18})
	var names []string
	for _, p := range e.Phases {
		names = append(names, p.Name)
	}
	if want := []string{"launch", "weights", "compile", "mystery"}; !reflect.DeepEqual(names, want) {
		t.Errorf("order %v, want %v", names, want)
	}
	if p, _ := e.Phase("compile"); p.Samples != 1 || p.Typical != 30*time.Second {
		t.Errorf("compile = %+v", p)
	}
	if p, _ := e.Phase("weights"); p.Typical != 11*time.Second || p.High != 12*time.Second {
		t.Errorf("weights = %+v", p)
	}
	if e.TotalTypical != 18*time.Second {
		t.Errorf("TotalTypical = %v", e.TotalTypical)
	}
}

func TestPhasesFrom(t *testing.T) {
	got := PhasesFrom(map[string]float64{"warmup": 1, "launch": 0.5, "zzz": 2, "weights": 10, "aaa": 3})
	want := []Phase{{"launch", 0.5}, {"weights", 10}, {"warmup", 1}, {"aaa", 3}, {"zzz", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func expect(samples int, total, high time.Duration, ph ...PhaseStat) Expectation {
	return Expectation{Samples: samples, Phases: ph, TotalTypical: total, TotalHigh: high}
}

func ps(name string, typ, high time.Duration) PhaseStat {
	return PhaseStat{Name: name, Typical: typ, High: high, Samples: 3}
}

func TestAutoTimeout(t *testing.T) {
	const fallback = 30 * time.Minute
	tests := []struct {
		name string
		e    Expectation
		want time.Duration
	}{
		{"no history", Expectation{}, fallback},
		{"one sample is not enough", expect(1, time.Minute, time.Minute), fallback},
		{"fast startups get typical + 5 min", expect(3, 40*time.Second, 50*time.Second), 5*time.Minute + 40*time.Second},
		{"slow startups get twice the high mark", expect(3, 15*time.Minute, 20*time.Minute), 40 * time.Minute},
		{"rounded up to a second", expect(3, 100500*time.Millisecond, 20*time.Minute+300*time.Millisecond), 40*time.Minute + time.Second},
		{"capped", expect(3, 3*time.Hour, 3*time.Hour), 4 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AutoTimeout(tt.e, fallback); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAutoStallAfter(t *testing.T) {
	const fallback = 5 * time.Minute
	tests := []struct {
		name string
		e    Expectation
		want time.Duration
	}{
		{"no history", Expectation{}, fallback},
		{"short phases get the floor", expect(3, 0, 0, ps("weights", 5*time.Second, 8*time.Second)), time.Minute},
		{"twice the longest typical phase", expect(3, 0, 0, ps("launch", time.Second, time.Second), ps("compile", 4*time.Minute, 5*time.Minute)), 8 * time.Minute},
		{"a phase with a long high mark", expect(3, 0, 0, ps("weights", 40*time.Second, 2*time.Minute)), 2*time.Minute + 30*time.Second},
		{"capped", expect(3, 0, 0, ps("weights", time.Hour, time.Hour)), 30 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AutoStallAfter(tt.e, fallback); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestETA(t *testing.T) {
	e := expect(3, 60*time.Second, 70*time.Second,
		ps("launch", 2*time.Second, 3*time.Second),
		ps("weights", 30*time.Second, 35*time.Second),
		ps("cuda_graph", 10*time.Second, 12*time.Second),
		ps("serving", 3*time.Second, 3*time.Second))
	tests := []struct {
		name                 string
		e                    Expectation
		phase                string
		phaseElapsed, total  time.Duration
		wantPhase, wantTotal time.Duration
	}{
		{"start of weights", e, "weights", 0, 2 * time.Second, 30 * time.Second, 43 * time.Second},
		{"half-way through weights", e, "weights", 15 * time.Second, 17 * time.Second, 15 * time.Second, 28 * time.Second},
		{"weights overrunning", e, "weights", 45 * time.Second, 47 * time.Second, 0, 13 * time.Second},
		{"last phase", e, "serving", time.Second, 45 * time.Second, 2 * time.Second, 2 * time.Second},
		{"a phase history never saw", e, "compile", 5 * time.Second, 40 * time.Second, 0, 20 * time.Second},
		{"unseen phase past the typical total", e, "compile", 5 * time.Second, 90 * time.Second, 0, 0},
		{"no history", Expectation{}, "weights", 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, tot := ETA(tt.e, tt.phase, tt.phaseElapsed, tt.total)
			if p != tt.wantPhase || tot != tt.wantTotal {
				t.Errorf("ETA = %v, %v; want %v, %v", p, tot, tt.wantPhase, tt.wantTotal)
			}
		})
	}
}

func TestSlowPhase(t *testing.T) {
	e := expect(3, 0, 0,
		ps("weights", 40*time.Second, 50*time.Second),
		ps("launch", 2*time.Second, 3*time.Second),
		PhaseStat{Name: "compile", Typical: 10 * time.Second, High: 10 * time.Second, Samples: 1})
	tests := []struct {
		name    string
		phase   string
		elapsed time.Duration
		want    bool
	}{
		{"usual", "weights", 45 * time.Second, false},
		{"above high but under twice typical", "weights", 70 * time.Second, false},
		{"twice typical", "weights", 81 * time.Second, true},
		{"short phase: twice typical is not enough", "launch", 10 * time.Second, false},
		{"short phase: typical + 30 s", "launch", 33 * time.Second, true},
		{"one sample only", "compile", time.Hour, false},
		{"unknown phase", "warmup", time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SlowPhase(e, tt.phase, tt.elapsed); got != tt.want {
				t.Errorf("SlowPhase(%s, %v) = %v, want %v", tt.phase, tt.elapsed, got, tt.want)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	const defT, defS = time.Hour, 5 * time.Minute
	learned := expect(3, 100*time.Second, 120*time.Second, ps("weights", 80*time.Second, 90*time.Second))
	few := expect(1, 100*time.Second, 120*time.Second, ps("weights", 80*time.Second, 90*time.Second))
	tests := []struct {
		name           string
		e              *Expectation
		timeout, stall time.Duration
		want           Windows
	}{
		{"no history: the defaults", nil, 0, 0, Windows{Timeout: defT, StallAfter: defS, FallbackTimeout: defT, FallbackStall: defS, TimeoutFrom: FromDefault, StallFrom: FromDefault}},
		{"too few samples: the defaults", &few, 0, 0, Windows{Timeout: defT, StallAfter: defS, FallbackTimeout: defT, FallbackStall: defS, TimeoutFrom: FromDefault, StallFrom: FromDefault}},
		{"learned both", &learned, 0, 0, Windows{Timeout: 100*time.Second + TimeoutSlack, StallAfter: 160 * time.Second, Auto: true, FallbackTimeout: defT, FallbackStall: defS, TimeoutFrom: FromLearned, StallFrom: FromLearned}},
		{"given both: nothing learned counts", &learned, time.Minute, time.Second, Windows{Timeout: time.Minute, StallAfter: time.Second, FallbackTimeout: time.Minute, FallbackStall: time.Second, TimeoutFrom: FromFlag, StallFrom: FromFlag}},
		{"given timeout, learned stall", &learned, time.Minute, 0, Windows{Timeout: time.Minute, StallAfter: 160 * time.Second, Auto: true, FallbackTimeout: time.Minute, FallbackStall: defS, TimeoutFrom: FromFlag, StallFrom: FromLearned}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decide(tt.e, tt.timeout, tt.stall, defT, defS); got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
