package classify

import (
	"strings"

	"vigil/internal/lazyre"
	v "vigil/internal/verdict"
)

// benign lines look alarming but never fail a startup. They are checked
// before any failure rule.
var benign = []Matcher{
	fold("can be ignored"),
	fold("can be safely ignored"),
	fold("you can ignore this"),
	lit("Ignore import error when loading"),
	// vllm/_custom_ops.py: its CUDA ops do not import on another
	// platform's build (Ascend, CPU), and that build goes on without them.
	lit("Failed to import from vllm._C with"),
	// vLLM's SIGTERM handler (entrypoints/openai/api_server.py) raises
	// KeyboardInterrupt("terminated"): a stop from outside, as a Ctrl-C
	// is, not a failure.
	re("KeyboardInterrupt", `^KeyboardInterrupt(?:: terminated)?$`),
	lit("operation scheduled before its operands"),
	// Every NCCL WARN but a CUDA call's failure (src/include/checks.h
	// CUDACHECK: "Cuda failure 'ERR'", then ncclUnhandledCudaError; the
	// failures it goes on after are INFO lines) and the IB transport's
	// (nccl.ib_completion).
	re("NCCL WARN", `NCCL WARN (?:[^CN]|C[^u]|N[^E]|NE[^T]|NET[^/]|NET/[^I]|NET/I[^B]|$)`),
	lit("NCCL INFO"),
	lit("[Gloo]"),
	lit("DeprecationWarning"),
	lit("FutureWarning"),
	lit("UserWarning"),
	lit("RuntimeWarning"),
	fold("is deprecated"),
	re("arning|ARNING", `^(?i:warning)\b`),
	lit("Exception ignored in"),
	// Advice inside a library's warning, on its own line (bitsandbytes:
	// "If you get `CUDA error: invalid device function` errors, the above
	// might be the cause.", TGI#814).
	re("If you ", `^\s*If you (get|see|encounter|hit|run into)\b`),
	// The dynamic loader skips an LD_PRELOAD library it cannot open and
	// goes on ("...: ignored.").
	lit("from LD_PRELOAD cannot be preloaded"),
	lit("No available shared memory broadcast block found"),
	lit("Skipping import of cpp extensions"),
	lit("Unexpected error during package walk"),
	lit("Custom allreduce is disabled"),
	lit("does not have native support for FP8"),
	// vllm model_executor/layers/fused_moe/gpt_oss_triton_kernels_moe.py
	// (0.10-0.13) logs this at ERROR and goes on without those kernels.
	lit("Failed to import Triton kernels"),
}

// waiting lines are printed periodically while a server waits for something
// (a shard, a worker, an engine); they show the printer is alive, not that
// the startup moves, so they do not count as progress. A stall whose
// last lines are one of them gets its hint: what the server waits for.
var waiting = []WaitRule{
	// vLLM's distributed/device_communicators/shm_broadcast.py, every
	// 60 s while a reader has not taken the last broadcast.
	{lit("No available shared memory broadcast block found"),
		"a vLLM worker stopped taking its part in a broadcast: one rank hangs or died; py-spy dump the workers, and check dmesg for Xid errors and the OOM killer"},
	// TGI's launcher, every 10 s until a shard's gRPC server is up.
	{lit("Waiting for shard to be ready"),
		"TGI's launcher waits for a shard that is silent: py-spy dump the shard's Python process (text-generation-server) to see where it waits; a shard that died prints its error under its rank"},
	// vLLM's v1/engine/utils.py wait_for_engine_startup, every 10 s
	// ("Waiting for 1 local, 0 remote core engine proc(s) to start.").
	{lit("core engine proc(s) to start"),
		"vLLM's API server waits for its engine core process, which printed nothing meanwhile: py-spy dump the EngineCore process to see where it waits (a lock, a download, a collective); with data parallelism over nodes, check that the other nodes' engines started and reach --data-parallel-address and --data-parallel-rpc-port"},
	// vLLM's engine core (v1/engine/core.py startup_handshake, once,
	// INFO in 0.9-0.11) before its front-end's init message; a headless
	// data-parallel node waits here for the API server's node.
	{lit("Waiting for init message from front-end"),
		"vLLM's engine core waits for its API server's init message: on a headless data-parallel node, start the front-end node and check that it reaches this one at --data-parallel-address and --data-parallel-rpc-port; on one node, py-spy dump the API server process"},
	// vLLM's executor/ray_utils.py _wait_until_pg_ready, every 10 s
	// until a node with the GPUs joins (or 30 minutes pass).
	{lit("Waiting for creating a placement group of specs"),
		"Ray has fewer free GPUs than the parallel sizes ask for: `ray status` shows them; join the missing nodes, stop what holds their GPUs, or lower --tensor-parallel-size or --pipeline-parallel-size"},
	// SGLang's entrypoints/http_server.py health_generate: a health
	// request got no answer from the scheduler for 20 s. Repeated, it is
	// no sign of progress.
	{lit("Health check failed. Server couldn't get a response from detokenizer"),
		"SGLang's scheduler does not answer: a rank hangs in a step or a collective; py-spy dump the scheduler processes (TP0, TP1, ...) and check dmesg for Xid errors"},
}

// WaitRule is a line a server repeats while it waits, and what to do
// when the wait does not end.
type WaitRule struct {
	Matcher
	Hint string
}

// oomPhaseHints are the GPU out-of-memory hints of the steps before the
// KV cache is sized: a memory fraction (vLLM's --gpu-memory-utilization,
// SGLang's --mem-fraction-static) only sizes what is allocated after
// them. In compile the first forward passes run: vLLM's memory profiling
// with a batch of --max-num-batched-tokens (v1/worker/gpu_model_runner.py
// profile_run), torch.compile's and the autotuners' warmups.
var oomPhaseHints = map[v.Phase]string{
	v.Weights: weightsOOMHint,
	v.Compile: "the first forward passes ran out of GPU memory (vLLM's memory profiling with a batch of --max-num-batched-tokens, torch.compile's or an autotuner's warmup): lower --max-num-batched-tokens or --max-num-seqs (vLLM), --chunked-prefill-size (SGLang), --max_num_tokens (TensorRT-LLM); a lower memory fraction does not shrink them; check nvidia-smi for other processes holding GPU memory",
}

// weightsOOMHint is the GPU out-of-memory hint while the weights load.
const weightsOOMHint = "the weights alone do not fit in the GPU memory that is free (a memory fraction such as --gpu-memory-utilization or --mem-fraction-static only sizes what comes after them): spread the model over more GPUs (tensor or pipeline parallelism), use a quantized checkpoint, or offload part of it to the CPU (--cpu-offload-gb in vLLM and SGLang); check nvidia-smi for other processes holding GPU memory"

