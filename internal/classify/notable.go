package classify

// NotableRule recognises a warning that changes what the server computes
// or how fast, out of the dozens a start prints. A notable line never
// fails a startup; it is reported next to the verdict.
type NotableRule struct {
	// ID is a stable name, e.g. "sglang.deepgemm_scale".
	ID string
	Matcher
	// Effect is what the warning changes: "accuracy", "speed" or
	// "capacity" (fewer tokens or requests fit).
	Effect string
	// Meaning says in one line what the warning means for the user.
	Meaning string
}

const (
	EffectAccuracy = "accuracy"
	EffectSpeed    = "speed"
	EffectCapacity = "capacity"
)

// commonNotable are printed by libraries that several servers share
// (vLLM's and SGLang's common layers, transformers).
var commonNotable = []NotableRule{
	// vllm distributed/device_communicators/custom_all_reduce.py (0.4-0.12),
	// copied into sglang distributed/device_communicators/custom_all_reduce.py.
	{ID: "allreduce.custom_off", Matcher: lit("Custom allreduce is disabled"), Effect: EffectSpeed,
		Meaning: "tensor-parallel all-reduce falls back to NCCL, which is slower for small decode batches"},
	// vllm quantization/utils/marlin_utils_fp8.py, sglang the same file.
	{ID: "quant.fp8_marlin", Matcher: lit("does not have native support for FP8 computation"), Effect: EffectSpeed,
		Meaning: "this GPU has no FP8 tensor cores: FP8 weights run through weight-only Marlin kernels, slower on prefill-heavy work"},
	// vllm config (ModelConfig._get_and_verify_dtype) and sglang
	// configs/model_config.py: --dtype differs from the checkpoint's.
	{ID: "dtype.cast", Matcher: re("Casting torch.", `^Casting torch\.\w+ to torch\.\w+`), Effect: EffectAccuracy,
		Meaning: "the weights are cast to another dtype than the checkpoint's (float16 can overflow where bfloat16 does not)"},
	// vllm and sglang model_loader/weight_utils.py: an FP8 KV cache without
	// the checkpoint's scales.
	{ID: "kv.fp8_no_scales", Matcher: re("Defaulting to scaling factors of 1.0|Using KV cache scaling factor 1.0", `Defaulting to scaling factors of 1\.0|Using KV cache scaling factor 1\.0`), Effect: EffectAccuracy,
		Meaning: "the FP8 KV cache runs with scale 1.0 instead of calibrated scales, which can cost accuracy"},
	// sglang configs/model_config.py and vllm config: with
	// SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN / VLLM_ALLOW_LONG_MAX_MODEL_LEN
	// the check is only a warning.
	{ID: "ctx.over_derived", Matcher: re("is greater than the derived", `User-specified (context_length|max_model_len) \(\d+\) is greater than the derived`), Effect: EffectAccuracy,
		Meaning: "the context is longer than the model was trained for: outputs past the model's limit may be wrong"},
	// Every server's CUDA graphs: sglang server_args.py ("Cuda graph is
	// disabled because ..."), vllm V1 ("Cudagraph is disabled under eager
	// mode"), vllm on ROCm ("CUDA graph is not supported on ..."), TGI
	// flash_causal_lm.py ("Cuda Graphs are disabled (CUDA_GRAPHS=...)") and
	// launcher/src/main.rs ("... doesn't work with cuda graphs, deactivating them").
	{ID: "cudagraph.off", Matcher: fold("cuda graph is disabled|cudagraph is disabled|cuda graphs are disabled|with cuda graphs, deactivating|cuda graph is not supported"), Effect: EffectSpeed,
		Meaning: "decoding runs without CUDA graphs: every step pays the kernel launch overhead, much slower at small batch sizes"},
	// torch/cuda/__init__.py _check_driver / is_available (2.x): CUDA
	// could not start ("UserWarning: CUDA initialization: The NVIDIA
	// driver on your system is too old (found version 12020)..."); the
	// server then finds no GPU, and this line says why (cuda.no_gpu's
	// Because).
	{ID: "torch.cuda_init", Matcher: lit("UserWarning: CUDA initialization"), Effect: EffectSpeed,
		Meaning: "torch could not initialise CUDA: the server finds no GPU, or runs on the CPU"},
	// transformers image_processing_auto.py.
	{ID: "hf.slow_processor", Matcher: lit("Using a slow image processor"), Effect: EffectSpeed,
		Meaning: "images are preprocessed by the slow Python processor, which can bottleneck multimodal requests"},
	// transformers configuration_utils.py.
	{ID: "hf.model_type_mismatch", Matcher: re("to instantiate a model of type", `You are using a model of type \S+ to instantiate a model of type \S+`), Effect: EffectAccuracy,
		Meaning: "the checkpoint's model type differs from the architecture loaded: outputs may be wrong"},
}

