package srvconfig

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseExpect(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []Expect
		wantErr string
	}{
		{"several", []string{"tp=4", " quantization = fp8 ", "attention_backend=fa3|flashinfer"},
			[]Expect{{"tp", "4"}, {"quantization", "fp8"}, {"attention_backend", "fa3|flashinfer"}}, ""},
		{"value with '='", []string{"served_model_name=a=b"}, []Expect{{"served_model_name", "a=b"}}, ""},
		{"none", nil, nil, ""},
		{"no '='", []string{"tp"}, nil, `--expect "tp": want KEY=VALUE (e.g. tp=4)`},
		{"no key", []string{"=4"}, nil, "the key must be one word"},
		{"key with a space", []string{"tp size=4"}, nil, "the key must be one word"},
		{"no value", []string{"tp="}, nil, "no value after '='"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseExpect(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLoadExpectFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte("# what this deployment must run with\n\ntp=8\n  quantization=modelopt_fp4\n# fp4\nfp4_gemm_runner_backend=flashinfer_cutlass\n"), 0o644)
	got, err := LoadExpectFile(good)
	if err != nil {
		t.Fatal(err)
	}
	want := []Expect{{"tp", "8"}, {"quantization", "modelopt_fp4"}, {"fp4_gemm_runner_backend", "flashinfer_cutlass"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}

	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("tp=8\njust words\n"), 0o644)
	if _, err := LoadExpectFile(bad); err == nil || !strings.Contains(err.Error(), "bad:2:") {
		t.Errorf("err = %v, want it to name line 2", err)
	}
	if _, err := LoadExpectFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestValueMatches(t *testing.T) {
	tests := []struct {
		expected, actual string
		want             bool
	}{
		{"fp8", "fp8", true},
		{"FP8", "'fp8'", true},
		{"fp8", "fp8_e4m3", false},
		{"0.9", "0.90", true},
		{"4", "4.0", true},
		{"4", "8", false},
		{"bfloat16", "torch.bfloat16", true},
		{"bf16", "torch.bfloat16", true},
		{"fp16", "half", true},
		{"float16", "torch.bfloat16", false},
		{"auto", "LoadFormat.AUTO", true},
		{"true", "True", true},
		{"enabled", "1", true},
		{"false", "True", false},
		{"None", "None", true},
		{"awq", "Some(Awq)", true},
		{"FULL_AND_PIECEWISE", "<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>", true},
		{"[1,2,4]", "[1, 2, 4]", true},
		{"fa3|flashinfer", "flashinfer", true},
		{"fa3|flashinfer", "triton", false},
		{"0.1.2", "0.1.2", true},
		{"2", "v0.2", false},
	}
	for _, tt := range tests {
		t.Run(tt.expected+" vs "+tt.actual, func(t *testing.T) {
			if got := ValueMatches(tt.expected, tt.actual); got != tt.want {
				t.Errorf("ValueMatches(%q, %q) = %v, want %v", tt.expected, tt.actual, got, tt.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	sglangInit := collect(t, "sglang", "sglang-head-server-args.log")
	sglangAll := collect(t, "sglang", "sglang-startup.log")
	vllmArgs, _ := Parse("vllm", "non-default args: {'model': 'Qwen/Qwen3-8B', 'max_model_len': 32768}")
	vllmAll := collect(t, "vllm", "vllm-v0.11-startup.log")
	vllm22 := collect(t, "vllm", "vllm-v0.22-startup.log")
	var vllmMoE Config // the same startup before its "Using ... MoE backend" line
	for _, kv := range vllm22 {
		if kv.Key != "selected.moe_backend" {
			vllmMoE = append(vllmMoE, kv)
		}
	}
	tests := []struct {
		name, kind string
		c          Config
		exp        Expect
		want       Status
		actual     string
	}{
		{"sglang tp mismatch", "sglang", sglangInit, Expect{"tp", "4"}, Mismatch, "8"},
		{"sglang fp4 backend met", "sglang", sglangInit, Expect{"fp4_gemm_runner_backend", "flashinfer_cutlass"}, Met, "flashinfer_cutlass"},
		{"sglang attention backend mismatch", "sglang", sglangInit, Expect{"attention_backend", "fa3"}, Mismatch, "trtllm_mla"},
		{"sglang quantization=None stays pending", "sglang", sglangAll, Expect{"quantization", "fp8"}, Pending, "None"},
		{"sglang dtype auto pending until the weights say", "sglang", sglangInit, Expect{"dtype", "bfloat16"}, Pending, "auto"},
		{"sglang dtype resolved by the weights", "sglang", sglangAll, Expect{"dtype", "bf16"}, Met, "torch.bfloat16"},
		{"sglang context length resolved by the scheduler", "sglang", sglangAll, Expect{"context_length", "65536"}, Mismatch, "32768"},
		{"sglang key never printed", "sglang", sglangAll, Expect{"speculative_algorithm", "EAGLE"}, Pending, ""},
		{"vllm context length mismatch", "vllm", vllmArgs, Expect{"context_length", "16384"}, Mismatch, "32768"},
		{"vllm quantization not yet printed", "vllm", vllmArgs, Expect{"quantization", "fp8"}, Pending, ""},
		{"vllm engine config makes None final", "vllm", vllmAll, Expect{"quantization", "fp8"}, Mismatch, "None"},
		{"vllm memory fraction met", "vllm", vllmAll, Expect{"gpu_memory_utilization", "0.92"}, Met, "0.92"},
		{"vllm kv cache auto is final after the engine config", "vllm", vllmAll, Expect{"kv_cache_dtype", "fp8"}, Mismatch, "auto"},
		{"vllm MoE backend waits for its Using line", "vllm", vllmMoE, Expect{"moe_backend", "CUTLASS"}, Pending, "auto"},
		{"vllm MoE backend once selected", "vllm", vllm22, Expect{"moe_backend", "CUTLASS"}, Mismatch, "TRITON"},
		{"sglang attention backend chosen by default", "sglang", sglangAll, Expect{"attention_backend", "fa3"}, Met, "fa3"},
		{"expecting None", "vllm", vllmAll, Expect{"quantization", "none"}, Met, "None"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(tt.kind, tt.c, []Expect{tt.exp})[0]
			if got.Status != tt.want || got.Actual != tt.actual {
				t.Errorf("Check = %s (actual %q), want %s (actual %q); %s", got.Status, got.Actual, tt.want, tt.actual, got)
			}
		})
	}
}

func TestOutcomeString(t *testing.T) {
	o := Outcome{Expect: Expect{"tp", "4"}, Status: Mismatch, Actual: "8", Found: true}
	if got, want := o.String(), "expected tp=4, server has 8"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
