package stamp

import (
	"slices"
	"testing"
	"time"
)

func TestReader(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, loc)
	tests := []struct {
		name, line string
		want       time.Time // zero: no stamp
	}{
		{"sglang", "[2026-01-10 11:00:01] Load weight begin.", time.Date(2026, 1, 10, 11, 0, 1, 0, loc)},
		{"sglang fraction and ranks", "[2026-01-10 11:00:01.25 TP0] x", time.Date(2026, 1, 10, 11, 0, 1, 250_000_000, loc)},
		{"vllm, last year's december", "INFO 12-31 23:00:00 [x.py:1] y", time.Date(2025, 12, 31, 23, 0, 0, 0, loc)},
		{"vllm child process", "(EngineCore_DP0 pid=7) WARNING 01-10 11:59:00 [x.py:1] y", time.Date(2026, 1, 10, 11, 59, 0, 0, loc)},
		// Ray's driver re-prints its actor's line (vLLM 0.11, data parallel
		// over two nodes).
		{"vllm ray actor under the driver's tag", "(APIServer pid=5332) (DPEngineCoreActor pid=5862) INFO 01-10 06:14:41 [gpu_model_runner.py:2602] Starting to load model", time.Date(2026, 1, 10, 6, 14, 41, 0, loc)},
		// SGLang's engine as a Ray actor (a user's notes, 2026-02).
		{"sglang under ray's actor tag", "(SGLangEngine pid=206831) [2026-01-10 11:00:01] Scheduler hit an exception: Traceback (most recent call last):", time.Date(2026, 1, 10, 11, 0, 1, 0, loc)},
		{"docker compose", "qwen3.5-9b  | (APIServer pid=1) INFO 01-10 06:14:41 [api_server.py:491] Supported tasks: ['generate']", time.Date(2026, 1, 10, 6, 14, 41, 0, loc)},
		{"docker compose, timestamps", "vllm-1  | 2026-01-10T10:00:00.5Z (APIServer pid=1) x", time.Date(2026, 1, 10, 10, 0, 0, 500_000_000, time.UTC)},
		{"docker desktop", "2026-01-10 11:00:01.250 | 0.21.162.989 I srv  load_model: loading model", time.Date(2026, 1, 10, 11, 0, 1, 250_000_000, loc)},
		{"docker desktop, seconds", "2026-01-10 11:00:01 [2026-01-09 19:00:01 TP0] Load weight begin. avail mem=22.76 GB", time.Date(2026, 1, 10, 11, 0, 1, 0, loc)},
		{"journalctl", "Jan 10 11:00:01 dgx vllm.sh[742182]: (EngineCore pid=742182) INFO 01-10 11:00:01 [x.py:1] y", time.Date(2026, 1, 10, 11, 0, 1, 0, loc)},
		{"journalctl, a day padded", "Jan  9 23:59:59 dgx vllm.sh[742182]: [6.0K blob data]", time.Date(2026, 1, 9, 23, 59, 59, 0, loc)},
		{"journalctl, last year's december", "Dec 31 23:00:00 dgx llama-server[9]: main: loading model", time.Date(2025, 12, 31, 23, 0, 0, 0, loc)},
		{"journalctl -o short-precise", "Jan 10 11:00:01.250000 dgx llama-server[9]: main: loading model", time.Date(2026, 1, 10, 11, 0, 1, 250_000_000, loc)},
		{"journalctl -o short-iso", "2026-01-10T11:00:01+02:00 dgx llama-server[9]: main: loading model", time.Date(2026, 1, 10, 9, 0, 1, 0, time.UTC)},
		{"journalctl -o short-iso, older systemd", "2026-01-10T11:00:01-0130 dgx llama-server[9]: main: loading model", time.Date(2026, 1, 10, 12, 30, 1, 0, time.UTC)},
		{"journalctl -o short-iso-precise", "2026-01-10T11:00:01.500000+00:00 dgx vllm[9]: (EngineCore pid=9) INFO 01-10 11:00:01 [x.py:1] y", time.Date(2026, 1, 10, 11, 0, 1, 500_000_000, time.UTC)},
		{"podman logs -t", "2026-01-10T11:00:01.123456789+02:00 main: loading model", time.Date(2026, 1, 10, 9, 0, 1, 123_456_789, time.UTC)},
		{"a node's container log", "2026-01-10T11:00:01.5Z stderr F (APIServer pid=1) INFO 01-10 11:00:01 [x.py:1] y", time.Date(2026, 1, 10, 11, 0, 1, 500_000_000, time.UTC)},
		{"kubectl logs --prefix", "[pod/vllm-7d9f8c6b5-x2k4q/vllm] (APIServer pid=1) INFO 01-10 06:14:41 [api_server.py:491] Supported tasks: ['generate']", time.Date(2026, 1, 10, 6, 14, 41, 0, loc)},
		{"kubectl logs --prefix --timestamps", "[pod/vllm-0/vllm] 2026-01-10T10:00:00.5Z (APIServer pid=1) x", time.Date(2026, 1, 10, 10, 0, 0, 500_000_000, time.UTC)},
		{"journalctl in German", "Okt 05 16:43:01 tuxai systemd[1]: llama-server.service: Failed with result 'oom-kill'.", time.Date(2025, 10, 5, 16, 43, 1, 0, loc)},
		{"python logging in a vllm worker", "(Worker_TP0 pid=57) 2026-01-10 07:20:41,666 - INFO - autotuner.py:641 - flashinfer.jit: [Autotuner]: Autotuning process ends", time.Date(2026, 1, 10, 7, 20, 41, 666_000_000, loc)},
		{"python logging", "2026-01-10 04:21:17,836 - INFO - flashinfer.jit: Loading JIT ops: norm", time.Date(2026, 1, 10, 4, 21, 17, 836_000_000, loc)},
		// Wrappers' Python loggers (NVIDIA NIM 1.0, Ray, KServe, Ray
		// Serve, InstructLab; users' logs 2024-2025).
		{"nim", "2024-07-23 22:27:23,428 [INFO] PyTorch version 2.2.2 available.", time.Date(2024, 7, 23, 22, 27, 23, 428_000_000, loc)},
		{"ray", "2025-01-13 10:12:19,545\tINFO worker.py:1654 -- Connecting to existing Ray cluster at address: 10.0.0.1:6379...", time.Date(2025, 1, 13, 10, 12, 19, 545_000_000, loc)},
		{"kserve", "2024-07-01 07:28:04.488 1 kserve ERROR [__main__.py:<module>():254] Failed to start model server: integer division or modulo by zero", time.Date(2024, 7, 1, 7, 28, 4, 488_000_000, loc)},
		{"ray serve", "(ServeReplica:default:LLMDeploymentqwen-0_5b pid=14262) ERROR 2025-05-23 00:42:04,876 default_LLMDeploymentqwen-0_5b c5e4a3 -- x", time.Date(2025, 5, 23, 0, 42, 4, 876_000_000, loc)},
		{"instructlab", "INFO 2025-03-19 08:17:28,422 instructlab.model.backends.vllm:85: vLLM server terminated by keyboard", time.Date(2025, 3, 19, 8, 17, 28, 422_000_000, loc)},
		{"a date in a message", "2024-07-23 22:27:23,428", time.Time{}},
		{"a table row", "system_info: n_threads = 4 | AVX = 1 | AVX2 = 1", time.Time{}},
		{"iso is UTC", "2026-01-10T10:00:00.5Z  INFO text_generation_launcher: x", time.Date(2026, 1, 10, 10, 0, 0, 500_000_000, time.UTC)},
		{"tensorrt-llm", "[01/10/2026-11:00:00] [TRT-LLM] [I] x", time.Date(2026, 1, 10, 11, 0, 0, 0, loc)},
		{"srun --label", " 1: [01/10/2026-11:00:00] [TRT-LLM] [RANK 1] [I] x", time.Date(2026, 1, 10, 11, 0, 0, 0, loc)},
		{"srun --label, sglang", "0: [2026-01-10 11:00:01 TP0] Load weight begin.", time.Date(2026, 1, 10, 11, 0, 1, 0, loc)},
		{"coloured", "\x1b[2m2026-01-10T10:00:00Z\x1b[0m \x1b[32m INFO\x1b[0m x", time.Date(2026, 1, 10, 10, 0, 0, 0, time.UTC)},
		{"no stamp", "Traceback (most recent call last):", time.Time{}},
		{"bad month", "[2026-13-10 11:00:01] x", time.Time{}},
	}
	r := NewReader(loc, now)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Of(tt.line)
			want := int64(0)
			if !tt.want.IsZero() {
				want = tt.want.UnixNano()
			}
			if got != want {
				t.Errorf("Of = %v, want %v", time.Unix(0, got), tt.want)
			}
		})
	}
}

