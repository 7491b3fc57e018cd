package classify

import (
	"fmt"
	"testing"
)

// edgeLines are lines that exercise corners of the prefilter and of
// ParseFast: case folding, runes that lower-case to ASCII, empty
// literals, prefixes that almost match.
var edgeLines = []string{
	// llama-server --no-log-prefix: the module tag alone.
	"srv  llama_server: model loaded",
	"cmn          init: llama threadpool init, n_threads = 2",
	"slot update_slots: id  0 | task 0 | new prompt",
	"srv  no colon here",
	"spec x",
	// srun --label before a task's line (Slurm, multi-node TensorRT-LLM).
	"0: [08/04/2026-19:08:13] [TRT-LLM] [I] [_torch][RANK 0] Running CUDA graph capture for 8 batch sizes.",
	" 12: [2026-08-04 19:08:13 TP3] Load weight begin. avail mem=78.21 GB",
	"123456: [x",
	"       1: [x",
	"1:[x",
	// TensorRT-LLM 1.3: the logger's module and the rank after the level.
	"[09/04/2026-00:01:25] [TRT-LLM] [I] [_torch][RANK 1] ATTENTION RUNTIME FEATURES:  AttentionRuntimeFeatures(chunked_prefill=False)",
	"[09/04/2026-00:03:02] [TRT-LLM] [E] [executor] Failed to initialize executor on rank 0: Executor creation failed due to insufficient GPU memory.",
	// Python loggers' local times, with and without a level before them.
	"2024-07-23 22:27:23,428 [INFO] x",
	"2025-01-13 10:12:19,545\tINFO worker.py:1654 -- y",
	"2024-07-01 07:28:04.488 1 kserve ERROR z",
	"2024-07-01 07:28:04.",
	"2024-07-01 07:28:04,1234567890 x",
	"INFO 2025-03-19 08:17:28,422 instructlab.model: x",
	"ERROR 2025-03-19 08:17:28 x",
	"WARNING 2025-03-19 08:17:28,",
	// Structured lines.
	`{"timestamp":"2024-02-21T05:10:01.304586Z","level":"INFO","message":"Connected","target":"text_generation_router"}`,
	`{"timestamp":"2024-02-21T05:09:58.029562Z","level":"WARN","fields":{"message":"x\n"},"span":{"rank":3}}`,
	`{"time":"2026-01-01 10:00:00","levelname":"error","msg":"y"}`,
	`{"message":1}`,
	`{"message":"a"`,
	`{"log":"INFO 03-09 12:55:32 [api_server.py:491] x\n","stream":"stderr","time":"2026-03-09T12:55:32.1Z"}`,
	`{"log":"{\"log\":\"inner\\n\"}\n","time":"x"}`,
	`{"log":1}`,
	`{"log":"a","message":"b"}`,
	// What container runtimes and the journal put before a line.
	"Aug 23 18:09:58 dgx qwen3.8-27b-vllm-896k.sh[742182]: (EngineCore pid=742182) INFO 08-23 18:09:58 [x.py:1] y",
	"Aug  3 18:09:58 dgx kernel: x",
	"Aug 23 18:09:58 dgx a b: x",
	"Aug 23 18:09:58 dgx : x",
	"Aug 23 18:09:58.123456 dgx vllm[7]: (APIServer pid=7) INFO 08-23 18:09:58 [x.py:1] y",
	"Aug 23 18:09:58.1234567 dgx vllm[7]: seven digits",
	"Aug 23 18:09:58.12345 dgx vllm[7]: five digits",
	"2026-08-23T18:09:58+02:00 dgx vllm[7]: (APIServer pid=7) INFO 08-23 18:09:58 [x.py:1] y",
	"2026-08-23T18:09:58.123456-0530 dgx llama-server[7]: main: loading model",
	"2026-08-23T18:09:58+02:0 dgx x[7]: a short zone",
	"2026-08-23T18:09:58+02:00 x",
	"2026-08-23T18:09:58+02:00 dgx a b: x",
	"qwen3.5-9b  | (APIServer pid=1) INFO 03-09 12:55:32 [api_server.py:491] Supported tasks: ['generate']",
	"[pod/vllm-7d9f8c6b5-x2k4q/vllm] (APIServer pid=1) INFO 03-09 12:55:32 [api_server.py:491] Supported tasks: ['generate']",
	"[pod/sglang-0/] [2026-09-22 06:49:56] server_args={'model_path': '/m'}",
	"[pod/sglang-0/server]",
	"[pod/x/y/z] three parts",
	"[pod//c] no pod",
	"vllm-1  | 2026-03-09T12:55:32.123456789Z (APIServer pid=1) INFO 03-09 12:55:32 [api_server.py:496] Starting vLLM server on http://0.0.0.0:8000",
	"2026-09-22T06:49:56.336833841Z [2026-09-22 06:49:56] server_args={'model_path': '/m'}",
	"2026-09-22T06:49:56.336833841Z 2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Args {",
	"2026-05-01 18:57:24.911 | 0.21.162.989 I srv  load_model: loading model 'm.gguf'",
	"2026-05-01 18:57:24.911 |",
	"Model   | Params",
	"a | b",
	" x  | y",
	"2026-09-22T06:49:56.Z x",
	"2026-09-22T06:49:56.336833841+02:00 stdout F INFO 09-22 06:49:56 [x.py:1] y",
	"2026-09-22T06:49:56Z stderr P x",
	"2026-09-22T06:49:56Z stderr X x",
	"2026-09-22T06:49:56Z stdout F",
	"2026-09-22T06:49:56+0200 x",
	"2026-09-22T06:49:56+02:00  INFO text_generation_launcher: x",
	"2026-09-22T06:49:56Z",
	// TGI's header, the cases its hand-written cutter must get right.
	"2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Args {",
	"2026-01-08T10:00:00Z INFO shard-manager: text_generation_launcher: Starting shard rank=0",
	"2026-01-08T10:00:00.1Z\tWARN text_generation_router::server::x: router/src/server.rs:1812: Connected",
	"2026-01-08T10:00:00.Z INFO text_generation_launcher: no digits after the dot",
	"2026-01-08T10:00:00.123 INFO no Z",
	"2026-01-08T10:00:00Z WARNING text_generation_launcher: not a TGI level",
	"2026-01-08T10:00:00Z ERROR download_text_generation: download: x.rs:12: y.rs:3: z",
	"2026-01-08T10:00:00Z DEBUG text_generation_router::: a.rs:1:2: rest",
	"2026-01-08T10:00:00Z TRACE warmup:x webserver: .rs:1: src/main.rs:x: ",
	"2026-01-08T10:00:00Z  INFO  my_text_generation_thing::a::b: src/a-b/c.d.rs:99: rank=3",
	"2026-01-08T10:00:00Z INFO",
	"2026-01-08T10:00:00Z INFO ",
	"",
	" ",
	"\t",
	"RuntimeError: CUDA out of memory",
	"runtimeerror: cuda OUT OF MEMORY on device",
	"This CAN BE IGNORED",
	"This can be \u0130gnored",        // İ lower-cases to "i"
	"Capture cuda graph begin \u212a", // the Kelvin sign lower-cases to "k"
	"\u212aV cache is allocated",      // "KV" spelled with a Kelvin sign
	"Loading safetensors checkpoint shards: 50% Completed | 2/4 [00:01<00:01, 1.9it/s]",
	"x 5%   Completed   |   1/20",
	"5% |",
	"%|",
	"(EngineCore_DP0 pid=7) INFO 05-19 10:00:01 [core.py:866] EngineCore failed to start.",
	"(EngineCore_DP0 pid=7)INFO 05-19 10:00:01 [core.py:866]Initializing a V1 LLM engine",
	"(a pid= pid=5) INFO 05-19 10:00:01 [x:1] y",
	"(a (pid=5) INFO 05-19 10:00:01 [x:1] y",
	"(a pid=5x) hello",
	"INFO 05-19 10:00:01.123 [x.py:1] ok",
	"INFO 05-19 10:00:01. [x.py:1] ok",
	"INFO 05-19 10:00:01 [:1] ok",
	"INFO 05-19 10:00:01 [[:1] ok",
	"INFO 05-19 10:00:01 x.py:12] old header",
	"WARNING 05-19 10:00:01 [x.py:1]",
	"INFOX 05-19 10:00:01 [x.py:1] no",
	"[2026-05-24 00:52:39] x",
	"[2026-05-24 00:52:39.1234567] seven digits",
	"[2026-05-24 00:52:39.123456 TP0] six digits",
	"[2026-05-24 00:52:39 TP0 DP_1] ranks",
	"[2026-05-24 00:52:39 TP] rank without number",
	"[2026-05-24 00:52:39 tp0] lower-case rank",
	"[2026-05-24 00:52:39 TP0x] trailing letter",
	"[2026-05-24 00:52:39]no space",
	"[1999-01-01 00:00:00] old",
	"[gpu_id=12] Load weight begin",
	"[gpu_id=] empty",
	"[gpu_id=3]x",
	"[TRT-LLM] [I] Starting",
	"[11/29/2026-10:00:00] [TRT-LLM] [MPI_Rank 3] [E] Failed to bind socket to x",
	"[TensorRT-LLM][ERROR] CUDA out of memory",
	"[rank0]:[W1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] Warning: x",
	"[E1218 20:27:21.4 x.cpp:1] NCCL error",
	"2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Args { model_id: \"x\" }",
	"2026-01-08T10:00:00Z ERROR shard-manager: text_generation_launcher: Shard 0 failed to start rank=0",
	"INFO:     Application startup complete.",
	"INFO:Application startup complete.",
	"ERROR:\t[Errno 98] address already in use",
	"0.00.347.618 W common_init_from_params: warming up",
	"W x",
	"I  double space",
	"12.5 not a llama prefix at all here",
	"/usr/lib/x.py:12: UserWarning: CUDA initialization",
	"/usr/lib/x.py:12: something Warning: no",
	"  File \"x.py\", line 1, in <module>",
	"    raise RuntimeError(\"Not enough memory\")",
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
	"AssertionError",
	"KeyError: 'x'",
	"error: nothing",
	"Killed",
	"\x1b[1;36m(EngineCore pid=7)\x1b[0;0m ERROR 05-19 10:00:01 [core.py:866] EngineCore failed to start.",
	"bad utf8 \xff\xfe CUDA out of \xc3memory",
	"Exit code: -9",
	"Traceback (most recent call last):",
}

