package srvconfig

import (
	"slices"
	"strings"
	"testing"
)

func TestImportant(t *testing.T) {
	tests := []struct {
		name, kind, file string
		want             []KV
	}{
		{"sglang resolved values win over declared ones", "sglang", "sglang-startup.log", []KV{
			{"model", "Qwen/Qwen2.5-7B-Instruct"}, {"quantization", "None"}, {"dtype", "torch.bfloat16"},
			{"kv_cache_dtype", "auto"}, {"tp", "1"}, {"pp", "1"}, {"attention_backend", "fa3"},
			{"mem_fraction", "0.874"}, {"context_length", "32768"}, {"cuda_graph", "enabled"},
			{"max_running_requests", "4096"},
		}},
		{"sglang HEAD backends", "sglang", "sglang-head-server-args.log", []KV{
			{"model", "nvidia/DeepSeek-R1-0528-FP4"}, {"quantization", "modelopt_fp4"}, {"dtype", "auto"},
			{"kv_cache_dtype", "fp8_e4m3"}, {"tp", "8"}, {"pp", "1"}, {"dp", "1"}, {"ep", "8"},
			{"attention_backend", "trtllm_mla"}, {"moe_backend", "flashinfer_trtllm"},
			{"fp4_gemm_backend", "flashinfer_cutlass"}, {"fp8_gemm_backend", "auto"},
			{"mem_fraction", "0.85"}, {"context_length", "None"}, {"cuda_graph", "max_bs=512"},
			{"max_running_requests", "None"},
		}},
		{"vllm 0.21 with expert parallel and enum cudagraph mode", "vllm", "vllm-v0.22-startup.log", []KV{
			{"model", "Qwen/Qwen3-30B-A3B-FP8"}, {"quantization", "fp8"}, {"dtype", "torch.bfloat16"},
			{"kv_cache_dtype", "fp8"}, {"tp", "2"}, {"pp", "1"}, {"dp", "1"}, {"ep", "2"},
			{"attention_backend", "FLASH_ATTN"}, {"moe_backend", "TRITON"}, {"mem_fraction", "0.88"},
			{"context_length", "40960"}, {"cuda_graph", "mode=FULL_AND_PIECEWISE max_size=256"},
			{"max_running_requests", "256"},
		}},
		{"vllm 0.8 Namespace", "vllm", "vllm-v0.8-namespace.log", []KV{
			{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"quantization", "None"}, {"dtype", "torch.bfloat16"},
			{"kv_cache_dtype", "auto"}, {"tp", "8"}, {"pp", "1"}, {"dp", "1"}, {"ep", "1"},
			{"mem_fraction", "0.92"}, {"context_length", "32768"}, {"cuda_graph", "max_size=512"},
		}},
		{"tgi pretty Args", "tgi", "tgi-args-pretty.log", []KV{
			{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"quantization", "Awq"}, {"dtype", "None"},
			{"kv_cache_dtype", "None"}, {"tp", "2"}, {"mem_fraction", "0.9"}, {"context_length", "8192"},
			{"cuda_graph", "bs=[1, 2, 4, 8]"}, {"max_running_requests", "128"},
		}},
		{"trtllm", "trtllm", "trtllm-startup.log", []KV{
			{"context_length", "8193"}, {"max_running_requests", "32"},
		}},
		{"llama.cpp", "llamacpp", "llamacpp-startup.log", []KV{
			{"model", "/models/Qwen3-30B-A3B-Instruct-2507-Q4_K_M.gguf"}, {"quantization", "Q4_K - Medium"},
			{"kv_cache_dtype", "f16"}, {"context_length", "32768"}, {"cuda_graph", "enabled"},
			{"max_running_requests", "1"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Important(tt.kind, collect(t, tt.kind, tt.file))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Important =\n  %v\nwant\n  %v", got, tt.want)
			}
		})
	}
}

func TestImportantUnknownKind(t *testing.T) {
	c := collect(t, "", "sglang-head-server-args.log")
	got := Important("auto", c)
	want := Important("sglang", c)
	if !slices.Equal(got, want) {
		t.Errorf("Important(auto) =\n  %v\nwant as for sglang\n  %v", got, want)
	}
}

func TestFingerprint(t *testing.T) {
	base := "server_args=ServerArgs(model_path='m', tp_size=2, mem_fraction_static=0.8, host='0.0.0.0', port=30000, random_seed=1)"
	parse := func(lines ...string) Config {
		c := NewCollector("sglang")
		for _, l := range lines {
			c.Feed(l)
		}
		return c.Config()
	}
	fp := Fingerprint("sglang", parse(base))
	if len(fp) != 16 {
		t.Fatalf("Fingerprint = %q, want 16 hex digits", fp)
	}
	tests := []struct {
		name  string
		lines []string
		same  bool
	}{
		{"another port, host and seed", []string{strings.NewReplacer("30000", "30001", "0.0.0.0", "127.0.0.1", "seed=1", "seed=9").Replace(base)}, true},
		{"the same startup once it got further", []string{base,
			"Load weight end. type=X, dtype=torch.bfloat16, avail mem=1 GB",
			"max_total_num_tokens=1, max_running_requests=4096, context_len=32768"}, true},
		{"another TP size", []string{strings.Replace(base, "tp_size=2", "tp_size=4", 1)}, false},
		{"another memory fraction", []string{strings.Replace(base, "0.8", "0.85", 1)}, false},
		{"another model", []string{strings.Replace(base, "'m'", "'n'", 1)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Fingerprint("sglang", parse(tt.lines...))
			if (got == fp) != tt.same {
				t.Errorf("Fingerprint = %s, base %s, want same=%v", got, fp, tt.same)
			}
		})
	}
	if got := Fingerprint("vllm", parse(base)); got == fp {
		t.Errorf("another server kind gave the same fingerprint")
	}
	if got := Fingerprint("sglang", nil); got != "" {
		t.Errorf("Fingerprint(nil) = %q, want empty", got)
	}
}

func TestLookup(t *testing.T) {
	sg := collect(t, "sglang", "sglang-startup.log")
	head := collect(t, "sglang", "sglang-head-server-args.log")
	vl := collect(t, "vllm", "vllm-v0.22-startup.log")
	tests := []struct {
		name, kind string
		c          Config
		key, want  string
		found      bool
	}{
		{"canonical tp on sglang", "sglang", sg, "tp", "1", true},
		{"canonical tp on vllm", "vllm", vl, "tp", "2", true},
		{"alias tp_size on vllm", "vllm", vl, "tp_size", "2", true},
		{"raw key with dashes and capitals", "sglang", head, "--FP4-GEMM-Runner-Backend", "flashinfer_cutlass", true},
		{"canonical prefers the resolved value", "sglang", sg, "max_running_requests", "4096", true},
		{"canonical context length", "sglang", sg, "context_length", "32768", true},
		{"dotted suffix", "sglang", sg, "context_len", "32768", true},
		{"nested raw key", "vllm", vl, "compilation_config.max_cudagraph_capture_size", "256", true},
		{"mem_fraction on vllm", "vllm", vl, "mem_fraction", "0.88", true},
		{"absent", "vllm", vl, "speculative_num_steps", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Lookup(tt.kind, tt.c, tt.key)
			if ok != tt.found || got != tt.want {
				t.Errorf("Lookup(%s) = %q, %v, want %q, %v", tt.key, got, ok, tt.want, tt.found)
			}
		})
	}
}
