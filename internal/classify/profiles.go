package classify

import (
	"strings"
	"sync"

	"vigil/internal/litset"
	v "vigil/internal/verdict"
)

// Profile is what vigil knows about one server kind.
type Profile struct {
	Name        string
	DefaultPort int
	// PortEnv and HostEnv name the environment variables the server reads
	// its port and host from when no flag gives them (llama-server's
	// LLAMA_ARG_PORT, as its container images set).
	PortEnv, HostEnv string
	// SocketFlag is the flag that puts the server on a Unix socket
	// (vLLM's --uds PATH); HostSocket: a host ending in ".sock" is one
	// (llama-server's --host PATH.sock).
	SocketFlag string
	HostSocket bool
	// PrefixFlag (or the variable PrefixEnv) names the path the server
	// serves every route under (llama-server's --api-prefix /llm: its
	// health is /llm/health): the guessed URL ends with it.
	PrefixFlag, PrefixEnv string
	// HealthPath is the endpoint whose 200 means the server serves.
	HealthPath string
	// Order is the order in which the server passes through phases.
	Order []v.Phase
	// Phases are phase markers; the first match wins.
	Phases []PhaseRule
	// ProgressPhases map a progress bar's description to a phase.
	ProgressPhases []PhaseRule
	// Failures are this server's own failure lines, checked before the
	// common library-level rules.
	Failures []FailureRule
	// Notable are this server's warnings that change results or speed,
	// checked before the common ones (notable.go).
	Notable []NotableRule
	// Ready lines say the server finished starting.
	Ready []Matcher
	// NoHTTPReady lines say the server finished starting and serves no
	// HTTP at all (trtllm-serve --grpc): no health endpoint will answer,
	// so the line alone is readiness. NoHTTPFlag is the command-line flag
	// that picks that mode.
	NoHTTPReady []Matcher
	NoHTTPFlag  string
	// MemberReady are literals that say a non-serving member of a
	// multi-node start (`vigil --member`, a node of rank > 0) finished
	// starting, where it never prints a ready line of its own.
	MemberReady []string
	// ReadyNeedsLine: a health 200 alone is not readiness (SGLang answers
	// 200 before its warmup on older versions, and /v1/models always).
	ReadyNeedsLine bool
	// LogLevelFlag is the flag that sets the server's log level; above
	// info it hides the ready line, and a health 200 has to do (SGLang's
	// documented "--log-level warning" start).
	LogLevelFlag string
	// Detect are literals that identify the server in its log.
	Detect []string
	// ServingOnly are literals of lines only a started server prints: a
	// log that begins with one begins mid-serving (a pasted crash, a
	// rotated file), so its first line is readiness already passed.
	ServingOnly []string
	// Replays are literals of a line after which the server prints a
	// child process's output that it kept until then (TGI's launcher, a
	// failed shard's whole standard error): the stamps that follow, back
	// before that line, are the child's, not a new start's.
	Replays []string
	// QuietFlags are the command-line flags that keep the server's log
	// from its output (llama-server's --log-disable, -lv 0, --log-file F):
	// a failure with no error line under one of them is best rerun
	// without it. Each is "flag" (given at all), "flag value" (that
	// value) or "flag *" (any value).
	QuietFlags []string
	// PoolingFlags start the server with a model that generates no text,
	// an embedding model or a classifier (vLLM's --runner pooling,
	// SGLang's --is-embedding, llama-server's --embeddings); RankingFlags
	// with a reranker (llama-server's --rerank). Their answers are judged
	// through the embeddings or rerank API (a reranker's first). The form
	// is QuietFlags'. PoolingEnv and RankingEnv are the variables that do
	// the same when set to a true value (llama.cpp's
	// LLAMA_ARG_EMBEDDINGS=1).
	PoolingFlags, RankingFlags []string
	PoolingEnv, RankingEnv     []string
	// SilentExitHint is the hint of an exit with an error status and no
	// error line when no quiet flag explains it (llama-server's logger
	// thread, which an early exit does not wait for).
	SilentExitHint string
	// StallHints say where to look when the server stops making progress
	// in a phase, over the common hints; the "" entry covers the phases
	// not listed (llama-server is native code: no py-spy).
	StallHints map[v.Phase]string
}