func TestParseRefusesMalformedText(t *testing.T) {
	for _, tt := range []struct {
		text string
		kind Kind
	}{
		{"2026-01-10 11:00", SGLang},
		{"2026-01-10 11:00:01.x", SGLang},
		{"01-10 11:00", VLLM},
		{"2026-01-10T10:00:00", ISO},
		{"01/10/2026-11:00", TRT},
		{"2026-01-10 11:00:01", 0},
	} {
		if _, ok := Parse(tt.text, tt.kind, time.UTC, time.Now()); ok {
			t.Errorf("Parse(%q, %c) accepted it", tt.text, tt.kind)
		}
	}
}

// TestYearNow: a log's dated stamps decide the year of its year-less ones
// when the log is from an earlier year (vllm#20226's log, read a year on,
// fell in two runs a year apart).
func TestYearNow(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, loc)
	vllm := "(VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511] WorkerProc failed to start."
	tests := []struct {
		name  string
		lines []string
		want  time.Time
		// yearLess is when the (one) year-less line falls with the result.
		yearLess time.Time
	}{
		{"no dated line", []string{vllm}, now, time.Date(2026, 8, 11, 10, 45, 36, 0, loc)},
		{"a dated line of an earlier year", []string{"[2025-08-11 10:45:36] server:2699411:2699411 [0] init.cc:416 NCCL WARN Cuda failure 'operation not supported'", vllm},
			time.Date(2025, 8, 11, 10, 45, 36, 0, loc).Add(yearAhead), time.Date(2025, 8, 11, 10, 45, 36, 0, loc)},
		{"a runtime's dated prefix", []string{"vllm-1  | 2025-12-30T23:59:00Z (APIServer pid=1) x", "(APIServer pid=1) INFO 12-31 00:59:00 [x.py:1] y"},
			now, time.Date(2025, 12, 31, 0, 59, 0, 0, loc)},
		{"a dated line this year", []string{"[11/30/2026-10:00:00] [TRT-LLM] [I] x", vllm}, now, time.Date(2026, 8, 11, 10, 45, 36, 0, loc)},
		{"a year-less line after a dated one", []string{"[10/14/2025-09:31:07] [TRT-LLM] [W] x", "INFO 02-01 10:00:00 [x.py:1] y"},
			time.Date(2025, 10, 14, 9, 31, 7, 0, loc).Add(yearAhead), time.Date(2026, 2, 1, 10, 0, 0, 0, loc)},
		{"a year-less line just before a dated one", []string{"INFO 08-10 23:00:00 [x.py:1] y", "[08/11/2025-09:31:07] [TRT-LLM] [W] x"},
			time.Date(2025, 8, 11, 9, 31, 7, 0, loc).Add(yearAhead), time.Date(2025, 8, 10, 23, 0, 0, 0, loc)},
		{"a year-less line a day and more before a dated one", []string{"INFO 03-07 12:29:02 __init__.py:190] Automatically detected platform cuda.", "[2025-03-08 12:29:04] server_args=ServerArgs(model_path='/home/model/Qwen/QwQ-32B')"},
			time.Date(2025, 3, 8, 12, 29, 4, 0, loc).Add(yearAhead), time.Date(2025, 3, 7, 12, 29, 2, 0, loc)},
		{"only year-less and unstamped lines", []string{"Traceback (most recent call last):", "INFO 12-24 03:04:05 [x.py:1] y"}, now, time.Date(2025, 12, 24, 3, 4, 5, 0, loc)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := YearNow(slices.Values(tt.lines), loc, now)
			if !got.Equal(tt.want) {
				t.Fatalf("YearNow = %v, want %v", got, tt.want)
			}
			i := slices.IndexFunc(tt.lines, func(l string) bool { _, k := Text(l); return k == VLLM })
			r := NewReader(loc, now)
			r.Of(tt.lines[i]) // cached as placed before now: SetNow must forget it
			r.SetNow(got)
			if at := time.Unix(0, r.Of(tt.lines[i])); !at.Equal(tt.yearLess) {
				t.Errorf("the year-less line falls at %v, want %v", at.In(loc), tt.yearLess)
			}
		})
	}
}
