package report

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"vigil/internal/bench"
	"vigil/internal/history"
	"vigil/internal/learn"
	"vigil/internal/srvconfig"
)

// The startups the report tests show: a llama.cpp checkpoint that does not
// load, a vLLM model that starts and then stalls compiling, and an SGLang
// NVFP4 model on Blackwell that starts twice, fails once on a smaller
// memory fraction, and starts again with its FP4 GEMM backend flag
// dropped, slower than its baseline.

var demoT0 = time.Date(2026, 11, 23, 9, 12, 40, 0, time.UTC)

func ph(kv ...any) []learn.Phase {
	var out []learn.Phase
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, learn.Phase{Name: kv[i].(string), Seconds: kv[i+1].(float64)})
	}
	return out
}

func total(p []learn.Phase) float64 {
	var s float64
	for _, x := range p {
		s += x.Seconds
	}
	return s
}

func cfg(kv ...string) srvconfig.Config {
	var c srvconfig.Config
	for i := 0; i+1 < len(kv); i += 2 {
		c = append(c, srvconfig.KV{Key: kv[i], Value: kv[i+1]})
	}
	return c
}

// sglangCfg is the FP4 model's configuration with some keys replaced.
func sglangCfg(over ...string) srvconfig.Config {
	c := cfg("model_path", "nvidia/DeepSeek-R1-0528-FP4", "tp_size", "8", "ep_size", "8",
		"quantization", "modelopt_fp4", "kv_cache_dtype", "fp8_e4m3", "mem_fraction_static", "0.85",
		"attention_backend", "trtllm_mla", "moe_runner_backend", "flashinfer_trtllm",
		"fp4_gemm_runner_backend", "flashinfer_cudnn", "cuda_graph_max_bs", "256",
		"chunked_prefill_size", "16384", "enable_dp_attention", "False", "host", "0.0.0.0", "port", "30000")
	for i := 0; i+1 < len(over); i += 2 {
		found := false
		for j := range c {
			if c[j].Key == over[i] {
				c[j].Value, found = over[i+1], true
			}
		}
		if !found {
			c = append(c, srvconfig.KV{Key: over[i], Value: over[i+1]})
		}
	}
	return c
}

func vllmCfg(maxLen string) srvconfig.Config {
	return cfg("model", "Qwen/Qwen3-32B-FP8", "dtype", "auto", "quantization", "fp8",
		"tensor_parallel_size", "2", "max_model_len", maxLen, "gpu_memory_utilization", "0.9",
		"enforce_eager", "False", "enable_prefix_caching", "True", "compilation_config", `{"level":3,"cudagraph_mode":"FULL_AND_PIECEWISE"}`)
}

func benchResult(tokS ...float64) bench.Result {
	r := bench.Result{URL: "http://127.0.0.1:30000", Model: "nvidia/DeepSeek-R1-0528-FP4", Endpoint: "/v1/completions",
		InputLen: 1024, OutputLen: 256, OK: true}
	for i, c := range []int{1, 8, 32} {
		r.Levels = append(r.Levels, bench.Level{Concurrency: c, Completed: 4 * c, OutputTokens: 4 * c * 256,
			TokensFrom: "usage", OutputTokS: tokS[i], ReqS: tokS[i] / 256,
			TTFT: bench.Dist{Mean: 180 + float64(c)*9, P99: 260 + float64(c)*14},
			ITL:  bench.Dist{Mean: 1000 / tokS[i] * float64(c), P99: 1400 / tokS[i] * float64(c)}})
	}
	return r
}

// judged holds r against a baseline as `vigil run --bench` does.
func judged(r bench.Result, base bench.Result, id int64) bench.Result {
	b := &bench.Baseline{Source: fmt.Sprintf("history: startup %d", id), TokS: map[int]float64{}}
	for _, lv := range base.Levels {
		b.TokS[lv.Concurrency] = lv.OutputTokS
	}
	if err := r.Judge(context.Background(), b, 0.1); err != nil {
		panic(err)
	}
	return r
}

type demoStartup struct {
	st    history.Startup
	extra map[string]any
}

