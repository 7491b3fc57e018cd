package classify

import (
	"strings"
	"testing"

	v "vigil/internal/verdict"
)

// llamaLine is a real llama-server line and what it means: the rule that
// knows it, the phase it marks, or the ready signal.
type llamaLine struct {
	name, line string
	rule       string // the failure rule's ID, or "" for none
	cause      v.Cause
	phase      v.Phase
	ready      bool
	benign     bool
	error      bool   // IsError
	notable    string // the notable rule's ID, or ""
}

// llamacppRealLines are lines that a real llama-server (build 10587,
// commit 3f545bec, CPU) printed; the catalogue's coverage test counts them.
var llamacppRealLines = []llamaLine{
	// A default start (11 lines).
	{name: "banner", line: "0.00.004.892 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)", phase: v.Init},
	{name: "CORS warning", line: "0.00.009.506 W srv  llama_server: CORS is set to allow all origins ('*') and no API key is set", benign: true},
	{name: "loading model", line: "0.00.011.101 I srv    load_model: loading model 'tiny.gguf'", phase: v.Weights},
	{name: "slots", line: "0.00.853.903 I srv    load_model: initializing, n_slots = 4, n_ctx_slot = 2048, kv_unified = 'true'", phase: v.KVCache},
	// A 2026 build (a user's log under Homebrew).
	{name: "slots, 2026", line: "0.07.878.981 I srv    load_model: initializing slots, n_slots = 10", phase: v.KVCache},
	{name: "model loaded", line: "0.00.856.470 I srv  llama_server: model loaded", ready: true},
	{name: "listening on", line: "0.00.856.501 I srv  llama_server: listening on http://127.0.0.1:18080", ready: true},
	// -c 8192 on a model trained on 2048.
	{name: "context over training", line: "0.00.484.969 W llama_context: n_ctx_seq (8192) > n_ctx_train (2048) -- possible training context overflow", phase: v.KVCache, benign: true},
	{name: "slot context capped", line: "0.00.541.934 W srv    load_model: the slot context (8192) exceeds the training context of the model (2048) - capping", benign: true, notable: "llamacpp.slot_ctx_capped"},
	// Router mode with no model (no -m, nothing cached).
	{name: "router, no models", line: "0.00.012.776 I srv    operator(): Available models (0) (*: custom preset)", notable: "llamacpp.router_no_models"},
	{name: "router mode", line: "0.00.013.131 I srv  llama_server: starting server in router mode. models will be automatically loaded on-demand"},
	{name: "router listening", line: "0.00.014.445 I srv  llama_server: listening on http://127.0.0.1:46399", ready: true},
	// -lv 4.
	{name: "verbose banner", line: "0.00.011.320 I cmn  common_param: common_params_print_info: build 10587 (3f545bec) with GNU 12.2.0 for Linux x86_64", phase: v.Init},
	{name: "system info", line: "0.00.011.483 I cmn  common_param: system_info: n_threads = 2 (n_threads_batch = 2) / 2 | CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | ", phase: v.Init},
	{name: "model loader", line: "0.00.072.535 I llama_model_loader: loaded meta data with 21 key-value pairs and 21 tensors from tiny.gguf (version GGUF V3 (latest))", phase: v.Weights},
	{name: "print_info", line: "0.00.087.878 I print_info: file format = GGUF V3 (latest)", phase: v.Weights},
	{name: "load_tensors", line: "0.00.112.850 I load_tensors: loading model tensors, this can take a while... (load_mode = mmap)", phase: v.Weights},
	{name: "llama_context", line: "0.00.120.358 I llama_context: constructing llama_context", phase: v.KVCache},
	{name: "kv cache", line: "0.00.120.577 I llama_kv_cache: size =    1.00 MiB (  2048 cells,   2 layers,  4/1 seqs), K (f16):    0.50 MiB, V (f16):    0.50 MiB", phase: v.KVCache},
	{name: "warm-up", line: "0.00.122.138 I cmn  common_init_: warming up the model with an empty run - please wait ... (--no-warmup to disable)", phase: v.Warmup},
	{name: "deprecated flag", line: "0.00.002.416 W DEPRECATED: --mmap and --no-mmap are deprecated. use --load-mode mmap instead", benign: true},
	// --fit's trial load that failed (common/fit.cpp; a user's log, 2026):
	// the reason comes with the load after it.
	{name: "fit error", line: "0.00.145.488 E common_fit_params: encountered an error while trying to fit params to free device memory: failed to load model", rule: "llamacpp.fit_echo", error: true},
	{name: "fit warning", line: "0.00.620.828 W common_fit_params: failed to fit params to free device memory: was unable to fit model into system memory by reducing context, abort", benign: true, notable: "llamacpp.fit_failed"},
	// -ngl 99 on a build without a GPU backend (before the logger starts).
	{name: "no usable GPU", line: "warning: no usable GPU found, --gpu-layers option will be ignored", benign: true, notable: "llamacpp.no_gpu"},
	// --mlock under ulimit -l 16, without CAP_IPC_LOCK.
	{name: "mlock failed", line: "0.00.115.333 W warning: failed to mlock 16715776-byte buffer (after previously locking 0 bytes): Cannot allocate memory", benign: true, notable: "llamacpp.mlock_failed"},
	{name: "mlock hint", line: "Try increasing RLIMIT_MEMLOCK ('ulimit -l' as root)."},
	// --control-vector of a file that is not there: the server goes on.
	{name: "control vector file", line: "0.01.247.026 E cmn  common_contr: failed to load control vector file from /models/nocv.gguf", error: true},
	{name: "no control vector", line: "0.01.247.027 E cmn  common_contr: no valid control vector files passed", error: true, notable: "llamacpp.control_vector_failed"},
	// Router mode with --models-dir or --models-preset that is not there.
	{name: "router models dir", line: "0.00.013.566 E srv  llama_server: failed to initialize router models: error: '/srv/nomodels' does not exist or is not a directory", rule: "llamacpp.router_models", cause: v.Config, error: true},
	{name: "router preset", line: "0.00.015.853 E srv  llama_server: failed to initialize router models: preset file does not exist: /srv/nopreset.ini", rule: "llamacpp.router_models", cause: v.Config, error: true},
	// --mcp-servers-config of a file that is not there.
	{name: "mcp config", line: "0.00.010.939 E srv  llama_server: MCP starting failed: failed to open MCP config file: /srv/nomcp.json", rule: "llamacpp.mcp_config", cause: v.Config, error: true},
	{name: "mcp json", line: "0.00.014.690 E srv  llama_server: MCP starting failed: failed to parse MCP config JSON: [json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing object key - invalid literal; last read: '{b'; expected string literal", rule: "llamacpp.mcp_config", cause: v.Config, error: true},
	// --tools with a name this build does not have.
	{name: "tools", line: "0.00.009.307 E srv  llama_server: tools setup failed: unknown tool \"nosuchtool\". available tools: read_file, file_glob_search, grep_search, exec_shell_command, write_file, edit_file, get_info", rule: "llamacpp.tools", cause: v.Config, error: true},
	// --path of a directory that is not there.
	{name: "static path", line: "0.00.013.996 E srv          init: static assets path not found: /srv/nostatic", rule: "llamacpp.static_path", cause: v.Config, error: true},
	// A missing model.
	{name: "gguf open", line: "0.00.003.890 E gguf_init_from_file: failed to open GGUF file 'missing.gguf' (No such file or directory)", rule: "llamacpp.gguf_open", cause: v.ModelLoad, error: true},
	{name: "error loading model", line: "0.00.004.947 E llama_model_load: error loading model: llama_model_loader: failed to load model from missing.gguf", rule: "llamacpp.load", cause: v.ModelLoad, phase: v.Weights, error: true},
	{name: "load model failed", line: "0.00.005.314 E srv    load_model: failed to load model, 'missing.gguf'", rule: "llamacpp.load", cause: v.ModelLoad, error: true},
	{name: "load exit", line: "0.00.005.835 E srv  llama_server: exiting due to model loading error", rule: "llamacpp.load_exit", cause: v.ModelLoad, error: true},
	// A truncated model, a file that is no GGUF.
	{name: "truncated", line: "0.00.009.514 E llama_model_load: error loading model: tensor 'token_embd.weight' data is not within the file bounds, model is corrupted or incomplete", rule: "llamacpp.gguf_open", cause: v.ModelLoad, phase: v.Weights, error: true},
	{name: "invalid magic", line: "0.00.007.296 E gguf_init_from_reader: invalid magic characters: '????', expected 'GGUF'", rule: "llamacpp.gguf_open", cause: v.ModelLoad, error: true},
	// -hf --offline of a repository not in the cache: no path at all.
	{name: "no model path", line: "0.00.010.916 E llama_model_load_from_file_impl: exactly one out metadata, path_model, and file must be defined", rule: "llamacpp.no_model_path", cause: v.ModelLoad, phase: v.Weights, error: true},
	// -hf on a build without OpenSSL.
	{name: "no https", line: "0.00.017.959 E get_repo_commit: error: HTTPS is not supported. Please rebuild with one of:", rule: "llamacpp.no_https", cause: v.ModelLoad, error: true},
	{name: "no commit", line: "0.00.017.985 W get_repo_files: failed to resolve commit for ggml-org/nosuch-GGUF", benign: true},
	// Download failures: common/download.cpp and tools/server/server.cpp
	// (b10587), lines as the source writes them.
	{name: "download attempts", line: "0.12.004.117 E common_download_file_single_online: download failed after 3 attempts", rule: "llamacpp.download", cause: v.ModelLoad, phase: v.Weights, error: true},
	{name: "download model", line: "0.12.004.201 E srv  llama_server: failed to download model: download failed", rule: "llamacpp.download", cause: v.ModelLoad, error: true},
	// A model of an architecture this build does not know.
	{name: "unknown arch", line: "0.00.063.166 E llama_model_load: error loading model: unknown model architecture: 'vigil-nosuch'", rule: "llamacpp.arch", cause: v.Config, phase: v.Weights, error: true},
	// The port is taken.
	{name: "bind", line: "0.00.010.351 E srv         start: couldn't bind HTTP server socket, hostname: 127.0.0.1, port: 18095", rule: "llamacpp.bind", cause: v.PortInUse, error: true},
	{name: "bind, a stale socket file", line: "0.00.008.821 E srv         start: couldn't bind HTTP server socket, hostname: /run/llama/st.sock, port: 8080", rule: "llamacpp.bind_socket", cause: v.Config, error: true},
	{name: "bind, a socket's directory missing", line: "0.00.012.902 E srv         start: couldn't bind HTTP server socket, hostname: /nonexistent/dir/x.sock, port: 8080", rule: "llamacpp.bind_socket", cause: v.Config, error: true},
	// --host 192.0.2.1 (a documentation address, not this machine's).
	{name: "bind, a host not this machine's", line: "0.00.008.135 E srv         start: couldn't bind HTTP server socket, hostname: 192.0.2.1, port: 18121", rule: "llamacpp.bind_host", cause: v.Config, error: true},
	{name: "http exit", line: "0.00.010.454 E srv  llama_server: exiting due to HTTP server error", rule: "llamacpp.http_exit", error: true},
	// Bad flags: printed before any log prefix.
	{name: "unknown flag", line: "error: invalid argument: --no-such-flag", rule: "llamacpp.args", cause: v.Config, error: true},
	{name: "bad value", line: `error while handling argument "-c": stoi`, rule: "llamacpp.args", cause: v.Config, error: true},
	{name: "bad choice", line: `error while handling argument "--flash-attn": error: unknown value for --flash-attn: 'maybe'`, rule: "llamacpp.args", cause: v.Config, error: true},
	// --ssl-key-file on a build without OpenSSL.
	{name: "no ssl", line: "0.00.145.266 E srv          init: the server is built without SSL support", rule: "llamacpp.no_ssl", cause: v.Config, error: true},
	{name: "http init", line: "0.00.145.266 E srv  llama_server: failed to initialize HTTP server", rule: "llamacpp.http_init", error: true},
	// A KV cache larger than the host's memory.
	// --lora and --mmproj with a missing or non-GGUF file.
	{name: "lora file", line: "0.00.118.718 E llama_adapter_lora_init: failed to apply lora adapter: failed to load lora adapter file from models/nosuch.gguf", rule: "llamacpp.lora_file", cause: v.ModelLoad, error: true},
	{name: "mmproj file", line: "0.00.103.491 E clip_init: failed to load model 'models/notgguf.bin': clip_model_loader: failed to load CLIP model from models/notgguf.bin. Does this file exist?", rule: "llamacpp.mmproj_file", cause: v.ModelLoad, phase: v.Weights, error: true},
	// A GGUF whose version field says 99 (ggml/src/gguf.cpp).
	{name: "gguf version", line: "0.00.010.128 E gguf_init_from_reader: this GGUF file is version 99 but this software only supports up to version 3", rule: "llamacpp.gguf_version", cause: v.ModelLoad, error: true},
	// Under `ulimit -v 600000` with a 1.1 GB model (src/llama-mmap.cpp).
	{name: "mmap out of memory", line: "0.00.101.820 E llama_model_load: error loading model: mmap failed: Cannot allocate memory", rule: "llamacpp.mmap_enomem", cause: v.HostOOM, phase: v.Weights, error: true},
	{name: "aligned malloc", line: "0.03.999.301 E ggml_aligned_malloc: insufficient memory (attempted to allocate 250000.00 MB)", rule: "ggml.host_malloc", cause: v.HostOOM, error: true},
	{name: "cpu buffer type", line: "0.03.999.379 E ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 262144000000", rule: "ggml.cpu_alloc", cause: v.HostOOM, error: true},
	{name: "cpu buffer", line: "0.03.999.397 E alloc_tensor_range: failed to allocate CPU buffer of size 262144000000", rule: "ggml.host_buffer", cause: v.HostOOM, error: true},
	{name: "kv buffer", line: "0.04.013.827 E llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache", rule: "llamacpp.kv_alloc", cause: v.HostOOM, error: true},
	// Context parameters the model cannot take: -ctv q8_0 -fa off, -b 0
	// -ub 0, -np 300; -sm tensor on a machine without GPUs.
	{name: "quantized V cache", line: "0.00.071.599 E llama_init_from_model: quantized V cache requires flash_attn to be enabled", rule: "llamacpp.ctx_params", cause: v.Config, error: true},
	{name: "batch zero", line: "0.00.066.942 E llama_init_from_model: n_batch and n_ubatch cannot both be zero", rule: "llamacpp.ctx_params", cause: v.Config, error: true},
	{name: "too many slots", line: "0.00.081.877 E llama_init_from_model: failed to initialize the context: n_seq_max must be <= 256", rule: "llamacpp.ctx_params", cause: v.Config, error: true},
	{name: "tensor split", line: "0.00.032.141 E llama_prepare_model_devices: LLAMA_SPLIT_MODE_TENSOR needs >= 1 devices", rule: "llamacpp.devices", cause: v.Config, error: true},
	// A chat template that does not parse (--jinja --chat-template),
	// before the log prefix starts.
	{name: "chat template init", line: "0.00.003.973 E common_chat_templates_init: failed to initialize chat template", rule: "llamacpp.chat_template", cause: v.Config, error: true},
	{name: "chat template arg", line: "error: the supplied chat template is not supported: {% for m in messages %}{{ m.content }", rule: "llamacpp.chat_template", cause: v.Config, error: true},
	// --grammar 'root ::= item', then an abort.
	{name: "grammar", line: "parse: error parsing grammar: Undefined rule identifier 'item'", rule: "llamacpp.grammar", cause: v.Config, error: true},
	// --webui-config '{bad'.
	{name: "ui config", line: "0.00.402.824 E srv          init: init: failed to parse UI config: [json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing object key - invalid literal; last read: '{b'; expected string literal", rule: "llamacpp.ui_config", cause: v.Config, error: true},
	// --spec-type draft-mtp with a model without MTP layers.
	{name: "mtp", line: "0.00.382.463 E common_speculative_init_result: failed to create MTP context", rule: "llamacpp.mtp", cause: v.Config, error: true},
	// --lora with an adapter of another architecture.
	{name: "lora arch", line: "0.00.225.234 E llama_adapter_lora_init: failed to apply lora adapter: model arch and LoRA arch mismatch", rule: "llamacpp.lora_mismatch", cause: v.Config, error: true},
	// --mmproj with a projector type this build does not know: the first
	// try says only that it failed, the second why.
	{name: "mtmd first try", line: "0.00.007.649 E mtmd_get_memory_usage: error: Failed to load CLIP model from mmproj.gguf", rule: "llamacpp.mtmd_echo", error: true},
	{name: "projector type", line: "0.00.137.516 E clip_init: failed to load model 'mmproj.gguf': load_hparams: unknown projector type: nosuch_merger", rule: "llamacpp.mmproj_mismatch", cause: v.Config, phase: v.Weights, error: true},
	{name: "multimodal echo", line: "0.00.140.395 E srv    load_model: failed to load multimodal model, 'mmproj.gguf'", rule: "llamacpp.mtmd_echo", error: true},
}

