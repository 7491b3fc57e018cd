package classify

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	v "vigil/internal/verdict"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, line             string
		msg, source, level, sk string
	}{
		{"sglang rank", "[2026-05-24 00:52:39 TP1] Load weight begin. avail mem=75.12 GB", "Load weight begin. avail mem=75.12 GB", "TP1", "", "sglang"},
		{"sglang dp tp ep", "[2026-05-24 00:52:39.123 DP1 TP3 EP3] KV Cache is allocated.", "KV Cache is allocated.", "DP1 TP3 EP3", "", "sglang"},
		{"sglang main", "[2026-05-24 00:53:21] The server is fired up and ready to roll!", "The server is fired up and ready to roll!", "", "", "sglang"},
		{"sglang old gpu_id", "[gpu_id=0] Load weight end. type=Qwen2ForCausalLM", "Load weight end. type=Qwen2ForCausalLM", "GPU0", "", ""},
		{"sglang uvicorn", "[2026-05-24 00:53:20] INFO:     Uvicorn running on http://127.0.0.1:30000", "Uvicorn running on http://127.0.0.1:30000", "", "info", "sglang"},
		{"vllm engine", "(EngineCore_DP0 pid=441) INFO 11-24 11:43:54 [gpu_model_runner.py:3341] Model loading took 2.05 GiB", "Model loading took 2.05 GiB", "EngineCore_DP0", "info", "vllm"},
		{"vllm old header", "INFO 01-14 03:08:50 llm_engine.py:234] Initializing an LLM engine", "Initializing an LLM engine", "", "info", "vllm"},
		{"vllm warning", "(APIServer pid=1) WARNING 05-19 10:00:01 [api_server.py:1] careful", "careful", "APIServer", "warning", "vllm"},
		{"vllm ansi prefix", "\x1b[1;36m(EngineCore pid=7)\x1b[0;0m ERROR 05-19 10:00:01 [core.py:866] EngineCore failed to start.", "EngineCore failed to start.", "EngineCore", "error", "vllm"},
		{"vllm uvicorn", "(APIServer pid=9851) INFO:     Application startup complete.", "Application startup complete.", "APIServer", "info", ""},
		// Users' logs of vLLM's failed workers (three in testdata).
		{"vllm header a space further", "(VllmWorker rank=2 pid=9320)  ERROR 05-17 22:39:50 [multiproc_executor.py:487] WorkerProc failed to start.", "WorkerProc failed to start.", "VllmWorker rank=2", "error", "vllm"},
		{"vllm frame under a tag keeps indent", "(VllmWorker rank=2 pid=9320)   File \"x.py\", line 1", "  File \"x.py\", line 1", "VllmWorker rank=2", "", ""},
		{"vllm traceback frame keeps indent", "(EngineCore pid=7) ERROR 05-19 10:00:01 [core.py:866]   File \"x.py\", line 1", "  File \"x.py\", line 1", "EngineCore", "error", "vllm"},
		{"trtllm rank", "[05/19/2026-10:00:00] [TRT-LLM] [MPI_Rank 1] [E] Failed", "Failed", "MPI_Rank 1", "error", "trtllm"},
		// 1.x (TensorRT-LLM#9554 and most users' logs since 2025).
		{"ray task without an actor's name", "(pid=13210) WARNING 07-31 19:35:15 [_custom_ops.py:20] Failed to import from vllm._C with ModuleNotFoundError(\"No module named 'vllm._C'\")", "Failed to import from vllm._C with ModuleNotFoundError(\"No module named 'vllm._C'\")", "pid 13210", "warning", "vllm"},
		{"ray task on another node", "(pid=2301, ip=10.0.0.2) INFO 07-31 19:35:13 [__init__.py:235] Platform plugin ascend is activated", "Platform plugin ascend is activated", "pid 2301", "info", "vllm"},
		{"vllm ray actor under the driver's tag", "(APIServer pid=5332) (DPEngineCoreActor pid=5862) INFO 01-12 06:14:41 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen3-0.6B...", "Starting to load model Qwen/Qwen3-0.6B...", "DPEngineCoreActor", "info", "vllm"},
		// TGI --json-output (a user's OpenShift deployment): the launcher,
		// a shard's span, the router.
		{"tgi json launcher", `{"timestamp":"2024-02-21T05:09:46.815155Z","level":"INFO","fields":{"message":"Starting download process."},"target":"text_generation_launcher","span":{"name":"download"},"spans":[{"name":"download"}]}`, "Starting download process.", "", "info", "iso"},
		{"tgi json shard", `{"timestamp":"2024-02-21T05:09:58.029562Z","level":"INFO","fields":{"message":"Shard ready in 5.607799614s"},"target":"text_generation_launcher","span":{"rank":0,"name":"shard-manager"},"spans":[{"rank":0,"name":"shard-manager"}]}`, "Shard ready in 5.607799614s", "rank 0", "info", "iso"},
		{"tgi json python", `{"timestamp":"2024-02-21T05:09:57.948206Z","level":"INFO","fields":{"message":"Server started at unix:///tmp/text-generation-server-0\n"},"target":"text_generation_launcher"}`, "Server started at unix:///tmp/text-generation-server-0", "", "info", "iso"},
		{"tgi json router", `{"timestamp":"2024-02-21T05:10:01.304586Z","level":"INFO","message":"Connected","target":"text_generation_router","filename":"router/src/main.rs","line_number":247}`, "Connected", "", "info", "iso"},
		{"json without a message", `{"a":1}`, `{"a":1}`, "", "", ""},
		// Docker's json-file log (/var/lib/docker/containers/ID/ID-json.log):
		// the container's line, parsed as such, stamped by the runtime.
		{"docker json-file", `{"log":"(APIServer pid=1) INFO 03-09 12:55:32 [api_server.py:491] Supported tasks: ['generate']\n","stream":"stderr","time":"2026-03-09T12:55:32.123456789Z"}`, "Supported tasks: ['generate']", "APIServer", "info", "iso"},
		{"docker json-file of tgi's json", `{"log":"{\"timestamp\":\"2024-02-21T05:10:01.304586Z\",\"level\":\"INFO\",\"message\":\"Connected\",\"target\":\"text_generation_router\"}\n","stream":"stdout","time":"2024-02-21T05:10:01.305Z"}`, "Connected", "", "info", "iso"},
		{"docker json-file without a time", `{"log":"main: loading model\n"}`, "main: loading model", "", "", ""},
		// llama-server's router before a model server's line (a user's
		// log, 2026); a bracketed number before anything else is no port.
		{"llama.cpp router child", "[35373] 0.19.885.338 I srv    operator(): exit command received, exiting...", "operator(): exit command received, exiting...", "port 35373", "info", "llamacpp"},
		{"llama.cpp router child, padded", "[ 8080] 0.00.047.233 I cmn  common_param: common_params_print_info: verbosity = 3", "common_param: common_params_print_info: verbosity = 3", "port 8080", "info", "llamacpp"},
		{"a bracketed number", "[42] something", "[42] something", "", "", ""},
		// journalctl -u UNIT (a user's vLLM under systemd, 2026).
		{"journalctl", "Aug 23 18:09:58 dgx qwen3.8-27b-vllm-896k.sh[742182]: (EngineCore pid=742182) INFO 08-23 18:09:58 [gpu_model_runner.py:6867] Rank 0: Torch profiler disabled for CUDA graph capture", "Rank 0: Torch profiler disabled for CUDA graph capture", "EngineCore", "info", "vllm"},
		{"journalctl, bare", "Aug 23 18:10:24 dgx qwen3.8-27b-vllm-896k.sh[742182]: [6.0K blob data]", "[6.0K blob data]", "", "", "syslog"},
		// journalctl's other short formats (systemd's logs-show.c):
		// -o short-precise, short-iso (older systemd: "+0200"),
		// short-iso-precise.
		{"journalctl -o short-precise", "Aug 23 18:09:58.123456 dgx vllm[742182]: (APIServer pid=742182) INFO 08-23 18:09:58 [api_server.py:1395] vLLM API server version 0.11.0", "vLLM API server version 0.11.0", "APIServer", "info", "vllm"},
		{"journalctl -o short-iso", "2026-08-23T18:09:58+02:00 dgx vllm[742182]: (APIServer pid=742182) INFO 08-23 18:09:58 [api_server.py:1395] vLLM API server version 0.11.0", "vLLM API server version 0.11.0", "APIServer", "info", "vllm"},
		{"journalctl -o short-iso, bare", "2026-08-23T18:09:58+0200 dgx llama-server[9]: main: loading model", "main: loading model", "", "", "iso"},
		{"journalctl -o short-iso-precise", "2026-08-23T18:09:58.123456-05:00 dgx llama-server[9]: main: loading model", "main: loading model", "", "", "iso"},
		// podman logs -t and CRI-O's node logs: the runtime's local time
		// with its zone; a node's container log (CRI) names the stream.
		{"a runtime's time with its zone", "2026-08-23T18:09:58.123456789+02:00 main: loading model", "main: loading model", "", "", "iso"},
		{"a node's container log", "2026-08-23T16:09:58.123456789Z stderr F (APIServer pid=1) INFO 08-23 16:09:58 [api_server.py:1395] vLLM API server version 0.11.0", "vLLM API server version 0.11.0", "APIServer", "info", "vllm"},
		{"a node's container log, part of a line", "2026-08-23T18:09:58.123456789+02:00 stdout P [2026-08-23 18:09:58] server_args=ServerArgs(model_path='/m'", "server_args=ServerArgs(model_path='/m'", "", "", "sglang"},
		{"a node's container log, tgi", "2026-08-23T16:09:58.1Z stdout F 2026-08-23T16:09:58.123456Z  INFO text_generation_launcher: Args {", "Args {", "", "info", "iso"},
		// docker compose up/logs, kubectl logs --timestamps, Docker Desktop
		// (users' logs, 2026).
		{"compose service", "qwen3.5-9b  | (APIServer pid=1) INFO 03-09 12:55:32 [api_server.py:491] Supported tasks: ['generate']", "Supported tasks: ['generate']", "APIServer", "info", "vllm"},
		{"kubectl --prefix", "[pod/vllm-7d9f8c6b5-x2k4q/vllm] (APIServer pid=1) INFO 03-09 12:55:32 [api_server.py:491] Supported tasks: ['generate']", "Supported tasks: ['generate']", "APIServer", "info", "vllm"},
		{"kubectl --prefix --timestamps", "[pod/sglang-0/server] 2026-09-22T06:49:56.336833841Z [2026-09-22 06:49:56] server_args={'model_path': '/m'}", "server_args={'model_path': '/m'}", "", "", "sglang"},
		{"a bracket that is no pod", "[pod/a b/c] x", "[pod/a b/c] x", "", "", ""},
		{"kubectl timestamps", "2026-09-22T06:49:56.336833841Z [2026-09-22 06:49:56] server_args={'model_path': '/m'}", "server_args={'model_path': '/m'}", "", "", "sglang"},
		{"kubectl timestamps on tgi", "2026-09-22T06:49:56.336833841Z 2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Args {", "Args {", "", "info", "iso"},
		{"docker desktop", "2026-05-01 18:57:24.911 | (APIServer pid=1) INFO 05-01 18:57:24 [api_server.py:491] Supported tasks", "Supported tasks", "APIServer", "info", "vllm"},
		// Docker Desktop's view without milliseconds (a user's SGLang log,
		// 2025-02), above SGLang's own stamp in another zone.
		{"docker desktop, seconds", "2025-02-04 21:21:40 [2025-02-04 05:21:40 TP0] Load weight begin. avail mem=22.76 GB", "Load weight begin. avail mem=22.76 GB", "TP0", "", "sglang"},
		// Wrappers' Python loggers: the local time with its ",ms" or
		// ".ms", a level before it or after it (NVIDIA NIM 1.0, Ray, KServe,
		// Ray Serve, InstructLab; users' logs 2024-2025).
		{"nim", "2024-07-23 22:27:23,428 [INFO] [TRT-LLM] [I] Starting TensorRT-LLM init.", "[INFO] [TRT-LLM] [I] Starting TensorRT-LLM init.", "", "", "sglang"},
		{"ray", "2025-01-13 10:12:19,545\tINFO worker.py:1654 -- Connecting to existing Ray cluster at address: 10.0.0.1:6379...", "INFO worker.py:1654 -- Connecting to existing Ray cluster at address: 10.0.0.1:6379...", "", "", "sglang"},
		{"kserve", "2024-07-01 07:28:04.488 1 kserve ERROR [__main__.py:<module>():254] Failed to start model server: integer division or modulo by zero", "1 kserve ERROR [__main__.py:<module>():254] Failed to start model server: integer division or modulo by zero", "", "", "sglang"},
		{"ray serve", "(ServeReplica:default:LLMDeploymentqwen-0_5b pid=14262) ERROR 2025-05-23 00:42:04,876 default_LLMDeploymentqwen-0_5b c5e4a3 -- Exception in replica", "default_LLMDeploymentqwen-0_5b c5e4a3 -- Exception in replica", "ServeReplica:default:LLMDeploymentqwen-0_5b", "error", "sglang"},
		{"instructlab", "INFO 2025-03-19 08:17:28,422 instructlab.model.backends.vllm:85: vLLM server terminated by keyboard", "instructlab.model.backends.vllm:85: vLLM server terminated by keyboard", "", "info", "sglang"},
		{"trtllm 1.x rank", "[11/30/2025-06:18:31] [TRT-LLM] [RANK 0] [I] Setting up for warmup...", "Setting up for warmup...", "RANK 0", "info", "trtllm"},
		{"trtllm autodeploy", "[12/20/2025-03:40:47] [TRT-LLM AUTO-DEPLOY] [RANK 0] [I] Using fake cache manager with head_dim=0 and num pages: 61848", "Using fake cache manager with head_dim=0 and num pages: 61848", "RANK 0", "info", "trtllm"},
		{"trtllm cpp", "[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: 17210", "Number of blocks in KV cache primary pool: 17210", "", "info", ""},
		{"tgi shard", "2026-01-08T10:00:00.123456Z  INFO shard-manager: text_generation_launcher: Shard ready in 14.2s rank=0", "Shard ready in 14.2s", "rank 0", "info", "iso"},
		{"tgi router", "2026-01-08T10:00:00.123456Z  INFO text_generation_router::server: router/src/server.rs:1812: Connected", "Connected", "", "info", "iso"},
		{"tgi warn", "2026-01-08T10:00:00.123456Z  WARN text_generation_launcher: custom kernels", "custom kernels", "", "warning", "iso"},
		{"torch glog warning", "[rank0]:[W1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] Warning: x", "Warning: x", "rank0", "warning", ""},
		{"python warning", "/usr/lib/x.py:12: UserWarning: CUDA initialization: something", "/usr/lib/x.py:12: UserWarning: CUDA initialization: something", "", "warning", ""},
		{"llama prefix", "0.00.347.618 W common_init_from_params: warming up", "common_init_from_params: warming up", "", "warning", "llamacpp"},
		{"plain", "Traceback (most recent call last):", "Traceback (most recent call last):", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(tt.line)
			if p.Msg != tt.msg || p.Source != tt.source || p.Level != tt.level || p.StampKind != tt.sk {
				t.Errorf("Parse(%q) = msg %q source %q level %q stamp %q; want %q %q %q %q",
					tt.line, p.Msg, p.Source, p.Level, p.StampKind, tt.msg, tt.source, tt.level, tt.sk)
			}
			if f := ParseFast(tt.line); f != p {
				t.Errorf("ParseFast(%q) = %+v, the reference Parse %+v", tt.line, f, p)
			}
		})
	}
}

