package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	env, out, errOut, path := testEnv(t)
	seed(t, path)
	if code := run(t, newDiffCmd(env), errOut, "1", "2"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := out.String()
	for _, want := range []string{
		"Startup 1 -> 2",
		"Verdict  ready -> failed (gpu_oom)",
		"Config   1 changed, 1 added, 1 removed",
		"~ mem_fraction_static   0.874 -> 0.95",
		"+ enable_torch_compile  True",
		"- cuda_graph_max_bs     8",
		"weights  20.1s  ->  26.8s  +6.7s (+33%)",
		"kv_cache   3.0s  ->   1.0s  -2.0s (-67%)",
		"cuda_graph  12.4s  ->      -  (only in the first)",
		"total  41.7s  ->  31.0s  -10.7s (-26%)",
	} {
		if !strings.Contains(collapse(got), collapse(want)) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	for _, unchanged := range []string{"launch", "init ", "tp_size", "port"} {
		if strings.Contains(got, unchanged) {
			t.Errorf("diff shows unchanged %q:\n%s", unchanged, got)
		}
	}
	if strings.Contains(got, "Model") || strings.Contains(got, "Server") {
		t.Errorf("diff shows an unchanged server or model:\n%s", got)
	}
}

// collapse squeezes runs of spaces so that checks do not depend on column
// widths.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestDiffSame(t *testing.T) {
	env, out, errOut, path := testEnv(t)
	seed(t, path)
	run(t, newDiffCmd(env), errOut, "1", "1")
	for _, want := range []string{"Verdict  ready (both)", "Config   identical", "Phases   same times"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("diff 1 1 lacks %q:\n%s", want, out)
		}
	}
}

func TestDiffJSON(t *testing.T) {
	env, out, errOut, path := testEnv(t)
	seed(t, path)
	if code := run(t, newDiffCmd(env), errOut, "2", "3", "--json"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d struct {
		A, B    int64
		Server  *struct{ A, B string }
		Model   *struct{ A, B string }
		Verdict *struct{ A, B string }
		Config  struct {
			Added, Removed map[string]string
			Changed        map[string]struct{ A, B string }
		}
		Phases []struct {
			Name   string
			AS     *float64 `json:"a_s"`
			BS     *float64 `json:"b_s"`
			DeltaS *float64 `json:"delta_s"`
			Pct    *float64
		}
		Total struct {
			DeltaS *float64 `json:"delta_s"`
			Pct    *float64
		}
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if d.A != 2 || d.B != 3 || d.Server == nil || d.Server.B != "vllm" || d.Verdict == nil || d.Verdict.A != "failed" {
		t.Errorf("header fields wrong: %+v", d)
	}
	if d.Model == nil || d.Model.B != "meta-llama/Llama-3.1-8B" {
		t.Errorf("model change missing: %+v", d.Model)
	}
	if len(d.Config.Removed) != 5 || len(d.Config.Added) != 0 {
		t.Errorf("config diff = %+v, want 5 removed", d.Config)
	}
	names := []string{}
	for _, p := range d.Phases {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "launch,init,weights,kv_cache,compile" {
		t.Errorf("phases = %v", names)
	}
	if p := d.Phases[0]; p.DeltaS == nil || *p.DeltaS != 3.8 || p.Pct == nil || *p.Pct != 316.7 {
		t.Errorf("launch diff = %+v", p)
	}
	if p := d.Phases[1]; p.BS != nil || p.DeltaS != nil {
		t.Errorf("init (only in 2) = %+v", p)
	}
	if d.Total.DeltaS == nil || *d.Total.DeltaS != 64 {
		t.Errorf("total = %+v", d.Total)
	}
}

func TestPhaseDiffPercent(t *testing.T) {
	tests := []struct {
		name string
		a, b float64
		pct  string // "" for none
	}{
		{"a longer phase", 1.2, 5, "+316.7"},
		{"a shorter phase", 10, 5, "-50.0"},
		{"from a time shown as 0.1s", 0.05, 0.1, "+100.0"},
		{"from a time shown as 0.0s", 0.038, 5, ""},
		{"from zero", 0, 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pd := newPhaseDiff("launch", tt.a, true, tt.b, true)
			got := ""
			if pd.Pct != nil {
				got = fmt.Sprintf("%+.1f", *pd.Pct)
			}
			if got != tt.pct {
				t.Errorf("pct of %v -> %v = %q, want %q", tt.a, tt.b, got, tt.pct)
			}
		})
	}
}
