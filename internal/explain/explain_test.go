package explain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vigil/internal/explain/scenlog"
	"vigil/internal/scenario"
	v "vigil/internal/verdict"
)

// start is when rendered scenarios begin; now is when they are explained.
var (
	start = time.Date(2026, 5, 1, 10, 0, 0, 0, time.Local)
	now   = start.Add(time.Hour)
)

func scenarioFiles(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob("../../testdata/scenarios/*.json")
	shared, _ := filepath.Glob("../../testdata/scenarios/shared/*.json")
	files = append(files, shared...)
	if len(files) == 0 {
		t.Fatal("no scenarios in testdata")
	}
	return files
}

// render is a scenario's log as its player would have written it.
func render(t testing.TB, file string) (*scenario.Scenario, []byte) {
	t.Helper()
	sc, err := scenario.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := scenlog.Write(&buf, sc, start); err != nil {
		t.Fatal(err)
	}
	return sc, buf.Bytes()
}

func readAll(t testing.TB, r io.Reader, opts Options) []*Run {
	t.Helper()
	if opts.Now.IsZero() {
		opts.Now = now
	}
	var runs []*Run
	if err := Read(r, opts, func(r *Run) { runs = append(runs, r) }); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return runs
}

// oneRun reads log, which must hold one run, and returns it.
func oneRun(t testing.TB, log string, opts Options) *Run {
	t.Helper()
	runs := readAll(t, strings.NewReader(log), opts)
	if len(runs) != 1 {
		t.Fatalf("got %d runs, want 1", len(runs))
	}
	return runs[0]
}

// offline is what a scenario's expectation becomes when only its log is
// known: stalls and timeouts are runs without a verdict, and whether a
// ready server answers sanely (bad_output) cannot be told.
func offline(e scenario.Expect) (v.Verdict, v.Cause, v.Phase) {
	switch {
	case e.Verdict == v.Stalled || e.Verdict == v.Timeout:
		return "", "", e.Phase
	case e.Cause == v.BadOutput:
		return v.Ready, "", v.PhaseReady
	}
	return e.Verdict, e.Cause, e.Phase
}

// TestScenarios: the log of every scenario, explained offline, gives the
// scenario's verdict, cause and phase; a stale log is a run of its own.
func TestScenarios(t *testing.T) {
	for _, file := range scenarioFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			sc, log := render(t, file)
			runs := readAll(t, bytes.NewReader(log), Options{})
			wantRuns := 1
			if len(sc.StaleLog) > 0 {
				wantRuns = 2
			}
			if len(runs) != wantRuns {
				t.Fatalf("got %d runs, want %d", len(runs), wantRuns)
			}
			last := runs[len(runs)-1]
			verdict, cause, phase := offline(sc.Expect)
			if last.Verdict != verdict || last.Cause != cause {
				t.Errorf("verdict %q cause %q, want %q %q (%s)", last.Verdict, last.Cause, verdict, cause, last.Summary)
			}
			if phase != "" && last.Phase != phase {
				t.Errorf("phase %q, want %q", last.Phase, phase)
			}
			// A log that never names its server (an argument error before
			// anything is printed) is judged with the generic profile.
			if last.Server != "" && last.Server != sc.Server {
				t.Errorf("server %q, want %q", last.Server, sc.Server)
			}
			if last.Verdict == v.Failed && (len(last.Evidence) == 0 || last.Hint == "") {
				t.Errorf("a failure needs evidence and a hint: evidence %q, hint %q", last.Evidence, last.Hint)
			}
			if last.Verdict == "" && !strings.Contains(last.Summary, "ended in phase "+string(last.Phase)+" without a verdict") {
				t.Errorf("summary %q, want it to say where the run ended", last.Summary)
			}
			for _, r := range runs {
				// Offline, vigil probed nothing and no time passed after
				// the last line.
				for _, e := range r.Evidence {
					if strings.HasPrefix(e, "[vigil] GET") {
						t.Errorf("run %d: evidence %q claims a probe", r.Index, e)
					}
				}
				total := 0.0
				for _, p := range r.Phases {
					total += p.Seconds
				}
				if r.Timed && total > r.End.Sub(r.Start).Seconds()+0.01 {
					t.Errorf("run %d: phases add up to %.1fs, longer than the run's %s", r.Index, total, r.End.Sub(r.Start))
				}
			}
		})
	}
}

// TestTwoRuns: a failed start and the restart after it are two runs, each
// judged on its own lines, with its own times and line numbers.
func TestTwoRuns(t *testing.T) {
	failed, err := scenario.Load("../../testdata/scenarios/vllm-gpu-oom-no-cache-blocks-32b.json")
	if err != nil {
		t.Fatal(err)
	}
	ready, err := scenario.Load("../../testdata/scenarios/vllm-ready-llama31-8b-v021.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	end, _ := scenlog.Write(&buf, failed, start)
	firstLines := int64(bytes.Count(buf.Bytes(), []byte("\n")))
	restart := end.Add(2 * time.Minute).Truncate(time.Second)
	scenlog.Write(&buf, ready, restart)

	runs := readAll(t, bytes.NewReader(buf.Bytes()), Options{})
	if len(runs) != 2 {
		t.Fatalf("got %d runs, want 2", len(runs))
	}
	tests := []struct {
		name    string
		run     *Run
		verdict v.Verdict
		cause   v.Cause
		first   int64
		start   time.Time
	}{
		{"stale failure", runs[0], v.Failed, v.GPUOOM, 1, start},
		{"restart", runs[1], v.Ready, "", firstLines + 1, restart},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.run
			if r.Index != i+1 || r.Verdict != tt.verdict || r.Cause != tt.cause {
				t.Errorf("run %d: %q %q, want run %d %q %q", r.Index, r.Verdict, r.Cause, i+1, tt.verdict, tt.cause)
			}
			if r.FirstLine != tt.first {
				t.Errorf("first line %d, want %d", r.FirstLine, tt.first)
			}
			if !r.Timed || !r.Start.Equal(tt.start) {
				t.Errorf("start %v (timed %v), want %v", r.Start, r.Timed, tt.start)
			}
		})
	}
	if got, want := runs[0].Lines+runs[1].Lines, int64(bytes.Count(buf.Bytes(), []byte("\n"))); got != want {
		t.Errorf("the runs hold %d + %d lines, want %d in all", runs[0].Lines, runs[1].Lines, want)
	}
}

// TestPhaseDurations: the phases' durations come from the lines' stamps.
func TestPhaseDurations(t *testing.T) {
	_, log := render(t, "../../testdata/scenarios/sglang-ready-llama31-8b-tp1.json")
	runs := readAll(t, bytes.NewReader(log), Options{})
	r := runs[len(runs)-1]
	total := 0.0
	seen := map[v.Phase]bool{}
	for _, p := range r.Phases {
		if !p.Timed {
			t.Fatalf("phase %s untimed in a stamped log", p.Name)
		}
		total += p.Seconds
		seen[p.Name] = true
	}
	for _, want := range []v.Phase{v.Launch, v.Weights, v.KVCache, v.CUDAGraph, v.PhaseReady} {
		if !seen[want] {
			t.Errorf("no phase %s in %+v", want, r.Phases)
		}
	}
	// The scenario prints its ready line 9 s after its first.
	if total < 8 || total > 10 {
		t.Errorf("phases add up to %.1fs, want about 9s", total)
	}
}

// TestServerOption: --server decides the profile even for a log that does
// not name its server.
func TestServerOption(t *testing.T) {
	log := "loading\nAssertionError: Memory pool size is too small\n"
	tests := []struct {
		server string
		cause  v.Cause
	}{
		{"sglang", v.GPUOOM},
		{"", v.Exception},
	}
	for _, tt := range tests {
		t.Run("server="+tt.server, func(t *testing.T) {
			runs := readAll(t, strings.NewReader(log), Options{Server: tt.server})
			if len(runs) != 1 || runs[0].Cause != tt.cause {
				t.Errorf("got %+v, want one run failed with %q", runs, tt.cause)
			}
		})
	}
}

func TestEmptyInput(t *testing.T) {
	if runs := readAll(t, strings.NewReader(""), Options{}); len(runs) != 0 {
		t.Errorf("got %d runs from nothing", len(runs))
	}
}

// TestReadError: a failing reader ends in an error, after the runs read.
func TestReadError(t *testing.T) {
	_, log := render(t, "../../testdata/scenarios/sglang-ready-llama31-8b-tp1.json")
	r := io.MultiReader(bytes.NewReader(log), errReader{})
	n := 0
	err := Read(r, Options{Now: now}, func(*Run) { n++ })
	if err == nil || n != 1 {
		t.Errorf("Read = %v after %d runs, want an error after 1", err, n)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestSmallChunks: runs do not depend on where reads cut the input.
func TestSmallChunks(t *testing.T) {
	var all bytes.Buffer
	for _, file := range scenarioFiles(t)[:12] {
		_, log := render(t, file)
		all.Write(log)
	}
	want := readAll(t, bytes.NewReader(all.Bytes()), Options{})
	got := readAll(t, io.Reader(&oneByOne{b: all.Bytes(), n: 777}), Options{})
	if len(got) != len(want) {
		t.Fatalf("got %d runs reading in small pieces, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Verdict != want[i].Verdict || got[i].Cause != want[i].Cause || got[i].FirstLine != want[i].FirstLine {
			t.Errorf("run %d: %q %q line %d, want %q %q line %d", i+1, got[i].Verdict, got[i].Cause, got[i].FirstLine,
				want[i].Verdict, want[i].Cause, want[i].FirstLine)
		}
	}
}

// oneByOne reads at most n bytes at a time.
type oneByOne struct {
	b []byte
	n int
}

func (o *oneByOne) Read(p []byte) (int, error) {
	if len(o.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), o.n)], o.b)
	o.b = o.b[k:]
	return k, nil
}

// TestMemoryFlat streams a large generated log through Read and checks
// that the heap stays small: nothing keeps the log.
func TestMemoryFlat(t *testing.T) {
	size := int64(200 << 20)
	if testing.Short() || raceEnabled {
		size = 16 << 20
	}
	var pieces [][]byte
	for _, file := range scenarioFiles(t) {
		_, log := render(t, file)
		pieces = append(pieces, log)
	}
	// A long serving stretch, so that one run spans many chunks.
	serving := bytes.Repeat([]byte("[2026-05-01 10:00:09] INFO:     127.0.0.1:4242 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n"), 40000)
	pieces = append(pieces, serving)
	gen := &generator{pieces: pieces, left: size}

	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The live heap that the last collection marked: what the reader
		// keeps, whatever the collector's pace on a busy machine.
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			metrics.Read(live)
			if v := live[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
		}
	}()
	n := 0
	if err := Read(gen, Options{Now: now}, func(*Run) { n++ }); err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-done
	if n < len(pieces)-1 {
		t.Errorf("only %d runs in %d MB", n, size>>20)
	}
	if p := peak.Load(); p > 40<<20 {
		t.Errorf("live heap peaked at %d MB reading %d MB, want under 40 MB", p>>20, size>>20)
	}
	t.Logf("%d runs in %d MB, live heap peaked at %.1f MB", n, size>>20, float64(peak.Load())/(1<<20))
}

// generator repeats pieces until left bytes are out.
type generator struct {
	pieces [][]byte
	i      int
	cur    []byte
	left   int64
}

