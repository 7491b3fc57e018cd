package classify

import (
	"slices"
	"sort"
	"strings"
	"testing"

	v "vigil/internal/verdict"
)

// ruleLine is a real line and the catalogue rule it must match first.
type ruleLine struct {
	server, id, line string
}

// failureLines hold at least one line for every failure rule of every
// profile and of the common catalogue, as the servers print them.
var failureLines = []ruleLine{
	// gpu_oom
	{"vllm", "torch.cuda_oom", "(EngineCore_DP0 pid=1) ERROR 11-29 10:00:00 [core.py:866] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 112.00 MiB. GPU 0 has a total capacity of 79.19 GiB of which 40.00 MiB is free."},
	{"sglang", "torch.oom_error", "[2026-11-29 10:00:00 TP0] torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)"},
	{"tgi", "tgi.cuda_oom", "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU  has a total capacity of 44.34 GiB of which 160.81 MiB is free. Process 47694 has 44.17 GiB memory in use."},
	{"tgi", "cuda.oom", "RuntimeError: CUDA error: out of memory"},
	{"llamacpp", "cuda.oom", "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9000.00 MiB on device 0: cudaMalloc failed: out of memory"},
	// torch_npu (vLLM on Ascend, 2025).
	{"vllm", "cuda.oom", "RuntimeError: NPU out of memory. Tried to allocate 326.00 MiB (NPU 0; 60.96 GiB total capacity; 57.81 GiB already allocated)"},
	{"llamacpp", "llamacpp.alloc", "alloc_tensor_range: failed to allocate CUDA0 buffer of size 9437184000"},
	{"vllm", "kv.too_small", "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (20000). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."},
	{"tgi", "tgi.prefill_oom", "RuntimeError: Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`"},
	// sglang#931.
	{"sglang", "sglang.min_sm", "RuntimeError: SGLang only supports sm75 and above."},
	// sglang#4503 (0.4.4.post1), kvcache-ai/ktransformers#1666 (0.5.x).
	{"sglang", "sglang.other_rank_load", "ValueError: TP rank 1 could finish the model loading, but there are other ranks that didn't finish loading. It is likely due to unexpected failures (e.g., OOM) or a slow node."},
	{"sglang", "sglang.kv_pool", "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.6"},
	{"trtllm", "trtllm.load_module", "[09/17/2025-21:24:19] [TRT-LLM] [RANK 2] [E] Error executing load_single_module with args ('model.layers.9.mlp.gate_up_proj', Linear()): CUDA out of memory. Tried to allocate 40.00 MiB. GPU 0 has a total capacity of 22.07 GiB of which 20.62 MiB is free."},
	{"sglang", "sglang.graph_oom", "[2026-11-29 10:00:00 TP0] Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 2.00 GiB."},
	{"vllm", "vllm.startup_free_memory", "ValueError: Free memory on device cuda:0 (10.51/79.19 GiB) on startup is less than desired GPU memory utilization (0.9, 71.27 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."},
	// vllm#23278 (0.10.1).
	{"vllm", "vllm.kv_negative", "(EngineCore_0 pid=5839) INFO 08-20 18:04:22 [gpu_worker.py:276] Available KV cache memory: -2.14 GiB"},
	{"vllm", "vllm.kv_blocks", "(EngineCore pid=42) ERROR 08-20 10:00:41 [core.py:1010] ValueError: Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. Try increasing `gpu_memory_utilization`."},
	{"sglang", "sglang.kv_pool", "AssertionError: Memory pool size is too small"},
	{"sglang", "sglang.kv_pool", "AssertionError: max_running_request is zero"},
	// kernel_build: SGLang's JIT kernels (jit_kernel build helper), nvcc's
	// diagnostics and clang's (ROCm) missing header.
	{"sglang", "jit.module", "RuntimeError: Failed to build JIT module sgl_kernel_jit_dpsk_v4_silu_and_mul_clamp_bf16_t_false in /root/.cache/sglang/jit/sm100/dpsk_v4"},
	{"sglang", "jit.module", "[2026-11-20 10:00:30 TP0] RuntimeError: Capture prefill CUDA graph failed: Failed to build JIT module sgl_kernel_jit_gelu_tanh_and_mul_fp4_quant_true"},
	{"sglang", "jit.nvcc_diag", "gelu_tanh_and_mul_fp4_quant.cuh(172): error: name must be a namespace name"},
	{"sglang", "jit.cc", "/root/.cache/sglang/jit/dpsk_v4/silu_and_mul_clamp.cuh:3:10: fatal error: 'cuda_fp8.h' file not found"},
	// vllm multiproc_executor.py collective_rpc: an announcement whose
	// quoted error names the cause (TestQuoted; the judge's tests).
	{"vllm", "vllm.worker_failed", "(EngineCore pid=42) ERROR 08-20 10:00:41 [core.py:1010] RuntimeError: Worker failed with error 'CUDA error: no kernel image is available for execution on the device', please check the stack trace above for the root cause"},
	// TensorRT-LLM's KV cache manager and executor creator.
	{"trtllm", "trtllm.kv_no_sequence", "AssertionError: Impossible to fit in any sequence in kvCache"},
	{"trtllm", "trtllm.executor_oom", "RuntimeError: Executor creation failed with an error which might indicate insufficient GPU memory."},
	{"trtllm", "trtllm.worker_returned_error", "RuntimeError: Executor worker returned error"},
	// executor/proxy.py _start_executor_workers; llmapi/llm.py (1.x).
	{"trtllm", "trtllm.worker_died", "[11/29/2025-13:01:40] [TRT-LLM] [E] Executor worker died during initialization."},
	{"trtllm", "trtllm.worker_died", "RuntimeError: Executor worker died during initialization"},
	{"trtllm", "trtllm.too_few_gpus", "RuntimeError: Only 2 GPUs are available, but 8 are required."},
	// PyYAML 6 (yaml/parser.py, scanner.py) reading trtllm-serve's --config.
	// flashinfer jit/cpp_ext.py run_ninja's output (CUDA 12.6 on sm_120).
	{"vllm", "jit.nvcc_arch", "(EngineCore_DP0 pid=312) ERROR 11-14 09:13:13 [core.py:708] nvcc fatal   : Unsupported gpu architecture 'compute_120a'"},
	// vllm engine/arg_utils.py parse_type through argparse.
	{"vllm", "argparse.bad_value", "vllm serve: error: argument --speculative-config: Value {method: eagle3, num_speculative_tokens: 3} cannot be converted to <function loads at 0x7f8e2c1b1d00>."},
	{"sglang", "argparse.bad_value", "launch_server.py: error: argument --tp-size: invalid int value: 'two'"},
	// transformers models/auto/tokenization_auto.py.
	{"vllm", "hf.tokenizer_class", "(APIServer pid=1) ValueError: Tokenizer class TokenizersBackend does not exist or is not currently imported."},
	// vllm v1/executor/multiproc_executor.py wait_for_ready (0.9-0.11).
	{"vllm", "vllm.worker_init_failed", "(EngineCore_DP0 pid=16449) ERROR 09-30 04:44:55 [core.py:708] Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause."},
	// vllm entrypoints/openai/cli_args.py; v1/engine/core.py (0.11).
	{"vllm", "vllm.tool_choice_parser", "TypeError: Error: --enable-auto-tool-choice requires --tool-call-parser"},
	{"vllm", "vllm.dp_handshake", "(EngineCore_DP2 pid=88) RuntimeError: Did not receive response from front-end process within 5 minutes"},
	// sglang entrypoints/http_server.py _execute_server_warmup (0.4, 0.5).
	{"sglang", "sglang.warmup_refused", "AssertionError: <Response [400]>"},
	{"sglang", "sglang.warmup_refused", `AssertionError: res=<Response [400]>, res.text='{"object":"error","message":"The input (7 tokens) is longer than the model\'s context length (4 tokens).","type":"BadRequestError","param":null,"code":400}'`},
	// sglang model_loader/utils.py; vllm model_executor/models/registry.py.
	{"sglang", "arch.not_registered", "ValueError: Cannot find model module. 'UrsaForConditionalGeneration' is not a registered model in the Transformers library (only relevant if the model is meant to be in Transformers) and 'AutoModel' is not present in the model config's 'auto_map' (relevant if the model is custom)."},
	{"vllm", "arch.not_registered", "(EngineCore_DP0 pid=2) ValueError: Cannot find model module. 'FooForCausalLM' is not a registered model in the Transformers library (only relevant if the model is meant to be in Transformers) and 'AutoModel' is not present in the model config's 'auto_map' (relevant if the model is custom)."},
	{"trtllm", "yaml.syntax", "yaml.parser.ParserError: while parsing a block mapping"},
	{"sglang", "yaml.syntax", "yaml.scanner.ScannerError: mapping values are not allowed here"},
	{"trtllm", "cuda.no_gpu", "ValueError: No GPU devices found on the node"},
	// TGI's launcher, server and router.
	// launcher/src/main.rs: a fatal argument error whose message says
	// "is deprecated", a benign phrase elsewhere.
	{"tgi", "tgi.args", "Error: ArgumentValidation(\"Both `max_input_tokens` (1000) and `max_input_length` (1000) are set. Please define only `max_input_tokens` as `max_input_length is deprecated for naming consistency.\")"},
	{"tgi", "rust.panic", "thread 'main' panicked at launcher/src/main.rs:1384:18:"},
	{"tgi", "tgi.no_devices", "--num-shard and CUDA_VISIBLE_DEVICES/NVIDIA_VISIBLE_DEVICES/ZE_AFFINITY_MASK are not set"},
	{"tgi", "tgi.dtype_and_quantize", "RuntimeError: Only 1 can be set between `dtype` and `quantize`, as they both decide how goes the final model."},
	{"tgi", "tgi.model_options", "RuntimeError: Sharding is currently not supported with `exl2` quantization"},
	{"tgi", "tgi.model_options", "RuntimeError: Unknown kv_cache_dtype: fp8_e5m2"},
	{"tgi", "tgi.model_options", "RuntimeError: Speculate is set to `3` but this medusa models only has `2` heads, please make them match"},
	{"tgi", "tgi.model_options", "ValueError: The backend cuda does not support sliding window attention that is used by the model type mistral. To use this model nonetheless with the cuda backend, please launch TGI with the argument `--max-input-tokens` smaller than sliding_window=4096 (got here max_input_tokens=8000)."},
	{"tgi", "tgi.no_model", "RuntimeError: Could not determine model type for foo/bar revision None"},
	{"tgi", "tgi.no_model", "FileNotFoundError: No local weights found in /data/foo with extension .safetensors"},
	{"tgi", "tgi.no_model", "FileNotFoundError: File /data/x/model.safetensors not found in /data/x."},
	{"tgi", "tgi.flash_decoding_v2", "ValueError: Flash decoding requires Flash Attention V2"},
	{"tgi", "tgi.kv_not_enough", "Error: Backend(NotEnoughMemory(131072))"},
	{"vllm", "vllm.tp_over_gpus", "(APIServer pid=1) ValueError: Unable to load Ray which is required for multi-node inference, please install Ray with `pip install ray`."},
	{"vllm", "hf.remote_code", "(APIServer pid=1) RuntimeError: Failed to load the model config. If the model is a custom model not yet available in the HuggingFace transformers library, consider setting `trust_remote_code=True` in LLM or using the `--trust-remote-code` flag in the CLI."},
	{"vllm", "vllm.max_len_kv", "ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (5.21 GiB). Based on the available memory, the estimated maximum model length is 42608. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."},
	{"vllm", "vllm.profiling", "AssertionError: Error in memory profiling. Initial free memory 40.1 GiB, current free memory 41.3 GiB. This happens when other processes sharing the same container release GPU memory while vLLM is profiling during initialization."},
	{"trtllm", "trtllm.kv_oom", "[TRT-LLM] [E] Not enough GPU memory to allocate the paged KV cache"},
	{"trtllm", "trtllm.executor_oom", "[07/08/2025-19:47:15] [TRT-LLM] [RANK 1] [E] Failed to initialize executor on rank 1: Executor creation failed due to insufficient GPU memory."},
	// host_oom
	{"", "sys.killed", "Killed"},
	{"", "sys.killed", "run.sh: line 12:  4242 Killed                  python3 -m sglang.launch_server --model-path x"},
	{"sglang", "mp.exitcode9", "[2026-11-29 10:00:00] Exit code: -9"},
	{"vllm", "mp.exitcode9", "RuntimeError: Worker failed with signal 9"},
	{"sglang", "sglang.scheduler_killed", "[2026-11-29 10:00:00] RuntimeError: Rank 0 scheduler died during initialization (exit code: -9). If exit code is -9 (SIGKILL), a common cause is the OS OOM killer."},
	{"sglang", "sglang.scheduler_killed", "[2026-11-29 10:00:00] Subprocess scheduler_0 (pid=4242) crashed with exit code -9. Killing all processes."},
	{"vllm", "vllm.engine_failed_9", "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': -9}"},
	{"tgi", "tgi.signaled", "2026-01-08T10:00:00.123456Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to shutdown with signal 9 rank=0"},
	// TGI 1.x on SageMaker, converting a model's .bin weights (2024).
	{"tgi", "tgi.signaled", "2024-08-11T09:01:08.181942Z ERROR download: text_generation_launcher: Download process was signaled to shutdown with signal 9: "},
	// nccl
	{"vllm", "torch.tcpstore_bind", "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use"},
	{"sglang", "nccl.error", "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"},
	{"vllm", "nccl.result", "RuntimeError: ncclUnhandledCudaError: Call to CUDA function failed."},
	// NVIDIA/nccl#2101 (vLLM on a vGPU, NCCL 2.27.5) and the newer form
	// with the error's number.
	{"vllm", "nccl.cuda_failure", "[2026-04-13 19:52:24] pais-modelendpoint-8579zt8:508:508 [0] init.cc:426 NCCL WARN Cuda failure 'operation not supported'"},
	{"sglang", "nccl.cuda_failure", "node1:3113:3113 [0] transport/nvls.cc:154 NCCL WARN Cuda failure 1 'invalid argument'"},
	// NCCL 2.27.5 under SGLang 0.5.9, two nodes over RoCE; then the
	// form before 2.12 (a multi-node guide's log).
	{"sglang", "nccl.ib_completion", "[2026-03-03 12:11:38] tpgds-aihub0007:185303:186751 [1] transport/net_ib.cc:2453 NCCL WARN NET/IB: Got completion from peer 10.99.91.63<51161> with status=4 opcode=32614 len=32614 vendor err 81 (Send) localGid ::ffff:10.99.92.59 remoteGids::ffff:10.99.91.63 hca mlx5_1"},
	{"vllm", "nccl.ib_completion", "node-2:5776:5902 [0] transport/net_ib.cc:1296 NCCL WARN NET/IB : Got completion from peer 10.2.0.5<33092> with error 12, opcode 0, len 0, vendor err 129 (Recv)"},
	// What the judge reads from SGLang 0.4.2's traceback of a --tp of 3
	// (judge.assertion): "    assert self.total_num_heads % tp_size == 0",
	// then "AssertionError".
	{"sglang", "py.assert_tp_heads", "AssertionError: assert self.total_num_heads % tp_size == 0"},
	{"vllm", "torch.dist_backend", "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 1."},
	{"vllm", "nccl.watchdog", "[rank0]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600011 milliseconds before timing out."},
	{"sglang", "nccl.failed_ops", "[rank1]:[E1218 20:37:21.0 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 1] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."},
	{"sglang", "torch.rendezvous", "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"},
	// kernel_build
	{"sglang", "jit.ninja", "RuntimeError: Ninja build failed. Ninja output:"},
	{"vllm", "jit.no_cc", "RuntimeError: Failed to find C compiler. Please specify via CC environment variable."},
	{"vllm", "jit.triton", "triton.compiler.errors.CompilationError: at 32:12:"},
	{"sglang", "jit.nvcc_arch", "nvcc fatal   : Unsupported gpu architecture 'compute_120a'"},
	{"sglang", "jit.nvcc", "/bin/sh: 1: nvcc: not found"},
	{"vllm", "jit.nvcc", "nvcc fatal   : Value 'sm_100a' is not defined for option 'gpu-name'"},
	{"sglang", "jit.cc", "/tmp/x/main.c:1:10: fatal error: Python.h: No such file or directory"},
	{"sglang", "jit.extension", "RuntimeError: Error building extension 'flashinfer_jit': [1/3] c++ -MMD"},
	{"vllm", "torch.backend_compiler", "torch._dynamo.exc.BackendCompilerFailed: backend='<vllm.compilation.backends.VllmBackend object at 0x7f>' raised:"},
	// cuda
	{"sglang", "cuda.no_kernel_image", "RuntimeError: RMSNorm failed with error code no kernel image is available for execution on the device"},
	{"vllm", "cuda.illegal_access", "RuntimeError: CUDA error: an illegal memory access was encountered"},
	{"vllm", "cuda.device_assert", "RuntimeError: CUDA error: device-side assert triggered"},
	{"vllm", "cuda.driver", "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx"},
	{"sglang", "cuda.no_gpu", "RuntimeError: No CUDA GPUs are available"},
	{"vllm", "cuda.launch_failure", "RuntimeError: CUDA error: unspecified launch failure"},
	{"vllm", "cuda.blas", "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`"},
	{"sglang", "cuda.error", "RuntimeError: CUDA error: operation not permitted when stream is capturing"},
	// port_in_use
	// Newest releases on newer and other GPUs, from users' logs:
	// Blackwell-only backends (sglang#9140), FA3-only sinks (vllm#22331),
	// FP8 blocks split by TP (vllm#45784), hybrid KV specs (vllm#42911),
	// Ascend's runtime (vllm-ascend#3017), ptxas on sm_120a (sglang#8879).
	{"sglang", "gpu.capability", "ValueError: TRTLLM MHA backend is only supported on Blackwell GPUs (SM100). Please use a different backend."},
	{"vllm", "attn.fa3_only", "(EngineCore_0 pid=41) ERROR 08-06 10:00:00 [core.py:718] AssertionError: Sinks are only supported in FlashAttention 3"},
	{"vllm", "quant.fp8_block_split", "(Worker_TP4_EP4 pid=1364712) ERROR 11-02 10:00:00 [multiproc_executor.py:888] ValueError: Weight input_size_per_partition = 192 is not divisible by weight quantization block_k = 128."},
	{"vllm", "quant.fp8_block_split", "ValueError: The output_size of gate's and up's weight = 80 is not divisible by weight quantization block_n = 128."},
	{"sglang", "quant.fp8_block_split", "ValueError: Weight output_partition_size = 8 is not divisible by weight quantization block_n = 128."},
	{"vllm", "cuda.no_kernel_image", "NotImplementedError: No compiled get_cutlass_moe_mm_data: no cutlass_scaled_mm kernel for CUDA device capability: 120. Required capability: 90 or 100"},
	{"vllm", "vllm.hybrid_kv_off", "(EngineCore pid=120) ERROR 10-20 10:00:00 [core.py:1108] ValueError: Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type."},
	{"vllm", "npu.runtime", "EH9999: Inner Error!"},
	// vllm-ascend#5493, an AI core that timed out in the profile run.
	{"vllm", "npu.runtime", "[rank0]:[E1229 13:22:33.992084477 compiler_depend.ts:444] operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:34 NPU function error: call aclnnRmsNorm failed, error code is 507014"},
	{"sglang", "jit.ptxas", "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error"},
	{"sglang", "jit.ptxas", "ptxas fatal   : Ptx assembly aborted due to errors"},
	// vllm lora/worker_manager.py, quantization/awq.py, chat_utils.py
	// (vllm#30690, Qwen3-VL#831, vllm#47600).
	{"vllm", "vllm.lora_missing", "(EngineCore_DP0 pid=1511501) ERROR 12-16 10:00:00 [core.py:918] ValueError: Loading lora table_qc failed: No adapter found for /data/lora/checkpoint-57"},
	{"vllm", "vllm.quant_tp_split", "(VllmWorkerProcess pid=2215) ERROR 03-01 10:00:00 multiproc_worker_utils.py:242] ValueError: The input size is not aligned with the quantized weight shape. This can be caused by too large tensor parallel size."},
	{"vllm", "vllm.chat_template_path", "ValueError: The supplied chat template string (examples/tool_chat_template_gemma4.jinja) appears path-like, but doesn't exist!"},
	// vllm default_loader.py, one rank of eight (vllm#21713).
	{"vllm", "weights.not_initialized", "(VllmWorker rank=3 pid=4867) ERROR 07-28 10:00:00 [multiproc_executor.py:511] ValueError: Following weights were not initialized from checkpoint: {'model.layers.19.mlp.shared_experts.gate_up_proj.weight'}"},
	// vLLM on Intel GPUs (vllm#11173, #20743) and on ROCm (gpustack#3786).
	{"vllm", "xpu.runtime", "ERROR 12-14 10:00:00 [worker_base.py:622] RuntimeError: UR error"},
	{"vllm", "xpu.runtime", "RuntimeError: The device (Intel(R) Graphics [0x7d51]) doesn't support querying the available free memory. You can file an issue at https://github.com/pytorch/pytorch/issues to help us prioritize its implementation."},
	{"vllm", "cuda.error", "\x1b[1;36m(EngineCore_DP0 pid=149)\x1b[0;0m ERROR 11-20 10:00:00 [core.py:842] torch.AcceleratorError: HIP error: invalid device function"},
	// torch.compile's dynamo under sglang --enable-torch-compile.
	{"sglang", "torch.dynamo_failed", "You can suppress this exception and fall back to eager by setting:"},
	{"vllm", "torch.dynamo_failed", `Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information`},
	// An FP8 checkpoint with an e5m2 KV cache (vllm#8409), FP4 GEMMs on a
	// GeForce Blackwell (TensorRT-LLM#5018).
	{"vllm", "kv.dtype_unsupported", "(RayWorkerWrapper pid=6045) ERROR 09-12 10:00:00 worker_base.py:464] ValueError: fp8_e5m2 kv-cache is not supported with fp8 checkpoints."},
	{"trtllm", "gpu.capability", "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: FP4 Gemm not supported before Blackwell, nor GeForce Blackwell (/src/tensorrt_llm/cpp/tensorrt_llm/thop/fp4Gemm.cpp:179)"},
	// huggingface_hub's scan_cache_dir under vLLM (HabanaAI/vllm-fork#1474).
	{"vllm", "hf.not_found", "ERROR 06-24 15:31:46 engine.py:389] Cache directory not found: /data/.cache/huggingface. Please use `cache_dir` argument or set `HF_HUB_CACHE` environment variable."},
	{"vllm", "hf.not_found", "huggingface_hub.errors.OfflineModeIsEnabled: Cannot reach https://huggingface.co/api/models/Qwen/Qwen3-8B: offline mode is enabled. To disable it, please unset the `HF_HUB_OFFLINE` environment variable."},
	// SYCL on an Arc Pro B70 (llama.cpp#25286), TGI's shards (TGI#814, #1354).
	{"llamacpp", "xpu.oom", "level_zero backend failed with error: 39 [UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY]"},
	{"tgi", "tgi.signaled_crash", "2023-08-10T10:00:00.123456Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to shutdown with signal 7 rank=1"},
	{"tgi", "parallel.divisible", "ValueError: `num_heads` must be divisible by `num_shards` (got `num_heads`: 71 and `num_shards`: 2"},
	// Mesa RADV under llama.cpp's Vulkan backend (janhq/jan#6009).
	{"llamacpp", "vulkan.oom", "radv/amdgpu: Not enough memory for command submission."},
	{"llamacpp", "vulkan.device_lost", "llama_model_load: error loading model: vk::Queue::submit: ErrorDeviceLost"},
	// ggml-sycl.cpp's GGML_ABORT (llama.cpp#28134).
	{"llamacpp", "llamacpp.backend_abort", "/llama.cpp/ggml/src/ggml-sycl/ggml-sycl.cpp:6054: [ggml_backend_sycl_device_get_memory] failed to get device memory size"},
	// llama.cpp built for ROCm and Vulkan (llama.cpp#22013, #18642).
	{"llamacpp", "cuda.error", "ROCm error: invalid device function"},
	{"llamacpp", "cuda.error", "0.08.812.411 E ROCm error: device kernel image is invalid"},
	{"llamacpp", "cuda.error", "/home/me/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:97: ROCm error"},
	{"llamacpp", "vulkan.oom", "..........llama_model_load: error loading model: vk::Queue::submit: ErrorOutOfDeviceMemory"},
	// Gloo between SGLang's nodes (sglang#3226, #5883).
	{"sglang", "gloo.transport", "[2026-11-29 10:00:00 TP3] RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error"},
	{"sglang", "gloo.transport", "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting 1800000ms for send operation to complete"},
	// clap in text-generation-launcher (text-generation-inference#1451).
	{"tgi", "args.clap", "error: invalid value 'True' for '--disable-custom-kernels'"},
	{"", "args.clap", "error: unexpected argument '--max-model-len' found"},
	// sglang http_server.py's warmup behind a proxy (sglang#16855).
	{"sglang", "sglang.warmup_proxy", "AssertionError: res=<Response [502]>, res.text=''"},
	// sglang awq_marlin without vLLM's ops (sglang#6580).
	{"sglang", "py.please_install", "ValueError: awq quantization requires some operators from vllm. Please install vllm by `pip install vllm==0.8.4`"},
	// sglang srt/entrypoints/engine.py on ROCm (gpustack#5568).
	{"sglang", "sglang.scheduler_signaled", "RuntimeError: Rank 0 scheduler died during initialization (exit code: -6). If exit code is -9 (SIGKILL), a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check."},
	{"sglang", "sglang.scheduler_signaled", "[2026-11-29 10:00:00] Subprocess scheduler_0 (pid=4242) crashed with exit code -11. Killing all processes."},
	{"sglang", "net.bind", "OSError: [Errno 98] Address already in use"},
	// A NIXL decode instance beside its prefill instance (a user's log).
	// A ROCm prefill node's detokenizer (SGLang, docker logs -t, 2026).
	{"sglang", "sglang.zmq_port", "2026-09-22T06:50:07.810074780Z zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:29236')"},
	{"vllm", "vllm.zmq_port", "zmq.error.ZMQError: Address already in use (addr='tcp://localhost:5557')"},
	{"sglang", "net.bind", "[2026-11-29 10:00:00] ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use"},
	// sglang srt/utils.py wait_port_available (0.4-0.5.x).
	{"sglang", "sglang.port_check", "ValueError: nccl_port at 29500 is not available in 30 seconds. nccl_port is used by a process already. process.name()='python3'"},
	{"trtllm", "trtllm.bind", "RuntimeError: Failed to bind socket to localhost:8000: [Errno 98] Address already in use"},
	// --host an address none of this machine's interfaces has: Python
	// 3.11's own messages (asyncio's create_server as uvicorn logs it,
	// socket.bind, socket.create_server), and TensorRT-LLM's bind message
	// with that error in it (not a port in use).
	{"sglang", "net.bind_address", "[2026-11-29 10:00:00] ERROR:    [Errno 99] error while attempting to bind on address ('10.9.9.9', 8000): cannot assign requested address"},
	{"vllm", "net.address_unavailable", "(APIServer pid=1) OSError: [Errno 99] Cannot assign requested address"},

	{"", "net.bind_address", "OSError: [Errno 99] Cannot assign requested address (while attempting to bind on address ('10.9.9.9', 8000))"},
	{"trtllm", "net.bind_address", "RuntimeError: Failed to bind socket to 10.9.9.9:8000: [Errno 99] Cannot assign requested address"},
	{"llamacpp", "llamacpp.bind", "couldn't bind HTTP server socket, hostname: 127.0.0.1, port: 8080"},
	{"llamacpp", "llamacpp.bind", "0.00.012.345 E srv          start: couldn't bind HTTP server socket, hostname: 0.0.0.0, port: 8080"},
	{"llamacpp", "llamacpp.bind", "main: couldn't bind HTTP server socket"},
	// tools/server/server-http.cpp (b10587) with --host 192.0.2.1.
	{"llamacpp", "llamacpp.bind_host", "0.00.012.345 E srv          start: couldn't bind HTTP server socket, hostname: 192.0.2.1, port: 18121"},
	// model_load
	{"tgi", "hf.gated", "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json."},
	// huggingface_hub's GatedRepoError, and transformers' OSError for it.
	{"tgi", "hf.gated", "huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-68c2a1f0-4b1d6e2f19a07c3d5e8b2a41;7d3e9a52-1c4b-4f0e-9a6d-2b8c1e5f4a90)"},
	{"vllm", "hf.gated", "OSError: You are trying to access a gated repo."},
	// RepositoryNotFoundError's own message names "a private or gated
	// repo" as one possible reason: a mistyped id, not a gated model.
	{"vllm", "hf.not_found", "huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error. Repository Not Found for url: https://huggingface.co/api/models/nonexistent/model. If you are trying to access a private or gated repo, make sure you are authenticated."},
	{"tgi", "tgi.prometheus_port", `failed to build prometheus recorder: FailedToCreateHTTPListener("Address already in use (os error 98)")`},
	{"tgi", "rust.panic_thread", "thread '<unnamed>' panicked at launcher/src/main.rs:966:30:"},
	{"vllm", "hf.auth", "requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/api/models/org/private-model"},
	{"vllm", "hf.not_found", "OSError: nonexistent/model is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'"},
	{"sglang", "hf.unreachable", "requests.exceptions.ConnectionError: (MaxRetryError(\"HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: /api/models/Qwen/Qwen3-8B\"))"},
	{"vllm", "hf.download_broken", "Error while downloading from https://cas-bridge.xethub.hf.co/xet-bridge-us/abc: ('Connection broken: ConnectionResetError(104, 'Connection reset by peer')')"},
	{"vllm", "weights.missing", "RuntimeError: Cannot find any model weights with `/models/qwen`"},
	{"vllm", "safetensors.corrupt", "safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge"},
	{"sglang", "weights.unmapped", "KeyError: 'There is no module or parameter named model.layers.0.mlp.experts.w13_weight_scale in Qwen3MoeForCausalLM'"},
	{"llamacpp", "llamacpp.load", "llama_model_load: error loading model: llama_model_loader: failed to load model from missing.gguf"},
	{"vllm", "hf.cant_load", "OSError: Can't load tokenizer for '/models/x'. If you were trying to load it from 'https://huggingface.co/models', make sure you don't have a local directory with the same name."},
	{"vllm", "fs.model_missing", "FileNotFoundError: [Errno 2] No such file or directory: '/models/qwen/config.json'"},
	{"trtllm", "trtllm.no_config", "ValueError: Failed to infer model format because no config.json exists in /models/x"},
	{"tgi", "tgi.download", "2026-01-08T10:00:00.123456Z ERROR download: text_generation_launcher: Download encountered an error:"},
	{"tgi", "tgi.download_error", "Error: DownloadError"},
	// A user's TGI 1.x log, --quantize bitsandbytes in a container
	// without GPUs.
	{"tgi", "tgi.quantize_cpu", "ValueError: quantization is not available on CPU"},
	{"llamacpp", "llamacpp.download", "E common_download_file_single_online: download failed after 3 attempts"},
	{"llamacpp", "llamacpp.load_exit", "main: exiting due to model loading error"},
	// config
	{"sglang", "argparse.error", "launch_server.py: error: unrecognized arguments: --enable-reasoning"},
	{"vllm", "click.error", "Error: No such option: --model-len"},
	{"llamacpp", "llamacpp.args", "error: invalid argument: --flash-attn-x"},
	{"vllm", "gpu.capability", "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla V100-SXM2-32GB GPU has compute capability 7.0. You can use float16 instead by explicitly setting the `dtype` flag in CLI, for example: --dtype=half."},
	{"vllm", "ctx.too_long", "ValueError: User-specified max_model_len (262144) is greater than the derived max_model_len (max_position_embeddings=32768 or model_max_length=None in model's config.json)."},
	{"vllm", "quant.unknown", "ValueError: Unknown quantization method: fp5. Must be one of ['awq', 'fp8']."},
	{"vllm", "arch.unsupported", "ValueError: Model architectures ['Qwen9ForCausalLM'] are not supported for now. Supported architectures: dict_keys(['LlamaForCausalLM'])"},
	{"sglang", "hf.remote_code", "ValueError: The repository for /models/x contains custom code which must be executed to correctly load the model. Please pass the argument `trust_remote_code=True` to allow custom code to be run."},
	{"vllm", "pydantic.validation", "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig"},
	{"tgi", "tgi.args", "Error: ArgumentValidation(\"`max_input_tokens`(4096) must be < `max_total_tokens`(4096)\")"},
	// dependency
	{"sglang", "py.version_check", "ImportError: flashinfer is installed with version 0.2.3, which is less than the minimum required version 0.2.5"},
	{"vllm", "torch.no_cuda_build", "AssertionError: Torch not compiled with CUDA enabled"},
	{"vllm", "so.undefined_symbol", "ImportError: /opt/vllm/_C.abi3.so: undefined symbol: _ZN5torch3jit"},
	// vLLM under a Kubernetes Service named vllm: envs.py's own check
	// (0.8+), and the int() it replaced (a user's notes, 2025-02).
	{"vllm", "k8s.service_port_env", "ValueError: VLLM_PORT 'tcp://172.20.14.3:8000' appears to be a URI. This may be caused by a Kubernetes service discovery issue,check the warning in: https://docs.vllm.ai/en/stable/serving/env_vars.html"},
	{"vllm", "k8s.service_port_env", "ERROR 02-06 18:29:55 engine.py:389] ValueError: invalid literal for int() with base 10: 'tcp://172.16.168.90:8000'"},
	// SGLang 0.4.3 importing vLLM's kernels on a node whose driver
	// predates CUDA 12 (a user's notes, 2025-02).
	{"sglang", "cuda.driver_symbol", "ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.abi3.so: undefined symbol: cuTensorMapEncodeTiled"},
	{"vllm", "so.undefined_symbol", "ImportError: /usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: undefined symbol: cudaGetDriverEntryPointByVersion"},
	{"vllm", "so.missing", "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"},
	{"sglang", "py.import", "ModuleNotFoundError: No module named 'sgl_kernel'"},
	// crash
	{"sglang", "sys.segfault", "Fatal Python error: Segmentation fault"},
	{"llamacpp", "sys.abort", "/app/ggml/src/ggml.c:1234: GGML_ASSERT(n_dims <= 4) failed"},
	// Users' journals (vLLM 0.15, llama-server under systemd-oomd, 2026).
	{"vllm", "systemd.main_exited", "Feb 22 06:35:29 jeebs-Z490-AORUS-MASTER systemd[1]: vllm-assistant.service: Main process exited, code=exited, status=1/FAILURE"},
	{"llamacpp", "systemd.main_exited", "Okt 05 16:43:01 tuxai systemd[1]: llama-server.service: Main process exited, code=killed, status=9/KILL"},
	// llama.cpp#21512 (b8641 under zsh): glibc's assert, then the shell.
	{"llamacpp", "sys.abort", "llama-server: /var/tmp/portage/sci-misc/llama-cpp-0_pre8641/work/llama.cpp-b8641/src/llama-sampler.cpp:1094: void llama_sampler_dist_apply(llama_sampler*, llama_token_data_array*): Assertion `found' failed."},
	{"llamacpp", "sys.abort", "zsh: abort      ./run-server-glm"},
	{"vllm", "sys.abort", "Aborted (core dumped)"},
	{"vllm", "sys.segfault", "Segmentation fault (core dumped)"},
	// UCX's signal handler and srun, TensorRT-LLM's deployment guide
	// (Kimi K2 on Slurm, 2025); bash's own message.
	{"trtllm", "sys.bus_error", "[nvl72136-T14:452151:0:452151] Caught signal 7 (Bus error: nonexistent physical address)"},
	{"trtllm", "sys.bus_error", "srun: error: nvl72136-T14: task 1: Bus error (core dumped)"},
	{"sglang", "sys.bus_error", "Bus error (core dumped)"},
	{"llamacpp", "sys.segfault", "Illegal instruction (core dumped)"},
	// echoes and announcements
	{"sglang", "sglang.scheduler_died", "[2026-11-29 10:00:00] RuntimeError: Rank 0 scheduler died during initialization (exit code: 1). Check the logs above for the root cause."},
	{"sglang", "sglang.scheduler_dead", "[2026-11-29 10:00:00] Rank 0 scheduler is dead. Please check if there are relevant logs."},
	{"sglang", "sglang.subprocess_crashed", "[2026-11-29 10:00:00] Subprocess detokenizer (pid=4243) crashed with exit code 1. Killing all processes."},
	{"sglang", "sglang.child_exception", "[2026-11-29 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):"},
	{"sglang", "sglang.sigquit", "[2026-11-29 10:00:00] Received sigquit from a child process. It usually means the child failed."},
	// A node of rank 1 whose schedulers died of NVSHMEM's setup (an
	// engineer's notes, SGLang 0.5.8, 2026), then uvicorn's lifespan.
	{"sglang", "sglang.scheduler_exited", "[2026-02-25 15:04:37] Scheduler or DataParallelController 848532 terminated with 255"},
	{"sglang", "uvicorn.startup_failed", "[2026-02-25 15:04:39] ERROR:    Application startup failed. Exiting."},
	{"sglang", "sglang.init_failed", "[2026-11-29 10:00:00] Initialization failed. warmup error: last_traceback"},
	{"sglang", "sglang.watchdog", "[2026-11-29 10:00:00 TP0] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)"},
	{"vllm", "vllm.engine_failed", "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"},
	{"vllm", "vllm.engine_exception", "(EngineCore_DP0 pid=7) ERROR 11-29 10:00:00 [core.py:850] EngineCore encountered a fatal error."},
	{"vllm", "vllm.died", "(EngineCore_DP0 pid=7) ERROR 11-29 10:00:00 [multiproc_executor.py:146] Worker proc VllmWorker-1 died unexpectedly, shutting down executor."},
	{"vllm", "vllm.fatal_signal", "CRITICAL 07-10 11:40:39 core_client.py:191] Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue."},
	{"vllm", "vllm.fatal_signal", "(EngineCore_1 pid=382867) CRITICAL 04-22 17:08:49 [multiproc_executor.py:49] MulitprocExecutor got fatal signal from worker processes, shutting down. See stack trace above for root cause issue."},
	{"vllm", "vllm.died", "ERROR 11-29 10:00:00 [multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 4242 died, exit code: 1"},
	{"vllm", "vllm.ready_timeout", "TimeoutError: Timed out waiting for engine core processes to start. This is often caused by slow weight loading for large models."},
	// vllm-ascend#6847, two API servers waiting for DP engines still
	// loading their weights.
	{"vllm", "vllm.ready_timeout", "(ApiServer_1 pid=10467) TimeoutError: Timed out waiting for engines to send initial message on input socket."},
	{"llamacpp", "llamacpp.http_exit", "main: exiting due to HTTP server error"},
	{"tgi", "tgi.shard_failed", "2026-01-08T10:00:00.123456Z ERROR text_generation_launcher: Shard 0 failed to start"},
	{"tgi", "tgi.webserver", "2026-01-08T10:00:00.123456Z ERROR text_generation_launcher: Webserver Crashed"},
	{"tgi", "tgi.launcher_error", "Error: ShardCannotStart"},
	{"vllm", "parallel.divisible", "ValueError: Total number of attention heads (40) must be divisible by tensor parallel size (3)."},
	{"vllm", "vllm.no_device", "RuntimeError: Failed to infer device type, please set the environment variable `VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help debug the issue."},
	{"vllm", "vllm.batched_tokens", "ValueError: max_num_batched_tokens (2048) is smaller than max_model_len (32768). This effectively limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer sequences. Please increase max_num_batched_tokens or decrease max_model_len."},
	{"trtllm", "trtllm.executor_init", "[07/08/2025-19:47:15] [TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: Invalid argument: max_num_tokens (8192) must be greater than 0"},
	{"trtllm", "trtllm.mpi_abort", "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD with errorcode 1."},
	{"tgi", "tgi.no_binary", "2026-01-08T10:00:00.123456Z ERROR text_generation_launcher: text-generation-server not found in PATH"},
	{"tgi", "tgi.router_bind", "2026-01-08T10:00:00.123456Z ERROR text_generation_router::server: router/src/server.rs:2325: Failed to bind to 0.0.0.0:3000: Address already in use (os error 98)"},
	// The same router given a --hostname no interface has: Rust's own
	// io::Error text for EADDRNOTAVAIL (std::net::TcpListener::bind).
	{"tgi", "net.bind_address", "2026-01-08T10:00:00.123456Z ERROR text_generation_router::server: router/src/server.rs:2325: Failed to bind to 10.9.9.9:3000: Cannot assign requested address (os error 99)"},
	{"tgi", "tgi.weight_missing", "2026-01-08T10:00:00.123456Z ERROR text_generation_launcher: RuntimeError: weight model.layers.0.self_attn.q_proj.qweight does not exist"},
	{"tgi", "tgi.unsupported_model", "ValueError: Unsupported model type qwen9"},
	{"vllm", "cuda.no_gpu", "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu."},
	{"sglang", "hf.not_found", "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/models/missing/Qwen3-8B'. Use `repo_type` argument if needed."},
	{"trtllm", "hf.unknown_model_type", "ValueError: The checkpoint you are trying to load has model type `qwen3_5` but Transformers does not recognize this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date."},
	{"vllm", "torch.fork_cuda", "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method"},
	{"tgi", "tgi.shard_disconnected", "2026-01-08T10:00:00.123456Z ERROR text_generation_launcher: Shard status channel disconnected"},
	// Users' logs: sglang#5095 (0.4.4), sglang#29149 (0.5.x,
	// --enable-deterministic-inference on an L40S), sglang#14747 (Ascend),
	// vllm#31480 (0.13), vllm#30214 (0.12), vllm recipes#51 (0.10.1),
	// vllm#29943 (0.12), vllm#13510 (0.8.4), TensorRT-LLM#7706 (1.x),
	// TensorRT-LLM#2845 (0.17).
	{"sglang", "weights.param_keyerror", "KeyError: 'model.layers.55.mlp.gate_up_proj.input_scale'"},
	{"sglang", "triton.out_of_resources", "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 106496, Hardware limit: 101376. Reducing block sizes or `num_stages` may help."},
	{"sglang", "npu.aclnn_missing", "RuntimeError: aclnnLightningIndexer or aclnnLightningIndexerGetWorkspaceSize not in libopapi.so, or libopapi.sonot found."},
	{"vllm", "vllm.attn_backend", "(EngineCore_DP0 pid=7) ERROR 12-29 10:00:00 [core.py:866] ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, dtype=torch.bfloat16, kv_cache_dtype=fp8_ds_mla, block_size=64, use_mla=True, has_sink=False, use_sparse=True). Reasons: {FLASHMLA_SPARSE: [compute capability not supported]}."},
	{"vllm", "vllm.attn_backend", "ValueError: Selected backend AttentionBackendEnum.CUTLASS_MLA is not valid for this configuration. Reason: ['sparse not supported']"},
	{"vllm", "vllm.parser_name", "KeyError: 'invalid tool call parser: openai (chose from { deepseek_v3,hermes,llama3_json,mistral,pythonic,xlam })'"},
	{"vllm", "vllm.deep_gemm_missing", "RuntimeError: DeepGEMM backend is not available or outdated. Please install or update the `deep_gemm` to a newer version to enable FP8 kernels."},
	// sglang#6281, sglang#4624 (DeepEP), sglang#36528, Ascend/sglang#171.
	{"sglang", "hf.gguf_arch", "ValueError: GGUF model with architecture qwen3 is not supported yet."},
	// vllm#42583 (LoRA at TP 4); vllm-project/vllm csrc CUDACHECK elsewhere.
	{"vllm", "cuda.custom_allreduce", "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'"},
	{"vllm", "cuda.check_failed", "Failed: Cuda error /workspace/d2/csrc/core/in_place_attn_switch.cu:445 'invalid configuration argument'"},
	// sglang#7450 (DeepEP across two H20 nodes); an NVSHMEM 3.x build.
	{"sglang", "nvshmem.init", "/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.8/main_nvshmem/src/host/init/init.cu:1045: non-zero status: 7 nvshmem setup connections failed "},
	{"sglang", "nvshmem.init", "/sgl-workspace/nvshmem/src/host/team/team.cu:nvshmem_team_split_strided:63: NVSHMEM API called before NVSHMEM initialization has completed"},
	{"sglang", "cuda.deepep", "RuntimeError: Failed: CUDA error /sgl-workspace/DeepEP/csrc/kernels/internode.cu:133 'named symbol not found'"},
	{"sglang", "sglang.eagle3_not_a_draft", "AttributeError: 'Qwen2ForCausalLM' object has no attribute 'set_embed'"},
	{"sglang", "sglang.mamba_page_size", "AssertionError: Page size must be 1 for MambaRadixCache v1, got 128"},
	// gpustack#5438, vllm#14040, kuberay#4366, dynamo#5012, aibrix#1433,
	// vllm#31444 (vLLM 0.8-0.13).
	{"vllm", "vllm.lora_rank", "ValueError: LoRA rank 64 is greater than max_lora_rank 16."},
	{"vllm", "vllm.quant_scheme_capability", "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min capability: 80. ', 'Current capability: 75.')"},
	// gpustack#5181 (a node never joined); an Ascend user's guide.
	// A vLLM 0.20 log under Docker Desktop (2026-05).
	{"vllm", "hf.cant_load", "(APIServer pid=1) OSError: Can't load image processor for 'sakamakismile/Qwen3.6-27B-Text-NVFP4-MTP'. If you were trying to load it from 'https://huggingface.co/models', make sure you don't have a local directory with the same name. Otherwise, make sure 'sakamakismile/Qwen3.6-27B-Text-NVFP4-MTP' is the correct path to a directory containing a preprocessor_config.json file"},
	// journalctl -u of a llama-server unit (a user's log, 2026-10).
	{"llamacpp", "systemd.oom_kill", "Okt 05 16:43:01 tuxai systemd[1]: [🡕] llama-server.service: systemd-oomd killed 79 process(es) in this unit."},
	{"llamacpp", "systemd.oom_kill", "Okt 05 16:43:01 tuxai systemd[1]: llama-server.service: Failed with result 'oom-kill'."},
	// A vLLM 0.19 nightly under Docker Desktop (2026-04).
	{"vllm", "vllm.moe_backend", "(EngineCore pid=196) ERROR 04-19 10:59:20 [core.py:1132] ValueError: moe_backend='triton' is not supported for NvFP4 MoE. Expected one of ['cutlass', 'flashinfer_trtllm', 'flashinfer_cutlass', 'marlin']."},
	{"vllm", "torch.cuda_oom", "(EngineCore pid=207) ERROR 04-19 10:12:38 [core.py:1132] torch.AcceleratorError: CUDA error: out of memory"},
	{"vllm", "vllm.ray_placement", "(EngineCore_DP0 pid=89) ValueError: Cannot provide a placement group requiring 4.0 GPUs (placement_group_specs=[{'node:172.16.11.65': 0.001, 'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}]) within 1800 seconds."},
	{"vllm", "vllm.ray_placement", "ValueError: Cannot provide a placement group of placement_group_specs=[{'NPU': 1.0, 'node:10.201.20.35': 0.001}, {'NPU': 1.0}, {'NPU': 1.0}, {'NPU': 1.0}] within 1800 seconds. See `ray status` to make sure the cluster has enough resources."},
	{"vllm", "vllm.dp_resources", "ValueError: Not enough resources to allocate 2 placement groups, only created 1 placement groups. Available resources: {'CPU': 64.0, 'GPU': 8.0}"},
	{"vllm", "nixl.missing_plugin", "Skipping backend registration UCX due to the missing plugin."},
	{"vllm", "nixl.backend_error", "nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND"},
	{"vllm", "tokenizer.no_file", "ValueError: No tokenizer file found in directory: /data/models/glm4.7"},
	// TensorRT-LLM#4599, #2869, #13156, #5389, PR #18373, dynamo PR
	// #15060, tensorrtllm_backend#299.
	{"trtllm", "trtllm.sm_unsupported", "RuntimeError: Unsupported SM version for FP8 block scaling GEMM"},
	{"trtllm", "trtllm.sm_unsupported", "RuntimeError: [TensorRT-LLM Error][CutlassFp4GemmRunner][GEMM Dispatch] Arch unsupported for CUTLASS FP4 GEMM"},
	{"trtllm", "trtllm.attn_backend_unsupported", "AssertionError: Attention sinks are only supported for TRTLLM backend."},
	{"trtllm", "trtllm.gemm_run_failed", "RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: Error occurred when running GEMM! (/src/tensorrt_llm/cpp/tensorrt_llm/kernels/trtllmGenKernels/batchedGemm/KernelRunner.cpp:180)"},
	{"trtllm", "nixl.register_failed", "E1107 10:42:02.123456 1234 nixl_agent.cpp:545] registerMem: registration failed for the specified or all potential backends"},
	{"trtllm", "trtllm.mpi_spawn", "mpi4py.MPI.Exception: MPI_ERR_UNKNOWN: unknown error"},
	{"trtllm", "trtllm.engine_version", "[TensorRT-LLM][ERROR] 1: [stdArchiveReader.cpp::stdArchiveReaderInitCommon::47] Error Code 1: Serialization (Serialization assertion stdVersionRead == kSERIALIZATION_VERSION failed.Version tag does not match. Note: Current Version: 226, Serialized Engine Version: 228)"},
	// Triton's tensorrtllm backend, TensorRT 9.2 against 9.3 (tensorrtllm_backend#424).
	{"trtllm", "trtllm.engine_version", "E0420 06:14:22.457146 115 model_lifecycle.cc:638] failed to load 'tensorrt_llm' version 1: Internal: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] Assertion failed: Failed to deserialize cuda engine (/tmp/tritonbuild/tensorrtllm/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmRuntime.cpp:72)"},
	// vllm#22424, vllm#29265, vllm#12983, vllm#29447, sglang#6160,
	// sglang#1841, sglang#3470.
	{"vllm", "vllm.pp_unsupported", "NotImplementedError: Pipeline parallelism is not supported for this model. Supported models implement the `SupportsPP` interface."},
	{"vllm", "vllm.ray_no_gpu_on_node", "ValueError: Ray does not allocate any GPUs on the driver node. Consider adjusting the Ray placement group or running the driver on a GPU node."},
	{"vllm", "vllm.world_size_gpus", "AssertionError: local_world_size (16) must be less than or equal to the number of visible devices (8)."},
	{"sglang", "py.version_check", "Exception: flashinfer_python with minimum required version 0.2.5 is not installed. Please uninstall the old version and reinstall the latest version by following the instructions at https://docs.flashinfer.ai/installation.html."},
	// A 2026 SGLang tail (DSA model, PP 2) on GPUs older than Hopper.
	{"sglang", "sglang.allreduce_fusion", "ValueError: FlashInfer allreduce fusion requires SM90 or SM10X NVIDIA GPUs."},
	{"sglang", "sglang.chat_template", "RuntimeError: Chat template configs/chat_templates/zephyr.jinja is not a built-in template name or a valid chat template file path."},
	{"sglang", "cuda.invalid_ordinal", "RuntimeError: CUDA error: invalid device ordinal"},
	// sglang#12835, sglang PR #6058, sglang#8256.
	{"sglang", "sglang.arch_no_impl", "ValueError: Qwen3NextForCausalLM has no SGlang implementation and the Transformers implementation is not compatible with SGLang."},
	{"sglang", "sglang.embedding_unsupported", "AssertionError: embedding is not supported yet"},
	// vllm#26431, vllm PR #17132, vllm-ascend#4197.
	{"vllm", "triton.fp8e4nv_arch", `ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')")`},
	{"vllm", "vllm.mistral_params", "ValueError: Failed to load mistral 'params.json' config for model RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-FP8-dynamic. Please check if the model is a mistral-format model and if the config file exists."},
	{"vllm", "vllm.attn_backend_name", "ValueError: Unknown attention backend: 'ASCEND'. Valid options are: FLASH_ATTN, TRITON_ATTN, FLASHINFER"},
	// text-generation-inference #3226, #2146, #564, #1640, #895.
	{"tgi", "tgi.automodel_unsupported", "NotImplementedError: awq quantization is not supported for AutoModel rank=0"},
	{"tgi", "tgi.automodel_unsupported", "NotImplementedError: sharded is not supported for AutoModel"},
	{"tgi", "tgi.shard_size", "AssertionError: The choosen size 250880 is not compatible with sharding on 3 shards"},
	{"tgi", "tgi.flash_attn_required", "NotImplementedError: Sharded Qwen2 requires Flash Attention enabled models."},
	{"tgi", "net.bind_denied", "thread 'main' panicked at 'error binding to 0.0.0.0:80: error creating server listener: Permission denied (os error 13)', /usr/src/router/src/server.rs:538:10"},
	{"sglang", "net.bind_denied", "[2026-11-29 10:00:00] ERROR:    [Errno 13] error while attempting to bind on address ('0.0.0.0', 80): permission denied"},
	{"trtllm", "trtllm.unknown_arch", "ValueError: Unknown architecture for AutoModelForCausalLM: WhisperForConditionalGeneration"},
	{"trtllm", "trtllm.hf_arch_unsupported", "NotImplementedError: The given huggingface model architecture DeepseekV3ForCausalLM is not supported in TRT-LLM yet"},
	{"vllm", "vllm.invalid_repo", "ValueError: Invalid repository ID or local directory specified: '/models/Qwen3-8B'."},
	// llama.cpp b10587, as its source formats them (src/llama-context.cpp,
	// src/llama.cpp, src/llama-model.cpp, src/llama-adapter.cpp,
	// src/llama-grammar.cpp, tools/mtmd, tools/server/server-context.cpp,
	// common/arg.cpp, common/speculative.cpp, ggml-metal, ggml-sycl).
	{"llamacpp", "llamacpp.alloc", "0.00.905.825 E alloc_tensor_range: failed to allocate MTL0 buffer of size 34359738368"},
	{"llamacpp", "llamacpp.metal_alloc", "0.00.905.765 E ggml_metal_buffer_init: error: failed to allocate buffer, size = 32768.00 MiB"},
	{"llamacpp", "llamacpp.sycl_alloc", "0.00.705.765 E ggml_backend_sycl_buffer_type_alloc_buffer: can't allocate 4617404416 Bytes of memory on device"},
	{"llamacpp", "llamacpp.ctx_params", "0.00.008.885 E llama_init_from_model: quantized V cache requires flash_attn to be enabled"},
	{"llamacpp", "llamacpp.ctx_params", "0.00.008.885 E llama_init_from_model: K cache type q4_0 with block size 32 does not divide n_embd_head_k=80"},
	{"llamacpp", "llamacpp.backend_init", "0.00.008.765 E llama_init_from_model: failed to initialize the context: failed to initialize CUDA0 backend"},
	{"llamacpp", "llamacpp.devices", "0.00.013.765 E llama_prepare_model_devices: invalid value for main_gpu: 2 (available devices: 1)"},
	{"llamacpp", "llamacpp.devices", "0.00.013.765 E llama_model_load: error loading model: CLIP cannot be used as main model, use it with --mmproj instead"},
	{"llamacpp", "llamacpp.mmproj_mismatch", "0.00.007.765 E mtmd_init_from_file: error: mismatch between text model (n_embd = 4096) and mmproj (n_embd = 3584)"},
	{"llamacpp", "llamacpp.mmproj_mismatch", "0.00.007.765 E clip_init: failed to load model '/models/mmproj.gguf': load_hparams: unknown projector type: qwen3vl_merger"},
	{"llamacpp", "llamacpp.lora_mismatch", "0.00.905.765 E llama_adapter_lora_init: failed to apply lora adapter: model arch and LoRA arch mismatch"},
	{"llamacpp", "llamacpp.mtp", "0.01.505.825 E common_speculative_init_result: failed to create MTP context"},
	{"llamacpp", "llamacpp.chat_template", "0.01.506.005 E srv          init: init: chat template parsing error: parser: Parser Error: Expected closing statement token (Got %)"},
	{"llamacpp", "llamacpp.chat_template", "error: the supplied chat template is not supported: {% for m in messages %}{{ m.content }}"},
	{"llamacpp", "llamacpp.grammar", "parse: error parsing grammar: Undefined rule identifier 'item'"},
	{"llamacpp", "llamacpp.ui_config", "0.01.505.825 E srv          init: init: failed to parse UI config: [json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing object key"},
	{"llamacpp", "sys.abort", "/app/build/bin/libggml-base.so.0(ggml_abort+0x15b)[0x7f3a1c2184cb]"},
	// llama.cpp#27309 (Metal), llama.cpp#18366.
	{"llamacpp", "llamacpp.metal_cb_oom", "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)"},
	{"llamacpp", "llamacpp.metal_error_state", "0.26.672.401 E ggml_metal_graph_compute: backend is in error state from a previous command buffer failure - recreate the backend to recover"},
	{"llamacpp", "llamacpp.pretokenizer", "llama_model_load: error loading model: error loading model vocabulary: unknown pre-tokenizer type: 'gpt-4o'"},
}