// llamacppSourceLines are lines of paths a CPU-only llama-server cannot
// take (GPU backends), written as build 10587's source formats them.
var llamacppSourceLines = []llamaLine{
	// common/fit.cpp common_params_fit_impl, printed at -lv 4.
	{name: "fit context reduced", line: "0.00.512.101 I common_params_fit_impl: context size reduced from 40960 to 4096 -> need 3456 MiB less memory in total", notable: "llamacpp.ctx_reduced"},
	// ggml/src/ggml-metal/ggml-metal-device.m, then src/llama-model.cpp.
	{name: "metal buffer", line: "0.00.905.765 E ggml_metal_buffer_init: error: failed to allocate buffer, size = 32768.00 MiB", rule: "llamacpp.metal_alloc", cause: v.GPUOOM, error: true},
	// ggml/src/ggml-sycl/ggml-sycl.cpp.
	{name: "sycl buffer", line: "0.00.705.765 E ggml_backend_sycl_buffer_type_alloc_buffer: can't allocate 4617404416 Bytes of memory on device", rule: "llamacpp.sycl_alloc", cause: v.GPUOOM, error: true},
	// ggml/src/ggml-metal/ggml-metal-context.m: macOS's description of a
	// command buffer that ran out of memory, then every later graph.
	{name: "metal command buffer", line: "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)", rule: "llamacpp.metal_cb_oom", cause: v.GPUOOM, error: true},
	{name: "metal error state", line: "0.26.672.401 E ggml_metal_graph_compute: backend is in error state from a previous command buffer failure - recreate the backend to recover", rule: "llamacpp.metal_error_state", error: true},
	// src/llama-vocab.cpp.
	{name: "pre-tokenizer", line: "0.00.105.765 E llama_model_load: error loading model: error loading model vocabulary: unknown pre-tokenizer type: 'gpt-4o'", rule: "llamacpp.pretokenizer", cause: v.Config, phase: v.Weights, error: true},
	// ggml/src/ggml-sycl/ggml-sycl.cpp's GGML_ABORT (build 10717+, from
	// a user's log: llama.cpp#28134).
	{name: "sycl abort", line: "/llama.cpp/ggml/src/ggml-sycl/ggml-sycl.cpp:6054: [ggml_backend_sycl_device_get_memory] failed to get device memory size", rule: "llamacpp.backend_abort", cause: v.CUDA, error: true},
	// src/llama-context.cpp.
	{name: "backend init", line: "0.00.008.765 E llama_init_from_model: failed to initialize the context: failed to initialize CUDA0 backend", rule: "llamacpp.backend_init", cause: v.CUDA, error: true},
}

