package render

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"vigil/internal/buildinfo"
	"vigil/internal/colour"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

func TestJSONVerdictIsTheLastLineWithTheContractFields(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	var out bytes.Buffer
	r := &JSON{W: &out}
	r.Begin(Info{Mode: "run", PID: 42, LogFile: "/tmp/s.log", URL: "http://127.0.0.1:1", Start: t0})
	r.Event(observe.Event{At: t0.Add(time.Second), Data: observe.PhaseChange{Phase: "weights"}}, Status{})
	r.End(&observe.Result{Verdict: v.Ready, Phase: v.PhaseReady, Summary: "ok", At: t0.Add(2 * time.Second),
		Phases: []observe.PhaseSpan{{Phase: v.Launch, Start: t0}, {Phase: v.Weights, Start: t0.Add(time.Second)}, {Phase: v.PhaseReady, Start: t0.Add(2 * time.Second)}}}, Status{})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3:\n%s", len(lines), out.String())
	}
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[2]), &last); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"event", "t", "verdict", "cause", "phase", "summary", "evidence", "log_file"} {
		if _, ok := last[k]; !ok {
			t.Errorf("verdict event lacks %q: %s", k, lines[2])
		}
	}
	if last["event"] != "verdict" || last["cause"] != nil || last["t"] != 2.0 {
		t.Errorf("verdict event = %s", lines[2])
	}
	if ph := last["phases"].(map[string]any); ph["launch"] != 1.0 || ph["weights"] != 1.0 {
		t.Errorf("phases = %v, want launch 1 and weights 1", ph)
	}
}

