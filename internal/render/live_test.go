package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"vigil/internal/classify"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// The live view redraws a block in place: every redraw first moves up over
// the lines it drew, and lasting lines (phase changes) stay above it.
func TestLiveRedrawsInPlace(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	var out bytes.Buffer
	l := &Live{W: &out, Width: 120}
	l.Begin(Info{LogFile: "/tmp/s.log", URL: "http://127.0.0.1:1", Start: t0})
	st := Status{Now: t0.Add(time.Second), Server: "sglang", Phase: v.Weights, Health: observe.Health{State: observe.HealthRefused},
		Progress: &classify.Progress{Desc: "Loading safetensors checkpoint shards", Done: 2, Total: 4, Percent: 50, Rate: 1.5, ETA: "00:01"},
		LastLine: "[2026-11-29 10:00:01 TP0] Load weight begin."}
	l.Tick(st)
	st.Now = st.Now.Add(200 * time.Millisecond)
	l.Event(observe.Event{At: st.Now, Data: observe.PhaseChange{Phase: "kv_cache"}}, st)
	s := out.String()
	if !strings.Contains(s, "\x1b[3F\x1b[J") {
		t.Errorf("no move-up-and-clear over the 3-line block:\n%q", s)
	}
	for _, want := range []string{"██████████░░░░░░░░░░ 2/4 50%", "1.50/s", "eta 00:01", "phase kv_cache", "refused"} {
		if !strings.Contains(s, want) {
			t.Errorf("live view lacks %q:\n%s", want, s)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if len([]rune(stripCSI(line))) > 120 {
			t.Errorf("line wider than the terminal: %q", line)
		}
	}
	l.End(&observe.Result{Verdict: v.Ready, Phase: v.PhaseReady, Summary: "ok", At: st.Now}, st)
	if !strings.Contains(out.String(), "READY after 1.2s") {
		t.Error("no summary at the end")
	}
}

func stripCSI(s string) string {
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return s
		}
		j := i + 2
		for j < len(s) && (s[j] < '@' || s[j] > '~') {
			j++
		}
		s = s[:i] + s[min(j+1, len(s)):]
	}
}

func TestLiveStatusLine(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	tests := []struct {
		name     string
		info     Info
		st       Status
		want     []string
		unwanted []string
	}{
		{"pid, time in phase, time left", Info{Mode: "run", PID: 4242, Start: t0, Budget: &Budget{Timeout: time.Minute, TimeoutFrom: "flag"}},
			Status{Now: t0.Add(20 * time.Second), Server: "vllm", Phase: v.Weights},
			[]string{"launched pid 4242", "weights 5.0s", "total 20.0s", "40.0s left", "pid 4242"}, nil},
		{"quiet: the stall countdown; the budget in force now wins", Info{Mode: "watch", Start: t0, Budget: &Budget{Timeout: time.Hour}},
			Status{Now: t0.Add(30 * time.Second), Phase: v.Weights, Timeout: 2 * time.Minute, StallAfter: time.Minute, LastProgress: t0.Add(10 * time.Second)},
			[]string{"1m30s left", "quiet 20.0s, stalled in 40.0s"}, []string{"59m"}},
		{"not quiet for long: no countdown", Info{Mode: "watch", Start: t0},
			Status{Now: t0.Add(30 * time.Second), Phase: v.Weights, StallAfter: time.Minute, LastProgress: t0.Add(28 * time.Second)},
			nil, []string{"stalled in"}},
		{"a bar without a rate yet", Info{Mode: "watch", Start: t0},
			Status{Now: t0.Add(16 * time.Second), Phase: v.Weights, Progress: &classify.Progress{Desc: "shards", Done: 0, Total: 5, Percent: 0, ETA: "00:00"}},
			[]string{"watching (no server pid)", "0/5 0%"}, []string{"eta", "/s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			l := &Live{W: &out, Width: 200}
			l.Begin(tt.info)
			l.Event(observe.Event{At: t0.Add(15 * time.Second), Data: observe.PhaseChange{Phase: "weights"}}, tt.st)
			s := out.String()
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("live view lacks %q:\n%s", w, s)
				}
			}
			for _, u := range tt.unwanted {
				if strings.Contains(s, u) {
					t.Errorf("live view has %q:\n%s", u, s)
				}
			}
		})
	}
}

// After the terminal is made narrower, the block's lines have wrapped into
// more rows, and the redraw moves up over all of them: no stale copies.
func TestLiveRedrawAfterNarrowing(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	width := 120
	var out bytes.Buffer
	l := &Live{W: &out, Size: func() int { return width }}
	l.Begin(Info{Start: t0})
	st := Status{Now: t0.Add(time.Second), Server: "sglang", Phase: v.Weights, LastLine: strings.Repeat("x", 110)}
	l.Tick(st) // two lines: the status (<60 wide) and the 110-wide last line, cut to 119
	out.Reset()
	width = 50
	st.Now = st.Now.Add(time.Second)
	l.Tick(st)
	// Status line (< 50 wide): 1 row; last line (112 runes): 3 rows.
	if !strings.HasPrefix(out.String(), "\x1b[4F\x1b[J") {
		t.Errorf("redraw after narrowing starts %q, want a move up over 4 rows", out.String()[:min(12, out.Len())])
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if len([]rune(stripCSI(line))) > 50 {
			t.Errorf("line wider than the new width: %q", line)
		}
	}
}
