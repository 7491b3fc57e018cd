package life

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

func TestJudge(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type step struct {
		at     time.Duration
		line   string
		health observe.HealthState
		exit   *observe.Exit
	}
	cases := []struct {
		name     string
		server   string
		stopping bool
		steps    []step
		how      string
		cause    v.Cause
		evidence string
	}{
		{name: "cuda crash then exit", server: "vllm", steps: []step{
			{at: time.Second, line: "RuntimeError: CUDA error: an illegal memory access was encountered"},
			{at: 2 * time.Second, exit: &observe.Exit{Code: 1}},
		}, how: Died, cause: v.CUDA, evidence: "illegal memory access"},
		{name: "plain exit is a crash", server: "sglang", steps: []step{
			{at: time.Second, line: "INFO:     127.0.0.1:4242 - \"POST /generate HTTP/1.1\" 200 OK"},
			{at: 2 * time.Second, exit: &observe.Exit{Signal: "SIGSEGV"}},
		}, how: Died, cause: v.Crash, evidence: "killed by SIGSEGV"},
		{name: "kernel OOM kill", server: "sglang", steps: []step{
			{at: 2 * time.Second, exit: &observe.Exit{Signal: "SIGKILL", OOMRecord: "Out of memory: Killed process 42 (python)"}},
		}, how: Died, cause: v.HostOOM, evidence: "Killed process 42"},
		{name: "health failing past the threshold", server: "sglang", steps: []step{
			{at: time.Second, health: observe.HealthOK},
			{at: 2 * time.Second, health: observe.HealthError},
			{at: 30 * time.Second, health: observe.HealthError},
			{at: 63 * time.Second},
		}, how: Hung, cause: v.Health, evidence: "health: error"},
		{name: "health recovering is not a hang", server: "sglang", steps: []step{
			{at: 2 * time.Second, health: observe.HealthError},
			{at: 50 * time.Second, health: observe.HealthOK},
			{at: 100 * time.Second},
		}},
		{name: "sglang watchdog and no exit", server: "sglang", steps: []step{
			{at: time.Second, line: "[2026-01-01 00:00:01] Watchdog timeout (self.watchdog_timeout=300)"},
			{at: 12 * time.Second},
		}, how: Hung, cause: v.Crash, evidence: "Watchdog timeout"},
		{name: "vllm engine dead then exit", server: "vllm", steps: []step{
			{at: time.Second, line: "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."},
			{at: 3 * time.Second, exit: &observe.Exit{Code: 1}},
		}, how: Died, cause: v.Crash, evidence: "EngineDeadError"},
		{name: "a runtime OOM", server: "vllm", steps: []step{
			{at: time.Second, line: "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB"},
			{at: 2 * time.Second, exit: &observe.Exit{Code: 1}},
		}, how: Died, cause: v.GPUOOM, evidence: "CUDA out of memory"},
		{name: "a stop asked for", server: "tgi", stopping: true, steps: []step{
			{at: 3 * time.Second, exit: &observe.Exit{Signal: "SIGTERM"}},
		}, how: Stopped},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lj := New(Config{Server: tc.server, Stopping: func() bool { return tc.stopping }})
			var end *End
			for _, s := range tc.steps {
				now := t0.Add(s.at)
				if s.line != "" {
					lj.Line(s.line, now)
				}
				if s.health != "" {
					lj.Health(observe.Health{State: s.health}, now)
				}
				if s.exit != nil {
					end = lj.Exit(*s.exit, now)
					break
				}
				if end = lj.Tick(now); end != nil {
					break
				}
			}
			if tc.how == "" {
				if end != nil {
					t.Fatalf("ended %s (%s), want still serving", end.How, end.Summary)
				}
				return
			}
			if end == nil {
				t.Fatalf("no end, want %s", tc.how)
			}
			if end.How != tc.how || end.Cause != tc.cause {
				t.Errorf("end %s/%s, want %s/%s (%s)", end.How, end.Cause, tc.how, tc.cause, end.Summary)
			}
			if tc.evidence != "" && !strings.Contains(strings.Join(end.Evidence, "\n"), tc.evidence) {
				t.Errorf("evidence %q lacks %q", end.Evidence, tc.evidence)
			}
		})
	}
}

