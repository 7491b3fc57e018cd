package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// playArgs is `vigil run ... -- vigil play SCENARIO --port P -- ARGV` for a
// scenario whose argv is given.
func playArgs(t *testing.T, scenario string, port int, vigilArgs []string, argv ...string) []string {
	t.Helper()
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	args := append([]string{"run", "--json", "--url", url}, vigilArgs...)
	args = append(args, "--", vigilBin, "play", scenario, "--port", strconv.Itoa(port), "--")
	return append(args, argv...)
}

// The same startup judged three times builds a history: the third run
// shows an ETA per phase and learns its --timeout and --stall-after, and
// `vigil history --json` lists all three with their phases and config.
func TestHistoryBuildsETAAndLearnedWindows(t *testing.T) {
	t.Parallel()
	needVigil(t)
	takeSlot(t)
	sb := newSandbox(t)
	scen := filepath.Join(repoRoot(t), "e2e", "testdata", "scenarios", "sglang-quick-ready.json")
	argv := []string{"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-0.6B"}
	var last []event
	for i := 1; i <= 3; i++ {
		port := freePort(t)
		p := startVigil(t, sb.env, playArgs(t, scen, port, nil, argv...)...)
		if !p.wait(t, 60*time.Second) {
			t.Fatalf("run %d did not finish:\n%s", i, p.excerpt())
		}
		events, verdict, problems := parseEvents(p.stdout.Bytes())
		if len(problems) > 0 || verdict.str("verdict") != "ready" {
			t.Fatalf("run %d: verdict %q, problems %v\n%s", i, verdict.str("verdict"), problems, p.excerpt())
		}
		killGroup(int(verdict["pid"].(float64)))
		last = events
		if i < 3 {
			for _, e := range events {
				if e.str("event") == "eta" && i == 1 {
					t.Errorf("run 1 shows an ETA without any history: %v", e)
				}
			}
		}
	}
	var etas int
	var learned bool
	for _, e := range last {
		switch e.str("event") {
		case "eta":
			etas++
		case "note":
			if strings.Contains(e.str("message"), "learned --timeout") {
				learned = true
			}
		}
	}
	if etas == 0 {
		t.Error("the third run shows no ETA")
	}
	if !learned {
		t.Error("the third run did not learn its --timeout from the history")
	}

	// A slowed-down copy: the weights take 34 s longer (loading visibly,
	// so it is no stall). The history says weights take under a second,
	// so the judge warns while the phase still progresses.
	slow := slowedCopy(t, scen, sb.path("slow.json"), 34)
	port := freePort(t)
	p := startVigil(t, sb.env, playArgs(t, slow, port, nil, argv...)...)
	if !p.wait(t, 90*time.Second) {
		t.Fatalf("the slowed run did not finish:\n%s", p.excerpt())
	}
	events, verdict, _ := parseEvents(p.stdout.Bytes())
	if verdict.str("verdict") != "ready" {
		t.Fatalf("slowed run: verdict %q, want ready\n%s", verdict.str("verdict"), p.excerpt())
	}
	killGroup(int(verdict["pid"].(float64)))
	warned := false
	for _, e := range events {
		if e.str("event") == "warning" && strings.Contains(e.str("message"), "weights is slow") {
			warned = true
		}
	}
	if !warned {
		t.Error("the slowed-down run drew no slow-phase warning")
	}

	p = startVigil(t, sb.env, "history", "--json")
	if !p.wait(t, 20*time.Second) || p.code != 0 {
		t.Fatalf("vigil history --json failed:\n%s", p.excerpt())
	}
	var hist []map[string]any
	if err := json.Unmarshal(p.stdout.Bytes(), &hist); err != nil {
		t.Fatalf("history --json is not a JSON array: %v\n%s", err, p.stdout.String())
	}
	if len(hist) != 4 {
		t.Fatalf("history has %d startups, want 4", len(hist))
	}
	for _, k := range []string{"id", "started_at", "server", "model", "verdict", "cause", "total_s", "phases", "config"} {
		if _, ok := hist[0][k]; !ok {
			t.Errorf("history entry lacks %q: %v", k, hist[0])
		}
	}
	if hist[0]["model"] != "Qwen/Qwen3-0.6B" || hist[0]["verdict"] != "ready" {
		t.Errorf("newest entry = %v", hist[0])
	}
}

