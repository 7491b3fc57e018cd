package judge

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"vigil/internal/learn"
	"vigil/internal/logline"
	"vigil/internal/observe"
	"vigil/internal/srvconfig"
	v "vigil/internal/verdict"
)

// step is one input to the judge at a time offset from the start.
type step struct {
	at     float64 // seconds
	line   string
	health *observe.Health
	busy   bool
	waited time.Duration // an idle sample whose processes waited this long for a CPU
	exit   *observe.Exit
}

func ln(at float64, s string) step         { return step{at: at, line: s} }
func hl(at float64, h observe.Health) step { return step{at: at, health: &h} }
func busy(at float64) step                 { return step{at: at, busy: true} }
func ex(at float64, e observe.Exit) step   { return step{at: at, exit: &e} }

// waiting: idle samples every 0.5 s from..to whose processes waited w
// seconds of each for a CPU.
func waiting(from, to, w float64) []step {
	var out []step
	for at := from; at <= to+1e-9; at += 0.5 {
		out = append(out, step{at: at, waited: sec(w)})
	}
	return out
}
func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

var (
	refused  = observe.Health{State: observe.HealthRefused}
	starting = observe.Health{State: observe.HealthStarting, Code: 503}
	ok200    = observe.Health{State: observe.HealthOK, Code: 200}
	err500   = observe.Health{State: observe.HealthOther, Code: 500}
)

// play feeds steps and ticks every 50 ms until a verdict or until end.
func play(t *testing.T, cfg Config, steps []step, end float64) *observe.Result {
	t.Helper()
	t0 := time.Unix(1_800_000_000, 0)
	j := New(cfg, t0)
	i := 0
	for now := 0.0; now <= end; now += 0.05 {
		for i < len(steps) && steps[i].at <= now+1e-9 {
			s := steps[i]
			at := t0.Add(sec(s.at))
			switch {
			case s.health != nil:
				j.Health(*s.health, at)
			case s.busy:
				j.Activity(observe.Activity{Busy: true, Detail: "cpu 1.0 cores"}, at)
			case s.waited > 0:
				j.Activity(observe.Activity{Waited: s.waited}, at)
			case s.exit != nil:
				j.Exit(*s.exit, at)
			default:
				j.Line(logline.Line{Text: s.line}, at)
			}
			i++
		}
		if r := j.Tick(t0.Add(sec(now))); r != nil {
			r.At = t0.Add(sec(now)) // keep At relative for the assertions below
			return r
		}
	}
	return nil
}