var sglangNotable = []NotableRule{
	// sglang configs/model_config.py (0.5.x): block-FP8 checkpoints on
	// Blackwell, whose DeepGEMM wants UE8M0 scales.
	{ID: "sglang.deepgemm_scale", Matcher: lit("DeepGemm is enabled but the scale_fmt of checkpoint is not ue8m0"), Effect: EffectAccuracy,
		Meaning: "DeepGEMM requantizes this checkpoint's scales to UE8M0 on Blackwell, which can degrade accuracy"},
	// sglang server_args.py (0.4-0.5.x): "Overlap scheduler is disabled
	// because of ..." (speculative decoding, pipeline parallelism, ...).
	{ID: "sglang.overlap_off", Matcher: fold("overlap scheduler is disabled"), Effect: EffectSpeed,
		Meaning: "the CPU scheduling of the next batch no longer overlaps GPU work, which lowers throughput"},
	// sglang kv_cache_configurator.py / model_runner (0.5.x): the KV pool
	// holds fewer requests than --max-running-requests asked for.
	{ID: "sglang.max_running_reduced", Matcher: lit("max_running_requests was reduced from the requested"), Effect: EffectCapacity,
		Meaning: "the KV cache holds fewer concurrent requests than --max-running-requests asked for: raising it has no effect"},
	// sglang cuda_graph_setup.py capture_prefill_graph (0.5.x): prefill
	// CUDA graphs turned off by the server itself ("because the model is
	// not a language model", "because some layers do not apply Standard
	// GQA", "for EAGLE target ..."); not the backend the user set to
	// disabled ("because cuda_graph_config resolved ...").
	{ID: "sglang.prefill_graph_off", Matcher: re("Disable prefill CUDA graph", `Disable prefill CUDA graph (?:for |because (?:the|some))`), Effect: EffectSpeed,
		Meaning: "prefill runs without CUDA graphs: short prompts wait longer for their first token"},
}

var vllmNotable = []NotableRule{
	// vllm attention/selector.py (V0, to 0.10): Volta/Turing fall back
	// from FlashAttention-2.
	{ID: "vllm.flash_attn_off", Matcher: lit("Cannot use FlashAttention-2 backend"), Effect: EffectSpeed,
		Meaning: "attention falls back from FlashAttention-2 to a slower backend on this GPU or dtype"},
	// vllm compilation monitor (0.11+): a Triton kernel compiled while
	// serving requests instead of at startup.
	{ID: "vllm.jit_during_inference", Matcher: lit("Triton kernel JIT compilation during inference"), Effect: EffectSpeed,
		Meaning: "a Triton kernel was compiled on a live request: that request's latency spikes"},
	// v1/core/kv_cache_utils.py _auto_fit_max_model_len (--max-model-len
	// auto): "Auto-fit max_model_len: reduced from %d to %d to fit in
	// available GPU memory".
	{ID: "vllm.autofit_reduced", Matcher: lit("Auto-fit max_model_len: reduced from"), Effect: EffectCapacity,
		Meaning: "the context length was cut to what the KV cache holds: longer prompts are refused"},
}