var sglang = &Profile{
	Name: "sglang", DefaultPort: 30000, HealthPath: "/health", ReadyNeedsLine: true, LogLevelFlag: "--log-level",
	// server_args.py: --is-embedding (an embedding architecture is one
	// without it; /model_info then says is_generation false).
	PoolingFlags: []string{"--is-embedding"},
	// managers/scheduler_metrics_mixin.py log_decode_stats: every
	// --decode-log-interval (40) decode steps, which its warmup request
	// (8 new tokens) never reaches: a request being served.
	ServingOnly: []string{"Decode batch. #running-req: "},
	Order:       []v.Phase{v.Launch, v.Init, v.Distributed, v.Weights, v.KVCache, v.Compile, v.CUDAGraph, v.Serving, v.Warmup, v.PhaseReady},
	Phases: append([]PhaseRule{
		{ID: "sglang.phase.server_args", Matcher: re("server_args=ServerArgs(|server_args={'", `server_args=(ServerArgs\(|\{')`), Phase: v.Init},
		{ID: "sglang.phase.attention_backend", Matcher: lit("Attention backend not"), Phase: v.Init},
		{ID: "sglang.phase.chat_template", Matcher: lit("chat template"), Phase: v.Init},
		{ID: "sglang.phase.init_distributed", Matcher: re("Init ", `^Init (torch distributed|nccl) (begin|ends)`), Phase: v.Distributed},
		// distributed/device_communicators/pynccl.py (0.4-0.5.x), rank 0,
		// as its NCCL communicator is made: a hang in NCCL's setup stops
		// right after it.
		{ID: "sglang.phase.nccl_version", Matcher: lit("sglang is using nccl=="), Phase: v.Distributed},
		// torch.distributed's Gloo groups, made beside NCCL's as
		// init_distributed_environment runs ("[Gloo] Rank 0 is connected
		// to 15 peer ranks. Expected number of connected peer ranks is :
		// 15"): a hang of two nodes stops after them. (vLLM prints them
		// unstamped, before its own stamped rank line: there they would
		// date the step by the line before.)
		{ID: "sglang.phase.gloo_connected", Matcher: re("[Gloo] Rank ", `^\[Gloo\] Rank \d+ is connected to \d+ peer ranks`), Phase: v.Distributed},
		{ID: "sglang.phase.load_weight_begin", Matcher: lit("Load weight begin"), Phase: v.Weights},
		{ID: "sglang.phase.weights_format", Matcher: lit("Using model weights format"), Phase: v.Weights},
		{ID: "sglang.phase.local_snapshot", Matcher: lit("Found local HF snapshot"), Phase: v.Weights},
		{ID: "sglang.phase.load_weight_end", Matcher: lit("Load weight end"), Phase: v.KVCache},
		{ID: "sglang.phase.kv_allocated", Matcher: lit("KV Cache is allocated"), Phase: v.KVCache},
		{ID: "sglang.phase.memory_pool_end", Matcher: lit("Memory pool end"), Phase: v.KVCache},
		// DeepGEMM's JIT runs inside the first CUDA graph capture
		// (layers/deep_gemm_wrapper compile_utils: "Entering DeepGEMM JIT
		// Pre-Compile session. It may take a long time (typically 10-20
		// mins)", then "Try DeepGEMM JIT Compiling for ..." and a
		// "DeepGEMM warmup" bar per shape): compile time, after the capture
		// began (Back); the capture's lines then move on from it.
		{ID: "sglang.phase.deepgemm_jit", Matcher: lit("DeepGEMM JIT"), Phase: v.Compile, Back: true},
		{ID: "sglang.phase.flashinfer_autotune", Matcher: lit("Running FlashInfer autotune"), Phase: v.Compile},
		{ID: "sglang.phase.compiling_graph", Matcher: re("Compiling a graph", `^Compiling a graph for`), Phase: v.Compile},
		{ID: "sglang.phase.capture_graph", Matcher: re("graph begin|graph bs", `^Capture .*(?i:cuda|cpu|npu|xpu|piecewise) graph (begin|bs)`), Phase: v.CUDAGraph},
		{ID: "sglang.phase.uvicorn_running", Matcher: re("Uvicorn running on", `Uvicorn running on`), Phase: v.Serving},
		{ID: "sglang.phase.started_process", Matcher: lit("Started server process"), Phase: v.Serving},
		{ID: "sglang.phase.startup_complete", Matcher: lit("Application startup complete"), Phase: v.Serving},
		{ID: "sglang.phase.granian", Matcher: lit("Starting embedded Granian"), Phase: v.Serving},
		{ID: "sglang.phase.warmup_request", Matcher: re("model_info HTTP|POST /generate HTTP|POST /v1/chat/completions HTTP|POST /encode HTTP", `"(GET /(get_)?model_info|POST /generate|POST /v1/chat/completions|POST /encode) HTTP`), Phase: v.Warmup},
		{ID: "sglang.phase.prefill_batch", Matcher: re("Prefill batch", `^Prefill batch[ .,\[]`), Phase: v.Warmup},
		{ID: "sglang.phase.disagg_warmup", Matcher: lit("disaggregation warmup"), Phase: v.Warmup},
	}, ncclPhases...),
	ProgressPhases: []PhaseRule{
		{ID: "sglang.bar.shards", Matcher: fold("shards"), Phase: v.Weights},
		{ID: "sglang.bar.loader", Matcher: fold("loader"), Phase: v.Weights},
		{ID: "sglang.bar.streamer", Matcher: fold("model streamer"), Phase: v.Weights},
		{ID: "sglang.bar.deepgemm", Matcher: lit("DeepGEMM"), Phase: v.Compile, Back: true},
		{ID: "sglang.bar.compiling", Matcher: lit("Compiling num tokens"), Phase: v.Compile},
		{ID: "sglang.bar.capturing", Matcher: fold("capturing"), Phase: v.CUDAGraph},
	},
	Failures: []FailureRule{
		// model_executor/model_runner.py load_model (0.4-0.5.x; later
		// load_model_utils.py): the barrier after the weights timed out on
		// this rank because another did not get there; that rank's own
		// error, when the log has it, is the root.
		{ID: "sglang.other_rank_load", Matcher: lit("could finish the model loading, but there are other ranks that didn't finish loading"), Cause: v.Exception, Reached: v.Weights, Title: "another rank did not finish loading the model",
			Hint: "look above for the first error of another TP rank (often a CUDA OOM or a missing file); if there is none, a rank loads slowly (a slow node or filesystem): the barrier waits UNBALANCED_MODEL_LOADING_TIMEOUT_S (300 s)"},
		// model_executor/model_runner.py load_model (0.3-0.5.x): a GPU
		// before Turing (sglang#931).
		{ID: "sglang.min_sm", Matcher: lit("SGLang only supports sm75 and above"), Cause: v.Config, Reached: v.Weights, Title: "SGLang does not run on a GPU older than sm75 (Turing)",
			Hint: "SGLang needs compute capability 7.5 or newer (T4, RTX 20xx and later): run it on such a GPU, or serve the model with a server that supports this one"},
		// model_executor/model_runner.py init_memory_pool (0.4-0.5.x): "Not
		// enough memory. Please try to increase --mem-fraction-static";
		// mem_cache/memory_pool.py (0.5.x, hybrid models): "state cache is
		// too small to serve any requests"; the tp worker's asserts once
		// the pool is made (0.3-0.5.x): "Memory pool size is too small",
		// "max_running_request is zero".
		{ID: "sglang.kv_pool", Matcher: re("Not enough memory. Please try to increase --mem-fraction-static|leave no GPU memory for the KV cache|state cache is too small|Memory pool size is too small|max_running_request is zero", `Not enough memory\. Please try to increase --mem-fraction-static|leave no GPU memory for the KV cache|state cache is too small to serve any requests|Memory pool size is too small|max_running_request is zero`), Cause: v.GPUOOM, Reached: v.KVCache, Title: "not enough GPU memory left for the KV cache",
			Hint: "raise --mem-fraction-static{flag:--mem-fraction-static} (the share of GPU memory for weights + KV cache), or lower --max-running-requests / --context-length; with speculative decoding the draft model's weights count too"},
		// model_executor/cuda_graph_runner.py (0.4-0.5.x): "Capture cuda
		// graph failed: {e}" (0.5.x also "Capture <kind> graph failed").
		{ID: "sglang.graph_oom", Matcher: re("graph failed", `Capture .*graph failed: .*(out of memory|OutOfMemory)`), Cause: v.GPUOOM, Title: "out of GPU memory while capturing CUDA graphs",
			Hint: "lower --mem-fraction-static or --cuda-graph-max-bs, or disable CUDA graphs for the largest batch sizes"},
		// entrypoints/engine.py _launch_subprocesses (0.5.x): "Rank N
		// scheduler died during initialization (exit code: C)"; the
		// subprocess liveness monitor (0.5.x): "Subprocess X (pid=N)
		// crashed with exit code C".
		// entrypoints/http_server.py _wait_and_warmup (0.3-0.5): the
		// warmup's GET of its own /model_info answered by a gateway, not
		// by SGLang: an HTTP proxy in the environment caught the request
		// (sglang#16855).
		{ID: "sglang.warmup_proxy", Matcher: re("res=<Response [", `AssertionError: res=<Response \[(?:502|504|407)\]>`), Cause: v.Config, Title: "the warmup request to the server's own port went through an HTTP proxy",
			Hint: "the server asks itself for /model_info and a proxy answered: set no_proxy=127.0.0.1,localhost (and the --host you use), or unset http_proxy/https_proxy for the server"},
		// The same messages with another signal: -6 SIGABRT, -11 SIGSEGV
		// (a native abort on ROCm, gpustack#5568). Not -3: a scheduler that
		// failed sends SIGQUIT to its parent, which with data parallelism
		// is the first "scheduler" (a DP controller), so its error is
		// elsewhere; nor -15, a stop.
		{ID: "sglang.scheduler_signaled", Matcher: re("exit code: -|exit code -", `(scheduler died during initialization \(exit code: -(?:[124-8]|1[0-46-9]|[2-9]\d)\)|crashed with exit code -(?:[124-8]|1[0-46-9]|[2-9]\d)\b)`), Cause: v.Crash, Fatal: true, Title: "a scheduler died by a signal",
			Hint: "a native crash in the scheduler (the exit code is minus the signal: -6 abort, -11 segfault): the lines above it name the component; check the GPU stack's versions (CUDA/ROCm, torch, the kernels) and dmesg"},
		{ID: "sglang.scheduler_killed", Matcher: re("exit code: -9)|exit code -9", `(scheduler died during initialization \(exit code: -9\)|crashed with exit code -9\b)`), Cause: v.HostOOM, Fatal: true, Title: "a scheduler was killed (SIGKILL), most likely by the kernel's OOM killer",
			Hint: "the host ran out of memory: check `dmesg -T | grep -i oom`; load weights with fewer threads (or without multi-threaded loading), lower host memory use, or add RAM/swap"},
		{ID: "sglang.scheduler_died", Matcher: re("died during initialization", `scheduler died during initialization \(exit code: -?\d+\)`), Cause: "", Fatal: true, Title: "a scheduler process died during initialization"},
		// managers/tokenizer_manager.py (0.4-0.5.x).
		{ID: "sglang.scheduler_dead", Matcher: re("scheduler is dead", `Rank \d+ scheduler is dead`), Fatal: true, Title: "a scheduler process died"},
		{ID: "sglang.subprocess_crashed", Matcher: re("crashed with exit code", `^Subprocess \S+ \(pid=\d+\) crashed with exit code`), Fatal: true, Title: "a server subprocess crashed"},
		// managers/scheduler.py, detokenizer_manager.py,
		// data_parallel_controller.py, tokenizer_manager.py (0.4-0.5.x):
		// "<Process> hit an exception: <traceback>".
		{ID: "sglang.child_exception", Matcher: re("hit an exception", `(Scheduler|DetokenizerManager|DataParallelController|TokenizerManager|TokenizerWorker) hit an exception`), Fatal: true, Title: "a server process raised an exception"},
		// entrypoints/engine.py (0.4-0.5.x) and the SIGQUIT handler.
		// speculative/eagle_worker.py EAGLEWorker.__init__ (0.4.x-0.5.x):
		// the draft model loaded is no EAGLE3 draft (without
		// --speculative-draft-model-path it is the target itself).
		{ID: "sglang.eagle3_not_a_draft", Matcher: re("object has no attribute '", `object has no attribute '(set_embed|hot_token_id|set_embed_and_head)'`), Cause: v.Config, Title: "the EAGLE3 draft model is not an EAGLE3 draft",
			Hint: "pass --speculative-draft-model-path with an EAGLE3 draft trained for this target model"},
		// mem_cache/mamba_radix_cache.py MambaRadixCache.__init__ (0.5.x).
		{ID: "sglang.mamba_page_size", Matcher: lit("Page size must be 1 for MambaRadixCache"), Cause: v.Config, Title: "the hybrid (Mamba) model's radix cache needs page size 1",
			Hint: "drop --page-size, use --mamba-scheduler-strategy extra_buffer, or --disable-radix-cache"},
		// model_loader/utils.py resolve_transformers_arch (0.4.x-0.5.x): no
		// native class, and the Transformers fallback does not fit.
		{ID: "sglang.arch_no_impl", Matcher: re("is not compatible with SGLang", `has no SG[Ll]ang implementation and (the Transformers implementation )?is not compatible with SGLang|The Transformers implementation of \S+ is not compatible with SGLang`), Cause: v.Config, Title: "the model architecture has no implementation in this SGLang build",
			Hint: "upgrade SGLang (or use the image for this device) that registers the architecture, or serve a supported one; an earlier 'Ignore import error when loading sglang.srt.models...' line names a native class that failed to import"},
		// models/transformers.py TransformersForCausalLM.forward (0.4.x-0.5.x).
		{ID: "sglang.embedding_unsupported", Matcher: lit("embedding is not supported yet"), Cause: v.Config, Title: "this model's implementation cannot serve embeddings (--is-embedding)",
			Hint: "the architecture runs through the Transformers fallback, which has no pooling: drop --is-embedding, or use a release with a native classification or reward class for it"},
		// managers/template_manager.py (openai_api/adapter.py before 0.4).
		// srt/layers/flashinfer_comm_fusion.py _resolve_backend (2026):
		// the fused allreduce needs Hopper or Blackwell, and Blackwell for
		// more than one node.
		{ID: "sglang.allreduce_fusion", Matcher: re("FlashInfer allreduce fusion ", `^ValueError: FlashInfer allreduce fusion (?:requires|does not support|\S+ backend supports)`), Cause: v.Config, Title: "FlashInfer's allreduce fusion does not run on this GPU or setup",
			Hint: "it needs SM90 (Hopper) or SM10x (Blackwell) GPUs, and Blackwell across nodes: start without --enable-flashinfer-allreduce-fusion, or choose a --flashinfer-allreduce-fusion-backend this setup supports"},
		{ID: "sglang.chat_template", Matcher: re("is not a built-in template name", `Chat template \S+ is not a built-in template name or a valid chat template file path`), Cause: v.Config, Title: "--chat-template names neither a built-in template nor a file",
			Hint: "give a built-in template name or an existing .jinja / .json path (relative to the server's working directory)"},
		// srt/entrypoints/engine.py _launch_subprocesses, a node of rank
		// 1 or more (and data_parallel_controller.py): it joins its
		// schedulers and reports each one's exit code once it ended.
		{ID: "sglang.scheduler_exited", Matcher: re("Scheduler or DataParallelController ", `^Scheduler or DataParallelController \d+ terminated with (?:[1-9]\d*|-\d+)$`), Cause: v.Crash, Fatal: true, Title: "a scheduler process exited"},
		// srt/managers/*_manager.py init_ipc_channels: the tokenizer,
		// scheduler and detokenizer talk over ZMQ sockets, TCP ones on
		// the ports after --dist-init-addr's (server_args.py PortArgs, with
		// several nodes or DP attention), and a process left from an
		// earlier start may hold one (a ROCm PD prefill node, 2026).
		{ID: "sglang.zmq_port", Matcher: re("ZMQError", `ZMQError: Address already in use`), Cause: v.PortInUse, Fatal: true, Title: "a port of SGLang's own ZMQ sockets is already taken",
			Hint: "a process from an earlier start (or another SGLang on this host) holds the port in the message: find it with `ss -ltnp` and stop it, or move --dist-init-addr's port (SGLang takes the few ports after it)"},
		{ID: "sglang.sigquit", Matcher: re("Received sigquit from a child proces|SIGQUIT received", `Received sigquit from a child proces|^SIGQUIT received`), Fatal: true, KillsOwn: true, Title: "a child process failed and the launcher is killing the server"},
		// entrypoints/http_server.py _wait_and_warmup (0.4-0.5.x):
		// "Initialization failed. warmup error: ...".
		// (Then kill_process_tree(os.getpid()): the launcher SIGKILLs its
		// own tree, and a shell's "Killed" is no sign of the host's memory.)
		{ID: "sglang.init_failed", Matcher: re("Initialization failed", `^Initialization failed\.`), Fatal: true, KillsOwn: true, Title: "initialization failed"},
		// entrypoints/http_server.py _execute_server_warmup (0.4-0.5.x)
		// asserts its own warmup request's status: "AssertionError:
		// <Response [400]>", later "res=<Response [400]>, res.text=...".
		// The server is up and refused the request: a setting it does not
		// fit (a --context-length shorter than the warmup prompt).
		{ID: "sglang.warmup_refused", Matcher: re("<Response [4", `AssertionError: (res=)?<Response \[4\d\d\]>`), Cause: v.Config, Title: "the server refused its own warmup request",
			Hint: "the access line and the text after the status say why: a setting the warmup request does not fit (a --context-length shorter than its prompt, a chat template or tokenizer it fails); --skip-server-warmup starts without it, but real requests will meet the same refusal"},
		// managers/scheduler.py watchdog thread (0.4-0.5.x).
		// It fires when a batch ran and the forward count did not move for
		// --watchdog-timeout seconds, then SIGQUITs the launcher: the
		// warmup's batch or a served one stuck (sglang#3752).
		{ID: "sglang.watchdog", Matcher: re("atchdog timeout", `[Ww]atchdog timeout \(`), Cause: v.Crash, Fatal: true, Title: "SGLang's watchdog found a stuck scheduler",
			Hint: "a forward made no progress for --watchdog-timeout seconds, most often a collective that one rank never joined or a kernel that hangs: run py-spy dump on the scheduler processes while it hangs, check NCCL between the GPUs (NCCL_DEBUG=INFO), and raise --watchdog-timeout only if one step really takes that long"},
		// srt/utils.py wait_port_available (0.4-0.5.x): "{port_name} at
		// {port} is not available in {timeout} seconds".
		{ID: "sglang.port_check", Matcher: re("Port is already in use|is not available in", `Port is already in use|at \d+ is not available in \d+ seconds`), Cause: v.PortInUse, Fatal: true, Title: "a port SGLang needs is already taken",
			Hint: "another process holds the port: stop it or choose other ports (--port, --nccl-port, --dist-init-addr)"},
	},
	Notable: sglangNotable,
	// entrypoints/http_server.py _wait_and_warmup (0.4-0.5.x). Ranks > 0
	// of a multi-node start (--node-rank N) never print it: once their
	// schedulers are ready, entrypoints/engine.py starts
	// srt/utils.py launch_dummy_health_check_server, which says so (0.4.x
	// "scheduled on existing loop", 0.5.x "started in background thread";
	// without a running event loop, as under launch_server, "Starting
	// dummy health check server at", 0.4-0.5.x).
	Ready: []Matcher{lit("The server is fired up and ready to roll!"),
		lit("Dummy health check server scheduled on existing loop at"),
		lit("Dummy health check server started in background thread at"),
		lit("Starting dummy health check server at")},
	// (The model runner's own lines too: a log may start after the
	// arguments, as a pod's log that rotated does; and a pasted tail's:
	// a traceback through srt/, managers/scheduler.py's "Scheduler hit an
	// exception", entrypoints/engine.py's sigquit_handler,
	// entrypoints/http_server.py's warmup failure.)
	Detect: []string{"server_args=ServerArgs(", "server_args={'", "The server is fired up and ready to roll", "sglang.srt", "sglang/srt/", "launch_server.py", "Load weight begin. avail mem=", "max_total_num_tokens=",
		"Scheduler hit an exception", "Received sigquit from a child process", "Initialization failed. warmup error",
		// The model runner's steps and its ranks' tag ("[2025-07-02
		// 07:41:59 DP0 TP0] ").
		"Load weight end.", "KV Cache is allocated.", "Memory pool end. avail mem=", " TP0] ",
		// Its memory pool's error names its own flag; its NCCL line itself.
		"Please try to increase --mem-fraction-static", "sglang is using nccl=="},
}