// commonFailures are library-level errors that look the same whichever
// server prints them (PyTorch, NCCL, CUDA, Hugging Face, Python itself).
// Order matters: the first rule that matches a line wins, so specific rules
// come before general ones (a CUDA out-of-memory error is gpu_oom, not cuda).
var commonFailures = []FailureRule{
	// Ray's memory monitor kills workers before the kernel does; its
	// OutOfMemoryError is the host's memory, not the GPU's (ray
	// python/ray/exceptions.py, src/ray/raylet/node_manager.cc, 2.4x).
	{ID: "ray.memory_monitor", Matcher: re("killed due to memory pressure|running low on memory", `killed due to memory pressure \(OOM\)|killed due to the node running low on memory`), Cause: v.HostOOM, Title: "Ray's memory monitor killed a worker: the host ran out of memory",
		Hint: hostMemoryHint},
	// gpu_oom
	// (torch 2.9+ raises AcceleratorError: "CUDA error: out of memory".)
	{ID: "torch.cuda_oom", Matcher: re("CUDA out of memory|AcceleratorError: CUDA error: out of memory", `CUDA out of memory|AcceleratorError: CUDA error: out of memory`), Cause: v.GPUOOM, Title: "the GPU ran out of memory",
		Hint:       "lower the memory the server claims (SGLang --mem-fraction-static{flag:--mem-fraction-static}, vLLM --gpu-memory-utilization{flag:--gpu-memory-utilization}, TensorRT-LLM kv_cache_config.free_gpu_memory_fraction), shorten the context, add GPUs (tensor parallelism) or use a quantized checkpoint; check nvidia-smi for other processes holding GPU memory",
		PhaseHints: oomPhaseHints},
	{ID: "torch.oom_error", Matcher: lit("OutOfMemoryError"), Cause: v.GPUOOM, Title: "the GPU ran out of memory",
		Hint:       "lower the memory the server claims, shorten the context, add GPUs or use a quantized checkpoint; check nvidia-smi for other processes holding GPU memory",
		PhaseHints: oomPhaseHints},
	{ID: "cuda.oom", Matcher: re("out of memory|Out of memory|OUT OF MEMORY", `(?i)(cuda|cudaMalloc|gpu|\bnpu|\bxpu|device|cublas).*out of memory|out of memory.*(cuda|gpu|\bnpu|device)`), Cause: v.GPUOOM, Title: "the GPU ran out of memory",
		Hint: "free GPU memory (nvidia-smi shows who holds it), lower the memory fraction or context size, or offload fewer layers to the GPU"},
	// Vulkan-Hpp's exception text (vk::OutOfDeviceMemoryError::what()),
	// which llama.cpp prints as "llama_model_load: error loading model:
	// vk::Queue::submit: ErrorOutOfDeviceMemory"; ggml-vulkan.cpp throws
	// OutOfDeviceMemoryError itself when no memory type fits.
	// Mesa's RADV driver says so itself before the submit fails
	// ("radv/amdgpu: Not enough memory for command submission.").
	{ID: "vulkan.oom", Matcher: re("OutOfDeviceMemory|Not enough memory for command submission", `ErrorOutOfDeviceMemory|OutOfDeviceMemoryError|Not enough memory for command submission`), Cause: v.GPUOOM, Title: "the Vulkan device ran out of memory",
		Hint: "offload fewer layers (-ngl), lower the context (-c) or the batch (-ub), or use a smaller quantization; an integrated GPU shares its memory with the host"},
	// Vulkan-Hpp's vk::DeviceLostError (ggml-vulkan.cpp catches it around
	// fences and submits): the driver reset the GPU or lost it.
	{ID: "vulkan.device_lost", Matcher: re("DeviceLost", `ErrorDeviceLost|DeviceLostError`), Cause: v.CUDA, Title: "the Vulkan device was lost",
		Hint: "the GPU driver lost the device (a hang, a reset, or memory pressure on it): check dmesg for amdgpu/i915/nvidia resets, lower -ngl or -c, and update the Vulkan driver"},
	// ggml's buffer types are named after their backend and device:
	// CUDA0, ROCm0, MUSA0, MTL0 (Metal, b10587's ggml-metal.cpp), Vulkan0,
	// SYCL0, CANN0, OpenCL; CPU ones are host memory (ggml.host_buffer).
	{ID: "llamacpp.alloc", Matcher: re("unable to allocate|failed to allocate", `unable to allocate (CUDA|ROCm|MUSA|Metal|MTL|Vulkan|SYCL|CANN|OpenCL)\d* buffer|failed to allocate (CUDA|ROCm|MUSA|Metal|MTL|Vulkan|SYCL|CANN|OpenCL)`), Cause: v.GPUOOM, Title: "the GPU buffer could not be allocated",
		Hint: "offload fewer layers (-ngl), lower the context (-c) or use a smaller quantization"},
	{ID: "kv.too_small", Matcher: re("maximum number of tokens that can be stored in KV cache", `is larger than the maximum number of tokens that can be stored in KV cache`), Cause: v.GPUOOM, Reached: v.KVCache, Title: "the KV cache cannot hold one request of the maximum length",
		Hint: "lower the maximum model length (vLLM --max-model-len) or raise the memory the server may use (--gpu-memory-utilization)"},
	{ID: "tgi.prefill_oom", Matcher: re("Not enough memory to handle", `Not enough memory to handle \d+ prefill tokens`), Cause: v.GPUOOM, Title: "not enough GPU memory for the prefill budget",
		Hint: "decrease --max-batch-prefill-tokens or --max-total-tokens, or shard over more GPUs (--num-shard)"},
	// host_oom
	// systemd's own lines in the unit's journal (journalctl -u): the
	// kernel's OOM killer or systemd-oomd (memory pressure, swap) ended
	// the service (systemd src/core/unit.c, src/oom/oomd-util.c).
	{ID: "systemd.oom_kill", Matcher: re("oom-kill|systemd-oomd killed", `Failed with result 'oom-kill'|systemd-oomd killed \d+ process`), Cause: v.HostOOM, Fatal: true, Title: "systemd ended the unit for its memory (the OOM killer or systemd-oomd)",
		Hint: hostMemoryHint + "; systemd-oomd acts on memory pressure and swap before the kernel does (oomctl; the unit's ManagedOOMMemoryPressure=, MemoryMax=)"},
	{ID: "sys.killed", Matcher: re("Killed", `^Killed$|^(?:.*: )?(?:line \d+: )?\s*\d+ Killed\b|^Killed process`), Cause: v.HostOOM, ByKill: true, Title: "a server process was killed (SIGKILL), most likely by the kernel's OOM killer",
		Hint: "the host ran out of memory: check `dmesg -T | grep -i oom`, load weights with fewer threads or less host staging, add swap or RAM, or run fewer servers per host"},
	{ID: "mp.exitcode9", Matcher: re("-9|signal 9|signal: 9", `(?i)exit ?code:? ?-9\b|exitcode: -9\b|\{[^}]*: -9\}|with signal 9\b|signal: 9 \(SIGKILL\)`), Cause: v.HostOOM, ByKill: true, Title: "a server process was killed (SIGKILL), most likely by the kernel's OOM killer",
		Hint: "the host ran out of memory: check `dmesg -T | grep -i oom`, load weights with fewer threads or less host staging, add swap or RAM, or run fewer servers per host"},
	// ggml (llama.cpp build 10587 3f545bec): ggml/src/ggml.c
	// ggml_aligned_malloc, ggml/src/ggml-alloc.c and src/llama-model.cpp
	// name the buffer type; "CPU" is host memory. A GPU's failure names its
	// backend (llamacpp.alloc) and comes first.
	{ID: "ggml.host_malloc", Matcher: re("insufficient memory", `^ggml_aligned_malloc: insufficient memory`), Cause: v.HostOOM, Title: "the host ran out of memory for a buffer",
		Hint: hostMemoryHint},
	// src/llama-mmap.cpp (b10587): mapping the model file failed with
	// ENOMEM, under an address-space limit (ulimit -v) or a host that
	// will not commit the mapping.
	{ID: "llamacpp.mmap_enomem", Matcher: re("mmap failed: Cannot allocate memory", `mmap failed: Cannot allocate memory`), Cause: v.HostOOM, Reached: v.Weights, Title: "the model file could not be mapped: out of memory",
		Hint: "the process may not map the whole model: raise its address-space limit (`ulimit -v`, a container's or systemd unit's memory limit) or the host's memory, or use a smaller quantization; --no-mmap reads the model into memory instead, which needs as much"},
	{ID: "ggml.host_buffer", Matcher: re("CPU buffer|CPU_Mapped buffer|CPU_REPACK buffer", `(failed|unable) to allocate CPU(_Mapped|_REPACK)? buffer`), Cause: v.HostOOM, Title: "the host ran out of memory for a buffer",
		Hint: hostMemoryHint},
	{ID: "ggml.cpu_alloc", Matcher: lit("ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer"), Cause: v.HostOOM, Title: "the host ran out of memory for a buffer",
		Hint: hostMemoryHint},
	{ID: "llamacpp.kv_alloc", Matcher: lit("failed to allocate buffer for kv cache"), Cause: v.HostOOM, Title: "the KV cache does not fit in memory",
		Hint: hostMemoryHint},
	// An address to bind that is none of this machine's (EADDRNOTAVAIL):
	// asyncio's create_server, which uvicorn reports ("[Errno 99] error
	// while attempting to bind on address ('10.9.9.9', 8000): cannot
	// assign requested address"), socket.create_server's OSError, Rust's
	// "Failed to bind to ...: ... (os error 99)", torch's TCPStore ("has
	// failed to bind to ... (errno: 99 - Cannot assign requested
	// address)"). Only a bind: c10d's client warns "failed to connect ...
	// (errno: 99 ...)" while it retries, which is no failure. Before the
	// port rules: such a line is no port in use.
	{ID: "net.bind_address", Matcher: re("assign requested address|EADDRNOTAVAIL|AddrNotAvailable", `(?i)bind.*(?:cannot assign requested address|errno: 99|EADDRNOTAVAIL|AddrNotAvailable)|cannot assign requested address \(while attempting to bind`), Cause: v.Config, Fatal: true, Title: "an address the server binds is none of this machine's",
		Hint: bindAddressHint},
	// socket.bind's own OSError ends a traceback with no word of a bind
	// (vLLM's create_server_socket): the cause once the process dies of
	// it, not fatal by itself.
	{ID: "net.address_unavailable", Matcher: re("Cannot assign requested address", `(?:^|\s)OSError: \[Errno 99\] Cannot assign requested address\s*$`), Cause: v.Config, Title: "an address the server binds is none of this machine's",
		Hint: bindAddressHint},
	// nccl
	{ID: "torch.tcpstore_bind", Matcher: re("server socket has failed", `server socket has failed to (listen|bind)`), Cause: v.NCCL, Title: "the distributed rendezvous port is already taken",
		Hint: "another job holds the rendezvous port: choose a free one (MASTER_PORT, --dist-init-addr, --nccl-port) or stop the leftover processes"},
	// A model's attention layer asserts that the tensor-parallel size
	// divides its heads (SGLang 0.4's models/*.py, as vLLM's older ones
	// did); the judge reads a bare AssertionError with the statement its
	// traceback printed (judge.assertion).
	{ID: "py.assert_tp_heads", Matcher: re("% tp_size == 0", `^AssertionError: assert self\.total_num_(?:kv_)?heads % (?:self\.)?tp_size == 0`), Cause: v.Config, Title: "the tensor-parallel size does not divide the model's attention heads",
		Hint: "choose a tensor-parallel size (--tp, --tensor-parallel-size) that divides the model's number of attention heads and of KV heads (num_attention_heads, num_key_value_heads in its config.json)"},
	{ID: "nccl.error", Matcher: lit("NCCL error"), Cause: v.NCCL, Title: "NCCL failed",
		Hint: "run with NCCL_DEBUG=INFO; check that all GPUs are visible and healthy (nvidia-smi topo -m), that /dev/shm is large enough in containers (--shm-size, --ipc=host), and set NCCL_SOCKET_IFNAME to the right interface for multi-node"},
	// src/include/checks.h CUDACHECK ("Cuda failure 'ERR'", 2.2x and
	// later also "Cuda failure N 'ERR'"): NCCL's init then returns
	// ncclUnhandledCudaError, which the framework raises as "NCCL error:
	// unhandled cuda error" (vllm#20226; NVIDIA/nccl#2101: 'operation not
	// supported' on a vGPU).
	{ID: "nccl.cuda_failure", Matcher: re("NCCL WARN Cuda failure", `NCCL WARN Cuda failure (?:\d+ )?'`), Cause: v.NCCL, Title: "a CUDA call inside NCCL failed",
		Hint: "the quoted CUDA error names the call's failure: check the driver and GPU visibility, and peer access between the GPUs (try NCCL_P2P_DISABLE=1, or NCCL_CUMEM_ENABLE=0 on virtual GPUs); run with NCCL_DEBUG=INFO for the call"},
	// src/transport/net_ib.cc (and net_ib/p2p.cc, gin.cc in 2.28): a work
	// request between two ranks completed in error ("with error 12" before
	// 2.12, "with status=12" since, "status=IBV_WC_RETRY_EXC_ERR(12)" in
	// 2.28), and the call returns ncclRemoteError. The collective never
	// completes: the ranks hang until torch's watchdog (sglang 2-node
	// logs).
	{ID: "nccl.ib_completion", Matcher: re("Got completion from peer", `NET/IB(?:/GIN)? ?: Got completion from peer \S+ with (?:error |status=)`), Cause: v.NCCL, Title: "an InfiniBand/RoCE transfer between the ranks failed",
		Hint: "the status names the fabric's error (12: the peer did not answer in time, 4: a local protection error, 5: flushed after an earlier error): check the links and the peer node (ibstat, ibv_devinfo), NCCL_IB_HCA and, on RoCE, NCCL_IB_GID_INDEX, and GPUDirect RDMA (nvidia-peermem); NCCL_IB_DISABLE=1 tells a fabric fault from the rest"},
	{ID: "nccl.result", Matcher: re("nccl", `nccl(UnhandledCudaError|SystemError|InternalError|RemoteError|InvalidUsage|InvalidArgument)`), Cause: v.NCCL, Title: "NCCL failed",
		Hint: "run with NCCL_DEBUG=INFO; check /dev/shm size in containers, GPU visibility and NCCL_SOCKET_IFNAME"},
	{ID: "torch.dist_backend", Matcher: re("DistBackendError|DistNetworkError|DistStoreError", `DistBackendError|DistNetworkError|DistStoreError`), Cause: v.NCCL, Title: "torch.distributed initialisation failed",
		Hint: "check that every rank and node started and can reach --dist-init-addr / MASTER_ADDR:MASTER_PORT; set NCCL_SOCKET_IFNAME; raise --dist-timeout if nodes start slowly"},
	// NVSHMEM (DeepEP's transport between GPUs) failing to connect:
	// src/host/init/init.cu "nvshmem setup connections failed" after the
	// IB transport's own errors, then every NVSHMEM call refused
	// (src/host/team/team.cu) (sglang#7450: ibv_modify_qp failed across
	// two nodes).
	{ID: "nvshmem.init", Matcher: re("nvshmem setup connections failed|nvshmem initialization failed|NVSHMEM API called before NVSHMEM initialization", `non-zero status: \d+ nvshmem setup connections failed|nvshmem initialization failed|NVSHMEM API called before NVSHMEM initialization has completed`), Cause: v.NCCL, Title: "NVSHMEM (DeepEP's GPU transport) could not connect the ranks",
		Hint: "check the RDMA NICs the ranks use (ibv_devinfo; NVSHMEM_HCA_LIST, NVSHMEM_IB_GID_INDEX on RoCE), that nvidia-peermem is loaded, NVSHMEM_IBGDA_NIC_HANDLER=cpu where the NIC cannot be driven by the GPU, or start without DeepEP (SGLang --moe-a2a-backend none)"},
	{ID: "nccl.watchdog", Matcher: lit("Watchdog caught collective operation timeout"), Cause: v.NCCL, Title: "an NCCL collective timed out",
		Hint: "a rank stopped participating: look for the rank that failed first, check the interconnect (NCCL_DEBUG=INFO) and NCCL_SOCKET_IFNAME"},
	{ID: "nccl.failed_ops", Matcher: lit("Some NCCL operations have failed or timed out"), Cause: v.NCCL, Title: "NCCL operations failed or timed out",
		Hint: "look for the rank that failed first; run with NCCL_DEBUG=INFO"},
	// torch.distributed's Gloo groups (the CPU group SGLang and vLLM make
	// beside NCCL's): third_party/gloo/gloo/transport/tcp/pair.cc and
	// unbound_buffer.cc, and ProcessGroupGloo's "Gloo connectFullMesh
	// failed" when the nodes cannot reach each other (sglang#3226, #5883).
	{ID: "gloo.transport", Matcher: re("Gloo connectFullMesh|gloo/transport/", `Gloo connectFullMesh failed|gloo/transport/\S+\]`), Cause: v.NCCL, Title: "the Gloo process group could not reach the other ranks",
		Hint: "check that every node reaches the others on the interface Gloo picks (GLOO_SOCKET_IFNAME, and NCCL_SOCKET_IFNAME for NCCL), firewalls between the nodes, and that all nodes use the same --dist-init-addr / master address"},
	// nixl (_api.py nixl_agent.__init__ and register_memory), under
	// vLLM's and SGLang's KV connectors: the transport could not be set up.
	{ID: "nixl.backend_error", Matcher: re("NIXL_ERR_", `nixlBackendError: NIXL_ERR_\w+`), Cause: v.NCCL, Title: "NIXL could not set up the KV-transfer transport",
		Hint: "check the RDMA devices the process sees (ibv_devices, UCX_NET_DEVICES), UCX_TLS, and that nixl's bundled UCX matches the system's"},
	// TensorRT-LLM's NIXL transfer agent (executor/cache_transmission/
	// nixl_utils/transferAgent.cpp) and nixl/UCX's own words when the KV
	// cache cannot be registered.
	{ID: "nixl.register_failed", Matcher: re("NIXL_SUCCESS|registerMem: registration failed|detected as host by UCX", `Assertion failed: status == NIXL_SUCCESS|registerMem: registration failed|VRAM memory is detected as host by UCX`), Cause: v.NCCL, Title: "NIXL / UCX could not register the KV cache for transfer",
		Hint: "UCX_TLS must include cuda_copy / cuda_ipc (a UCX_TLS=tcp inherited from the host's MPI breaks it); check UCX's CUDA support (ucx_info -d) and UCX_NET_DEVICES"},
	{ID: "torch.rendezvous", Matcher: re("Rendezvous|Timed out initializing process group", `RendezvousTimeoutError|Timed out initializing process group|RendezvousConnectionError`), Cause: v.NCCL, Title: "distributed rendezvous failed",
		Hint: "check that every node started and can reach the rendezvous address and port"},
	// kernel_build (before cuda and dependency: a failed JIT build is the root)
	{ID: "jit.ninja", Matcher: re("Ninja build failed|ninja: build stopped|ninja", `Ninja build failed|ninja: build stopped|Command '\['ninja'`), Cause: v.KernelBuild, Title: "a kernel failed to compile (ninja)",
		Hint: "check the compiler output above; make sure nvcc and the CUDA headers match the installed torch, or use prebuilt kernels (FlashInfer JIT cache, sgl-kernel wheels) for this GPU"},
	{ID: "jit.no_cc", Matcher: lit("Failed to find C compiler"), Cause: v.KernelBuild, Title: "no C compiler for Triton's runtime build",
		Hint: "install gcc in the image or set CC; or start with --enforce-eager to skip torch.compile"},
	// Triton's CompilationError ("at 1:0:") announces the error that the
	// lines after it spell out: a cause found there is the root.
	// triton/backends/nvidia/compiler.py: ptxas rejected the PTX a kernel
	// compiled to ("PTXASError: PTXAS error: Internal Triton PTX codegen
	// error", then ptxas's own lines: a feature the target sm lacks).
	{ID: "jit.ptxas", Matcher: re("PTXAS|ptxas", `PTXASError|PTXAS error|^ptxas fatal|^ptxas .*\berror\b`), Cause: v.KernelBuild, Title: "ptxas could not assemble a compiled kernel",
		Hint: "the kernel uses a feature this GPU's architecture lacks, or the Triton/CUDA toolkit is too old for it: use a server and Triton release that supports this GPU, or another backend for the kernel (attention, MoE)"},
	{ID: "jit.triton", Matcher: re("triton.compiler.errors|CompilationError", `triton\.compiler\.errors\.\w+|CompilationError`), Cause: v.KernelBuild, Wrapper: true, Title: "a Triton kernel failed to compile",
		Hint: "check the Triton version against torch; clear ~/.triton/cache; try --enforce-eager (vLLM) or --disable-cuda-graph / another attention backend"},
	// triton's code generator (3.x): the kernel asks for e4m3 FP8 (an FP8
	// KV cache or checkpoint) on a GPU older than Ada / Hopper.
	{ID: "triton.fp8e4nv_arch", Matcher: re("fp8e4nv", `type fp8e4nv not supported in this architecture|fp8e4nv data type is not supported on CUDA arch`), Cause: v.Config, Title: "FP8 (e4m3) is not supported on this GPU",
		Hint: "this GPU has no e4m3 FP8 (it needs compute capability 8.9 or later): use --kv-cache-dtype auto or fp8_e5m2, or a checkpoint that is not FP8"},
	// triton/runtime/errors.py OutOfResources (3.x): the compiled kernel
	// needs more shared memory or registers than this GPU has (a tile
	// config made for a bigger GPU).
	{ID: "triton.out_of_resources", Matcher: lit("OutOfResources: out of resource"), Cause: v.KernelBuild, Title: "a Triton kernel needs more GPU resources than this GPU has",
		Hint: "the kernel's tile configuration does not fit this GPU's shared memory: turn off the feature that picks it (e.g. SGLang --enable-deterministic-inference), try another attention or MoE backend, or upgrade the server and Triton"},
	// A CUDA toolkit older than the GPU: nvcc does not know its
	// architecture ("nvcc fatal   : Unsupported gpu architecture
	// 'compute_120a'" in FlashInfer's ninja output, a Blackwell GPU with
	// CUDA 12.6). It says more than the ninja failure that quotes it.
	{ID: "jit.nvcc_arch", Matcher: re("Unsupported gpu architecture", `nvcc fatal\s*: Unsupported gpu architecture '\w+'`), Cause: v.KernelBuild, Supersedes: "jit.ninja", Title: "the CUDA toolkit's nvcc does not know this GPU's architecture",
		Hint: "the CUDA toolkit that JIT-compiles the kernels is older than the GPU: use one that knows its architecture (sm_120 needs CUDA 12.8 or later, via CUDA_HOME or the server's newer image), or a prebuilt kernel cache for this GPU (FlashInfer's flashinfer-jit-cache)"},
	{ID: "jit.nvcc", Matcher: re("nvcc", `nvcc (fatal|error)|nvcc: not found`), Cause: v.KernelBuild, Title: "nvcc failed",
		Hint: "install the CUDA toolkit matching torch (CUDA_HOME), or use prebuilt kernels"},
	// nvcc's own diagnostics, "FILE.cuh(172): error: ..." (SGLang's JIT
	// kernels, torch extensions).
	{ID: "jit.nvcc_diag", Matcher: re("): error: |): catastrophic error: ", `^\S+\.(?:cuh?|h|hpp|cpp|cc)\(\d+\): (?:catastrophic )?error: `), Cause: v.KernelBuild, Title: "nvcc could not compile a kernel",
		Hint: "the kernel's source does not compile with this nvcc: check nvcc and CUDA_HOME against torch's CUDA, clear the server's JIT cache, or use a build or image made for this GPU"},
	// sglang jit_kernel build helper (0.5.x): "Failed to build JIT module
	// {module} in {build_dir}", also quoted by the graph runners ("Capture
	// prefill CUDA graph failed: Failed to build JIT module ...").
	{ID: "jit.module", Matcher: lit("Failed to build JIT module"), Cause: v.KernelBuild, Title: "a JIT kernel module failed to build",
		Hint: "read the compiler errors above it; clear the JIT cache (~/.cache/sglang/jit), check nvcc and CUDA_HOME against torch, or use a build or image made for this GPU (on ROCm, a CUDA-only kernel needs another backend for that layer)"},
	// gcc "fatal error: x.h: No such file or directory"; clang and hipcc
	// "fatal error: 'cuda_fp8.h' file not found".
	{ID: "jit.cc", Matcher: re("fatal error", `(gcc|g\+\+|cc1plus|c\+\+): fatal error|fatal error: [\w./]+\.h: No such file|fatal error: '[\w./]+\.h' file not found`), Cause: v.KernelBuild, Title: "a kernel build failed in the C/C++ compiler",
		Hint: "install the missing headers (python3-dev, the CUDA toolkit) in the image"},
	{ID: "jit.extension", Matcher: re("Error building extension|JIT compilation failed", `Error building extension|JIT compilation failed`), Cause: v.KernelBuild, Title: "building a JIT extension failed",
		Hint: "check the compiler output above; use prebuilt kernels for this GPU and CUDA version"},
	// torch/_dynamo/exc.py augment_exc_message appends this to any error
	// raised while torch.compile traces the model (an assertion inside
	// dynamo, sglang --enable-torch-compile during graph capture): the
	// exception above it names the detail, this line that compile failed.
	{ID: "torch.dynamo_failed", Matcher: re("fall back to eager|TORCHDYNAMO_VERBOSE", `^You can suppress this exception and fall back to eager by setting|^Set TORCH_LOGS="\+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information`), Cause: v.KernelBuild, Reached: v.Compile, Title: "torch.compile failed while tracing the model",
		Hint: "run without torch.compile (SGLang: drop --enable-torch-compile; vLLM: -O0 or --enforce-eager) to confirm, then use torch and server versions that support this model's compilation"},
	{ID: "torch.backend_compiler", Matcher: re("BackendCompilerFailed|InductorError", `BackendCompilerFailed|InductorError`), Cause: v.KernelBuild, Reached: v.Compile, Title: "torch.compile failed to build kernels",
		Hint: "start once with --enforce-eager (vLLM) or without --enable-torch-compile (SGLang) to confirm; clear the torch.compile and Triton caches"},
	// cuda
	// torch.cuda.set_device with an index past the visible GPUs: the
	// ranks asked for more GPUs than the node or container shows.
	{ID: "cuda.invalid_ordinal", Matcher: lit("invalid device ordinal"), Cause: v.Config, Title: "a process was given a GPU index that does not exist",
		Hint: "the ranks per node ask for more GPUs than are visible: check nvidia-smi, CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES, the tensor-parallel size per node (--tp{flag:--tp}, --tensor-parallel-size{flag:--tensor-parallel-size}), --nnodes and --base-gpu-id"},
	// vllm csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu says the same
	// of its CUTLASS kernels: "no cutlass_scaled_mm kernel for CUDA device
	// capability: 120. Required capability: 90 or 100" (vllm#24921).
	{ID: "cuda.no_kernel_image", Matcher: re("no kernel image is available|kernel for CUDA device capability", `no kernel image is available|no \w+ kernel for CUDA device capability`), Cause: v.CUDA, Title: "the kernels were not built for this GPU",
		Hint: "this GPU's architecture (sm_XX) is missing from the installed torch / kernel wheels: install builds for it (e.g. CUDA 12.8+ wheels for Blackwell) or set TORCH_CUDA_ARCH_LIST and rebuild"},
	{ID: "cuda.illegal_access", Matcher: re("illegal|misaligned address", `illegal memory access|illegal instruction was encountered|misaligned address`), Cause: v.CUDA, Title: "a CUDA kernel crashed",
		Hint: "rerun with CUDA_LAUNCH_BLOCKING=1 to find the kernel; try another attention backend or disable CUDA graphs to isolate it"},
	{ID: "cuda.device_assert", Matcher: lit("device-side assert triggered"), Cause: v.CUDA, Title: "a CUDA device-side assert fired",
		Hint: "rerun with CUDA_LAUNCH_BLOCKING=1; often an out-of-range token id or a wrong vocabulary size"},
	{ID: "cuda.driver", Matcher: re("driver", `(?i)driver version is insufficient|NVIDIA driver on your system is too old|Found no NVIDIA driver|driver/library version mismatch`), Cause: v.CUDA, Title: "the NVIDIA driver does not fit the CUDA runtime",
		Hint: "upgrade the driver or install a torch build for an older CUDA; in containers check the host driver and the NVIDIA container toolkit"},
	// torch/cuda/__init__.py: "CUDA driver initialization failed, you
	// might not have a CUDA gpu."; TGI's models/__init__.py gives "CUDA is
	// not available" as why its Flash Attention models did not import.
	// tensorrt_llm commands/serve.py get_llm_args: "No GPU devices found
	// on the node".
	{ID: "cuda.no_gpu", Matcher: re("No CUDA GPUs|CUDA_ERROR_NO_DEVICE|no CUDA-capable device|CUDA driver initialization failed|CUDA is not available|No GPU devices found on the node", `No CUDA GPUs are available|CUDA_ERROR_NO_DEVICE|no CUDA-capable device|CUDA driver initialization failed|^CUDA is not available|No GPU devices found on the node`), Cause: v.CUDA, Because: "torch.cuda_init", Title: "no CUDA GPU is visible",
		Hint: "check CUDA_VISIBLE_DEVICES, the container's --gpus flag and nvidia-smi"},
	// torch/csrc/cuda/Module.cpp and c10/cuda/CUDAFunctions.cpp (torch
	// 2.x): the driver answered cudaGetDeviceCount() with an error; 802 is
	// a fabric manager that is not running on an NVSwitch machine.
	{ID: "cuda.init", Matcher: re("cudaGetDeviceCount", `Unexpected error from cudaGetDeviceCount\(\)|cudaGetDeviceCount\(\).*Error \d+`), Cause: v.CUDA, Title: "CUDA could not be initialised",
		Hint: "the driver refused to start CUDA: Error 802 (system not yet initialized) on HGX/DGX machines means nvidia-fabricmanager is not running or does not match the driver version (systemctl status nvidia-fabricmanager); otherwise check nvidia-smi and dmesg for Xid errors"},
	// DeepEP's EPException (csrc/exception.cuh): "Failed: CUDA error
	// FILE:LINE 'message'", also inside a terminate's what().
	{ID: "cuda.deepep", Matcher: re("Failed: CUDA error", `Failed: CUDA error \S+:\d+ '`), Cause: v.CUDA, Title: "a DeepEP CUDA call failed",
		Hint: "'named symbol not found' means the DeepEP / NVSHMEM build lacks kernels for this GPU or does not match NVSHMEM: rebuild DeepEP for this GPU's architecture against the installed NVSHMEM, or start without DeepEP (SGLang --moe-a2a-backend / --enable-deepep-moe)"},
	// vLLM's csrc/custom_all_reduce.cuh CUDACHECK (copied into SGLang's
	// sgl-kernel) prints "Failed: Cuda error FILE:LINE 'reason'" and exits
	// the worker (vllm#42583: 'invalid argument' with LoRA at TP 4).
	{ID: "cuda.custom_allreduce", Matcher: re("Failed: Cuda error", `^Failed: Cuda error \S*custom_all_reduce\S*:\d+ '`), Cause: v.CUDA, Title: "a CUDA call failed in the custom all-reduce",
		Hint: "start with --disable-custom-all-reduce to use NCCL's all-reduce instead, and check peer access between the GPUs (nvidia-smi topo -m); an 'illegal memory access' reported here may be another kernel's, caught at the all-reduce: rerun with CUDA_LAUNCH_BLOCKING=1 to find it"},
	{ID: "cuda.check_failed", Matcher: re("Failed: Cuda error", `^Failed: Cuda error \S+:\d+ '`), Cause: v.CUDA, Title: "a CUDA call failed",
		Hint: "the quoted reason names the failure; check dmesg for Xid errors and rerun with CUDA_LAUNCH_BLOCKING=1"},
	{ID: "cuda.launch_failure", Matcher: lit("unspecified launch failure"), Cause: v.CUDA, Title: "a CUDA kernel launch failed",
		Hint: "check dmesg for Xid errors and the GPU's health (nvidia-smi -q); rerun with CUDA_LAUNCH_BLOCKING=1"},
	{ID: "cuda.blas", Matcher: re("_STATUS_|cuBLAS error|cuDNN error", `CUBLAS_STATUS_\w+|CUDNN_STATUS_\w+|cuBLAS error|cuDNN error`), Cause: v.CUDA, Title: "a cuBLAS/cuDNN call failed",
		Hint: "check that the torch build supports this GPU and dtype; rerun with CUDA_LAUNCH_BLOCKING=1"},
	// Ascend's runtime (CANN) reports device failures as "EH9999: Inner
	// Error!" / "EZ9999" then the failed call: rtDeviceSynchronizeWithTimeout
	// (an SDMA copy error, runtime result 507013; vllm-ascend on 310P).
	// ... and torch_npu's report of a kernel that failed, an AI core that
	// timed out (vllm-ascend#5493: "NPU function error: call
	// aclnnRmsNorm failed, error code is 507014").
	{ID: "npu.runtime", Matcher: re("9999: Inner Error|rtDeviceSynchronize|NPU function error: call", `E[0-9A-Z]9999: Inner Error|rtDeviceSynchronize\w* execute failed|NPU function error: call \w+ failed, error code is \d+`), Cause: v.CUDA, Title: "the Ascend NPU runtime failed",
		Hint: "check the NPU's health (npu-smi info), the driver and firmware against the CANN version, and whether this model's kernels support this NPU (310P supports fewer operators than 910)"},
	// The Unified Runtime's (and level-zero's) out-of-memory results, under
	// SYCL and torch XPU: "level_zero backend failed with error: 39
	// [UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY]" (llama.cpp#25286).
	{ID: "xpu.oom", Matcher: re("OUT_OF_DEVICE_MEMORY", `(?:UR|ZE)_RESULT_ERROR_OUT_OF_DEVICE_MEMORY`), Cause: v.GPUOOM, Title: "the Intel GPU ran out of memory",
		Hint: "offload fewer layers (-ngl) or lower the context (-c) for llama.cpp; lower the memory the server claims or the context for others"},
	// Intel GPUs under torch's XPU backend: the Unified Runtime's errors
	// ("RuntimeError: UR error", UR_RESULT_ERROR_*; vllm#11173) and a
	// device whose driver cannot tell its free memory (torch/xpu/memory.py
	// mem_get_info; vllm#20743).
	{ID: "xpu.runtime", Matcher: re("UR error|UR_RESULT_ERROR_|support querying the available free memory", `(?:^|\s)RuntimeError: UR error\b|UR_RESULT_ERROR_[A-Z_]+|doesn't support querying the available free memory`), Cause: v.CUDA, Title: "the Intel GPU runtime failed",
		Hint: "check that the Intel GPU driver (level-zero, compute runtime), oneAPI and the torch/IPEX XPU builds match the versions this server release was built with, and that the GPU is supported by them"},
	// ggml-cuda.cu names its errors after the build (GGML_CUDA_NAME in
	// ggml-cuda.h: "CUDA", "ROCm" for HIP, "MUSA"): "ROCm error: invalid
	// device function", then GGML_ABORT("ROCm error").
	{ID: "cuda.error", Matcher: re("CUDA error|CUDA runtime error|CUDA driver error|cudaError|CUDA_ERROR_|ROCm error|MUSA error|hipError|HIP error", `CUDA error:|CUDA error \(|CUDA runtime error|CUDA driver error|cudaError[A-Z]\w+|CUDA_ERROR_[A-Z]\w+|(ROCm|MUSA|HIP) error(: |$)|hipError[A-Z]\w+`), Cause: v.CUDA, Title: "a CUDA error",
		Hint: "rerun with CUDA_LAUNCH_BLOCKING=1 to locate it; check dmesg for Xid errors"},
	// port_in_use
	{ID: "net.bind", Matcher: re("ddress already in use|EADDRINUSE|AddrInUse|ADDRESS ALREADY IN USE", `(?i)address already in use|EADDRINUSE|AddrInUse`), Cause: v.PortInUse, Fatal: true, Title: "the server's port is already taken",
		Hint: "another process listens on the port: find it with `ss -ltnp 'sport = :{port}'` and stop it, or choose another --port"},
	// A port below 1024 for a user without the right to bind it: uvicorn's
	// "[Errno 13] error while attempting to bind on address", TGI's router
	// (router/src/server.rs "Failed to bind to", older hyper "error
	// binding to") with "Permission denied (os error 13)".
	{ID: "net.bind_denied", Matcher: re("error while attempting to bind|binding to|bind to", `\[Errno 13\] error while attempting to bind|(?:error binding to|Failed to bind to) \S+: .*(?:Permission denied|os error 13)`), Cause: v.Config, Fatal: true, Title: "the server may not bind its port (a port below 1024 needs root)",
		Hint: "use a port of 1024 or above (--port 8080) and map it, or grant the process CAP_NET_BIND_SERVICE"},
	// No separate "[Errno 98]" rule: Python spells errno 98 "Address
	// already in use" in every message that carries it (uvicorn's "[Errno
	// 98] error while attempting to bind on address (...): address already
	// in use", OSError's "[Errno 98] Address already in use"), so net.bind
	// always matched first and it never decided a line.
	// model_load
	{ID: "hf.gated", Matcher: re("Cannot access gated repo|GatedRepoError|access a gated repo", `Cannot access gated repo|GatedRepoError|You are trying to access a gated repo`), Cause: v.ModelLoad, Supersedes: "hf.auth", Title: "the model is gated on the Hugging Face Hub",
		Hint: "accept the model's licence on its Hub page and set HF_TOKEN for this server"},
	// huggingface_hub's HFValidationError is what a model path that does
	// not exist locally turns into ("Repo id must be in the form ...").
	// Its cache manager's scan_cache_dir (utils/_cache_manager.py) raises
	// CacheNotFound for an HF_HOME that does not exist (vllm-fork#1474),
	// and utils/_http.py refuses a request under HF_HUB_OFFLINE with
	// OfflineModeIsEnabled ("Cannot reach URL: offline mode is enabled").
	{ID: "hf.not_found", Matcher: re("is not a local folder|NotFoundError|Repository Not Found|is not a valid git identifier|does not appear to have a file named|Cannot find the requested files|HFValidationError|CacheNotFound|Cache directory not found|OfflineModeIsEnabled", `is not a local folder and is not a valid model identifier|RepositoryNotFoundError|Repository Not Found|RevisionNotFoundError|is not a valid git identifier|EntryNotFoundError|does not appear to have a file named|LocalEntryNotFoundError|Cannot find the requested files in the local cache|HFValidationError: Repo id must|CacheNotFound|Cache directory not found: |OfflineModeIsEnabled`), Cause: v.ModelLoad, Supersedes: "hf.auth", Title: "the model could not be found",
		Hint: "check the model path or Hub id, the revision, and HF_HUB_OFFLINE / HF_HOME"},
	// After the rules that name what was refused: huggingface_hub's
	// RepositoryNotFoundError and GatedRepoError carry the HTTP status too.
	{ID: "hf.auth", Matcher: re("Client Error", `(401|403) Client Error`), Cause: v.ModelLoad, Title: "the Hub refused access to the model",
		Hint: "set HF_TOKEN with access to the repository"},
	// huggingface_hub says so when a download breaks, then resumes it; a
	// start that goes on past weights drops it as a root cause. It comes
	// before hf.unreachable, whose pattern also matches the CDN's host and
	// "Connection reset" and would shadow it.
	{ID: "hf.download_broken", Matcher: re("Error while downloading from", `Error while downloading from https?://`), Cause: v.ModelLoad, Title: "downloading the model broke off",
		Hint: "the connection to the Hub or its CDN broke: check the network path (proxy, HF_ENDPOINT, firewall to *.hf.co) and free disk space in the cache, or download the model ahead of time"},
	{ID: "hf.unreachable", Matcher: re("huggingface.co|hf.co", `(huggingface|hf)\.co.*(Max retries exceeded|Temporary failure in name resolution|Connection refused|timed out|Network is unreachable|Connection reset)|(Max retries exceeded|Temporary failure in name resolution|timed out).*(huggingface|hf)\.co|We couldn't connect to 'https://huggingface\.co'`), Cause: v.ModelLoad, Title: "the Hugging Face Hub could not be reached to fetch the model",
		Hint: "download the model ahead of time and point the server at the local path, or set HF_HUB_OFFLINE=1 with a populated cache; check proxy settings"},
	{ID: "weights.missing", Matcher: re("Cannot find any model weights|No model weights found", `Cannot find any model weights|No model weights found`), Cause: v.ModelLoad, Title: "no weight files were found",
		Hint: "the model directory has no *.safetensors / *.bin files in the expected format: check the path and --load-format"},
	{ID: "safetensors.corrupt", Matcher: re("HeaderTooLarge|Error while deserializing header|MetadataIncompleteBuffer|InvalidHeaderDeserialization|SafetensorError|invalid load key", `HeaderTooLarge|Error while deserializing header|MetadataIncompleteBuffer|InvalidHeaderDeserialization|SafetensorError|invalid load key`), Cause: v.ModelLoad, Title: "a weight file is corrupt or incomplete",
		Hint: "a checkpoint file is truncated or a Git-LFS pointer: re-download it (huggingface-cli download --force-download) and check free disk space"},
	{ID: "weights.unmapped", Matcher: re("There is no module or parameter named|size mismatch for|unable to find tensor|missing tensor|Unexpected key", `There is no module or parameter named|size mismatch for|unable to find tensor|missing tensor|Unexpected key\(s\) in state_dict`), Cause: v.ModelLoad, Title: "the weights do not fit the model definition",
		Hint: "the checkpoint does not match the architecture the server built (wrong files, wrong quantization, or a fine-tune with renamed tensors)"},
	// vllm model_loader/default_loader.py DefaultModelLoader.load_weights
	// (0.7-0.12): the checkpoint lacks tensors the model has (vllm#21713).
	{ID: "weights.not_initialized", Matcher: lit("weights were not initialized from checkpoint"), Cause: v.ModelLoad, Title: "the checkpoint lacks weights the model needs",
		Hint: "the checkpoint does not match the architecture this server builds for it (a partial download, another variant of the model, or a quantization layout it does not read): check the files and that this server version supports the checkpoint"},
	// A model's load_weights looking a checkpoint tensor up in its own
	// parameters (`params_dict[name]`, sglang srt/models/*.py, vllm
	// model_executor/models/*.py): a KeyError naming the tensor.
	{ID: "weights.param_keyerror", Matcher: re("KeyError: '", `(?:^|\s)KeyError: '\w+(?:\.\w+)*\.(?:weight|bias|qweight|qzeros|scales|g_idx|\w*_scale(?:_inv)?|scale)'`), Cause: v.ModelLoad, Title: "a checkpoint tensor has no matching parameter in the model",
		Hint: "the checkpoint's tensors do not match what the server built: a quantization format it does not read (e.g. FP8 input_scale), a wrong --quantization, or a model class that does not support this checkpoint; try another checkpoint of the model or a newer server"},
	{ID: "llamacpp.load", Matcher: re("error loading model|failed to load model|failed to load multimodal model|Failed to load CLIP model|gguf_init_from_file|invalid magic", `error loading model|failed to load model|failed to load multimodal model|Failed to load CLIP model|gguf_init_from_file.*failed|invalid magic`), Cause: v.ModelLoad, Reached: v.Weights, Title: "the model file could not be loaded",
		Hint: "the GGUF file is missing, truncated or not supported by this build: re-download it and check the build number"},
	// transformers tokenization_mistral_common.py (through vLLM's
	// tokenizers/mistral.py, 0.12+): the tokenizer chosen finds no file.
	{ID: "tokenizer.no_file", Matcher: lit("No tokenizer file found in directory"), Cause: v.ModelLoad, Title: "no tokenizer file the chosen tokenizer can read",
		Hint: "add the tokenizer files to the model directory, or choose the tokenizer (vLLM --tokenizer-mode hf: auto may pick Mistral's, which needs tekken.json or tokenizer.model)"},
	{ID: "hf.cant_load", Matcher: re("Can't load", `Can't load (the configuration|tokenizer|the model|config|image processor|processor|feature extractor)`), Cause: v.ModelLoad, Title: "the model's files could not be loaded",
		Hint: "check the model path and that the files the message names exist (config.json, the tokenizer's, a multimodal processor's preprocessor_config.json: a text-only or quantized re-upload may lack them)"},
	{ID: "fs.model_missing", Matcher: re("No such file or directory", `No such file or directory.*(config\.json|\.safetensors|\.gguf|tokenizer|\.bin|model)`), Cause: v.ModelLoad, Title: "a model file is missing",
		Hint: "check the model path and that the files were fully downloaded"},
	// config
	// A known flag whose value does not parse: vLLM's arg_utils.py
	// parse_type raises "Value V cannot be converted to T" (a JSON
	// config flag given YAML-like or shell-mangled text).
	{ID: "argparse.bad_value", Matcher: re(": error: argument ", `: error: argument \S+: (Value .* cannot be converted to|invalid \S+ value: )`), Cause: v.Config, Fatal: true, Title: "a command-line flag's value does not parse",
		Hint: "the flag is known but its value is not what it takes: a JSON flag (--speculative-config, --compilation-config, --kv-transfer-config) needs double-quoted keys and strings, the whole value in single quotes for the shell; vLLM also takes its fields one by one (--speculative-config.method eagle3)"},
	{ID: "argparse.error", Matcher: re(": error: ", `^(?:usage: )?[\w./ -]+: error: (unrecognized arguments|argument |the following arguments are required|invalid choice|ambiguous option)`), Cause: v.Config, Fatal: true, Title: "invalid command-line arguments",
		Hint: "the flag is not known to this server version: check `--help` of the installed version and the flag's spelling"},
	{ID: "click.error", Matcher: re("Error: ", `^Error: (No such option|Invalid value for|Missing argument|Got unexpected extra argument)`), Cause: v.Config, Title: "invalid command-line arguments",
		Hint: "check the flags against `--help` of the installed version"},
	{ID: "llamacpp.args", Matcher: re("error", `^error: (invalid|unknown) argument|^error while handling argument|^error: the argument`), Cause: v.Config, Fatal: true, Title: "invalid command-line arguments",
		Hint: "check the flag against `llama-server --help` of this build; flags change between builds"},
	// common/chat.cpp and common/arg.cpp (b10587): --chat-template is
	// checked before the log prefix starts, so any profile must know it;
	// tools/server/server-context.cpp init says it once the model is in.
	{ID: "llamacpp.chat_template", Matcher: re("chat template", `chat template parsing error|failed to initialize chat template|^error: the supplied chat template is not supported`), Cause: v.Config, Fatal: true, Title: "the chat template cannot be used",
		Hint: "fix --chat-template / --chat-template-file, or use a built-in one (--chat-template chatml) or --no-jinja"},
	// transformers modeling_gguf_pytorch_utils.py load_gguf_checkpoint:
	// a GGUF checkpoint of an architecture its reader does not know.
	{ID: "hf.gguf_arch", Matcher: re("GGUF model with architecture", `GGUF model with architecture \S+ is not supported yet`), Cause: v.Config, Title: "transformers cannot read this GGUF architecture",
		Hint: "upgrade transformers to a release whose GGUF reader knows it, or serve the original safetensors checkpoint"},
	// Also a backend only for one GPU generation: sglang server_args.py
	// "TRTLLM MHA backend is only supported on Blackwell GPUs (SM100)".
	// TensorRT-LLM's thop/fp4Gemm.cpp: "FP4 Gemm not supported before
	// Blackwell, nor GeForce Blackwell" (TensorRT-LLM#5018).
	{ID: "gpu.capability", Matcher: re("GPU|not supported before", `(?i)not supported before (Ampere|Ada|Hopper|Blackwell)\b|only supported on GPUs with compute capability|requires? (a )?(GPU|GPUs) with compute capability|only supports (Ampere|Hopper|Ada|Turing|Volta)[\w ]* GPUs|compute capability of at least|only supported on (Ampere|Hopper|Ada|Blackwell)[\w ]* GPUs`), Cause: v.Config, Title: "the configuration needs a newer GPU",
		Hint: "choose what this GPU supports: --dtype half instead of bfloat16 before Ampere, another attention backend, or another quantization"},
	// vllm attention/layer.py (0.5-0.12): "fp8_e5m2 kv-cache is not
	// supported with fp8 checkpoints." (vllm#8409).
	{ID: "kv.dtype_unsupported", Matcher: lit("kv-cache is not supported with"), Cause: v.Config, Title: "this KV cache dtype does not work with this checkpoint",
		Hint: "choose another --kv-cache-dtype{flag:--kv-cache-dtype} (fp8_e4m3, or auto) for an FP8 checkpoint"},
	// vllm attention/backends/flash_attn.py (0.10-0.12): gpt-oss's
	// attention sinks need FlashAttention 3, which only Hopper builds have.
	{ID: "attn.fa3_only", Matcher: re("FlashAttention 3|FlashAttention3", `only supported (in|with|by|on) FlashAttention ?3|requires? FlashAttention ?3`), Cause: v.Config, Title: "the model's attention needs FlashAttention 3, which this GPU or build lacks",
		Hint: "pick an attention backend that supports it on this GPU (vLLM: VLLM_ATTENTION_BACKEND=TRITON_ATTN; SGLang: --attention-backend triton), or run on a Hopper GPU"},
	// vllm model_executor/layers/quantization/utils/fp8_utils.py
	// validate_fp8_block_shape and fp8.py's MoE check, sglang the same
	// (0.4-0.12): a tensor-parallel shard that splits a block.
	{ID: "quant.fp8_block_split", Matcher: re("weight quantization block_", `is not divisible by weight quantization block_[nk]`), Cause: v.Config, Title: "a weight shard does not split into whole FP8 quantization blocks",
		Hint: "lower the tensor-parallel size (--tensor-parallel-size / --tp) so that each shard holds whole 128-wide blocks, or use expert parallelism for the MoE layers"},
	// vllm v1/core/kv_cache_utils.py unify_hybrid_kv_cache_specs (0.10-0.13):
	// a model mixing attention types, with the hybrid manager turned off
	// (by --disable-hybrid-kv-cache-manager or a KV connector such as LMCache).
	{ID: "vllm.hybrid_kv_off", Matcher: lit("failed to convert the KV cache specs to one unified type"), Cause: v.Config, Title: "this hybrid model needs the hybrid KV cache manager, which is disabled",
		Hint: "drop --disable-hybrid-kv-cache-manager, or the KV connector that disables it (LMCache, NIXL in some releases), or use a release whose connector supports hybrid models"},
	{ID: "ctx.too_long", Matcher: re("is greater than the derived", `is greater than the derived (context_length|max_model_len)`), Cause: v.Config, Title: "the requested context length is above the model's limit",
		Hint: "lower --context-length / --max-model-len to the model's limit, or set the documented override environment variable if you know the model supports it"},
	{ID: "quant.unknown", Matcher: re("quantization", `Unknown quantization method|is not supported for quantization method|quantization method .* is not supported for the current GPU|Cannot find any of .* in the model's quantization config`), Cause: v.Config, Title: "the quantization is not supported here",
		Hint: "choose a quantization this server and GPU support (check its docs for the compute capability needed), or a different checkpoint"},
	// transformers models/auto/configuration_auto.py: a model_type newer
	// than the installed transformers.
	{ID: "hf.unknown_model_type", Matcher: lit("does not recognize this architecture"), Cause: v.Config, Title: "the installed transformers does not know this model type",
		Hint: "upgrade transformers (and the server) to a release that supports this model, or use a checkpoint of a supported architecture"},
	// torch/cuda/__init__.py: CUDA was touched before a fork.
	{ID: "torch.fork_cuda", Matcher: lit("Cannot re-initialize CUDA in forked subprocess"), Cause: v.Config, Title: "CUDA was initialised before the worker processes were forked",
		Hint: "use the spawn start method (vLLM: VLLM_WORKER_MULTIPROC_METHOD=spawn) and do not touch CUDA in the parent before the server starts"},
	// transformers' AutoTokenizer (tokenization_auto.py): the model's
	// tokenizer_config.json names a class this transformers lacks.
	{ID: "hf.tokenizer_class", Matcher: re("does not exist or is not currently imported", `Tokenizer class \S+ does not exist or is not currently imported`), Cause: v.Dependency, Title: "transformers has no class for the model's tokenizer",
		Hint: "upgrade transformers to the version the model card asks for (the server's newer image), or pass --trust-remote-code when the model ships its own tokenizer code"},
	// vLLM's model_executor/models/registry.py and SGLang's
	// model_loader/utils.py resolve_transformers_arch (2025-2026): no
	// class of the server's own, nor one in Transformers or the config's
	// auto_map.
	{ID: "arch.not_registered", Matcher: re("is not a registered model in the Transformers library", `Cannot find model module\. '\S+' is not a registered model in the Transformers library`), Cause: v.Config, Title: "neither the server nor Transformers has a class for the model's architecture",
		Hint: "check 'architectures' in the model's config.json; upgrade the server and transformers to releases that support it, or, for a custom model, pass --trust-remote-code with an auto_map in its config"},
	{ID: "arch.unsupported", Matcher: re("Model architectures", `Model architectures .* (are not supported|failed to be inspected)`), Cause: v.Config, Title: "the model architecture is not supported by this version",
		Hint: "upgrade the server, or pass --trust-remote-code / the Transformers backend if it supports this model"},
	// transformers dynamic_module_utils.py ("requires you to execute the
	// configuration file", older "... the tokenizer file"); vllm
	// transformers_utils/config.py "Failed to load the model config. ...
	// consider setting `trust_remote_code=True`".
	{ID: "hf.remote_code", Matcher: re("requires you to execute the|trust_remote_code=True`|trust_remote_code=True'", `requires you to execute the (configuration|modeling|tokenizer) file|Please pass the argument .trust_remote_code=True|set the option .trust_remote_code=True|consider setting .trust_remote_code=True`), Cause: v.Config, Title: "the model needs --trust-remote-code",
		Hint: "add --trust-remote-code if you trust the repository's code"},
	// vllm config/parallel.py and config/model.py (0.6-0.12): heads or
	// layers that do not split evenly over the GPUs.
	// TGI custom_modeling/*.py: "`num_heads` must be divisible by
	// `num_shards` (got `num_heads`: 71 and `num_shards`: 2" (TGI#1354).
	{ID: "parallel.divisible", Matcher: re("must be divisible by", "must be divisible by (tensor|pipeline) parallel size|must be divisible by `num_shards`"), Cause: v.Config, Title: "the model does not split evenly over the GPUs",
		Hint: "choose a tensor parallel size that divides the model's attention heads (and a pipeline size that divides its layers): --tensor-parallel-size{flag:--tensor-parallel-size} / --tp{flag:--tp}"},
	// clap (Rust's argument parser, 4.x: TGI's launcher and router)
	// rejects a flag or its value, also one set by its environment
	// variable (DISABLE_CUSTOM_KERNELS=True, text-generation-inference#1451).
	{ID: "args.clap", Matcher: re("error: ", `^error: (?:invalid value '|unexpected argument '|the following required arguments were not provided|the argument '.*' cannot be used with|a value is required for '|unexpected value ')`), Cause: v.Config, Fatal: true, Title: "the launcher rejected its arguments",
		Hint: "fix the flag the message names; a flag can also come from its environment variable (TGI: text-generation-launcher --help lists them, [env: NAME=]; vLLM's Rust frontend names the arguments it does not take yet: drop them or unset VLLM_USE_RUST_FRONTEND)"},
	{ID: "pydantic.validation", Matcher: re("validation error", `\d+ validation errors? for \w+`), Cause: v.Config, Wrapper: true, Title: "the configuration failed validation",
		Hint: "read the field named in the validation error and fix that flag, or that key in the config file (--config, --extra_llm_api_options)"},
	// PyYAML's errors (yaml/parser.py, scanner.py, composer.py,
	// constructor.py): a config file the server reads (trtllm-serve's
	// --config / --extra_llm_api_options, SGLang's and vLLM's --config)
	// is not valid YAML. The message runs on over the lines under it,
	// with the file's line and column.
	{ID: "yaml.syntax", Matcher: re("yaml.", `yaml\.(parser\.ParserError|scanner\.ScannerError|composer\.ComposerError|constructor\.ConstructorError|reader\.ReaderError)`), Cause: v.Config, Title: "a YAML config file is malformed",
		Hint: "fix the YAML file the lines under the error name, at the line and column they give (the server's --config or --extra_llm_api_options file); an indent or a missing ':' is the usual fault"},
	// Kubernetes gives every pod <SERVICE>_PORT=tcp://IP:PORT for each
	// Service in its namespace: a Service named vllm sets VLLM_PORT, which
	// vLLM reads as its own port (envs.py get_vllm_port, 0.8+: "VLLM_PORT
	// 'tcp://...' appears to be a URI"; before: int(os.getenv('VLLM_PORT'))
	// fails on it; two users' logs, 2025).
	{ID: "k8s.service_port_env", Matcher: re("appears to be a URI|with base 10: 'tcp://", `PORT '[a-z]+://[^']*' appears to be a URI|invalid literal for int\(\) with base 10: 'tcp://`), Cause: v.Config, Title: "a Kubernetes Service's variable took the server's port setting",
		Hint: "a Service named like the server (vllm, sglang) sets VLLM_PORT or SGLANG_PORT to tcp://IP:PORT in every pod of its namespace: rename the Service, or set enableServiceLinks: false in the pod spec"},
	// dependency
	// sglang srt/utils.py assert_pkg_version (0.4-0.5): too old, or not
	// installed at all ("with minimum required version X is not installed").
	{ID: "py.version_check", Matcher: re("is installed with version|Please reinstall the latest version|but you have|version mismatch|with minimum required version", `is installed with version .* (less|lower) than|Please reinstall the latest version|requires .*, but you have|version mismatch|with minimum required version \S+ is not installed`), Cause: v.Dependency, Title: "an installed package has the wrong version",
		Hint: "install the package versions this server release pins (pip install -U / reinstall in a fresh environment)"},
	{ID: "torch.no_cuda_build", Matcher: lit("Torch not compiled with CUDA enabled"), Cause: v.Dependency, Title: "the installed torch has no CUDA support",
		Hint: "install a CUDA build of torch that matches the server's requirements"},
	// A CUDA driver API function (libcuda's "cu" and a capital:
	// cuTensorMapEncodeTiled, cuGetProcAddress_v2) that the loaded driver
	// does not export: the driver is older than the CUDA the extension
	// was built for (CUDA 12's are missing from CUDA 11 drivers; triton
	// #4330; a user's SGLang on an old node driver, 2025).
	{ID: "cuda.driver_symbol", Matcher: re("undefined symbol: cu", `undefined symbol: cu[A-Z]\w*`), Cause: v.CUDA, Title: "the NVIDIA driver is older than the CUDA the server was built for",
		Hint: "upgrade the NVIDIA driver (in containers, the host's or the node's), or install a server build for the CUDA the driver supports; check that the real libcuda.so is loaded, not a stub"},
	{ID: "so.undefined_symbol", Matcher: lit("undefined symbol"), Cause: v.Dependency, Title: "a compiled extension does not match the installed libraries",
		Hint: "the extension was built against another torch/CUDA: reinstall the server package (or rebuild it) against the installed torch"},
	{ID: "so.missing", Matcher: re("cannot open shared object file|GLIBC", `cannot open shared object file|GLIBC\S* not found|GLIBCXX\S* not found`), Cause: v.Dependency, Title: "a shared library is missing",
		Hint: "install the missing library (CUDA runtime, libnccl, libstdc++) or fix LD_LIBRARY_PATH"},
	// torch_npu's EXEC_NPU_CMD (op_plugin ops_common.h): an Ascend
	// operator that the installed CANN / op package does not export.
	{ID: "npu.aclnn_missing", Matcher: re("not in libopapi.so", `aclnn\w+ or aclnn\w+GetWorkspaceSize not in \S*libopapi\.so`), Cause: v.Dependency, Title: "the installed Ascend CANN packages lack an operator this model needs",
		Hint: "install the CANN toolkit and op packages that this server release requires, and source their set_env.sh (ASCEND_CUSTOM_OPP_PATH)"},
	{ID: "nixl.missing_plugin", Matcher: re("due to the missing plugin", `^Skipping backend registration \w+ due to the missing plugin`), Cause: v.Dependency, Title: "nixl was installed without the backend plugin it needs",
		Hint: "install a nixl build with the UCX plugin (the nixl wheel, or the server's image), and check NIXL_PLUGIN_DIR and the UCX libraries"},
	{ID: "py.import", Matcher: re("ImportError|ModuleNotFoundError|No module named", `(^|\s)(ImportError|ModuleNotFoundError)\b|No module named`), Cause: v.Dependency, Title: "a Python module could not be imported",
		Hint: "install the missing package (or the matching version) in the server's environment"},
	// An exception that asks for a package (sglang's AWQ without vLLM's
	// operators: "ValueError: awq quantization requires some operators
	// from vllm. Please install vllm by `pip install vllm==0.8.4`").
	// Only an exception's line: an INFO line may suggest a package for speed.
	// A Rust program's main thread panicked (TGI's launcher and router,
	// SGLang's router): it dies; the message is on this line (Rust before
	// 1.73) or the lines after, whose own rule names the cause (the judge
	// gives a message no rule knows PanicMessage).
	{ID: "rust.panic", Matcher: re("panicked at", `^thread 'main' panicked at`), Cause: v.Crash, Fatal: true, Wrapper: true, MessageBelow: true, Title: "the program panicked",
		Hint: panicHint},
	// Another thread's panic ends only that thread (TGI's shard manager,
	// launcher/src/main.rs: "thread '<unnamed>' panicked at", whose
	// launcher then says the shard disconnected; a tokio worker's leaves
	// the router serving): a cause once the process dies, not an end.
	{ID: "rust.panic_thread", Matcher: re("panicked at", `^thread '[^']+' panicked at`), Cause: v.Crash, Wrapper: true, MessageBelow: true, Title: "a thread of the program panicked",
		Hint: panicHint},
	{ID: "py.please_install", Matcher: re("lease install|pip install", `(?:^|\s)[\w.]*(?:Error|Exception): .*(?:[Pp]lease install|pip install )`), Cause: v.Dependency, Title: "a package this configuration needs is not installed",
		Hint: "install the package the message names (the version it asks for) in the server's environment"},
	// Servers say they give up in these words (llama.cpp "exiting due to
	// model loading error"); an unknown one still ends the start.
	// uvicorn's lifespan (lifespan/on.py): the application's startup
	// raised, and the traceback above says why (SGLang's OpenAI layer on
	// a node whose schedulers died, 2026).
	{ID: "uvicorn.startup_failed", Matcher: lit("Application startup failed. Exiting."), Fatal: true, Title: "the HTTP server's startup failed"},
	{ID: "generic.exiting_due_to", Matcher: re("xiting due to", `(?i)^(?:\w+: )?exiting due to \w`), Fatal: true, Title: "the server gave up"},
	// systemd's own line in the unit's journal when its main process
	// ended in failure (src/core/service.c service_sigchld_event:
	// "Main process exited, code=exited, status=1/FAILURE", or
	// code=killed/dumped with the signal): the start is over, and the
	// lines before it say why.
	{ID: "systemd.main_exited", Matcher: re("Main process exited, code=", `Main process exited, code=(?:exited, status=[1-9]\d*|killed|dumped)`), Fatal: true, Title: "the unit's main process exited"},
	// crash
	// A bus error (SIGBUS): a process touched a page of a mapping that
	// has no memory behind it, almost always shared memory (/dev/shm, a
	// container's 64 MB by default) filled by NCCL's, torch's or the
	// server's shared buffers. UCX's handler says "Caught signal 7 (Bus
	// error: nonexistent physical address)" (TensorRT-LLM's deployment
	// guide, on Slurm); a shell, "Bus error (core dumped)".
	{ID: "sys.bus_error", Matcher: re("Bus error|SIGBUS|Caught signal 7", `Bus error|SIGBUS|Caught signal 7 \(`), Cause: v.Crash, Title: "a server process died of a bus error (SIGBUS)",
		Hint: "shared memory most likely ran out: give the container more /dev/shm (docker --shm-size, or a larger tmpfs mounted on /dev/shm; in Kubernetes an emptyDir with medium: Memory there) and check `df -h /dev/shm`; else a file the process had mapped was truncated under it"},
	// (Not bash's "Aborted (core dumped)": SIGABRT, sys.abort.)
	{ID: "sys.segfault", Matcher: re("Segmentation fault|SIGSEGV|core dumped|segmentation fault", `Segmentation fault|SIGSEGV|[^d] \(core dumped\)|^zsh: segmentation fault\s`), Cause: v.Crash, Title: "a server process crashed (segmentation fault)",
		Hint: "a native extension crashed: check versions of torch, the CUDA driver and the server's kernels; `dmesg` may show the faulting library"},
	// ggml's GGML_ABORT prints "file:line: message" and a backtrace
	// whose frames name ggml_abort (ggml/src/ggml.c, b10587). An abort is
	// often what an error did next, and the error may be printed just
	// after it: ggml writes the abort to stderr at once, llama.cpp's log
	// lines a moment later (GGML_ASSERT(buffer) failed, then "cudaMalloc
	// failed: out of memory" on a Jetson, 2026). A Wrapper, then.
	// glibc's assert(): "PROG: FILE:LINE: FUNC: Assertion `EXPR'
	// failed." (llama-server's sampler, b8641); zsh's report of the
	// signal ("zsh: abort      ./run-server").
	{ID: "sys.abort", Matcher: re("Fatal Python error|terminate called after throwing|Aborted (core dumped)|GGML_ASSERT|double free or corruption|free(): invalid|(ggml_abort+0x|Assertion |zsh: abort", `Fatal Python error|terminate called after throwing|Aborted \(core dumped\)|GGML_ASSERT|double free or corruption|free\(\): invalid|\(ggml_abort\+0x|: Assertion [\x60'].*' failed\.$|^zsh: abort\s`), Cause: v.Crash, Wrapper: true, Title: "a server process aborted",
		Hint: "a native component aborted: the lines above it usually name it; check versions and the GPU's health"},
}