var llamacppNotable = []NotableRule{
	// common/fit.cpp common_fit_params (b10587, --fit on by default): it
	// could not shrink the context or move layers off the GPU enough, so
	// the model loads with the parameters as given.
	{ID: "llamacpp.fit_failed", Matcher: lit("failed to fit params to free device memory"), Effect: EffectCapacity,
		Meaning: "llama.cpp could not fit the model and its context in free memory (--fit): it loads with -c and -ngl as given, which may run out of memory or crawl; lower -c or -ngl"},
	// tools/server/server-models.cpp (b10587): router mode (no -m) with
	// no cached model, --models-dir or --models-preset to serve.
	{ID: "llamacpp.router_no_models", Matcher: lit("Available models (0)"), Effect: EffectCapacity,
		Meaning: "the router has no model to serve: every request for one fails until a model is added (-m, -hf, --models-dir or --models-preset)"},
	// tools/server/server-context.cpp load_model (b10587): "the slot
	// context (8192) exceeds the training context of the model (2048) -
	// capping".
	{ID: "llamacpp.slot_ctx_capped", Matcher: lit("exceeds the training context of the model"), Effect: EffectCapacity,
		Meaning: "each slot's context is cut to the model's training context, shorter than -c asked: longer prompts are refused"},
	// common/arg.cpp -ngl / -ngld (b10587): a build without a GPU backend,
	// or one that finds no device, prints it before its logger starts.
	{ID: "llamacpp.no_gpu", Matcher: lit("no usable GPU found"), Effect: EffectSpeed,
		Meaning: "llama.cpp found no GPU to offload to (a build without GPU support, or no device visible to it): -ngl is ignored and the model runs on the CPU, many times slower"},
	// src/llama-mmap.cpp llama_mlock (b10587): --mlock (--load-mode
	// mlock) under a RLIMIT_MEMLOCK smaller than the weights.
	{ID: "llamacpp.mlock_failed", Matcher: lit("failed to mlock"), Effect: EffectSpeed,
		Meaning: "the weights are not locked in memory (--mlock): the kernel may page them out, and a request after a quiet spell waits for them to be read again; raise the memlock limit (ulimit -l, systemd's LimitMEMLOCK=, a container's --ulimit memlock)"},
	// common/common.cpp common_init_from_params (b10587): no
	// --control-vector file could be read, and the context's set-up
	// returns early: the vectors, the --lora adapters and the warm-up are
	// all left out, and the server still starts.
	{ID: "llamacpp.control_vector_failed", Matcher: lit("no valid control vector files passed"), Effect: EffectAccuracy,
		Meaning: "the --control-vector files could not be read: the server answers without them, and without its --lora adapters applied (llama.cpp stops setting up the context there)"},
	// common/fit.cpp (at -lv 4): the context was cut to fit.
	{ID: "llamacpp.ctx_reduced", Matcher: lit("context size reduced from"), Effect: EffectCapacity,
		Meaning: "--fit cut the context to what free memory holds: longer prompts are refused; give -c to choose"},
}

var tgiNotable = []NotableRule{
	// server/text_generation_server/models/__init__.py (2.x-3.x).
	{ID: "tgi.no_flash_models", Matcher: lit("Could not import Flash Attention enabled models"), Effect: EffectSpeed,
		Meaning: "TGI runs the model without its flash-attention implementation: slower, and some models refuse to load"},
	// launcher/src/main.rs (2.x-3.x).
	{ID: "tgi.prefill_reduced", Matcher: lit("Reducing the max batch prefill from"), Effect: EffectCapacity,
		Meaning: "the GPU memory fits fewer prefill tokens per batch than the default, which lowers throughput"},
	// launcher/src/main.rs (3.x): flashinfer does not support the head dim.
	{ID: "tgi.attention_forced", Matcher: lit("Forcing attention to"), Effect: EffectSpeed,
		Meaning: "the attention backend was changed from the one chosen and prefix caching may be off"},
	// server/text_generation_server/layers/gptq/__init__.py.
	{ID: "tgi.exllama_off", Matcher: lit("Disabling exllama because desc_act=True"), Effect: EffectSpeed,
		Meaning: "this GPTQ checkpoint cannot use the fast exllama kernels"},
	// server/text_generation_server/models/flash_causal_lm.py (3.x): an OOM
	// while capturing decode graphs is logged and the shard goes on.
	{ID: "tgi.graph_warmup_failed", Matcher: lit("Decode cuda graph warmup failed"), Effect: EffectSpeed,
		Meaning: "decode CUDA graphs could not be captured (out of memory): decoding runs without them"},
	// router/src/server.rs (2.x-3.x).
	{ID: "tgi.legacy_tokenizer", Matcher: lit("Odd tokenizer detected, falling back on legacy tokenization"), Effect: EffectAccuracy,
		Meaning: "the router tokenizes with its legacy path, so token counts and limits may differ from the model's tokenizer"},
}