var vllm = &Profile{
	Name: "vllm", DefaultPort: 8000, HealthPath: "/health",
	// entrypoints/openai/cli_args.py (0.9+): --uds, then no TCP port.
	SocketFlag: "--uds",
	// config/model.py: the pooling runner, a model converted to one, and
	// the older --task of a pooling model (an embedding architecture is
	// one without any: its generation routes are then not registered).
	PoolingFlags: []string{"--runner pooling", "--convert embed", "--convert classify", "--convert reward",
		"--task embed", "--task embedding", "--task classify", "--task reward"},
	RankingFlags: []string{"--task score"},
	// A headless node (`vllm serve --headless`) runs no API server: its
	// data-parallel engines end their start with the engine core's "init
	// engine ... took" (v1/engine/core.py), its tensor- or pipeline-
	// parallel workers with the model runner's "Graph capturing finished"
	// (v1/worker/gpu_model_runner.py).
	MemberReady: []string{"init engine (profile, create kv cache, warmup model) took", "Graph capturing finished in"},
	Order:       []v.Phase{v.Launch, v.Init, v.Distributed, v.Weights, v.Compile, v.KVCache, v.CUDAGraph, v.Warmup, v.Serving, v.PhaseReady},
	Phases: append([]PhaseRule{
		{ID: "vllm.phase.launch_version", Matcher: re("vLLM API server version|vLLM server version", `vLLM (API )?server version`), Phase: v.Launch},
		{ID: "vllm.phase.non_default_args", Matcher: lit("non-default args:"), Phase: v.Init},
		{ID: "vllm.phase.args_namespace", Matcher: lit("args: Namespace("), Phase: v.Init},
		{ID: "vllm.phase.resolved_arch", Matcher: lit("Resolved architecture"), Phase: v.Init},
		{ID: "vllm.phase.llm_engine", Matcher: re("LLM engine", `^Initializing an? (V[01] )?LLM engine`), Phase: v.Init},
		{ID: "vllm.phase.multiple_tasks", Matcher: lit("This model supports multiple tasks"), Phase: v.Init},
		{ID: "vllm.phase.world_size", Matcher: re("world_size=", `world_size=\d+ rank=\d+`), Phase: v.Distributed},
		{ID: "vllm.phase.nccl_version", Matcher: lit("vLLM is using nccl=="), Phase: v.Distributed},
		{ID: "vllm.phase.nccl_library", Matcher: re("Found nccl from", `Found nccl from (library|environment variable)`), Phase: v.Distributed},
		{ID: "vllm.phase.rank_assigned", Matcher: re("is assigned as", `in world size \d+ is assigned as`), Phase: v.Distributed},
		{ID: "vllm.phase.start_load", Matcher: lit("Starting to load model"), Phase: v.Weights},
		{ID: "vllm.phase.load_from_scratch", Matcher: lit("Loading model from scratch"), Phase: v.Weights},
		{ID: "vllm.phase.weights_format", Matcher: lit("Using model weights format"), Phase: v.Weights},
		{ID: "vllm.phase.download_time", Matcher: lit("Time spent downloading weights"), Phase: v.Weights},
		{ID: "vllm.phase.checkpoint_fs", Matcher: lit("Filesystem type for checkpoints"), Phase: v.Weights},
		{ID: "vllm.phase.loading_weights_took", Matcher: lit("Loading weights took"), Phase: v.Weights},
		{ID: "vllm.phase.model_loading_took", Matcher: re("Model loading took|Loading model weights took", `^(Model loading took|Loading model weights took)`), Phase: v.Compile},
		{ID: "vllm.phase.compile_cache", Matcher: lit("for vLLM's torch.compile"), Phase: v.Compile},
		{ID: "vllm.phase.dynamo_transform", Matcher: lit("Dynamo bytecode transform time"), Phase: v.Compile},
		// (The memory profiling run after "torch.compile took N s in total"
		// stays compile: its first forwards JIT-compile Triton's and
		// FlashInfer's kernels, and a kernel that fails to build there is
		// a compile failure, vllm#26431.)
		{ID: "vllm.phase.compile_graph", Matcher: re("Compiling a graph for|Directly load the compiled graph|torch.compile t|Cache the graph", `^Compiling a graph for|^Directly load the compiled graph|^torch\.compile (takes|took)|^Cache the graph`), Phase: v.Compile},
		// compilation/monitor.py (0.11+): the profiling run that sizes the KV cache.
		{ID: "vllm.phase.profiling_run", Matcher: lit("Initial profiling/warmup run took"), Phase: v.KVCache},
		// compilation/decorators.py (0.12+): torch.compile's AOT artefacts.
		{ID: "vllm.phase.aot_saved", Matcher: re("saved AOT compiled function", `^saved AOT compiled function`), Phase: v.Compile},
		{ID: "vllm.phase.kv_cache_size", Matcher: re("Available KV cache memory|GPU KV cache size|Maximum concurrency for", `^Available KV cache memory|^GPU KV cache size|^Maximum concurrency for`), Phase: v.KVCache},
		{ID: "vllm.phase.kv_blocks", Matcher: re("blocks: ", `^# (GPU|CUDA|\w+) blocks:`), Phase: v.KVCache},
		{ID: "vllm.phase.memory_profiling", Matcher: lit("Memory profiling takes"), Phase: v.KVCache, Lasted: v.KVCache},
		{ID: "vllm.phase.graph_memory", Matcher: re("CUDA graph memory", `^(Profiling|Estimated) CUDA graph memory`), Phase: v.KVCache},
		// worker/model_runner.py capture_model (V0, 0.4-0.6: "Capturing the
		// model for CUDA graphs. This may lead to unexpected consequences
		// ...", then "Capturing cudagraphs for decoding.").
		{ID: "vllm.phase.capturing_graphs", Matcher: re("Capturing cudagraphs|Capturing CUDA graph|Capturing the model for CUDA graphs", `^Capturing cudagraphs|^Capturing CUDA graph|^Capturing the model for CUDA graphs`), Phase: v.CUDAGraph},
		// v1/worker/gpu_model_runner.py capture_model (2026): the first line
		// of the capture on every rank (the capture bars are the first
		// rank's, and only when it draws bars).
		{ID: "vllm.phase.capture_start", Matcher: re("for CUDA graph capture", `Torch profiler (dis|en)abled for CUDA graph capture`), Phase: v.CUDAGraph},
		// v1/worker/gpu_model_runner.py capture_model, then gpu_worker.py
		// compile_or_warm_up_model warms the sampler up (_dummy_sampler_run).
		{ID: "vllm.phase.graphs_captured", Matcher: lit("Graph capturing finished"), Phase: v.Warmup, Lasted: v.CUDAGraph},
		// v1/worker/gpu_worker.py compile_or_warm_up_model compiles the
		// extra sizes and tunes the kernels (warmup/kernel_warmup.py:
		// FlashInfer's autotune, DeepGEMM's JIT) before capture_model:
		// compile work, after the KV cache (Back), for minutes on a big
		// model (two users' logs, 2026: 4 and 14 minutes that read as the
		// KV cache's). The capture's lines then move on from it.
		{ID: "vllm.phase.flashinfer_warmup", Matcher: re("Warming up FlashInfer|FlashInfer autotune|Compile and warming up model", `^Warming up FlashInfer|FlashInfer autotune|^Compile and warming up model`), Phase: v.Compile, Back: true},
		{ID: "vllm.phase.init_engine_took", Matcher: lit("init engine (profile, create kv cache, warmup model) took"), Phase: v.Warmup},
		{ID: "vllm.phase.starting_server", Matcher: re("Starting vLLM", `^Starting vLLM (API )?server`), Phase: v.Serving},
		// entrypoints/openai/api_server.py build_and_serve: the tasks, then
		// the multimodal and chat-template warmups (minutes for a big
		// processor), then "Starting vLLM server on".
		{ID: "vllm.phase.supported_tasks", Matcher: re("Supported_tasks|Supported tasks", `^Supported[_ ]tasks`), Phase: v.Warmup},
		{ID: "vllm.phase.routes", Matcher: lit("Available routes are"), Phase: v.Serving},
		{ID: "vllm.phase.started_process", Matcher: lit("Started server process"), Phase: v.Serving},
		{ID: "vllm.phase.startup_complete", Matcher: lit("Application startup complete"), Phase: v.Serving},
	}, ncclPhases...),
	ProgressPhases: []PhaseRule{
		{ID: "vllm.bar.shards", Matcher: fold("shards"), Phase: v.Weights},
		{ID: "vllm.bar.loader", Matcher: fold("loader"), Phase: v.Weights},
		{ID: "vllm.bar.streamer", Matcher: fold("model streamer"), Phase: v.Weights},
		// model_executor/warmup/deep_gemm_warmup.py (0.10+) names its bars
		// "DeepGemm(fp8_gemm_nt) warmup (W=...)": JIT before the capture
		// (see vllm.phase.flashinfer_warmup).
		{ID: "vllm.bar.deepgemm", Matcher: fold("deepgemm"), Phase: v.Compile, Back: true},
		// No "capturing" bar rule: vLLM's capture bars ("Capturing CUDA
		// graphs (...)", V0 "Capturing CUDA graph shapes") all start with
		// vllm.phase.capturing_graphs, which shadowed it.
	},
	Failures: []FailureRule{
		// v1/core/kv_cache_utils.py (0.8-0.12) and worker/worker.py (V0):
		// "No available memory for the cache blocks"; v1/worker/gpu_worker.py
		// (0.9-0.12): "Free memory on device ... is less than desired GPU
		// memory utilization"; kv_cache_utils.py _auto_fit_max_model_len
		// (--max-model-len auto): "Cannot auto-fit max_model_len: not
		// enough GPU memory available to serve even a single token".
		// v1/worker/gpu_worker.py init_device: less is free than the
		// utilization asks for, before any cache is sized; vLLM's own advice
		// is to lower it, not raise it.
		{ID: "vllm.startup_free_memory", Matcher: lit("on startup is less than desired GPU memory utilization"), Cause: v.GPUOOM, Title: "less GPU memory is free at startup than --gpu-memory-utilization asks for",
			Hint: "another process holds GPU memory (nvidia-smi): stop it, or lower --gpu-memory-utilization{flag:--gpu-memory-utilization} to at most the free share the message shows (free/total)"},
		{ID: "vllm.kv_blocks", Matcher: re("No available memory for the cache blocks|Cannot auto-fit max_model_len", `No available memory for the cache blocks|Cannot auto-fit max_model_len`), Cause: v.GPUOOM, Reached: v.KVCache, Title: "not enough GPU memory for the KV cache",
			Hint: "raise --gpu-memory-utilization{flag:--gpu-memory-utilization}, lower --max-model-len{flag:--max-model-len} or --max-num-seqs, or free GPU memory held by other processes"},
		// v1/worker/gpu_worker.py determine_available_memory (0.8 and
		// later: "Available KV cache memory: %.2f GiB", later "%s GiB"):
		// below zero, the weights and the profiled activations already take
		// more than the utilization allows, and the KV check's ValueError
		// follows (vllm#23278).
		{ID: "vllm.kv_negative", Matcher: re("Available KV cache memory: -", `Available KV cache memory: -\d`), Cause: v.GPUOOM, Reached: v.KVCache, Title: "no GPU memory is left for the KV cache",
			Hint: "the weights and activations take more than --gpu-memory-utilization{flag:--gpu-memory-utilization} allows: raise it, lower --max-model-len{flag:--max-model-len} or --max-num-seqs, quantize, or spread the model over more GPUs"},
		// v1/core/kv_cache_utils.py check_enough_kv_cache_memory (0.8-0.12).
		{ID: "vllm.max_len_kv", Matcher: re("max seq len", `To serve at least one request with the models?'s? max seq len`), Cause: v.GPUOOM, Reached: v.KVCache, Title: "the KV cache cannot hold one request of the maximum length",
			Hint: "lower --max-model-len{flag:--max-model-len} to the estimate in the message, or raise --gpu-memory-utilization{flag:--gpu-memory-utilization}; on vLLM's CPU backend the KV cache is VLLM_CPU_KVCACHE_SPACE (GiB, default 4): raise that instead"},
		// pyzmq, from vLLM's own ZMQ sockets: the NIXL connector's
		// handshake listener (distributed/kv_transfer/kv_connector/v1/
		// nixl_connector.py) binds VLLM_NIXL_SIDE_CHANNEL_PORT, which a
		// second instance on the same host takes too.
		{ID: "vllm.zmq_port", Matcher: re("ZMQError", `ZMQError: Address already in use`), Cause: v.PortInUse, Fatal: true, Title: "a port of the server's own ZMQ sockets is already taken",
			Hint: "another process holds the port in the message (often a second vLLM on the same host): find it with `ss -ltnp` and stop it, or give each instance its own VLLM_NIXL_SIDE_CHANNEL_PORT (NIXL), --port and VLLM_PORT"},
		// worker/worker.py and v1/worker/gpu_worker.py (0.7-0.9).
		{ID: "vllm.profiling", Matcher: lit("Error in memory profiling"), Cause: v.GPUOOM, Title: "GPU memory changed under vLLM while it was profiling",
			Hint: "another process on the GPU released or took memory during startup: run the server alone on its GPUs"},
		// v1/engine/utils.py wait_for_engine_startup (0.8.5-0.12):
		// "Engine core initialization failed. See root cause above. Failed
		// core proc(s): {name: exitcode}".
		{ID: "vllm.engine_failed_9", Matcher: re("Failed core proc", `Failed core proc\(s\): \{[^}]*-9\}`), Cause: v.HostOOM, Fatal: true, Title: "the engine process was killed (SIGKILL), most likely by the kernel's OOM killer",
			Hint: "the host ran out of memory: check `dmesg -T | grep -i oom`; lower host memory use (fewer API servers, smaller swap space --swap-space, no CPU offload)"},
		// v1/executor/multiproc_executor.py wait_for_ready (0.9+): a
		// worker ended before it said it was ready. Its own traceback,
		// when it printed one, comes first and is the account
		// (NoneBefore); without one it was killed (the OOM killer while
		// the weights load, most often).
		{ID: "vllm.worker_init_failed", Matcher: lit("WorkerProc initialization failed due to an exception in a background process"), Cause: v.Crash, Fatal: true, NoneBefore: true, Title: "a worker process died while it started, with no error of its own",
			Hint: "a worker ended without printing an error: check `dmesg -T | grep -i oom` (host memory while the weights load, or a container's memory limit: docker inspect's OOMKilled), /dev/shm (--shm-size), then rerun with VLLM_LOGGING_LEVEL=DEBUG to see its last step"},
		// v1/engine/core.py run_engine_core "EngineCore failed to start.",
		// v1/executor/multiproc_executor.py "WorkerProc failed to start."
		// (0.8-0.12), and the echo above.
		{ID: "vllm.engine_failed", Matcher: re("EngineCore failed to start|Engine core initialization failed|Engine process failed to start|WorkerProc failed to start|WorkerProc initialization failed", `EngineCore failed to start|Engine core initialization failed|Engine process failed to start|WorkerProc failed to start|WorkerProc initialization failed`), Fatal: true, Title: "the engine failed to start"},
		// multiproc_executor.py collective_rpc (0.9-0.12): "Worker failed
		// with error '{result}', please check the stack trace above for the
		// root cause": the quoted error names the cause when the worker's
		// own traceback is not in the log.
		{ID: "vllm.worker_failed", Matcher: lit("Worker failed with error '"), Fatal: true, Quotes: true, Title: "a worker failed"},
		// config/parallel.py ParallelConfig (0.6-0.12): more GPUs asked for
		// than this node has, and no Ray for a multi-node start, raised from
		// the "No module named 'ray'" above it, which is not the root.
		{ID: "vllm.tp_over_gpus", Matcher: lit("which is required for multi-node inference"), Cause: v.Config, Supersedes: "py.import", Title: "the parallel size asks for more GPUs than this node has",
			Hint: "--tensor-parallel-size{flag:--tensor-parallel-size} x --pipeline-parallel-size{flag:--pipeline-parallel-size} is more than the GPUs visible here (nvidia-smi, CUDA_VISIBLE_DEVICES): lower it; for a real multi-node start install Ray and start its cluster first"},
		// v1/engine/core.py (0.7-0.12): "EngineCore encountered a fatal
		// error." (older: "EngineCore hit an exception").
		{ID: "vllm.engine_exception", Matcher: re("EngineCore hit an exception|WorkerProc hit an exception|EngineCore encountered a", `EngineCore hit an exception|WorkerProc hit an exception|EngineCore encountered a fatal error|EngineCore encountered an issue`), Fatal: true, Title: "the engine raised an exception"},
		// v1/engine/core_client.py (0.8-0.9) "Got fatal signal from worker
		// processes"; v1/executor/multiproc_executor.py (0.8-0.9)
		// "MulitprocExecutor got fatal signal from worker processes" (sic).
		{ID: "vllm.fatal_signal", Matcher: lit("Got fatal signal from worker processes|got fatal signal from worker processes"), Fatal: true, Title: "a worker failed and the engine is shutting down"},
		// v1/executor/multiproc_executor.py (0.8-0.12): "Worker proc X died
		// unexpectedly"; executor/multiproc_worker_utils.py (V0, to 0.10):
		// "Worker X pid N died, exit code: C", where -9 is left to mp.exitcode9.
		{ID: "vllm.died", Matcher: re("died unexpectedly|died with exit code|died, exit code", `died unexpectedly|died with exit code|died, exit code: -?(?:[0-8]|\d{2,})\b`), Fatal: true, Title: "a server process died"},
		// vllm config (DeviceConfig, 0.6-0.12): no CUDA, ROCm or other
		// platform was detected.
		{ID: "vllm.no_device", Matcher: lit("Failed to infer device type"), Cause: v.CUDA, Title: "vLLM found no GPU or other accelerator",
			Hint: "check that the GPUs are visible (nvidia-smi, CUDA_VISIBLE_DEVICES, the container's --gpus / runtime) and that the installed vLLM build matches the platform"},
		// vllm config/scheduler.py (0.6-0.12), when chunked prefill is off.
		{ID: "vllm.batched_tokens", Matcher: re("is smaller than max_model_len", `max_num_batched_tokens \(\d+\) is smaller than max_model_len`), Cause: v.Config, Title: "max_num_batched_tokens is below max_model_len",
			Hint: "raise --max-num-batched-tokens{flag:--max-num-batched-tokens}, lower --max-model-len{flag:--max-model-len}, or enable chunked prefill"},
		// platforms/cuda.py CudaPlatform.get_attn_backend_cls (0.12-0.13):
		// no backend, or not the one asked for, fits the model, the KV
		// cache dtype and the GPU; the message lists why each was refused.
		{ID: "vllm.attn_backend", Matcher: re("No valid attention backend found|is not valid for this configuration", `No valid attention backend found for|Selected backend \S+ is not valid for this configuration`), Cause: v.Config, Title: "no attention backend supports this model, KV cache dtype and GPU",
			Hint: "the message's reasons say why each backend was refused: choose another --attention-backend or --kv-cache-dtype, or a GPU and vLLM release that support this model (sparse MLA needs Hopper or Blackwell)"},
		// attention/backends/registry.py (0.11-0.13): an attention backend
		// name (VLLM_ATTENTION_BACKEND, --attention-backend) this build lacks.
		{ID: "vllm.attn_backend_name", Matcher: re("Unknown attention backend", `Unknown attention backend: '[^']*'\. Valid options are:`), Cause: v.Config, Title: "unknown attention backend name",
			Hint: "VLLM_ATTENTION_BACKEND or --attention-backend names a backend this vLLM lacks: unset it or pick one from the list (names change between releases)"},
		// transformers_utils/config.py load_params_config (0.8-0.10):
		// --config-format mistral on a checkpoint without params.json.
		{ID: "vllm.mistral_params", Matcher: lit("mistral 'params.json' config"), Cause: v.Config, Title: "Mistral format asked for, but the model has no params.json",
			Hint: "this checkpoint is in Hugging Face format: drop --tokenizer-mode / --config-format / --load-format mistral, or use the repository that ships params.json"},
		// entrypoints/openai/api_server.py validate_api_server_args
		// (0.8-0.13): a parser name this release does not have.
		// entrypoints/openai/cli_args.py validate_parsed_serve_args.
		{ID: "vllm.tool_choice_parser", Matcher: lit("--enable-auto-tool-choice requires --tool-call-parser"), Cause: v.Config, Fatal: true, Title: "--enable-auto-tool-choice needs a --tool-call-parser",
			Hint: "add --tool-call-parser with the parser for the model's tool-call format (hermes, llama3_json, mistral, qwen3_coder, ...; `vllm serve --help=Frontend` lists them), or drop --enable-auto-tool-choice"},
		// v1/engine/core.py startup_handshake (0.9+): a headless
		// data-parallel engine heard nothing from the API server's node in
		// HANDSHAKE_TIMEOUT_MINS (5).
		{ID: "vllm.dp_handshake", Matcher: lit("Did not receive response from front-end"), Cause: v.NCCL, Title: "the engine never heard from the data-parallel front-end",
			Hint: "the head node (the one with the API server) did not answer at --data-parallel-address / --data-parallel-rpc-port: check that it runs and is reachable (firewall, the address's interface), and that --data-parallel-size, --data-parallel-size-local and --data-parallel-start-rank agree across the nodes"},
		{ID: "vllm.parser_name", Matcher: re("invalid tool call parser|invalid reasoning parser", `invalid (tool call|reasoning) parser: `), Cause: v.Config, Fatal: true, Title: "unknown --tool-call-parser or --reasoning-parser",
			Hint: "pick one of the names the message lists; newer parsers need a newer vLLM"},
		// utils/deep_gemm.py _missing (0.10-0.13): an FP8 path needs DeepGEMM.
		{ID: "vllm.deep_gemm_missing", Matcher: lit("DeepGEMM backend is not available"), Cause: v.Dependency, Title: "the deep_gemm package is missing or too old",
			Hint: "install the DeepGEMM version this vLLM pins (tools/install_deepgemm.sh), or set VLLM_USE_DEEP_GEMM=0 where the model allows"},
		// transformers_utils/config.py get_config (0.7-0.13): the model is
		// neither a Hub id that answers nor a directory with a config.
		{ID: "vllm.invalid_repo", Matcher: lit("Invalid repository ID or local directory specified"), Cause: v.ModelLoad, Title: "the model is neither a reachable Hub id nor a local model directory",
			Hint: "check the path or id, that the directory holds config.json (mount the whole Hugging Face cache, not only snapshots/), HF_HUB_OFFLINE and network access"},
		// lora/worker_manager.py _load_adapter (0.6-0.12): a --lora-modules
		// path with no adapter files (vllm#30690).
		{ID: "vllm.lora_missing", Matcher: lit("No adapter found for"), Cause: v.ModelLoad, Title: "a LoRA adapter was not found",
			Hint: "check the --lora-modules path (it must hold adapter_config.json and the adapter weights, not a training checkpoint directory without them)"},
		// model_executor/layers/quantization/awq.py and gptq.py
		// create_weights (0.4-0.12): a shard's input does not split into
		// whole quantization groups.
		{ID: "vllm.quant_tp_split", Matcher: lit("is not aligned with the quantized weight shape"), Cause: v.Config, Title: "the quantized weights do not split over this many GPUs",
			Hint: "lower --tensor-parallel-size{flag:--tensor-parallel-size} (the shard's input must hold whole quantization groups), or use a checkpoint quantized with a smaller group size"},
		// entrypoints/chat_utils.py validate/load_chat_template (0.10-0.12).
		{ID: "vllm.chat_template_path", Matcher: lit("appears path-like, but doesn't exist"), Cause: v.Config, Title: "the chat template file does not exist",
			Hint: "pass an existing file to --chat-template{flag:--chat-template} (a relative path is read from the server's working directory, inside the container if it runs in one)"},
		// lora/peft_helper.py PEFTHelper.validate_legal (0.8-0.13), through
		// serving_models.py init_static_loras for --lora-modules.
		{ID: "vllm.lora_rank", Matcher: re("max_lora_rank", `LoRA rank \d+ is greater than max_lora_rank \d+`), Cause: v.Config, Title: "the LoRA adapter's rank is above --max-lora-rank",
			Hint: "raise --max-lora-rank{flag:--max-lora-rank} to at least the adapter's rank, or use an adapter of lower rank"},
		// quantization/compressed_tensors/compressed_tensors.py
		// _check_scheme_supported (0.7-0.13); its RuntimeError's arguments
		// print as a tuple.
		{ID: "vllm.quant_scheme_capability", Matcher: re("Quantization scheme is not supported for", `Quantization scheme is not supported for .{0,8}the current GPU\. (Min|Required) capability: \d+`), Cause: v.Config, Title: "this GPU is too old for the checkpoint's quantization scheme",
			Hint: "use a checkpoint quantized for this GPU (GPTQ/AWQ W4A16 run on older GPUs), or a GPU with the capability the message names"},
		// v1/engine/utils.py CoreEngineActorManager (0.9-0.13): data
		// parallel over Ray asks for more GPUs than the cluster has.
		{ID: "vllm.dp_resources", Matcher: re("Not enough resources to allocate", `Not enough resources to allocate (\d+|%s) (placement groups|DP ranks)`), Cause: v.Config, Title: "the Ray cluster has too few GPUs for the data-parallel size",
			Hint: "lower --data-parallel-size{flag:--data-parallel-size} (or the tensor-parallel size), or add GPU nodes to the Ray cluster (ray status)"},
		// executor/ray_utils.py _wait_until_pg_ready (0.6-0.13, 2026): no
		// placement group of the GPUs the parallel sizes need came within
		// VLLM_RAY_PG_WAIT_TIMEOUT (gpustack#5181: a node never joined).
		{ID: "vllm.ray_placement", Matcher: re("Cannot provide a placement group", `Cannot provide a placement group (of|requiring)`), Cause: v.Config, Title: "the Ray cluster never had the GPUs the parallel sizes need",
			Hint: "check `ray status` on the head node: every node joined and its GPUs count as GPU; lower --tensor-parallel-size{flag:--tensor-parallel-size} × --pipeline-parallel-size to the GPUs the cluster has"},
		// model_executor/layers/fused_moe/oracle (2026): the MoE backend
		// chosen (--moe-backend) does not run this quantization.
		{ID: "vllm.moe_backend", Matcher: re("is not supported for", `moe_backend='[^']*' is not supported for`), Cause: v.Config, Title: "the MoE backend chosen does not run this checkpoint's quantization",
			Hint: "pick one of the backends the message lists (--moe-backend), or drop the flag and let vLLM choose"},
		// config/model.py ModelConfig.verify_with_parallel_config (0.6-0.13).
		{ID: "vllm.pp_unsupported", Matcher: re("Pipeline parallelism is", `Pipeline parallelism is (not supported for this model|only supported for the following|not supported yet)`), Cause: v.Config, Title: "this model does not support pipeline parallelism",
			Hint: "drop --pipeline-parallel-size{flag:--pipeline-parallel-size} and shard with --tensor-parallel-size, or use a vLLM whose model class supports it"},
		// executor/ray_utils.py initialize_ray_cluster and
		// ray_distributed_executor.py (0.7-0.13).
		{ID: "vllm.ray_no_gpu_on_node", Matcher: lit("Current node has no GPU available|Ray does not allocate any GPUs on the driver node"), Cause: v.Config, Title: "the Ray placement group has no GPU on the node the engine runs on",
			Hint: "run the server on a GPU node of the Ray cluster (VLLM_HOST_IP), free GPUs held by leaked placement groups (ray status), and make the parallel sizes fit the cluster's GPUs"},
		// v1/worker/gpu_worker.py init_device (0.11-0.13).
		{ID: "vllm.world_size_gpus", Matcher: re("local_world_size", `local_world_size \(\d+\) must be less than or equal to the number of visible devices \(\d+\)`), Cause: v.Config, Title: "more ranks per node than GPUs visible",
			Hint: "set --tensor-parallel-size{flag:--tensor-parallel-size} to the GPUs per node and span nodes with --pipeline-parallel-size; check CUDA_VISIBLE_DEVICES"},
		// v1/engine/utils.py (0.10-0.12), VLLM_ENGINE_READY_TIMEOUT_S.
		// (v1/engine/core_client.py MPClient: "Timed out waiting for
		// engines to send initial message on input socket.", after
		// VLLM_ENGINE_READY_TIMEOUT_S.)
		{ID: "vllm.ready_timeout", Matcher: lit("Timed out waiting for engine core processes|Timed out waiting for engines to send initial message"), Fatal: true, Title: "the API server gave up waiting for the engine",
			Hint: "the engine took longer than VLLM_ENGINE_READY_TIMEOUT_S to load: raise it, or speed up weight loading"},
	},
	Notable: vllmNotable,
	// (Its processes' own tags too, which a pasted tail keeps: the API
	// server's, the workers' ("(VllmWorker rank=N", V1's
	// v1/executor/multiproc_executor.py, "(Worker_TP0", "(Worker_DP0_TP0_EP0",
	// "(Worker_PP1_TP0" by its setup_proc_title_and_log_prefix;
	// "(VllmWorkerProcess pid=", V0's),
	// Ray's worker actors'; entrypoints/openai/api_server.py's listening
	// line, "Starting vLLM API server N on" (0.8-0.11) and "Starting vLLM
	// server on" (0.12 and later); and the engine's stats while serving,
	// "Avg prompt throughput: " (v1/metrics/loggers.py, V0's
	// engine/metrics.py); and its V1 modules in a traceback, which a
	// wrapper's log (Ray Serve LLM) may hold alone.)
	Detect: []string{"vLLM API server version", "vLLM server version", "LLM engine (v", "(EngineCore", "non-default args:", "vllm.entrypoints", "vllm/entrypoints/",
		"(APIServer pid=", "(VllmWorker", "(Worker pid=", "(Worker_", "(RayWorkerWrapper pid=", "Starting vLLM API server ", "Starting vLLM server on http", "Avg prompt throughput: ", "vllm.v1.", "vllm/v1/",
		// argparse's own lines for the vllm command.
		"usage: vllm ", "vllm: error: "},
	// v1/engine/async_llm.py: the output handler reads the engine core's
	// outputs, which only come once the engine core said it was ready.
	// v1/engine/core.py's model execution (dump_input.py, 0.9 and later):
	// a request's step raised, so the engine was serving. Its busy loop
	// (run_busy_loop, _process_engine_step) runs once the engine core is
	// up: a traceback through it, even cut above its header, is of
	// serving.
	ServingOnly: []string{"AsyncLLM output_handler failed", "Dumping input data for V1 LLM engine", "Dumping scheduler output for model execution", ", in run_busy_loop", ", in _process_engine_step", "self._process_engine_step()",
		// v1/engine/exceptions.py: a request's call into an engine that
		// died after it was up (async_llm.py); V0's launcher.py on a
		// request to a dead engine.
		"EngineDeadError: EngineCore encountered an issue", "MQLLMEngine is already dead",
		// entrypoints/logger.py RequestLogger: a request the server took
		// (the OpenAI endpoints' ids).
		"Received request chatcmpl-", "Received request cmpl-"},
}

