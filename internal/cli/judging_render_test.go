package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"vigil/internal/judge"
	"vigil/internal/observe"
	"vigil/internal/render"
	v "vigil/internal/verdict"
)

// Progress for people goes to stderr, the verdict block to stdout; --json
// keeps stdout for NDJSON; --quiet leaves the verdict line alone; colour
// follows each stream's own terminal and the environment.
func TestRendererStreams(t *testing.T) {
	tests := []struct {
		name            string
		flags           judgeFlags
		stdoutTTY       bool
		env             map[string]string
		wantOut, notOut []string
		wantErr, notErr []string
	}{
		{"plain", judgeFlags{}, false, nil,
			[]string{"FAILED gpu_oom in phase kv_cache", "hint: lower it"}, []string{"phase weights", "\x1b["},
			[]string{"phase weights", "warning: slow"}, []string{"FAILED"}},
		{"quiet", judgeFlags{quiet: true}, false, nil,
			[]string{"FAILED gpu_oom in phase kv_cache after 2.0s: no memory\n"}, []string{"hint:", "phase weights"},
			nil, []string{"phase", "FAILED"}},
		{"json", judgeFlags{json: true}, false, nil,
			[]string{`"event":"start"`, `"event":"verdict"`}, []string{"hint: lower it"},
			[]string{"FAILED gpu_oom", "hint: lower it"}, []string{`"event"`}},
		{"json quiet", judgeFlags{json: true, quiet: true}, false, nil,
			[]string{`"event":"verdict"`}, []string{"FAILED gpu_oom"},
			nil, []string{"FAILED"}},
		{"stdout a terminal", judgeFlags{quiet: true}, true, nil,
			[]string{"\x1b[1;31mFAILED\x1b[0m"}, nil, nil, nil},
		{"stdout a terminal, NO_COLOR", judgeFlags{quiet: true}, true, map[string]string{"NO_COLOR": "1"},
			[]string{"FAILED gpu_oom"}, []string{"\x1b["}, nil, nil},
		{"piped, CLICOLOR_FORCE", judgeFlags{quiet: true}, false, map[string]string{"CLICOLOR_FORCE": "1"},
			[]string{"\x1b[1;31mFAILED\x1b[0m"}, nil, nil, nil},
		{"stdout a terminal, TERM=dumb", judgeFlags{quiet: true}, true, map[string]string{"TERM": "dumb"},
			[]string{"FAILED gpu_oom"}, []string{"\x1b["}, nil, nil},
	}
	t0 := time.Unix(1_800_000_000, 0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			env := &Env{IO: &IOStreams{Out: &out, ErrOut: &errOut, IsStdoutTTY: tt.stdoutTTY},
				Getenv: func(k string) string { return tt.env[k] }}
			r := pickRenderer(env, &tt.flags)
			r.Begin(render.Info{Mode: "watch", LogFile: "s.log", Start: t0})
			st := render.Status{Now: t0.Add(time.Second)}
			r.Event(observe.Event{At: st.Now, Data: observe.PhaseChange{Phase: "weights"}}, st)
			r.Event(observe.Event{At: st.Now, Data: observe.Warning{Message: "slow"}}, st)
			r.End(&observe.Result{Verdict: v.Failed, Cause: v.GPUOOM, Phase: v.KVCache, Summary: "no memory", Hint: "lower it",
				At: t0.Add(2 * time.Second)}, st)
			check := func(stream, got string, want, not []string) {
				for _, w := range want {
					if !strings.Contains(got, w) {
						t.Errorf("%s lacks %q:\n%q", stream, w, got)
					}
				}
				for _, n := range not {
					if strings.Contains(got, n) {
						t.Errorf("%s has %q:\n%q", stream, n, got)
					}
				}
			}
			check("stdout", out.String(), tt.wantOut, tt.notOut)
			check("stderr", errOut.String(), tt.wantErr, tt.notErr)
		})
	}
}

// The budget said at the start is the one the judge gets, with its origin.
func TestBudgetFromTheFlags(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantText  string
		wantJudge [2]time.Duration
	}{
		{"defaults", nil, "--timeout 1h0m0s (default), --stall-after 5m0s (default)", [2]time.Duration{defaultTimeout, defaultStallAfter}},
		{"given", []string{"--timeout", "40s", "--stall-after", "4s"}, "--timeout 40s (flag), --stall-after 4s (flag)", [2]time.Duration{40 * time.Second, 4 * time.Second}},
		{"one given", []string{"--stall-after", "4s"}, "--timeout 1h0m0s (default), --stall-after 4s (flag)", [2]time.Duration{defaultTimeout, 4 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f judgeFlags
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			f.register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			h := &startupHistory{}
			cfg := h.judgeConfig(&f, judge.Config{})
			if got := h.budget().Text(); got != tt.wantText {
				t.Errorf("budget %q, want %q", got, tt.wantText)
			}
			if cfg.Timeout != tt.wantJudge[0] || cfg.StallAfter != tt.wantJudge[1] {
				t.Errorf("judge got %v/%v, want %v", cfg.Timeout, cfg.StallAfter, tt.wantJudge)
			}
		})
	}
}