func (g *generator) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, io.EOF
	}
	if len(g.cur) == 0 {
		g.cur = g.pieces[g.i%len(g.pieces)]
		g.i++
	}
	n := copy(p[:min(int64(len(p)), g.left)], g.cur)
	g.cur = g.cur[n:]
	g.left -= int64(n)
	return n, nil
}

// TestLateStamps: a run whose first lines carry no stamp is timed from its
// first stamp, not from the epoch.
func TestLateStamps(t *testing.T) {
	log := strings.Repeat("preparing the environment\n", 70) +
		"[2026-05-01 10:00:00] server_args=ServerArgs(model_path='x')\n" +
		"[2026-05-01 10:00:05 TP0] Load weight begin. avail mem=70.00 GB\n" +
		"[2026-05-01 10:00:09] The server is fired up and ready to roll!\n"
	runs := readAll(t, strings.NewReader(log), Options{})
	if len(runs) != 1 {
		t.Fatalf("got %d runs, want the preamble and its start as one", len(runs))
	}
	r := runs[0]
	if r.Verdict != v.Ready || r.Summary != "sglang is ready after 9.0s" {
		t.Errorf("verdict %q, summary %q; want ready after 9.0s", r.Verdict, r.Summary)
	}
	total := 0.0
	for _, p := range r.Phases {
		total += p.Seconds
	}
	if total != 9 {
		t.Errorf("phases add up to %vs, want 9s: %+v", total, r.Phases)
	}
}

// BenchmarkReadDense explains a log of startups back to back, every
// scenario in turn: nearly every line is startup output that the judge
// reads (the worst case; a real log is mostly serving traffic, which a
// ready run only counts).
func BenchmarkReadDense(b *testing.B) {
	var log []byte
	for _, file := range scenarioFiles(b) {
		sc, err := scenario.Load(file)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		scenlog.Write(&buf, sc, start.Add(time.Duration(len(log))*time.Millisecond))
		log = append(log, buf.Bytes()...)
	}
	for len(log) < 8<<20 {
		log = append(log, log...)
	}
	lines := bytes.Count(log, []byte("\n"))
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for range b.N {
		n := 0
		if err := Read(bytes.NewReader(log), Options{Now: now}, func(*Run) { n++ }); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatal("no runs")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}

// TestEndsUnhealthy: a log that ends in bad health answers (the server was
// stopped while /health said 500) is a health failure once two answers in
// a row were bad; one may be a hiccup.
func TestEndsUnhealthy(t *testing.T) {
	_, log := render(t, "../../testdata/scenarios/vllm-health-500-after-startup-v06.json")
	lines := strings.SplitAfter(string(log), "\n")
	cut := func(bad int) string {
		var b strings.Builder
		for _, l := range lines {
			if strings.Contains(l, `"GET /health HTTP/1.1" 500`) {
				if bad == 0 {
					break
				}
				bad--
			}
			b.WriteString(l)
		}
		return b.String()
	}
	tests := []struct {
		name    string
		bad     int
		verdict v.Verdict
		cause   v.Cause
	}{
		{"one bad answer", 1, "", ""},
		{"two bad answers", 2, v.Failed, v.Health},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := oneRun(t, cut(tt.bad), Options{}); r.Verdict != tt.verdict || r.Cause != tt.cause {
				t.Errorf("got %q/%q (%s), want %q/%q", r.Verdict, r.Cause, r.Summary, tt.verdict, tt.cause)
			}
		})
	}
}

// TestHealthAfterReadyLine: after its ready line a server's access log may
// still show it unhealthy; good answers confirm it ready.
func TestHealthAfterReadyLine(t *testing.T) {
	const (
		args  = "[2026-05-01 10:00:00] server_args=ServerArgs(model_path='x')\n"
		ready = "[2026-05-01 10:00:09] The server is fired up and ready to roll!\n"
		h503  = "[2026-05-01 10:00:12] INFO:     127.0.0.1:4 - \"GET /health HTTP/1.1\" 503 Service Unavailable\n"
		h200  = "[2026-05-01 10:00:12] INFO:     127.0.0.1:4 - \"GET /health HTTP/1.1\" 200 OK\n"
		late  = "[2026-05-01 10:05:00] INFO:     127.0.0.1:4 - \"GET /health HTTP/1.1\" 503 Service Unavailable\n"
	)
	tests := []struct {
		name    string
		log     string
		verdict v.Verdict
		cause   v.Cause
	}{
		{"answers 503 after its ready line", args + ready + h503 + h503, v.Failed, v.Health},
		{"one 503, then 200", args + ready + h503 + h200 + h503 + h503, v.Ready, ""},
		{"ready line alone", args + ready, v.Ready, ""},
		{"503s long after its ready line are not startup's", args + ready + late + late, v.Ready, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := oneRun(t, tt.log, Options{}); r.Verdict != tt.verdict || r.Cause != tt.cause {
				t.Errorf("got %q/%q (%s), want %q/%q", r.Verdict, r.Cause, r.Summary, tt.verdict, tt.cause)
			}
		})
	}
}

// SGLang since mid-2026 opens its start with its resolved arguments as a
// dict (server_args={...}, entrypoints/engine.py): a restart into the same
// file is a new run, and the server is known without being told.
func TestSGLangResolvedDictStartsARun(t *testing.T) {
	const args = "server_args={'model_path': '/models/DeepSeek-V4.1-Flash', 'tokenizer_path': '/models/DeepSeek-V4.1-Flash', 'tp_size': 3, 'port': 8888}"
	log := strings.Join([]string{
		"[2026-09-11 23:34:03] " + args,
		"[2026-09-11 23:34:11 TP0 EP0] Init torch distributed begin.",
		"[2026-09-11 23:34:13 TP0 EP0] Load weight begin. avail mem=111.47 GB",
		"[2026-09-11 23:35:13 TP0 EP0] Scheduler hit an exception: Traceback (most recent call last):",
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 121.69 GiB of which 1.02 GiB is free.",
		"[2026-09-11 23:35:20] " + args,
		"[2026-09-11 23:35:28 TP0 EP0] Init torch distributed begin.",
		"[2026-09-11 23:35:30 TP0 EP0] Load weight begin. avail mem=111.47 GB",
		"[2026-09-11 23:37:02 TP0 EP0] Memory pool end. avail mem=12.40 GB",
		"[2026-09-11 23:38:10] The server is fired up and ready to roll!",
	}, "\n") + "\n"
	runs := readAll(t, strings.NewReader(log), Options{})
	if len(runs) != 2 {
		t.Fatalf("got %d runs, want the failed start and the restart", len(runs))
	}
	if r := runs[0]; r.Server != "sglang" || r.Verdict != v.Failed || r.Cause != v.GPUOOM || r.Phase != v.Weights {
		t.Errorf("first run: %s %q/%q in %q (%s); want sglang failed/gpu_oom in weights", r.Server, r.Verdict, r.Cause, r.Phase, r.Summary)
	}
	if r := runs[1]; r.Server != "sglang" || r.Verdict != v.Ready || r.FirstLine != 6 {
		t.Errorf("second run: %s %q from line %d (%s); want sglang ready from line 6", r.Server, r.Verdict, r.FirstLine, r.Summary)
	}
}

// vLLM (2026) tunes its kernels after sizing the KV cache and before it
// captures CUDA graphs (gpu_worker.py compile_or_warm_up_model): the
// capture is a phase of its own, announced on every rank, and not part of
// the tuning before it, which its cache made take no time here (lines of
// a real log, cut).
func TestVLLMKernelWarmupBeforeCapture(t *testing.T) {
	log := strings.Join([]string{
		"(APIServer pid=461029) INFO 08-23 08:04:40 [utils.py:300] vLLM server version 0.23.0, serving model /home/admin/models/qwen3.8-27b",
		"(EngineCore pid=461159) INFO 08-23 08:09:09 [monitor.py:81] Initial profiling/warmup run took 2.57 s",
		"(EngineCore pid=461159) INFO 08-23 08:10:24 [gpu_worker.py:563] Available KV cache memory: 51.7 GiB",
		"(EngineCore pid=461159) INFO 08-23 08:10:24 [kv_cache_utils.py:2236] Maximum concurrency for 32,768 tokens per request: 24.00x",
		"(EngineCore pid=461159) INFO 08-23 08:10:28 [kernel_warmup.py:256] Using FlashInfer autotune cache file: /home/admin/.cache/vllm/flashinfer_autotune_cache/0.6.16.post3/121a/autotune_configs.json",
		"(EngineCore pid=461159) 2026-08-23 08:10:28,622 - INFO - autotuner.py:829 - flashinfer.jit: [Autotuner]: Autotuning process starts ...",
		"(EngineCore pid=461159) INFO 08-23 08:10:28 [gpu_model_runner.py:6867] Rank 0: Torch profiler disabled for CUDA graph capture",
		"(EngineCore pid=461159) INFO 08-23 08:10:54 [gpu_model_runner.py:6913] Graph capturing finished in 26 secs, took 0.82 GiB",
		"(APIServer pid=461029) INFO:     Application startup complete.",
	}, "\n") + "\n"
	runs := readAll(t, strings.NewReader(log), Options{})
	if len(runs) != 1 {
		t.Fatalf("got %d runs, want 1", len(runs))
	}
	var got []string
	for _, p := range runs[0].Phases {
		got = append(got, fmt.Sprintf("%s %.0fs", p.Name, p.Seconds))
	}
	if !slices.Contains(got, "cuda_graph 26s") || !slices.Contains(got, "kv_cache 79s") {
		t.Errorf("phases %v; want the capture's 26s as cuda_graph after kv_cache's 79s", got)
	}
}