// phaseLines hold a line for every phase marker and progress-bar rule,
// in the format of the version named in the rule's comment (vLLM V1
// unless the line says otherwise).
var phaseLines = []ruleLine{
	// llama.cpp 2024-2025 (examples/server/server.cpp, tools/mtmd/clip.cpp).
	{"llamacpp", "llamacpp.phase:HTTP server is listening|HTTP server listening", "main: HTTP server is listening, hostname: 127.0.0.1, port: 8080, http threads: 3"},
	{"llamacpp", "llamacpp.phase:clip_|load_hparams:|mtmd_init", "clip_model_loader: model name:   Qwen2.5-VL-7B-Instruct"},
	{"sglang", "sglang.phase.server_args", "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tokenizer_path='Qwen/Qwen3-8B', tokenizer_mode='auto')"},
	// engine.py allocate_port_args (2026): server_args.resolved_dict().
	{"sglang", "sglang.phase.server_args", "[2026-09-11 23:34:03] server_args={'model_path': '/models/DeepSeek-V4.1-Flash', 'tokenizer_path': '/models/DeepSeek-V4.1-Flash', 'tokenizer_mode': 'auto', 'tokenizer_backend': 'huggingface', 'tokenizer_worker_num': 1, 'detokenizer_worker_num': 1, 'skip_tokenizer_init': False, 'load_format': 'safetensors', 'model_loader_extra_config': '{}', 'trust_remote_code': True, 'context_length': 1048576}"},
	{"sglang", "sglang.phase.attention_backend", "[2026-11-29 10:00:00] Attention backend not explicitly specified. Use fa3 backend by default."},
	{"sglang", "sglang.phase.chat_template", "[2026-11-29 10:00:00] Using default HuggingFace chat template with detected content format: string"},
	{"sglang", "sglang.phase.init_distributed", "[2026-11-29 10:00:00 TP0] Init torch distributed begin."},
	{"sglang", "sglang.phase.nccl_version", "[2026-03-03 12:25:47 TP0] sglang is using nccl==2.27.5"},
	{"sglang", "sglang.phase.load_weight_begin", "[2026-11-29 10:00:00 TP0] Load weight begin. avail mem=78.58 GB"},
	{"sglang", "sglang.phase.weights_format", "[2026-11-29 10:00:00 TP0] Using model weights format ['*.safetensors']"},
	{"sglang", "sglang.phase.local_snapshot", "[2026-11-29 10:00:00 TP0] Found local HF snapshot for Qwen/Qwen3-8B at /root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/b968826d; skipping download."},
	{"sglang", "sglang.phase.load_weight_end", "[2026-11-29 10:00:00 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.95 GB, mem usage=15.63 GB."},
	{"sglang", "sglang.phase.kv_allocated", "[2026-11-29 10:00:00 TP0] KV Cache is allocated. #tokens: 413243, K size: 28.38 GB, V size: 28.38 GB"},
	{"sglang", "sglang.phase.memory_pool_end", "[2026-11-29 10:00:00 TP0] Memory pool end. avail mem=5.12 GB"},
	{"sglang", "sglang.phase.deepgemm_jit", "[2026-11-29 10:00:00 TP0] Entering DeepGEMM JIT Pre-Compile session. It may takes a long time (typically 10-20 mins) if you have not run `sglang.compile_deep_gemm`."},
	{"sglang", "sglang.phase.flashinfer_autotune", "[2026-11-29 10:00:00 TP0] Running FlashInfer autotune..."},
	{"sglang", "sglang.phase.compiling_graph", "[2026-11-29 10:00:00 TP0] Compiling a graph for dynamic shape takes 12.31 s"},
	{"sglang", "sglang.phase.capture_graph", "[2026-11-29 10:00:00 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=5.10 GB"},
	{"sglang", "sglang.phase.uvicorn_running", "[2026-11-29 10:00:00] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)"},
	{"sglang", "sglang.phase.started_process", "[2026-11-29 10:00:00] INFO:     Started server process [4242]"},
	{"sglang", "sglang.phase.startup_complete", "[2026-11-29 10:00:00] INFO:     Application startup complete."},
	{"sglang", "sglang.phase.granian", "[2026-11-29 10:00:00] Starting embedded Granian server on 127.0.0.1:30000"},
	{"sglang", "sglang.phase.warmup_request", `[2026-11-29 10:00:00] INFO:     127.0.0.1:52120 - "GET /model_info HTTP/1.1" 200 OK`},
	{"sglang", "sglang.phase.prefill_batch", "[2026-11-29 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0"},
	{"sglang", "sglang.phase.disagg_warmup", "[2026-11-29 10:00:00] Start of pd disaggregation warmup ..."},
	// TensorRT-LLM 1.1.0rc3, a whole start posted with a DGX Spark guide.
	{"trtllm", "trtllm.phase.llm_backend", "[04/17/2026-08:21:45] [TRT-LLM] [I] Using LLM with TensorRT backend"},
	{"trtllm", "trtllm.phase.llm_backend", "[12/20/2025-03:35:50] [TRT-LLM] [I] Using LLM with AutoDeploy backend"},
	{"trtllm", "trtllm.phase.autotune", "[12/02/2025-08:41:59] [TRT-LLM] [RANK 0] [I] Running autotuner warmup..."},
	{"trtllm", "trtllm.phase.autotune", "[12/20/2025-04:21:10] [TRT-LLM] [I] [Autotuner] Autotuning process starts ..."},
	{"trtllm", "trtllm.phase.kv_dtype_check", `[12/20/2025-04:20:19] [TRT-LLM] [I] Validating KV Cache config against kv_cache_dtype="auto"`},
	{"trtllm", "trtllm.phase.kv_dtype_check", `[12/20/2025-04:20:19] [TRT-LLM] [I] KV cache quantization set to "auto". Using checkpoint KV quantization.`},
	{"trtllm", "trtllm.phase.weights_size", "[12/20/2025-04:20:21] [TRT-LLM] [I] Use 63.32 GB for model weights."},
	{"trtllm", "trtllm.phase.torch_compile_warmup", "[TRT-LLM] [I] Run warmup with 8192 tokens, include 0 generation tokens"},
	// model_engine.py _run_torch_compile_warmup's own line (its format).
	{"trtllm", "trtllm.phase.torch_compile_warmup", "[12/20/2025-04:21:10] [TRT-LLM] [I] Running torch.compile warmup..."},
	{"trtllm", "trtllm.phase.loaded_engine", "[TensorRT-LLM][INFO] Loaded engine size: 13768 MiB"},
	{"sglang", "sglang.bar.shards", "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:03<00:03,  1.52it/s]"},
	{"sglang", "sglang.bar.loader", "Loading safetensors using Fastsafetensor loader:  50% Completed | 2/4 [00:01<00:01,  1.90it/s]"},
	{"sglang", "sglang.bar.streamer", "Loading safetensors using Runai Model Streamer:  50% Completed | 2/4 [00:01<00:01,  1.90it/s]"},
	{"sglang", "sglang.bar.deepgemm", "DeepGEMM warmup: 50%|█████     | 2/4 [00:10<00:10,  5.00s/it]"},
	{"sglang", "sglang.bar.compiling", "Compiling num tokens (num_tokens=8192): 100%|██████████| 58/58 [00:30<00:00,  1.90it/s]"},
	{"sglang", "sglang.bar.capturing", "Capturing batches (bs=1 avail_mem=23.56 GB): 100%|██████████| 52/52 [00:05<00:00, 10.36it/s]"},

	{"vllm", "vllm.phase.launch_version", "(APIServer pid=1) INFO 11-29 10:00:00 [api_server.py:1839] vLLM API server version 0.11.0"},
	{"vllm", "vllm.phase.non_default_args", "(APIServer pid=1) INFO 11-29 10:00:00 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-8B'}"},
	{"vllm", "vllm.phase.args_namespace", "INFO 01-14 03:08:50 api_server.py:585] args: Namespace(host=None, port=8000, model='Qwen/Qwen2.5-7B')"},
	{"vllm", "vllm.phase.resolved_arch", "(APIServer pid=1) INFO 11-29 10:00:00 [model.py:547] Resolved architecture: Qwen3ForCausalLM"},
	{"vllm", "vllm.phase.llm_engine", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='Qwen/Qwen3-8B'"},
	{"vllm", "vllm.phase.multiple_tasks", "INFO 01-14 03:08:50 config.py:510] This model supports multiple tasks: {'generate', 'embed'}. Defaulting to 'generate'."},
	{"vllm", "vllm.phase.world_size", "(EngineCore_DP0 pid=7) DEBUG 11-29 10:00:00 [parallel_state.py:1000] world_size=2 rank=0 local_rank=0 distributed_init_method=tcp://127.0.0.1:29500 backend=nccl"},
	{"vllm", "vllm.phase.nccl_version", "(VllmWorker TP0 pid=8) INFO 11-29 10:00:00 [pynccl.py:70] vLLM is using nccl==2.27.3"},
	{"vllm", "vllm.phase.nccl_library", "INFO 01-14 03:08:50 utils.py:960] Found nccl from library libnccl.so.2"},
	{"vllm", "vllm.phase.nccl_library", "(Worker pid=5) INFO 04-16 11:02:40 [pynccl_wrapper.py:80] Found nccl from environment variable VLLM_NCCL_SO_PATH=/usr/lib/x86_64-linux-gnu/libnccl.so.2"},
	{"vllm", "vllm.phase.rank_assigned", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [parallel_state.py:1208] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0"},
	{"vllm", "vllm.phase.start_load", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen3-8B..."},
	{"vllm", "vllm.phase.load_from_scratch", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [gpu_model_runner.py:2634] Loading model from scratch..."},
	{"vllm", "vllm.phase.weights_format", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [weight_utils.py:392] Using model weights format ['*.safetensors']"},
	{"vllm", "vllm.phase.download_time", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [weight_utils.py:413] Time spent downloading weights for Qwen/Qwen3-8B: 45.12 seconds"},
	{"vllm", "vllm.phase.checkpoint_fs", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [weight_utils.py:450] Filesystem type for checkpoints: EXT4. Checkpoint size: 15.26 GiB. Available RAM: 500.00 GiB."},
	{"vllm", "vllm.phase.loading_weights_took", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [default_loader.py:267] Loading weights took 3.12 seconds"},
	{"vllm", "vllm.phase.model_loading_took", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [gpu_model_runner.py:2653] Model loading took 15.27 GiB and 4.01 seconds"},
	{"vllm", "vllm.phase.compile_cache", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [backends.py:548] Using cache directory: /root/.cache/vllm/torch_compile_cache/4a1b/rank_0_0/backbone for vLLM's torch.compile"},
	{"vllm", "vllm.phase.dynamo_transform", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [backends.py:559] Dynamo bytecode transform time: 5.11 s"},
	{"vllm", "vllm.phase.compile_graph", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [backends.py:218] Compiling a graph for dynamic shape takes 20.52 s"},
	{"vllm", "vllm.phase.compile_graph", "(EngineCore pid=310) INFO 06-01 21:42:13 [monitor.py:53] torch.compile took 6.63 s in total"},
	{"vllm", "vllm.phase.profiling_run", "(EngineCore pid=310) INFO 06-01 21:42:15 [monitor.py:81] Initial profiling/warmup run took 1.31 s"},
	{"vllm", "vllm.phase.aot_saved", "(EngineCore pid=310) INFO 06-01 21:42:10 [decorators.py:708] saved AOT compiled function to /root/.cache/vllm/torch_compile_cache/torch_aot_compile/26b1/rank_0_0/model"},
	{"vllm", "vllm.phase.kv_cache_size", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [kv_cache_utils.py:1087] GPU KV cache size: 249,168 tokens"},
	{"vllm", "vllm.phase.kv_blocks", "INFO 01-14 03:08:50 executor_base.py:115] # cuda blocks: 27264, # CPU blocks: 2048"},
	{"vllm", "vllm.phase.memory_profiling", "INFO 11-03 15:51:26 [worker.py:294] Memory profiling takes 22.16 seconds"},
	{"vllm", "vllm.phase.graph_memory", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [gpu_worker.py:298] Estimated CUDA graph memory: 0.52 GiB total"},
	{"vllm", "vllm.phase.graphs_captured", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [gpu_model_runner.py:3480] Graph capturing finished in 6 secs, took 0.51 GiB"},
	{"vllm", "vllm.phase.capture_start", "(EngineCore pid=461159) INFO 08-23 08:10:28 [gpu_model_runner.py:6867] Rank 0: Torch profiler disabled for CUDA graph capture"},
	{"vllm", "vllm.phase.capture_start", "(Worker_TP1 pid=4155525) INFO 08-20 17:26:47 [gpu_model_runner.py:6798] Rank 1: Torch profiler disabled for CUDA graph capture"},
	{"vllm", "vllm.phase.flashinfer_warmup", "(Worker_TP0_EP0 pid=4155524) INFO 08-20 17:22:37 [gpu_worker.py:774] Compile and warming up model for size 8192"},
	{"vllm", "vllm.phase.init_engine_took", "(EngineCore_DP0 pid=7) INFO 11-29 10:00:00 [core.py:210] init engine (profile, create kv cache, warmup model) took 35.21 seconds"},
	{"vllm", "vllm.phase.starting_server", "(APIServer pid=1) INFO 11-29 10:00:00 [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8000"},
	{"vllm", "vllm.phase.supported_tasks", "(APIServer pid=1) INFO 11-29 10:00:00 [api_server.py:1620] Supported_tasks: ['generate']"},
	{"vllm", "vllm.phase.routes", "(APIServer pid=1) INFO 11-29 10:00:00 [launcher.py:34] Available routes are:"},
	{"vllm", "vllm.phase.started_process", "(APIServer pid=1) INFO:     Started server process [1]"},
	{"vllm", "vllm.phase.startup_complete", "(APIServer pid=1) INFO:     Application startup complete."},
	{"vllm", "vllm.bar.shards", "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:03<00:03,  1.52it/s]"},
	{"vllm", "vllm.bar.loader", "Loading safetensors using Fastsafetensor loader:  50% Completed | 2/4 [00:01<00:01,  1.90it/s]"},
	{"vllm", "vllm.bar.streamer", "Loading safetensors using Runai Model Streamer:  50% Completed | 2/4 [00:01<00:01,  1.90it/s]"},
	{"vllm", "vllm.bar.deepgemm", "DeepGemm(fp8_gemm_nt) warmup (W=torch.Size([4096, 7168])): 50%|█████     | 4096/8192 [00:04<00:04, 1000.00it/s]"},
	{"vllm", "vllm.phase.capturing_graphs", "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  50%|█████     | 33/67 [00:01<00:01, 33.44it/s]"},
	{"vllm", "vllm.phase.capturing_graphs", "Capturing CUDA graph shapes: 100%|██████████| 35/35 [00:12<00:00,  2.81it/s]"},
	{"vllm", "vllm.phase.capturing_graphs", "INFO 08-01 11:41:30 model_runner.py:1395] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."},

	{"trtllm", "trtllm.phase.version", "[TensorRT-LLM] TensorRT LLM version: 1.2.1"},
	{"trtllm", "trtllm.phase.version", "[TensorRT-LLM] TensorRT-LLM version: 1.1.0rc3"},
	{"trtllm", "trtllm.phase.llm_args", "[12/20/2025-04:20:04] [TRT-LLM] [I] Updated llm args: max_batch_size=2048, max_num_tokens=8192"},
	{"trtllm", "trtllm.phase.llmargs", "[12/20/2025-04:20:04] [TRT-LLM] [I] TorchLlmArgs(model='openai/gpt-oss-120b')"},
	{"trtllm", "trtllm.phase.pytorch_backend", "[12/20/2025-04:20:04] [TRT-LLM] [I] Using LLM with PyTorch backend"},
	{"trtllm", "trtllm.phase.mpi", "[TensorRT-LLM][INFO] Initializing MPI with thread mode 3"},
	{"trtllm", "trtllm.phase.mpi_session", "rank 0 using MpiPoolSession to spawn MPI processes"},
	{"trtllm", "trtllm.phase.loading", "Loading weights concurrently: 100%|██████████| 1127/1127 [00:05<00:00, 205.01it/s]"},
	{"trtllm", "trtllm.phase.model_init", "Model init total -- 19.66s"},
	{"trtllm", "trtllm.phase.kv_cache", "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 68.69 GiB for max tokens in paged KV cache (643136)."},
	// A real trtllm-serve 1.1.0rc3 start (gpt-oss-120b), between its two
	// warmups.
	{"trtllm", "trtllm.phase.kv_profiling", "[12/20/2025-04:21:50] [TRT-LLM] [I] Memory used after loading model weights (inside torch) in memory usage profiling: 63.52 GiB"},
	{"trtllm", "trtllm.phase.kv_profiling", "[12/20/2025-04:21:51] [TRT-LLM] [I] Memory used outside torch (e.g., NCCL and CUDA graphs) in memory usage profiling: 49.28 GiB"},
	{"trtllm", "trtllm.phase.kv_profiling", "[12/20/2025-04:21:51] [TRT-LLM] [I] Estimated max memory in KV cache : 5.95 GiB"},
	{"trtllm", "trtllm.phase.autotune", "[12/20/2025-04:21:04] [TRT-LLM] [I] [Autotuner] Autotuning process starts ..."},
	{"trtllm", "trtllm.phase.cuda_graph", "[12/20/2025-04:21:10] [TRT-LLM] [I] Run generation-only CUDA graph warmup for batch size=4, draft_len=0, max_seq_len=8192"},
	{"trtllm", "trtllm.phase.warmup", "[12/20/2025-04:21:20] [TRT-LLM] [I] Run warmup for batch size=1"},
	{"trtllm", "trtllm.phase.started_process", "INFO:     Started server process [4242]"},
	{"trtllm", "trtllm.phase.startup_complete", "INFO:     Application startup complete."},
	{"trtllm", "trtllm.bar.load", "Loading safetensors weights in parallel: 100%|██████████| 6/6 [00:00<00:00, 105.78it/s]"},
	{"trtllm", "trtllm.bar.capturing", "Capturing graphs: 50%|█████     | 2/4 [00:01<00:01,  2.00it/s]"},

	{"tgi", "tgi.phase.args", "2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Args {"},
	{"tgi", "tgi.phase.attention", "2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Using attention flashinfer - Prefix caching true"},
	{"tgi", "tgi.phase.attention", "2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Sharding model on 2 processes"},
	{"tgi", "tgi.phase.download", "2026-01-08T10:00:00.123456Z  INFO download: text_generation_launcher: Starting check and download process for Qwen/Qwen3-8B"},
	{"tgi", "tgi.phase.download", "2024-06-08T10:00:00.123456Z  INFO download: text_generation_launcher: Starting download process."},
	{"tgi", "tgi.phase.shard", "2026-01-08T10:00:00.123456Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0"},
	{"tgi", "tgi.phase.webserver", "2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Starting Webserver"},
	{"tgi", "tgi.phase.warmup", "2026-01-08T10:00:00.123456Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:125: Warming up model"},
	{"tgi", "tgi.phase.shard_warmup", "2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: KV-cache blocks: 12345, size: 1 rank=0"},
	{"tgi", "tgi.phase.shard_warmup", "2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Cuda Graphs are enabled for sizes [32, 16, 8, 4, 2, 1] rank=0"},
	// NCCL_DEBUG=INFO under SGLang 0.5.9 on two nodes (NCCL 2.27.5), and
	// under vLLM; Gloo's line from SGLang 0.5.9 (the same log).
	{"sglang", "nccl.phase.setup", "tpgds-aihub0007:185303:185303 [1] NCCL INFO Init timings - ncclCommInitRank: rank 1 nranks 16 total 1.21 (kernels 0.15, alloc 0.01, bootstrap 0.62, allgathers 0.02, topo 0.35, graphs 0.01, connections 0.04, rest 0.01)"},
	{"sglang", "nccl.phase.setup", "tpgds-aihub0003:3828983:3828983 [7] NCCL INFO ncclCommInitRank comm 0x56262b389b30 rank 7 nranks 16 cudaDev 7 nvmlDev 7 busId c1000 commId 0x35712f37c64c1510 - Init COMPLETE"},
	// A multi-node guide's log (NCCL 2.2x), with the server unknown.
	{"", "nccl.phase.setup", "node-2:5776:5898 [0] NCCL INFO NET/IB : Using [0]ibP111p0s0:1/IB [1]rdmaP1111p0s2:1/RoCE [RO]; OOB eth0:10.2.0.4<0>"},
	{"sglang", "sglang.phase.gloo_connected", "[Gloo] Rank 0 is connected to 15 peer ranks. Expected number of connected peer ranks is : 15"},
}

func TestPhaseLines(t *testing.T) {
	for _, tt := range phaseLines {
		c := Lookup(tt.server).Classify(tt.line)
		got := ""
		if c.PhaseRule != nil {
			got = phaseKey(Lookup(tt.server), c.PhaseRule)
		}
		if got != tt.id {
			t.Errorf("%s: line %q marked by %q, want %q", tt.server, tt.line, got, tt.id)
		}
	}
}

// readyLines hold a line for every ready rule, keyed by readyKey.
var readyLines = []ruleLine{
	// llama.cpp before mid-2025 (examples/server/server.cpp): the ready
	// line of the JSON-ish log, and the idle-slots line after the first warmup.
	{"llamacpp", "llamacpp.ready:main: server is listening on|main: model loaded|llama_server: model loaded|llama_server: listening on", "main: server is listening on http://127.0.0.1:8080 - starting the main loop"},
	{"llamacpp", "llamacpp.ready:all slots are idle", "srv  update_slots: all slots are idle"},
	// --no-log-prefix (tools/server/server.cpp, b10587): the module tag alone.
	{"llamacpp", "llamacpp.ready:main: server is listening on|main: model loaded|llama_server: model loaded|llama_server: listening on", "srv  llama_server: model loaded"},
	{"llamacpp", "llamacpp.ready:model loaded", "INFO [                    main] model loaded | tid=\"139637519818752\" timestamp=1717000000"},
	{"sglang", "sglang.ready:The server is fired up and ready to roll!", "[2026-11-29 10:00:00] The server is fired up and ready to roll!"},
	// Ranks > 0 of a multi-node start: srt/utils.py
	// launch_dummy_health_check_server, 0.4.x and 0.5.x.
	{"sglang", "sglang.ready:Dummy health check server scheduled on existing loop at", "[2026-11-29 10:00:00] Dummy health check server scheduled on existing loop at 0.0.0.0:30000"},
	{"sglang", "sglang.ready:Dummy health check server started in background thread at", "[2026-11-29 10:00:00] Dummy health check server started in background thread at 0.0.0.0:30000"},
	{"sglang", "sglang.ready:Starting dummy health check server at", "[2026-11-29 10:00:00] Starting dummy health check server at 0.0.0.0:30000"},
	{"tgi", "tgi.ready:Connected", "2026-01-08T10:00:00.123456Z  INFO text_generation_router::server: router/src/server.rs:2302: Connected"},
}

// phaseKey names a phase rule: its ID, or for one without (the llama.cpp
// profile's, until they get IDs) its profile and literal.
func phaseKey(pr *Profile, r *PhaseRule) string {
	if r.ID != "" {
		return r.ID
	}
	return name(pr.Name) + ".phase:" + r.Lit
}

// readyKey names a ready rule, which has no ID of its own: its profile
// and its literal.
func readyKey(pr *Profile, m *Matcher) string { return name(pr.Name) + ".ready:" + m.Lit }

func TestReadyLines(t *testing.T) {
	for _, tt := range readyLines {
		pr := Lookup(tt.server)
		c := pr.Classify(tt.line)
		if !c.Ready {
			t.Errorf("%s: %q is not ready", tt.server, tt.line)
		}
		if got := firstReady(pr, tt.line); got != tt.id {
			t.Errorf("%s: %q is ready by %q, want %q", tt.server, tt.line, got, tt.id)
		}
	}
}

// firstReady is the key of the first ready rule that matches line.
func firstReady(pr *Profile, line string) string {
	msg := Parse(line).Msg
	for i := range pr.Ready {
		if pr.Ready[i].match(msg, strings.ToLower(msg)) {
			return readyKey(pr, &pr.Ready[i])
		}
	}
	return ""
}

// TestNoHTTPReadyLines: trtllm-serve --grpc's ready lines (commands/
// serve.py launch_grpc_server, grpc/smg/server.py, grpc/openengine/
// server.py) are ready lines of a server with no HTTP; its HTTP mode's
// uvicorn line is neither.
func TestNoHTTPReadyLines(t *testing.T) {
	tests := []struct {
		name, line    string
		ready, noHTTP bool
	}{
		{"grpc", "[05/02/2026-07:22:20] [TRT-LLM] [I] TensorRT-LLM gRPC server started on 0.0.0.0:8000", true, true},
		{"smg", "[05/02/2026-07:22:20] [TRT-LLM] [MPI_Rank 0] [I] TensorRT-LLM SMG gRPC server started on [::]:50051", true, true},
		{"openengine", "[05/02/2026-07:22:20] [TRT-LLM] [I] OpenEngine server started on 127.0.0.1:8000", true, true},
		{"uvicorn", "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)", false, false},
		{"initializing", "[05/02/2026-07:20:00] [TRT-LLM] [I] Initializing TensorRT-LLM gRPC server...", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Lookup("trtllm").Classify(tt.line)
			if c.Ready != tt.ready || c.NoHTTP != tt.noHTTP {
				t.Errorf("Ready %v NoHTTP %v, want %v %v", c.Ready, c.NoHTTP, tt.ready, tt.noHTTP)
			}
		})
	}
}

func TestServesNoHTTP(t *testing.T) {
	tests := []struct {
		name, kind string
		argv       []string
		want       bool
	}{
		{"trtllm grpc", "trtllm", []string{"trtllm-serve", "Qwen/Qwen3-8B", "--grpc", "--port", "8000"}, true},
		{"trtllm http", "trtllm", []string{"trtllm-serve", "Qwen/Qwen3-8B", "--port", "8000"}, false},
		{"another server's flag", "vllm", []string{"vllm", "serve", "m", "--grpc"}, false},
		{"unknown server", "", []string{"x", "--grpc"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ServesNoHTTP(tt.kind, tt.argv); got != tt.want {
				t.Errorf("ServesNoHTTP = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPoolingOf(t *testing.T) {
	tests := []struct {
		name, kind string
		argv       []string
		env        map[string]string
		want       string
	}{
		{"vllm pooling runner", "vllm", []string{"vllm", "serve", "BAAI/bge-m3", "--runner", "pooling"}, nil, Embedding},
		{"vllm runner with =", "vllm", []string{"vllm", "serve", "BAAI/bge-m3", "--runner=pooling"}, nil, Embedding},
		{"vllm converted", "vllm", []string{"vllm", "serve", "Qwen/Qwen3-8B", "--convert", "embed"}, nil, Embedding},
		{"vllm older task", "vllm", []string{"vllm", "serve", "BAAI/bge-reranker-v2-m3", "--task", "score"}, nil, Ranking},
		{"vllm generating", "vllm", []string{"vllm", "serve", "Qwen/Qwen3-8B", "--runner", "generate", "--task", "generate"}, nil, ""},
		{"sglang embedding", "sglang", []string{"python3", "-m", "sglang.launch_server", "--model-path", "Alibaba-NLP/gte-Qwen2-1.5B-instruct", "--is-embedding"}, nil, Embedding},
		{"llama.cpp embeddings", "llamacpp", []string{"llama-server", "-m", "bge.gguf", "--embeddings"}, nil, Embedding},
		{"llama.cpp rerank", "llamacpp", []string{"llama-server", "-m", "bge-reranker.gguf", "--reranking"}, nil, Ranking},
		{"llama.cpp from the environment", "llamacpp", []string{"llama-server", "-m", "bge.gguf"}, map[string]string{"LLAMA_ARG_EMBEDDINGS": "1"}, Embedding},
		{"llama.cpp from an env word", "llamacpp", []string{"env", "LLAMA_ARG_RERANKING=true", "llama-server", "-m", "r.gguf"}, nil, Ranking},
		{"llama.cpp turned off", "llamacpp", []string{"llama-server", "-m", "m.gguf"}, map[string]string{"LLAMA_ARG_EMBEDDINGS": "0"}, ""},
		{"llama.cpp generating", "llamacpp", []string{"llama-server", "-m", "m.gguf", "--pooling", "mean"}, nil, ""},
		{"llama.cpp ranking over embeddings", "llamacpp", []string{"llama-server", "-m", "r.gguf", "--embeddings", "--rerank"}, nil, Ranking},
		{"unknown kind reads every profile", "", []string{"python3", "-m", "sglang.launch_server", "--is-embedding"}, nil, Embedding},
		{"another server's flag", "tgi", []string{"text-generation-launcher", "--is-embedding"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PoolingOf(tt.kind, tt.argv, func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("PoolingOf = %q, want %q", got, tt.want)
			}
		})
	}
}

// notableLines hold a line for every notable-warning rule.
var notableLines = []ruleLine{
	// torch/cuda/__init__.py (2.x), before trtllm-serve's "No GPU devices found".
	{"trtllm", "torch.cuda_init", "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:182: UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 12020). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx"},
	{"vllm", "allreduce.custom_off", "(Worker_TP0 pid=9) WARNING 11-29 10:00:00 [custom_all_reduce.py:144] Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly."},
	{"sglang", "allreduce.custom_off", "[2026-11-29 10:00:00 TP0] Custom allreduce is disabled because this process group spans across nodes."},
	{"vllm", "quant.fp8_marlin", "(EngineCore_DP0 pid=1) WARNING 11-29 10:00:00 [marlin_utils_fp8.py:80] Your GPU does not have native support for FP8 computation but FP8 quantization is being used. Weight-only FP8 compression will be used leveraging the Marlin kernel. This may degrade performance for compute-heavy workloads."},
	{"vllm", "dtype.cast", "(APIServer pid=1) WARNING 11-29 10:00:00 [__init__.py:2915] Casting torch.bfloat16 to torch.float16."},
	{"sglang", "dtype.cast", "[2026-11-29 10:00:00] Casting torch.bfloat16 to torch.float16."},
	{"vllm", "kv.fp8_no_scales", "WARNING 11-29 10:00:00 [kv_cache.py:86] Using KV cache scaling factor 1.0 for fp8_e4m3. If this is unintended, verify that k/v_scale scaling factors are properly set in the checkpoint."},
	{"sglang", "kv.fp8_no_scales", "[2026-11-29 10:00:00 TP0] Using FP8 KV cache but no scaling factors provided. Defaulting to scaling factors of 1.0. This may lead to less accurate results!"},
	{"sglang", "ctx.over_derived", "[2026-11-29 10:00:00] Warning: User-specified context_length (262144) is greater than the derived context_length (131072). This may lead to incorrect model outputs or CUDA errors."},
	{"vllm", "ctx.over_derived", "(APIServer pid=1) WARNING 11-29 10:00:00 [config.py:3900] User-specified max_model_len (262144) is greater than the derived max_model_len (max_position_embeddings=131072 or model_max_length=None in model's config.json). Make sure the value is correct and within the model context size."},
	{"sglang", "cudagraph.off", "[2026-11-29 10:00:00] Cuda graph is disabled because of using torch native attention backend"},
	{"sglang", "sglang.max_running_reduced", "[2026-11-20 10:00:10 TP0] max_running_requests was reduced from the requested 4096 to 2048 (per dp worker) due to the available KV cache capacity."},
	{"sglang", "sglang.prefill_graph_off", "[2026-11-20 10:00:19 TP0] Disable prefill CUDA graph because some layers do not apply Standard GQA"},
	{"sglang", "sglang.prefill_graph_off", "[2026-11-20 10:00:19 TP0] Disable prefill CUDA graph because the model is not a language model"},
	{"vllm", "vllm.autofit_reduced", "(EngineCore pid=42) INFO 08-20 10:00:40 [kv_cache_utils.py:1700] Auto-fit max_model_len: reduced from 262144 to 172032 to fit in available GPU memory (3.01 GiB available for KV cache)"},
	{"vllm", "cudagraph.off", "(EngineCore_DP0 pid=1) INFO 11-29 10:00:00 [gpu_model_runner.py:3500] Cudagraph is disabled under eager mode"},
	{"tgi", "cudagraph.off", "2026-01-08T10:00:00.123456Z  WARN text_generation_launcher: Bitsandbytes doesn't work with cuda graphs, deactivating them"},
	{"tgi", "cudagraph.off", "2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Cuda Graphs are disabled (CUDA_GRAPHS=None)."},
	{"vllm", "hf.slow_processor", "Using a slow image processor as `use_fast` is unset and a slow processor was saved with this model. `use_fast=True` will be the default behavior in v4.52, even if the model was saved with a slow processor."},
	{"sglang", "hf.model_type_mismatch", "You are using a model of type qwen2 to instantiate a model of type llama. This is not supported for all configurations of models and can yield errors."},
	{"sglang", "sglang.deepgemm_scale", "[2026-04-12 12:43:59] WARNING model_config.py:856: DeepGemm is enabled but the scale_fmt of checkpoint is not ue8m0. This might cause accuracy degradation on Blackwell."},
	{"sglang", "sglang.deepgemm_scale", "[2026-04-12 12:43:59] DeepGemm is enabled but the scale_fmt of checkpoint is not ue8m0. This might cause accuracy degradation on Blackwell."},
	{"sglang", "sglang.overlap_off", "[2026-11-29 10:00:00] Overlap scheduler is disabled because of using eagle speculative decoding."},
	{"vllm", "vllm.flash_attn_off", "INFO 01-14 03:08:50 selector.py:151] Cannot use FlashAttention-2 backend for Volta and Turing GPUs."},
	{"vllm", "vllm.jit_during_inference", "(EngineCore pid=1) WARNING 11-29 10:05:00 [jit_monitor.py:96] Triton kernel JIT compilation during inference: fused_moe_kernel"},
	{"tgi", "tgi.no_flash_models", "2026-01-08T10:00:00.123456Z  WARN text_generation_launcher: Could not import Flash Attention enabled models: No module named 'flash_attn_2_cuda'"},
	{"tgi", "tgi.prefill_reduced", "2026-01-08T10:00:00.123456Z  WARN text_generation_launcher: Reducing the max batch prefill from 4096 to 2048 because there is not enough VRAM to support it."},
	{"tgi", "tgi.attention_forced", "2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Forcing attention to 'paged' because head dim is not supported by flashinfer, also disabling prefix caching"},
	{"tgi", "tgi.exllama_off", "2026-01-08T10:00:00.123456Z  WARN shard-manager: text_generation_launcher: Disabling exllama because desc_act=True rank=0"},
	{"tgi", "tgi.graph_warmup_failed", "2026-01-08T10:00:00.123456Z ERROR shard-manager: text_generation_launcher: Decode cuda graph warmup failed rank=0"},
	{"tgi", "tgi.legacy_tokenizer", "2026-01-08T10:00:00.123456Z  WARN text_generation_router::server: router/src/server.rs:1464: Odd tokenizer detected, falling back on legacy tokenization"},
}

func TestNotableLines(t *testing.T) {
	for _, tt := range notableLines {
		t.Run(tt.id, func(t *testing.T) {
			c := Lookup(tt.server).Classify(tt.line)
			got := ""
			if c.Notable != nil {
				got = c.Notable.ID
			}
			if got != tt.id {
				t.Errorf("%s profile: line %q is notable %q, want %q", name(tt.server), tt.line, got, tt.id)
			}
			if c.Failure != nil {
				t.Errorf("a notable warning fails the start: %s", c.Failure.ID)
			}
			if c.Notable != nil && (c.Notable.Meaning == "" || c.Notable.Effect == "") {
				t.Errorf("rule %s has no meaning or effect", c.Notable.ID)
			}
		})
	}
}

// becauseLines are real notable warnings whose reason explains a later
// failure (FailureRule.Because), and the rule the reason must match.
var becauseLines = []ruleLine{
	// text_generation_server/models/__init__.py in a container that sees
	// no GPU (text-generation-inference#1636).
	{"tgi", "cuda.no_gpu", "2024-03-08T10:11:12.123456Z  WARN text_generation_launcher: Could not import Flash Attention enabled models: CUDA is not available"},
	{"tgi", "py.import", "2024-03-08T10:11:12.123456Z  WARN text_generation_launcher: Could not import Flash Attention enabled models: No module named 'dropout_layer_norm'"},
}

func TestBecauseReasons(t *testing.T) {
	for _, tt := range becauseLines {
		pr := Lookup(tt.server)
		c := pr.Classify(tt.line)
		if c.Notable == nil {
			t.Fatalf("%q is not a notable warning", tt.line)
		}
		reason := c.Notable.Reason(c.Raw)
		got := ""
		if f := pr.Classify(reason).Failure; f != nil {
			got = f.ID
		}
		if got != tt.id {
			t.Errorf("reason %q of %q matches %q, want %q", reason, tt.line, got, tt.id)
		}
	}
	// Every Because names a notable warning of its profile.
	for _, pr := range []*Profile{sglang, vllm, trtllm, llamacpp, tgi, generic} {
		for _, f := range pr.Failures {
			if f.Because == "" {
				continue
			}
			found := false
			for _, n := range append(append([]NotableRule(nil), commonNotable...), pr.Notable...) {
				found = found || n.ID == f.Because
			}
			if !found {
				t.Errorf("%s: rule %s is explained by %q, which is no notable warning of the profile", pr.Name, f.ID, f.Because)
			}
		}
	}
}

// Every Supersedes names a failure rule the profile has, with a cause.
func TestSupersedesNamesARule(t *testing.T) {
	for _, pr := range allProfiles {
		for _, f := range pr.Failures {
			if f.Supersedes == "" {
				continue
			}
			found := false
			for _, rules := range [][]FailureRule{pr.Failures, commonFailures} {
				for _, r := range rules {
					found = found || r.ID == f.Supersedes && r.Cause != ""
				}
			}
			if !found {
				t.Errorf("%s: rule %s supersedes %q, which is no rule with a cause", name(pr.Name), f.ID, f.Supersedes)
			}
		}
	}
}

func TestFrameCause(t *testing.T) {
	for _, tt := range []struct{ line, id string }{
		// tensorrt_llm _torch/modules/linear.py (TensorRT-LLM#16867).
		{`  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/modules/linear.py", line 1288, in load_weights_fused_qkv_linear`, "weights.load_frame"},
		// vllm model_executor/layers/linear.py.
		{`  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/linear.py", line 1207, in weight_loader`, "weights.load_frame"},
		{`  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/commands/serve.py", line 200, in launch_server`, ""},
		// sglang srt/server_args.py (spark-arena/sparkrun#284).
		{`  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/server_args.py", line 4861, in check_server_args`, "sglang.args_check"},
		// vllm utils.py FlexibleArgumentParser (vllm PR 17944's paste).
		{`  File "/home/xx/github/vllm/vllm/utils.py", line 1391, in parse_args`, "args.parse_frame"},
		{`    args = parser.parse_args()`, ""},
		{`    self._call_load_weights(model.load_weights, weights, self.weight_mapper)`, ""},
		{`load_weights failed`, ""},
	} {
		got := ""
		if r, _ := Frame(tt.line); r != nil {
			got = r.ID
		}
		if got != tt.id {
			t.Errorf("Frame(%q) cause %q, want %q", tt.line, got, tt.id)
		}
	}
}

func TestFramePhase(t *testing.T) {
	for _, tt := range []struct {
		line  string
		phase v.Phase
	}{
		{`  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/model_loader/__init__.py", line 19, in get_model`, v.Weights},
		{`  File "/x/vllm/worker/worker.py", line 117, in load_model`, v.Weights},
		{`  File "/sgl/python/sglang/srt/model_executor/model_runner.py", line 1031, in init_cuda_graphs`, v.CUDAGraph},
		{`  File "/x/vllm/v1/worker/gpu_model_runner.py", line 2240, in _dummy_sampler_run`, ""},
		// vLLM V1's KV cache sizing (users' excerpts, 2025-2026), not the
		// engine's step that profiles first.
		{`  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 1096, in unify_kv_cache_spec_page_size`, v.KVCache},
		{`  File "/opt/conda/envs/vllm_env/lib/python3.13/site-packages/vllm/v1/core/kv_cache_utils.py", line 1243, in get_kv_cache_configs`, v.KVCache},
		{`  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 305, in _initialize_kv_caches`, ""},
		// vLLM V1 compiles inside its memory profiling: no phase of its own.
		{`  File "/x/vllm/v1/worker/gpu_worker.py", line 263, in determine_available_memory`, ""},
		{`  File "/x/vllm/worker/worker.py", line 117, in load_model_fast`, ""},
		{`    self.model = get_model(vllm_config=self.vllm_config)`, ""},
	} {
		if _, got := Frame(tt.line); got != tt.phase {
			t.Errorf("Frame(%q) phase %q, want %q", tt.line, got, tt.phase)
		}
	}
}

// A traceback's source line that quotes a warning is not one.
func TestQuotedWarningIsNotNotable(t *testing.T) {
	line := `    logger.warning("Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs.")`
	if c := Lookup("vllm").Classify(line); c.Notable != nil {
		t.Errorf("quoted source line is notable %s", c.Notable.ID)
	}
}

// Prefill CUDA graphs the user turned off are the user's choice, not a
// warning; those the server turned off itself are one.
func TestUserDisabledPrefillGraphIsNotNotable(t *testing.T) {
	line := "[2026-08-07 17:35:59 TP1] Disable prefill CUDA graph because cuda_graph_config resolved prefill.backend='disabled' (e.g. via --cuda-graph-backend-prefill=disabled or auto-disable rules)."
	if c := Lookup("sglang").Classify(line); c.Notable != nil {
		t.Errorf("the user's own setting is notable %s", c.Notable.ID)
	}
}

func TestQuoted(t *testing.T) {
	vllmWorker := Lookup("vllm").Classify("(EngineCore pid=42) ERROR 08-20 10:00:41 [core.py:1010] RuntimeError: Worker failed with error 'CUDA error: no kernel image is available', please check the stack trace above for the root cause")
	trtExecutor := Lookup("trtllm").Classify("[07/08/2025-19:47:15] [TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: Invalid argument: max_num_tokens (8192) must be greater than 0")
	tests := []struct {
		name string
		c    Class
		want string
	}{
		{"between quotes, a colon inside", vllmWorker, "CUDA error: no kernel image is available"},
		{"after the colon", trtExecutor, "Invalid argument: max_num_tokens (8192) must be greater than 0"},
		{"all after a literal that ends in a colon", Lookup("tgi").Classify(`Error: Backend(Warmup(Generation("Not enough memory to handle 4096 prefill tokens. You need to decrease ` + "`--max-batch-prefill-tokens`" + `")))`),
			`Backend(Warmup(Generation("Not enough memory to handle 4096 prefill tokens. You need to decrease ` + "`--max-batch-prefill-tokens`" + `")))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Failure.Quoted(tt.c.Msg); got != tt.want {
				t.Errorf("Quoted = %q, want %q", got, tt.want)
			}
		})
	}
	var none *FailureRule
	if got := none.Quoted("x"); got != "" {
		t.Errorf("a nil rule quotes %q", got)
	}
}

// A line that fails the start is not also a notable warning.
func TestFailureIsNotNotable(t *testing.T) {
	line := "ValueError: Warning: User-specified context_length (262144) is greater than the derived context_length (131072). This may lead to incorrect model outputs or CUDA errors. To allow overriding this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"
	c := Lookup("sglang").Classify(line)
	if c.Failure == nil || c.Failure.ID != "ctx.too_long" {
		t.Fatalf("failure = %v, want ctx.too_long", c.Failure)
	}
	if c.Notable != nil {
		t.Errorf("failure line is also notable %s", c.Notable.ID)
	}
}

// knownGaps are rules whose real lines live in another test file of the
// package that this table does not see (the llama.cpp profile's own
// tests); the reason says where. Empty it as those lines join a table.
var knownGaps = map[string]string{}

// classIDs is every catalogue rule ID a classified line carries.
func classIDs(c Class) []string {
	var ids []string
	if c.Failure != nil {
		ids = append(ids, c.Failure.ID)
	}
	if c.KernelRule != nil {
		ids = append(ids, c.KernelRule.ID)
	}
	if c.Notable != nil {
		ids = append(ids, c.Notable.ID)
	}
	if c.PhaseRule != nil {
		ids = append(ids, c.PhaseRule.ID)
	}
	return ids
}

func TestFailureLines(t *testing.T) {
	for _, tt := range failureLines {
		t.Run(tt.id, func(t *testing.T) {
			c := Lookup(tt.server).Classify(tt.line)
			got := ""
			if c.Failure != nil {
				got = c.Failure.ID
			}
			if got != tt.id {
				t.Errorf("%s profile: line %q matched rule %q, want %q", name(tt.server), tt.line, got, tt.id)
			}
		})
	}
}

// TestEveryRuleHasALine fails when a catalogue rule has no line in a
// table that asserts its ID: such a rule is either dead or shadowed by an
// earlier one.
func TestEveryRuleHasALine(t *testing.T) {
	covered := map[string]bool{}
	lines := append(append(append([]ruleLine{}, failureLines...), notableLines...), phaseLines...)
	for _, k := range kernelCases {
		lines = append(lines, ruleLine{k.server, k.id, k.line})
	}
	for _, tt := range lines {
		// Only the rule the table asserts counts: a line that also
		// matches another rule does not cover that one.
		for _, id := range classIDs(Lookup(tt.server).Classify(tt.line)) {
			if id == tt.id {
				covered[id] = true
			}
		}
	}
	for _, tt := range phaseLines {
		if c := Lookup(tt.server).Classify(tt.line); c.PhaseRule != nil && phaseKey(Lookup(tt.server), c.PhaseRule) == tt.id {
			covered[tt.id] = true
		}
	}
	for _, tt := range readyLines {
		if firstReady(Lookup(tt.server), tt.line) == tt.id {
			covered[tt.id] = true
		}
	}
	// The llama.cpp profile's real and source-quoted lines
	// (llamacpp_test.go) assert a rule, a notable warning, a phase or the
	// ready signal; the rule that gives what they assert is covered.
	for _, tt := range append(slices.Clip(llamacppRealLines), llamacppSourceLines...) {
		c := llamacpp.Classify(tt.line)
		if c.Failure != nil && c.Failure.ID == tt.rule {
			covered[tt.rule] = true
		}
		if c.Notable != nil && c.Notable.ID == tt.notable {
			covered[tt.notable] = true
		}
		if tt.phase != "" && c.Phase == tt.phase && c.PhaseRule != nil {
			covered[phaseKey(llamacpp, c.PhaseRule)] = true
		}
		if tt.ready {
			covered[firstReady(llamacpp, tt.line)] = true
		}
	}
	for _, tt := range hostMemoryLines {
		if c := Lookup(tt.server).Classify(tt.line); c.Failure != nil && c.Failure.ID == tt.rule {
			covered[tt.rule] = true
		}
	}
	all := allRuleIDs(t)
	var missing []string
	for _, id := range all {
		if !covered[id] && knownGaps[id] == "" {
			missing = append(missing, id)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of %d rules are matched first by no table line: %s", len(missing), len(all), strings.Join(missing, " "))
	}
	known := map[string]bool{}
	for _, id := range all {
		known[id] = true
	}
	for id := range knownGaps {
		if !known[id] {
			t.Errorf("known gap %q names no rule", id)
		} else if covered[id] {
			t.Errorf("known gap %q is covered now: remove it from knownGaps", id)
		}
	}
}

// allRuleIDs lists every rule ID and fails on an empty or repeated one.
func allRuleIDs(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var ids []string
	add := func(id, where string) {
		if id == "" {
			t.Errorf("a rule in %s has no ID", where)
			return
		}
		if seen[id] {
			t.Errorf("rule ID %q is used twice", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	for _, pr := range allProfiles {
		for _, r := range pr.Failures {
			add(r.ID, name(pr.Name))
		}
		for _, rules := range [][]PhaseRule{pr.Phases, pr.ProgressPhases} {
			for _, r := range rules {
				if !isNCCLPhase(r.ID) {
					add(phaseKey(pr, &r), name(pr.Name)+"'s phases")
				}
			}
		}
		for i := range pr.Ready {
			add(readyKey(pr, &pr.Ready[i]), name(pr.Name)+"'s ready lines")
		}
	}
	for _, r := range ncclPhases {
		add(r.ID, "the shared NCCL phases")
	}
	for _, r := range commonFailures {
		add(r.ID, "the common catalogue")
	}
	for _, r := range kernelRules {
		add(r.ID, "the kernel config rules")
	}
	for _, r := range commonNotable {
		add(r.ID, "the common notable warnings")
	}
	for _, pr := range allProfiles {
		for _, r := range pr.Notable {
			add(r.ID, name(pr.Name)+"'s notable warnings")
		}
	}
	return ids
}

// isNCCLPhase: every profile but llama.cpp's shares the NCCL phase
// markers (ncclPhases); each is one rule.
func isNCCLPhase(id string) bool {
	for _, r := range ncclPhases {
		if r.ID == id {
			return true
		}
	}
	return false
}

func name(server string) string {
	if server == "" {
		return "generic"
	}
	return server
}
