package judge

import (
	"cmp"
	"strings"
	"testing"
	"time"

	"vigil/internal/logline"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// TestLogReadiness: offline, the same readiness rules read the health
// answers of the access log with LogReadiness's numbers.
func TestLogReadiness(t *testing.T) {
	const (
		sgArgs  = "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')"
		sgLoad  = "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"
		sgReady = "[2026-11-29 10:00:05] The server is fired up and ready to roll!"
		vlLoad  = "(EngineCore_DP0 pid=1) INFO 11-29 10:00:00 [gpu_model_runner.py:1] Starting to load model x..."
		vlUp    = "(APIServer pid=1) INFO:     Application startup complete."
		noise   = "(APIServer pid=1) INFO:     a line"
	)
	answer := func(at float64, code int) step {
		h := observe.Health{State: observe.HealthOther, Code: code, Seen: "GET /health " + string(rune('0'+code/100)) + "xx"}
		switch {
		case code == 200:
			h.State = observe.HealthOK
		case code == 503:
			h.State = observe.HealthStarting
		}
		return hl(at, h)
	}
	lines := func(at float64, n int) []step {
		var out []step
		for range n {
			out = append(out, ln(at, noise))
		}
		return out
	}
	cat := func(parts ...[]step) []step {
		var out []step
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	start := []step{ln(0, sgArgs), ln(1, sgLoad), ln(5, sgReady)}
	up := []step{ln(0, vlLoad), ln(3, vlUp)}
	tests := []struct {
		name    string
		server  string
		steps   []step
		end     float64 // the log's last moment
		verdict v.Verdict
		cause   v.Cause
		phase   v.Phase
		rule    string
		at      float64 // the verdict's time
		// evidence is a substring the evidence must hold.
		evidence string
	}{
		{name: "a ready line alone is believed, as of the line", server: "sglang", steps: start, end: 5,
			verdict: v.Ready, phase: v.PhaseReady, at: 5},
		{name: "two answers that are not good after the ready line", server: "sglang",
			steps: cat(start, []step{answer(8, 503), answer(8, 503)}), end: 30,
			verdict: v.Failed, cause: v.Health, phase: v.Weights, rule: "health.after_ready", at: 5, evidence: "GET /health 5xx"},
		{name: "a good answer confirms the ready line", server: "sglang",
			steps: cat(start, []step{answer(8, 503), answer(8, 200), answer(9, 500), answer(9, 500)}), end: 30,
			verdict: v.Ready, phase: v.PhaseReady, at: 5},
		{name: "bad answers after the wait are the life's, not the start's", server: "sglang",
			steps: cat(start, []step{answer(16, 500), answer(16, 500)}), end: 30,
			verdict: v.Ready, phase: v.PhaseReady, at: 5},
		{name: "stamps that stand still: the wait is counted in lines", server: "sglang",
			steps: cat(start, lines(5, 200), []step{answer(5, 500), answer(5, 500)}), end: 5,
			verdict: v.Ready, phase: v.PhaseReady, at: 5},
		{name: "a listening server with no answer against it", server: "vllm", steps: cat(up, lines(4, 3)), end: 20,
			verdict: v.Ready, phase: v.PhaseReady, at: 3, evidence: "no error and no bad health answer"},
		{name: "a listening server, the log ends at once", server: "vllm", steps: up, end: 3,
			verdict: v.Ready, phase: v.PhaseReady, at: 3},
		{name: "a listening server answering 500 twice as the log ends", server: "vllm",
			steps: cat(up, []step{answer(4, 500), answer(5, 500)}), end: 5,
			verdict: v.Failed, cause: v.Health, phase: v.Serving},
		{name: "one 500 may be a hiccup", server: "vllm",
			steps: cat(up, []step{answer(4, 500)}), end: 5},
		// TGI's router says "Connected" and then binds its port
		// (router/src/server.rs).
		{name: "a ready line, then the port cannot be bound", server: "tgi",
			steps: []step{ln(0, "2026-01-08T10:00:00.000000Z  INFO text_generation_launcher: Starting shard rank=0"),
				ln(4, "2026-01-08T10:00:29.000000Z  INFO text_generation_router::server: router/src/server.rs:2302: Connected"),
				ln(4, "2026-01-08T10:00:29.000000Z ERROR text_generation_router::server: router/src/server.rs:2325: Failed to bind to 0.0.0.0:3000: Address already in use (os error 98)")}, end: 5,
			verdict: v.Failed, cause: v.PortInUse, phase: v.Weights, rule: "tgi.router_bind", at: 4, evidence: "Failed to bind to 0.0.0.0:3000"},
		{name: "a bind failure after the wait is the life's, not the start's", server: "tgi",
			steps: []step{ln(0, "2026-01-08T10:00:00.000000Z  INFO text_generation_launcher: Starting shard rank=0"),
				ln(4, "2026-01-08T10:00:29.000000Z  INFO text_generation_router::server: router/src/server.rs:2302: Connected"),
				ln(20, "2026-01-08T10:00:45.000000Z ERROR text_generation_router::server: router/src/server.rs:2325: Failed to bind to 0.0.0.0:3000: Address already in use (os error 98)")}, end: 30,
			verdict: v.Ready, phase: v.PhaseReady, at: 4},
		{name: "a ready-line server is not ready by listening", server: "sglang",
			steps: []step{ln(0, sgArgs), ln(1, "INFO:     Application startup complete.")}, end: 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Unix(1_800_000_000, 0)
			j := New(Config{Server: tt.server, Readiness: LogReadiness}, t0)
			var r *observe.Result
			for _, s := range tt.steps {
				at := t0.Add(sec(s.at))
				if s.health != nil {
					j.Health(*s.health, at)
				} else {
					j.Line(logline.Line{Text: s.line}, at)
				}
				if r = j.Tick(at); r != nil {
					break
				}
			}
			if r == nil {
				r = j.LogEnds(t0.Add(sec(tt.end)))
			}
			if tt.verdict == "" {
				if r != nil {
					t.Fatalf("got %s/%s (%s), want no verdict", r.Verdict, r.Cause, r.Summary)
				}
				return
			}
			if r == nil {
				t.Fatalf("no verdict, want %s/%s", tt.verdict, tt.cause)
			}
			if r.Verdict != tt.verdict || r.Cause != tt.cause || r.Phase != tt.phase || r.RuleID != tt.rule {
				t.Errorf("got %s/%s in %s (rule %q: %s), want %s/%s in %s (rule %q)", r.Verdict, r.Cause, r.Phase, r.RuleID, r.Summary, tt.verdict, tt.cause, tt.phase, tt.rule)
			}
			if tt.at != 0 && !r.At.Equal(t0.Add(sec(tt.at))) {
				t.Errorf("decided as of %s, want %s", r.At.Sub(t0), sec(tt.at))
			}
			if tt.evidence != "" && !strings.Contains(strings.Join(r.Evidence, "\n"), tt.evidence) {
				t.Errorf("evidence %q lacks %q", r.Evidence, tt.evidence)
			}
		})
	}
}

// TestLiveReadinessIsTheDefault: a judge given no numbers takes the live
// ones, so a ready line waits for the prober's good answer.
func TestLiveReadinessIsTheDefault(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	j := New(Config{Server: "sglang"}, t0)
	j.Line(logline.Line{Text: "[2026-11-29 10:00:05] The server is fired up and ready to roll!"}, t0)
	if r := j.Tick(t0.Add(time.Hour)); r != nil {
		t.Fatalf("ready line without an answer: got %s, want no verdict yet", r.Verdict)
	}
	j.Health(ok200, t0.Add(time.Hour))
	if r := j.Tick(t0.Add(time.Hour)); r == nil || r.Verdict != v.Ready {
		t.Fatalf("after a 200: got %+v, want ready", r)
	}
}

// TestBeginsServing: offline, a log with a line only a started server
// prints (a crash pasted without its start), or a request it served,
// before any step of a start, was ready before it began.
func TestBeginsServing(t *testing.T) {
	handler := "(APIServer pid=1) ERROR 02-08 12:05:52 [async_llm.py:693] AsyncLLM output_handler failed."
	tests := []struct {
		name, server string
		before       []string // lines fed first
		line         string
		want         bool
		named        string // the server named then (default vllm)
	}{
		{name: "vllm's output handler, the server not yet named", line: handler, want: true},
		{name: "vllm's output handler, vllm named", server: "vllm", line: handler, want: true},
		{name: "a line fed before it", before: []string{"(APIServer pid=1) INFO 02-08 12:05:40 [api_server.py:1395] vLLM API server version 0.15.0"}, line: handler},
		{name: "a startup's first line", line: "(APIServer pid=1) INFO 02-08 12:05:40 [api_server.py:1395] vLLM API server version 0.15.0"},
		{name: "another server's", server: "sglang", line: handler},
		// A request's step raised (an Ascend user's compose log, 2025).
		{name: "vllm's input dump", line: "qwen3-vl-32b  | (EngineCore_DP0 pid=413) ERROR 11-10 12:30:57 [dump_input.py:69] Dumping input data for V1 LLM engine (v0.11.0) with config: model='/root/.cache/Qwen3-VL-32B-Instruct'", want: true},
		// A compose log cut inside the engine core's traceback
		// (vllm-ascend#5772, 2026).
		{name: "vllm's busy loop in a traceback", line: "ocr-paddle-vl-2  | (EngineCore_DP0 pid=36)     self._process_engine_step()", want: true},
		// Users' tails of serving (vLLM on Ascend, SGLang with LMCache,
		// 2025): a request logged, a decode batch's stats, a request that
		// failed with 500, a failed step's dump.
		{name: "vllm's request log, the server not yet named", line: "INFO 09-03 07:50:59 [logger.py:41] Received request chatcmpl-b3678bb5415c4440b811f5d3598e1323: prompt: 'x'", want: true},
		{name: "sglang's decode stats", line: "[2025-06-26 02:16:20 TP0] Decode batch. #running-req: 1, #token: 2102, token usage: 0.51, cuda graph: True, gen throughput (token/s): 93.51, #queue-req: 0", want: true, named: "sglang"},
		{name: "a request that failed", server: "vllm", line: `INFO:     127.0.0.1:54321 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error`, want: true},
		{name: "vllm's scheduler dump", line: "qwen3-vl-32b  | (EngineCore_DP0 pid=413) ERROR 11-10 12:30:57 [dump_input.py:76] Dumping scheduler output for model execution: SchedulerOutput(scheduled_new_reqs=[])", want: true},
		// Ray Serve LLM's replica, a request into a dead engine
		// (ray#53267, 2025).
		{name: "vllm's engine dead at a request", line: "(ServeReplica:default:LLMDeploymentqwen-0_5b pid=14262) vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.", want: true},
		// A fork of llama-server on Windows, its log's last lines (2026).
		{name: "llama.cpp's slot at work", line: "26.12.365.673 W slot create_check: id  3 | task 11647 | created context checkpoint 32 of 32 (pos_min = 135669, pos_max = 135669, n_tokens = 135670, size = 682.175 MiB)", want: true, named: "llamacpp"},
		{name: "a request served", line: "May 21 07:22:52 helium-cuda llm-server-start[59332]: srv  log_server_r: done request: POST /v1/chat/completions 192.168.122.1 200", want: true, named: "llamacpp"},
		{name: "sglang's warmup request", server: "sglang", line: `[2026-05-19 09:38:34] INFO:     127.0.0.1:43162 - "POST /generate HTTP/1.1" 200 OK`},
		// TGI#2280: a tail of the launcher's lines.
		{name: "tgi's launcher after its shards' lines", before: []string{"2024-07-22T19:57:05.908774Z  INFO shard-manager: text_generation_launcher: shard terminated rank=3"}, line: "Error: ShardFailed", want: true, named: "tgi"},
		{name: "a served request after a step", server: "vllm", before: []string{"(EngineCore_DP0 pid=1) INFO 06-11 11:46:30 [gpu_model_runner.py:1] Starting to load model x..."}, line: `(APIServer pid=1) INFO:     127.0.0.1:4 - "POST /v1/completions HTTP/1.1" 200 OK`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Unix(1_800_000_000, 0)
			j := New(Config{Server: tt.server, Readiness: LogReadiness}, t0)
			for _, l := range tt.before {
				j.Line(logline.Line{Text: l}, t0)
			}
			if got := j.BeginsServing(tt.line, t0); got != tt.want {
				t.Fatalf("BeginsServing = %v, want %v", got, tt.want)
			}
			r := j.Tick(t0)
			if !tt.want {
				if r != nil {
					t.Errorf("got %s (%s), want no verdict", r.Verdict, r.Summary)
				}
				return
			}
			named := cmp.Or(tt.named, "vllm")
			if r == nil || r.Verdict != v.Ready || r.Server != named || len(r.Evidence) != 1 || r.Evidence[0] != tt.line {
				t.Fatalf("got %+v, want %s ready with the line as evidence", r, named)
			}
		})
	}
}
