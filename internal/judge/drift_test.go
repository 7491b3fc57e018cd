package judge

import (
	"strings"
	"testing"
	"time"

	"vigil/internal/logline"
	"vigil/internal/observe"
	"vigil/internal/srvconfig"
)

// A key dropped from the command line since the last good start comes back
// at its default: the judge names it as the config is printed, once, and
// the verdict lists every difference.
func TestDriftFromTheLastGoodStart(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	last := srvconfig.Config{{Key: "model_path", Value: "m"}, {Key: "fp4_gemm_runner_backend", Value: "flashinfer_cudnn"}, {Key: "tp_size", Value: "2"}, {Key: "old_flag", Value: "1"}}
	j := New(Config{Server: "sglang", StallAfter: 4 * time.Second, Timeout: 40 * time.Second, LastGood: last, LastGoodID: 41}, t0)
	line := "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='m', fp4_gemm_runner_backend='flashinfer_cutlass', tp_size=2, port=30000)"
	j.Line(logline.Line{Text: line}, t0)
	j.Line(logline.Line{Text: line}, t0.Add(time.Second))
	var drift []string
	for _, e := range j.Events() {
		if w, ok := e.Data.(observe.Warning); ok && strings.HasPrefix(w.Message, "config changed") {
			drift = append(drift, w.Message)
		}
	}
	want := "config changed since the last good start (#41): fp4_gemm_runner_backend: flashinfer_cudnn -> flashinfer_cutlass"
	if len(drift) != 1 || drift[0] != want {
		t.Errorf("drift events %q, want one: %q", drift, want)
	}
	j.Exit(observe.Exit{Code: 1}, t0.Add(2*time.Second))
	var r *observe.Result
	for i := 0; i < 200 && r == nil; i++ {
		r = j.Tick(t0.Add(2*time.Second + time.Duration(i)*50*time.Millisecond))
	}
	if r == nil {
		t.Fatal("no verdict")
	}
	x, _ := r.Extras["config_changes"].(map[string]any)
	changes, _ := x["changes"].([]map[string]string)
	var got []string
	for _, c := range changes {
		got = append(got, c["kind"]+" "+c["key"])
	}
	if strings.Join(got, ", ") != "changed fp4_gemm_runner_backend, added port, removed old_flag" || x["against"] != int64(41) {
		t.Errorf("config_changes %v, want the backend changed, port added, old_flag removed, against #41", x)
	}
}

// SGLang prints quantization=None when the checkpoint's own
// quantization_config decides; --expect quantization is then judged
// against the checkpoint.
func TestExpectQuantizationFromTheCheckpoint(t *testing.T) {
	line := "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='m', quantization=None, tp_size=2)"
	tests := []struct {
		name       string
		checkpoint []string
		want       bool // a mismatch verdict
	}{
		{"the checkpoint is modelopt_fp4", []string{"modelopt_fp4"}, false},
		{"the checkpoint is fp8", []string{"fp8"}, true},
		{"the checkpoint is unknown", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Unix(1_800_000_000, 0)
			j := New(Config{Server: "sglang", StallAfter: 4 * time.Second, Timeout: 40 * time.Second,
				Expect: []srvconfig.Expect{{Key: "quantization", Value: "modelopt_fp4"}}, CheckpointQuant: tt.checkpoint}, t0)
			j.Line(logline.Line{Text: line}, t0)
			r := j.Tick(t0.Add(time.Second))
			got := r != nil && r.RuleID == "expect.mismatch"
			if got != tt.want {
				t.Errorf("got %+v, want a mismatch %v", r, tt.want)
			}
			if got && !strings.Contains(r.Summary, "fp8 (the checkpoint's own; the server printed None)") {
				t.Errorf("summary %q does not say the checkpoint's value", r.Summary)
			}
		})
	}
}