// frameRules name a cause for a traceback whose exception has none of its
// own, by a function it passed through: a KeyError or a bare
// AssertionError raised inside a model's weight loading is a checkpoint
// the model code does not read (TensorRT-LLM's modules/linear.py
// load_weights_fused_qkv_linear on a layout it does not expect, vLLM's and
// SGLang's weight_loader asserting a shape). A known exception (CUDA out
// of memory while loading) keeps its own cause.
var frameRules = []FrameRule{
	// SGLang's srt/server_args.py check_server_args (0.4-0.5.x, 2026)
	// asserts that its arguments fit together ("tp_size must be divisible
	// by number of nodes").
	{Funcs: []string{"check_server_args"}, Rule: FailureRule{ID: "sglang.args_check", Cause: v.Config, Title: "SGLang refused its arguments",
		Hint: "the assertion names the arguments that do not fit together (parallel sizes against --nnodes, the parser flags, the ports): fix the command line"}},
	// An exception raised while the command line is parsed (vLLM's
	// FlexibleArgumentParser.parse_args, 0.8-0.9: "ValueError: With `vllm
	// serve`, you should provide the model as a positional argument ...";
	// argparse's own errors print "usage:" and "error:" instead).
	{Funcs: []string{"parse_args", "parse_known_args"}, Rule: FailureRule{ID: "args.parse_frame", Cause: v.Config, Title: "the command line was refused while it was parsed",
		Hint: "the exception says which argument is wrong or how the command wants it given: fix the command line (the server's --help lists its options)"}},
	{Funcs: []string{"load_weight", "weight_loader"}, Rule: FailureRule{ID: "weights.load_frame", Cause: v.ModelLoad, Title: "loading the checkpoint's weights into the model failed",
		Hint: "the checkpoint does not match what this server version's model code expects (tensor names, fused or quantized layout, shapes): check that the server supports this checkpoint's architecture and quantization, and that it was exported for it"}},
}