func TestOffline(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		lines []string
		cause v.Cause
		// stopped: the life ended in a shutdown, not a death.
		stopped bool
		after   time.Duration
	}{
		{name: "serving", lines: []string{`INFO:     127.0.0.1:1 - "POST /v1/completions HTTP/1.1" 200 OK`}},
		{name: "cuda fault", lines: []string{
			`INFO:     127.0.0.1:1 - "POST /v1/completions HTTP/1.1" 200 OK`,
			"RuntimeError: CUDA error: an illegal memory access was encountered",
			"vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.",
		}, cause: v.CUDA, after: time.Hour},
		// The engine's death, then the worker's quoted error (vLLM on
		// Ascend, an Ascend user's compose log, 2025).
		{name: "a worker's quoted error", lines: []string{
			"(EngineCore_DP0 pid=413) ERROR 11-10 12:30:57 [core.py:710] EngineCore encountered a fatal error.",
			"(EngineCore_DP0 pid=413) ERROR 11-10 12:30:57 [core.py:710] RuntimeError: Worker failed with error 'NPU out of memory. Tried to allocate 326.00 MiB (NPU 0; 60.96 GiB total capacity)', please check the stack trace above for the root cause",
		}, cause: v.GPUOOM},
		{name: "a shard died", lines: []string{"2026-01-01T10:00:00Z ERROR text_generation_launcher: Shard 1 crashed"}, cause: v.Crash},
		// A compose log cut inside the engine core's traceback, its
		// header lost (vllm-ascend#5772, 2026).
		{name: "the engine core's busy loop raised", lines: []string{
			`ocr-paddle-vl-2  | (EngineCore_DP0 pid=36)   File "/vllm-workspace/vllm/vllm/v1/engine/core.py", line 919, in _process_engine_step`,
			"ocr-paddle-vl-2  | (EngineCore_DP0 pid=36)     outputs, model_executed = self.step_fn()",
			"ocr-paddle-vl-2  | (EngineCore_DP0 pid=36) IndexError: list index out of range",
		}, cause: v.Crash},
		// A request's error in the API server leaves it serving.
		{name: "a request's traceback", lines: []string{
			`(APIServer pid=1) ERROR 01-12 01:32:33 [serving_chat.py:1] Error in preprocessing prompt inputs`,
			`(APIServer pid=1)   File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/serving_chat.py", line 240, in create_chat_completion`,
			"(APIServer pid=1) ValueError: the prompt is too long",
		}},
		// llama.cpp tools/server/server.cpp (a user's log, 2026), then
		// what it prints while it tears down.
		{name: "shut down, then noise", lines: []string{
			`INFO:     127.0.0.1:1 - "POST /v1/completions HTTP/1.1" 200 OK`,
			"24.22.405.566 I srv    operator(): operator(): cleaning up before exit...",
			"RuntimeError: CUDA error: an illegal memory access was encountered",
		}, stopped: true, after: time.Hour},
		// llama-server's router unloads one of its model servers and goes
		// on (a user's log, 2026).
		{name: "a router's model server stops", lines: []string{"[35373] 0.19.885.359 I srv    operator(): operator(): cleaning up before exit..."}},
		{name: "uvicorn's end", lines: []string{"(APIServer pid=1) INFO:     Finished server process [1]"}, stopped: true},
		// vLLM 0.6's multiprocessing engine died at a request, and the
		// server shut itself down (a user's log, 2024).
		{name: "vllm v0's engine dead, then its own shutdown", lines: []string{
			"ERROR 12-06 14:09:37 client.py:282] RuntimeError('Engine process (pid 16470) died.')",
			"CRITICAL 12-06 14:09:39 launcher.py:99] MQLLMEngine is already dead, terminating server process",
			"INFO:     Shutting down",
			"INFO:     Application shutdown complete.",
		}, cause: v.Crash},
		// vLLM 0.25 and SGLang stopped by SIGTERM on a DGX Spark (a
		// user's logs, 2026): what the stop makes them print after is no
		// death.
		{name: "vllm's shutdown, then its engine dead", lines: []string{
			"(EngineCore pid=23397) INFO 08-01 21:34:51 [core.py:1214] [shutdown] EngineCore: trigger received signal=SIGTERM",
			"(APIServer pid=23283) INFO 08-01 21:34:51 [launcher.py:100] [shutdown] API server: shutdown triggered",
			"(APIServer pid=23283) ERROR 08-01 21:34:51 [async_llm.py:693] AsyncLLM output_handler failed.",
			"(APIServer pid=23283) ERROR 08-01 21:34:51 [async_llm.py:693] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
		}, stopped: true},
		{name: "sglang's SIGTERM, then its detokenizer's exit", lines: []string{
			"[2026-08-02 00:17:43] SIGTERM received. signum=None frame=None. Draining requests and shutting down...",
			"[2026-08-02 00:17:43] Subprocess detokenizer (pid=31379) crashed with exit code -15. Triggering SIGQUIT for cleanup...",
		}, stopped: true},
		// llama-server b9849 on Vulkan, its last line (2026).
		{name: "llama.cpp's context freed", lines: []string{"0.35.029.294 W ~llama_context:    Vulkan0 compute buffer size of 679.1215 MiB, does not match expectation of 625.2188 MiB"}, stopped: true},
		{name: "died, then shut down", lines: []string{
			"RuntimeError: CUDA error: an illegal memory access was encountered",
			"INFO:     Application shutdown complete.",
		}, cause: v.CUDA},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lj := New(Config{Server: "vllm"})
			for i, l := range tc.lines {
				lj.Line(l, t0.Add(time.Duration(i)*time.Hour))
			}
			end := lj.Offline()
			if tc.stopped {
				if end == nil || end.How != Stopped || end.Cause != "" || end.At != t0.Add(tc.after) {
					t.Fatalf("end %+v, want stopped at +%s", end, tc.after)
				}
				return
			}
			if tc.cause == "" {
				if end != nil {
					t.Fatalf("ended %+v, want still serving", end)
				}
				return
			}
			if end == nil || end.Cause != tc.cause || end.At != t0.Add(tc.after) {
				t.Fatalf("end %+v, want %s at +%s", end, tc.cause, tc.after)
			}
		})
	}
}