// corpus is every line of the real-shaped log plus the edge lines.
func corpus(tb testing.TB) []string {
	tb.Helper()
	seen := map[string]bool{}
	var out []string
	for _, l := range append(realShapedLog(tb, 1), edgeLines...) {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

var allProfiles = []*Profile{sglang, vllm, trtllm, llamacpp, tgi, generic}

func sameClass(a, b Class) bool {
	if a.Parsed != b.Parsed || a.Phase != b.Phase || a.Back != b.Back || a.Failure != b.Failure ||
		a.Exception != b.Exception || a.Traceback != b.Traceback || a.Benign != b.Benign || a.Ready != b.Ready || a.NoHTTP != b.NoHTTP ||
		a.Notable != b.Notable || a.KernelRule != b.KernelRule || a.PhaseRule != b.PhaseRule ||
		a.Waiting != b.Waiting || a.Listening != b.Listening {
		return false
	}
	if (a.Kernel == nil) != (b.Kernel == nil) || a.Kernel != nil && *a.Kernel != *b.Kernel {
		return false
	}
	if (a.Progress == nil) != (b.Progress == nil) {
		return false
	}
	return a.Progress == nil || *a.Progress == *b.Progress
}

func describe(c Class) string {
	id, notable := "", ""
	if c.Failure != nil {
		id = c.Failure.ID
	}
	if c.Notable != nil {
		notable = c.Notable.ID
	}
	return fmt.Sprintf("phase %q back %v progress %v failure %q notable %q kernel %+v exception %v traceback %v benign %v ready %v nohttp %v waiting %v listening %v parsed %+v",
		c.Phase, c.Back, c.Progress != nil, id, notable, c.Kernel, c.Exception, c.Traceback, c.Benign, c.Ready, c.NoHTTP, c.Waiting, c.Listening, c.Parsed)
}

func TestClassifyMatchesReference(t *testing.T) {
	lines := corpus(t)
	for _, pr := range allProfiles {
		name := pr.Name
		if name == "" {
			name = "generic"
		}
		t.Run(name, func(t *testing.T) {
			for _, l := range lines {
				got, want := pr.Classify(l), pr.classifySlow(l)
				if !sameClass(got, want) {
					t.Errorf("Classify(%q)\ngot  %s\nwant %s", l, describe(got), describe(want))
				}
			}
		})
	}
}

func TestParseFastMatchesParse(t *testing.T) {
	for _, l := range corpus(t) {
		if got, want := ParseFast(l), Parse(l); got != want {
			t.Errorf("ParseFast(%q)\ngot  %+v\nwant %+v", l, got, want)
		}
	}
}

func TestMaybeProgress(t *testing.T) {
	for _, l := range corpus(t) {
		msg := Parse(l).Msg
		if _, ok := ParseProgress(msg); ok && !MaybeProgress(msg) {
			t.Errorf("MaybeProgress(%q) = false, but ParseProgress parses it", msg)
		}
	}
}

func TestGuards(t *testing.T) {
	tests := []struct {
		name, re    string
		exact, fold []string
		ok          bool
	}{
		{"literal", `CUDA out of memory`, []string{"CUDA out of memory"}, nil, true},
		{"alternation", `DistBackendError|DistNetworkError`, []string{"BackendError", "NetworkError"}, nil, true},
		{"anchored with class", `^Capture .*graph (begin|bs)`, []string{"Capture "}, nil, true},
		{"optional part has no guard", `a?`, nil, nil, false},
		{"case-insensitive, cut at s and k", `(?i)kv cache`, nil, []string{"v cache"}, true},
		{"class only", `\d+`, nil, nil, false},
		{"alternative without literal", `abc|\d+`, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := guardOf(tt.re)
			if g.ok != tt.ok || fmt.Sprint(g.exact) != fmt.Sprint(tt.exact) || fmt.Sprint(g.folded) != fmt.Sprint(tt.fold) {
				t.Errorf("guardOf(%q) = ok %v exact %q folded %q, want ok %v exact %q folded %q",
					tt.re, g.ok, g.exact, g.folded, tt.ok, tt.exact, tt.fold)
			}
		})
	}
}

// TestGuardsAllowMatches checks every rule's guard against the corpus: a
// guard may never refuse a line its expression matches.
func TestGuardsAllowMatches(t *testing.T) {
	// Each line as a rule sees it (its message) and whole; parsed once.
	var msgs []string
	for _, l := range corpus(t) {
		msgs = append(msgs, l)
		if m := Parse(l).Msg; m != l {
			msgs = append(msgs, m)
		}
	}
	for _, p := range allLazyRegexps {
		re := p.Regexp()
		for _, msg := range msgs {
			lower := func() string { return foldString(msg) }
			if re.MatchString(msg) && !p.g.allows(msg, lower) {
				t.Errorf("guard of %q refuses %q, which it matches", re, msg)
			}
		}
	}
}

func BenchmarkParseFast(b *testing.B) {
	lines := realShapedLog(b, 4<<20)
	for b.Loop() {
		for _, l := range lines {
			ParseFast(l)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(lines)), "ns/line")
}

func TestHitSetNext(t *testing.T) {
	h := make(hitSet, 3)
	for _, b := range []int{0, 5, 63, 64, 130} {
		h.set(b)
	}
	tests := []struct{ from, end, want int }{
		{0, 192, 0}, {1, 192, 5}, {6, 192, 63}, {64, 192, 64}, {65, 192, 130},
		{131, 192, -1}, {1, 5, -1}, {6, 63, -1}, {66, 130, -1}, {0, 0, -1},
	}
	for _, tt := range tests {
		if got := h.next(tt.from, tt.end); got != tt.want {
			t.Errorf("next(%d, %d) = %d, want %d", tt.from, tt.end, got, tt.want)
		}
	}
}

// TestBuiltinPrefilterOnce checks that a built-in profile's prefilter is
// built once and kept, and that profiles do not share one.
func TestBuiltinPrefilterOnce(t *testing.T) {
	a, b := prefilterOf(vllm), prefilterOf(vllm)
	if a != b {
		t.Errorf("vllm's prefilter was built twice")
	}
	if prefilterOf(sglang) == a {
		t.Errorf("sglang and vllm share a prefilter")
	}
}

// FuzzMayHaveContainer: the cheap test passes every line CutContainer
// cuts, and turns away llama-server's "|"-separated lines.
func FuzzMayHaveContainer(f *testing.F) {
	for _, s := range []string{
		"qwen3.5-9b  | (APIServer pid=1) INFO 03-09 12:55:32 [api_server.py:491] Supported tasks",
		"2026-09-22T06:49:56.336833841Z 0.03.660.922 I main: loading model",
		"2026-05-01 18:57:24.911 | INFO: Started server process",
		"Aug 23 18:09:57 dgx vllm.sh[742182]: INFO 08-23 18:09:57 [api_server.py:1] x",
		"slot launch_slot_: id  0 | task 1205 | processing task",
	} {
		f.Add(s)
	}
	if MayHaveContainer("slot launch_slot_: id  0 | task 1205 | processing task") {
		f.Error("MayHaveContainer passes a llama-server slot line")
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, _, _ := CutContainer(s); n > 0 && !MayHaveContainer(s) {
			t.Errorf("CutContainer(%q) cuts %d bytes, MayHaveContainer says no", s, n)
		}
	})
}