// FrameRule gives a cause to an unexplained traceback that ran through
// a function whose name contains one of Funcs.
type FrameRule struct {
	Funcs []string
	Rule  FailureRule
}

// framePhases name the startup step a traceback's function belongs to,
// by its exact name (vLLM's and SGLang's model runners and workers), so
// that a failure raised there is placed in that phase even when no line
// announced it (vllm#4327: NCCL's lines, then a quantization error raised
// in get_model).
var framePhases = map[string]v.Phase{
	"load_model": v.Weights, "get_model": v.Weights, "load_weights": v.Weights, "weight_loader": v.Weights,
	// Not vLLM's determine_available_memory, profile_run or
	// _dummy_sampler_run: its V1 engine runs torch.compile, Triton's and
	// FlashInfer's JIT inside its memory profiling, which calls them all.
	"init_memory_pool": v.KVCache,
	// vLLM V1's KV cache sizing, once profiling is over (v1/core/
	// kv_cache_utils.py; not _initialize_kv_caches, which profiles).
	"get_kv_cache_config": v.KVCache, "get_kv_cache_configs": v.KVCache, "check_enough_kv_cache_memory": v.KVCache,
	"_check_enough_kv_cache_memory": v.KVCache, "unify_kv_cache_spec_page_size": v.KVCache, "unify_hybrid_kv_cache_specs": v.KVCache,
	"get_kv_cache_groups": v.KVCache,
	"capture_model":       v.CUDAGraph, "init_cuda_graphs": v.CUDAGraph, "capture_one_batch_size": v.CUDAGraph,
	"init_distributed_environment": v.Distributed, "init_torch_distributed": v.Distributed, "initialize_model_parallel": v.Distributed,
}