var trtllm = &Profile{
	Name: "trtllm", DefaultPort: 8000, HealthPath: "/health",
	Order: []v.Phase{v.Launch, v.Init, v.Distributed, v.Weights, v.KVCache, v.Compile, v.CUDAGraph, v.Warmup, v.Serving, v.PhaseReady},
	Phases: append([]PhaseRule{
		// tensorrt_llm/_common.py (0.2x-1.x): the first line of every start.
		{ID: "trtllm.phase.version", Matcher: re("TensorRT LLM version|TensorRT-LLM version", `TensorRT[ -]LLM version: `), Phase: v.Launch},
		{ID: "trtllm.phase.llm_args", Matcher: fold("llm args"), Phase: v.Init},
		{ID: "trtllm.phase.llmargs", Matcher: fold("llmargs"), Phase: v.Init},
		{ID: "trtllm.phase.pytorch_backend", Matcher: re("PyTorch backend|pytorch backend|backend: pytorch", `(?i)using llm with pytorch backend|backend: pytorch`), Phase: v.Init},
		// llmapi/llm.py (1.x): the TensorRT engine's and AutoDeploy's
		// backends say so as the PyTorch one does.
		{ID: "trtllm.phase.llm_backend", Matcher: re("Using LLM with", `^Using LLM with (TensorRT|AutoDeploy|_autodeploy) backend`), Phase: v.Init},
		{ID: "trtllm.phase.mpi", Matcher: re("MPI|mpi|NCCL|nccl", `(?i)mpi (world|session|pool)|init(ializ\w+)? (mpi|nccl)|nccl (version|comm)`), Phase: v.Distributed},
		// llmapi (1.x): "rank 0 using MpiPoolSession to spawn MPI processes".
		{ID: "trtllm.phase.mpi_session", Matcher: re("MpiPoolSession|MpiCommSession", `using Mpi(Pool|Comm)Session`), Phase: v.Distributed},
		// _torch/pyexecutor/model_loader.py validate_and_set_kv_cache_quant
		// (1.x) checks the KV cache's dtype before the weights load: no
		// KV cache yet (trtllm.phase.kv_cache would take it).
		{ID: "trtllm.phase.kv_dtype_check", Matcher: re("Validating KV Cache config|KV cache quantization set to", `^Validating KV Cache config against|^KV cache quantization set to`), Phase: v.Init},
		// _torch/pyexecutor/_util.py KvCacheCreator (1.x): after a first
		// warmup (autotune, CUDA graphs) with a small KV cache, the memory
		// is profiled and the final KV cache sized and built, then the
		// warmup runs again. Back: these lines follow the first CUDA graph
		// capture, and their "model weights" and "CUDA graphs" are memory
		// figures, not the steps.
		{ID: "trtllm.phase.kv_profiling", Matcher: re("in memory usage profiling|Peak memory during memory usage profiling|Estimated max memory in KV cache", `in memory usage profiling|^Peak memory during memory usage profiling|^Estimated max memory in KV cache`), Phase: v.KVCache, Back: true},
		// _torch/pyexecutor/model_loader.py (1.x), once the model is built:
		// "Use 63.32 GB for model weights." on every rank (the bars that
		// follow are the first rank's); _torch/models/checkpoints
		// "Prefetching 12.34GB checkpoint files.".
		{ID: "trtllm.phase.weights_size", Matcher: re("GB for model weights|GB checkpoint files", `^Use [\d.]+ GB for model weights|^Prefetching [\d.]+ ?GB checkpoint files`), Phase: v.Weights},
		{ID: "trtllm.phase.loading", Matcher: re("oading|load weights|weights loaded", `(?i)loading (model|weights|checkpoint)|load weights|weights loaded|Loading engine`), Phase: v.Weights},
		// cpp runtime TllmRuntime (the TensorRT engine path).
		{ID: "trtllm.phase.loaded_engine", Matcher: re("Loaded engine size", `Loaded engine size: \d+`), Phase: v.Weights},
		// _torch/pyexecutor (1.x): the model is built and loaded; the KV
		// cache is sized next. A print() at the end of the load, without
		// a stamp ("Model init total -- 49.14s").
		{ID: "trtllm.phase.model_init", Matcher: re("Model init total", `^Model init total -- `), Phase: v.KVCache, Ends: true},
		{ID: "trtllm.phase.kv_cache", Matcher: re("KV cache|kv cache|KV Cache", `(?i)kv cache|paged kv cache|blocks in KV cache`), Phase: v.KVCache},
		// _torch/autotuner.py and model_engine.py (1.x): "Running autotuner
		// warmup...", "[Autotuner] Autotuning process starts ..." (not the
		// configuration's enable_autotuner=True, printed before the model
		// is built).
		{ID: "trtllm.phase.autotune", Matcher: re("utotuner warmup|[Autotuner]|Autotuning", `(?i:autotuner warmup)|\[Autotuner\]|Autotuning`), Phase: v.Compile},
		{ID: "trtllm.phase.cuda_graph", Matcher: fold("cuda graph"), Phase: v.CUDAGraph},
		// _torch/pyexecutor/model_engine.py warmup (1.x) runs
		// _run_torch_compile_warmup (its forwards are _general_warmup's "Run
		// warmup with N tokens"), then the autotuner, then the CUDA graphs:
		// compile work, which must not start a warmup the autotuner's and
		// the graphs' lines could not leave.
		{ID: "trtllm.phase.torch_compile_warmup", Matcher: re("torch.compile warmup|Run warmup with", `Running torch\.compile warmup|^Run warmup with \d+ tokens`), Phase: v.Compile},
		{ID: "trtllm.phase.warmup", Matcher: fold("warm"), Phase: v.Warmup},
		{ID: "trtllm.phase.started_process", Matcher: lit("Started server process"), Phase: v.Serving},
		{ID: "trtllm.phase.startup_complete", Matcher: lit("Application startup complete"), Phase: v.Serving},
	}, ncclPhases...),
	ProgressPhases: []PhaseRule{
		{ID: "trtllm.bar.load", Matcher: fold("load"), Phase: v.Weights},
		{ID: "trtllm.bar.capturing", Matcher: fold("captur"), Phase: v.CUDAGraph},
	},
	Failures: []FailureRule{
		// trtllm-serve (0.2x-1.x), seen in users' logs.
		{ID: "trtllm.bind", Matcher: re("Failed to bind socket to", `Failed to bind socket to [^\[]*(?:\[Errno 98\]|$)`), Cause: v.PortInUse, Fatal: true, Title: "the server's port is already taken",
			Hint: "another process listens on the port: stop it or choose another --port"},
		// Any TensorRT-LLM KV cache allocation that does not fit.
		{ID: "trtllm.kv_oom", Matcher: re("KV cache|kv cache|KV Cache", `(?i)not enough (gpu )?memory.*kv cache|kv cache.*(out of memory|insufficient)`), Cause: v.GPUOOM, Title: "not enough GPU memory for the KV cache",
			Hint: "reduce --max_batch_size, --max_num_tokens or --max_seq_len, lower --free_gpu_memory_fraction only if other processes need the GPU, or add GPUs"},
		// _torch/pyexecutor/resource_manager.py KVCacheManager (1.x): the
		// memory left for the KV cache holds no block of one sequence.
		{ID: "trtllm.kv_no_sequence", Matcher: lit("Impossible to fit in any sequence in kvCache"), Cause: v.GPUOOM, Title: "the KV cache cannot hold a single sequence",
			Hint: "reduce --max_seq_len, --max_batch_size or --max_num_tokens, raise kv_cache_config.free_gpu_memory_fraction if other processes do not need the GPU, or add GPUs (tensor parallelism)"},
		// The PyTorch backend's own report names the component it could
		// not create (KV cache, additional executor resources, ...):
		// _torch/pyexecutor/py_executor_creator.py _maybe_explain_if_oom (1.x;
		// for an NCCL "unhandled cuda error" 1.0-1.2 said "failed with an
		// error which might indicate insufficient GPU memory"). The
		// executor was not created: the server cannot start (the
		// RuntimeError reaches the user's process bare, mlcommons#2501).
		{ID: "trtllm.executor_oom", Matcher: re("Executor creation failed due to insufficient GPU memory|might indicate insufficient GPU memory", `Executor creation failed due to insufficient GPU memory|Executor creation failed with an error which might indicate insufficient GPU memory`), Cause: v.GPUOOM, Fatal: true, Title: "not enough GPU memory to create the executor",
			Hint:       "the report lists the component that did not fit: reduce --max_batch_size, --max_num_tokens or --max_seq_len (or cuda_graph_config.max_batch_size), lower kv_cache_config.free_gpu_memory_fraction if the KV cache is what failed, or add GPUs",
			PhaseHints: map[v.Phase]string{v.Weights: "the model's weights do not fit (\"could not be created: Model\"): spread them over more GPUs (--tp_size, --pp_size) or use a quantized checkpoint; check nvidia-smi for other processes holding GPU memory"}},
		// tensorrt_llm _torch/models/modeling_utils.py (1.x) runs the
		// modules' weight loading concurrently and logs each one that
		// raised: "Error executing load_single_module with args (NAME,
		// MODULE): ERROR" (TensorRT-LLM#7818). The loader is at work: the
		// run reached weights, and the quoted error names the cause.
		{ID: "trtllm.load_module", Matcher: lit("Error executing load_single_module with args"), Quotes: true, Reached: v.Weights, Title: "a module's weights failed to load"},
		// tensorrt_llm executor/worker.py (0.2x-1.x): announces the error
		// the worker raised; the OOM form above is more specific.
		{ID: "trtllm.executor_init", Matcher: re("Failed to initialize executor on rank", `Failed to initialize executor on rank \d+`), Fatal: true, Quotes: true, Title: "the executor failed to start"},
		// executor/proxy.py _start_executor_workers (0.2x-1.x): the parent's
		// echo of a worker's failure, printed after the rank's own error.
		{ID: "trtllm.worker_returned_error", Matcher: lit("Executor worker returned error"), Fatal: true, Title: "an executor worker failed to start"},
		// executor/proxy.py _start_executor_workers (1.x): an MPI worker
		// ended before it said it was ready, with no error of its own
		// (one it printed first is the cause): most often the kernel's
		// OOM killer while the weights load.
		{ID: "trtllm.worker_died", Matcher: lit("Executor worker died during initialization"), Cause: v.Crash, Fatal: true, NoneBefore: true, Title: "an executor worker died while it started",
			Hint: "a worker process ended without an error of its own: check `dmesg -T | grep -i oom` (host memory, or /dev/shm in a container, while the weights load), then run with TLLM_LOG_LEVEL=DEBUG to see its last step"},
		// llmapi/llm.py BaseLLM.__init__ (1.x): "Only 2 GPUs are
		// available, but 8 are required."
		{ID: "trtllm.too_few_gpus", Matcher: re("GPUs are available, but", `Only \d+ GPUs are available, but \d+ are required`), Cause: v.Config, Title: "the parallel sizes ask for more GPUs than are visible",
			Hint: "lower --tp_size{flag:--tp_size} and --pp_size{flag:--pp_size} to the GPUs this node has, or make more visible (CUDA_VISIBLE_DEVICES, the container's --gpus)"},
		// _torch/models/modeling_auto.py AutoModelForCausalLM.from_config
		// (1.x): the PyTorch backend has no class for the architecture.
		{ID: "trtllm.unknown_arch", Matcher: re("Unknown architecture for AutoModelForCausalLM", `Unknown architecture for AutoModelForCausalLM: \S+`), Cause: v.Config, Title: "TensorRT-LLM's PyTorch backend has no model class for this architecture",
			Hint: "check config.json's architectures[0] against this release's supported models; upgrade TensorRT-LLM, or serve the model with another server"},
		// models/automodel.py AutoConfig.from_hugging_face (0.1x-1.x, the
		// TensorRT engine path).
		{ID: "trtllm.hf_arch_unsupported", Matcher: re("is not supported in TRT-LLM yet", `model architecture \S+ is not supported in TRT-LLM yet`), Cause: v.Config, Title: "this TensorRT-LLM backend does not support the model's architecture",
			Hint: "use --backend pytorch if that backend supports the model, or upgrade TensorRT-LLM"},
		// cpp/tensorrt_llm/thop/fp8BlockScalingGemm.cpp, the CUTLASS FP4
		// GEMM dispatch and the FP4 block-scale MoE (0.2x-1.x): this GPU's
		// SM has no kernel for the checkpoint's quantization.
		{ID: "trtllm.sm_unsupported", Matcher: re("Unsupported SM version for|Arch unsupported for|is supported by", `Unsupported SM version for .*GEMM|Arch unsupported for CUTLASS \w+ GEMM|Only SM\d+ is supported by`), Cause: v.Config, Title: "this GPU has no kernel for the checkpoint's quantization",
			Hint: "FP8 block-scale and NVFP4 kernels need specific GPUs (NVFP4: Blackwell): use a BF16 or per-tensor FP8 checkpoint, or a TensorRT-LLM release that supports this GPU"},
		// _torch/modules/attention.py (1.x): gpt-oss attention sinks.
		{ID: "trtllm.attn_backend_unsupported", Matcher: lit("are only supported for TRTLLM backend"), Cause: v.Config, Title: "the chosen attention backend cannot run this model",
			Hint: "set attn_backend: TRTLLM (the default) in the extra LLM API options"},
		// trtllmGenKernels/batchedGemm/KernelRunner.cpp (1.0): a GEMM
		// kernel failed to launch (newer builds name the CUresult).
		{ID: "trtllm.gemm_run_failed", Matcher: lit("Error occurred when running GEMM!"), Cause: v.CUDA, Title: "a TensorRT-LLM GEMM kernel failed to run",
			Hint: "the kernel for this GPU and MoE backend failed to launch: try another moe_backend (CUTLASS), and check that the build targets this GPU"},
		// mpi4py.futures spawning the MPI worker pool (executor/proxy.py
		// MpiPoolSession); the process then hangs rather than exits.
		{ID: "trtllm.mpi_spawn", Matcher: re("mpi4py.MPI.Exception", `mpi4py\.MPI\.Exception: MPI_ERR_\w+`), Cause: v.NCCL, Fatal: true, Title: "MPI could not spawn the worker processes",
			Hint: "use the Open MPI the image was built for (OPAL_PREFIX), or launch with `mpirun` / `srun` and trtllm-llmapi-launch so that the workers are existing ranks"},
		// TensorRT's engine deserialization (runtime/tllmRuntime.cpp):
		// TensorRT's own words, or the runtime's check after it,
		// TLLM_CHECK_WITH_INFO(mEngine != nullptr, "Failed to deserialize
		// cuda engine.") (Triton's tensorrtllm backend, 2024).
		{ID: "trtllm.engine_version", Matcher: re("Version tag does not match|Serialized Engine Version|Failed to deserialize cuda engine", `Version tag does not match|Serialized Engine Version|Failed to deserialize cuda engine`), Cause: v.Dependency, Title: "the TensorRT engine was built by another TensorRT version",
			Hint: "rebuild the engine (trtllm-build) with this container's TensorRT-LLM, or run the release that built it"},
		// Open MPI, under trtllm-serve with more than one rank.
		{ID: "trtllm.mpi_abort", Matcher: lit("MPI_ABORT was invoked on rank"), Fatal: true, Title: "an MPI rank aborted"},
		// llmapi/llm_utils.py (0.2x-1.x).
		{ID: "trtllm.no_config", Matcher: lit("Failed to infer model format because no config.json exists"), Cause: v.ModelLoad, Title: "the model directory holds no config.json",
			Hint: "point the model argument at a checkpoint directory with config.json (in a Hugging Face cache, the snapshots/<revision> folder), or at a Hugging Face model id"},
	},
	// commands/serve.py launch_grpc_server: after the engine is built and
	// the port bound (a failed bind raises before it): "TensorRT-LLM gRPC
	// server started on {address}"; grpc/smg/server.py the same with
	// "SMG", grpc/openengine/server.py "OpenEngine server started on".
	NoHTTPReady: []Matcher{re("gRPC server started on|OpenEngine server started on", `(TensorRT-LLM (SMG )?gRPC|OpenEngine) server started on \S+`)},
	NoHTTPFlag:  "--grpc",
	// (And a pasted tail's: py_executor_creator.py's report of the
	// executor it could not create, executor/proxy.py's of a worker's
	// error.)
	Detect: []string{"[TRT-LLM]", "[TensorRT-LLM]", "trtllm", "tensorrt_llm", "Executor creation failed", "The following component could not be created", "Executor worker returned error"},
}