// A second identical vLLM start gets an ETA: vLLM prints its non-default
// args seconds before the engine's full config, and that partial line is
// compared with what the first start printed of the same settings, not
// with its whole fingerprint.
func TestSecondVLLMStartGetsAnETA(t *testing.T) {
	t.Parallel()
	needVigil(t)
	takeSlot(t)
	sb := newSandbox(t)
	scen := filepath.Join(repoRoot(t), "e2e", "testdata", "scenarios", "vllm-quick-ready.json")
	argv := []string{"vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "32768", "--gpu-memory-utilization", "0.92"}
	for i := 1; i <= 2; i++ {
		port := freePort(t)
		p := startVigil(t, sb.env, playArgs(t, scen, port, nil, argv...)...)
		if !p.wait(t, 60*time.Second) {
			t.Fatalf("run %d did not finish:\n%s", i, p.excerpt())
		}
		events, verdict, problems := parseEvents(p.stdout.Bytes())
		if len(problems) > 0 || verdict.str("verdict") != "ready" {
			t.Fatalf("run %d: verdict %q, problems %v\n%s", i, verdict.str("verdict"), problems, p.excerpt())
		}
		killGroup(int(verdict["pid"].(float64)))
		etas := 0
		for _, e := range events {
			switch {
			case e.str("event") == "eta":
				etas++
			case strings.Contains(e.str("message"), "configuration differs"):
				t.Errorf("run %d: %s", i, e.str("message"))
			}
		}
		if i == 1 && etas > 0 {
			t.Errorf("run 1 shows %d ETAs without any history", etas)
		}
		if i == 2 && etas == 0 {
			t.Errorf("the second identical start shows no ETA\n%s", p.excerpt())
		}
	}
}

// --expect fails a startup as soon as the printed configuration shows
// another value, within a second of the configuration line, for SGLang
// (server_args) and vLLM (the engine's config line).
func TestExpectMismatch(t *testing.T) {
	needVigil(t)
	root := repoRoot(t)
	cases := []struct {
		name, scenario, expect string
		configAt, by           float64
		argv                   []string
	}{
		{"sglang tp", "sglang-ready-qwen25-7b-single-gpu.json", "tp=4", 0.2, 1.2 + 1.5,
			[]string{"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct"}},
		{"vllm quantization", "vllm-v1-normal-compile-silence.json", "quantization=fp8", 7.5, 8.5 + 1.5,
			[]string{"vllm", "serve", "Qwen/Qwen3-8B"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			takeSlot(t)
			sb := newSandbox(t)
			port := freePort(t)
			scen := filepath.Join(root, "testdata", "scenarios", "shared", tc.scenario)
			p := startVigil(t, sb.env, playArgs(t, scen, port, []string{"--no-history", "--stall-after", "4s", "--expect", tc.expect}, tc.argv...)...)
			if !p.wait(t, 60*time.Second) {
				t.Fatalf("vigil did not finish:\n%s", p.excerpt())
			}
			_, verdict, _ := parseEvents(p.stdout.Bytes())
			if verdict.str("verdict") != "failed" || verdict.str("cause") != "config" || p.code != 1 {
				t.Fatalf("got %s/%s exit %d, want failed/config exit 1\n%s", verdict.str("verdict"), verdict.str("cause"), p.code, p.excerpt())
			}
			if took := p.exited.Sub(p.started).Seconds(); took > tc.by {
				t.Errorf("decided after %.1fs, want by %.1fs (config line at %.1fs)", took, tc.by, tc.configAt)
			}
			if ev := strings.Join(evidence(verdict), " "); !strings.Contains(ev, tc.expect) {
				t.Errorf("evidence %q does not show the expectation", ev)
			}
		})
	}
}

// slowedCopy writes a copy of the scenario in which everything after "Load
// weight begin" happens extra seconds later, with a progress bar filling
// the gap.
func slowedCopy(t *testing.T, src, dst string, extra float64) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var sc map[string]any
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	var out []any
	shift := 0.0
	for _, ev := range sc["timeline"].([]any) {
		e := ev.(map[string]any)
		e["t"] = e["t"].(float64) + shift
		out = append(out, e)
		if line, ok := e["err"].(string); ok && strings.Contains(line, "Load weight begin") {
			out = append(out, map[string]any{"t": e["t"].(float64) + 0.1, "progress": map[string]any{
				"fmt": "Loading safetensors checkpoint shards: {pct:3d}% Completed | {i}/{n} [{el}<{eta}, {rate:.2f}it/s]",
				"n":   62, "dur": extra, "cr": true}})
			shift = extra + 0.2
		}
	}
	sc["timeline"] = out
	sc["id"] = "slowed"
	b, _ = json.Marshal(sc)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// watch attached after a startup has got far (here: after it failed, the
// process gone) times the phases already in the log by the lines' own
// stamps, not all at the moment of attaching: the history keeps 38 s of
// weights, not 0.0 s.
func TestWatchAttachedLateTimesPhasesByStamps(t *testing.T) {
	needVigil(t)
	sb := newSandbox(t)
	log := sb.path("server.log")
	lines := []string{
		"[2026-11-29 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-14B-Instruct', tokenizer_path='Qwen/Qwen2.5-14B-Instruct', dtype='auto', quantization=None, tp_size=1, mem_fraction_static=0.88, port=30000)",
		"[2026-11-29 10:00:01 TP0] Init torch distributed begin.",
		"[2026-11-29 10:00:02 TP0] Load weight begin. avail mem=44.12 GB",
		"[2026-11-29 10:00:40 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=14.57 GB",
		"[2026-11-29 10:00:45 TP0] Scheduler hit an exception: Traceback (most recent call last):",
		`  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/model_executor/model_runner.py", line 752, in init_memory_pool`,
		"    raise RuntimeError(",
		"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
		"[2026-11-29 10:00:45] Received sigquit from a child process. It usually means the child failed.",
	}
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startVigil(t, sb.env, "watch", "--json", "--log", log, "--url", "http://127.0.0.1:1", "--stall-after", "5s", "--timeout", "60s")
	if !p.wait(t, 60*time.Second) {
		t.Fatalf("watch did not finish:\n%s", p.excerpt())
	}
	_, verdict, _ := parseEvents(p.stdout.Bytes())
	if verdict.str("verdict") != "failed" || verdict.str("cause") != "gpu_oom" {
		t.Fatalf("verdict %s/%s, want failed/gpu_oom\n%s", verdict.str("verdict"), verdict.str("cause"), p.excerpt())
	}
	p = startVigil(t, sb.env, "history", "--json")
	if !p.wait(t, 20*time.Second) || p.code != 0 {
		t.Fatalf("vigil history --json failed:\n%s", p.excerpt())
	}
	var hist []struct {
		TotalS float64            `json:"total_s"`
		Phases map[string]float64 `json:"phases"`
		Mode   string             `json:"mode"`
	}
	if err := json.Unmarshal(p.stdout.Bytes(), &hist); err != nil || len(hist) != 1 {
		t.Fatalf("history --json: %v, %d entries\n%s", err, len(hist), p.stdout.String())
	}
	h := hist[0]
	if w := h.Phases["weights"]; w < 37.5 || w > 38.5 {
		t.Errorf("weights took %.1fs by the history, want 38s (the stamps'): %+v", w, h)
	}
	if h.TotalS < 45 {
		t.Errorf("total %.1fs, want at least the 45 s the stamps span: %+v", h.TotalS, h)
	}
}