// TestRuleLiterals: a rule's literals pass every line its expression
// matches, so skipping the expression on lines without them changes nothing.
func TestRuleLiterals(t *testing.T) {
	lines := []string{
		"[2026-01-01 00:00:00] Watchdog timeout (self.watchdog_timeout=300)",
		"watchdog timeout (300 s)",
		"vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.",
		"AsyncEngineDeadError: Background loop has errored already.",
		"ERROR: Engine loop has died",
		"ERROR EngineCore encountered a fatal error.",
		"ERROR text_generation_launcher: Shard 0 crashed",
		"Shard 1 terminated",
		"Shard process was signaled to shutdown with signal 9",
		"[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1)",
		"INFO:     127.0.0.1:5000 - \"POST /v1/completions HTTP/1.1\" 200 OK",
		"Shard ready in 3.2s",
		`ocr-paddle-vl-2  | (EngineCore_DP0 pid=36)   File "/vllm-workspace/vllm/vllm/v1/engine/core.py", line 919, in _process_engine_step`,
		`(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]   File "/data/mnj/code/vllm/vllm/v1/engine/core.py", line 886, in run_busy_loop`,
		"",
	}
	lits, masks := ruleLits()
	for i, r := range Rules {
		if len(r.lits) == 0 {
			t.Errorf("%s: no literals", r.ID)
		}
		for _, l := range lines {
			if r.re.Get().MatchString(l) && lits.Scan(l)&masks[i] == 0 {
				t.Errorf("%s matches %q, but its literals do not pass it", r.ID, l)
			}
		}
	}
}

