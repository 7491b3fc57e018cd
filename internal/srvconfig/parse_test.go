package srvconfig

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const fixtures = "../../testdata/config"

// collect feeds a fixture through a Collector, line by line, as the judge
// would.
func collect(t *testing.T, kind, file string) Config {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, file))
	if err != nil {
		t.Fatal(err)
	}
	c := NewCollector(kind)
	for _, line := range strings.Split(string(b), "\n") {
		c.Feed(line)
	}
	c.Flush()
	return c.Config()
}

func TestParseFixtures(t *testing.T) {
	tests := []struct {
		name, kind, file string
		want             map[string]string
		absent           []string
		minPairs         int
	}{
		{
			name: "sglang ServerArgs, scheduler summary and weights",
			kind: "sglang", file: "sglang-startup.log",
			want: map[string]string{
				"model_path": "Qwen/Qwen2.5-7B-Instruct", "tp_size": "1", "mem_fraction_static": "0.874",
				"quantization": "None", "dtype": "auto", "grammar_backend": "xgrammar", "disable_cuda_graph": "False",
				"weights.dtype": "torch.bfloat16", "weights.architecture": "Qwen2ForCausalLM",
				"scheduler.context_len": "32768", "scheduler.max_running_requests": "4096",
				"scheduler.available_gpu_mem": "11.80 GB",
			},
			minPairs: 50,
		},
		{
			name: "sglang HEAD fields with nesting and an escaped quote",
			kind: "sglang", file: "sglang-head-server-args.log",
			want: map[string]string{
				"api_key":                               "sk-it's-a-secret",
				"model_loader_extra_config":             `{"enable_multithread_load": true, "num_threads": 8}`,
				"model_loader_extra_config.num_threads": "8",
				"fp4_gemm_runner_backend":               "flashinfer_cutlass",
				"attention_backend":                     "trtllm_mla",
				"json_model_override_args":              "{}",
				"device":                                "cuda",
			},
			minPairs: 68,
		},
		{
			name: "sglang cut inside a list keeps the complete fields only",
			kind: "sglang", file: "sglang-server-args-truncated.log",
			want:   map[string]string{"model_path": "nvidia/DeepSeek-R1-0528-FP4", "cuda_graph_max_bs": "512"},
			absent: []string{"cuda_graph_bs", "disable_cuda_graph", "device"},
		},
		{
			name: "sglang resolved dict (2026), nested dicts flattened one level",
			kind: "sglang", file: "sglang-resolved-dict.log",
			want: map[string]string{
				"model_path": "/models/DeepSeek-V4.1-Flash", "tp_size": "3", "mem_fraction_static": "0.95",
				"kv_cache_dtype": "fp8_e4m3", "quantization": "None", "trust_remote_code": "True",
				"dist_init_addr": "192.168.123.103:20000", "served_model_name": "deepseek-v4.1-flash",
				"cuda_graph_config.decode": "{'backend': 'full', 'max_bs': 4, 'bs': [1, 2, 3, 4], 'tc_compiler': 'eager', 'full_prefill_max_req': None, 'full_prefill_prefix_chunk_tokens': None, 'max_seq_len': None}",
			},
			minPairs: 60,
		},
		{
			name: "sglang with a JSON string value",
			kind: "sglang", file: "sglang-multinode-server-args.log",
			want: map[string]string{"dist_init_addr": "192.168.100.10:20000", "nnodes": "2", "quantization": "modelopt_fp4"},
		},
		{
			name: "vllm 0.11: version, non-default args, engine config with JSON compilation_config",
			kind: "vllm", file: "vllm-v0.11-startup.log",
			want: map[string]string{
				"version": "0.11.0", "model_tag": "Qwen/Qwen3-8B", "gpu_memory_utilization": "0.92",
				"max_model_len": "32768", "max_seq_len": "32768", "dtype": "torch.bfloat16",
				"served_model_name": "Qwen/Qwen3-8B", "chunked_prefill_enabled": "True",
				"compilation_config.level": "3", "compilation_config.cudagraph_mode": "[2,1]",
				"compilation_config.inductor_compile_config": `{"enable_auto_functionalized_v2":false}`,
				"structured_outputs_config.reasoning_parser": "",
				"selected.attention_backend":                 "Flash Attention",
			},
		},
		{
			name: "vllm 0.8: Namespace with <reprs> and an engine line",
			kind: "vllm", file: "vllm-v0.8-namespace.log",
			want: map[string]string{
				"version": "0.8.5.post1", "config_format": "<ConfigFormat.AUTO: 'auto'>",
				"dispatch_function":    "<function ServeSubcommand.cmd at 0x7f0d2c5a1f30>",
				"tensor_parallel_size": "8", "load_format": "LoadFormat.AUTO",
				"allowed_origins": "['*']", "decoding_config.guided_decoding_backend": "auto",
				"compilation_config.max_capture_size": "512",
			},
			minPairs: 100,
		},
		{
			name: "vllm 0.21: banner version, dict compilation_config with enums, backends",
			kind: "vllm", file: "vllm-v0.22-startup.log",
			want: map[string]string{
				"version": "0.21.1", "model": "Qwen/Qwen3-30B-A3B-FP8", "enable_expert_parallel": "True",
				"hf_overrides.rope_scaling":         "{'rope_type': 'yarn', 'factor': 4.0}",
				"compilation_config.cudagraph_mode": "<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>",
				"compilation_config.backend":        "inductor",
				"kernel_config.moe_backend":         "auto",
				"selected.attention_backend":        "FLASH_ATTN",
				"selected.moe_backend":              "TRITON",
			},
		},
		{
			name: "vllm engine config cut inside compilation_config",
			kind: "vllm", file: "vllm-engine-config-truncated.log",
			want:   map[string]string{"version": "0.21.1", "pooler_config": "None", "tensor_parallel_size": "2"},
			absent: []string{"compilation_config", "compilation_config.mode", "kernel_config"},
		},
		{
			name: "tgi single-line Args",
			kind: "tgi", file: "tgi-args.log",
			want: map[string]string{
				"model_id": "bigscience/mt0-xxl", "huggingface_hub_cache": "/data", "cuda_memory_fraction": "1.0",
				"cors_allow_origin": "[]", "env": "false", "num_shard": "None",
			},
		},
		{
			name: "tgi pretty-printed Args over many lines",
			kind: "tgi", file: "tgi-args-pretty.log",
			want: map[string]string{
				"model_id": "meta-llama/Llama-3.3-70B-Instruct", "num_shard": "2", "quantize": "Awq",
				"sharded": "true", "cuda_graphs": "[1, 2, 4, 8]", "max_total_tokens": "8192",
				"enable_prefill_logprobs": "false", "usage_stats": "On",
			},
			minPairs: 50,
		},
		{
			name: "tgi pretty Args cut short by the next record",
			kind: "tgi", file: "tgi-args-pretty-truncated.log",
			want:   map[string]string{"model_id": "meta-llama/Llama-3.3-70B-Instruct", "quantize": "Awq", "max_input_length": "None"},
			absent: []string{"max_total_tokens", "port"},
		},
		{
			name: "tgi single-line Args cut in the middle",
			kind: "tgi", file: "tgi-args-truncated.log",
			want:   map[string]string{"model_id": "bigscience/mt0-xxl", "master_port": "29500"},
			absent: []string{"env", "cuda_memory_fraction"},
		},
		{
			name: "trtllm version, runtime limits and C++ model lines",
			kind: "trtllm", file: "trtllm-startup.log",
			want: map[string]string{
				"version": "1.0.0rc4", "max_seq_len": "8193", "max_batch_size": "32", "maxNumTokens": "8192",
			},
			absent: []string{"free_gpu_memory_fraction"}, // mentioned in a warning's prose only
		},
		{
			name: "trtllm limits line cut in the middle",
			kind: "trtllm", file: "trtllm-truncated.log",
			absent: []string{"max_seq_len", "max_num_tok"},
		},
		{
			name: "llama.cpp print_info, llama_context, system_info and more",
			kind: "llamacpp", file: "llamacpp-startup.log",
			want: map[string]string{
				"version": "b6710", "build_commit": "3df2244d", "model": "/models/Qwen3-30B-A3B-Instruct-2507-Q4_K_M.gguf",
				"file_type": "Q4_K - Medium", "file_size": "17.28 GiB (4.86 BPW)", "n_ctx": "32768",
				"n_ctx_train": "262144", "flash_attn": "auto", "CUDA.USE_GRAPHS": "1", "CPU.AVX2": "1",
				"general.name": "Qwen3 30B A3B Instruct 2507", "gpu_layers": "49/49",
				"type_k": "f16", "n_slots": "1", "max_token_length": "256",
			},
			absent: []string{"BOS_token", "EOG_token", "n_ctx_per_seq (32768) < n_ctx_train (262144) -- the full capacity of the model will not be utilized"},
		},
		{
			name: "llama.cpp lines cut short",
			kind: "llamacpp", file: "llamacpp-truncated.log",
			want:   map[string]string{"CUDA.USE_GRAPHS": "1"},
			absent: []string{"CUDA.PEER_MAX_BATCH_SIZE"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := collect(t, tt.kind, tt.file)
			for k, want := range tt.want {
				got, ok := c.Get(k)
				if !ok {
					t.Errorf("%s: missing", k)
				} else if got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			for _, k := range tt.absent {
				if v, ok := c.Get(k); ok {
					t.Errorf("%s = %q, want it absent", k, v)
				}
			}
			if len(c) < tt.minPairs {
				t.Errorf("got %d pairs, want at least %d", len(c), tt.minPairs)
			}
			seen := map[string]bool{}
			for _, kv := range c {
				if kv.Key == "" || seen[kv.Key] {
					t.Errorf("bad or repeated key %q", kv.Key)
				}
				seen[kv.Key] = true
			}
		})
	}
}

func TestParseLines(t *testing.T) {
	tests := []struct {
		name, kind, msg string
		want            []KV // nil: not a configuration line
	}{
		{"not a config line", "sglang", "Load weight begin. avail mem=78.58 GB", nil},
		{"empty", "", "", nil},
		{"prefix and ANSI colours are tolerated", "",
			"\x1b[32m[2026-07-20 10:11:12 TP0]\x1b[0m server_args=ServerArgs(tp_size=2, dtype='bfloat16')",
			[]KV{{"tp_size", "2"}, {"dtype", "bfloat16"}}},
		{"nested parens, brackets and braces", "",
			"server_args=ServerArgs(a=(1, 2), b=[3, {'x': (4, 5)}], c={'k': [6]}, d=7)",
			[]KV{{"a", "(1, 2)"}, {"b", "[3, {'x': (4, 5)}]"}, {"c", "{'k': [6]}"}, {"c.k", "[6]"}, {"d", "7"}}},
		{"quotes hiding commas, brackets and escapes", "",
			`server_args=ServerArgs(a='x, y) z', b="say \"hi\", ok", c='it\'s', d=1)`,
			[]KV{{"a", "x, y) z"}, {"b", `say "hi", ok`}, {"c", "it's"}, {"d", "1"}}},
		{"cut inside a quoted value", "",
			"server_args=ServerArgs(a=1, b='half a str",
			[]KV{{"a", "1"}}},
		{"cut right after a complete value", "",
			"server_args=ServerArgs(a=1, b=2",
			[]KV{{"a", "1"}}},
		{"cut just after the opening paren", "sglang", "server_args=ServerArgs(", nil},
		{"an apostrophe inside an unquoted word", "vllm",
			"Initializing a V1 LLM engine (v0.9.0) with config: model=/m/bob's-model, tokenizer_mode=auto",
			[]KV{{"version", "0.9.0"}, {"model", "/m/bob's-model"}, {"tokenizer_mode", "auto"}}},
		{"an unquoted value with a comma", "vllm",
			"Initializing an LLM engine (v0.6.3) with config: served_model_name=a, b, seed=0",
			[]KV{{"version", "0.6.3"}, {"served_model_name", "a, b"}, {"seed", "0"}}},
		{"a bare list cut in a key", "vllm",
			"Initializing a V1 LLM engine (v0.11.0) with config: enable_prefix_caching=True, chunked_pre",
			[]KV{{"version", "0.11.0"}, {"enable_prefix_caching", "True"}}},
		{"vLLM API server version", "", "vLLM API server version 0.11.0",
			[]KV{{"version", "0.11.0"}}},
		{"vLLM server version and model", "",
			"(APIServer pid=1) INFO 05-19 10:00:01 [utils.py:300] vLLM server version 0.21.1, serving model Qwen/Qwen3-8B",
			[]KV{{"version", "0.21.1"}, {"model", "Qwen/Qwen3-8B"}}},
		{"vLLM banner version", "vllm", "█     █     █▄   ▄█       version 0.21.1",
			[]KV{{"version", "0.21.1"}}},
		{"vLLM banner model", "vllm", "▄█ █     █     █ ▀▀ █       model   Qwen/Qwen3-8B",
			[]KV{{"model", "Qwen/Qwen3-8B"}}},
		{"banner lines only count for vLLM", "sglang", "   version 0.21.1", nil},
		{"vLLM older attention backend line", "vllm", "Using FLASHINFER backend.",
			[]KV{{"selected.attention_backend", "FLASHINFER"}}},
		{"TGI router backend line is not an attention backend", "tgi", "Using backend V3", nil},
		{"TGI Some() and nested struct", "tgi",
			`Args { model_id: "m", quantize: Some(Fp8), rope: Some(Linear { factor: 2.0 }), sharded: Some(true) }`,
			[]KV{{"model_id", "m"}, {"quantize", "Fp8"}, {"rope", "Linear { factor: 2.0 }"}, {"rope.factor", "2.0"}, {"sharded", "true"}}},
		{"trtllm prose with '=' is not configuration", "trtllm",
			"[11/07/2025-07:20:57] [TRT-LLM] [I] Set a=1 because the rest is prose", nil},
		{"trtllm Args repr", "trtllm",
			"[11/07/2025-07:20:57] [TRT-LLM] [I] TorchLlmArgs(model='m', tensor_parallel_size=4, kv_cache_config=KvCacheConfig(free_gpu_memory_fraction=0.85, dtype='fp8'))",
			[]KV{{"model", "m"}, {"tensor_parallel_size", "4"},
				{"kv_cache_config", "KvCacheConfig(free_gpu_memory_fraction=0.85, dtype='fp8')"},
				{"kv_cache_config.free_gpu_memory_fraction", "0.85"}, {"kv_cache_config.dtype", "fp8"}}},
		{"an equality is not an assignment", "trtllm", "a == b, c == d", nil},
		{"llama.cpp token lines are not configuration", "llamacpp", "print_info: EOS token        = 151645 '<|im_end|>'", nil},
		{"llama.cpp timestamped prefix", "llamacpp", "0.00.347.618 I llama_context: n_ctx         = 8192",
			[]KV{{"n_ctx", "8192"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Parse(tt.kind, tt.msg)
			if ok != (tt.want != nil) {
				t.Fatalf("Parse ok = %v (%v), want %v", ok, got, tt.want != nil)
			}
			if !slices.Equal(got, Config(tt.want)) {
				t.Errorf("Parse =\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

// TestTruncationEveryCut cuts real configuration lines at every byte and
// checks that what is reported is never a half value: every pair of a
// bracketed print has its full value, and a bare list (vLLM's engine line)
// may differ only in its last item.
func TestTruncationEveryCut(t *testing.T) {
	tests := []struct {
		name, kind, file string
		line             int
		bare             bool
	}{
		{"sglang ServerArgs", "sglang", "sglang-head-server-args.log", 0, false},
		{"vllm non-default args", "vllm", "vllm-v0.22-startup.log", 1, false},
		{"vllm engine config", "vllm", "vllm-v0.22-startup.log", 2, true},
		{"tgi Args", "tgi", "tgi-args.log", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(fixtures, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			line := strings.Split(string(b), "\n")[tt.line]
			full, ok := Parse(tt.kind, line)
			if !ok {
				t.Fatalf("full line not parsed")
			}
			for cut := 0; cut < len(line); cut++ {
				part, _ := Parse(tt.kind, line[:cut])
				top := topLevel(part)
				for i, kv := range part {
					want, ok := full.Get(kv.Key)
					if !ok {
						t.Fatalf("cut at %d: key %q not in the full line", cut, kv.Key)
					}
					lastTop := len(top) > 0 && kv.Key == top[len(top)-1] || len(top) > 0 && strings.HasPrefix(kv.Key, top[len(top)-1]+".")
					if tt.bare && (lastTop || kv.Key == "version") {
						continue
					}
					if kv.Value != want {
						t.Fatalf("cut at %d: item %d %s = %q, want %q", cut, i, kv.Key, kv.Value, want)
					}
				}
			}
		})
	}
}

func topLevel(c Config) []string {
	var out []string
	for _, kv := range c {
		if !strings.Contains(kv.Key, ".") {
			out = append(out, kv.Key)
		}
	}
	return out
}

func TestCollectorFlushAndFollowingLine(t *testing.T) {
	c := NewCollector("tgi")
	if got := c.Feed("INFO text_generation_launcher: Args {"); got != nil {
		t.Fatalf("opening line gave %v, want nothing yet", got)
	}
	c.Feed(`    model_id: "m",`)
	c.Feed(`    num_shard: Some(`)
	if got := c.Flush(); !slices.Equal(got, []KV{{"model_id", "m"}}) {
		t.Errorf("Flush = %v, want model_id only", got)
	}
	if got := c.Flush(); got != nil {
		t.Errorf("second Flush = %v, want nil", got)
	}
	// A configuration line right after a cut block is still read.
	c.Feed("Args {")
	c.Feed(`    dtype: None,`)
	got := c.Feed("vLLM API server version 0.11.0")
	if !slices.Equal(got, []KV{{"dtype", "None"}, {"version", "0.11.0"}}) {
		t.Errorf("Feed = %v", got)
	}
	if v, _ := c.Config().Get("version"); v != "0.11.0" {
		t.Errorf("version = %q", v)
	}
}

func TestMerge(t *testing.T) {
	c := Config{{"a", "1"}, {"b", "None"}, {"c", "x"}}
	c = c.Merge([]KV{{"b", "4096"}, {"c", "None"}, {"a", "2"}, {"d", "new"}})
	want := Config{{"a", "2"}, {"b", "4096"}, {"c", "x"}, {"d", "new"}}
	if !slices.Equal(c, want) {
		t.Errorf("Merge = %v, want %v", c, want)
	}
}

func TestConfigJSON(t *testing.T) {
	c := Config{{"z", "1"}, {"a", `q"uote <b>`}, {"z", "2"}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // as the JSON renderer writes events
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"config": c}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), `{"config":{"a":"q\"uote <b>","z":"2"}}`+"\n"; got != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	var back struct{ Config Config }
	if err := json.Unmarshal([]byte(`{"config":{"z":"2","a":"x","n":3}}`), &back); err != nil {
		t.Fatal(err)
	}
	if want := (Config{{"z", "2"}, {"a", "x"}, {"n", "3"}}); !slices.Equal(back.Config, want) {
		t.Errorf("Unmarshal = %v, want %v", back.Config, want)
	}
}
