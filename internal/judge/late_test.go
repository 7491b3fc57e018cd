package judge

import (
	"strings"
	"testing"
	"time"

	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// TestLateServer: a log that starts late (a pasted tail, a watch attached
// mid-start) may show the error before any line that names the server; once
// a line names it, the errors before are read with its catalogue. And a
// server's own line gone wrong moves the phase to the step it reports.
// Lines from users' reports: TGI#686 (0.9), vllm#23278 (0.10.1).
func TestLateServer(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		rule  string
		cause v.Cause
		phase v.Phase
	}{
		{
			name: "a TGI shard's error above the launcher's lines",
			lines: []string{
				`  File "/opt/conda/lib/python3.9/site-packages/text_generation_server/models/__init__.py", line 193, in get_model`,
				`    raise NotImplementedError(FLASH_ATT_ERROR_MESSAGE.format("Sharded Llama"))`,
				"NotImplementedError: Sharded Llama requires Flash Attention enabled models.",
				"2023-07-24T02:39:20.704629Z ERROR text_generation_launcher: Shard 0 failed to start",
				"Error: ShardCannotStart",
			},
			rule: "tgi.flash_attn_required", cause: v.Config,
		},
		{
			name: "vLLM's KV cache sized below zero",
			lines: []string{
				"(EngineCore_0 pid=5839) INFO 08-20 18:04:08 [core.py:75] Initializing a V1 LLM engine (v0.10.1) with config: model='openai/gpt-oss-120b'",
				"(EngineCore_0 pid=5839) INFO 08-20 18:04:22 [gpu_worker.py:276] Available KV cache memory: -2.14 GiB",
				"(EngineCore_0 pid=5839) ERROR 08-20 18:04:22 [core.py:700] EngineCore failed to start.",
			},
			rule: "vllm.kv_negative", cause: v.GPUOOM, phase: v.KVCache,
		},
		// The KV cache's own checks fail in that step, whatever came
		// before (a user's excerpt, 2026; SGLang on Ascend, 2025, whose
		// message alone names it).
		{
			name: "vLLM's KV cache check, the traceback only",
			lines: []string{
				"(EngineCore pid=316)     kv_cache_config = self._initialize_kv_caches(vllm_config)",
				"(EngineCore pid=316) ValueError: To serve at least one request with the model's max seq len (100000), (4.26 GiB KV cache is needed, which is larger than the available KV cache memory (4.25 GiB).",
			},
			rule: "vllm.max_len_kv", cause: v.GPUOOM, phase: v.KVCache,
		},
		{
			name: "SGLang's memory pool, the message only",
			lines: []string{
				"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.2",
			},
			rule: "sglang.kv_pool", cause: v.GPUOOM, phase: v.KVCache,
		},
		{
			name: "torch.compile's kernels failed to build (vllm#30441)",
			lines: []string{
				"(Worker_TP3 pid=340106) ERROR 12-10 23:42:18 [multiproc_executor.py:822]     raise CalledProcessError(retcode, cmd)",
				"(Worker_TP3 pid=340106) ERROR 12-10 23:42:18 [multiproc_executor.py:822] torch._inductor.exc.InductorError: CalledProcessError: Command '['/usr/bin/gcc', '/tmp/tmpqxw0ckl9/cuda_utils.c', '-O3', '-shared', '-fPIC']' returned non-zero exit status 1.",
			},
			rule: "torch.backend_compiler", cause: v.KernelBuild, phase: v.Compile,
		},
		{
			name: "a TensorRT-LLM rank's module failed to load (TensorRT-LLM#7818)",
			lines: []string{
				"[09/17/2025-21:24:19] [TRT-LLM] [RANK 2] [E] Error executing load_single_module with args ('model.layers.9.mlp.gate_up_proj', Linear()): CUDA out of memory. Tried to allocate 40.00 MiB. GPU 0 has a total capacity of 22.07 GiB of which 20.62 MiB is free.",
			},
			rule: "torch.cuda_oom", cause: v.GPUOOM, phase: v.Weights,
		},
		{
			name: "an exception raised while vLLM parsed its command line",
			lines: []string{
				"Traceback (most recent call last):",
				`  File "/home/xx/miniconda3/envs/vllm/bin/vllm", line 8, in <module>`,
				"    sys.exit(main())",
				`  File "/home/xx/github/vllm/vllm/entrypoints/cli/main.py", line 48, in main`,
				"    args = parser.parse_args()",
				`  File "/home/xx/github/vllm/vllm/utils.py", line 1391, in parse_args`,
				"    raise ValueError(",
				"ValueError: With `vllm serve`, you should provide the model as a positional argument or in a config file instead of via the `--model` option.",
			},
			rule: "args.parse_frame", cause: v.Config, phase: v.Launch,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := linesThenExit(t, "", tt.lines)
			if r == nil || r.Verdict != v.Failed || r.RuleID != tt.rule || r.Cause != tt.cause {
				t.Fatalf("result %+v, want failed by %s (%s)", r, tt.rule, tt.cause)
			}
			if tt.phase != "" && r.Phase != tt.phase {
				t.Errorf("phase %s, want %s", r.Phase, tt.phase)
			}
		})
	}
}

