package classify

import (
	"slices"
	"testing"
)

func TestBannerOf(t *testing.T) {
	tests := []struct {
		name, msg, server string
		lead              bool
	}{
		{"sglang", "server_args=ServerArgs(model_path='x')", "sglang", false},
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
		{Folded: []string{"[trt-llm]", "tarting"}},
	} {
		if !has(want) {
			t.Errorf("no clause %+v in %+v", want, clauses)
		}
	}
	if len(clauses) != 14 {
		t.Errorf("%d clauses, want one per alternative (14)", len(clauses))
	}
}
