package judge

import (
	"slices"
	"testing"
	"time"

	"vigil/internal/logline"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// TestFreshLineRestarts: in a watched log, the first line after a
// truncation or rotation starts a new run; the judge forgets the lines
// before it, and times the start from it. A launched server's log that
// only grew is one run.
func TestFreshLineRestarts(t *testing.T) {
	const (
		args  = "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')"
		load  = "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"
		ready = "[2026-11-29 10:00:09] The server is fired up and ready to roll!"
	)
	tests := []struct {
		name    string
		fresh   bool
		watched bool
		summary string
		phases  []v.Phase
	}{
		{"watched, truncated or rotated before the new start", true, true, "sglang is ready after 9.0s", []v.Phase{v.Launch, v.Init, v.PhaseReady}},
		{"launched, appended", false, false, "sglang is ready after 1m49s", []v.Phase{v.Launch, v.Init, v.Weights, v.PhaseReady}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Unix(1_800_000_000, 0)
			j := New(Config{Server: "sglang", StallAfter: time.Hour, Timeout: 2 * time.Hour, SplitRuns: tt.watched}, t0)
			j.Line(logline.Line{Text: args}, t0)
			j.Line(logline.Line{Text: load}, t0.Add(time.Second))
			restart := t0.Add(100 * time.Second)
			j.Line(logline.Line{Text: args, Fresh: tt.fresh}, restart)
			j.Line(logline.Line{Text: ready}, restart.Add(9*time.Second))
			j.Health(observe.Health{State: observe.HealthOK, Code: 200}, restart.Add(9*time.Second))
			r := j.Tick(restart.Add(9 * time.Second))
			if r == nil || r.Verdict != v.Ready {
				t.Fatalf("got %+v, want ready", r)
			}
			if r.Summary != tt.summary {
				t.Errorf("summary %q, want %q", r.Summary, tt.summary)
			}
			var got []v.Phase
			for _, s := range r.Phases {
				got = append(got, s.Phase)
			}
			if !slices.Equal(got, tt.phases) {
				t.Errorf("phases %v, want %v", got, tt.phases)
			}
			warned := restarted(j.Events())
			if warned != tt.fresh {
				t.Errorf("restart warning emitted: %v, want %v", warned, tt.fresh)
			}
		})
	}
}

// TestLaunchedServersTruncatedLogIsTheSameRun: the log of a server vigil
// launched, truncated by a copytruncate rotation after the ready line, is
// still that process's: the ready line and the phases before it stand, and
// the server is ready on its health answer.
func TestLaunchedServersTruncatedLogIsTheSameRun(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	j := New(Config{Server: "sglang", StallAfter: time.Hour, Timeout: 2 * time.Hour}, t0)
	j.Line(logline.Line{Text: "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')"}, t0)
	j.Line(logline.Line{Text: "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"}, t0.Add(time.Second))
	j.Line(logline.Line{Text: "[2026-11-29 10:01:40] The server is fired up and ready to roll!"}, t0.Add(100*time.Second))
	j.Line(logline.Line{Text: `[2026-11-29 10:01:41] INFO:     127.0.0.1:4242 - "GET /health HTTP/1.1" 200 OK`, Fresh: true}, t0.Add(101*time.Second))
	j.Health(observe.Health{State: observe.HealthOK, Code: 200}, t0.Add(101*time.Second))
	r := j.Tick(t0.Add(101 * time.Second))
	if r == nil || r.Verdict != v.Ready {
		t.Fatalf("got %+v, want ready", r)
	}
	if !slices.ContainsFunc(r.Phases, func(s observe.PhaseSpan) bool { return s.Phase == v.Weights }) {
		t.Errorf("phases %v lost the weights before the truncation", r.Phases)
	}
	if restarted(j.Events()) {
		t.Error("a launched server's truncated log was judged as a new start")
	}
}

// TestWatchedLogCutByCopytruncateIsTheSameRun: a watched log truncated
// after the ready line, whose new content goes on with the same process's
// lines (a copytruncate rotation), keeps the run: the ready line stands.
// Content that opens with a start clue is a new run.
func TestWatchedLogCutByCopytruncateIsTheSameRun(t *testing.T) {
	tests := []struct {
		name    string
		first   string
		restart bool
	}{
		{"access line", `[2026-11-29 10:01:41] INFO:     127.0.0.1:4242 - "GET /health HTTP/1.1" 200 OK`, false},
		{"decode batch", "[2026-11-29 10:01:41 TP0] Decode batch. #running-req: 1, #token: 100, token usage: 0.00, gen throughput (token/s): 50.00, #queue-req: 0", false},
		{"banner", "[2026-11-29 10:01:41] server_args=ServerArgs(model_path='x')", true},
		{"vLLM's first line", "INFO 11-29 10:01:41 [__init__.py:241] Automatically detected platform cuda.", true},
		{"llama.cpp clock at zero", "0.00.012.345 I build: 6795 (3f5a1b9c) with cc", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Unix(1_800_000_000, 0)
			j := New(Config{Server: "sglang", StallAfter: time.Hour, Timeout: 2 * time.Hour, SplitRuns: true}, t0)
			j.Line(logline.Line{Text: "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')"}, t0)
			j.Line(logline.Line{Text: "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"}, t0.Add(time.Second))
			j.Line(logline.Line{Text: "[2026-11-29 10:01:40] The server is fired up and ready to roll!"}, t0.Add(100*time.Second))
			j.Line(logline.Line{Text: tt.first, Fresh: true}, t0.Add(101*time.Second))
			j.Health(observe.Health{State: observe.HealthOK, Code: 200}, t0.Add(101*time.Second))
			r := j.Tick(t0.Add(101 * time.Second))
			if got := restarted(j.Events()); got != tt.restart {
				t.Fatalf("restarted %v, want %v", got, tt.restart)
			}
			if !tt.restart && (r == nil || r.Verdict != v.Ready) {
				t.Errorf("got %+v, want ready on the ready line before the cut", r)
			}
		})
	}
}

// TestFreshFirstLineKeepsTheStart: a judge that has read nothing yet (a
// log truncated as vigil attached) keeps its start.
func TestFreshFirstLineKeepsTheStart(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	j := New(Config{Server: "sglang", StallAfter: time.Hour, Timeout: 2 * time.Hour, SplitRuns: true}, t0)
	j.Line(logline.Line{Text: "[2026-11-29 10:00:09] The server is fired up and ready to roll!", Fresh: true}, t0.Add(5*time.Second))
	j.Health(observe.Health{State: observe.HealthOK, Code: 200}, t0.Add(5*time.Second))
	if r := j.Tick(t0.Add(5 * time.Second)); r == nil || r.Summary != "sglang is ready after 5.0s" {
		t.Fatalf("got %+v, want ready after 5.0s", r)
	}
}

// restarted reports whether events hold the restart warning.
func restarted(events []observe.Event) bool {
	return slices.ContainsFunc(events, func(e observe.Event) bool {
		w, ok := e.Data.(observe.Warning)
		return ok && w.Message == restartNote
	})
}
