package classify

import (
	"slices"
	"testing"
	"time"
)

func TestBannerOf(t *testing.T) {
	tests := []struct {
		name, msg, server string
		lead              bool
	}{
		{"sglang", "server_args=ServerArgs(model_path='x')", "sglang", false},
		{"sglang's resolved dict", "server_args={'model_path': '/models/x', 'tp_size': 3}", "sglang", false},
		{"sglang's lead", "`python -m sglang.launch_server' is still supported, use `sglang serve`", "sglang", true},
		{"vllm", "vLLM API server version 0.11.0", "vllm", false},
		{"tgi", "Args {", "tgi", false},
		{"llama.cpp download", "common_download_file: previous metadata file found", "llamacpp", true},
		{"llama.cpp download retry is none", "common_download_file_single_online: retrying after 4 seconds...", "", false},
		{"trtllm, any case", "TENSORRT-LLM VERSION 1.0", "trtllm", false},
		{"none", "Load weight begin.", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server, lead := BannerOf(tt.msg)
			if server != tt.server || lead != tt.lead {
				t.Errorf("BannerOf = %q, %v; want %q, %v", server, lead, tt.server, tt.lead)
			}
		})
	}
}

// The clauses are read off the patterns: each alternative's literals.
func TestBannerClauses(t *testing.T) {
	clauses, ok := BannerClauses()
	if !ok {
		t.Fatal("a banner pattern needs no literal")
	}
	has := func(want Clause) bool {
		return slices.ContainsFunc(clauses, func(c Clause) bool {
			return slices.Equal(c.Exact, want.Exact) && slices.Equal(c.Folded, want.Folded)
		})
	}
	for _, want := range []Clause{
		{Exact: []string{"vLLM ", "server version"}},
		{Exact: []string{"ggml_vulkan: Found ", " Vulkan devices"}},
		{Exact: []string{"Args {"}},
		{Exact: []string{"[TRT-LLM]", "Starting"}},
		{Folded: []string{"orrt-llm ver"}},
		{Exact: []string{"common_params_print_info: "}},
		{Exact: []string{"server_args=ServerArgs("}},
		{Exact: []string{"server_args={'"}},
		{Exact: []string{"sglang.launch_server' is still supported"}},
		{Exact: []string{"main: build = "}},
	} {
		if !has(want) {
			t.Errorf("no clause %+v in %+v", want, clauses)
		}
	}
	if len(clauses) != 16 {
		t.Errorf("%d clauses, want one per alternative (16)", len(clauses))
	}
}

// TestBannerFilterWindows: the clauses that go through the banner filter's
// windows have literals of 12 bytes or more, so that it looks at every
// 7th window of a line (a shorter literal is looked for on its own); and
// no literal's windows are among the commonest of a serving log's lines.
func TestBannerFilterWindows(t *testing.T) {
	if bannerAlways {
		t.Fatal("the banner filter passes every line")
	}
	if bannerGrams.step < 7 {
		t.Errorf("the banner filter looks at every %dth window, want every 7th or fewer", bannerGrams.step)
	}
	for _, l := range []string{
		"slot launch_slot_: id  0 | task 1205 | processing task",
		"srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
		`2026-05-21T15:53:30.200000Z  INFO chat_completions{total_time="1.20s"}: text_generation_router::server: router/src/server.rs:40000: Success`,
	} {
		if m, _ := bannerGrams.scanSpecial(l); m != 0 {
			t.Errorf("the banner filter's windows pass %q (mask %x)", l, m)
		}
	}
}