// trtllmStart is a whole TensorRT-LLM 1.1 start (trtllm-serve of
// gpt-oss-120b, posted with a DGX Spark guide; lines between its phases
// left out): the launcher and the MPI worker it spawns each print the
// version, the KV cache's dtype is checked before the weights load, and
// the KV cache is sized, tuned and captured twice.
const trtllmStart = `[TensorRT-LLM] TensorRT-LLM version: 1.1.0rc3
[12/20/2025-04:20:04] [TRT-LLM] [I] Using LLM with PyTorch backend
[12/20/2025-04:20:04] [TRT-LLM] [I] Set nccl_plugin to None.
rank 0 using MpiPoolSession to spawn MPI processes
[TensorRT-LLM] TensorRT-LLM version: 1.1.0rc3
[TensorRT-LLM][INFO] Refreshed the MPI local session
[12/20/2025-04:20:19] [TRT-LLM] [I] ATTENTION RUNTIME FEATURES:  AttentionRuntimeFeatures(chunked_prefill=False, cache_reuse=True, has_speculative_draft_tokens=False, chunk_size=8192)
[12/20/2025-04:20:19] [TRT-LLM] [I] Validating KV Cache config against kv_cache_dtype="auto"
[12/20/2025-04:20:19] [TRT-LLM] [I] KV cache quantization set to "auto". Using checkpoint KV quantization.
[12/20/2025-04:20:21] [TRT-LLM] [I] Use 63.32 GB for model weights.
Loading safetensors weights in parallel: 100%|██████████| 15/15 [00:00<00:00, 81.92it/s]
Loading weights: 100%|██████████| 801/801 [00:46<00:00, 17.29it/s]
Model init total -- 49.14s
[12/20/2025-04:21:09] [TRT-LLM] [I] max_seq_len is not specified, using inferred value 131072
[12/20/2025-04:21:09] [TRT-LLM] [I] Using Sampler: TorchSampler
[TensorRT-LLM][INFO] Number of tokens per block: 32.
[TensorRT-LLM][INFO] [MemUsageChange] Allocated 0.56 GiB for max tokens in paged KV cache (8224).
[12/20/2025-04:21:10] [TRT-LLM] [I] max_seq_len=8224, max_num_requests=64, max_num_tokens=8192, max_batch_size=64
[12/20/2025-04:21:10] [TRT-LLM] [I] cache_transceiver is disabled
[12/20/2025-04:21:10] [TRT-LLM] [I] [Autotuner] Autotuning process starts ...
[12/20/2025-04:21:37] [TRT-LLM] [I] [Autotuner] Cache size after warmup is 28
[12/20/2025-04:21:37] [TRT-LLM] [I] [Autotuner] Autotuning process ends
[12/20/2025-04:21:37] [TRT-LLM] [I] Creating CUDA graph instances for 11 batch sizes.
[12/20/2025-04:21:37] [TRT-LLM] [I] Run generation only CUDA graph warmup for batch size=64, draft_len=0
[12/20/2025-04:21:49] [TRT-LLM] [I] Run generation only CUDA graph warmup for batch size=1, draft_len=0
[12/20/2025-04:21:51] [TRT-LLM] [I] Estimated max memory in KV cache : 5.95 GiB
[TensorRT-LLM][INFO] [MemUsageChange] Allocated 5.95 GiB for max tokens in paged KV cache (86720).
[12/20/2025-04:21:52] [TRT-LLM] [I] [Autotuner] Autotuning process starts ...
[12/20/2025-04:21:53] [TRT-LLM] [I] [Autotuner] Autotuning process ends
[12/20/2025-04:21:53] [TRT-LLM] [I] Creating CUDA graph instances for 11 batch sizes.
[12/20/2025-04:21:56] [TRT-LLM] [I] Run generation only CUDA graph warmup for batch size=1, draft_len=0
[12/20/2025-04:21:57] [TRT-LLM] [I] Setting PyTorch memory fraction to 0.5983721838660735 (71.62367630004883 GiB)
INFO:     Started server process [41]
INFO:     Waiting for application startup.
INFO:     Application startup complete.
INFO:     Uvicorn running on http://0.0.0.0:8355 (Press CTRL+C to quit)
`

// TestTRTLLMStart: one start, whose phases are the ones it went through:
// TensorRT-LLM 1.x sizes its KV cache after a first warmup, then warms up
// again.
func TestTRTLLMStart(t *testing.T) {
	runs := readAll(t, strings.NewReader(trtllmStart), Options{})
	if len(runs) != 1 {
		t.Fatalf("got %d runs, want one: the worker's version line is the same start", len(runs))
	}
	r := runs[0]
	var got []string
	for _, p := range r.Phases {
		got = append(got, string(p.Name))
	}
	want := []string{"launch", "init", "distributed", "weights", "kv_cache", "compile", "cuda_graph", "kv_cache", "compile", "cuda_graph", "serving", "ready"}
	if r.Verdict != v.Ready || !slices.Equal(got, want) {
		t.Fatalf("%q with phases %v; want ready through %v", r.Verdict, got, want)
	}
	// "Model init total -- 49.14s", unstamped, ends the weights' load
	// (04:20:21 to the next stamp, 04:21:09): it was billed to kv_cache.
	if w, kv := r.Phases[3].Seconds, r.Phases[4].Seconds; w != 48 || kv != 1 {
		t.Errorf("weights %vs, kv_cache %vs; want 48s and 1s", w, kv)
	}
}

// llama.cpp (2026) stamps every line with the time since its process
// started, by default: a run's phases have durations, though its start
// has no date (a real start at the default verbosity).
func TestRelativeClockTimesARun(t *testing.T) {
	log := strings.Join([]string{
		"0.00.003.054 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the -lv N CLI arg)",
		"0.00.003.734 W srv  llama_server: -----------------",
		"0.00.010.415 W srv  llama_server: sandbox: not supported on this OS",
		"0.00.012.991 I srv  load_model: loading model './models/Qwen2.5-Coder-7B-Instruct-heretic.Q4_K_M.gguf'",
		"0.03.673.355 I srv  load_model: initializing, n_slots = 1, n_ctx_slot = 4096, kv_unified = 'false'",
		"0.03.681.753 I srv  llama_server: model loaded",
		"0.03.681.764 I srv  llama_server: listening on http://127.0.0.1:8081",
	}, "\n") + "\n"
	r := oneRun(t, log, Options{})
	if !r.Timed || !r.Relative || r.Verdict != v.Ready || r.Summary != "llamacpp is ready after 3.7s" {
		t.Fatalf("timed %v, relative %v, %q: %s; want ready after 3.7s on the process's clock", r.Timed, r.Relative, r.Verdict, r.Summary)
	}
	var weights float64
	for _, p := range r.Phases {
		if p.Name == v.Weights {
			weights = p.Seconds
		}
	}
	if weights < 3.6 || weights > 3.7 {
		t.Errorf("weights took %.3fs, want the 3.66s between loading and initializing", weights)
	}
	var text, js bytes.Buffer
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, "", r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "0.0s -> 3.7s of its process (3.7s)") || strings.Contains(text.String(), "1970") {
		t.Errorf("text names no date but the process's clock; got %q", text.String())
	}
	if !strings.Contains(js.String(), `"start":null,"end":null`) {
		t.Errorf("JSON has no wall-clock start and end; got %s", js.String())
	}
}

// A ready server that said it shuts down was stopped, not still serving,
// and what it prints while it tears down is no death (lines of a real
// llama.cpp log, 2026).
func TestShutdownAfterReady(t *testing.T) {
	log := strings.Join([]string{
		"24.12.500.000 I srv    load_model: loading model '/models/GLM-5.2-Q4_K_M.gguf'",
		"24.12.982.795 I srv  llama_server: model loaded",
		"24.12.982.800 I srv  llama_server: listening on http://0.0.0.0:8080",
		"24.22.405.566 I srv    operator(): operator(): cleaning up before exit...",
		"24.22.500.000 E ggml_cuda_compute_forward: CUDA error: an illegal memory access was encountered",
	}, "\n") + "\n"
	runs := readAll(t, strings.NewReader(log), Options{})
	if len(runs) != 1 || runs[0].Life == nil {
		t.Fatalf("got %d runs, want one ready run with its life after ready", len(runs))
	}
	a := runs[0].Life
	if a.How != LifeStopped || a.Cause != "" || a.After < 9*time.Second || a.After > 10*time.Second {
		t.Fatalf("after ready %+v; want stopped 9.4s after ready", a)
	}
	var text, js bytes.Buffer
	if err := WriteText(&text, runs[0]); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, "", runs[0]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "after ready  stopped after 9.4s: the server shut down") {
		t.Errorf("text: %q", text.String())
	}
	if !strings.Contains(js.String(), `"after_ready":{"how":"stopped","cause":null`) {
		t.Errorf("JSON: %s", js.String())
	}
}

// What a container runtime or the journal puts before each line (Docker
// Desktop's time, docker compose's service, journalctl's) is read past:
// the lines' own parts, rules and stamps count (lines of real vLLM logs
// under Docker Desktop, compose and systemd).
func TestContainerPrefixes(t *testing.T) {
	desktop := strings.Join([]string{
		"2026-05-01 18:57:07.600 | (APIServer pid=1) INFO 05-01 18:57:07 [utils.py:300] vLLM server version 0.20.0, serving model sakamakismile/Qwen3.6-27B-Text-NVFP4-MTP",
		"2026-05-01 18:57:08.100 | (APIServer pid=1) INFO 05-01 18:57:08 [utils.py:236] non-default args: {'model': 'sakamakismile/Qwen3.6-27B-Text-NVFP4-MTP'}",
		"2026-05-01 18:57:24.911 | (APIServer pid=1) OSError: Can't load image processor for 'sakamakismile/Qwen3.6-27B-Text-NVFP4-MTP'. If you were trying to load it from 'https://huggingface.co/models', make sure you don't have a local directory with the same name. Otherwise, make sure 'sakamakismile/Qwen3.6-27B-Text-NVFP4-MTP' is the correct path to a directory containing a preprocessor_config.json file",
	}, "\n") + "\n"
	compose := strings.Join([]string{
		"qwen3.5-9b  | (APIServer pid=1) INFO 03-09 12:54:16 [utils.py:325] vLLM server version 0.16.0, serving model Qwen/Qwen3.5-9B",
		"qwen3.5-9b  | (APIServer pid=1) INFO 03-09 12:55:32 [api_server.py:491] Supported tasks: ['generate']",
		"qwen3.5-9b  | (APIServer pid=1) INFO 03-09 12:55:33 [api_server.py:496] Starting vLLM server on http://0.0.0.0:8000",
		"qwen3.5-9b  | (APIServer pid=1) INFO:     Application startup complete.",
	}, "\n") + "\n"
	// journalctl -u UNIT of a vLLM under systemd (a user's log, 2026).
	journal := strings.Join([]string{
		"Aug 23 18:09:57 dgx qwen3.8-27b-vllm-896k.sh[742182]: (APIServer pid=742000) INFO 08-23 18:09:57 [utils.py:300] vLLM server version 0.23.0, serving model /models/qwen3.8-27b",
		"Aug 23 18:09:58 dgx qwen3.8-27b-vllm-896k.sh[742182]: (EngineCore pid=742182) INFO 08-23 18:09:58 [gpu_model_runner.py:6867] Rank 0: Torch profiler disabled for CUDA graph capture",
		"Aug 23 18:10:14 dgx qwen3.8-27b-vllm-896k.sh[742182]: [6.0K blob data]",
		"Aug 23 18:10:24 dgx qwen3.8-27b-vllm-896k.sh[742182]: [3.5K blob data]",
	}, "\n") + "\n"
	tests := []struct {
		name, log string
		verdict   v.Verdict
		cause     v.Cause
		phase     v.Phase
		seconds   float64
	}{
		{"docker desktop", desktop, v.Failed, v.ModelLoad, v.Init, 17.311},
		{"docker compose", compose, v.Ready, "", v.PhaseReady, 77},
		{"journalctl", journal, "", "", v.CUDAGraph, 27},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := oneRun(t, tt.log, Options{})
			if r.Server != "vllm" || r.Verdict != tt.verdict || r.Cause != tt.cause || r.Phase != tt.phase || !r.Timed {
				t.Fatalf("%s %q/%q in %q, timed %v (%s); want vllm %q/%q in %q, timed", r.Server, r.Verdict, r.Cause, r.Phase, r.Timed, r.Summary, tt.verdict, tt.cause, tt.phase)
			}
			if got := r.End.Sub(r.Start).Seconds(); got < tt.seconds-0.01 || got > tt.seconds+0.01 {
				t.Errorf("the run lasted %.3fs, want %.3fs", got, tt.seconds)
			}
		})
	}
}

// TGI started with --json-output writes every line as a JSON record (a
// user's OpenShift deployment; the Args line cut short): its banner,
// phases, stamps and ready line are read from the records.
func TestTGIJSONOutput(t *testing.T) {
	r := oneRun(t, tgiJSONStart, Options{})
	var got []string
	for _, p := range r.Phases {
		got = append(got, string(p.Name))
	}
	want := []string{"launch", "init", "weights", "warmup", "ready"}
	if r.Server != "tgi" || r.Verdict != v.Ready || !r.Timed || !slices.Equal(got, want) {
		t.Errorf("%s %q, timed %v, phases %v (%s); want tgi ready through %v", r.Server, r.Verdict, r.Timed, got, r.Summary, want)
	}
	if r.Summary != "tgi is ready after 14.5s" {
		t.Errorf("summary %q, want ready after 14.5s", r.Summary)
	}
}