// TestLlamaCppRealLines holds lines that a real llama-server (build 10587,
// commit 3f545bec, CPU) printed, as bench/real/llamacpp.sh records them,
// and asserts what each means: the rule that knows it, the phase it
// marks, or the ready signal.
func TestLlamaCppRealLines(t *testing.T) {
	tests := append(append([]llamaLine(nil), llamacppRealLines...), llamacppSourceLines...)
	// Every rule of the profile is asserted on a line here.
	asserted := map[string]bool{}
	for _, tt := range tests {
		asserted[tt.rule] = true
	}
	for _, r := range llamacpp.Failures {
		if !asserted[r.ID] {
			t.Errorf("rule %s has no real line in this table", r.ID)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := llamacpp.Classify(tt.line)
			rule, cause := "", v.Cause("")
			if c.Failure != nil {
				rule, cause = c.Failure.ID, c.Failure.Cause
			}
			if rule != tt.rule || cause != tt.cause {
				t.Errorf("rule %q cause %q, want %q %q (msg %q)", rule, cause, tt.rule, tt.cause, c.Msg)
			}
			notable := ""
			if c.Notable != nil {
				notable = c.Notable.ID
			}
			if notable != tt.notable {
				t.Errorf("notable %q, want %q (msg %q)", notable, tt.notable, c.Msg)
			}
			if c.Phase != tt.phase || c.Ready != tt.ready || c.Benign != tt.benign || c.IsError() != tt.error {
				t.Errorf("phase %q ready %v benign %v error %v, want %q %v %v %v (msg %q)",
					c.Phase, c.Ready, c.Benign, c.IsError(), tt.phase, tt.ready, tt.benign, tt.error, c.Msg)
			}
		})
	}
}