// llamacpp is llama-server. Rules name the source they come from; "b10587"
// is build 10587 (commit 3f545bec, 2026-08), whose output is recorded in
// testdata/scenarios/real. Since mid-2025 every line carries the common
// log prefix ("0.00.213.525 I srv  llama_server: model loaded", see
// llamaPrefixRe); older builds printed "main: ..." and "INFO [main] ...".
var llamacpp = &Profile{
	Name: "llamacpp", DefaultPort: 8080, HealthPath: "/health",
	// common/arg.cpp (b10587): every flag's LLAMA_ARG_ variable.
	PortEnv: "LLAMA_ARG_PORT", HostEnv: "LLAMA_ARG_HOST",
	// tools/server/server-http.cpp (b10587): a hostname ending in .sock is
	// bound as AF_UNIX.
	HostSocket: true,
	// tools/server/server-http.cpp (b10587): every route, /health too,
	// is registered under --api-prefix.
	PrefixFlag: "--api-prefix", PrefixEnv: "LLAMA_ARG_API_PREFIX",
	Notable: llamacppNotable,
	// common/arg.cpp (b10587): --log-disable, --log-file FNAME and
	// -lv/--verbosity/--log-verbosity N (0 keeps only output, no errors).
	QuietFlags: []string{"--log-disable", "-lv 0", "--verbosity 0", "--log-verbosity 0", "--log-file *"},
	// common/arg.cpp (b10587): --embedding(s) restricts the server to
	// embeddings, --rerank(ing) to ranking (whose embeddings are zeros).
	PoolingFlags: []string{"--embedding", "--embeddings"},
	RankingFlags: []string{"--rerank", "--reranking"},
	PoolingEnv:   []string{"LLAMA_ARG_EMBEDDINGS"},
	RankingEnv:   []string{"LLAMA_ARG_RERANKING"},
	// common/log.cpp (b10587): lines are written by a worker thread that
	// the process does not join when main returns, so a start that fails
	// within milliseconds may lose its last lines, the error among them
	// (seen with a real server: a bind error's three lines missing).
	SilentExitHint: "llama-server writes its log from a thread that an early exit does not wait for, so the error may be missing from this output: run the same command again to see it",
	StallHints: map[v.Phase]string{
		v.Launch:  llamaLoadStall,
		v.Init:    llamaLoadStall,
		v.Weights: llamaLoadStall,
		"":        "the server stopped making progress: " + nativeStacks + "; with a GPU, nvidia-smi and dmesg show a stuck device",
	},
	Order: []v.Phase{v.Launch, v.Init, v.Serving, v.Weights, v.KVCache, v.Warmup, v.PhaseReady},
	Phases: []PhaseRule{
		// common/common.cpp common_params_print_info (b10587): the first
		// line of every start ("common_param: " is __func__ cut to 12).
		{Matcher: lit("common_params_print_info:"), Phase: v.Init},
		{Matcher: re("system info:|system_info:", `^(?:\w+: )?system[ _]info:`), Phase: v.Init},
		// Not "binding port with default address family": it comes before
		// the bind, which may fail; newer builds print no line after it.
		{Matcher: re("HTTP server is listening|HTTP server listening", `^main: HTTP server is listening|HTTP server listening`), Phase: v.Serving},
		// tools/server/server-context.cpp load_model "loading model '%s'"
		// (b10587); src/llama-model-loader.cpp, src/llama-model.cpp at -lv 4.
		{Matcher: re("loading model|llama_model_load|load_tensors:|print_info:|common_download_file", `^main: loading model|load_model: loading model|^llama_model_load|^llama_model_loader:|^load_tensors:|^print_info:|^common_download_file`), Phase: v.Weights},
		{Matcher: re("clip_|load_hparams:|mtmd_init", `^clip_model_loader:|^clip_ctx:|^load_hparams:|^mtmd_init|^clip_init`), Phase: v.Weights, Back: true},
		// src/llama-context.cpp, src/llama-kv-cache.cpp; the server's
		// slots are made once the context is (server-context.cpp
		// "initializing, n_slots", b10587).
		// (Builds of 2026 say "initializing slots, n_slots".)
		{Matcher: re("llama_context:|llama_kv_cache|llama_new_context_with_model|initializing, n_slots|initializing slots, n_slots", `^llama_context:|^llama_kv_cache|^llama_new_context_with_model|^load_model: initializing(?: slots)?, n_slots`), Phase: v.KVCache},
		{Matcher: lit("warming up the model"), Phase: v.Warmup},
	},
	Failures: []FailureRule{
		// tools/server/server-http.cpp (b10587).
		// ("couldn't bind HTTP server socket, hostname: H, port: P": on a
		// loopback or wildcard host the port is taken; on another, the
		// address is more likely not this machine's.)
		// tools/server/server-http.cpp: a hostname ending in .sock is a
		// Unix socket; its bind fails on a socket file an earlier server
		// left (killed before it removed it) or a directory that is not
		// there or not writable.
		{ID: "llamacpp.bind_socket", Matcher: re("couldn't bind HTTP server socket", `couldn't bind HTTP server socket, hostname: [^,]*\.sock,`), Cause: v.Config, Fatal: true, Title: "the server could not create its Unix socket",
			Hint: "a socket file an earlier server left at that path blocks the bind: remove it if nothing listens on it (`ss -xlp | grep PATH`); otherwise the socket's directory is missing or not writable by the server"},
		{ID: "llamacpp.bind", Matcher: re("couldn't bind HTTP server socket", `couldn't bind HTTP server socket(?:, hostname: (?:127\.0\.0\.1|0\.0\.0\.0|localhost|::1?|\[::1?\]),|$)`), Cause: v.PortInUse, Fatal: true, Title: "the server's port is already taken",
			Hint: "another process listens on the port: find it with `ss -ltnp 'sport = :{port}'` and stop it, or choose another --port"},
		{ID: "llamacpp.bind_host", Matcher: lit("couldn't bind HTTP server socket"), Cause: v.Config, Fatal: true, Title: "the server could not bind its --host address",
			Hint: "the --host address is not one of this machine's (or does not resolve): use 127.0.0.1, 0.0.0.0 or an address `ip -brief addr` lists; if it is this machine's, another process holds port {port} there (`ss -ltnp 'sport = :{port}'`)"},
		{ID: "llamacpp.download", Matcher: re("download failed after|failed to download", `download failed after \d+ attempts|failed to download (model|file)`), Cause: v.ModelLoad, Title: "the model could not be downloaded",
			Hint: "check the network path to the Hub (proxy, HF_ENDPOINT) and free disk space in the cache (LLAMA_CACHE), or download the GGUF ahead of time and pass it with -m"},
		// common/http.h (b10587) on a build without OpenSSL: -hf and
		// --model-url cannot fetch anything. Printed before the banner.
		{ID: "llamacpp.no_https", Matcher: lit("HTTPS is not supported"), Cause: v.ModelLoad, Title: "this build cannot download the model (no HTTPS support)",
			Hint: "download the GGUF file another way and pass it with -m, or use a build made with OpenSSL (LLAMA_OPENSSL=ON)"},
		// tools/server/server.cpp (b10587).
		{ID: "llamacpp.load_exit", Matcher: lit("exiting due to model loading error"), Cause: v.ModelLoad, Fatal: true, Title: "the model could not be loaded",
			Hint: "read the loader's error above: a missing, truncated or unsupported GGUF file (re-download it), or a build too old for the model"},
		{ID: "llamacpp.http_exit", Matcher: lit("exiting due to HTTP server error"), Fatal: true, Title: "the HTTP server failed to start"},
		{ID: "llamacpp.http_init", Matcher: lit("failed to initialize HTTP server"), Fatal: true, Title: "the HTTP server could not be set up"},
		// tools/server/server.cpp (b10587): the router (no -m) could not
		// read its models: common/preset.cpp's "'DIR' does not exist or is
		// not a directory" (--models-dir), "preset file does not exist"
		// (--models-preset), or the INI file's own error.
		{ID: "llamacpp.router_models", Matcher: lit("failed to initialize router models"), Cause: v.Config, Fatal: true, Title: "the router could not read its models (--models-dir, --models-preset)",
			Hint: "the message names the path and why: pass an existing directory to --models-dir and an existing, valid INI file to --models-preset (relative paths are read from the server's working directory)"},
		// tools/server/server.cpp (b10587): --mcp-servers-config could not
		// be read, it or --mcp-servers-json could not be parsed
		// (server-mcp.cpp), or a server they name could not be started.
		{ID: "llamacpp.mcp_config", Matcher: lit("MCP starting failed"), Cause: v.Config, Fatal: true, Title: "the MCP servers (--mcp-servers-config, --mcp-servers-json) could not be started",
			Hint: "the message says why: a missing file, JSON that does not parse, or a server it names that cannot start; fix --mcp-servers-config / --mcp-servers-json or drop them"},
		// tools/server/server.cpp (b10587): server-tools.cpp's "unknown
		// tool \"X\". available tools: ..." or "unknown tool runtime".
		{ID: "llamacpp.tools", Matcher: lit("tools setup failed"), Cause: v.Config, Fatal: true, Title: "the server's tools (--tools) could not be set up",
			Hint: "the message says why: an unknown tool name (it lists the available ones) or --tools-runtime value; fix --tools / --tools-runtime or drop them"},
		// tools/server/server-http.cpp init (b10587): --path names a
		// directory that does not exist.
		{ID: "llamacpp.static_path", Matcher: lit("static assets path not found"), Cause: v.Config, Fatal: true, Title: "the --path directory of static files does not exist",
			Hint: "pass an existing directory to --path (a relative one is read from the server's working directory), or drop --path to serve the built-in web UI"},
		// tools/server/server-http.cpp init (b10587): --ssl-key-file on a
		// build made without OpenSSL.
		{ID: "llamacpp.no_ssl", Matcher: lit("the server is built without SSL support"), Cause: v.Config, Fatal: true, Title: "this build has no SSL support",
			Hint: "drop --ssl-key-file/--ssl-cert-file and terminate TLS in a proxy, or use a build made with OpenSSL (LLAMA_OPENSSL=ON)"},
		// ggml/src/gguf.cpp and src/llama-model-loader.h (b10587): the
		// file is not a GGUF model, or is cut short.
		// ggml/src/gguf.cpp gguf_init_from_reader (b10587): a file written
		// by a newer gguf than this build reads.
		{ID: "llamacpp.gguf_version", Matcher: re("this GGUF file is version", `this GGUF file is version \d+ but this software only supports up to version \d+`), Cause: v.ModelLoad, Reached: v.Weights, Title: "the model file is a newer GGUF version than this build reads",
			Hint: "upgrade llama.cpp (or the app that bundles it) to a build that reads this GGUF version, or convert the model with this build's convert_hf_to_gguf.py"},
		// src/llama.cpp llama_model_load_from_file_impl (b10587): no
		// model path at all. -hf leaves none when the repository has
		// nothing in the cache and the Hub is not asked (--offline) or
		// cannot be reached.
		{ID: "llamacpp.no_model_path", Matcher: lit("exactly one out metadata, path_model, and file must be defined"), Cause: v.ModelLoad, Reached: v.Weights, Title: "there is no model file to load (-hf found nothing in the cache)",
			Hint: "with -hf and --offline (or no way to the Hub), the repository must already be in the cache (LLAMA_CACHE, else the Hugging Face cache): download it once online, or pass the GGUF file with -m"},
		{ID: "llamacpp.gguf_open", Matcher: re("failed to open GGUF file|invalid magic characters|failed to read magic|data is not within the file bounds|failed to read tensor", `failed to open GGUF file|invalid magic characters|failed to read magic|data is not within the file bounds|failed to read tensor`), Cause: v.ModelLoad, Reached: v.Weights, Title: "the model file is missing, not a GGUF file, or cut short",
			Hint: "check the path of the file the error names (-m, or a side file: --lora, --mmproj, -md); a truncated or non-GGUF file must be downloaded again (compare its size with the source's)"},
		// common/fit.cpp common_fit_params (b10587): --fit's trial load
		// failed; the server loads the model again, and that load prints
		// the reason ("unknown model architecture: ''" after "failed to
		// load model", a user's log, 2026), or goes on.
		{ID: "llamacpp.fit_echo", Matcher: lit("encountered an error while trying to fit params to free device memory"), Title: "fitting the parameters to the free memory failed"},
		// src/llama-model.cpp (b10587).
		{ID: "llamacpp.arch", Matcher: lit("unknown model architecture"), Cause: v.Config, Reached: v.Weights, Title: "this build does not know the model's architecture",
			Hint: "update llama.cpp if the architecture is newer than this build; if it is not among llama.cpp's supported models at all, no build loads it: use a runtime that supports it"},
		// src/llama-vocab.cpp (b10587): a tokenizer newer than this build,
		// like an unknown architecture.
		{ID: "llamacpp.pretokenizer", Matcher: lit("unknown pre-tokenizer type"), Cause: v.Config, Reached: v.Weights, Title: "this build does not know the model's pre-tokenizer",
			Hint: "update llama.cpp (the GGUF needs a newer build), or convert the model again with a convert_hf_to_gguf.py that matches this build"},
		// ggml/src/ggml-metal/ggml-metal-context.m (b10587): a command
		// buffer that ran out of GPU memory leaves the backend in an error
		// state, and every later graph fails; the server may still say it
		// is ready (its warm-up's result is not checked).
		{ID: "llamacpp.metal_cb_oom", Matcher: re("kIOGPUCommandBufferCallbackErrorOutOfMemory", `Insufficient Memory \(\w+:kIOGPUCommandBufferCallbackErrorOutOfMemory\)`), Cause: v.GPUOOM, Title: "Metal ran out of GPU memory while running the model",
			Hint: "lower the context (-c) or the layers offloaded (-ngl), quantize the KV cache, or raise the GPU's wired memory limit (sysctl iogpu.wired_limit_mb): the server keeps running but every request fails"},
		{ID: "llamacpp.metal_error_state", Matcher: lit("backend is in error state from a previous command buffer failure"), Fatal: true, Title: "the Metal backend is in an error state"},
		// ggml/src/ggml-metal/ggml-metal-device.m (b10587): Metal's own
		// word of the allocation that alloc_tensor_range then reports.
		{ID: "llamacpp.metal_alloc", Matcher: lit("ggml_metal_buffer_init: error: failed to allocate buffer"), Cause: v.GPUOOM, Title: "Metal could not allocate a GPU buffer",
			Hint: "offload fewer layers (-ngl), lower the context (-c), or raise the GPU's wired memory limit (sysctl iogpu.wired_limit_mb)"},
		// ggml/src/ggml-sycl/ggml-sycl.cpp (b10587).
		{ID: "llamacpp.sycl_alloc", Matcher: re("Bytes of memory on device", `can't allocate \d+ Bytes of memory on device`), Cause: v.GPUOOM, Title: "the GPU buffer could not be allocated",
			Hint: "offload fewer layers (-ngl), lower the context (-c) or use a smaller quantization"},
		// src/llama-context.cpp llama_init_from_model and the context's
		// constructor (b10587): parameters the model or this build cannot
		// take.
		{ID: "llamacpp.ctx_params", Matcher: re("llama_init_from_model:", `^llama_init_from_model: (quantized V cache requires flash_attn|[KV] cache type \S+ with block size \d+ does not divide|model does not support different K \(|SPLIT_MODE_TENSOR requires flash_attn|n_batch and n_ubatch cannot both be zero|failed to initialize the context: n_seq_max must be <=)`), Cause: v.Config, Title: "the context parameters do not fit this model",
			Hint: "a quantized V cache (-ctv) needs flash attention (-fa on); use the same -ctk/-ctv where the model needs it; pick a cache type whose block size divides the head size; check -b/-ub and -np"},
		// src/llama-context.cpp (b10587): a GPU backend that would not start.
		// GGML_ABORT in a GPU backend prints "file:line: message" (ggml.c
		// ggml_abort): ggml-sycl.cpp "[ggml_backend_sycl_device_get_memory]
		// failed to get device memory size" (llama.cpp#28134, b10717+). A
		// GGML_ASSERT there is the backend's bug (sys.abort), so a message
		// starting with "G" is left to it.
		{ID: "llamacpp.backend_abort", Matcher: re("ggml-", `ggml-(?:sycl|vulkan|cann|musa|opencl|metal|hip)/[\w.-]+:\d+: (?:\[\w+\] )?[^G\s]`), Cause: v.CUDA, Title: "a GPU backend aborted",
			Hint: "the GPU runtime or driver failed under ggml's backend: check the driver and runtime versions this build was made for (oneAPI/level-zero for SYCL, the Vulkan driver, ROCm), that the device is visible, and try another backend or -ngl 0 to confirm"},
		{ID: "llamacpp.backend_init", Matcher: re("failed to initialize", `failed to initialize (CUDA|ROCm|MUSA|Vulkan|MTL|Metal|SYCL|CANN|OpenCL)\d* backend`), Cause: v.CUDA, Title: "a GPU backend could not be initialised",
			Hint: "check the GPU with nvidia-smi (or the backend's own tool) and the driver against this build; --device none runs on the CPU"},
		// src/llama.cpp and src/llama-model.cpp (b10587): a device or split
		// setting this model or these devices cannot take.
		{ID: "llamacpp.devices", Matcher: re("LLAMA_SPLIT_MODE_TENSOR|does not support split buffers|invalid value for main_gpu|CLIP cannot be used as main model", `LLAMA_SPLIT_MODE_TENSOR (not implemented for architecture|needs >= 1 devices)|does not support split buffers|invalid value for main_gpu|CLIP cannot be used as main model`), Cause: v.Config, Title: "the device or split settings do not fit this model or these devices",
			Hint: "check -sm, -mg and --device against the GPUs present; a CLIP/mmproj file goes to --mmproj, not -m"},
		// tools/mtmd/clip.cpp load_hparams and mtmd.cpp mtmd_init_from_file
		// (b10587): a projector this build or this model cannot use.
		{ID: "llamacpp.mmproj_mismatch", Matcher: re("projector type|mismatch between", `unknown (vision |audio )?projector type|mismatch between text model \(n_embd|mismatch between vision and audio mmproj`), Cause: v.Config, Title: "the multimodal projector does not fit this model or build",
			Hint: "use the mmproj file made for this very model, or update llama.cpp for a newer projector type"},
		// tools/mtmd/mtmd.cpp and tools/server/server-context.cpp (b10587):
		// the server tries the projector twice, and the first try's
		// "Failed to load CLIP model" comes without its reason; the second
		// prints the reason (clip_init) before the same words again.
		{ID: "llamacpp.mtmd_echo", Matcher: re("Failed to load CLIP model|failed to load multimodal model", `Failed to load CLIP model from|failed to load multimodal model`), Title: "the multimodal projector could not be loaded"},
		// tools/mtmd/clip.cpp clip_init (b10587): the projector file
		// could not be read; it names the file, which the GGUF error
		// before it (a missing file, a wrong magic) does not tie to
		// --mmproj.
		{ID: "llamacpp.mmproj_file", Matcher: re("clip_model_loader: failed to load CLIP model from", `clip_init: failed to load model '.*': clip_model_loader: failed to load CLIP model from`), Cause: v.ModelLoad, Supersedes: "llamacpp.gguf_open", Title: "the multimodal projector (--mmproj) could not be read",
			Hint: "check the --mmproj path: the file is missing, or not a GGUF projector made for this model"},
		// src/llama-adapter.cpp llama_adapter_lora_init (b10587): the
		// adapter file could not be read (the GGUF error before it says
		// why, without naming --lora).
		{ID: "llamacpp.lora_file", Matcher: lit("failed to load lora adapter file from"), Cause: v.ModelLoad, Supersedes: "llamacpp.gguf_open", Title: "the LoRA adapter (--lora) could not be read",
			Hint: "check the --lora path: the file is missing, or not a GGUF adapter (convert one with convert_lora_to_gguf.py)"},
		// src/llama-adapter.cpp llama_adapter_lora_init (b10587).
		{ID: "llamacpp.lora_mismatch", Matcher: lit("failed to apply lora adapter"), Cause: v.Config, Title: "the LoRA adapter does not fit the base model",
			Hint: "use an adapter made for this base model (its architecture and tensor shapes), converted with convert_lora_to_gguf.py"},
		// common/speculative.cpp and tools/server/server-context.cpp
		// (b10587); the reason is the warning before it.
		{ID: "llamacpp.mtp", Matcher: lit("failed to create MTP context"), Cause: v.Config, Title: "the speculative (MTP) context could not be created",
			Hint: "read the warning before it: the model has no MTP layers, or the draft settings do not fit; drop the speculative flags or use a model with MTP layers"},
		// src/llama-grammar.cpp llama_grammar_parser::parse (b10587): a
		// --grammar(-file) that does not parse; the server then aborts.
		{ID: "llamacpp.grammar", Matcher: lit("error parsing grammar: "), Cause: v.Config, Title: "the grammar does not parse",
			Hint: "fix the GBNF given with --grammar / --grammar-file (the message names the rule)"},
		// tools/server/server-context.cpp init (b10587).
		{ID: "llamacpp.ui_config", Matcher: lit("failed to parse UI config"), Cause: v.Config, Title: "the web UI configuration is not valid JSON",
			Hint: "fix the JSON given for the web UI configuration (the message names the parse error), or leave it out"},
	},
	// tools/server/server.cpp llama_server() (b10587): "model loaded" once
	// the model and slots are ready (the HTTP server answers 200 from
	// then on), then "listening on http://HOST:PORT". Older builds:
	// "main: model loaded", "main: server is listening on", "INFO [main]".
	Ready: []Matcher{re("main: server is listening on|main: model loaded|llama_server: model loaded|llama_server: listening on", `^(main|llama_server): (server is listening on|model loaded|listening on)`), lit("all slots are idle"), re("model loaded", `^INFO \[\s*main\] model loaded`)},
	// (And a pasted tail's: src/llama.cpp's "llama_model_load: error
	// loading model", the loader's load_all_data, and
	// tools/server/server-http.cpp's bind lines.)
	Detect: []string{"llama_model_loader", "main: loading model", "llama-server", "load_tensors:", "ggml_cuda_init", "common_params_print_info", "load_model: loading model", "llama_context:", "common_init_from_params:", "common_init_result:", "log_info: verbosity",
		"llama_model_load: ", "load_all_data: ", "couldn't bind HTTP server socket", "main: server is listening on",
		// A multimodal projector's loader (tools/mtmd/clip.cpp). (The
		// server's own tags, "srv    load_model: ", are told by their
		// shape: DetectLog. Not a -hf model's download, common/download.cpp:
		// it comes before the start's banner, which then would read as
		// another start's.)
		"clip_model_loader: "},
	// Lines of a request's handling (server-context.cpp, b10587 and
	// builds since 2024-10): the warmup decodes without a slot, so only
	// a started server prints them. (Not log_server_r's: a health probe's
	// 503 comes while it loads.)
	ServingOnly: []string{"slot launch_slot_: id ", "slot update_slots: id ", "slot print_timing: id ", "slot create_check: id ", "slot get_availabl: id ", "slot      release: id ", "srv  params_from_: "},
}