func TestClassifyFailures(t *testing.T) {
	tests := []struct {
		name, server, line string
		cause              v.Cause
		fatal, failure     bool
	}{
		{"sglang kv pool", "sglang", "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", v.GPUOOM, false, true},
		{"torch oom", "vllm", "(EngineCore pid=1) ERROR 11-29 10:00:00 [core.py:866] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 112.00 MiB.", v.GPUOOM, false, true},
		{"llama cudamalloc", "llamacpp", "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9000.00 MiB on device 0: cudaMalloc failed: out of memory", v.GPUOOM, false, true},
		{"vllm no cache blocks", "vllm", "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.", v.GPUOOM, false, true},
		{"tgi prefill", "tgi", "Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`", v.GPUOOM, false, true},
		{"sglang scheduler -9", "sglang", "[2026-11-29 10:00:00] RuntimeError: Rank 0 scheduler died during initialization (exit code: -9). If exit code is -9 (SIGKILL), a common cause is the OS OOM killer.", v.HostOOM, true, true},
		{"old sglang exit code", "sglang", "[2026-11-29 10:00:00] Exit code: -9", v.HostOOM, false, true},
		{"vllm failed proc -9", "vllm", "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': -9}", v.HostOOM, true, true},
		{"shell killed", "", "Killed", v.HostOOM, false, true},
		{"nccl error", "sglang", "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)", v.NCCL, false, true},
		{"nccl watchdog", "vllm", "[rank0]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1)", v.NCCL, false, true},
		{"tcpstore port", "vllm", "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use", v.NCCL, false, true},
		{"no kernel image", "sglang", "RuntimeError: RMSNorm failed with error code no kernel image is available for execution on the device", v.CUDA, false, true},
		{"illegal access", "vllm", "RuntimeError: CUDA error: an illegal memory access was encountered", v.CUDA, false, true},
		{"undefined symbol", "vllm", "ImportError: /opt/vllm/_C.abi3.so: undefined symbol: _ZN5torch3jit", v.Dependency, false, true},
		{"module not found", "sglang", "ModuleNotFoundError: No module named 'sgl_kernel'", v.Dependency, false, true},
		{"argparse", "sglang", "launch_server.py: error: unrecognized arguments: --enable-reasoning", v.Config, true, true},
		{"vllm max len", "vllm", "ValueError: User-specified max_model_len (262144) is greater than the derived max_model_len (max_position_embeddings=32768 in model's config.json).", v.Config, false, true},
		{"unknown quant", "vllm", "ValueError: Unknown quantization method: fp5. Must be one of ['awq', 'fp8'].", v.Config, false, true},
		{"gated", "tgi", "You are trying to access a gated repo.", v.ModelLoad, false, true},
		{"safetensors header", "vllm", "safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge", v.ModelLoad, false, true},
		{"llama load exit", "llamacpp", "main: exiting due to model loading error", v.ModelLoad, true, true},
		{"uvicorn bind", "sglang", "[2026-11-29 10:00:00] ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 10000): address already in use", v.PortInUse, true, true},
		{"llama.cpp download failed", "llamacpp", "E common_download_file_single_online: download failed after 3 attempts", v.ModelLoad, false, true},
		{"hub cdn reset", "vllm", "Error while downloading from https://cas-bridge.xethub.hf.co/xet-bridge-us/abc: ('Connection broken: ConnectionResetError(104, 'Connection reset by peer')')", v.ModelLoad, false, true},
		{"trtllm executor oom", "trtllm", "[07/08/2025-19:47:15] [TRT-LLM] [RANK 1] [E] Failed to initialize executor on rank 1: Executor creation failed due to insufficient GPU memory.", v.GPUOOM, true, true},
		// The same raised bare through the LLM API (mlcommons/inference#2501).
		{"trtllm executor oom, raised", "trtllm", "RuntimeError: Executor creation failed due to insufficient GPU memory.", v.GPUOOM, true, true},
		{"trtllm bind", "trtllm", "RuntimeError: Failed to bind socket to localhost:8000: [Errno 98] Address already in use", v.PortInUse, true, true},
		{"ninja", "sglang", "RuntimeError: Ninja build failed. Ninja output:", v.KernelBuild, false, true},
		{"no c compiler", "vllm", "RuntimeError: Failed to find C compiler. Please specify via CC environment variable.", v.KernelBuild, false, true},
		{"segfault", "sglang", "Fatal Python error: Segmentation fault", v.Crash, false, true},
		{"sigquit echo", "sglang", "[2026-11-29 10:00:00] Received sigquit from a child process. It usually means the child failed.", "", true, true},
		{"vllm echo", "vllm", "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}", "", true, true},
		{"tgi shard failed", "tgi", "2026-01-08T10:00:00.123456Z ERROR text_generation_launcher: Shard 0 failed to start", "", true, true},
		{"vllm old kv too small", "vllm", "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (20000). Try increasing `gpu_memory_utilization`", v.GPUOOM, false, true},
		{"llama unknown argument", "llamacpp", "error: invalid argument: --flash-attn-x", v.Config, true, true},
		{"bf16 on old gpu", "vllm", "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla V100 GPU has compute capability 7.0.", v.Config, false, true},
		{"flash attention needs ampere", "tgi", "RuntimeError: FlashAttention only supports Ampere GPUs or newer.", v.Config, false, true},
		{"hub unreachable", "sglang", "requests.exceptions.ConnectionError: (MaxRetryError(\"HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: /api/models/Qwen/Qwen3-8B\"))", v.ModelLoad, false, true},
		{"torch without cuda", "vllm", "AssertionError: Torch not compiled with CUDA enabled", v.Dependency, false, true},
		// Benign look-alikes never fail a startup.
		{"warning mentions error", "vllm", "(APIServer pid=1) WARNING 11-29 10:00:00 [x.py:1] Error in chat template, falling back", "", false, false},
		{"cuda env info", "sglang", "[2026-11-29 10:00:00] CUDA_HOME is set; CUDA error checking enabled", "", false, false},
		{"can be ignored", "vllm", "The CUDA error above can be ignored.", "", false, false},
		// bitsandbytes' warning, continued on its own line (TGI#814).
		{"advice in a warning", "tgi", "If you get `CUDA error: invalid device function` errors, the above might be the cause and the solution is to make sure a GPU with the right compute capability is visible.", "", false, false},
		{"deprecation", "vllm", "`torch_dtype` is deprecated! Use `dtype` instead!", "", false, false},
		{"mlir loc error", "sglang", "loc(\"/tmp/x.py\":12:3): error: operation scheduled before its operands", "", false, false},
		// vLLM on Ascend (vllm-ascend#2146).
		{"vllm's ops on another platform", "vllm", "(pid=13210) WARNING 07-31 19:35:15 [_custom_ops.py:20] Failed to import from vllm._C with ModuleNotFoundError(\"No module named 'vllm._C'\")", "", false, false},
		{"ignore import error", "sglang", "Ignore import error when loading sglang.srt.models.qwen2_audio: ModuleNotFoundError: No module named 'torchaudio'", "", false, false},
		{"ld.so skips a preload", "vllm", "ERROR: ld.so: object '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2' from LD_PRELOAD cannot be preloaded (cannot open shared object file): ignored.", "", false, false},
		{"nccl warn", "vllm", "node1:123:456 [0] NCCL WARN Call to bind failed: Address already in use", "", false, false},
		{"nccl warn, no plugin", "vllm", "node1:123:456 [0] NCCL WARN NET/Plugin: Could not find: libnccl-net.so.", "", false, false},
		// CUDACHECK's failure ends NCCL's init (NVIDIA/nccl#2101).
		{"nccl warn, a cuda call failed", "vllm", "node1:508:508 [0] init.cc:426 NCCL WARN Cuda failure 'operation not supported'", v.NCCL, false, true},
		{"traceback source line", "sglang", "    raise RuntimeError(f\"NCCL error: {error_str}\")", "", false, false},
		// vLLM's SIGTERM handler (a stop from outside, 2026-04).
		{"vllm sigterm", "vllm", "(APIServer pid=1) KeyboardInterrupt: terminated", "", false, false},
		{"ctrl-c", "sglang", "KeyboardInterrupt", "", false, false},
		// A DP controller killed by its failed scheduler's SIGQUIT.
		{"sglang sigquit teardown", "sglang", "RuntimeError: Rank 0 scheduler died during initialization (exit code: -3). If exit code is -9 (SIGKILL), a common cause is the OS Out Of Memory (OOM) killer. Run `dmesg -T | grep -i oom` to check.", "", true, true},
		{"server args trust remote code", "sglang", "server_args=ServerArgs(model_path='x', trust_remote_code=True, quantization=None)", "", false, false},
		{"python warning with cuda", "sglang", "/x/torch/cuda/__init__.py:235: UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Lookup(tt.server).Classify(tt.line)
			if (c.Failure != nil) != tt.failure {
				t.Fatalf("failure = %v, want %v (line %q)", c.Failure != nil, tt.failure, tt.line)
			}
			if c.Failure == nil {
				return
			}
			if c.Failure.Cause != tt.cause || c.Failure.Fatal != tt.fatal {
				t.Errorf("rule %s: cause %q fatal %v, want %q %v", c.Failure.ID, c.Failure.Cause, c.Failure.Fatal, tt.cause, tt.fatal)
			}
		})
	}
}