// TestLlamaCppPrefix: the prefix is taken apart whatever its minutes.
func TestLlamaCppPrefix(t *testing.T) {
	tests := []struct {
		name, line, msg, level, stamp string
	}{
		{"server tag", "0.00.856.470 I srv  llama_server: model loaded", "llama_server: model loaded", "info", "0.00.856.470"},
		{"slot tag", "0.00.139.437 I slot   load_model: id  0 | task -1 | new slot, n_ctx = 2048", "load_model: id  0 | task -1 | new slot, n_ctx = 2048", "info", "0.00.139.437"},
		{"library line", "0.00.003.890 E gguf_init_from_file: failed to open GGUF file 'x'", "gguf_init_from_file: failed to open GGUF file 'x'", "error", "0.00.003.890"},
		{"past ten minutes", "12.05.001.002 W srv  llama_server: NOTICE", "llama_server: NOTICE", "warning", "12.05.001.002"},
		{"no time", "I srv  llama_server: model loaded", "llama_server: model loaded", "info", ""},
		{"a version is no prefix", "0.2.0-dev (build 10587)", "0.2.0-dev (build 10587)", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []Parsed{Parse(tt.line), ParseFast(tt.line)} {
				if p.Msg != tt.msg || p.Level != tt.level || p.Stamp != tt.stamp {
					t.Errorf("msg %q level %q stamp %q, want %q %q %q", p.Msg, p.Level, p.Stamp, tt.msg, tt.level, tt.stamp)
				}
			}
		})
	}
}