func TestVerdicts(t *testing.T) {
	sg := Config{Server: "sglang", StallAfter: 4 * time.Second, Timeout: 40 * time.Second}
	vl := Config{Server: "vllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second}
	tests := []struct {
		name    string
		cfg     Config
		steps   []step
		end     float64
		verdict v.Verdict
		cause   v.Cause
		phase   v.Phase
		// decided between these times (seconds)
		from, to float64
		evidence string // a substring the evidence must contain
	}{
		{
			name: "sglang ready needs the ready line and a 200", cfg: sg,
			steps: []step{
				hl(0, refused), ln(0.2, "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')"),
				ln(1, "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"),
				hl(3, ok200), // old SGLang answers 200 before warmup
				ln(5, "[2026-11-29 10:00:05] The server is fired up and ready to roll!"),
			},
			end: 20, verdict: v.Ready, phase: v.PhaseReady, from: 5, to: 5.2,
		},
		{
			// SGLang's documented start with --log-level warning prints no
			// ready line; /health turns 200 once its warmup is done.
			name: "sglang whose log level hides the ready line is ready on a 200",
			cfg:  Config{Server: "sglang", StallAfter: 4 * time.Second, Timeout: 40 * time.Second, Argv: []string{"python3", "-m", "sglang.launch_server", "--model-path", "x", "--log-level", "warning"}},
			steps: []step{
				hl(0, refused), ln(1, "Loading safetensors checkpoint shards: 100% Completed | 1/1 [00:00<00:00,  2.50it/s]"),
				hl(2, starting), hl(3, ok200),
			},
			end: 20, verdict: v.Ready, phase: v.PhaseReady, from: 4, to: 4.2,
		},
		{
			name: "vllm ready on health 200", cfg: vl,
			steps: []step{hl(0, refused), ln(1, "(EngineCore_DP0 pid=1) INFO 11-29 10:00:00 [gpu_model_runner.py:1] Starting to load model x..."),
				ln(3, "(APIServer pid=1) INFO:     Application startup complete."), hl(3.1, ok200)},
			end: 20, verdict: v.Ready, phase: v.PhaseReady, from: 3.1, to: 3.3,
		},
		{
			name: "root cause wins over the echo and the self-SIGKILL", cfg: sg,
			steps: []step{
				ln(1, "[2026-11-29 10:00:01 TP0] Load weight end. type=Qwen2, avail mem=14 GB"),
				ln(2, "[2026-11-29 10:00:02 TP0] Scheduler hit an exception: Traceback (most recent call last):"),
				ln(2, `  File "/x/model_runner.py", line 752, in init_memory_pool`),
				ln(2, "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."),
				ln(2.1, "[2026-11-29 10:00:02] Received sigquit from a child process. It usually means the child failed."),
				ex(2.3, observe.Exit{Signal: "SIGKILL"}),
			},
			end: 20, verdict: v.Failed, cause: v.GPUOOM, phase: v.KVCache, from: 2.05, to: 2.1,
			evidence: "Not enough memory",
		},
		{
			name: "a silent SIGKILL is the OOM killer", cfg: sg,
			steps: []step{ln(1, "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"), ex(3, observe.Exit{Signal: "SIGKILL"})},
			end:   20, verdict: v.Failed, cause: v.HostOOM, phase: v.Weights, from: 3, to: 3.1,
		},
		{
			name: "a silent SIGKILL with a readable kernel log and no OOM kill came from outside", cfg: sg,
			steps: []step{ln(1, "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"), ex(3, observe.Exit{Signal: "SIGKILL", KernelLogRead: true})},
			end:   20, verdict: v.Failed, cause: v.Crash, phase: v.Weights, from: 3, to: 3.1,
			evidence: "killed by SIGKILL",
		},
		{
			name: "an OOM record wins over a readable log", cfg: sg,
			steps: []step{ln(1, "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"), ex(3, observe.Exit{Signal: "SIGKILL", KernelLogRead: true, OOMRecord: "Out of memory: Killed process 7 (python3)"})},
			end:   20, verdict: v.Failed, cause: v.HostOOM, phase: v.Weights, from: 3, to: 3.1,
			evidence: "Out of memory: Killed process 7",
		},
		{
			name:  "a silent exit 1 after the preflight found the port taken is port_in_use",
			cfg:   Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second, PortTaken: "something already listens on 127.0.0.1:8080"},
			steps: []step{ln(0.01, "0.00.010.332 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)"), ex(0.3, observe.Exit{Code: 1})},
			end:   20, verdict: v.Failed, cause: v.PortInUse, from: 0.3, to: 0.4,
			evidence: "preflight: something already listens on 127.0.0.1:8080",
		},
		{
			name:  "an error line wins over a taken port",
			cfg:   Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second, PortTaken: "something already listens on 127.0.0.1:8080"},
			steps: []step{ln(0.01, "0.00.010.071 E gguf_init_from_file: failed to open GGUF file 'm.gguf' (No such file or directory)"), ex(0.3, observe.Exit{Code: 1})},
			end:   20, verdict: v.Failed, cause: v.ModelLoad, from: 0, to: 4,
		},
		{
			name:  "a silent exit 1 with a free port stays a crash",
			cfg:   Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(0.01, "0.00.010.332 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)"), ex(0.3, observe.Exit{Code: 1})},
			end:   20, verdict: v.Failed, cause: v.Crash, from: 0.3, to: 0.4,
		},
		{
			name: "an echo alone with the self-kill is a crash, not host_oom", cfg: sg,
			steps: []step{ln(1, "[2026-11-29 10:00:01] Received sigquit from a child process. It usually means the child failed."), ex(1.2, observe.Exit{Signal: "SIGKILL"})},
			end:   20, verdict: v.Failed, cause: v.Crash, from: 1.2, to: 1.3,
		},
		{
			name: "a fatal line whose evidence is complete decides after a short quiet, before the exit", cfg: sg,
			steps: []step{
				ln(1, "[2026-11-29 10:00:01] INFO:     Application startup complete."),
				ln(1.1, "[2026-11-29 10:00:01] ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 10000): address already in use"),
				ln(1.2, "[2026-11-29 10:00:01] INFO:     Waiting for application shutdown."),
			},
			end: 20, verdict: v.Failed, cause: v.PortInUse, phase: v.Serving, from: 1.15, to: 1.2,
		},
		{
			name: "a blank line after the exception may open a chained traceback: the long settle", cfg: sg,
			steps: []step{
				ln(0.5, "[2026-11-29 10:00:01 TP0] Load weight end. type=Qwen2, avail mem=14 GB"),
				ln(1, "[2026-11-29 10:00:02 TP0] Scheduler hit an exception: Traceback (most recent call last):"),
				ln(1, `  File "/x/model_runner.py", line 752, in init_memory_pool`),
				ln(1, "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."),
				ln(1, ""),
			},
			end: 20, verdict: v.Failed, cause: v.GPUOOM, phase: v.KVCache, from: 1.7, to: 1.75,
		},
		{
			name: "an open traceback keeps the long settle", cfg: sg,
			steps: []step{
				ln(0.5, "[2026-11-29 10:00:01 TP0] Load weight end. type=Qwen2, avail mem=14 GB"),
				ln(1, "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."),
				ln(1, "[2026-11-29 10:00:02 TP1] Scheduler hit an exception: Traceback (most recent call last):"),
			},
			end: 20, verdict: v.Failed, cause: v.GPUOOM, phase: v.KVCache, from: 1.7, to: 1.75,
		},
		{
			name: "an unknown traceback then exit 1 is an exception", cfg: vl,
			steps: []step{ln(1, "Traceback (most recent call last):"), ln(1, "ValueError: something odd"), ex(1.1, observe.Exit{Code: 1})},
			end:   20, verdict: v.Failed, cause: v.Exception, from: 1.1, to: 1.2, evidence: "ValueError: something odd",
		},
		{
			name: "exit 0 before ready is a crash", cfg: vl,
			steps: []step{ln(1, "INFO 11-29 10:00:00 [x.py:1] hello"), ex(2, observe.Exit{Code: 0})},
			end:   20, verdict: v.Failed, cause: v.Crash, from: 2, to: 2.1,
		},
		{
			name: "benign lines never fail", cfg: vl,
			steps: []step{
				ln(1, "(APIServer pid=1) WARNING 11-29 10:00:00 [x.py:1] Error: falling back to a slower kernel"),
				ln(1, "`torch_dtype` is deprecated! Use `dtype` instead!"),
				ln(1, "The CUDA error above can be ignored."),
				ln(2, "(APIServer pid=1) INFO:     Application startup complete."), hl(2.1, ok200),
			},
			end: 20, verdict: v.Ready, from: 2.1, to: 2.2,
		},
		{
			name: "idle silence is a stall in the phase reached", cfg: sg,
			steps: []step{ln(1.9, "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=23 GB")},
			end:   20, verdict: v.Stalled, phase: v.Weights, from: 5.9, to: 6.0, evidence: "Load weight begin",
		},
		{
			name: "a busy silent step is not a stall", cfg: sg,
			steps: []step{
				ln(1, "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=23 GB"),
				busy(3), busy(5), busy(7), busy(9),
				ln(10, "[2026-11-29 10:00:10] The server is fired up and ready to roll!"), hl(10, ok200),
			},
			end: 20, verdict: v.Ready, from: 10, to: 10.1,
		},
		{
			name: "time the server waits for a CPU is no stall", cfg: sg,
			steps: append(waiting(0.5, 9.5, 0.45),
				ln(10, "[2026-11-29 10:00:10] The server is fired up and ready to roll!"), hl(10, ok200)),
			end: 20, verdict: v.Ready, from: 10, to: 10.1,
		},
		{
			name: "a server that gets its CPU most of the time and does nothing stalls", cfg: sg,
			steps: waiting(0.5, 19.5, 0.1),
			// 0.4 s of every 0.5 s counts: 4 s of quiet after about 5 s.
			end: 20, verdict: v.Stalled, phase: v.Launch, from: 4.9, to: 5.1,
		},
		{
			name: "a still-moving startup runs into the timeout",
			cfg:  Config{Server: "sglang", StallAfter: 4 * time.Second, Timeout: 6 * time.Second},
			steps: []step{
				ln(1, "[2026-11-29 10:00:01 TP0] Load weight begin."),
				ln(2, "Loading safetensors checkpoint shards:  10% Completed | 1/10 [00:01<00:09,  1.00it/s]"),
				ln(4, "Loading safetensors checkpoint shards:  30% Completed | 3/10 [00:03<00:07,  1.00it/s]"),
				ln(5.5, "Loading safetensors checkpoint shards:  40% Completed | 4/10 [00:04<00:06,  1.00it/s]"),
			},
			end: 20, verdict: v.Timeout, phase: v.Weights, from: 6, to: 6.1, evidence: "4/10",
		},
		{
			name: "said it is up, then keeps answering 500", cfg: vl,
			steps: []step{ln(1, "(APIServer pid=1) INFO:     Application startup complete."),
				hl(1.1, err500), hl(1.4, err500), hl(1.7, err500), hl(2.0, err500), hl(2.3, err500)},
			end: 20, verdict: v.Failed, cause: v.Health, from: 2.0, to: 2.4, evidence: "500",
		},
		{
			name:  "ready line with a guessed URL that never answers",
			cfg:   Config{Server: "sglang", StallAfter: 4 * time.Second, Timeout: 40 * time.Second, URLGuessed: true},
			steps: []step{hl(0, refused), ln(1, "[2026-11-29 10:00:01] The server is fired up and ready to roll!")},
			end:   20, verdict: v.Ready, from: 5, to: 5.1,
		},
		{
			name: "llama.cpp: a 200 before its ready line is another server's, and the bind fails",
			cfg:  Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{hl(0.05, ok200), ln(0.2, "start: binding port with default address family"),
				ln(0.3, "start: couldn't bind HTTP server socket, hostname: 127.0.0.1, port: 8080"),
				ln(0.3, "main: exiting due to HTTP server error"), ex(0.35, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.PortInUse, from: 0.35, to: 0.45,
		},
		{
			name:  "llama.cpp: a 200 without any ready line is readiness after a moment",
			cfg:   Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{hl(0, starting), ln(0.2, "main: loading model"), hl(3, ok200)},
			end:   20, verdict: v.Ready, from: 4, to: 4.1,
		},
		{
			name:  "llama.cpp: a 200 with its ready line is readiness at once",
			cfg:   Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{hl(0, starting), ln(0.2, "main: loading model"), ln(3, "main: model loaded"), hl(3.05, ok200)},
			end:   20, verdict: v.Ready, from: 3.05, to: 3.15,
		},
		{
			name: "pydantic's wrapper yields to the error it lists",
			cfg:  Config{Server: "trtllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "Traceback (most recent call last):"),
				ln(1, "pydantic_core._pydantic_core.ValidationError: 1 validation error for TorchLlmArgs"),
				ln(1, "  Value error, Failed to infer model format because no config.json exists in /models/x [type=value_error, input_value={}, input_type=dict]"),
				ln(1, "    For further information visit https://errors.pydantic.dev/2.11/v/value_error"),
				ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.ModelLoad, from: 1.2, to: 1.3, evidence: "no config.json",
		},
		{
			name: "a pydantic error of its own is a configuration error",
			cfg:  Config{Server: "trtllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "pydantic_core._pydantic_core.ValidationError: 1 validation error for TorchLlmArgs"),
				ln(1, "  max_batch_size"), ln(1, "    Input should be greater than 0 [type=greater_than, input_value=0, input_type=int]"),
				ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.Config, from: 1.2, to: 1.3,
		},
		{
			// llama.cpp on a Jetson (a user's log, 2026): ggml writes the
			// assert to stderr at once, the log line of the failed
			// allocation behind it comes a moment later.
			name: "an abort yields to the error printed right after it",
			cfg:  Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "/home/ubuntu/src/vendor/llama.cpp/ggml/src/ggml-backend.cpp:188: GGML_ASSERT(buffer) failed"),
				ln(1.01, "0.21.177.566 E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 838.51 MiB on device 0: cudaMalloc failed: out of memory"),
				ln(1.01, "0.21.177.582 E alloc_tensor_range: failed to allocate CUDA0 buffer of size 879243264"),
				ex(1.2, observe.Exit{Signal: "SIGABRT"})},
			end: 20, verdict: v.Failed, cause: v.GPUOOM, from: 1.2, to: 1.3, evidence: "GGML_ASSERT(buffer)",
		},
		{
			// An abort alone is a crash.
			name:  "an abort with nothing after it is a crash",
			cfg:   Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "/src/ggml/src/ggml-cuda/fattn.cu:110: GGML_ASSERT(false) failed"), ex(1.2, observe.Exit{Signal: "SIGABRT"})},
			end:   20, verdict: v.Failed, cause: v.Crash, from: 1.2, to: 1.3,
		},
		{
			// SGLang 0.5.8 at TP 8 (a user's log, 2026-02): every rank warns
			// that amdsmi did not import, then goes on; the phase moved on
			// with other ranks' lines first.
			name: "a rank that went on after its error was not stopped by it", cfg: sg,
			steps: []step{ln(0.1, "[2026-02-26 05:20:06 TP0] Load weight begin. avail mem=180.12 GB"),
				ln(0.2, `[2026-02-26 05:20:06 TP3] Failed to import amdsmi with ModuleNotFoundError("No module named 'amdsmi'")`),
				ln(0.3, "[2026-02-26 05:24:09 TP4] Load weight end. elapsed=228.09 s, type=GlmMoeDsaForCausalLM, avail mem=96.4 GB, mem usage=83.7 GB."),
				ln(0.4, "[2026-02-26 05:35:08 TP3] Load weight end. elapsed=888.70 s, type=GlmMoeDsaForCausalLM, avail mem=96.4 GB, mem usage=83.7 GB."),
				ln(1, "[2026-02-26 05:35:20 TP3] Scheduler hit an exception: Traceback (most recent call last):"),
				ln(1, "TypeError: cannot unpack non-iterable ForwardMetadata object"),
				ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.Exception, from: 1.2, to: 1.3, evidence: "ForwardMetadata",
		},
		{
			// TensorRT-LLM 1.1 with a prebuilt engine (a user's log, 2026-04):
			// the field's own words are the evidence.
			name: "the detail under a pydantic error is its evidence",
			cfg:  Config{Server: "trtllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "[04/17/2026-08:21:45] [TRT-LLM] [E] Failed to parse the arguments for the LLM constructor: 1 validation error for TrtLlmArgs"),
				ln(1, "  Value error, max_batch_size [2048] is greater than build_config.max_batch_size [64] in build_config [type=value_error, input_value={'model': '/engines/qwen'...indow_too_large': False}, input_type=dict]"),
				ln(1, "    For further information visit https://errors.pydantic.dev/2.10/v/value_error"),
				ln(1, "Traceback (most recent call last):"),
				ln(1, `  File "/usr/local/bin/trtllm-serve", line 8, in <module>`),
				ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.Config, from: 1.2, to: 1.3, evidence: "is greater than build_config.max_batch_size",
		},
		{
			// sglang entrypoints/engine.py: the launcher's sigquit handler
			// SIGKILLs its own process tree, and a shell then says
			// "Killed" (a user's log, 2026-03).
			name: "a Killed after SGLang's sigquit is its own kill, not the host's memory", cfg: sg,
			steps: []step{ln(1, "Traceback (most recent call last):"),
				ln(1, `  File "/sgl/flashinfer/jit/attention/modules.py", line 978, in gen_batch_prefill_module`),
				ln(1, "AssertionError: fp8 tensor core is not supported in fa2 backend"),
				ln(1.01, "[2026-03-13 14:24:23] Received sigquit from a child process. It usually means the child failed."),
				ln(1.02, "Killed"), ex(1.2, observe.Exit{Signal: "SIGKILL"})},
			end: 20, verdict: v.Failed, cause: v.Exception, from: 1.05, to: 1.3, evidence: "fp8 tensor core",
		},
		{
			// sglang entrypoints/http_server.py _execute_server_warmup:
			// kill_process_tree(os.getpid()) after the warmup's error.
			name: "a Killed after SGLang's warmup failure is its own kill", cfg: sg,
			steps: []step{ln(1, "[2026-11-29 10:00:26] Initialization failed. warmup error: Traceback (most recent call last):"),
				ln(1, `  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/entrypoints/http_server.py", line 1594, in _execute_server_warmup`),
				ln(1, "requests.exceptions.ConnectionError: HTTPConnectionPool(host='127.0.0.1', port=30000): Max retries exceeded with url: /generate"),
				ln(1.02, "Killed"), ex(1.2, observe.Exit{Signal: "SIGKILL"})},
			end: 20, verdict: v.Failed, cause: v.Exception, from: 1.05, to: 1.3, evidence: "Max retries exceeded",
		},
		{
			// tensorrt_llm executor/worker.py worker_main quotes the error
			// (TensorRT-LLM#3879, a user's log).
			name:  "an executor failure that quotes a CUDA error is a CUDA failure",
			cfg:   Config{Server: "trtllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "[05/07/2025-09:14:22] [TRT-LLM] [RANK 6] [E] Failed to initialize executor on rank 6: [TensorRT-LLM][ERROR] CUDA driver error in cuDriver->cuModuleLoadData(&cuModule, kernelInfo.data): CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered. (/src/cpp/tensorrt_llm/kernels/gemmCommon.h:741)")},
			end:   20, verdict: v.Failed, cause: v.CUDA, from: 1, to: 1.8, evidence: "CUDA_ERROR_ILLEGAL_ADDRESS",
		},
		{
			// text_generation_server/models/__init__.py warns why its Flash
			// Attention models did not import, and a sharded model then
			// needs them (text-generation-inference#1636, a user's log).
			name: "a failure whose earlier warning says why takes the warning's reason as its cause",
			cfg:  Config{Server: "tgi", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "2024-03-08T10:11:12.123456Z  WARN text_generation_launcher: Could not import Flash Attention enabled models: CUDA is not available"),
				ln(1.1, "NotImplementedError: Sharded Qwen2 requires Flash Attention enabled models."),
				ln(1.2, "2024-03-08T10:11:12.523456Z ERROR text_generation_launcher: Shard 0 failed to start"), ex(1.3, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.CUDA, from: 1.2, to: 1.4, evidence: "Sharded Qwen2",
		},
		{
			name: "a missing kernel package behind the warning is a dependency failure",
			cfg:  Config{Server: "tgi", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "2024-03-08T10:11:12.123456Z  WARN text_generation_launcher: Could not import Flash Attention enabled models: No module named 'dropout_layer_norm'"),
				ln(1.1, "NotImplementedError: Sharded Qwen2 requires Flash Attention enabled models."),
				ln(1.2, "2024-03-08T10:11:12.523456Z ERROR text_generation_launcher: Shard 0 failed to start"), ex(1.3, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.Dependency, from: 1.2, to: 1.4, evidence: "dropout_layer_norm",
		},
		{
			name: "a failure whose earlier warning gives no known reason keeps its own cause",
			cfg:  Config{Server: "tgi", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "2024-03-08T10:11:12.123456Z  WARN text_generation_launcher: Could not import Flash Attention enabled models: some reason vigil does not know"),
				ln(1.1, "NotImplementedError: Sharded Qwen2 requires Flash Attention enabled models."),
				ln(1.2, "2024-03-08T10:11:12.523456Z ERROR text_generation_launcher: Shard 0 failed to start"), ex(1.3, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.Config, from: 1.2, to: 1.4, evidence: "Sharded Qwen2",
		},
		{
			// tensorrt_llm/_torch/modules/linear.py on an NVFP4 checkpoint
			// whose fused QKV scales it does not expect (TensorRT-LLM#16867,
			// a user's log).
			name: "an unknown exception raised while loading weights is a model load failure",
			cfg:  Config{Server: "trtllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "[07/25/2026-11:42:07] [TRT-LLM] [RANK 0] [E] Traceback (most recent call last):"),
				ln(1, `  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/models/modeling_gemma4.py", line 902, in load_weights`),
				ln(1, "    _load_weights_impl_v2(self, weights, weight_mapper, params_map=params_map)"),
				ln(1, `  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/modules/linear.py", line 1230, in load_weight_scales`),
				ln(1, `    weight_scale_2 = w["weight_scale_2"]`),
				ln(1, "KeyError: 'v'"), ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.ModelLoad, from: 1.2, to: 1.3, evidence: "KeyError: 'v'",
		},
		{
			// vllm#4327: NCCL's lines were the last to name a step; the
			// traceback shows the error came from get_model.
			name: "a failure raised in a later step than any line named is placed in that step",
			cfg:  Config{Server: "vllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(0.5, "INFO 04-24 10:00:00 pynccl.py:58] vLLM is using nccl==2.18.1"),
				ln(1, "ERROR 04-24 10:00:01 worker_base.py:157] Error executing method load_model. This might cause deadlock in distributed execution."),
				ln(1, "ERROR 04-24 10:00:01 worker_base.py:157] Traceback (most recent call last):"),
				ln(1, `ERROR 04-24 10:00:01 worker_base.py:157]   File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 117, in load_model`),
				ln(1, `ERROR 04-24 10:00:01 worker_base.py:157]   File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/model_loader/__init__.py", line 19, in get_model`),
				ln(1, `ERROR 04-24 10:00:01 worker_base.py:157]   File "/usr/local/lib/python3.10/dist-packages/vllm/config.py", line 226, in _verify_quantization`),
				ln(1, "ERROR 04-24 10:00:01 worker_base.py:157] ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: 90. Current capability: 86."),
				ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.Config, phase: v.Weights, from: 1.2, to: 1.3,
		},
		{
			name: "a known error raised while loading weights keeps its own cause",
			cfg:  Config{Server: "trtllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "Traceback (most recent call last):"),
				ln(1, `  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/models/modeling_gemma4.py", line 902, in load_weights`),
				ln(1, "    _load_weights_impl_v2(self, weights, weight_mapper, params_map=params_map)"),
				ln(1, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."), ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.GPUOOM, from: 1.2, to: 1.3,
		},
		{
			name: "the frames of an earlier traceback say nothing of a later one",
			cfg:  Config{Server: "trtllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(0.5, "Traceback (most recent call last):"),
				ln(0.5, `  File "/x/modeling_gemma4.py", line 902, in load_weights`),
				ln(0.5, "    raise ValueError"),
				ln(1, "Traceback (most recent call last):"),
				ln(1, `  File "/x/serve.py", line 9, in launch_server`),
				ln(1, "    llm = LLM(**args)"),
				ln(1, "KeyError: 'v'"), ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.Exception, from: 1.2, to: 1.3,
		},
		{
			// vllm multiproc_executor.py collective_rpc quotes the worker's
			// error; here the worker's own traceback is not in the log.
			name:  "a worker failure that quotes an out-of-memory error is gpu_oom",
			cfg:   Config{Server: "vllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "(EngineCore pid=42) ERROR 08-20 10:00:41 [core.py:1010] RuntimeError: Worker failed with error 'CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.', please check the stack trace above for the root cause")},
			end:   20, verdict: v.Failed, cause: v.GPUOOM, from: 1, to: 1.8, evidence: "warming up sampler",
		},
		{
			// vllm config/parallel.py raises it from the failed import of
			// Ray, whose traceback is printed first.
			name: "a parallel size over the node's GPUs, raised from a missing Ray, is config",
			cfg:  Config{Server: "vllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "(APIServer pid=1) Traceback (most recent call last):"),
				ln(1, "(APIServer pid=1) ModuleNotFoundError: No module named 'ray'"),
				ln(1, "(APIServer pid=1) The above exception was the direct cause of the following exception:"),
				ln(1, "(APIServer pid=1) Traceback (most recent call last):"),
				ln(1, "(APIServer pid=1) ValueError: Unable to load Ray which is required for multi-node inference, please install Ray with `pip install ray`."),
				ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.Config, from: 1.2, to: 1.3, evidence: "multi-node inference",
		},
		{
			// vllm executor/ray_utils.py assert_ray_available (0.6-0.8):
			// --distributed-executor-backend ray without Ray installed.
			name: "a missing Ray asked for by name stays a missing package",
			cfg:  Config{Server: "vllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "(APIServer pid=1) ModuleNotFoundError: No module named 'ray'"),
				ln(1, "(APIServer pid=1) The above exception was the direct cause of the following exception:"),
				ln(1, "(APIServer pid=1) ValueError: Failed to import Ray, please install Ray with `pip install ray`."),
				ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.Dependency, from: 1.2, to: 1.3, evidence: "No module named 'ray'",
		},
		{
			// tensorrt_llm _torch/pyexecutor/resource_manager.py, quoted by
			// executor/worker.py, then echoed by executor/proxy.py.
			name: "an executor failure that quotes a KV cache too small for one sequence is gpu_oom",
			cfg:  Config{Server: "trtllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "[01/15/2026-10:00:34] [TRT-LLM] [E] Failed to initialize executor on rank 0: Impossible to fit in any sequence in kvCache"),
				ln(1.01, "RuntimeError: Executor worker returned error"), ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.GPUOOM, from: 1, to: 1.8, evidence: "Impossible to fit",
		},
		{
			// executor/proxy.py raises its echo after the rank's own error.
			name: "the proxy's echo after an unknown executor failure is not the root",
			cfg:  Config{Server: "trtllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "[01/15/2026-10:00:34] [TRT-LLM] [E] Failed to initialize executor on rank 0: something vigil does not know"),
				ln(1.01, "RuntimeError: Executor worker returned error"), ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.Crash, from: 1, to: 1.8, evidence: "something vigil does not know",
		},
		{
			// router/src/main.rs prints its error's Debug form last; the
			// shard's own lines were filtered out (LOG_LEVEL=error).
			name:  "the router's final error names the prefill OOM it quotes",
			cfg:   Config{Server: "tgi", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "Error: Backend(Warmup(Generation(\"Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`\")))"), ex(1.2, observe.Exit{Code: 1})},
			end:   20, verdict: v.Failed, cause: v.GPUOOM, from: 1, to: 1.8, evidence: "prefill tokens",
		},
		{
			name:  "the router's final error names the port it could not bind",
			cfg:   Config{Server: "tgi", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "Error: WebServer(Axum(Os { code: 98, kind: AddrInUse, message: \"Address already in use\" }))"), ex(1.2, observe.Exit{Code: 1})},
			end:   20, verdict: v.Failed, cause: v.PortInUse, from: 1, to: 1.8, evidence: "AddrInUse",
		},
		{
			// launcher/src/main.rs find_num_shards: a panic whose message
			// is on the next line (Rust 1.73+). No exit: a log read later.
			name: "the launcher's panic is decided by its message",
			cfg:  Config{Server: "tgi", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "thread 'main' panicked at launcher/src/main.rs:1384:18:"),
				ln(1, "--num-shard and CUDA_VISIBLE_DEVICES/NVIDIA_VISIBLE_DEVICES/ZE_AFFINITY_MASK are not set"),
				ln(1, "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace")},
			end: 20, verdict: v.Failed, cause: v.Config, from: 1, to: 1.8, evidence: "are not set",
		},
		{
			// TGI --json-output: the shard's whole traceback is one record
			// (server.py logger.exception, re-emitted by the launcher).
			name: "a traceback inside one JSON record is judged line by line",
			cfg:  Config{Server: "tgi", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, `{"timestamp":"2026-01-08T10:00:08.000000Z","level":"ERROR","fields":{"message":"Error when initializing model\nTraceback (most recent call last):\n  File \"/usr/src/server/text_generation_server/utils/weights.py\", line 1, in get_tensor\n    raise RuntimeError(f\"weight {tensor_name} does not exist\")\nRuntimeError: weight model.layers.0.self_attn.q_proj.weight does not exist\n"},"target":"text_generation_launcher"}`),
				ex(1.2, observe.Exit{Code: 1})},
			end: 20, verdict: v.Failed, cause: v.ModelLoad, from: 1.2, to: 1.3, evidence: "q_proj.weight does not exist",
		},
		{
			name:  "an executor failure that quotes no known error has no cause of its own",
			cfg:   Config{Server: "trtllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(1, "[05/07/2025-09:14:22] [TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: something vigil does not know")},
			end:   20, verdict: v.Failed, cause: v.Crash, from: 1, to: 1.8, evidence: "something vigil does not know",
		},
		{
			// ggml-metal-context.m leaves the backend in an error state and
			// the server still says it is ready (llama.cpp#27309).
			name: "a ready line while a fatal line's evidence settles does not make the start ready",
			cfg:  Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second},
			steps: []step{ln(0.1, "0.00.004.892 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)"),
				ln(1, "0.26.672.359 E ggml_metal_synchronize: error: command buffer 0 failed with status 5"),
				ln(1, "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)"),
				ln(1, "0.26.672.401 E ggml_metal_graph_compute: backend is in error state from a previous command buffer failure - recreate the backend to recover"),
				ln(1.01, "0.26.675.731 I srv    load_model: initializing, n_slots = 1, n_ctx_slot = 40960, kv_unified = 'false'"),
				ln(1.01, "0.26.675.118 I srv  llama_server: model loaded"), hl(1.01, ok200)},
			end: 20, verdict: v.Failed, cause: v.GPUOOM, from: 1.05, to: 1.8, evidence: "kIOGPUCommandBufferCallbackErrorOutOfMemory",
		},
		{
			name: "a Killed with no sigquit before it is the host's memory", cfg: sg,
			steps: []step{ln(1, "[2026-03-13 14:24:23 TP0] Load weight begin. avail mem=70 GB"),
				ln(1.02, "Killed"), ex(1.2, observe.Exit{Signal: "SIGKILL"})},
			end: 20, verdict: v.Failed, cause: v.HostOOM, from: 1.2, to: 1.3,
		},
		{
			name: "an unterminated last line is judged when the server dies", cfg: vl,
			steps: []step{{at: 1, line: "Fatal Python error: Segmentation fault"}, ex(1.2, observe.Exit{Signal: "SIGSEGV"})},
			end:   20, verdict: v.Failed, cause: v.Crash, from: 1.2, to: 1.3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := play(t, tt.cfg, tt.steps, tt.end)
			if r == nil {
				t.Fatal("no verdict")
			}
			if r.Verdict != tt.verdict || r.Cause != tt.cause {
				t.Fatalf("got %s/%s (%s), want %s/%s", r.Verdict, r.Cause, r.Summary, tt.verdict, tt.cause)
			}
			if tt.phase != "" && r.Phase != tt.phase {
				t.Errorf("phase = %s, want %s", r.Phase, tt.phase)
			}
			if n := len(r.Phases); n == 0 || r.Phases[n-1].Phase != r.Phase {
				t.Errorf("phases %+v end elsewhere than the verdict's %s", r.Phases, r.Phase)
			}
			at := r.At.Sub(time.Unix(1_800_000_000, 0)).Seconds()
			if at < tt.from-1e-6 || at > tt.to+1e-6 {
				t.Errorf("decided at %.2fs, want within [%.2f, %.2f]", at, tt.from, tt.to)
			}
			if tt.evidence != "" && !strings.Contains(strings.Join(r.Evidence, "\n"), tt.evidence) {
				t.Errorf("evidence %q lacks %q", r.Evidence, tt.evidence)
			}
			if len(r.Evidence) == 0 && r.Verdict != v.Ready {
				t.Error("a verdict other than ready needs evidence")
			}
		})
	}
}

func TestEvidenceIsTheFailingRanksLines(t *testing.T) {
	cfg := Config{Server: "sglang", StallAfter: 4 * time.Second, Timeout: 40 * time.Second}
	r := play(t, cfg, []step{
		ln(1, "[2026-11-29 10:00:01 TP0] Init torch distributed begin."),
		ln(1, "[2026-11-29 10:00:01 TP1] Init torch distributed begin."),
		ln(2, "[2026-11-29 10:00:02 TP1] Scheduler hit an exception: Traceback (most recent call last):"),
		ln(2, `    raise RuntimeError(f"NCCL error: {error_str}")`),
		ln(2, "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"),
		ln(2.1, "[2026-11-29 10:00:02] Received sigquit from a child process. It usually means the child failed."),
		ex(2.3, observe.Exit{Signal: "SIGKILL"}),
	}, 20)
	if r == nil || r.Cause != v.NCCL {
		t.Fatalf("got %+v, want nccl", r)
	}
	if !strings.HasPrefix(r.Evidence[0], "RuntimeError: NCCL error") {
		t.Errorf("evidence[0] = %q, want the root exception first", r.Evidence[0])
	}
	if !strings.Contains(r.Summary, "TP1") {
		t.Errorf("summary %q does not name the failing rank TP1", r.Summary)
	}
}

func TestHintNamesTheFlagValue(t *testing.T) {
	cfg := Config{Server: "sglang", StallAfter: 4 * time.Second, Timeout: 40 * time.Second,
		Argv: []string{"python3", "-m", "sglang.launch_server", "--mem-fraction-static", "0.62"}}
	r := play(t, cfg, []step{ln(1, "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."), ex(1.1, observe.Exit{Code: 1})}, 10)
	if r == nil || !strings.Contains(r.Hint, "(now 0.62)") {
		t.Fatalf("hint %q does not show the current value", r.Hint)
	}
}

// TestOOMWhileWeightsLoad: a GPU out of memory while the weights load
// is not helped by a smaller memory fraction (applied after them), so
// its hint says what does; the same error after them keeps the
// fraction's hint.
func TestOOMWhileWeightsLoad(t *testing.T) {
	oom := "(EngineCore_DP0 pid=1) ERROR 11-29 10:00:09 [core.py:866] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 112.00 MiB. GPU 0 has a total capacity of 139.72 GiB of which 71.25 MiB is free."
	tests := []struct {
		name  string
		lines []string
		phase v.Phase
		hint  string // how the hint starts
	}{
		{"in weights", []string{"(EngineCore_DP0 pid=1) INFO 11-29 10:00:00 [gpu_model_runner.py:1] Starting to load model x..."}, v.Weights, "the weights alone do not fit"},
		// vLLM's memory profiling run, after the weights (compile).
		{"in the first forward passes", []string{
			"(EngineCore_DP0 pid=1) INFO 11-29 10:00:00 [gpu_model_runner.py:1] Starting to load model x...",
			"(EngineCore_DP0 pid=1) INFO 11-29 10:00:05 [gpu_model_runner.py:1] Model loading took 60.1 GiB and 5.2 seconds",
		}, v.Compile, "the first forward passes ran out"},
		{"after weights", []string{
			"(EngineCore_DP0 pid=1) INFO 11-29 10:00:00 [gpu_model_runner.py:1] Starting to load model x...",
			"(EngineCore_DP0 pid=1) INFO 11-29 10:00:05 [gpu_model_runner.py:1] Model loading took 60.1 GiB and 5.2 seconds",
			"(EngineCore_DP0 pid=1) INFO 11-29 10:00:08 [gpu_worker.py:1] Available KV cache memory: 50.00 GiB",
		}, v.KVCache, "lower the memory the server claims"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var steps []step
			for _, l := range append(tc.lines, oom) {
				steps = append(steps, ln(1, l))
			}
			got := play(t, Config{Server: "vllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second}, append(steps, ex(1.1, observe.Exit{Code: 1})), 10)
			if got == nil {
				t.Fatal("no verdict")
			}
			if got.Cause != v.GPUOOM || got.RuleID != "torch.cuda_oom" || got.Phase != tc.phase {
				t.Fatalf("got %s %s %s in %s, want gpu_oom by torch.cuda_oom in %s", got.Verdict, got.Cause, got.RuleID, got.Phase, tc.phase)
			}
			if !strings.HasPrefix(got.Hint, tc.hint) {
				t.Errorf("hint %q; want one that starts %q", got.Hint, tc.hint)
			}
		})
	}
}

func TestSmoke(t *testing.T) {
	cfg := Config{Server: "vllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second, Smoke: true}
	t0 := time.Unix(1_800_000_000, 0)
	j := New(cfg, t0)
	j.Line(logline.Line{Text: "(APIServer pid=1) INFO:     Application startup complete."}, t0)
	j.Health(ok200, t0)
	if r := j.Tick(t0); r != nil {
		t.Fatalf("decided %s before the smoke request", r.Verdict)
	}
	if !j.WantSmoke() {
		t.Fatal("the judge did not ask for the smoke request")
	}
	// No stall while the request runs, however long.
	if r := j.Tick(t0.Add(time.Minute)); r != nil {
		t.Fatalf("decided %s while the smoke request runs", r.Verdict)
	}
	j.Smoke(observe.SmokeResult{OK: false, Reason: "garbage: run of 32 '!'", Answer: "!!!!!!!!", Endpoint: "/v1/chat/completions"}, t0.Add(time.Minute))
	r := j.Tick(t0.Add(time.Minute))
	if r == nil || r.Verdict != v.Failed || r.Cause != v.BadOutput || r.Phase != v.PhaseReady {
		t.Fatalf("got %+v, want failed/bad_output in ready", r)
	}
}

func TestOffline(t *testing.T) {
	t0 := time.Unix(0, 0)
	j := New(Config{Server: "vllm"}, t0)
	for _, l := range []string{
		"(EngineCore_DP0 pid=1) INFO 11-29 10:00:00 [gpu_model_runner.py:1] Starting to load model x...",
		"(EngineCore_DP0 pid=1) ERROR 11-29 10:00:00 [core.py:866] EngineCore failed to start.",
		"(EngineCore_DP0 pid=1) ERROR 11-29 10:00:00 [core.py:866] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1 GiB.",
	} {
		j.Line(logline.Line{Text: l}, t0)
	}
	if got := j.Offline(); got.Verdict != v.Failed || got.Cause != v.GPUOOM || got.Phase != v.Weights {
		t.Errorf("Offline() = %+v, want failed/gpu_oom in weights", got)
	}
}

func TestExpandHint(t *testing.T) {
	tests := []struct {
		hint, want string
		argv       []string
	}{
		{"raise --x{flag:--x}", "raise --x (now 3)", []string{"--x", "3"}},
		{"raise --x{flag:--x}", "raise --x (now 3)", []string{"--x=3"}},
		{"raise --a-b{flag:--a-b}", "raise --a-b (now 1)", []string{"--a_b", "1"}},
		{"raise --x{flag:--x}", "raise --x", nil},
		{"broken {flag:--x", "broken {flag:--x", nil},
	}
	for _, tt := range tests {
		if got := expandHint(tt.hint, tt.argv); got != tt.want {
			t.Errorf("expandHint(%q, %q) = %q, want %q", tt.hint, tt.argv, got, tt.want)
		}
	}
}

// A line a server repeats while it waits (TGI's "Waiting for shard to be
// ready...", vLLM's "Waiting for 1 local, 0 remote core engine proc(s)")
// is no progress: a shard or engine that hangs is still a stall, and the
// stall's hint says what the server waited for.
func TestWaitingLinesAreNoProgress(t *testing.T) {
	repeat := func(from float64, line string) []step {
		var out []step
		for at := from; at < 20; at++ {
			out = append(out, ln(at, line))
		}
		return out
	}
	tests := []struct {
		name   string
		server string
		steps  []step
		phase  v.Phase
		hint   string
	}{
		{"tgi shard", "tgi", append([]step{ln(0.5, "2026-01-08T10:00:00.123456Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0")},
			repeat(1, "2026-01-08T10:00:00.123456Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... rank=0")...),
			v.Weights, "TGI's launcher waits for a shard"},
		{"vllm engine core", "vllm", append([]step{
			ln(0.5, "(EngineCore_DP0 pid=2) INFO 08-23 10:00:00 [core.py:1] Waiting for init message from front-end."),
			ln(0.6, "(EngineCore_DP0 pid=2) INFO 08-23 10:00:00 [parallel_state.py:1] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0"),
		}, repeat(1, "(APIServer pid=1) INFO 08-23 10:00:10 [utils.py:900] Waiting for 1 local, 0 remote core engine proc(s) to start.")...),
			v.Distributed, "vLLM's API server waits for its engine core"},
		{"silent after a step", "vllm", []step{
			ln(0.5, "(APIServer pid=1) INFO 08-23 10:00:10 [utils.py:900] Waiting for 1 local, 0 remote core engine proc(s) to start."),
			ln(0.6, "(EngineCore_DP0 pid=2) INFO 08-23 10:00:00 [parallel_state.py:1] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0"),
		}, v.Distributed, "a rank or node never joined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Server: tc.server, StallAfter: 4 * time.Second, Timeout: 60 * time.Second}
			r := play(t, cfg, tc.steps, 30)
			if r == nil || r.Verdict != v.Stalled || r.Phase != tc.phase {
				t.Fatalf("got %+v, want stalled in %s", r, tc.phase)
			}
			if !strings.HasPrefix(r.Hint, tc.hint) {
				t.Errorf("hint %q; want one that starts %q", r.Hint, tc.hint)
			}
		})
	}
}

// With history, each phase announces its ETA, and a phase running well past
// its usual duration draws one warning while it still progresses.
func TestLearnedETAAndSlowPhase(t *testing.T) {
	learned := learn.Summarise([][]learn.Phase{
		{{Name: "launch", Seconds: 1}, {Name: "weights", Seconds: 10}, {Name: "ready", Seconds: 0}},
		{{Name: "launch", Seconds: 1}, {Name: "weights", Seconds: 11}, {Name: "ready", Seconds: 0}},
	}, []float64{11, 12})
	cfg := Config{Server: "sglang", StallAfter: 20 * time.Second, Timeout: 5 * time.Minute, Learned: &learned}
	t0 := time.Unix(1_800_000_000, 0)
	j := New(cfg, t0)
	j.Line(logline.Line{Text: "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"}, t0.Add(time.Second))
	var etas, slow int
	for s := 1.0; s < 60; s += 0.5 {
		now := t0.Add(sec(s))
		j.Activity(observe.Activity{Busy: true, Detail: "cpu"}, now)
		if r := j.Tick(now); r != nil {
			t.Fatalf("decided %s at %.1fs", r.Verdict, s)
		}
		for _, e := range j.Events() {
			w, isWarning := e.Data.(observe.Warning)
			switch {
			case e.Kind() == observe.KindETA:
				etas++
			case isWarning && w.Slow:
				slow++
				if s < 40 {
					t.Errorf("slow warning at %.1fs; weights usually takes ~10s, the warning needs 2x and +30s", s)
				}
			}
		}
	}
	if etas != 1 {
		t.Errorf("%d eta events, want 1 (one phase started)", etas)
	}
	if slow != 1 {
		t.Errorf("%d slow-phase warnings, want exactly 1", slow)
	}
}

// When no rule gives a cause, the error-level lines lead the evidence and
// the summary, not the last lines (nor the warnings before them).
func TestUnknownErrorsLeadTheEvidence(t *testing.T) {
	cfg := Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second}
	cors := "0.00.008.299 W srv  llama_server: CORS is set to allow all origins ('*') and no API key is set"
	err1 := "0.00.010.071 E srv  init: the frobnicator could not be set up (code 7)"
	tests := []struct {
		name        string
		steps       []step
		rule        string
		wantSummary string
		wantFirst   string
	}{
		{
			name: "an unknown error line, then exit 1",
			steps: []step{ln(0.01, cors), ln(0.02, err1), ln(0.03, "0.00.011.849 I srv    operator(): operator(): cleaning up before exit..."),
				ex(0.1, observe.Exit{Code: 1})},
			rule:        "exit.status",
			wantSummary: "the server exited with status 1 before it was ready: init: the frobnicator could not be set up (code 7)",
			wantFirst:   err1,
		},
		{
			name:        "an unknown error line, then exiting due to",
			steps:       []step{ln(0.01, cors), ln(0.02, err1), ln(0.03, "0.00.015.197 E srv  llama_server: exiting due to frobnicator error"), ex(0.1, observe.Exit{Code: 1})},
			rule:        "exit.status",
			wantSummary: "the server gave up: init: the frobnicator could not be set up (code 7)",
			wantFirst:   err1,
		},
		{
			name:        "an unknown error line, then a signal",
			steps:       []step{ln(0.01, cors), ln(0.02, err1), ex(0.1, observe.Exit{Signal: "SIGABRT"})},
			rule:        "exit.signal",
			wantSummary: "the server was killed by SIGABRT: init: the frobnicator could not be set up (code 7)",
			wantFirst:   err1,
		},
		{
			name: "an error with a cause before the banner, then a silent exit 1",
			steps: []step{ln(0.01, "0.00.010.905 E get_repo_commit: error: HTTPS is not supported. Please rebuild with one of:"),
				ln(0.02, "0.00.010.987 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)"),
				ln(0.03, cors), ex(0.1, observe.Exit{Code: 1})},
			rule:        "llamacpp.no_https",
			wantSummary: "this build cannot download the model (no HTTPS support): get_repo_commit: error: HTTPS is not supported. Please rebuild with one of:",
			wantFirst:   "0.00.010.905 E get_repo_commit: error: HTTPS is not supported. Please rebuild with one of:",
		},
		{
			name:        "warnings only, then a stop signal from outside",
			steps:       []step{ln(0.01, cors), ex(0.1, observe.Exit{Signal: "SIGTERM"})},
			rule:        "exit.stopped",
			wantSummary: "the server was stopped by SIGTERM from another process before it was ready, with no error of its own",
			wantFirst:   cors,
		},
		{
			name:        "warnings only: the last lines",
			steps:       []step{ln(0.01, cors), ex(0.1, observe.Exit{Code: 1})},
			rule:        "exit.status",
			wantSummary: "the server exited with status 1 before it was ready, with no recognisable error",
			wantFirst:   cors,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := play(t, cfg, tt.steps, 10)
			if r == nil {
				t.Fatal("no verdict")
			}
			if r.RuleID != tt.rule || r.Summary != tt.wantSummary {
				t.Errorf("got %s %q, want %s %q", r.RuleID, r.Summary, tt.rule, tt.wantSummary)
			}
			if len(r.Evidence) == 0 || r.Evidence[0] != tt.wantFirst {
				t.Errorf("evidence %q, want %q first", r.Evidence, tt.wantFirst)
			}
		})
	}
}

// A second start of the same vLLM command keeps what history learned:
// vLLM prints its non-default args first and the engine's full config
// seconds later, and the partial line must not count as another
// configuration. A value that differs does, already on the partial line.
func TestLearnedConfigComparesLikeWithLike(t *testing.T) {
	const (
		args   = "(APIServer pid=4121) INFO 11-29 10:00:01 [utils.py:233] non-default args: {'model_tag': 'Qwen/Qwen3-8B', 'model': 'Qwen/Qwen3-8B', 'max_model_len': 32768, 'gpu_memory_utilization': 0.92}"
		engine = "(EngineCore_DP0 pid=4388) INFO 11-29 10:00:07 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='Qwen/Qwen3-8B', speculative_config=None, tokenizer='Qwen/Qwen3-8B', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=Qwen/Qwen3-8B, enable_prefix_caching=True"
	)
	t0 := time.Unix(1_800_000_000, 0)
	first := New(Config{Server: "vllm", StallAfter: time.Minute, Timeout: time.Hour}, t0)
	first.Line(logline.Line{Text: args}, t0.Add(time.Second))
	first.Line(logline.Line{Text: engine}, t0.Add(7*time.Second))
	full := first.config.Config()
	fp := srvconfig.Fingerprint("vllm", full)
	if fp == "" || fp == srvconfig.Fingerprint("vllm", srvconfig.Config{}) {
		t.Fatalf("the first start has no fingerprint: %v", full)
	}
	learned := learn.Summarise([][]learn.Phase{{{Name: "launch", Seconds: 2}, {Name: "weights", Seconds: 10}}}, []float64{12})
	tests := []struct {
		name      string
		lines     []string
		fp        string
		cfg       srvconfig.Config
		wantDrops bool
	}{
		{"partial then full, same command", []string{args, engine}, fp, full, false},
		{"another max_model_len on the partial line", []string{strings.Replace(args, "32768", "8192", 1)}, fp, full, true},
		{"a setting the learned start never printed", []string{strings.Replace(args, "}", ", 'tensor_parallel_size': 2}", 1)}, fp, full, true},
		// Without the learned configuration only fingerprints compare,
		// and the partial line differs.
		{"fingerprint only", []string{args}, fp, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := New(Config{Server: "vllm", StallAfter: time.Minute, Timeout: time.Hour,
				Learned: &learned, LearnedFingerprint: tt.fp, LearnedConfig: tt.cfg}, t0)
			for i, l := range tt.lines {
				j.Line(logline.Line{Text: l}, t0.Add(time.Duration(i+1)*time.Second))
			}
			dropped := false
			for _, e := range j.Events() {
				if w, ok := e.Data.(observe.Warning); ok && strings.Contains(w.Message, "configuration differs") {
					dropped = true
				}
			}
			if dropped != tt.wantDrops || (j.cfg.Learned == nil) != tt.wantDrops {
				t.Errorf("got dropped %v (learned kept %v), want dropped %v", dropped, j.cfg.Learned != nil, tt.wantDrops)
			}
		})
	}
}

// Attached to a startup already under way, the judge starts at the run's
// first stamp but counts the budget and the quiet from the attach: the
// lines before it, judged at their stamps' times, may come a moment after
// the first tick.
func TestAttachedCountsTheBudgetFromTheAttach(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	attach := t0.Add(45 * time.Second)
	j := New(Config{Server: "sglang", StallAfter: 5 * time.Second, Timeout: 60 * time.Second, Attached: attach}, t0)
	if r := j.Tick(attach.Add(50 * time.Millisecond)); r != nil {
		t.Fatalf("judged before the backlog was read: %+v", r)
	}
	j.Line(logline.Line{Text: "[2026-11-29 10:00:02 TP0] Load weight begin. avail mem=70 GB"}, t0.Add(2*time.Second))
	j.Line(logline.Line{Text: "[2026-11-29 10:00:45 TP0] Load weight end. type=Qwen2"}, attach)
	for now := attach; now.Before(attach.Add(59 * time.Second)); now = now.Add(time.Second) {
		j.Activity(observe.Activity{Busy: true}, now)
		if r := j.Tick(now); r != nil {
			t.Fatalf("judged %s at %v after the attach, want nothing before the budget runs out", r.Verdict, now.Sub(attach))
		}
	}
	r := j.Tick(attach.Add(60 * time.Second))
	if r == nil || r.Verdict != v.Timeout {
		t.Fatalf("got %+v, want a timeout 60 s after the attach", r)
	}
	spans := r.Phases
	if len(spans) < 2 || !spans[0].Start.Equal(t0) || !spans[1].Start.Equal(t0.Add(2*time.Second)) {
		t.Errorf("phase spans %+v, want launch at the first stamp and weights 2 s later", spans)
	}
}

// A vLLM headless node (rank > 0 of a multi-node start) never prints a
// ready line or serves /health: as a --member its engines' or workers'
// last startup line is its readiness.
func TestVLLMHeadlessMemberIsReadyOnItsLastStartupLine(t *testing.T) {
	lines := map[string]string{
		"data-parallel engine":   "(EngineCore_DP1 pid=4388) INFO 11-29 10:00:31 [core.py:210] init engine (profile, create kv cache, warmup model) took 47.91 seconds",
		"tensor-parallel worker": "(Worker_TP8 pid=5120) INFO 11-29 10:00:31 [gpu_model_runner.py:3480] Graph capturing finished in 3 secs, took 0.58 GiB",
	}
	for name, last := range lines {
		for _, member := range []bool{true, false} {
			cfg := Config{Server: "vllm", NoHealth: true, Member: member, StallAfter: 20 * time.Second, Timeout: time.Hour}
			r := play(t, cfg, []step{
				ln(0.5, "INFO 11-29 10:00:00 [api_server.py:1] Launching vLLM (v0.11.0) headless multiproc executor, with head node address 10.0.0.1 for torch.distributed process group."),
				ln(1, "(Worker_TP8 pid=5120) INFO 11-29 10:00:12 [gpu_model_runner.py:2653] Model loading took 15.2683 GiB and 4.118532 seconds"),
				ln(2, last),
			}, 10)
			switch {
			case member && (r == nil || r.Verdict != v.Ready):
				t.Errorf("%s as a member: got %+v, want ready", name, r)
			case !member && r != nil:
				t.Errorf("%s as a whole server: got %s, want no verdict without a ready line", name, r.Verdict)
			}
		}
	}
}

// A start appended to a log vigil only watches is judged as a new run:
// here llama-server's relative clock drops back to zero after a ready run
// (real lines; the second process lost its last line, "exiting due to
// model loading error", as llama-server can when it exits fast).
func TestSplitRunsRestartsOnANewProcess(t *testing.T) {
	steps := []step{
		ln(0, "0.00.006.379 I srv    load_model: loading model '/models/tiny.gguf'"),
		ln(0, "0.00.236.783 I srv  llama_server: model loaded"),
		ln(0, "0.00.236.854 I srv  llama_server: listening on http://127.0.0.1:36639"),
		ln(0, "0.00.371.009 I srv    operator(): operator(): cleaning up before exit..."),
		ln(1, "0.00.003.957 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)"),
		ln(1, "0.00.014.326 I srv    load_model: loading model '/models/truncated.gguf'"),
		ln(1, "0.00.026.936 E llama_model_load: error loading model: tensor 'token_embd.weight' data is not within the file bounds, model is corrupted or incomplete"),
		ln(1, "0.00.038.756 E cmn  common_init_: failed to load model '/models/truncated.gguf'"),
		ln(1, "0.00.038.769 I srv    operator(): operator(): cleaning up before exit..."),
		hl(1.05, starting), hl(1.1, refused),
	}
	for _, split := range []bool{true, false} {
		cfg := Config{Server: "llamacpp", SplitRuns: split, StallAfter: 10 * time.Second, Timeout: 60 * time.Second}
		r := play(t, cfg, steps, 70)
		switch {
		case split && (r == nil || r.Verdict != v.Failed || r.Cause != v.ModelLoad):
			t.Errorf("split runs: got %+v, want failed/model_load", r)
		case !split && r != nil && r.Cause == v.ModelLoad:
			t.Errorf("one run: got %s/%s; the earlier run's ready line should hold it (else this test shows nothing)", r.Verdict, r.Cause)
		}
	}
}

// TestNoConfig: a judge told its caller reads no configuration does not
// collect it, and so reaches the same verdict without it; one that has
// expectations to check collects it all the same.
func TestNoConfig(t *testing.T) {
	steps := []step{
		ln(0, "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, dtype='bfloat16')"),
		ln(1, "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70.00 GB"),
		ln(2, "[2026-11-29 10:00:02] The server is fired up and ready to roll!"),
		hl(2.1, ok200),
	}
	tp4, err := srvconfig.ParseExpect([]string{"tp=4"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cfg     Config
		verdict v.Verdict
		config  bool
	}{
		{name: "collected", cfg: Config{Server: "sglang"}, verdict: v.Ready, config: true},
		{name: "not collected", cfg: Config{Server: "sglang", NoConfig: true}, verdict: v.Ready, config: false},
		{name: "expectations need it", cfg: Config{Server: "sglang", NoConfig: true, Expect: tp4}, verdict: v.Failed, config: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.StallAfter, tt.cfg.Timeout = time.Minute, time.Hour
			r := play(t, tt.cfg, steps, 10)
			if r == nil || r.Verdict != tt.verdict {
				t.Fatalf("got %+v, want %s", r, tt.verdict)
			}
			if got := len(r.Config) > 0 && r.Fingerprint != ""; got != tt.config {
				t.Errorf("configuration collected: %v, want %v (%v, %q)", got, tt.config, r.Config, r.Fingerprint)
			}
		})
	}
}

// TestLinesBeforeTheServerIsKnown: lines read before any names the server
// are read with its catalogue once one does, each at its own time: a
// step (SGLang's untagged capture line) and an error (a node's scheduler
// exit) (users' logs, SGLang 2026).
func TestLinesBeforeTheServerIsKnown(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	j := New(Config{Readiness: LogReadiness}, t0)
	j.Line(logline.Line{Text: "[2026-06-05 18:12:33] Capture cuda graph begin. This can take up to several minutes. avail mem=20.67 GB"}, t0.Add(time.Second))
	j.Line(logline.Line{Text: "[2026-02-25 15:04:37] Scheduler or DataParallelController 848532 terminated with 255"}, t0.Add(2*time.Second))
	if j.Server() != "" || j.Phase() != v.Launch {
		t.Fatalf("server %q, phase %s before a line names it; want none, launch", j.Server(), j.Phase())
	}
	j.Line(logline.Line{Text: "[2026-06-05 18:12:40 TP0] Registering 8 cuda graph addresses"}, t0.Add(3*time.Second))
	if j.Server() != "sglang" || j.Phase() != v.CUDAGraph {
		t.Fatalf("server %q, phase %s; want sglang, cuda_graph", j.Server(), j.Phase())
	}
	r := j.Tick(t0.Add(time.Minute))
	if r == nil || r.Verdict != v.Failed || r.RuleID != "sglang.scheduler_exited" {
		t.Fatalf("got %+v; want failed by sglang.scheduler_exited", r)
	}
	if sp := r.Phases; len(sp) < 2 || sp[len(sp)-1].Phase != v.CUDAGraph || !sp[len(sp)-1].Start.Equal(t0.Add(time.Second)) {
		t.Errorf("phases %+v; want cuda_graph from the capture line's time", sp)
	}
}

// TestPhaseLastedBefore: a line that reports how long a step took
// ("Graph capturing finished in 19 secs", vLLM 0.8-0.10, which print no
// line when the capture begins) dates that step's start, no earlier than
// the step before it; a step a line announced keeps its own start.
func TestPhaseLastedBefore(t *testing.T) {
	const hdr = "(EngineCore_DP0 pid=2) INFO 05-06 10:12:02 "
	tests := []struct {
		name    string
		capture []step
		took    string
		want    float64 // cuda_graph's start, seconds
	}{
		{"not announced", nil, "Graph capturing finished in 19 secs, took 0.55 GiB", 11},
		{"longer than the step before", nil, "Graph capturing finished in 100 secs, took 0.55 GiB", 10},
		{"announced", []step{ln(12, hdr+"[gpu_model_runner.py:2] Capturing CUDA graph shapes:   0%|          | 0/35 [00:00<?, ?it/s]")},
			"Graph capturing finished in 19 secs, took 0.55 GiB", 12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps := []step{
				ln(0, hdr+"[gpu_model_runner.py:1329] Starting to load model x..."),
				ln(10, hdr+"[kv_cache_utils.py:634] GPU KV cache size: 370,352 tokens"),
			}
			steps = append(steps, tc.capture...)
			steps = append(steps, ln(30, hdr+"[gpu_model_runner.py:1686] "+tc.took), ex(31, observe.Exit{Code: 1}))
			r := play(t, Config{Server: "vllm", StallAfter: time.Minute, Timeout: time.Hour}, steps, 40)
			if r == nil {
				t.Fatal("no verdict")
			}
			t0 := time.Unix(1_800_000_000, 0)
			starts := map[v.Phase]time.Time{}
			for _, sp := range r.Phases {
				starts[sp.Phase] = sp.Start
			}
			if got := starts[v.CUDAGraph]; !got.Equal(t0.Add(time.Duration(tc.want * float64(time.Second)))) {
				t.Errorf("cuda_graph began at %v; want %vs (phases %+v)", got.Sub(t0), tc.want, r.Phases)
			}
			if got := starts[v.Warmup]; !got.Equal(t0.Add(30 * time.Second)) {
				t.Errorf("warmup began at %v; want 30s", got.Sub(t0))
			}
		})
	}
}

// TestBareAssertion: a bare AssertionError is read with the assert
// statement its traceback printed just above it, and the catalogue's rule
// for that statement names the cause (SGLang 0.4.2 with a --tp that does
// not divide the heads, a user's notes, 2025).
func TestBareAssertion(t *testing.T) {
	tb := []string{
		"[2025-02-14 02:47:45 TP0] Scheduler hit an exception: Traceback (most recent call last):",
		`  File "/sgl-workspace/sglang/python/sglang/srt/models/qwen2.py", line 105, in __init__`,
		"    assert self.total_num_heads % tp_size == 0",
		"AssertionError",
	}
	tests := []struct {
		name  string
		lines []string
		cause v.Cause
		sum   string
	}{
		{"the statement a rule knows", tb, v.Config, "AssertionError: assert self.total_num_heads % tp_size == 0"},
		{"Python 3.11's carets between", []string{tb[0], tb[1], "    assert new_spec.page_size_bytes == max_page_size", "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^", "AssertionError"}, v.Exception, "AssertionError: assert new_spec.page_size_bytes == max_page_size"},
		{"an assertion with its own message", []string{tb[0], tb[1], tb[2], "AssertionError: heads"}, v.Exception, "AssertionError: heads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Unix(1_800_000_000, 0)
			j := New(Config{Server: "sglang", Readiness: LogReadiness}, t0)
			for _, l := range tt.lines {
				j.Line(logline.Line{Text: l}, t0)
			}
			j.Exit(observe.Exit{Code: 1}, t0.Add(time.Second))
			r := j.Tick(t0.Add(time.Minute))
			if r == nil || r.Cause != tt.cause || !strings.HasSuffix(r.Summary, tt.sum) {
				t.Fatalf("got %+v; want %s ending %q", r, tt.cause, tt.sum)
			}
		})
	}
}

// TestClipAtACharacter: a clipped message is cut where a character
// starts, never inside one (a summary quoting a CJK message or a bar's
// blocks stayed valid UTF-8 only by luck).
func TestClipAtACharacter(t *testing.T) {
	tests := []struct {
		name, s string
		n       int
		want    string
	}{
		{"short", "abc", 5, "abc"},
		{"ascii", "abcdef", 3, "abc…"},
		{"inside a character", "ab█cd", 3, "ab…"},
		{"after a character", "ab█cd", 5, "ab█…"},
		{"cjk", "显存不足", 4, "显…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := clip(tt.s, tt.n)
			if got != tt.want || !utf8.ValidString(got) {
				t.Errorf("clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
		})
	}
}

// TestNoGPUBecauseOfTheDriver: torch's warning that CUDA could not start
// says why no GPU was found (TensorRT-LLM's serve.py then raises "No GPU
// devices found on the node"): a driver too old is the cause, not the
// GPUs' visibility.
func TestNoGPUBecauseOfTheDriver(t *testing.T) {
	steps := []step{
		ln(0, "[TensorRT-LLM] TensorRT-LLM version: 1.2.0"),
		ln(0.1, "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:182: UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 12020). Please update your GPU driver"),
		ln(0.2, "ValueError: No GPU devices found on the node"),
		ex(0.3, observe.Exit{Code: 1}),
	}
	r := play(t, Config{Server: "trtllm", StallAfter: time.Minute, Timeout: time.Hour}, steps, 5)
	if r == nil || r.Cause != v.CUDA || r.RuleID != "cuda.driver" || !strings.Contains(r.Summary, "too old (found version 12020)") {
		t.Fatalf("got %+v; want cuda by cuda.driver quoting the driver's version", r)
	}
	steps = append(steps[:1], steps[2:]...)
	if r := play(t, Config{Server: "trtllm", StallAfter: time.Minute, Timeout: time.Hour}, steps, 5); r == nil || r.RuleID != "cuda.no_gpu" {
		t.Fatalf("got %+v without the warning; want cuda.no_gpu", r)
	}
}

// TestPortInTheHint: the taken port's hint names the port the bind
// error gives, and PORT when it gives none.
func TestPortInTheHint(t *testing.T) {
	tests := []struct{ name, msg, want string }{
		{"uvicorn", "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use", "sport = :8000'"},
		{"tensorrt-llm", "RuntimeError: Failed to bind socket to localhost:8355: [Errno 98] Address already in use", "sport = :8355'"},
		{"llama.cpp", "main: couldn't bind HTTP server socket, hostname: 127.0.0.1, port: 8080", "sport = :8080'"},
		{"no port", "OSError: [Errno 98] Address already in use", "sport = :PORT'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hint := fillPort("`ss -ltnp 'sport = :{port}'`", tt.msg)
			if !strings.Contains(hint, tt.want) {
				t.Errorf("fillPort(%q) = %q, want it to hold %q", tt.msg, hint, tt.want)
			}
		})
	}
	r := play(t, Config{Server: "vllm", StallAfter: time.Minute, Timeout: time.Hour},
		[]step{ln(1, tests[0].msg), ex(1.1, observe.Exit{Code: 1})}, 5)
	if r == nil || r.Cause != v.PortInUse || !strings.Contains(r.Hint, "sport = :8000'") {
		t.Fatalf("got %+v; want port_in_use naming port 8000 in its hint", r)
	}
}

// TestNativeStallHint: a llama-server that stops while it loads gets a
// hint for a C++ process, not py-spy's.
func TestNativeStallHint(t *testing.T) {
	cfg := Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: time.Minute}
	r := play(t, cfg, []step{ln(0.5, "0.00.011.101 I srv    load_model: loading model 'fifo.gguf'")}, 20)
	if r == nil || r.Verdict != v.Stalled || !strings.Contains(r.Hint, "gdb -p PID") || strings.Contains(r.Hint, "py-spy") {
		t.Fatalf("got %+v; want stalled with a hint for a native process", r)
	}
}

// TestQuietFlagHint: a server that fails with its log silenced by its
// own flags gets a hint to run it without them.
func TestQuietFlagHint(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{[]string{"llama-server", "-m", "x.gguf", "--log-disable"}, "(--log-disable)"},
		{[]string{"llama-server", "-lv", "0"}, "(-lv 0)"},
		{[]string{"llama-server", "--log-file=/tmp/x.log"}, "(--log-file /tmp/x.log)"},
		{[]string{"llama-server", "-lv", "3"}, ""},
	} {
		cfg := Config{Server: "llamacpp", StallAfter: time.Minute, Timeout: time.Hour, Argv: tt.argv}
		r := play(t, cfg, []step{ex(0.2, observe.Exit{Code: 1})}, 3)
		if r == nil || r.RuleID != "exit.status" {
			t.Fatalf("%v: got %+v; want exit.status", tt.argv, r)
		}
		if got := strings.Contains(r.Hint, "run it again without that flag"); got != (tt.want != "") || !strings.Contains(r.Hint, tt.want) {
			t.Errorf("%v: hint %q; want one naming %q", tt.argv, r.Hint, tt.want)
		}
		// Without a quiet flag, llama-server's logger may have lost the
		// error (SilentExitHint).
		if logger := strings.Contains(r.Hint, "writes its log from a thread"); logger != (tt.want == "") {
			t.Errorf("%v: hint %q; want the logger's hint only without a quiet flag", tt.argv, r.Hint)
		}
	}
	// A server with no such hint keeps the generic one; so does an exit
	// after an error line.
	cfg := Config{Server: "vllm", StallAfter: time.Minute, Timeout: time.Hour}
	if r := play(t, cfg, []step{ex(0.2, observe.Exit{Code: 1})}, 3); r == nil || r.Hint != "read the last lines of the log; vigil found no known error in them" {
		t.Errorf("vllm's silent exit: %+v; want the generic hint", r)
	}
	cfg = Config{Server: "llamacpp", StallAfter: time.Minute, Timeout: time.Hour}
	if r := play(t, cfg, []step{ln(0.1, "0.00.009.645 E srv         start: something no rule knows"), ex(0.2, observe.Exit{Code: 1})}, 3); r == nil || strings.Contains(r.Hint, "writes its log from a thread") {
		t.Errorf("an exit after an error line: %+v; want no logger hint", r)
	}
}

// TestWorkerDiedSilently: vLLM's "WorkerProc initialization failed ..."
// is the cause only when no worker printed an exception before it (a
// worker killed without a word); after a worker's own error, that error
// is the account.
func TestWorkerDiedSilently(t *testing.T) {
	const ec = "(EngineCore_DP0 pid=312) ERROR 11-14 09:13:11 [core.py:708] "
	tail := []step{
		ln(2, ec+"EngineCore failed to start."),
		ln(2, ec+"Traceback (most recent call last):"),
		ln(2, ec+`  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 509, in wait_for_ready`),
		ln(2, ec+"Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause."),
		ln(2.1, "(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"),
		ex(2.2, observe.Exit{Code: 1}),
	}
	const w = "(Worker_TP2 pid=402) ERROR 11-14 09:13:11 [multiproc_executor.py:600] "
	tests := []struct {
		name        string
		before      []step
		cause       v.Cause
		rule, quote string
	}{
		{"silent", nil, v.Crash, "vllm.worker_init_failed", "WorkerProc initialization failed"},
		{"a worker's unknown exception", []step{ln(1.9, w+"Traceback (most recent call last):"), ln(1.9, w+"ValueError: the frobnicator is not set")}, v.Exception, "python.exception", "the frobnicator is not set"},
		{"a worker's known error", []step{ln(1.9, w+"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.")}, v.GPUOOM, "torch.cuda_oom", "CUDA out of memory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps := append([]step{ln(0, "(EngineCore_DP0 pid=312) INFO 11-14 09:12:26 [gpu_model_runner.py:2602] Starting to load model x...")}, tc.before...)
			r := play(t, Config{Server: "vllm", StallAfter: time.Minute, Timeout: time.Hour}, append(steps, tail...), 10)
			if r == nil || r.Cause != tc.cause || r.RuleID != tc.rule || !strings.Contains(r.Summary, tc.quote) {
				t.Fatalf("got %+v; want %s by %s quoting %q", r, tc.cause, tc.rule, tc.quote)
			}
		})
	}
}

// TestSmokeNoModel: a server that lists no model (llama-server's router
// mode started with none) is not told its model produces garbage.
func TestSmokeNoModel(t *testing.T) {
	cfg := Config{Server: "llamacpp", StallAfter: 4 * time.Second, Timeout: 40 * time.Second, Smoke: true}
	t0 := time.Unix(1_800_000_000, 0)
	j := New(cfg, t0)
	j.Line(logline.Line{Text: "0.00.010.000 I srv  llama_server: listening on http://127.0.0.1:8080"}, t0)
	j.Health(ok200, t0)
	j.Tick(t0)
	j.Smoke(observe.SmokeResult{Reason: "GET /v1/models: no model listed", Endpoint: "/v1/models", NoModel: true}, t0)
	r := j.Tick(t0)
	if r == nil || r.Cause != v.BadOutput || !strings.Contains(r.Summary, "serves no model") || strings.Contains(r.Hint, "garbage") {
		t.Fatalf("got %+v; want bad_output saying the server serves no model", r)
	}
}

// TestSmokeUnchecked: a model that generates no text and serves nothing
// vigil can judge (a classifier) is ready, its answers said not to be
// checked; an embedding model's sane answer is readiness as a chat
// model's is.
func TestSmokeUnchecked(t *testing.T) {
	tests := []struct {
		name  string
		smoke observe.SmokeResult
		quote string
	}{
		{"classifier", observe.SmokeResult{Unchecked: true, Reason: "the model generates no text and serves neither embeddings nor a ranking (a classification or reward model?): /v1/embeddings HTTP 404, /v1/rerank HTTP 404"},
			"its answers were not checked"},
		{"embeddings", observe.SmokeResult{OK: true, Endpoint: "/v1/embeddings", Latency: 40 * time.Millisecond,
			Answer: "3 embeddings of 1024 dimensions; cosine 0.91 to a paraphrase, 0.22 to an unrelated sentence"}, "answered sanely"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Server: "vllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second, Smoke: true}
			t0 := time.Unix(1_800_000_000, 0)
			j := New(cfg, t0)
			j.Line(logline.Line{Text: "(APIServer pid=1) INFO 11-14 09:13:11 [launcher.py:46] Route: /v1/embeddings, Methods: POST"}, t0)
			j.Line(logline.Line{Text: "(APIServer pid=1) INFO:     Application startup complete."}, t0)
			j.Health(ok200, t0)
			j.Tick(t0)
			j.Smoke(tt.smoke, t0)
			r := j.Tick(t0)
			if r == nil || r.Verdict != v.Ready || !strings.Contains(r.Summary, tt.quote) {
				t.Fatalf("got %+v; want ready saying %q", r, tt.quote)
			}
		})
	}
}

// TestListenURL: the address a server prints where its HTTP server
// listens is kept when the URL was guessed, whatever line says it (a
// listening line, a ready line, a serving phase marker), and never when
// the user gave the URL.
func TestListenURL(t *testing.T) {
	tests := []struct {
		name, server, line string
		guessed            bool
		want               string
	}{
		{"uvicorn", "sglang", "[2026-11-29 10:00:08] INFO:     Uvicorn running on http://0.0.0.0:30001 (Press CTRL+C to quit)", true, "http://127.0.0.1:30001"},
		{"vLLM", "vllm", "(APIServer pid=1) INFO 11-14 09:13:11 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8001", true, "http://127.0.0.1:8001"},
		{"llama-server", "llamacpp", "0.00.856.501 I srv  llama_server: listening on http://127.0.0.1:34737", true, "http://127.0.0.1:34737"},
		{"older llama-server", "llamacpp", "main: HTTP server is listening, hostname: 0.0.0.0, port: 8081, http threads: 31", true, "http://127.0.0.1:8081"},
		{"given URL", "llamacpp", "0.00.856.501 I srv  llama_server: listening on http://127.0.0.1:34737", false, ""},
		{"no address", "sglang", "[2026-11-29 10:00:08] INFO:     Application startup complete.", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := New(Config{Server: tt.server, URLGuessed: tt.guessed, StallAfter: time.Minute, Timeout: time.Hour}, time.Unix(1_800_000_000, 0))
			j.Line(logline.Line{Text: tt.line}, time.Unix(1_800_000_001, 0))
			if got := j.ListenURL(); got != tt.want {
				t.Errorf("ListenURL() = %q, want %q", got, tt.want)
			}
		})
	}
}