func TestClassifyPhases(t *testing.T) {
	tests := []struct {
		name, server, line string
		phase              v.Phase
	}{
		{"sglang args", "sglang", "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')", v.Init},
		// A traceback's frames name functions, not steps reached
		// (TensorRT-LLM#15022: the capture failed inside this one).
		{"trtllm frame", "trtllm", `  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/model_engine.py", line 1015, in _run_cuda_graph_warmup`, ""},
		{"vllm worker's frame", "vllm", `(EngineCore pid=311) ERROR 12-03 18:35:03 [core.py:1071]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 512, in compile_or_warm_up_model`, ""},
		// vLLM 0.20 (a user's log, 2026-05): the multimodal warmups come
		// between the tasks and the server.
		{"vllm tasks", "vllm", "(APIServer pid=1) INFO 05-03 17:54:53 [api_server.py:598] Supported tasks: ['generate']", v.Warmup},
		{"vllm server", "vllm", "(APIServer pid=1) INFO 05-03 17:55:13 [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000", v.Serving},
		{"trtllm configuration is no step", "trtllm", "[12/20/2025-04:20:19] [TRT-LLM] [I] PyTorchConfig(extra_resource_managers={}, use_cuda_graph=True, cuda_graph_batch_sizes=[1, 2, 4], kv_cache_dtype='auto', torch_compile_enabled=False, enable_autotuner=True, load_format=<LoadFormat.AUTO: 0>)", ""},
		{"trtllm capture", "trtllm", "[12/20/2025-04:21:37] [TRT-LLM] [I] Run generation only CUDA graph warmup for batch size=64, draft_len=0", v.CUDAGraph},
		{"sglang dist", "sglang", "[2026-11-29 10:00:00 TP0] Init torch distributed begin.", v.Distributed},
		{"sglang weights", "sglang", "[2026-11-29 10:00:00 TP0] Load weight begin. avail mem=78.58 GB", v.Weights},
		{"sglang after weights", "sglang", "[2026-11-29 10:00:00 TP0] Load weight end. type=X, avail mem=1 GB", v.KVCache},
		{"sglang graphs new", "sglang", "[2026-11-29 10:00:00 TP0] Capture target decode CUDA graph begin. backend=full, bs=[1, 2]", v.CUDAGraph},
		{"sglang graphs old", "sglang", "[2026-11-29 10:00:00 TP0] Capture cuda graph begin. This can take up to several minutes.", v.CUDAGraph},
		{"sglang warmup", "sglang", `[2026-11-29 10:00:00] INFO:     127.0.0.1:52120 - "POST /generate HTTP/1.1" 200 OK`, v.Warmup},
		{"vllm weights", "vllm", "(EngineCore_DP0 pid=1) INFO 11-29 10:00:00 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen3-8B...", v.Weights},
		{"vllm compile", "vllm", "(EngineCore_DP0 pid=1) INFO 11-29 10:00:00 [backends.py:559] Dynamo bytecode transform time: 5.11 s", v.Compile},
		{"vllm kv", "vllm", "(EngineCore_DP0 pid=1) INFO 11-29 10:00:00 [kv_cache_utils.py:1087] GPU KV cache size: 249,168 tokens", v.KVCache},
		{"vllm graph bar", "vllm", "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  50%|█████     | 33/67 [00:01<00:01, 33.44it/s]", v.CUDAGraph},
		{"vllm serving", "vllm", "(APIServer pid=1) INFO 11-29 10:00:00 [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8000", v.Serving},
		{"llama kv", "llamacpp", "llama_kv_cache:      CUDA0 KV buffer size =  3072.00 MiB", v.KVCache},
		{"llama mmproj", "llamacpp", "clip_model_loader: model name:   Gemma-3-27B-It", v.Weights},
		{"tgi shard", "tgi", "2026-01-08T10:00:00.123456Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0", v.Weights},
		{"tgi warmup", "tgi", "2026-01-08T10:00:00.123456Z  INFO text_generation_router: router/src/main.rs:247: Warming up model", v.Warmup},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Lookup(tt.server).Classify(tt.line).Phase; got != tt.phase {
				t.Errorf("phase = %q, want %q", got, tt.phase)
			}
		})
	}
}

