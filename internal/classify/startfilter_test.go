package classify

import (
	"strings"
	"testing"
)

var bannerCases = []struct {
	name, line string
	banner     bool
}{
	{"sglang", "[2026-05-24 00:52:39] server_args=ServerArgs(model_path='x')", true},
	{"sglang dict", "[2026-09-11 23:34:03] server_args={'model_path': '/models/DeepSeek-V4.1-Flash', 'tp_size': 3}", true},
	{"sglang old launcher", "WARNING: `python -m sglang.launch_server' is still supported, use `sglang serve`", true},
	{"vllm", "(APIServer pid=1) INFO 05-19 10:00:00 [api_server.py:1839] vLLM API server version 0.11.0", true},
	{"vllm logo", "(APIServer pid=2960) INFO 02-20 10:00:00 [utils.py:287]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.16.0", true},
	{"vllm logo's model line", "(APIServer pid=2960) INFO 02-20 10:00:00 [utils.py:287]   █▄█▀ █     █     █     █  model   Qwen/Qwen3-8B", false},
	{"vllm old", "INFO 01-14 03:08:50 api_server.py:528] args: Namespace(host=None)", true},
	{"tgi", "2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Args {", true},
	{"llama.cpp cuda", "ggml_cuda_init: found 1 CUDA devices:", true},
	{"llama.cpp download retry", "W common_download_file_single_online: retrying after 4 seconds...", false},
	{"llama.cpp download failure", "common_download_file_single_online: download failed after 3 attempts", false},
	{"llama.cpp download start", "common_download_file: previous metadata file found /root/.cache/llama.cpp/x.json", true},
	{"llama.cpp vulkan", "ggml_vulkan: Found 1 Vulkan devices:", true},
	{"llama.cpp build", "build: 4798 (1782cdfe) with cc (GCC) 12.2.0 for x86_64-linux-gnu", true},
	{"llama.cpp prefixed build", "0.00.000.100 I build: 4798 (1782cdfe)", true},
	{"llama.cpp main build", "main: build = 4798 (1782cdfe)", true},
	{"llama.cpp backend", "load_backend: loaded CUDA backend from /app/libggml-cuda.so", true},
	{"trtllm version", "[TensorRT-LLM] TensorRT-LLM version: 0.17.0", true},
	{"trtllm version upper", "TENSORRT-LLM VERSION 1.0", true},
	{"trtllm starting", "[TRT-LLM] Starting the executor", true},
	{"trtllm prefix taken off", "[11/29/2026-10:00:00] [TRT-LLM] [I] Starting TensorRT-LLM init.", false},
	{"trtllm other", "[11/29/2026-10:00:00] [TRT-LLM] [I] iter = 1203, global_rank = 0", false},
	{"vllm line", "(APIServer pid=1) INFO 05-19 10:00:00 [x.py:1] Started server process", false},
	{"build not at start", "[2026-05-24 00:52:39] rebuild: 3 kernels", false},
	{"coloured", "\x1b[2m2026-01-08T10:00:00.123456Z\x1b[0m \x1b[32m INFO\x1b[0m text_generation_launcher: Args {", true},
	{"empty", "", false},
}

func TestIsBanner(t *testing.T) {
	for _, tt := range bannerCases {
		t.Run(tt.name, func(t *testing.T) {
			msg := ParseFast(tt.line).Msg
			if got := BannerServer(msg) != ""; got != tt.banner {
				t.Errorf("BannerServer(%q) = %v, want %v", msg, got, tt.banner)
			}
			if tt.banner && !MayBeBanner(tt.line) {
				t.Errorf("MayBeBanner(%q) = false for a banner", tt.line)
			}
		})
	}
}