// TestClosingLineEvidence: a fatal line that only sums up ("exiting due to
// model loading error") shows the error lines no rule knows that its
// process printed just before it (a fork's option check, a user's log,
// 2026); an error a rule knows stays the root.
func TestClosingLineEvidence(t *testing.T) {
	tests := []struct {
		name     string
		lines    []string
		rule     string
		evidence []string
	}{
		{
			name: "an unknown error before the closing line",
			lines: []string{
				"0.00.264.562 I srv    load_model: loading model 'Qwen3.5-4B-Q4_K_M.gguf'",
				"0.00.264.596 E srv    load_model:  - cache: --cache-cold-max-mib requires --cache-mode hybrid",
				"0.00.265.589 E srv  llama_server: exiting due to model loading error",
			},
			rule:     "llamacpp.load_exit",
			evidence: []string{"exiting due to model loading error", "requires --cache-mode hybrid"},
		},
		{
			name: "a known error is the root",
			lines: []string{
				"0.00.003.890 E gguf_init_from_file: failed to open GGUF file 'missing.gguf' (No such file or directory)",
				"0.00.005.835 E srv  llama_server: exiting due to model loading error",
			},
			rule:     "llamacpp.gguf_open",
			evidence: []string{"failed to open GGUF file", "exiting due to model loading error"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := linesThenExit(t, "llamacpp", tt.lines)
			if r == nil || r.RuleID != tt.rule {
				t.Fatalf("result %+v, want rule %s", r, tt.rule)
			}
			if len(r.Evidence) < len(tt.evidence) {
				t.Fatalf("evidence %q, want %q first", r.Evidence, tt.evidence)
			}
			for i, e := range tt.evidence {
				if !strings.Contains(r.Evidence[i], e) {
					t.Errorf("evidence[%d] = %q, want it to hold %q (all %q)", i, r.Evidence[i], e, r.Evidence)
				}
			}
		})
	}
}

// linesThenExit plays lines 10 ms apart, then the process's exit with
// status 1, to a judge of server ("": detected), and returns its verdict.
func linesThenExit(t *testing.T, server string, lines []string) *observe.Result {
	t.Helper()
	var steps []step
	for i, l := range lines {
		steps = append(steps, ln(0.01*float64(i), l))
	}
	steps = append(steps, ex(1, observe.Exit{Code: 1}))
	return play(t, Config{Server: server, StallAfter: time.Minute, Timeout: time.Hour}, steps, 10)
}

// TestFramesDoNotSumUp: vLLM logs a whole traceback at error level; the
// summary quotes its exception, not its first frame (an LMCache user's
// EngineDeadError, 2026). The frames stay evidence.
func TestFramesDoNotSumUp(t *testing.T) {
	tag := "(APIServer pid=697224) ERROR 01-08 17:16:15 [serving_chat.py:1278] "
	dead := "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."
	r := linesThenExit(t, "vllm", []string{
		tag + `  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/output_processor.py", line 70, in get`,
		tag + "    raise output",
		tag + "              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
		tag + dead,
	})
	if r == nil || r.RuleID != "exit.status" || !strings.HasSuffix(r.Summary, ": "+dead) {
		t.Fatalf("result %+v, want the summary to quote %q", r, dead)
	}
	if len(r.Evidence) == 0 || !strings.Contains(r.Evidence[0], "output_processor.py") {
		t.Errorf("evidence %q, want the traceback's first frame first", r.Evidence)
	}
}
