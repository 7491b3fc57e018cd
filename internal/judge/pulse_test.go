package judge

import (
	"strings"
	"testing"
	"time"

	"vigil/internal/logline"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// Kernel configs are counted once per config however many ranks print
// them; a default one and a notable warning are events as they appear, and
// all of it is in the verdict's extras.
func TestPulse(t *testing.T) {
	cfg := Config{Server: "sglang", StallAfter: 4 * time.Second, Timeout: 40 * time.Second}
	tuned := func(rank int) string {
		return "[2026-11-29 10:00:02 TP" + string(rune('0'+rank)) + "] Using MoE kernel config from /sgl/configs/triton_3_4_0/E=256,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128, 128].json."
	}
	fp8 := "[2026-11-29 10:00:02 TP0] Using configuration from /sgl/quantization/configs/N=576,K=7168,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128, 128].json for W8A8 Block FP8 kernel."
	def := "[2026-11-29 10:00:02 TP0] Using default MoE config. Performance might be sub-optimal! Config file not found at /sgl/configs/E=16,N=1536,device_name=NVIDIA_H200.json"
	deep := "[2026-11-29 10:00:02 TP0] DeepGemm is enabled but the scale_fmt of checkpoint is not ue8m0. This might cause accuracy degradation on Blackwell."
	ok200 := observe.Health{State: observe.HealthOK, Code: 200}
	steps := []step{
		ln(0.2, "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')"),
		ln(1, "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"),
		ln(2, tuned(0)), ln(2, tuned(1)), ln(2, fp8), ln(2, def), ln(2.1, def), ln(2.2, deep), ln(2.3, deep),
		ln(5, "[2026-11-29 10:00:05] The server is fired up and ready to roll!"),
		{at: 5.1, health: &ok200},
	}
	t0 := time.Unix(1_800_000_000, 0)
	j := New(cfg, t0)
	var r *observe.Result
	var warnings []string
	i := 0
	for now := 0.0; now <= 20 && r == nil; now += 0.05 {
		for i < len(steps) && steps[i].at <= now+1e-9 {
			s := steps[i]
			if s.health != nil {
				j.Health(*s.health, t0.Add(sec(s.at)))
			} else {
				j.Line(logline.Line{Text: s.line}, t0.Add(sec(s.at)))
			}
			i++
		}
		r = j.Tick(t0.Add(sec(now)))
		for _, e := range j.Events() {
			if w, ok := e.Data.(observe.Warning); ok {
				warnings = append(warnings, w.Message)
			}
		}
	}
	if r == nil || r.Verdict != v.Ready {
		t.Fatalf("got %+v, want ready", r)
	}
	if !strings.HasSuffix(r.Summary, "; 2 tuned kernel configs loaded, 1 default") {
		t.Errorf("summary %q does not count the kernel configs", r.Summary)
	}
	k, _ := r.Extras["kernels"].(map[string]any)
	if got, want := len(k["tuned"].([]map[string]string)), 2; got != want {
		t.Errorf("%d tuned configs, want %d", got, want)
	}
	d := k["default"].([]map[string]string)
	if len(d) != 1 || d[0]["device"] != "NVIDIA_H200" || d[0]["shape"] != "E=16,N=1536" {
		t.Errorf("default configs %v, want the one E=16,N=1536 on NVIDIA_H200", d)
	}
	n, _ := r.Extras["notable"].([]Notable)
	if len(n) != 1 || n[0].ID != "sglang.deepgemm_scale" || n[0].Count != 2 || n[0].Effect != "accuracy" {
		t.Errorf("notable %v, want sglang.deepgemm_scale twice", n)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "E=16,N=1536,device_name=NVIDIA_H200.json") || !strings.Contains(warnings[0], "benchmark_moe.py --tune") ||
		!strings.Contains(warnings[1], "notable warning (accuracy)") {
		t.Errorf("warning events %q, want the default config (its file, how to tune) and the DeepGEMM warning", warnings)
	}
}