const tgiJSONStart = `{"timestamp":"2024-02-21T05:09:46.814956Z","level":"INFO","fields":{"message":"Args { model_id: \"google/flan-t5-small\", revision: None, validation_workers: 2, sharded: None, num_shard: None, quantize: Some(Bitsandbytes), dtype: None, trust_remote_code: false, max_concurrent_requests: 128, port: 3000, json_output: true, env: false }"},"target":"text_generation_launcher"}
{"timestamp":"2024-02-21T05:09:46.815155Z","level":"INFO","fields":{"message":"Starting download process."},"target":"text_generation_launcher","span":{"name":"download"},"spans":[{"name":"download"}]}
{"timestamp":"2024-02-21T05:09:51.008236Z","level":"INFO","fields":{"message":"Download file: model.safetensors\n"},"target":"text_generation_launcher"}
{"timestamp":"2024-02-21T05:09:52.420748Z","level":"INFO","fields":{"message":"Successfully downloaded weights."},"target":"text_generation_launcher","span":{"name":"download"},"spans":[{"name":"download"}]}
{"timestamp":"2024-02-21T05:09:52.421039Z","level":"INFO","fields":{"message":"Starting shard"},"target":"text_generation_launcher","span":{"rank":0,"name":"shard-manager"},"spans":[{"rank":0,"name":"shard-manager"}]}
{"timestamp":"2024-02-21T05:09:56.421772Z","level":"WARN","fields":{"message":"Could not import Flash Attention enabled models: GPU with CUDA capability 7 0 is not supported\n"},"target":"text_generation_launcher"}
{"timestamp":"2024-02-21T05:09:57.948206Z","level":"INFO","fields":{"message":"Server started at unix:///tmp/text-generation-server-0\n"},"target":"text_generation_launcher"}
{"timestamp":"2024-02-21T05:09:58.029562Z","level":"INFO","fields":{"message":"Shard ready in 5.607799614s"},"target":"text_generation_launcher","span":{"rank":0,"name":"shard-manager"},"spans":[{"rank":0,"name":"shard-manager"}]}
{"timestamp":"2024-02-21T05:09:58.126308Z","level":"INFO","fields":{"message":"Starting Webserver"},"target":"text_generation_launcher"}
{"timestamp":"2024-02-21T05:09:58.311499Z","level":"INFO","message":"Warming up model","target":"text_generation_router","filename":"router/src/main.rs","line_number":213}
{"timestamp":"2024-02-21T05:10:01.304575Z","level":"INFO","message":"Setting max batch total tokens to 16000","target":"text_generation_router","filename":"router/src/main.rs","line_number":246}
{"timestamp":"2024-02-21T05:10:01.304586Z","level":"INFO","message":"Connected","target":"text_generation_router","filename":"router/src/main.rs","line_number":247}
{"timestamp":"2024-02-21T05:10:01.304595Z","level":"WARN","message":"Invalid hostname, defaulting to 0.0.0.0","target":"text_generation_router","filename":"router/src/main.rs","line_number":252}
`

// A note the dying process printed after its traceback does not undo the
// failure (SGLang 0.5.10 refusing its arguments, a user's log, 2026).
func TestNoteAfterTheTraceback(t *testing.T) {
	log := strings.Join([]string{
		"[2026-04-02 09:12:40] server_args=ServerArgs(model_path='/models/x', tp_size=1, pp_size=4)",
		"Traceback (most recent call last):",
		`  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/entrypoints/engine.py", line 618, in _launch_subprocesses`,
		"    server_args.check_server_args()",
		`  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/server_args.py", line 5987, in check_server_args`,
		"    and self.speculative_algorithm is None",
		"AssertionError: Pipeline parallelism is not compatible with overlap schedule, speculative decoding, mixed chunked prefill.",
		"INFO: Please install aiter if you want to infer with aiter_moe.",
	}, "\n") + "\n"
	if r := oneRun(t, log, Options{}); r.Verdict != v.Failed || r.Cause != v.Config || r.RuleID != "sglang.args_check" {
		t.Errorf("%q/%q by %s (%s); want failed/config by sglang.args_check", r.Verdict, r.Cause, r.RuleID, r.Summary)
	}
}