func TestRelativeTime(t *testing.T) {
	tests := []struct {
		line string
		want time.Duration
		ok   bool
	}{
		{"0.00.213.525 I srv  llama_server: model loaded", 213525 * time.Microsecond, true},
		{"12.03.000.001 W x", 12*time.Minute + 3*time.Second + time.Microsecond, true},
		{"0.00.000.000 E ", 0, true},
		{"0.00.213.525 X srv", 0, false},
		{"0.00.213 I srv", 0, false},
		{"[2026-01-01 10:00:00] x", 0, false},
	}
	for _, tt := range tests {
		got, ok := RelativeTime(tt.line)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RelativeTime(%q) = %v, %v; want %v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSaysListening(t *testing.T) {
	for line, want := range map[string]bool{
		"INFO:     Application startup complete.":                                 true,
		"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)": true,
		"INFO:     Started server process [7]":                                    false,
	} {
		if got := SaysListening(line); got != want {
			t.Errorf("SaysListening(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestContainerTitle: the banner of NGC and CUDA images
// (nvidia_entrypoint.sh), as sglang#3226's and TensorRT-LLM's logs show it.
func TestContainerTitle(t *testing.T) {
	for _, tt := range []struct {
		line        string
		title, rule bool
	}{
		{"== CUDA ==", true, false},
		{"== TensorRT-LLM ==", true, false},
		{"== Triton Inference Server ==\r", true, false},
		{"==========", false, true},
		{"===", false, true},
		{"== ==", false, false},
		{"a == b ==", false, false},
		{"== a == b ==", false, false},
		{"CUDA Version 12.4.1", false, false},
		{"", false, false},
	} {
		if got := IsContainerTitle(tt.line); got != tt.title {
			t.Errorf("IsContainerTitle(%q) = %v, want %v", tt.line, got, tt.title)
		}
		if got := IsRule(tt.line); got != tt.rule {
			t.Errorf("IsRule(%q) = %v, want %v", tt.line, got, tt.rule)
		}
	}
}

// TestJournalLines: systemd's line that it started a unit, and
// journalctl's mark of a new boot (users' journals, 2026).
func TestJournalLines(t *testing.T) {
	for _, tt := range []struct {
		line        string
		start, boot bool
	}{
		{"Aug 25 19:31:24 sys0 systemd[2126]: Started vLLM Qwen3.8-27B BF16 (PRODUCTION: YaRN 896K context, TP=2 GPU2+GPU0).", true, false},
		{"Feb 22 06:35:31 jeebs-Z490-AORUS-MASTER systemd[1]: Started vllm-assistant.service - vLLM OpenAI Server (assistant).", true, false},
		{"2026-08-23T18:09:58+02:00 dgx systemd[1]: Started vllm.service.", true, false},
		{"Feb 22 06:35:31 jeebs-Z490-AORUS-MASTER systemd[1]: vllm-assistant.service: Scheduled restart job, restart counter is at 1.", false, false},
		{"Aug 25 17:51:33 sys0 systemd[2183]: Stopped vLLM Qwen3.8-27B BF16 (PRODUCTION: YaRN 896K context, TP=2 GPU2+GPU0).", false, false},
		{"Aug 25 19:32:10 sys0 vllm[7222]: Started server process [7222]", false, false},
		{"Aug 25 19:32:10 sys0 systemd[]: Started x", false, false},
		{"-- Boot e5061244a3c441e38ce24d980accccd7 --", false, true},
		{"-- Reboot --", false, true},
		{"-- No entries --", false, false},
		{"-- Boot", false, false},
	} {
		if got := IsUnitStart(tt.line); got != tt.start {
			t.Errorf("IsUnitStart(%q) = %v, want %v", tt.line, got, tt.start)
		}
		if got := IsJournalBoot(tt.line); got != tt.boot {
			t.Errorf("IsJournalBoot(%q) = %v, want %v", tt.line, got, tt.boot)
		}
	}
}

// TestMayBeServingOnly: the prefilter never says no to a line a profile
// says only its started server prints.
func TestMayBeServingOnly(t *testing.T) {
	for name, p := range Profiles {
		for _, lit := range p.ServingOnly {
			line := "(APIServer pid=1) ERROR 02-08 12:05:52 [x.py:1] " + lit + "."
			if !ServingOnly(p, line) || !MayBeServingOnly(line) {
				t.Errorf("%s: %q: ServingOnly %v, MayBeServingOnly %v; want both", name, line, ServingOnly(p, line), MayBeServingOnly(line))
			}
		}
	}
	if MayBeServingOnly("INFO 02-08 12:05:40 [api_server.py:1395] vLLM API server version 0.15.0") {
		t.Error("a startup line may be serving-only")
	}
}

func TestTracebackBody(t *testing.T) {
	tests := []struct {
		msg  string
		want bool
	}{
		{"Traceback (most recent call last):", true},
		{`  File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap`, true},
		{"    self.run()", true},
		{"^^^^^^^^^^^^", true},
		{"Process EngineCore:", true},
		{"Process EngineCore_DP0:", true},
		{"AssertionError", false},
		{"vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.", false},
		{"Process EngineCore died: exit code 1", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := TracebackBody(tt.msg); got != tt.want {
			t.Errorf("TracebackBody(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}