// TestOfflineHealth: a finished log whose health answers fail to its end
// reads as a hang from the first of them; a good answer after them, one
// failing answer alone, or a line that said why wins over them.
func TestOfflineHealth(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ok := observe.Health{State: observe.HealthOK, Code: 200, Seen: "200 line"}
	bad := func(code int) observe.Health {
		return observe.Health{State: observe.HealthOther, Code: code, Seen: fmt.Sprintf("%d line", code)}
	}
	cases := []struct {
		name    string
		answers []observe.Health
		line    string // a line after the answers
		how     string // "": still serving
		at      int    // the answer the hang starts at
		summary string
	}{
		{name: "serving", answers: []observe.Health{ok, ok}},
		{name: "one failing answer", answers: []observe.Health{ok, bad(503)}},
		{name: "failing to the end", answers: []observe.Health{ok, bad(503), bad(503), bad(500)},
			how: Hung, at: 1, summary: "3 answers in a row, the last HTTP 500"},
		{name: "recovered", answers: []observe.Health{bad(503), bad(503), ok}},
		{name: "failing again after recovering", answers: []observe.Health{bad(503), ok, bad(503), bad(503)},
			how: Hung, at: 2, summary: "2 answers in a row, the last HTTP 503"},
		{name: "a death line wins", answers: []observe.Health{bad(503), bad(503)},
			line: "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.", how: Died},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lj := New(Config{Server: "vllm"})
			for i, h := range tc.answers {
				lj.Health(h, t0.Add(time.Duration(i)*time.Minute))
			}
			if tc.line != "" {
				lj.Line(tc.line, t0.Add(time.Hour))
			}
			end := lj.Offline()
			if tc.how == "" {
				if end != nil {
					t.Fatalf("ended %+v, want still serving", end)
				}
				return
			}
			if end == nil || end.How != tc.how {
				t.Fatalf("end %+v, want %s", end, tc.how)
			}
			if tc.how != Hung {
				return
			}
			if end.Cause != v.Health || end.At != t0.Add(time.Duration(tc.at)*time.Minute) || !strings.HasSuffix(end.Summary, tc.summary) {
				t.Errorf("end %+v, want health from answer %d, summary ending %q", end, tc.at, tc.summary)
			}
			last := tc.answers[len(tc.answers)-1].Seen
			if len(end.Evidence) == 0 || end.Evidence[0] != tc.answers[tc.at].Seen || end.Evidence[len(end.Evidence)-1] != last {
				t.Errorf("evidence %q, want the first and the last failing answer", end.Evidence)
			}
		})
	}
}

// TestEvidenceKeepsTheException: a traceback longer than the evidence
// still shows its exception, the line that says what went wrong (vLLM
// on Ascend, a user's log, 2026).
func TestEvidenceKeepsTheException(t *testing.T) {
	lines := []string{
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868] EngineCore encountered a fatal error.",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868] Traceback (most recent call last):",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]   File \"/data/mnj/code/vllm/vllm/v1/engine/core.py\", line 859, in run_engine_core",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]     engine_core.run_busy_loop()",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]   File \"/data/mnj/code/vllm/vllm/v1/engine/core.py\", line 886, in run_busy_loop",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]     self._process_engine_step()",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]   File \"/data/mnj/code/vllm/vllm/v1/engine/core.py\", line 919, in _process_engine_step",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]     outputs, model_executed = self.step_fn()",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]                               ^^^^^^^^^^^^^^",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]   File \"/data/mnj/code/vllm/vllm/v1/engine/core.py\", line 358, in step",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]     engine_core_outputs = self.scheduler.update_from_output(",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]   File \"/data/mnj/code/vllm/vllm/v1/core/sched/scheduler.py\", line 1223, in update_from_output",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]     self._update_from_kv_xfer_finished(kv_connector_output)",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]   File \"/data/mnj/code/vllm/vllm/v1/core/sched/scheduler.py\", line 1650, in _update_from_kv_xfer_finished",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]     assert req_id in self.requests",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868]            ^^^^^^^^^^^^^^^^^^^^^^^",
		"(EngineCore_DP0 pid=1194930) ERROR 01-12 01:32:33 [core.py:868] AssertionError",
	}
	lj := New(Config{Server: "vllm"})
	at := time.Date(2026, 1, 12, 1, 32, 33, 0, time.UTC)
	for _, l := range lines {
		lj.Line(l, at)
	}
	end := lj.Offline()
	if end == nil || end.How != Died {
		t.Fatalf("end %+v, want died", end)
	}
	ev := end.Evidence
	if len(ev) != maxEvidence || ev[0] != lines[0] || !strings.HasSuffix(ev[len(ev)-1], "] AssertionError") {
		t.Errorf("evidence %q; want the engine's death first and the AssertionError last, %d lines", ev, maxEvidence)
	}
}