// A client's 200 in the log confirms a server that said it listens as of
// when it said so, not as of whenever the client asked (vLLM 0.11, a
// user's log, 2025).
func TestAnswerConfirmsListening(t *testing.T) {
	log := strings.Join([]string{
		"(APIServer pid=41428) INFO 10-06 15:56:26 [api_server.py:1839] vLLM API server version 0.11.0",
		"(APIServer pid=41428) INFO 10-06 15:58:18 [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8000",
		"(APIServer pid=41428) INFO:     Application startup complete.",
		"(APIServer pid=41428) INFO 10-06 15:58:23 [chat_utils.py:560] Detected the chat template content format to be 'openai'. You can set `--chat-template-content-format` to override this.",
		`(APIServer pid=41428) INFO:     192.168.1.11:54734 - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
	}, "\n") + "\n"
	if r := oneRun(t, log, Options{}); r.Verdict != v.Ready || r.Summary != "vllm is ready after 1m52s" {
		t.Errorf("%q: %s; want ready after 1m52s, when it said it listens", r.Verdict, r.Summary)
	}
}

// llama.cpp's clock that runs on across a banner is one process: its
// download's error comes before its logger's banner (a real llama-server
// asked for -hf without HTTPS support).
func TestClockRunsOnAcrossABanner(t *testing.T) {
	runs := readAll(t, strings.NewReader(llamaDownloadNoHTTPS), Options{})
	if len(runs) != 1 {
		t.Fatalf("got %d runs, want one process", len(runs))
	}
	if r := runs[0]; r.Verdict != v.Failed || r.Cause != v.ModelLoad {
		t.Errorf("%q/%q, want failed/model_load", r.Verdict, r.Cause)
	}
	// A process that died within milliseconds (a fatal line said so) and
	// its restart, whose clock has passed the first one's end by its
	// first line: two runs (real llama-server logs, the second's clock
	// moved on by 10 ms).
	runs = readAll(t, strings.NewReader(llamaQuickFailThenReady), Options{})
	if len(runs) != 2 || runs[0].Verdict != v.Failed || runs[1].Verdict != v.Ready {
		t.Errorf("got %d runs, want the failed start and the ready restart", len(runs))
	}
}

// A llama-server that shut down in order and a new one whose first line
// came later on its own clock than the first's last (a short life, a busy
// machine): the clean-up line ends the first process, so the new banner
// starts a run though no clock dropped back. Real lines (build 10587, -lv
// 4 then the default), the second's clock moved on by 0.9 s.
func TestCleanShutdownEndsAProcess(t *testing.T) {
	log := strings.Join([]string{
		"0.00.008.008 I cmn  common_param: common_params_print_info: build 10587 (3f545bec) with GNU 12.2.0 for Linux x86_64",
		"0.00.008.081 I cmn  common_param: common_params_print_info: verbosity = 4 (adjust with the `-lv N` CLI arg)",
		"0.00.010.984 I srv    load_model: loading model '/models/tiny.gguf'",
		"0.00.247.022 I srv  llama_server: model loaded",
		"0.00.247.043 I srv  llama_server: listening on http://127.0.0.1:35489",
		"0.00.247.405 I srv  update_slots: all slots are idle",
		"0.00.475.648 I srv    operator(): operator(): cleaning up before exit...",
		"0.00.477.897 I common_memory_breakdown_print: | memory breakdown [MiB] | total   free    self   model   context   compute    unaccounted |",
		"0.00.477.971 I common_memory_breakdown_print: |   - Host               |                   19 =    15 +       1 +       3                |",
		"0.00.906.148 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)",
		"0.00.909.645 E srv         start: couldn't bind HTTP server socket, hostname: 127.0.0.1, port: 45021",
		"0.00.909.646 I srv    operator(): operator(): cleaning up before exit...",
		"0.00.909.784 E srv  llama_server: exiting due to HTTP server error",
	}, "\n") + "\n"
	runs := readAll(t, strings.NewReader(log), Options{})
	if len(runs) != 2 {
		t.Fatalf("got %d runs, want the ready server and the one that could not bind", len(runs))
	}
	if r := runs[0]; r.Verdict != v.Ready || r.Lines != 9 {
		t.Errorf("run 1: %s over %d lines, want ready over 9", r.Verdict, r.Lines)
	}
	if r := runs[1]; r.Verdict != v.Failed || r.Cause != v.PortInUse || r.FirstLine != 10 {
		t.Errorf("run 2: %s/%s from line %d, want failed/port_in_use from line 10", r.Verdict, r.Cause, r.FirstLine)
	}
	// Without the clean-up, the clock running on is the same process.
	var same []string
	for _, l := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		if !strings.Contains(l, "cleaning up before exit") {
			same = append(same, l)
		}
	}
	if runs := readAll(t, strings.NewReader(strings.Join(same, "\n")+"\n"), Options{}); len(runs) != 1 {
		t.Errorf("without the clean-up line: %d runs, want one process", len(runs))
	}
}

const llamaDownloadNoHTTPS = "0.00.004.179 E get_repo_commit: error: HTTPS is not supported. Please rebuild with one of:\n  -DLLAMA_BUILD_BORINGSSL=ON\n  -DLLAMA_BUILD_LIBRESSL=ON\n  -DLLAMA_OPENSSL=ON (default, requires OpenSSL dev files installed)\n0.00.004.214 W get_repo_files: failed to resolve commit for ggml-org/nosuch-GGUF\n0.00.004.350 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)\n0.00.004.726 W srv  llama_server: -----------------\n0.00.004.726 W srv  llama_server: CORS is set to allow all origins ('*') and no API key is set\n0.00.004.726 W srv  llama_server: this can be a security risk (cross-origin attacks)\n0.00.004.727 W srv  llama_server: more info: https://github.com/ggml-org/llama.cpp/pull/25655\n0.00.004.727 W srv  llama_server: -----------------\n0.00.007.845 I srv    load_model: loading model 'ggml-org/nosuch-GGUF'\n0.00.007.982 E llama_model_load_from_file_impl: exactly one out metadata, path_model, and file must be defined\n0.00.008.154 E common_fit_params: encountered an error while trying to fit params to free device memory: failed to load model\n0.00.008.248 E llama_model_load_from_file_impl: exactly one out metadata, path_model, and file must be defined\n0.00.008.253 E cmn  common_init_: failed to load model ''\n0.00.008.258 E srv    load_model: failed to load model, ''\n0.00.008.260 I srv    operator(): operator(): cleaning up before exit...\n0.00.009.956 E srv  llama_server: exiting due to model loading error\n"

// llama.cpp with --log-prefix restarted into one file, with no banner
// recognised: its relative clock dropping back near zero starts a run.
func TestRelativeClockRestartStartsARun(t *testing.T) {
	log := strings.Join([]string{
		"0.00.000.100 I main: loading model",
		"0.00.213.525 I srv  load_model: loading model 'm.gguf'",
		"0.00.400.000 E main: exiting due to model loading error",
		"0.00.000.090 I main: loading model",
		"0.00.212.000 I srv  load_model: loading model 'm.gguf'",
		"0.01.500.000 I main: server is listening on http://127.0.0.1:8080 - starting the main loop",
	}, "\n") + "\n"
	runs := readAll(t, strings.NewReader(log), Options{Server: "llamacpp"})
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	if runs[0].Verdict != v.Failed || runs[0].Cause != v.ModelLoad || runs[0].Lines != 3 {
		t.Errorf("run 1: %s/%s over %d lines, want failed/model_load over 3", runs[0].Verdict, runs[0].Cause, runs[0].Lines)
	}
	if runs[1].Verdict != v.Ready || runs[1].FirstLine != 4 {
		t.Errorf("run 2: %s from line %d, want ready from line 4", runs[1].Verdict, runs[1].FirstLine)
	}
}

// llama-server rejecting a flag prints one unclocked line before its logger
// starts: appended between two clocked runs it is a run of its own once the
// run before ended, and stays the crash output of a run that had not.
// Unclocked lines that hold no error are not a process of their own.
func TestUnclockedLinesBeforeARestart(t *testing.T) {
	ready := []string{
		"0.00.003.751 I cmn  common_param: common_params_print_info: build 10587 (3f545bec) with GNU 12.2.0 for Linux x86_64",
		"0.00.213.525 I srv    load_model: loading model 'm.gguf'",
		"0.00.500.000 I srv  llama_server: server is listening on http://127.0.0.1:8080",
		"0.00.510.000 I srv  llama_server: model loaded",
		"0.09.000.000 I srv    operator(): operator(): cleaning up before exit...",
	}
	tests := []struct {
		name    string
		first   []string
		between string
		want    []v.Verdict
	}{
		{"after a ready run that ended", ready, "error: invalid argument: --no-such-flag", []v.Verdict{v.Ready, v.Failed, v.Ready}},
		{"a crash's own output", ready[:2], "/src/ggml.c:123: GGML_ASSERT(n > 0) failed", []v.Verdict{v.Failed, v.Ready}},
		// A wrapper's own lines between two starts (a user's npm script,
		// 2026) are no process: two runs, not three.
		{"a wrapper's lines after a ready run that ended", ready, "Local Ling check: READY\n\n> voice-work-supervisor@0.1.0 local\n> node --env-file-if-exists=.env scripts/start-local.mjs\n", []v.Verdict{v.Ready, v.Ready}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := append(append(slices.Clone(tt.first), tt.between), ready...)
			runs := readAll(t, strings.NewReader(strings.Join(lines, "\n")+"\n"), Options{Server: "llamacpp"})
			var got []v.Verdict
			for _, r := range runs {
				got = append(got, r.Verdict)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got runs %v, want %v", got, tt.want)
			}
		})
	}
}

// allScenarios is every scenario rendered as a log, one after another.
func allScenarios(t *testing.T) []byte {
	t.Helper()
	var all bytes.Buffer
	for _, file := range scenarioFiles(t) {
		_, log := render(t, file)
		all.Write(log)
	}
	return all.Bytes()
}

// TestSmallFirstBuffer: the small first buffer changes nothing, on a log
// shorter than one chunk and on one of several chunks.
func TestSmallFirstBuffer(t *testing.T) {
	one := allScenarios(t)
	several := bytes.Repeat(one, 2*chunkSize/len(one)+1)
	defer func(n int) { firstChunkSize = n }(firstChunkSize)
	for _, log := range [][]byte{one, several} {
		firstChunkSize = chunkSize
		want := readAll(t, bytes.NewReader(log), Options{})
		if len(want) < 2 {
			t.Fatalf("%d runs in %d bytes: the test needs several", len(want), len(log))
		}
		for _, first := range []int{64 << 10, 4096, 1} {
			firstChunkSize = first
			if got := readAll(t, bytes.NewReader(log), Options{}); !reflect.DeepEqual(got, want) {
				t.Errorf("%d bytes, first buffer %d bytes: the runs differ from those read with whole chunks", len(log), first)
			}
		}
	}
}

// TestWorkerCounts: the workers take turns reading chunks, each with its
// own few buffers; one worker, as many as the chunks in flight and more
// than that give the runs one worker does, on a log of several chunks.
func TestWorkerCounts(t *testing.T) {
	one := allScenarios(t)
	log := bytes.Repeat(one, 3*chunkSize/len(one)+1)
	want := readAll(t, bytes.NewReader(log), Options{Workers: 1})
	if len(want) < 2 {
		t.Fatalf("%d runs in %d bytes: the test needs several", len(want), len(log))
	}
	for _, workers := range []int{2, 3, inFlight, inFlight + 3} {
		if got := readAll(t, bytes.NewReader(log), Options{Workers: workers}); !reflect.DeepEqual(got, want) {
			t.Errorf("%d workers: the runs differ from one worker's", workers)
		}
	}
}

const llamaQuickFailThenReady = "0.00.003.815 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)\n0.00.004.084 W srv  llama_server: -----------------\n0.00.004.090 W srv  llama_server: CORS is set to allow all origins ('*') and no API key is set\n0.00.004.090 W srv  llama_server: this can be a security risk (cross-origin attacks)\n0.00.004.090 W srv  llama_server: more info: https://github.com/ggml-org/llama.cpp/pull/25655\n0.00.004.091 W srv  llama_server: -----------------\n0.00.005.602 I srv    load_model: loading model '/models/missing.gguf'\n0.00.006.033 E gguf_init_from_file: failed to open GGUF file '/models/missing.gguf' (No such file or directory)\n0.00.006.251 E llama_model_load: error loading model: llama_model_loader: failed to load model from /models/missing.gguf\n0.00.006.278 E llama_model_load_from_file_impl: failed to load model\n0.00.006.323 E common_fit_params: encountered an error while trying to fit params to free device memory: failed to load model\n0.00.006.343 E gguf_init_from_file: failed to open GGUF file '/models/missing.gguf' (No such file or directory)\n0.00.006.372 E llama_model_load: error loading model: llama_model_loader: failed to load model from /models/missing.gguf\n0.00.006.373 E llama_model_load_from_file_impl: failed to load model\n0.00.006.377 E cmn  common_init_: failed to load model '/models/missing.gguf'\n0.00.006.381 E srv    load_model: failed to load model, '/models/missing.gguf'\n0.00.006.384 I srv    operator(): operator(): cleaning up before exit...\n0.00.007.570 E srv  llama_server: exiting due to model loading error\n0.00.015.748 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)\n0.00.016.005 W srv  llama_server: -----------------\n0.00.016.006 W srv  llama_server: CORS is set to allow all origins ('*') and no API key is set\n0.00.016.006 W srv  llama_server: this can be a security risk (cross-origin attacks)\n0.00.016.006 W srv  llama_server: more info: https://github.com/ggml-org/llama.cpp/pull/25655\n0.00.016.007 W srv  llama_server: -----------------\n0.00.017.883 I srv    load_model: loading model '/models/tiny.gguf'\n0.00.177.556 I cmn          init: llama threadpool init, n_threads = 2\n0.00.180.201 I srv    load_model: initializing, n_slots = 4, n_ctx_slot = 2048, kv_unified = 'true'\n0.00.183.730 I srv  llama_server: model loaded\n0.00.183.758 I srv  llama_server: listening on http://127.0.0.1:18779\n"

// TestYearFromDatedLines: vLLM's stamps carry no year. A log from an
// earlier year whose NCCL line is dated (vllm#20226's, read a year on)
// was cut in two runs a year apart, the second lasting 8760h; the dated
// line now places the year-less ones, in every chunk of the log alike.
func TestYearFromDatedLines(t *testing.T) {
	head := "[2025-08-11 10:40:36] server:2699411:2699411 [0] init.cc:1397 NCCL INFO cudaDriverVersion 12080\n" +
		"INFO 08-11 10:40:36 [__init__.py:244] Automatically detected platform cuda.\n" +
		"INFO 08-11 10:40:40 [api_server.py:1395] vLLM API server version 0.10.0\n"
	var serving strings.Builder
	for serving.Len() < 3*chunkSize {
		serving.WriteString("INFO 08-11 10:45:35 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%\n")
	}
	tail := "(VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511] WorkerProc failed to start.\n" +
		"(VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511] Traceback (most recent call last):\n"
	tests := []struct{ name, log string }{
		{"short", head + tail},
		{"over several chunks", head + serving.String() + tail},
	}
	later := time.Date(2026, 12, 6, 12, 0, 0, 0, time.Local)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := oneRun(t, tt.log, Options{Now: later})
			want := time.Date(2025, 8, 11, 10, 40, 36, 0, time.Local)
			if !r.Start.Equal(want) || r.End.Sub(r.Start) != 5*time.Minute {
				t.Errorf("run from %v to %v, want from %v for 5m0s", r.Start, r.End, want)
			}
		})
	}
}

// TestLogBeginsMidServing: a log that begins while the server serves (a
// rotated file, `kubectl logs --since`, a pasted crash) holds no startup.
// Its run was "ready after 0.0s" and, when its first line carried no
// stamp, started at its last stamp.
func TestLogBeginsMidServing(t *testing.T) {
	var serving strings.Builder
	for i := range 20 {
		fmt.Fprintf(&serving, "(APIServer pid=1) INFO:     10.0.0.%d:5123 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n", i)
		fmt.Fprintf(&serving, "(APIServer pid=1) INFO 05-01 10:%02d:00 [loggers.py:123] Engine 000: Avg prompt throughput: 12.0 tokens/s, Avg generation throughput: 80.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.2%%, Prefix cache hit rate: 0.0%%\n", i)
	}
	crash := "(EngineCore_DP0 pid=200) ERROR 05-01 10:20:01 [core.py:710] EngineCore encountered a fatal error.\n" +
		"(EngineCore_DP0 pid=200) ERROR 05-01 10:20:01 [core.py:710] Traceback (most recent call last):\n" +
		"(EngineCore_DP0 pid=200) ERROR 05-01 10:20:01 [core.py:710] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.05 GiB is free.\n"
	tests := []struct {
		name, log, server string
		start, end        time.Time // zero: untimed
		life              string
	}{
		{"vllm, serving", serving.String(), "vllm", time.Date(2026, 5, 1, 10, 0, 0, 0, time.Local), time.Date(2026, 5, 1, 10, 19, 0, 0, time.Local), "serving"},
		{"vllm, serving, then its engine dies", serving.String() + crash, "vllm", time.Date(2026, 5, 1, 10, 0, 0, 0, time.Local), time.Date(2026, 5, 1, 10, 20, 1, 0, time.Local), "died"},
		// (A user's paste of a crash while serving, vLLM 0.15: the API
		// server's output handler reads only a started engine's outputs.)
		{"vllm, a crash pasted without its start", "(APIServer pid=1) ERROR 02-08 12:05:52 [async_llm.py:693] AsyncLLM output_handler failed.\n" +
			"(APIServer pid=1) ERROR 02-08 12:05:52 [async_llm.py:693] Traceback (most recent call last):\n" +
			"(APIServer pid=1) ERROR 02-08 12:05:52 [async_llm.py:693] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.\n" +
			"(EngineCore_DP0 pid=109) Traceback (most recent call last):\n" +
			"(EngineCore_DP0 pid=109)   File \"/usr/lib/python3.12/multiprocessing/process.py\", line 314, in _bootstrap\n" +
			"(APIServer pid=1) INFO:     10.254.14.203:45650 - \"POST /v1/completions HTTP/1.1\" 200 OK\n" +
			"(EngineCore_DP0 pid=109) IndexError: index out of range in self\n",
			"vllm", time.Date(2026, 2, 8, 12, 5, 52, 0, time.Local), time.Date(2026, 2, 8, 12, 5, 52, 0, time.Local), "died"},
		// (A user's paste from docker compose: the startup was cut off.)
		{"llama.cpp, its listening line first", "deep-seek-1  | main: server is listening on http://0.0.0.0:8008 - starting the main loop\n" +
			"deep-seek-1  | srv  update_slots: all slots are idle\n" +
			"deep-seek-1  | request: GET / 192.168.50.107 200\n", "llamacpp", time.Time{}, time.Time{}, "serving"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := oneRun(t, tt.log, Options{})
			want := tt.server + " was already serving where the log begins: its startup is not in the log"
			if r.Server != tt.server || r.Verdict != v.Ready || r.Summary != want {
				t.Errorf("%s %s %q, want %s ready %q", r.Server, r.Verdict, r.Summary, tt.server, want)
			}
			if r.Timed != !tt.start.IsZero() || !r.Start.Equal(tt.start) || !r.End.Equal(tt.end) {
				t.Errorf("timed %v from %v to %v, want from %v to %v", r.Timed, r.Start, r.End, tt.start, tt.end)
			}
			if r.Life == nil || string(r.Life.How) != tt.life {
				t.Errorf("after ready %+v, want %s", r.Life, tt.life)
			}
		})
	}
}

// TestReplayedShardOutput: once a shard exits, TGI's launcher prints the
// shard's whole standard error, stamped from the shard's start, minutes
// before. Those stamps went back past the run's last one and, after the
// failure, cut the startup in two; they are the shard's, and the run
// goes on through them, also across chunks, until a new start.
func TestReplayedShardOutput(t *testing.T) {
	start := "2024-05-10T10:00:00.123456Z  INFO text_generation_launcher: Args { model_id: \"meta-llama/Llama-3.1-70B-Instruct\", revision: None, sharded: None, num_shard: Some(1), port: 80 }\n" +
		"2024-05-10T10:00:00.200000Z  INFO download: text_generation_launcher: Starting check and download process for meta-llama/Llama-3.1-70B-Instruct\n" +
		"2024-05-10T10:00:05.100000Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0\n" +
		"2024-05-10T10:02:15.100000Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... rank=0\n"
	oom := "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 100.00 MiB is free.\n"
	traceback := "Traceback (most recent call last):\n  File \"/opt/conda/bin/text-generation-server\", line 8, in <module>\n    sys.exit(app())\n" + oom
	dump := func(padding int) string {
		var b strings.Builder
		b.WriteString("2024-05-10T10:02:35.000000Z ERROR text_generation_launcher: Error when initializing model\n" + traceback)
		b.WriteString("2024-05-10T10:02:36.000000Z ERROR shard-manager: text_generation_launcher: Shard complete standard error output:\n\n")
		b.WriteString("2024-05-10 10:00:09.123 | INFO     | text_generation_server.utils.import_utils:<module>:80 - Detected system cuda\n")
		for i := range padding {
			fmt.Fprintf(&b, "2024-05-10 10:00:%02d.%03d | WARNING  | text_generation_server.models:<module>:%d - a warning the shard printed while it loaded\n", 10+i%40, i%1000, i)
		}
		b.WriteString(traceback + " rank=0\n")
		b.WriteString("2024-05-10T10:02:36.100000Z ERROR text_generation_launcher: Shard 0 failed to start\n")
		b.WriteString("2024-05-10T10:02:36.100000Z  INFO text_generation_launcher: Shutting down shards\nError: ShardCannotStart\n")
		return b.String()
	}
	restart := strings.ReplaceAll(start, "T10:0", "T10:1")
	tests := []struct {
		name string
		log  string
		runs int
	}{
		{name: "the shard's output", log: start + dump(0), runs: 1},
		{name: "the shard's output across chunks", log: start + dump(2*chunkSize/100), runs: 1},
		{name: "a restart after it", log: start + dump(0) + restart, runs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, workers := range []int{1, 2} {
				runs := readAll(t, strings.NewReader(tt.log), Options{Workers: workers})
				if len(runs) != tt.runs {
					t.Fatalf("%d workers: got %d runs, want %d", workers, len(runs), tt.runs)
				}
				r := runs[0]
				if r.Verdict != v.Failed || r.Cause != v.GPUOOM || r.Phase != v.Weights {
					t.Errorf("%d workers: got %s %s in %s (%s), want failed gpu_oom in weights", workers, r.Verdict, r.Cause, r.Phase, r.Summary)
				}
				if d := r.End.Sub(r.Start); d != 2*time.Minute+35976544*time.Microsecond {
					t.Errorf("%d workers: the run lasts %v, want 2m35.976544s (its own stamps only)", workers, d)
				}
			}
		})
	}
}

// TestStampsGoBack: a run whose last stamp is before its first (a clock
// set back, lines pasted out of order) is not timed: it read "ready
// after -3570.0s".
func TestStampsGoBack(t *testing.T) {
	log := "INFO 01-02 10:00:00 [api_server.py:1395] vLLM API server version 0.10.0\n" +
		"INFO 01-02 10:00:05 [default_loader.py:262] Loading weights took 4.10 seconds\n" +
		"INFO 01-02 09:00:30 [launcher.py:37] Available routes are:\n" +
		"INFO:     Started server process [1]\n" +
		"INFO:     Application startup complete.\n" +
		"INFO:     127.0.0.1:5000 - \"GET /health HTTP/1.1\" 200 OK\n"
	r := oneRun(t, log, Options{Now: now})
	if r.Verdict != v.Ready || r.Timed || !r.Start.IsZero() || r.Summary != "vllm is ready (its stamps go back in time, so no durations)" {
		t.Fatalf("%s, timed %v from %v: %q; want ready, untimed", r.Verdict, r.Timed, r.Start, r.Summary)
	}
	for _, p := range r.Phases {
		if p.Timed || p.Seconds != 0 {
			t.Errorf("phase %s timed %v, %vs; want no duration", p.Name, p.Timed, p.Seconds)
		}
	}
}

// TestEndsInACutTraceback: a log that ends as a dying process begins to
// print its traceback again ("Process EngineCore:", "Traceback (most
// recent call last):") after a logged one that ended in an exception
// ended in that error (a user's excerpt, 2026); one that ends on a step
// has no verdict.
func TestEndsInACutTraceback(t *testing.T) {
	tag := "(EngineCore pid=114) ERROR 06-23 06:27:21 [core.py:1229] "
	logged := "(EngineCore pid=114) INFO 06-23 06:27:02 [core.py:75] Initializing a V1 LLM engine (v0.11.0) with config: model='x'\n" +
		tag + "Traceback (most recent call last):\n" +
		tag + `  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 1096, in unify_kv_cache_spec_page_size` + "\n" +
		tag + "    assert new_spec.page_size_bytes == max_page_size\n" +
		tag + "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n" +
		tag + "AssertionError\n"
	tests := []struct {
		name, log string
		verdict   v.Verdict
	}{
		{"the traceback printed again, cut", logged + "(EngineCore pid=114) Process EngineCore:\n(EngineCore pid=114) Traceback (most recent call last):\n", v.Failed},
		{"the traceback's frames, cut", logged + "(EngineCore pid=114) Process EngineCore:\n(EngineCore pid=114)   File \"/usr/lib/python3.12/multiprocessing/process.py\", line 314, in _bootstrap\n", v.Failed},
		{"a step after it", logged + "(EngineCore pid=114) INFO 06-23 06:27:25 [gpu_model_runner.py:1] Loading model from scratch...\n", ""},
		// More frames than the lines kept for a run without a verdict
		// (vLLM 0.7's engine, a user's paste cut in the traceback).
		{"a long traceback's frames, cut", logged + "(EngineCore pid=114) Process EngineCore:\n(EngineCore pid=114) Traceback (most recent call last):\n" +
			strings.Repeat("(EngineCore pid=114)   File \"/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py\", line 391, in run_mp_engine\n(EngineCore pid=114)     raise e\n", 8), v.Failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := oneRun(t, tt.log, Options{Now: now})
			if r.Verdict != tt.verdict || tt.verdict == v.Failed && (r.Cause != v.Exception || !strings.HasSuffix(r.Summary, "AssertionError: assert new_spec.page_size_bytes == max_page_size")) {
				t.Errorf("%q %q: %s; want %q", r.Verdict, r.Cause, r.Summary, tt.verdict)
			}
		})
	}
}

// TestNCCLTransportFailure: a log of NCCL_DEBUG=INFO output (SGLang
// 0.5.9, two nodes over RoCE; its user said it hangs there) is in the
// distributed step from NCCL's setup lines on, and the IB transport's
// WARN is the failure: not an error NCCL goes on after.
func TestNCCLTransportFailure(t *testing.T) {
	warn := "[2026-03-03 12:11:38] tpgds-aihub0007:185303:186751 [1] transport/net_ib.cc:2453 NCCL WARN NET/IB: Got completion from peer 10.99.91.63<51161> with status=4 opcode=32614 len=32614 vendor err 81 (Send) localGid ::ffff:10.99.92.59 remoteGids::ffff:10.99.91.63 hca mlx5_1"
	log := "tpgds-aihub0007:177792:177792 [5] NCCL INFO Init timings - ncclCommInitRank: rank 5 nranks 16 total 1.58 (kernels 0.26, alloc 0.97, bootstrap 0.07, allgathers 0.01, topo 0.06, graphs 0.00, connections 0.21, rest 0.00)\n" +
		"tpgds-aihub0007:177794:177794 [7] NCCL INFO AllReduce: opCount 0 sendbuff 0x7fb201e00400 recvbuff 0x7fb201e00400 count 1 datatype 7 op 0 root 0 comm 0x558f79e65f00 [nranks=16] stream 0x558f83fe3ca0\n" +
		"tpgds-aihub0007:177794:177794 [7] NCCL INFO misc/utils.cc:233 memory stack hunk malloc(65536)\n" +
		"\n" + warn + "\n" +
		"tpgds-aihub0007:185303:186751 [1] NCCL INFO transport/net.cc:1227 -> 6\n"
	r := oneRun(t, log, Options{Now: now})
	if r.Verdict != v.Failed || r.Cause != v.NCCL || r.Phase != v.Distributed || r.RuleID != "nccl.ib_completion" {
		t.Fatalf("%q %q in %q by %q: %s; want failed: nccl in distributed by nccl.ib_completion", r.Verdict, r.Cause, r.Phase, r.RuleID, r.Summary)
	}
	if len(r.Evidence) == 0 || r.Evidence[0] != warn {
		t.Errorf("evidence %q; want the WARN first", r.Evidence)
	}
	// Without the WARN, the same lines end in distributed with no verdict.
	r = oneRun(t, strings.Replace(log, warn+"\n", "", 1), Options{Now: now})
	if r.Verdict != "" || r.Phase != v.Distributed {
		t.Errorf("without the WARN: %q in %q; want no verdict in distributed", r.Verdict, r.Phase)
	}
}

// TestTailsOfServing: users' logs that begin while the server served,
// some lines before the one that shows it (a launcher's last words), are
// ready before they begin, and all of their lines are the life after
// ready.
func TestTailsOfServing(t *testing.T) {
	tests := []struct {
		name, log string
		server    string
		how       string
		cause     v.Cause
		evidence  string // in the life's evidence
	}{
		// A fork of llama-server on Windows, with its default prefix
		// (2026): the assert has none.
		{"llama.cpp aborts", "26.12.365.673 W slot create_check: id  3 | task 11647 | created context checkpoint 32 of 32 (pos_min = 135669, pos_max = 135669, n_tokens = 135670, size = 682.175 MiB)\n" +
			"26.12.467.002 I srv  log_server_r: done request: POST /v1/chat/completions 10.1.1.11 200\n" +
			`E:\AI-models\llm-server-build\src-njannasch\ggml\src\ggml.c:1808: GGML_ASSERT(obj_new) failed` + "\n",
			"llamacpp", LifeDied, v.Crash, "GGML_ASSERT(obj_new) failed"},
		// TGI#2280: ShardFailed ends the launcher only once its webserver
		// runs.
		{"tgi's shard died", "2024-07-22T19:57:05.908774Z  INFO shard-manager: text_generation_launcher: shard terminated rank=3\n" +
			"2024-07-22T19:57:06.504541Z  INFO shard-manager: text_generation_launcher: shard terminated rank=2\n" +
			"Error: ShardFailed\n",
			"tgi", LifeDied, v.Crash, "Error: ShardFailed"},
		// vLLM on Ascend, two DP engines (vllm-ascend#1170): the server is
		// named by the lines after the served request.
		{"vllm named after ready", "....INFO:     127.0.0.1:51658 - \"POST /v1/completions HTTP/1.1\" 200 OK\n" +
			"INFO 06-11 11:46:37 [loggers.py:118] Engine 000: Avg prompt throughput: 1.9 tokens/s, Avg generation throughput: 10.3 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%\n" +
			"(EngineCore_0 pid=2651) ERROR 06-11 11:46:39 [core.py:517] EngineCore encountered a fatal error.\n" +
			"(EngineCore_0 pid=2651) ERROR 06-11 11:46:39 [core.py:517] AttributeError: 'DPEngineCoreProc' object has no attribute 'dp_rank'\n",
			"vllm", LifeDied, v.Crash, "AttributeError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := oneRun(t, tt.log, Options{Now: now})
			if r.Verdict != v.Ready || r.Server != tt.server || !strings.Contains(r.Summary, "already serving where the log begins") {
				t.Fatalf("%q %q: %s; want %s already serving", r.Verdict, r.Server, r.Summary, tt.server)
			}
			for _, p := range r.Phases {
				if p.Seconds != 0 {
					t.Errorf("phase %s took %vs; no step of a start is in the log", p.Name, p.Seconds)
				}
			}
			if r.Life == nil || r.Life.How != tt.how || r.Life.Cause != tt.cause || !strings.Contains(strings.Join(r.Life.Evidence, "\n"), tt.evidence) {
				t.Errorf("after ready %+v; want %s: %s with %q", r.Life, tt.how, tt.cause, tt.evidence)
			}
		})
	}
}

// TestUnitRestart: under systemd, a start begins at systemd's line that
// it started the unit (with journalctl's mark of a new boot before it),
// not at the server's first line 46 s later (a user's journal, vLLM
// 0.26, 2026).
func TestUnitRestart(t *testing.T) {
	log := "Aug 25 17:51:27 sys0 vllm[44555]: (APIServer pid=44555) INFO:     127.0.0.1:38134 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n" +
		"Aug 25 17:51:32 sys0 vllm[44555]: (APIServer pid=44555) INFO:     Application shutdown complete.\n" +
		"Aug 25 17:51:33 sys0 systemd[2183]: Stopped vLLM Qwen3.8-27B BF16 (PRODUCTION: YaRN 896K context, TP=2 GPU2+GPU0).\n" +
		"Aug 25 17:51:33 sys0 systemd[2183]: qwen3.8-27b-bf16-896k.service: Consumed 4min 3.003s CPU time.\n" +
		"-- Boot e5061244a3c441e38ce24d980accccd7 --\n" +
		"Aug 25 19:31:24 sys0 systemd[2126]: Started vLLM Qwen3.8-27B BF16 (PRODUCTION: YaRN 896K context, TP=2 GPU2+GPU0).\n" +
		"Aug 25 19:32:10 sys0 vllm[7222]: (APIServer pid=7222) INFO 08-25 19:32:10 [api_utils.py:345]\n" +
		"Aug 25 19:32:10 sys0 vllm[7222]: (APIServer pid=7222) INFO 08-25 19:32:10 [api_utils.py:345]        \u2588     \u2588     \u2588\u2584   \u2584\u2588\n" +
		"Aug 25 19:32:10 sys0 vllm[7222]: (APIServer pid=7222) INFO 08-25 19:32:10 [api_utils.py:345]  \u2584\u2584 \u2584\u2588 \u2588     \u2588     \u2588 \u2580\u2584\u2580 \u2588  version 0.26.0\n" +
		"Aug 25 19:32:10 sys0 vllm[7222]: (APIServer pid=7222) INFO 08-25 19:32:10 [api_utils.py:273] non-default args: {'model_tag': 'Qwen/Qwen3.8-27B', 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_xml', 'host': '0.0.0.0', 'port': 8001, 'model': 'Qwen/Qwen3.8-27B', 'trust_remote_code': True, 'revision': '1d4bf0f2ff6012fd82039f2fa52739d0dd7c60c0', 'max_model_len': 917504, 'served_model_name': ['qwen3.8-27b-bf16-896k'], 'hf_overrides': {'text_config': {'rope_parameters': {'mrope_interleaved': True, 'mrope_section': [11, 11, 10], 'rope_type': 'yarn', 'rope_theta': 10000000, 'partial_rotary_factor': 0.25, 'factor': 3.5, 'original_max_position_embeddings': 262144}}}, 'reasoning_parser': 'qwen3', 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 2}\n" +
		"Aug 25 19:32:10 sys0 vllm[7222]: (APIServer pid=7222) INFO 08-25 19:32:10 [arg_utils.py:779] HF_HUB_OFFLINE is True, replace model_id [Qwen/Qwen3.8-27B] to model_path [/data/nvidia/hf_cache/hub/models--Qwen--Qwen3.8-27B/snapshots/1d4bf0f2ff6012fd82039f2fa52739d0dd7c60c0]\n"
	runs := readAll(t, strings.NewReader(log), Options{Now: now})
	if len(runs) != 2 {
		t.Fatalf("got %d runs, want 2", len(runs))
	}
	if runs[0].Lines != 4 || runs[1].FirstLine != 5 {
		t.Errorf("runs of lines %d-%d and from %d; want 1-4 and from 5 (the boot's mark)", runs[0].FirstLine, runs[0].FirstLine+runs[0].Lines-1, runs[1].FirstLine)
	}
	if ph := runs[1].Phases; len(ph) == 0 || ph[0].Name != v.Launch || ph[0].Seconds != 46 {
		t.Errorf("phases %+v; want launch 46s first, from systemd's start to the server's first line", ph)
	}
}

// TestPastedLogs: a log pasted with what every line of it got (a
// Markdown code block's indent, a quote's "> ") reads as the log itself:
// its stamps, its server, its verdict.
func TestPastedLogs(t *testing.T) {
	// llama-server's router, a model server that failed (a user's
	// notes, 2026); and a traceback, whose frames stay indented.
	plain := "[50534] 0.00.053.440 E llama_model_load_from_file_impl: failed to load model\n" +
		"[50534] 0.00.053.441 E srv    load_model: failed to load model, './models/qwen.gguf'\n" +
		"[50534] 0.00.053.641 E srv  llama_server: exiting due to model loading error\n"
	tb := "Traceback (most recent call last):\n" +
		`  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/api_server.py", line 1, in run_server` + "\n" +
		"\n" +
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 135.00 GiB.\n"
	paste := func(log, margin, blank string) string {
		var b strings.Builder
		for _, l := range strings.SplitAfter(log, "\n") {
			switch {
			case l == "":
			case l == "\n":
				b.WriteString(blank + "\n")
			default:
				b.WriteString(margin + l)
			}
		}
		return b.String()
	}
	for _, log := range []string{plain, tb} {
		want := oneRun(t, log, Options{Now: now})
		for _, p := range []struct{ name, margin, blank string }{
			{"indented", "    ", ""},
			{"indented twice", "        ", "    "},
			{"quoted", "> ", ">"},
		} {
			t.Run(p.name, func(t *testing.T) {
				got := oneRun(t, paste(log, p.margin, p.blank), Options{Now: now})
				if got.Server != want.Server || got.Verdict != want.Verdict || got.Cause != want.Cause || got.Summary != want.Summary ||
					got.Timed != want.Timed || got.Phase != want.Phase {
					t.Errorf("got %s %q %q %s (%s); want %s %q %q %s (%s)", got.Server, got.Verdict, got.Cause, got.Phase, got.Summary,
						want.Server, want.Verdict, want.Cause, want.Phase, want.Summary)
				}
			})
		}
	}
}

// TestDownloadBeforeTheBanner: llama-server's -hf download comes before
// its logger's banner and moves the phase to weights; the banner after it
// is the same start's, whether the server is given or found.
func TestDownloadBeforeTheBanner(t *testing.T) {
	_, log := render(t, "../../testdata/scenarios/shared/llamacpp-mmproj-incomplete-failed-to-load.json")
	for _, server := range []string{"", "llamacpp"} {
		runs := readAll(t, bytes.NewReader(log), Options{Now: now, Server: server})
		if len(runs) != 1 || runs[0].Verdict != v.Failed {
			t.Errorf("server %q: %d runs, the first %q; want one failed run", server, len(runs), runs[0].Verdict)
		}
	}
}

// TestStopAfterAQuietReady: a ready line believed once the next stamped
// line comes minutes later leaves that line to the life after ready,
// whose stop it dates (NGC vLLM 26.01 with colours, a user's log, 2026).
func TestStopAfterAQuietReady(t *testing.T) {
	tag := "\x1b[0;36m(APIServer pid=1)\x1b[0;0m "
	log := tag + "INFO 02-05 00:05:28 [api_server.py:1] vLLM API server version 0.13.0\n" +
		tag + "INFO 02-05 00:07:28 [api_server.py:1428] Starting vLLM API server 0 on http://0.0.0.0:8000\n" +
		tag + "INFO:     Started server process [1]\n" +
		tag + "INFO:     Waiting for application startup.\n" +
		tag + "INFO:     Application startup complete.\n" +
		tag + "INFO 02-05 00:11:38 [launcher.py:110] Shutting down FastAPI HTTP server.\n" +
		tag + "INFO:     Shutting down\n" +
		tag + "INFO:     Waiting for application shutdown.\n" +
		tag + "INFO:     Application shutdown complete.\n"
	r := oneRun(t, log, Options{Now: now})
	if r.Verdict != v.Ready || r.Life == nil || r.Life.How != LifeStopped || r.Life.After != 4*time.Minute+10*time.Second {
		t.Fatalf("%q, after ready %+v; want ready, then stopped after 4m10s", r.Verdict, r.Life)
	}
	if ev := r.Life.Evidence; len(ev) != 1 || ev[0] != "(APIServer pid=1) INFO:     Application shutdown complete." {
		t.Errorf("evidence %q; want the stop line without its colours", ev)
	}
}

// TestKernelWarmupIsCompile: vLLM tunes its kernels after the KV cache is
// made and before the CUDA graphs are captured (FlashInfer's autotune,
// DeepGEMM's JIT): minutes of compile work, not the KV cache's (a user's
// vLLM 0.26 log, 2026: 4m10s that read as kv_cache).
func TestKernelWarmupIsCompile(t *testing.T) {
	log := `(EngineCore pid=4076649) INFO 08-20 17:20:00 [core.py:116] Initializing a V1 LLM engine (v0.26.0) with config: model='/m'
(Worker_TP0_EP0 pid=4155524) INFO 08-20 17:22:37 [gpu_worker.py:560] Available KV cache memory: 50.62 GiB
(EngineCore pid=4076649) INFO 08-20 17:22:37 [kv_cache_utils.py:2177] GPU KV cache size: 1,139,456 tokens
(Worker_TP0_EP0 pid=4155524) INFO 08-20 17:22:37 [gpu_worker.py:774] Compile and warming up model for size 8192
(Worker_TP0_EP0 pid=4155524) 2026-08-20 17:22:38,164 - INFO - autotuner.py:651 - flashinfer.jit: [Autotuner]: Autotuning process starts ...
(Worker_TP0_EP0 pid=4155524) 2026-08-20 17:26:35,933 - INFO - autotuner.py:674 - flashinfer.jit: [Autotuner]: Autotuning process ends
(Worker_TP0_EP0 pid=4155524) INFO 08-20 17:26:35 [kernel_warmup.py:65] Warming up ll_bf16 router GEMM kernels.
(Worker_TP0_EP0 pid=4155524) INFO 08-20 17:26:47 [gpu_model_runner.py:6798] Rank 0: Torch profiler disabled for CUDA graph capture
(Worker_TP0_EP0 pid=4155524) INFO 08-20 17:28:08 [gpu_model_runner.py:6844] Graph capturing finished in 82 secs, took 4.13 GiB
(EngineCore pid=4076649) INFO 08-20 17:28:16 [core.py:340] init engine (profile, create kv cache, warmup model) took 469.04 s (compilation: 55.52 s)
`
	r := oneRun(t, log, Options{Now: now})
	got := map[v.Phase]float64{}
	for _, p := range r.Phases {
		got[p.Name] += p.Seconds
	}
	if got[v.KVCache] != 0 || got[v.Compile] != 250 || got[v.CUDAGraph] != 81 {
		t.Errorf("phases %+v; want kv_cache 0s, compile 4m10s, cuda_graph 1m21s", r.Phases)
	}
}

// TestStoppedWhileStarting: a start that a signal stopped is said to be
// stopped, with a hint about who stops servers, not one that blames the
// step it was in (vLLM 0.7's SIGTERM handler while the weights loaded,
// sent by a liveness probe; a user's notes, 2025).
func TestStoppedWhileStarting(t *testing.T) {
	start := "INFO 02-06 18:29:50 api_server.py:1] vLLM API server version 0.7.2\n" +
		"Loading safetensors checkpoint shards:   0% Completed | 0/2 [00:00<?, ?it/s]\n"
	stopped := start + "Traceback (most recent call last):\n" +
		`  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/api_server.py", line 871, in signal_handler` + "\n" +
		`    raise KeyboardInterrupt("terminated")` + "\n" +
		"KeyboardInterrupt: terminated\n"
	r := oneRun(t, stopped, Options{Now: now})
	if r.Verdict != "" || r.Phase != v.Weights || !strings.HasPrefix(r.Summary, "stopped in phase weights") || r.Hint != stoppedHint {
		t.Errorf("%q in %s: %s (%s); want no verdict, stopped in weights", r.Verdict, r.Phase, r.Summary, r.Hint)
	}
	if len(r.Evidence) < 2 || r.Evidence[1] != "KeyboardInterrupt: terminated" || slices.Index(r.Evidence[2:], "KeyboardInterrupt: terminated") >= 0 {
		t.Errorf("evidence %q; want the stop right after vigil's line, once", r.Evidence)
	}
	r = oneRun(t, start, Options{Now: now})
	if !strings.HasPrefix(r.Summary, "ended in phase weights") || r.Hint == stoppedHint {
		t.Errorf("%s (%s); want a start that just ends", r.Summary, r.Hint)
	}
}

// TestEndsWaiting: a log whose last line is a wait a server repeats
// (vLLM's API server for its engine core) gets that wait's hint.
func TestEndsWaiting(t *testing.T) {
	log := "(APIServer pid=1) INFO 08-23 10:00:00 [api_server.py:1] vLLM API server version 0.10.1\n" +
		"(EngineCore_DP0 pid=2) INFO 08-23 10:00:01 [parallel_state.py:1] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0\n" +
		"(APIServer pid=1) INFO 08-23 10:00:11 [utils.py:900] Waiting for 1 local, 0 remote core engine proc(s) to start.\n" +
		"(APIServer pid=1) INFO 08-23 10:00:21 [utils.py:900] Waiting for 1 local, 0 remote core engine proc(s) to start.\n"
	r := oneRun(t, log, Options{Now: now})
	if r.Verdict != "" || !strings.Contains(r.Hint, "its last line was a wait: vLLM's API server waits for its engine core") {
		t.Errorf("%q: %s (%s); want no verdict and the wait's hint", r.Verdict, r.Summary, r.Hint)
	}
}

// TestExceptionMessageOverLines: an exception whose message runs on over
// unindented lines (PyYAML's ParserError, read by trtllm-serve's
// --config) still ends the log in that error.
func TestExceptionMessageOverLines(t *testing.T) {
	log := "[TensorRT-LLM] TensorRT-LLM version: 1.2.0\n" +
		"Traceback (most recent call last):\n" +
		`  File "/usr/local/lib/python3.12/dist-packages/yaml/parser.py", line 439, in parse_block_mapping_key` + "\n" +
		`    raise ParserError("while parsing a block mapping", self.marks[-1],` + "\n" +
		"yaml.parser.ParserError: while parsing a block mapping\n" +
		`  in "/workspace/extra-llm-api-config.yml", line 1, column 1` + "\n" +
		"expected <block end>, but found '<block mapping start>'\n" +
		`  in "/workspace/extra-llm-api-config.yml", line 3, column 3` + "\n"
	r := oneRun(t, log, Options{Now: now})
	if r.Verdict != v.Failed || r.Cause != v.Config {
		t.Errorf("%q %q: %s; want failed: config", r.Verdict, r.Cause, r.Summary)
	}
	// An exception no rule knows, its message on two lines, ends the log
	// in that exception; more plain lines than a message runs on are the
	// process going on.
	unknown := "[TensorRT-LLM] TensorRT-LLM version: 1.2.0\n" +
		"Traceback (most recent call last):\n" +
		`  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/commands/serve.py", line 580, in serve` + "\n" +
		"RuntimeError: something broke\n" +
		"second line of the message\n"
	if r := oneRun(t, unknown, Options{Now: now}); r.Verdict != v.Failed || r.Cause != v.Exception {
		t.Errorf("%q %q: %s; want failed: exception", r.Verdict, r.Cause, r.Summary)
	}
	if r := oneRun(t, unknown+"a\nb\nc\nd\n", Options{Now: now}); r.Verdict != "" {
		t.Errorf("%q: %s; want no verdict after five plain lines", r.Verdict, r.Summary)
	}
}

// TestDeepGEMMJITIsCompile: SGLang's DeepGEMM JIT runs inside the first
// CUDA graph capture; a log that ends in it ends in compile, with the
// hint of a compile that had not finished, and the capture after it is
// the capture again.
func TestDeepGEMMJITIsCompile(t *testing.T) {
	start := "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8)\n" +
		"[2026-11-29 10:04:40 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=11.93 GB\n" +
		"[2026-11-29 10:04:45 TP0] Entering DeepGEMM JIT Pre-Compile session. It may take a long time (typically 10-20 mins) if you have not run `sglang.compile_deep_gemm`.\n" +
		"[2026-11-29 10:04:45 TP0] Try DeepGEMM JIT Compiling for <GEMM_NT_F8F8BF16> N=24576, K=1536, num_groups=1 with all Ms.\n" +
		"DeepGEMM warmup:  41%|████      | 6712/16384 [00:29<00:43, 223.10it/s]\n" +
		"[2026-11-29 10:06:00 TP0] Try DeepGEMM JIT Compiling for <GEMM_NT_F8F8BF16> N=32768, K=512, num_groups=1 with all Ms.\n"
	r := oneRun(t, start, Options{Now: now})
	if r.Verdict != "" || r.Phase != v.Compile || !strings.Contains(r.Hint, "a kernel compile that had not finished") {
		t.Errorf("%q in %s (%s); want no verdict in compile with the compile hint", r.Verdict, r.Phase, r.Hint)
	}
	r = oneRun(t, start+"Capturing batches (bs=256 avail_mem=11.71 GB):   3%|▎         | 1/36 [00:01<00:40,  1.15s/it]\n", Options{Now: now})
	if r.Phase != v.CUDAGraph {
		t.Errorf("phase %s after the capture's next bar; want cuda_graph", r.Phase)
	}
}

// TestNotableWarnings: a run's notable warnings are in its text and JSON,
// ready or not, including one printed before any line named the server
// (llama-server's, before its logger starts). Real lines (build 10587,
// -ngl 99 on a CPU build; --mlock under a 16 KiB memlock limit).
func TestNotableWarnings(t *testing.T) {
	ready := strings.Join([]string{
		"warning: no usable GPU found, --gpu-layers option will be ignored",
		"warning: one possible reason is that llama.cpp was compiled without GPU support",
		"warning: consult docs/build.md for compilation instructions",
		"0.00.017.119 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)",
		"0.00.020.101 I srv    load_model: loading model '/models/tiny.gguf'",
		"0.00.535.676 I srv  llama_server: model loaded",
	}, "\n") + "\n"
	r := oneRun(t, ready, Options{})
	if r.Verdict != v.Ready || len(r.Notable) != 1 || r.Notable[0].ID != "llamacpp.no_gpu" || r.Notable[0].Line != "warning: no usable GPU found, --gpu-layers option will be ignored" {
		t.Fatalf("%s with notable %+v; want ready with llamacpp.no_gpu and its line", r.Verdict, r.Notable)
	}
	var text, js bytes.Buffer
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "  notable\n    speed: llama.cpp found no GPU to offload to") {
		t.Errorf("text has no notable section:\n%s", text.String())
	}
	if err := WriteJSON(&js, "", r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Notable []map[string]any `json:"notable"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Notable) != 1 || got.Notable[0]["id"] != "llamacpp.no_gpu" || got.Notable[0]["effect"] != "speed" || got.Notable[0]["count"] != 1.0 {
		t.Errorf("JSON notable %v; want llamacpp.no_gpu, speed, once", got.Notable)
	}

	// A run cut while it loads has no verdict, and still its warnings.
	cut := strings.Join([]string{
		"0.00.008.328 W DEPRECATED: --mlock is deprecated. use --load-mode mlock instead",
		"0.00.009.035 I cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)",
		"0.00.013.667 I srv    load_model: loading model '/models/tiny.gguf'",
		"0.00.115.333 W warning: failed to mlock 16715776-byte buffer (after previously locking 0 bytes): Cannot allocate memory",
		"Try increasing RLIMIT_MEMLOCK ('ulimit -l' as root).",
	}, "\n") + "\n"
	r = oneRun(t, cut, Options{})
	if r.Verdict != "" || len(r.Notable) != 1 || r.Notable[0].ID != "llamacpp.mlock_failed" {
		t.Errorf("%q with notable %+v; want no verdict with llamacpp.mlock_failed", r.Verdict, r.Notable)
	}
	js.Reset()
	if err := WriteJSON(&js, "", oneRun(t, "0.00.013.667 I srv    load_model: loading model 'm.gguf'\n", Options{})); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), "notable") {
		t.Errorf("a run without notable warnings has the field: %s", js.String())
	}
}