// TestMayBeBannerQuiet: the filter turns ordinary lines away, which is
// what makes it worth having.
func TestMayBeBannerQuiet(t *testing.T) {
	for _, l := range []string{
		"(APIServer pid=2817) INFO 05-13 20:08:41 [loggers.py:123] Engine 000: Avg prompt throughput: 512.3 tokens/s, Avg generation throughput: 812.0 tokens/s",
		"[2026-05-13 21:22:53] [TRT-LLM] [I] iter = 1203, global_rank = 0, rank = 0, currank_total_requests = 0/3",
		`[2026-05-13 17:10:55] INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
		"slot launch_slot_: id  0 | task 1205 | processing task",
	} {
		if MayBeBanner(l) {
			t.Errorf("MayBeBanner(%q) = true", l)
		}
	}
}

func TestIsPreBanner(t *testing.T) {
	tests := []struct {
		name, line string
		pre        bool
	}{
		{"vLLM's platform line", "INFO 05-19 10:00:00 [__init__.py:216] Automatically detected platform cuda.", true},
		{"vLLM's logo, empty line", "(APIServer pid=2960) INFO 02-20 10:00:00 [utils.py:287] ", true},
		{"vLLM's logo, top row", "(APIServer pid=2960) INFO 02-20 10:00:00 [utils.py:287]        █     █     █▄   ▄█", true},
		{"vLLM 0.28's logo, top row", "(APIServer pid=41277) INFO 11-29 10:00:00 [api_utils.py:352]        █     █     █▄   ▄█", true},
		{"vLLM 0.28's logo, empty line", "(APIServer pid=41277) INFO 11-29 10:00:00 [api_utils.py:352] ", true},
		{"a warning from an __init__.py", "/usr/lib/python3/torch/cuda/__init__.py:12: UserWarning: x", false},
		{"vLLM's utils saying something", "(APIServer pid=2960) INFO 02-20 10:00:00 [utils.py:223] non-default args: {}", false},
	}
	for _, tt := range tests {
		if got := IsPreBanner(tt.line); got != tt.pre {
			t.Errorf("%s: IsPreBanner = %v, want %v", tt.name, got, tt.pre)
		}
	}
}

// FuzzMayBeBanner: MayBeBanner never turns a banner away.
func FuzzMayBeBanner(f *testing.F) {
	for _, tt := range bannerCases {
		f.Add(tt.line)
	}
	f.Add(strings.Repeat("x", 40) + "main: build")
	f.Fuzz(func(t *testing.T, line string) {
		if BannerServer(ParseFast(line).Msg) != "" && !MayBeBanner(line) {
			t.Errorf("MayBeBanner(%q) = false for a banner", line)
		}
	})
}

// TestScanSpecialIsScanAndSpecial: the fused pass finds an escape or a
// byte outside ASCII wherever it sits, and the same windows as scan.
func TestScanSpecialIsScanAndSpecial(t *testing.T) {
	base := "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x') load_backend: ok"
	for n := 0; n <= len(base); n++ {
		for at := -1; at < n; at++ {
			for _, b := range []byte{0x1b, 0x80, 0xe2} {
				s := []byte(base[:n])
				if at >= 0 {
					s[at] = b
				}
				m, sp := bannerGrams.scanSpecial(string(s))
				if wm, wsp := bannerGrams.scan(string(s)), special(string(s)); m != wm || sp != wsp {
					t.Fatalf("scanSpecial(%q) = %x, %v; scan and special say %x, %v", s, m, sp, wm, wsp)
				}
			}
		}
	}
}

func FuzzScanSpecial(f *testing.F) {
	f.Add("[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')")
	f.Add("\x1b[32mINFO\x1b[0m load_backend: loaded")
	f.Fuzz(func(t *testing.T, s string) {
		m, sp := bannerGrams.scanSpecial(s)
		if wm, wsp := bannerGrams.scan(s), special(s); m != wm || sp != wsp {
			t.Fatalf("scanSpecial(%q) = %x, %v; scan and special say %x, %v", s, m, sp, wm, wsp)
		}
	})
}

// scan is scanSpecial's windows alone, in their plainest form: the
// reference the fused pass is tested against.
func (g *gramFilter) scan(s string) uint32 {
	var m uint32
	for i := 0; i+gramLen <= len(s); i += g.step {
		m |= g.masks[gramHash(s, i)]
	}
	return m
}

// BenchmarkMayBeBanner runs the banner filter over the real-shaped log,
// as explain does over every line of a log.
func BenchmarkMayBeBanner(b *testing.B) {
	lines := realShapedLog(b, 4<<20)
	for b.Loop() {
		for _, l := range lines {
			MayBeBanner(l)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(lines)), "ns/line")
}
