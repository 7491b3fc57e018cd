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
		{"llama.cpp download", "common_download_file: previous metadata file found", "llamacpp", false},
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
	} {
		if !has(want) {
			t.Errorf("no clause %+v in %+v", want, clauses)
		}
	}
	if len(clauses) != 15 {
		t.Errorf("%d clauses, want one per alternative (15)", len(clauses))
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