// frameFunc is the function of a traceback frame line ("  File "x.py",
// line 9, in load_weights"), or "".
func frameFunc(msg string) string {
	t := strings.TrimLeft(msg, " ")
	if !strings.HasPrefix(t, `File "`) {
		return ""
	}
	i := strings.LastIndex(t, ", in ")
	if i < 0 || !strings.Contains(t[:i], `", line `) {
		return ""
	}
	return strings.TrimSpace(t[i+len(", in "):])
}

// Frame reads a traceback frame line ("  File "x.py", line 9, in
// load_weights"): the rule its function names a cause by (nil if none)
// and the phase the function belongs to ("" if none). A line that is no
// frame gives neither.
func Frame(msg string) (cause *FailureRule, phase v.Phase) {
	fn := frameFunc(msg)
	if fn == "" {
		return nil, ""
	}
	for k := range frameRules {
		for _, f := range frameRules[k].Funcs {
			if strings.Contains(fn, f) {
				return &frameRules[k].Rule, framePhases[fn]
			}
		}
	}
	return nil, framePhases[fn]
}

// hostMemoryHint is the advice for every host_oom cause.
// bindAddressHint is the hint of an address that no interface has.
const bindAddressHint = "the address the server (or its distributed rendezvous) binds is assigned to none of this machine's interfaces: use 0.0.0.0, 127.0.0.1 or an address `ip -brief addr` lists for --host, and this node's own address for MASTER_ADDR / --dist-init-addr"