var tgi = &Profile{
	Name: "tgi", DefaultPort: 3000, HealthPath: "/health",
	// launcher/src/main.rs: clap's env for --port. (Not HOSTNAME, its
	// --hostname's: every container sets it to the container's name.)
	PortEnv: "PORT",
	// launcher/src/main.rs (2.x-3.3) shard_manager: once a shard exits,
	// tracing::error!("Shard complete standard error output:\n{err}"),
	// the shard's loguru lines stamped from its start.
	Replays: []string{"Shard complete standard error output:"},
	// launcher/src/main.rs (2.x-3.3): the launcher's main loop, once the
	// webserver runs, ends with ShardFailed when a shard dies ("Shard N
	// crashed"); while starting, a shard's death is ShardCannotStart.
	ServingOnly: []string{"Error: ShardFailed"},
	Order:       []v.Phase{v.Launch, v.Init, v.Distributed, v.Weights, v.Serving, v.Warmup, v.PhaseReady},
	Phases: append([]PhaseRule{
		{ID: "tgi.phase.args", Matcher: re("Args {", `^Args \{`), Phase: v.Init},
		// launcher/src/main.rs (2.x-3.x).
		{ID: "tgi.phase.attention", Matcher: re("Using attention|Sharding model on", `^Using attention \S+ - Prefix caching|^Sharding model on \d+ processes`), Phase: v.Init},
		{ID: "tgi.phase.download", Matcher: re("download process|Files are already present|Successfully downloaded weights|Download file:", `Starting download process|Starting check and download process|Files are already present|Successfully downloaded weights|Download file:`), Phase: v.Weights},
		{ID: "tgi.phase.shard", Matcher: re("Starting shard|Waiting for shard to be ready|Shard ready in|Server started at unix://", `^Starting shard|Waiting for shard to be ready|Shard ready in|Server started at unix://`), Phase: v.Weights},
		// launcher/src/main.rs spawns the router ("Starting Webserver"),
		// which connects to the shards and warms the model up (prefill,
		// CUDA graphs: minutes) before it binds its port after "Connected":
		// the router's start is the warmup, nothing listens yet (two
		// users' logs cut there read "the server said it listens").
		{ID: "tgi.phase.webserver", Matcher: re("Starting Webserver|Using backend", `^Starting Webserver|Using backend`), Phase: v.Warmup},
		{ID: "tgi.phase.warmup", Matcher: re("Warming up model|Setting max batch total tokens", `^Warming up model|Setting max batch total tokens`), Phase: v.Warmup},
		// server/text_generation_server/models/flash_causal_lm.py (3.x):
		// printed by the shards during the router's warmup call.
		{ID: "tgi.phase.shard_warmup", Matcher: re("KV-cache blocks:|Cuda Graphs are enabled for sizes", `^KV-cache blocks: \d+|^Cuda Graphs are enabled for sizes`), Phase: v.Warmup},
	}, ncclPhases...),
	Failures: []FailureRule{
		// launcher/src/main.rs (2.x-3.3): "Shard {rank} failed to start",
		// "Shard {rank} crashed", "Shard complete standard error output:".
		{ID: "tgi.shard_failed", Matcher: re("failed to start|crashed|Shard complete standard error output", `Shard \d+ failed to start|Shard \d+ crashed|Shard complete standard error output`), Fatal: true, Title: "a shard failed to start"},
		// launcher/src/main.rs (2.x-3.3): "Shard process was signaled to
		// shutdown with signal {signal}".
		// The same with another signal: 7 is SIGBUS, which NCCL's shared
		// memory gets when /dev/shm is too small (TGI#814), 11 SIGSEGV.
		// The download process's too (download_convert_model, "Download
		// process was signaled to shutdown with signal {signal}: {err}"):
		// converting .bin weights to safetensors holds them in host
		// memory (a SageMaker log, TGI 1.x).
		{ID: "tgi.signaled_crash", Matcher: re("signal", `(?:Shard|Download) process was signaled to shutdown with signal (?:[1-8]|1\d|[2-9]\d)\b`), Cause: v.Crash, Fatal: true, Title: "a shard died by a signal",
			Hint: "signal 7 (SIGBUS) is most often a /dev/shm too small for NCCL: run the container with --shm-size 1g or more (or NCCL_SHM_DISABLE=1); 11 is a segfault: check the versions of the image, driver and GPU"},
		{ID: "tgi.signaled", Matcher: re("signal", `(?:Shard|Download) process was signaled to shutdown with signal 9\b`), Cause: v.HostOOM, Fatal: true, Title: "a shard was killed (SIGKILL), most likely by the kernel's OOM killer",
			Hint: "the host or the container ran out of memory: check `dmesg -T | grep -i oom` on the host, and the container's memory limit (docker --memory, a pod's limits, an endpoint's instance size): the shard loads the weights through host memory"},
		// launcher/src/main.rs (2.x-3.3).
		{ID: "tgi.download", Matcher: lit("Download encountered an error"), Cause: v.ModelLoad, Fatal: true, Wrapper: true, Title: "downloading the weights failed",
			Hint: "check the model id, HF_TOKEN for gated models, network access to the Hub and free disk space"},
		// launcher/src/main.rs LauncherError::DownloadError, main's own
		// "Error: ..." once the download process failed: what it printed
		// may come after it in a log of both streams (a user's log,
		// 2025-05, whose Hub error sits in a rich traceback box).
		{ID: "tgi.download_error", Matcher: re("Error: DownloadError", `^Error: DownloadError\b`), Cause: v.ModelLoad, Fatal: true, Title: "downloading the weights failed",
			Hint: "check the model id, HF_TOKEN for gated models, network access to the Hub and free disk space"},
		// launcher/src/main.rs LauncherError (2.x-3.3), printed by main's
		// Err return: "Error: ArgumentValidation(...)".
		{ID: "tgi.args", Matcher: re("ArgumentValidation|NotEnoughCUDADevices", `ArgumentValidation|NotEnoughCUDADevices`), Cause: v.Config, Fatal: true, Title: "invalid launcher arguments",
			Hint: "read the validation message: token limits must satisfy max-input-tokens < max-total-tokens <= max-batch-prefill-tokens..."},
		// launcher/src/main.rs (2.x-3.x): the Python server or the router
		// binary is missing from the image.
		{ID: "tgi.no_binary", Matcher: re("not found in PATH", `text-generation-(server|router) not found in PATH`), Cause: v.Dependency, Fatal: true, Title: "a TGI component is not installed",
			Hint: "install it (make install-server / make install-router) or use the official TGI image"},
		// router/src/server.rs (2.x-3.x).
		// router/src/server.rs run (2.x-3.3): the metrics listener binds
		// in PrometheusBuilder::build(), before "Connected", and .expect()
		// panics with this message on the line after the panic's (TGI
		// issue 3062); the taken port is not --port.
		{ID: "tgi.prometheus_port", Matcher: re("failed to build prometheus recorder", `failed to build prometheus recorder: FailedToCreateHTTPListener\(.*(?:Address already in use|os error 98)`), Cause: v.PortInUse, Title: "the router's Prometheus metrics port is already taken",
			Hint: "another process listens on the metrics port (9000 by default): stop it, or move TGI's with --prometheus-port{flag:--prometheus-port} (3.3 and later)"},
		{ID: "tgi.router_bind", Matcher: re("Failed to bind to", `Failed to bind to \S+: .*(Address already in use|os error 98)`), Cause: v.PortInUse, Fatal: true, Title: "the router's port is already taken",
			Hint: "another process listens on the port: stop it or choose another --port"},
		// launcher/src/main.rs (2.x-3.x).
		{ID: "tgi.shard_disconnected", Matcher: lit("Shard status channel disconnected"), Fatal: true, Title: "a shard stopped reporting to the launcher"},
		// launcher/src/main.rs find_num_shards (2.x-3.3): --sharded with no
		// --num-shard and no visible devices; the message follows the
		// launcher's panic line.
		{ID: "tgi.no_devices", Matcher: lit("--num-shard and CUDA_VISIBLE_DEVICES"), Cause: v.Config, Fatal: true, Title: "the launcher sees no GPU to shard over",
			Hint: "give --num-shard, or make the GPUs visible (CUDA_VISIBLE_DEVICES, the container's --gpus)"},
		// server/text_generation_server/cli.py serve (1.x-3.3).
		{ID: "tgi.dtype_and_quantize", Matcher: lit("Only 1 can be set between `dtype` and `quantize`"), Cause: v.Config, Title: "--dtype and --quantize were both given",
			Hint: "drop --dtype or --quantize: each decides how the weights are loaded"},
		// server/text_generation_server/models/__init__.py get_model
		// (2.x-3.3): options this model or this build cannot take.
		{ID: "tgi.model_options", Matcher: re("Sharding is currently not supported with|Unknown kv_cache_dtype|but this medusa models only has|does not support sliding window attention", "Sharding is currently not supported with `exl2` quantization|^(?:RuntimeError: )?Unknown kv_cache_dtype|Speculate is set to `\\d+` but this medusa models only has `\\d+` heads|does not support sliding window attention"), Cause: v.Config, Title: "an option the model cannot take with this TGI",
			Hint: "read the message: drop or change the option it names (--num-shard with exl2, --kv-cache-dtype, --speculate, --max-input-tokens under the model's sliding window)"},
		// models/__init__.py get_model: no model_type in config.json;
		// utils/hub.py weight_files: no weights where they should be.
		{ID: "tgi.no_model", Matcher: re("Could not determine model type for|No local weights found in|not found in", "Could not determine model type for \\S+ revision|No local weights found in \\S+ with extension|^(?:FileNotFoundError: )?File \\S+ not found in \\S+"), Cause: v.ModelLoad, Title: "the model's files are not where TGI looks",
			Hint: "check the model id or path (config.json with model_type, the weight files in the format TGI wants, .safetensors), the revision, and that the volume is mounted"},
		// server/text_generation_server/models/causal_lm.py and
		// seq2seq_lm.py (1.x-3.3): --quantize where TGI sees no GPU.
		{ID: "tgi.quantize_cpu", Matcher: lit("quantization is not available on CPU"), Cause: v.Config, Title: "--quantize was given but TGI sees no GPU",
			Hint: "make the GPUs visible to the shards (the container's --gpus, CUDA_VISIBLE_DEVICES, the NVIDIA runtime), or drop --quantize{flag:--quantize} to run on the CPU"},
		// server/text_generation_server/layers/attention/cuda.py (2.x-3.3).
		{ID: "tgi.flash_decoding_v2", Matcher: lit("Flash decoding requires Flash Attention V2"), Cause: v.Dependency, Title: "flashdecoding attention needs Flash Attention v2",
			Hint: "use the official image (which ships flash-attn v2) on an Ampere or newer GPU, or set ATTENTION to another backend"},
		// server/text_generation_server/utils/weights.py (2.x-3.3).
		{ID: "tgi.weight_missing", Matcher: re("does not exist", `^(?:RuntimeError: )?weight \S+ does not exist`), Cause: v.ModelLoad, Title: "a weight the model needs is not in the checkpoint",
			Hint: "the checkpoint does not match the architecture or quantization TGI chose: check --quantize and that the files are complete"},
		// server/text_generation_server/models/__init__.py and
		// custom_modeling/vlm.py (2.x-3.3).
		{ID: "tgi.unsupported_model", Matcher: re("Unsupported model type", `Unsupported model type \S+`), Cause: v.Config, Title: "TGI does not support this model type",
			Hint: "upgrade TGI, or serve the model with another server; check that config.json's model_type is right"},
		// server/text_generation_server/models/__init__.py (1.x-3.3): no
		// native implementation, and the transformers fallback cannot
		// shard or run the quantization.
		{ID: "tgi.automodel_unsupported", Matcher: re("not supported for", `(?:gptq|awq|4bit|Eetq|exl2) quantization is not supported for AutoModel|sharded is not supported for (?:AutoModel|this model)`), Cause: v.Config, Title: "TGI has no native implementation of this model, and its transformers fallback cannot shard it or run this quantization",
			Hint: "drop --num-shard / --sharded or --quantize, use a checkpoint the fallback reads, or a TGI release with a native implementation of this architecture"},
		// server/text_generation_server/utils/weights.py (1.x-3.3, spelt
		// "choosen"; "chosen" in some custom models).
		{ID: "tgi.shard_size", Matcher: re("is not compatible with sharding on", `The cho+sen size \d+ is not compatible with sharding on \d+ shards`), Cause: v.Config, Title: "a weight does not split evenly over the shards",
			Hint: "choose a --num-shard{flag:--num-shard} that divides the model's dimensions (usually 1, 2, 4 or 8)"},
		// server/text_generation_server/models/__init__.py (1.x-3.3); the
		// reason is the earlier warning "Could not import Flash Attention
		// enabled models: ...".
		{ID: "tgi.flash_attn_required", Matcher: lit("requires Flash Attention enabled models"), Cause: v.Config, Because: "tgi.no_flash_models", Title: "this model or sharding needs TGI's Flash Attention models, which could not be loaded",
			Hint: "the warning 'Could not import Flash Attention enabled models: ...' says why: run the official image on a GPU it supports (and check the container sees the GPU), or run unsharded"},
		// launcher/src/main.rs (2.x-3.3).
		{ID: "tgi.webserver", Matcher: re("Webserver Crashed|Failed to start webserver", `Webserver Crashed|Failed to start webserver`), Fatal: true, Title: "the router failed to start"},
		// backends/v3/src/lib.rs check_max_batch_total_tokens (3.x): the
		// KV cache the shards made holds fewer tokens than
		// --max-total-tokens; the router prints its error's Debug form,
		// "Error: Backend(NotEnoughMemory(131072))".
		{ID: "tgi.kv_not_enough", Matcher: re("NotEnoughMemory|max_total_tokens=", `NotEnoughMemory\(\d+\)|Not enough memory to handle .max_total_tokens=\d+`), Cause: v.GPUOOM, Fatal: true, Title: "the KV cache holds fewer tokens than --max-total-tokens",
			Hint: "lower --max-total-tokens{flag:--max-total-tokens} (and --max-input-tokens), shard the model over more GPUs (--num-shard) or quantize it (--quantize); raise --cuda-memory-fraction only if nothing else uses the GPU"},
		// The launcher's and the router's final "Error: <error>"
		// (ShardCannotStart, WebserverFailed, Backend(Warmup(...)),
		// WebServer(Axum(... AddrInUse ...))): what it quotes may name the
		// cause when the lines before it were filtered out.
		{ID: "tgi.launcher_error", Matcher: re("Error: ", `^Error: [A-Z][A-Za-z]+`), Fatal: true, Quotes: true, Title: "the launcher gave up"},
		// torch's CUDA OOM in a shard, with TGI's own knobs (the common
		// rule names other servers'; a user's k8s deployment of TGI 2.0 ran out
		// while loading a 70B model on two shards).
		{ID: "tgi.cuda_oom", Matcher: lit("CUDA out of memory"), Cause: v.GPUOOM, Title: "the GPU ran out of memory",
			Hint: "shard the model over more GPUs (--num-shard), quantize it (--quantize), or, when it ran out at warmup, lower --max-batch-prefill-tokens / --max-total-tokens (the warmup allocates for them); lower --cuda-memory-fraction only if another process shares the GPU"},
	},
	Notable: tgiNotable,
	// router/src/server.rs (2.x-3.3), after the warmup.
	Ready:  []Matcher{re("Connected", `^Connected$`)},
	Detect: []string{"text_generation_launcher", "text_generation_router", "text-generation-launcher"},
}