func TestPlainPrintsOneLinePerStepAndNeverRedraws(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	var out bytes.Buffer
	p := &Plain{W: &out}
	p.Begin(Info{Mode: "run", PID: 1, LogFile: "/tmp/s.log", Start: t0})
	for i := 0; i <= 100; i++ {
		p.Event(observe.Event{At: t0, Data: observe.Progress{Desc: "shards", Done: i, Total: 100, Percent: i}}, Status{})
	}
	p.End(&observe.Result{Verdict: v.Failed, Cause: v.GPUOOM, Phase: v.KVCache, Summary: "no memory", Hint: "lower it",
		Evidence: []string{"RuntimeError: Not enough memory."}, At: t0}, Status{})
	s := out.String()
	if strings.Contains(s, "\r") || strings.Contains(s, "\x1b[") {
		t.Errorf("plain output redraws: %q", s)
	}
	if n := strings.Count(s, "  shards "); n != 11 {
		t.Errorf("%d progress lines, want one per 10%% step (11)", n)
	}
	for _, want := range []string{"FAILED gpu_oom in phase kv_cache after 0.0s: no memory", "RuntimeError: Not enough memory.", "hint: lower it", "log: /tmp/s.log"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

func TestJSONStartEventNamesTheBuild(t *testing.T) {
	tests := []struct {
		name  string
		build *buildinfo.Info
		want  map[string]any
	}{
		{"given", &buildinfo.Info{Version: "v1.2.3", Commit: "abc", GoVersion: "go1.26", Platform: "linux/amd64"},
			map[string]any{"version": "v1.2.3", "commit": "abc", "go": "go1.26", "platform": "linux/amd64"}},
		{"running binary", nil, map[string]any{"go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			r := &JSON{W: &out, Build: tt.build}
			r.Begin(Info{Mode: "watch", Start: time.Unix(1_800_000_000, 0)})
			var start struct {
				Event string         `json:"event"`
				Vigil map[string]any `json:"vigil"`
			}
			if err := json.Unmarshal(out.Bytes(), &start); err != nil {
				t.Fatal(err)
			}
			if start.Event != "start" {
				t.Fatalf("first event %q, want start", start.Event)
			}
			for k, want := range tt.want {
				if start.Vigil[k] != want {
					t.Errorf("vigil.%s = %v, want %v (%s)", k, start.Vigil[k], want, out.String())
				}
			}
			if start.Vigil["version"] == "" || start.Vigil["version"] == nil {
				t.Errorf("no version in %s", out.String())
			}
		})
	}
}

func TestVerdictLine(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	spans := func(ps ...v.Phase) []observe.PhaseSpan {
		var out []observe.PhaseSpan
		for i, p := range ps {
			out = append(out, observe.PhaseSpan{Phase: p, Start: t0.Add(time.Duration(i) * time.Second)})
		}
		return out
	}
	tests := []struct {
		name string
		r    observe.Result
		want string
	}{
		{"ready", observe.Result{Verdict: v.Ready, Phase: v.PhaseReady, Server: "vllm", Summary: "vllm is ready after 32.5s",
			At: t0.Add(32500 * time.Millisecond), Phases: spans(v.Launch, v.Weights, v.KVCache, v.PhaseReady)},
			"READY after 32.5s (vllm, 3 phases)"},
		{"ready in one phase", observe.Result{Verdict: v.Ready, Phase: v.PhaseReady, Server: "tgi", At: t0.Add(time.Second),
			Phases: spans(v.Launch, v.PhaseReady)}, "READY after 1.0s (tgi, 1 phase)"},
		{"ready, nothing known", observe.Result{Verdict: v.Ready, Phase: v.PhaseReady, At: t0}, "READY after 0.0s"},
		{"failed", observe.Result{Verdict: v.Failed, Cause: v.GPUOOM, Phase: v.KVCache, Server: "sglang", Summary: "no memory", At: t0.Add(2 * time.Second)},
			"FAILED gpu_oom in phase kv_cache after 2.0s (sglang): no memory"},
		{"stalled", observe.Result{Verdict: v.Stalled, Phase: v.Weights, Summary: "no progress for 5m", At: t0.Add(300 * time.Second)},
			"STALLED in phase weights after 300.0s: no progress for 5m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := VerdictLine(&tt.r, Info{Start: t0}, colour.New(false)); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestColourOnlyWhenAsked(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	res := &observe.Result{Verdict: v.Failed, Cause: v.GPUOOM, Phase: v.KVCache, Summary: "no memory", At: t0}
	tests := []struct {
		name string
		pal  colour.Palette
		want []string // substrings that must appear
		none bool     // no escape at all
	}{
		{"off", colour.New(false), []string{"phase weights", "warning: slow", "FAILED gpu_oom in phase kv_cache"}, true},
		{"on", colour.New(true), []string{"phase \x1b[36mweights\x1b[0m", "\x1b[1;33mwarning:\x1b[0m slow",
			"\x1b[1;31mFAILED\x1b[0m \x1b[1;31mgpu_oom\x1b[0m in phase \x1b[36mkv_cache\x1b[0m"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &Plain{W: &out, Pal: tt.pal}
			p.Begin(Info{Mode: "run", Start: t0})
			p.Event(observe.Event{At: t0, Data: observe.PhaseChange{Phase: "weights"}}, Status{})
			p.Event(observe.Event{At: t0, Data: observe.Warning{Message: "slow"}}, Status{})
			p.End(res, Status{})
			s := out.String()
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("output lacks %q:\n%q", w, s)
				}
			}
			if tt.none && strings.Contains(s, "\x1b") {
				t.Errorf("colour off, yet escapes: %q", s)
			}
		})
	}
}

// Text from the server reaches a terminal without control characters or
// escapes, in every human renderer; vigil's own colour stays.
func TestHumanOutputIsTerminalSafe(t *testing.T) {
	const evil = "boom\x00\x1b]0;owned\x07\x1b[2J\rgone"
	t0 := time.Unix(1_800_000_000, 0)
	res := &observe.Result{Verdict: v.Failed, Cause: v.Crash, Phase: v.Weights, Summary: evil, Hint: evil,
		Evidence: []string{evil}, At: t0}
	tests := []struct {
		name string
		r    func(w *bytes.Buffer) Renderer
	}{
		{"plain", func(w *bytes.Buffer) Renderer { return &Plain{W: w, Pal: colour.New(true)} }},
		{"live", func(w *bytes.Buffer) Renderer { return &Live{W: w, Width: 200, Pal: colour.New(true)} }},
		{"quiet", func(w *bytes.Buffer) Renderer { return &Quiet{Out: w} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			r := tt.r(&out)
			r.Begin(Info{Mode: "watch", LogFile: "s\x1b[31m.log", Start: t0})
			st := Status{Now: t0.Add(time.Second), LastLine: evil, Activity: evil}
			r.Event(observe.Event{At: st.Now, Data: observe.Warning{Message: evil}}, st)
			r.Event(observe.Event{At: st.Now, Data: observe.Failing{Line: evil}}, st)
			r.Tick(st)
			r.Note(st.Now, "%s", evil)
			r.End(res, st)
			s := out.String()
			for _, bad := range []string{"\x00", "\x1b]", "\x1b[2J", "\r", "\x07", "\x1b[31m.log"} {
				if strings.Contains(s, bad) {
					t.Errorf("output carries %q:\n%q", bad, s)
				}
			}
			if !strings.Contains(s, "boom0;ownedgone") && !strings.Contains(s, "boomgone") {
				t.Errorf("the text itself is lost:\n%q", s)
			}
		})
	}
}

func TestBudgetIsSaidAtTheStart(t *testing.T) {
	b := &Budget{Timeout: 40 * time.Second, TimeoutFrom: "flag", StallAfter: 160 * time.Second, StallFrom: "learned", Samples: 3}
	if got, want := b.Text(), "--timeout 40s (flag), --stall-after 2m40s (learned from 3 starts)"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	one := &Budget{Timeout: time.Hour, TimeoutFrom: "default", StallAfter: time.Minute, StallFrom: "learned", Samples: 1}
	if got, want := one.Text(), "--timeout 1h0m0s (default), --stall-after 1m0s (learned from 1 start)"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	t0 := time.Unix(1_800_000_000, 0)
	var js, plain bytes.Buffer
	(&JSON{W: &js}).Begin(Info{Mode: "run", Start: t0, Budget: b})
	var start struct {
		Budget map[string]any `json:"budget"`
	}
	if err := json.Unmarshal(js.Bytes(), &start); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"timeout_s": 40.0, "timeout_from": "flag", "stall_after_s": 160.0, "stall_after_from": "learned", "samples": 3.0}
	for k, w := range want {
		if start.Budget[k] != w {
			t.Errorf("budget.%s = %v, want %v (%s)", k, start.Budget[k], w, js.String())
		}
	}
	(&Plain{W: &plain}).Begin(Info{Mode: "run", Start: t0, Budget: b})
	if !strings.Contains(plain.String(), "budget --timeout 40s (flag), --stall-after 2m40s (learned from 3 starts)") {
		t.Errorf("plain header lacks the budget:\n%s", plain.String())
	}
}