const hostMemoryHint = "the host ran out of memory (RAM): free memory or add RAM/swap; for llama.cpp keep the weights mmap-ed (no --no-mmap, no --mlock), lower the context (-c) and the number of slots (-np), or quantize the KV cache (-ctk/-ctv q8_0); for Ray-based servers lower what each worker holds in host memory"

// exceptionRe matches the final line of a Python traceback:
// "RuntimeError: ...", "torch._dynamo.exc.BackendCompilerFailed: ...",
// "KeyError: 'x'", "AssertionError".
// A class name after a module path may start in lower case
// (nixl._bindings.nixlBackendError); a bare one may not. Python's own
// Exception stands alone: SGLang's graph runners raise
// Exception(f"Capture cuda graph failed: {e}...").
var exceptionRe = lazyre.New(`^(?:(?:(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*|[A-Z]\w*)(?:Error|Exception|Exit|Interrupt|Failure|Failed)|Exception)(?::|$)`)

// TracebackBody reports whether msg (a line's message, its prefixes cut
// off) is part of a Python traceback's body rather than an error of its
// own: the "Traceback (most recent call last):" header, a frame, source
// or caret line (indented), or the "Process NAME:" line multiprocessing
// prints before a child's traceback. vLLM logs whole tracebacks at error
// level, one line at a time.
func TracebackBody(msg string) bool {
	if strings.HasPrefix(msg, " ") || strings.HasPrefix(msg, "\t") || strings.HasPrefix(msg, "Traceback (most recent call last)") {
		return true
	}
	if name, ok := strings.CutPrefix(msg, "Process "); ok {
		return strings.HasSuffix(name, ":") && !strings.ContainsAny(name, " \t")
	}
	return msg != "" && strings.Trim(msg, "^~") == ""
}

// IsWaiting reports whether msg is one of the lines a server repeats while
// it waits for something, which are no sign of progress.
func IsWaiting(msg string) bool {
	return WaitHint(msg) != ""
}

// WaitHint is the hint of the waiting line msg is, or "".
func WaitHint(msg string) string {
	for i := range waiting {
		if waiting[i].match(msg, "") {
			return waiting[i].Hint
		}
	}
	return ""
}

// PanicMessage is the rule the judge gives the message of a Rust panic
// (the lines after "thread '...' panicked at FILE:LINE:COL:", Rust 1.73
// and later) that no other rule explains.
var PanicMessage = &FailureRule{ID: "rust.panic_message", Cause: v.Crash, Title: "the program panicked", Hint: panicHint}

const panicHint = "the panic's message and FILE:LINE say what failed; rerun with RUST_BACKTRACE=1 for the call stack"