// generic is used while the server kind is unknown: only the library-level
// failures and nothing server-specific.
var generic = &Profile{
	Name: "", HealthPath: "/health",
	Order:  v.Phases,
	Phases: ncclPhases,
}

// ncclPhases are the lines of the libraries every multi-GPU server (all
// but llama.cpp) makes its process groups with, after its own phase
// markers: a log that starts inside NCCL_DEBUG=INFO's output, or a start
// that hangs in it, is in distributed. Only the setup's lines are
// markers: a phase line from a rank keeps none of its errors, and NCCL
// reports a failure's unwinding at INFO too ("NCCL INFO
// transport/net.cc:1227 -> 6").
var ncclPhases = []PhaseRule{
	// src/init.cc, src/bootstrap.cc, src/graph/*, the net plugins
	// (2.1x-2.28).
	{ID: "nccl.phase.setup", Matcher: re("NCCL INFO", `NCCL INFO (?:Bootstrap|NCCL version|cudaDriverVersion|ncclCommInitRank|comm 0x[0-9a-f]+ rank \d|Init COMPLETE|Init timings|NET/|TUNER/|Using network|Comm config|Channel \d|Connected all|threadThresholds|Setting affinity|P2P Chunksize|Symmetric memory)`), Phase: v.Distributed},
}