// hostMemoryLines are host allocation failures and CUDA's initialisation
// error as the servers print them.
var hostMemoryLines = []struct {
	name, server, line, rule string
	cause                    v.Cause
}{
	// Ray 2.4x: python/ray/exceptions.py, src/ray/raylet/node_manager.cc.
	{"ray raylet", "vllm", "(raylet) [2026-11-29 10:00:00,123 E 1234 1234] (raylet) node_manager.cc:3084: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 4b3c, IP: 10.0.0.5) over the last time period.", "ray.memory_monitor", v.HostOOM},
	{"ray exception", "vllm", "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.", "ray.memory_monitor", v.HostOOM},
	{"unable to allocate CPU buffer", "llamacpp", "0.00.417.000 E llama_model_load: error loading model: unable to allocate CPU buffer", "ggml.host_buffer", v.HostOOM},
	{"a GPU buffer stays gpu_oom", "llamacpp", "0.00.417.000 E llama_model_load: error loading model: unable to allocate CUDA0 buffer", "llamacpp.alloc", v.GPUOOM},
	// torch c10/cuda/CUDAFunctions.cpp, torch 2.x.
	{"cuda 802", "sglang", "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized", "cuda.init", v.CUDA},
	{"generic exiting", "", "exiting due to unrecoverable error in worker", "generic.exiting_due_to", ""},
}