func TestParseProgress(t *testing.T) {
	tests := []struct {
		name, msg        string
		ok               bool
		desc             string
		pct, done, total int
		rate             float64
	}{
		{"sglang bar format", "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:03<00:03,  1.52it/s]", true, "Loading safetensors checkpoint shards", 50, 2, 4, 1.52},
		{"tqdm default", "Capturing batches (bs=1 avail_mem=23.56 GB): 100%|██████████| 52/52 [00:05<00:00, 10.36it/s]", true, "Capturing batches (bs=1 avail_mem=23.56 GB)", 100, 52, 52, 10.36},
		{"seconds per item", "Loading pt checkpoint shards:  25% Completed | 1/4 [00:02<00:06,  2.00s/it]", true, "Loading pt checkpoint shards", 25, 1, 4, 0.5},
		{"start of bar", "Capturing batches (bs=8 avail_mem=3.90 GB):   0%|          | 0/4 [00:00<?, ?it/s]", true, "Capturing batches (bs=8 avail_mem=3.90 GB)", 0, 0, 4, 0},
		{"not a bar", "token usage: 0.05, 3/4 done", false, "", 0, 0, 0, 0},
		{"done above total", "x: 50%| | 9/4", false, "", 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := ParseProgress(tt.msg)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if p.Desc != tt.desc || p.Percent != tt.pct || p.Done != tt.done || p.Total != tt.total || p.Rate != tt.rate {
				t.Errorf("got %+v, want desc %q %d%% %d/%d rate %v", p, tt.desc, tt.pct, tt.done, tt.total, tt.rate)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	cmds := []struct {
		name string
		argv []string
		want string
	}{
		{"sglang module", []string{"python3", "-m", "sglang.launch_server", "--model-path", "x"}, "sglang"},
		{"sglang serve", []string{"sglang", "serve", "x"}, "sglang"},
		{"vllm serve", []string{"/venv/bin/vllm", "serve", "Qwen/Qwen3-8B"}, "vllm"},
		{"vllm module", []string{"python", "-m", "vllm.entrypoints.openai.api_server"}, "vllm"},
		{"trtllm", []string{"trtllm-serve", "model"}, "trtllm"},
		{"llama", []string{"/app/llama-server", "-m", "x.gguf"}, "llamacpp"},
		{"tgi", []string{"text-generation-launcher", "--model-id", "x"}, "tgi"},
		{"wrapped: last word wins", []string{"vigil", "play", "vllm-x.json", "--", "python3", "-m", "sglang.launch_server"}, "sglang"},
		{"unknown", []string{"python3", "server.py"}, ""},
	}
	for _, tt := range cmds {
		t.Run(tt.name, func(t *testing.T) {
			if got := DetectCommand(tt.argv); got != tt.want {
				t.Errorf("DetectCommand(%q) = %q, want %q", tt.argv, got, tt.want)
			}
		})
	}
	logs := map[string]string{
		"[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')":                         "sglang",
		"[2026-09-11 23:34:03] server_args={'model_path': '/models/x', 'tp_size': 3}":          "sglang",
		"(APIServer pid=1) INFO 11-29 10:00:00 [api_server.py:1] vLLM API server version 0.11": "vllm",
		"[11/29/2026-10:00:00] [TRT-LLM] [I] Starting":                                         "trtllm",
		"llama_model_loader: loaded meta data with 33 key-value pairs":                         "llamacpp",
		"2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Args {":                   "tgi",
		"launch_server.py: error: unrecognized arguments: --enable-reasoning":                  "sglang",
		"hello world": "",
		"[2026-10-02 11:53:58 TP0] Load weight begin. avail mem=78.21 GB":                                                          "sglang",
		"0.00.510.178 E srv    load_model: [spec] failed to measure MTP context memory: failed to create llama_context from model": "llamacpp",
		"kimi-server  | 0.03.660.922 I system_info: n_threads = 96 (n_threads_batch = 96) / 192":                                   "llamacpp",
		"0.00.000.412 I log_info: verbosity = 3 (adjust with the -lv N CLI arg)":                                                   "llamacpp",
		// Pasted tails, from users' reports (2025-2026).
		"[2025-04-21 04:13:43] Received sigquit from a child process. It usually means the child failed.":                                                                          "sglang",
		"[2025-04-21 04:13:43 TP3] Scheduler hit an exception: Traceback (most recent call last):":                                                                                 "sglang",
		`  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py", line 2215, in run_scheduler_process`:                                                   "sglang",
		"[2026-01-10 13:23:27] Initialization failed. warmup error: Traceback (most recent call last):":                                                                            "sglang",
		"(Worker pid=509) ERROR 04-13 19:52:24 [multiproc_executor.py:800] WorkerProc failed to start.":                                                                            "vllm",
		"(VllmWorker rank=3 pid=1090) ERROR 06-05 06:18:13 [multiproc_executor.py:470] RuntimeError: CUDA error: out of memory":                                                    "vllm",
		"(APIServer pid=34165) INFO 05-06 21:00:52 [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000":                                                                "vllm",
		"INFO 02-03 19:00:05 [api_server.py:946] Starting vLLM API server 0 on http://0.0.0.0:8000":                                                                                "vllm",
		"main: couldn't bind HTTP server socket, hostname: 127.0.0.1, port: 8080":                                                                                                  "llamacpp",
		"0.00.148.150 E llama_model_load: error loading model: unknown model architecture: ''":                                                                                     "llamacpp",
		"load_all_data: using async uploads for device Vulkan0, buffer type Vulkan0, backing buffer size 13.48 GiB":                                                                "llamacpp",
		"deep-seek-1  | main: server is listening on http://0.0.0.0:8008 - starting the main loop":                                                                                 "llamacpp",
		"[2025-07-02 07:41:59 DP0 TP0] max_total_tokens=131072 is larger than the profiled value -561981. Use the profiled value instead.":                                         "sglang",
		"[sglang]     | [2026-06-24 11:50:37] Load weight end. elapsed=4.58 s, type=Qwen3_5ForConditionalGeneration, quant=fp8, fmt=e4m3, avail mem=62.26 GB, mem usage=28.47 GB.": "sglang",
		"vllm: error: unrecognized arguments: --omni":                                                                                                                              "vllm",
		"RuntimeError: Executor worker returned error":                                                                                                                             "trtllm",
		`  File "/home/xx/github/vllm/vllm/entrypoints/cli/main.py", line 48, in main`:                                                                                             "vllm",
		// SGLang's uvicorn lines, a log that begins there (sglang#25767);
		// its memory pool's error alone (a one-line paste, 2025).
		"[2026-05-19 09:38:33] INFO:     Started server process [6703]":                                   "sglang",
		`sglang-1  | [2026-05-19 09:38:34] INFO:     127.0.0.1:43162 - "GET /model_info HTTP/1.1" 200 OK`: "sglang",
		"(APIServer pid=1) INFO:     Started server process [1]":                                          "vllm",
		"note:  [2026-05-19 09:38:33] WARNING:  Invalid HTTP request received.":                           "sglang",
		// Tails of serving (2024-2026): vLLM's V0 workers and engine
		// stats; llama-server's request handling, under journald.
		"(VllmWorkerProcess pid=3106) WARNING 10-12 22:31:22 shm_broadcast.py:396] No available block found in 60 second. ":                                                                                                       "vllm",
		"INFO 06-11 11:46:37 [loggers.py:118] Engine 000: Avg prompt throughput: 1.9 tokens/s, Avg generation throughput: 10.3 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%": "vllm",
		"May 21 07:22:52 helium-cuda llm-server-start[59332]: srv  log_server_r: done request: POST /v1/chat/completions 192.168.122.1 200":                                                                                       "llamacpp",
		"May 21 07:23:00 helium-cuda llm-server-start[59332]: slot launch_slot_: id  0 | task 2069 | processing task, is_child = 0":                                                                                               "llamacpp",
		"May 21 07:23:00 helium-cuda llm-server-start[59332]: slot update_slots: id  0 | task 2069 | new prompt, n_ctx_slot = 262144, n_keep = 0, task.n_tokens = 20":                                                             "llamacpp",
		// Docker Model Runner's llama-server, a projector that failed
		// (2026); not a -hf download, which comes before the banner
		// (llama.vscode#183).
		"srv    load_model: failed to load multimodal model, '/models/bundles/x/model/model.mmproj'": "llamacpp",
		"clip_model_loader: has vision encoder":                                                      "llamacpp",
		"common_download_file_single_online: HEAD failed, status: 404":                               "",
		"slot id  0 | not a tag":       "",
		"srv  too_long_a_name_here: x": "",
		// Any rank's tag, in a log cut after its start (2026).
		"[2026-02-25 16:40:53 TP9] Init torch distributed begin.":                                                                                "sglang",
		"node1 | [2026-03-03 12:25:47 DP1 TP3 EP3] Scheduler hit a snag":                                                                         "sglang",
		"[2026-02-25 16:40:53] a line without a rank":                                                                                            "",
		"[2026-05-19 09:38:33] INFO:  not uvicorn's padding":                                                                                     "",
		"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)":                                                                "",
		"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.2": "sglang",
		// vLLM 0.8-0.9 without a process tag, a log cut after its banner;
		// not vLLM's model executor, which older SGLang imported and whose
		// lines it printed with vLLM's header (sglang 0.3, 2024).
		"INFO 05-06 10:12:16 [gpu_model_runner.py:1347] Model loading took 14.99 GiB and 13.709436 seconds":             "vllm",
		"INFO 05-06 10:12:16.123 [core.py:159] init engine (profile, create kv cache, warmup model) took 36.02 seconds": "vllm",
		"INFO 08-01 02:30:14 worker.py:294] Memory profiling takes 4.39 seconds":                                        "vllm",
		"INFO 10-28 08:29:43 weight_utils.py:243] Using model weights format ['*.safetensors']":                         "",
		"INFO 05-06 10:12:16 [xgpu_worker.py:1] x":                                                                      "",
		"INFO 05-06 10:12:16 [gpu_worker.py:x] x":                                                                       "",
	}
	for line, want := range logs {
		if got := DetectLog(line); got != want {
			t.Errorf("DetectLog(%q) = %q, want %q", line, got, want)
		}
	}
}

// detectByContains is what DetectLog must equal: each server's literals
// in turn, one search each.
func detectByContains(line string) string {
	for _, name := range v.Servers {
		for _, d := range Profiles[name].Detect {
			if strings.Contains(line, d) {
				return name
			}
		}
	}
	if _, ok := ClockOf(line); ok || llamaTagRe.MatchString(line) {
		return "llamacpp"
	}
	if sglangUvicornRe.MatchString(line) || sglangRanksRe.MatchString(line) {
		return "sglang"
	}
	if vllmEngineHeaderRe.MatchString(line) {
		return "vllm"
	}
	return ""
}

var vllmEngineHeaderRe = regexp.MustCompile(`\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?(?:` + strings.Join(vllmEngineFiles, "|") + `)\.py:\d+\]`)

// llamaTagRe: "srv  " or "slot ", a name padded to twelve columns, ": ".
var llamaTagRe = func() *regexp.Regexp {
	var alt []string
	for k := 0; k < 12; k++ {
		alt = append(alt, fmt.Sprintf(" {%d}[A-Za-z0-9_]{%d}", k, 12-k))
	}
	return regexp.MustCompile(`(?:srv  |slot )(?:` + strings.Join(alt, "|") + `): `)
}()

var sglangRanksRe = regexp.MustCompile(`\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?(?: [A-Z_]+\d+)+\]`)

var sglangUvicornRe = regexp.MustCompile(`\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] (INFO: {5}|WARNING: {2}|ERROR: {4})`)

// TestDetectLogOnePass: the one-pass search names the server the
// literal-by-literal one names, on every line of the real-shaped log and
// on lines holding two servers' literals (the first server in order
// wins).
func TestDetectLogOnePass(t *testing.T) {
	lines := realShapedLog(t, 1<<20)
	for _, a := range v.Servers {
		for _, b := range v.Servers {
			lines = append(lines, "x "+Profiles[b].Detect[0]+" y "+Profiles[a].Detect[len(Profiles[a].Detect)-1])
		}
	}
	named := 0
	for _, l := range lines {
		got, want := DetectLog(l), detectByContains(l)
		if got != want {
			t.Fatalf("DetectLog(%q) = %q, want %q", l, got, want)
		}
		if want != "" {
			named++
		}
	}
	if named == 0 {
		t.Fatal("no line named a server: the test proves nothing")
	}
}

func FuzzDetectLog(f *testing.F) {
	f.Add("[TRT-LLM] [I] text_generation_router")
	f.Add("llama-server (EngineCore pid=1)")
	f.Add("x:  [2026-05-19 09:38:33] INFO:     y")
	f.Add("[2026-05-19 09:38:33] ERROR:  y")
	f.Add("[x [2026-02-25 16:40:53.123 TP9 EP1] y")
	f.Add("x srv    load_model: y")
	f.Add("slot slot update_slots: id")
	f.Add("srv  srv  abcdefghijkl: ")
	f.Add("05-06 10:12:16.12 [core.py:159] x")
	f.Add("05-06 10:12:16 gpu_worker.py:1]")
	f.Fuzz(func(t *testing.T, line string) {
		if got, want := DetectLog(line), detectByContains(line); got != want {
			t.Fatalf("DetectLog(%q) = %q, want %q", line, got, want)
		}
	})
}

// TestExceptionLines: the last line of a traceback that no rule explains
// is an exception line; its class name may start in lower case only after
// a module path.
func TestExceptionLines(t *testing.T) {
	tests := []struct {
		name, line string
		want       bool
	}{
		{"plain", "ValueError: the model is odd", true},
		{"module path", "torch._dynamo.exc.Unsupported: ... Error: x", false},
		{"dotted lower-case class", "nixl._bindings.nixlBackendError: something new", true},
		{"bare lower-case class", "nixlBackendError: something new", false},
		{"exit", "SystemExit: 1", true},
		// sglang decode_cuda_graph_runner.py raises a bare Exception.
		{"bare Exception", "Exception: Capture cuda graph failed: Breakable CUDA graph is not compatible with memory saver mode", true},
		{"bare Exception, no message", "Exception", true},
		{"bare Error is a launcher's, not Python's", "Error: WebServer failed", false},
		{"a word that starts with Exception", "Exceptional: a sentence", false},
		{"prose", "the Error: word in a sentence", false},
		{"indented source", "    raise ValueError(msg)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := generic.Classify(tt.line).Exception; got != tt.want {
				t.Errorf("Exception = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestWaitingLines: the lines a server repeats while it waits are no sign
// of progress; the step it waits for is.
func TestWaitingLines(t *testing.T) {
	tests := []struct {
		name, server, line string
		waiting            bool
	}{
		{"vllm front-end", "vllm", "(APIServer pid=1) INFO 08-23 10:00:00 [utils.py:900] Waiting for 1 local, 0 remote core engine proc(s) to start.", true},
		// executor/ray_utils.py _wait_until_pg_ready (gpustack#5509).
		{"vllm ray placement", "vllm", "(EngineCore_DP0 pid=89) INFO 08-23 10:00:00 [ray_utils.py:267] Waiting for creating a placement group of specs for 630 seconds. specs=[{'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` to see if you have enough resources.", true},
		{"tgi shard", "tgi", "2026-01-08T10:00:00.123456Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... rank=0", true},
		// entrypoints/http_server.py health_generate (0.5.x).
		{"sglang health check", "sglang", "[2026-06-05 18:17:52] Health check failed. Server couldn't get a response from detokenizer for last 20 seconds. tic start time: 18:17:32. last_heartbeat time: 18:11:33", true},
		// distributed/device_communicators/shm_broadcast.py acquire_write.
		{"vllm shm broadcast", "vllm", "(VllmWorker rank=0 pid=3091) WARNING 05-06 10:12:05 [shm_broadcast.py:466] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).", true},
		// v1/engine/core.py startup_handshake (0.9-0.11).
		{"vllm engine handshake", "vllm", "(EngineCore_DP0 pid=164) INFO 01-23 15:48:36 [core.py:644] Waiting for init message from front-end.", true},
		{"vllm weights", "vllm", "(EngineCore pid=1) INFO 08-23 10:00:00 [default_loader.py:291] Loading weights took 2.61 seconds", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Lookup(tt.server).Classify(tt.line).Waiting; got != tt.waiting {
				t.Errorf("Waiting = %v, want %v", got, tt.waiting)
			}
			// A stall after a wait says what the server waited for.
			if hint := WaitHint(Parse(tt.line).Msg); (hint != "") != tt.waiting {
				t.Errorf("WaitHint = %q; want one: %v", hint, tt.waiting)
			}
		})
	}
}

func TestSeconds(t *testing.T) {
	tests := []struct {
		name, msg string
		want      float64
		ok        bool
	}{
		{"vllm graphs", "Graph capturing finished in 19 secs, took 0.55 GiB", 19, true},
		{"vllm v0 profiling", "Memory profiling takes 4.39 seconds", 4.39, true},
		{"glued unit", "torch.compile takes 15.2s in total", 15.2, true},
		{"one second", "took 1 second", 1, true},
		{"first length only", "took 0.55 GiB in 3 s and 4 s", 3, true},
		{"no unit", "GPU KV cache size: 370,352 tokens", 0, false},
		{"unit starts a word", "in 5 sets", 0, false},
		{"digits in a name", "rank_0_0 for vLLM's torch.compile", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Seconds(tt.msg)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Seconds(%q) = %v, %v; want %v, %v", tt.msg, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestClockOfInColour: llama-server's --log-colors on paints its clock;
// the clock is still read.
func TestClockOfInColour(t *testing.T) {
	for _, tt := range []struct {
		line string
		want time.Duration
		ok   bool
	}{
		{"\x1b[34m0.00.006.299\x1b[0m I srv  llama_server: model loaded", 6299 * time.Microsecond, true},
		{"0.00.006.299 I srv  llama_server: model loaded", 6299 * time.Microsecond, true},
		{"\x1b[34mnot a clock\x1b[0m", 0, false},
		// An escape that starts no sequence (a fuzzer's find: this
		// recursed until the stack ran out).
		{"\x1b\x86", 0, false},
		{"\x1b\x1b[34m0.00.006.299\x1b[0m I srv  llama_server: model loaded", 0, false},
	} {
		if d, ok := ClockOf(tt.line); d != tt.want || ok != tt.ok {
			t.Errorf("ClockOf(%q) = %v, %v; want %v, %v", tt.line, d, ok, tt.want, tt.ok)
		}
	}
}
