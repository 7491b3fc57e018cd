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