func demo() []demoStartup {
	const host, gpus = "gpu-07", "8x NVIDIA B200"
	at := func(d time.Duration) time.Time { return demoT0.Add(d) }
	first := benchResult(62.4, 402.7, 1180.4)
	second := judged(benchResult(63.1, 405.2, 1176.0), first, 4)
	slow := judged(benchResult(57.9, 301.2, 861.5), second, 5)

	llamaPh := ph("launch", 0.3, "init", 0.6, "weights", 1.2)
	vllmOK := ph("launch", 6.2, "init", 4.1, "weights", 48.3, "kv_cache", 3.2, "compile", 41.0, "cuda_graph", 26.4, "serving", 5.8)
	vllmStall := ph("launch", 6.0, "init", 4.3, "weights", 47.1, "kv_cache", 3.1, "compile", 331.0)
	sgFirst := ph("launch", 4.1, "init", 9.2, "distributed", 20.7, "weights", 212.4, "kv_cache", 13.8, "compile", 38.2, "cuda_graph", 71.3, "warmup", 12.1, "serving", 10.6)
	sgSecond := ph("launch", 3.9, "init", 9.0, "distributed", 19.8, "weights", 171.2, "kv_cache", 13.5, "compile", 21.4, "cuda_graph", 70.8, "warmup", 11.9, "serving", 10.2)
	sgOOM := ph("launch", 4.0, "init", 9.1, "distributed", 20.1, "weights", 168.9, "kv_cache", 6.2)
	sgSlow := ph("launch", 4.0, "init", 8.8, "distributed", 20.3, "weights", 169.7, "kv_cache", 13.6, "compile", 22.0, "cuda_graph", 72.4, "warmup", 12.0, "serving", 10.4)

	sg := func(d time.Duration, p []learn.Phase, c srvconfig.Config) history.Startup {
		return history.Startup{StartedAt: at(d), Server: "sglang", Version: "0.5.6", Model: "nvidia/DeepSeek-R1-0528-FP4",
			Host: host, GPUs: gpus, Config: c, Fingerprint: srvconfig.Fingerprint("sglang", c),
			Phases: p, TotalSeconds: total(p), Verdict: "ready", Phase: "ready", LogPath: "/var/log/vigil/sglang-r1.log"}
	}
	oom := sg(50*time.Hour, sgOOM, sglangCfg("mem_fraction_static", "0.62"))
	oom.Verdict, oom.Cause, oom.Phase = "failed", "gpu_oom", "kv_cache"
	oom.Summary = "rank 3 could not allocate the KV cache: not enough memory left with mem_fraction_static 0.62"
	okFirst := sg(0, sgFirst, sglangCfg())
	okFirst.Summary = "ready in 6m33s; serving on 0.0.0.0:30000"
	okSecond := sg(24*time.Hour, sgSecond, sglangCfg())
	okSecond.Summary = "ready in 5m32s; serving on 0.0.0.0:30000"
	dropped := sg(51*time.Hour, sgSlow, sglangCfg("fp4_gemm_runner_backend", "flashinfer_cutlass"))
	dropped.Summary = "ready in 5m33s; serving on 0.0.0.0:30000"

	return []demoStartup{
		{st: history.Startup{StartedAt: at(-30 * time.Hour), Server: "llamacpp", Version: "b6520", Model: "/models/gemma-3-27b-it-Q4_K_M.gguf",
			Host: host, GPUs: gpus, Config: cfg("model", "/models/gemma-3-27b-it-Q4_K_M.gguf", "n_gpu_layers", "99", "ctx_size", "32768", "port", "8080"),
			Phases: llamaPh, TotalSeconds: total(llamaPh), Verdict: "failed", Cause: "model_load", Phase: "weights",
			Summary: "llama_model_load: error loading model: tensor 'blk.61.ffn_down.weight' data is not within the file bounds, model is corrupted or incomplete",
			LogPath: "/var/log/vigil/llama-gemma.log"}},
		{st: history.Startup{StartedAt: at(-26 * time.Hour), Server: "vllm", Version: "0.11.2", Model: "Qwen/Qwen3-32B-FP8",
			Host: host, GPUs: gpus, Config: vllmCfg("32768"), Phases: vllmOK, TotalSeconds: total(vllmOK),
			Verdict: "ready", Phase: "ready", Summary: "ready in 2m15s; serving on 127.0.0.1:8000", LogPath: "/var/log/vigil/vllm-qwen.log"},
			extra: map[string]any{"smoke": map[string]any{"ok": true, "endpoint": "/v1/chat/completions", "answer": "The capital of France is Paris.", "latency_ms": 211}}},
		{st: history.Startup{StartedAt: at(-25 * time.Hour), Server: "vllm", Version: "0.11.2", Model: "Qwen/Qwen3-32B-FP8",
			Host: host, GPUs: gpus, Config: vllmCfg("131072"), Phases: vllmStall, TotalSeconds: total(vllmStall),
			Verdict: "stalled", Phase: "compile", Summary: "no sign of progress for 5m0s while compiling (torch.compile, level 3)",
			LogPath: "/var/log/vigil/vllm-qwen.log"}},
		{st: okFirst, extra: map[string]any{"bench": first}},
		{st: okSecond, extra: map[string]any{"bench": second,
			"kernels": map[string]any{"tuned": []string{"E=257,N=256,device_name=NVIDIA_B200,dtype=fp8_w8a8,block_shape=[128, 128].json", "E=257,N=128,device_name=NVIDIA_B200,dtype=fp8_w8a8,block_shape=[128, 128].json"}, "default": []string{}}}},
		{st: oom},
		{st: dropped, extra: map[string]any{"bench": slow,
			"smoke": map[string]any{"ok": true, "endpoint": "/v1/chat/completions", "answer": "Paris.", "latency_ms": 388},
			"notable": []map[string]any{
				{"id": "sglang.deepgemm_scale_ue8m0", "meaning": "DeepGEMM's scale format on Blackwell may cause accuracy degradation",
					"line": "DeepGEMM is enabled but the scale_fmt of checkpoint is not ue8m0. This might cause accuracy degradation on Blackwell.", "count": 8},
			},
			"kernels": map[string]any{
				"tuned":   []string{"E=257,N=256,device_name=NVIDIA_B200,dtype=fp8_w8a8,block_shape=[128, 128].json"},
				"default": []map[string]any{{"file": "E=257,N=128,device_name=NVIDIA_B200,dtype=fp8_w8a8,block_shape=[128, 128].json", "kernel": "fused_moe"}},
			}}},
	}
}

// demoStore records the demo startups in a new history database, as
// `vigil run` would, and returns it open.
func demoStore(t *testing.T, list []demoStartup) *history.Store {
	t.Helper()
	s, err := history.Open(filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	for _, d := range list {
		id, err := s.Record(ctx, d.st)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range d.extra {
			if err := s.AttachResults(ctx, id, name, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

// mustJSON is v as a raw JSON value.
func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