// Profiles are the known server kinds by name.
var Profiles = map[string]*Profile{
	"sglang": sglang, "vllm": vllm, "trtllm": trtllm, "llamacpp": llamacpp, "tgi": tgi,
}

// ServingOnly reports whether line is one only a started server of
// profile p prints (Profile.ServingOnly).
func ServingOnly(p *Profile, line string) bool {
	for _, lit := range p.ServingOnly {
		if strings.Contains(line, lit) {
			return true
		}
	}
	return false
}

// ServingOnlyServer is the first server (in v.Servers' order) one of
// whose ServingOnly literals line holds, or "".
func ServingOnlyServer(line string) string {
	for _, name := range v.Servers {
		if ServingOnly(Profiles[name], line) {
			return name
		}
	}
	return ""
}

// MayBeServingOnly reports whether line holds any profile's ServingOnly
// literal: the offline judge asks it of a run's lines until one marks a
// step, and most are not (DetectLog, which names the profile to ask,
// costs more). One pass looks for all of them.
func MayBeServingOnly(line string) bool {
	return servingOnlyLits().Scan(line) != 0
}

var servingOnlyLits = sync.OnceValue(func() *litset.Set {
	var lits []string
	for _, name := range v.Servers {
		lits = append(lits, Profiles[name].ServingOnly...)
	}
	return litset.New(lits...)
})

// ReplayHits calls hit with the offset of each place in text (many
// lines) where a profile's Replays literal begins, in no order.
func ReplayHits(text string, hit func(at int)) {
	for _, p := range Profiles {
		for _, k := range p.Replays {
			for at := 0; ; {
				i := strings.Index(text[at:], k)
				if i < 0 {
					break
				}
				hit(at + i)
				at += i + len(k)
			}
		}
	}
}

const (
	nativeStacks   = "`gdb -p PID -batch -ex 'thread apply all bt'` (or eu-stack -p PID) shows where its threads wait"
	llamaLoadStall = "loading stopped: a model file on a slow or hung filesystem (NFS, a pipe that nothing writes), or a download (-hf) without network; " + nativeStacks
)

// QuietFlag returns the flag of argv, as written, that is one of the
// profile's QuietFlags, or "".
func (pr *Profile) QuietFlag(argv []string) string { return flagAmong(argv, pr.QuietFlags) }

// flagAmong returns the flag of argv, as written, that is one of specs
// ("flag", "flag value" or "flag *"), or "".
func flagAmong(argv, specs []string) string {
	for i, a := range argv {
		name, val, hasVal := strings.Cut(a, "=")
		if !hasVal && i+1 < len(argv) {
			val = argv[i+1]
		}
		for _, q := range specs {
			flag, want, takesVal := strings.Cut(q, " ")
			switch {
			case name != flag:
			case !takesVal:
				return name
			case want == "*" || val == want:
				return name + " " + val
			}
		}
	}
	return ""
}

// StallHint is the profile's own hint for a stall in phase ph, or "".
func (pr *Profile) StallHint(ph v.Phase) string {
	if h, ok := pr.StallHints[ph]; ok {
		return h
	}
	return pr.StallHints[""]
}

// Lookup returns the profile for a server kind; "" or unknown names give
// the generic profile.
func Lookup(name string) *Profile {
	if p, ok := Profiles[name]; ok {
		return p
	}
	return generic
}