// TestHostMemoryAndCUDAInit: other host allocation failures and CUDA's
// initialisation error, whichever server prints them.
func TestHostMemoryAndCUDAInit(t *testing.T) {
	tests := hostMemoryLines
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Lookup(tt.server).Classify(tt.line)
			if c.Failure == nil || c.Failure.ID != tt.rule || c.Failure.Cause != tt.cause {
				t.Fatalf("got %+v, want rule %s cause %q", c.Failure, tt.rule, tt.cause)
			}
		})
	}
	// The warning torch prints first is no failure by itself.
	w := Lookup("sglang").Classify("/usr/lib/python3/dist-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized (Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)")
	if w.Failure != nil || !w.Benign {
		t.Errorf("the UserWarning: got failure %+v benign %v, want a benign line", w.Failure, w.Benign)
	}
}

// TestLlamaCppDetect: a llama-server log is known by its first line.
func TestLlamaCppDetect(t *testing.T) {
	for _, line := range []string{
		"0.00.004.892 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)",
		"0.00.010.454 E srv  llama_server: exiting due to HTTP server error",
	} {
		if got := DetectLog(line); got != "llamacpp" {
			t.Errorf("DetectLog(%q) = %q, want llamacpp", line, got)
		}
	}
}

// TestQuietFlag: the flags that silence llama-server are read as written,
// with their values, and mean nothing to a server that has none.
func TestQuietFlag(t *testing.T) {
	tests := []struct {
		name   string
		server string
		argv   []string
		want   string
	}{
		{"disable", "llamacpp", []string{"llama-server", "-m", "x.gguf", "--log-disable"}, "--log-disable"},
		{"verbosity zero", "llamacpp", []string{"llama-server", "-lv", "0"}, "-lv 0"},
		{"verbosity zero joined", "llamacpp", []string{"llama-server", "--log-verbosity=0"}, "--log-verbosity 0"},
		{"verbosity three", "llamacpp", []string{"llama-server", "-lv", "3"}, ""},
		{"log file", "llamacpp", []string{"llama-server", "--log-file", "s.log", "-m", "x"}, "--log-file s.log"},
		{"none", "llamacpp", []string{"llama-server", "-m", "x.gguf"}, ""},
		{"another server", "vllm", []string{"vllm", "serve", "m", "--log-disable"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Lookup(tt.server).QuietFlag(tt.argv); got != tt.want {
				t.Errorf("QuietFlag(%q) = %q, want %q", tt.argv, got, tt.want)
			}
		})
	}
	if h := Lookup("llamacpp").StallHint(v.CUDAGraph); !strings.Contains(h, "gdb -p PID") {
		t.Errorf("llamacpp's stall hint for an unlisted phase = %q", h)
	}
	if h := Lookup("vllm").StallHint(v.Weights); h != "" {
		t.Errorf("vllm has a stall hint of its own: %q", h)
	}
}
