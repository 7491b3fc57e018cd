package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Config files as the Hub's checkpoints write them (trimmed to the
// quantization part and a little around it).
func TestReadQuantization(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		hfQuant string // hf_quant_config.json beside it, if any
		want    Quantization
	}{
		{
			name:   "unquantized",
			config: `{"architectures":["LlamaForCausalLM"],"torch_dtype":"bfloat16"}`,
			want:   Quantization{},
		},
		{
			name:   "block fp8 (DeepSeek-V3, Qwen3-FP8)",
			config: `{"quantization_config":{"activation_scheme":"dynamic","fmt":"e4m3","quant_method":"fp8","weight_block_size":[128,128]}}`,
			want:   Quantization{Method: "fp8", Declared: "fp8"},
		},
		{
			name:   "modelopt nvfp4 in config.json",
			config: `{"quantization_config":{"quant_method":"modelopt","quant_algo":"NVFP4","kv_cache_quant_algo":"FP8","group_size":16}}`,
			want:   Quantization{Method: "modelopt_fp4", Declared: "modelopt", Algo: "NVFP4", KVCacheAlgo: "FP8"},
		},
		{
			name:    "modelopt nvfp4 in hf_quant_config.json only",
			config:  `{"architectures":["DeepseekV3ForCausalLM"]}`,
			hfQuant: `{"producer":{"name":"modelopt","version":"0.23.0"},"quantization":{"quant_algo":"NVFP4","kv_cache_quant_algo":null,"group_size":16,"exclude_modules":["lm_head"]}}`,
			want:    Quantization{Method: "modelopt_fp4", Declared: "modelopt", Algo: "NVFP4"},
		},
		{
			name:    "modelopt fp8 in hf_quant_config.json",
			config:  `{}`,
			hfQuant: `{"producer":{"name":"modelopt"},"quantization":{"quant_algo":"FP8","kv_cache_quant_algo":"FP8"}}`,
			want:    Quantization{Method: "modelopt", Declared: "modelopt", Algo: "FP8", KVCacheAlgo: "FP8"},
		},
		{
			name:   "modelopt nested quantization object",
			config: `{"quantization_config":{"quant_method":"modelopt","producer":{"name":"modelopt"},"quantization":{"quant_algo":"MXFP8"}}}`,
			want:   Quantization{Method: "modelopt_mxfp8", Declared: "modelopt", Algo: "MXFP8"},
		},
		{
			name:   "awq",
			config: `{"quantization_config":{"bits":4,"group_size":128,"quant_method":"awq","version":"gemm","zero_point":true}}`,
			want:   Quantization{Method: "awq", Declared: "awq", Algo: "w4"},
		},
		{
			name:   "gptq upper case",
			config: `{"quantization_config":{"bits":8,"quant_method":"GPTQ","desc_act":false}}`,
			want:   Quantization{Method: "gptq", Declared: "gptq", Algo: "w8"},
		},
		{
			name:   "compressed-tensors nvfp4 under compression_config",
			config: `{"compression_config":{"quant_method":"compressed-tensors","format":"nvfp4-pack-quantized","config_groups":{}}}`,
			want:   Quantization{Method: "compressed-tensors", Declared: "compressed-tensors", Algo: "nvfp4-pack-quantized"},
		},
		{
			name:   "compressed_tensors spelling",
			config: `{"quantization_config":{"quant_method":"compressed_tensors","format":"float-quantized"}}`,
			want:   Quantization{Method: "compressed-tensors", Declared: "compressed_tensors", Algo: "float-quantized"},
		},
		{
			name:   "gpt-oss mxfp4",
			config: `{"quantization_config":{"modules_to_not_convert":["model.layers.*.self_attn"],"quant_method":"mxfp4"}}`,
			want:   Quantization{Method: "mxfp4", Declared: "mxfp4"},
		},
		{
			name:   "bitsandbytes nf4",
			config: `{"quantization_config":{"quant_method":"bitsandbytes","load_in_4bit":true,"bnb_4bit_quant_type":"nf4"}}`,
			want:   Quantization{Method: "bitsandbytes", Declared: "bitsandbytes", Algo: "nf4"},
		},
		{
			name:   "multimodal: text_config holds it",
			config: `{"architectures":["Llama4ForConditionalGeneration"],"text_config":{"quantization_config":{"quant_method":"fp8"}}}`,
			want:   Quantization{Method: "fp8", Declared: "fp8"},
		},
		{
			name:    "config.json wins over hf_quant_config.json",
			config:  `{"quantization_config":{"quant_method":"fp8"}}`,
			hfQuant: `{"producer":{"name":"modelopt"},"quantization":{"quant_algo":"NVFP4"}}`,
			want:    Quantization{Method: "fp8", Declared: "fp8"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "config.json")
			write(t, cfg, tc.config)
			want := tc.want
			want.File = cfg
			if tc.hfQuant != "" {
				write(t, filepath.Join(dir, "hf_quant_config.json"), tc.hfQuant)
				if tc.want.Method != "fp8" {
					want.File = filepath.Join(dir, "hf_quant_config.json")
				}
			}
			got, err := ReadQuantization(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestReadQuantizationBadFiles(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "config.json")
	write(t, bad, `{"quantization_config": {`)
	if _, err := ReadQuantization(bad); err == nil {
		t.Error("truncated JSON: no error")
	}
	if _, err := ReadQuantization(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
	// A quantization_config that is not an object is a broken config, not
	// an unquantized one.
	notObject := filepath.Join(t.TempDir(), "config.json")
	write(t, notObject, `{"quantization_config": "fp8"}`)
	if _, err := ReadQuantization(notObject); err == nil {
		t.Error("quantization_config as a string: no error")
	}
}

// env returns a getenv that knows only vars.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestLocate(t *testing.T) {
	root := t.TempDir()
	fp4 := `{"quantization_config":{"quant_method":"modelopt","quant_algo":"NVFP4"}}`

	local := filepath.Join(root, "models", "DeepSeek-R1-FP4")
	write(t, filepath.Join(local, "config.json"), fp4)
	write(t, filepath.Join(root, "models", "weights-only", "model.safetensors"), "x")

	// HF_HOME layout with refs/main naming the current snapshot and an
	// older snapshot beside it.
	hfHome := filepath.Join(root, "hf")
	repo := filepath.Join(hfHome, "hub", "models--nvidia--DeepSeek-R1-FP4")
	write(t, filepath.Join(repo, "refs", "main"), "abc123\n")
	write(t, filepath.Join(repo, "snapshots", "abc123", "config.json"), fp4)
	write(t, filepath.Join(repo, "snapshots", "old999", "config.json"), `{}`)

	// The default cache under HOME, no refs: the newest snapshot counts.
	home := filepath.Join(root, "home")
	noRefs := filepath.Join(home, ".cache", "huggingface", "hub", "models--Qwen--Qwen3-8B")
	write(t, filepath.Join(noRefs, "snapshots", "older", "config.json"), `{}`)
	write(t, filepath.Join(noRefs, "snapshots", "newer", "config.json"), `{"quantization_config":{"quant_method":"fp8"}}`)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(noRefs, "snapshots", "older", "config.json"), old, old); err != nil {
		t.Fatal(err)
	}

	hubCacheDir := filepath.Join(root, "hubcache")
	write(t, filepath.Join(hubCacheDir, "models--gpt2", "snapshots", "r1", "config.json"), `{}`)

	tests := []struct {
		name, model string
		env         map[string]string
		want        string // "" means ErrNotFound
	}{
		{"local directory", local, nil, filepath.Join(local, "config.json")},
		{"local config file", filepath.Join(local, "config.json"), nil, filepath.Join(local, "config.json")},
		{"local directory without config.json", filepath.Join(root, "models", "weights-only"), nil, ""},
		{"a weights file is no checkpoint", filepath.Join(root, "models", "weights-only", "model.safetensors"), nil, ""},
		{"HF_HOME with refs/main", "nvidia/DeepSeek-R1-FP4", map[string]string{"HF_HOME": hfHome, "HOME": home},
			filepath.Join(repo, "snapshots", "abc123", "config.json")},
		{"HOME default cache, newest snapshot", "Qwen/Qwen3-8B", map[string]string{"HOME": home},
			filepath.Join(noRefs, "snapshots", "newer", "config.json")},
		{"XDG_CACHE_HOME", "Qwen/Qwen3-8B", map[string]string{"XDG_CACHE_HOME": filepath.Join(home, ".cache")},
			filepath.Join(noRefs, "snapshots", "newer", "config.json")},
		{"HF_HUB_CACHE beats HF_HOME", "gpt2", map[string]string{"HF_HUB_CACHE": hubCacheDir, "HF_HOME": hfHome},
			filepath.Join(hubCacheDir, "models--gpt2", "snapshots", "r1", "config.json")},
		{"not cached", "meta-llama/Llama-3.1-8B", map[string]string{"HF_HOME": hfHome}, ""},
		{"no cache at all", "nvidia/DeepSeek-R1-FP4", nil, ""},
		{"path traversal is no repo ID", "../hf/hub", map[string]string{"HF_HOME": hfHome}, ""},
		{"empty", "", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Locate(tc.model, env(tc.env))
			if tc.want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("got %q, %v; want ErrNotFound", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestEffective(t *testing.T) {
	hfHome := t.TempDir()
	write(t, filepath.Join(hfHome, "hub", "models--nvidia--Llama-3.3-70B-Instruct-FP4", "snapshots", "s", "hf_quant_config.json"),
		`{"producer":{"name":"modelopt"},"quantization":{"quant_algo":"NVFP4"}}`)
	write(t, filepath.Join(hfHome, "hub", "models--nvidia--Llama-3.3-70B-Instruct-FP4", "snapshots", "s", "config.json"),
		`{"architectures":["LlamaForCausalLM"]}`)
	q, err := Effective("nvidia/Llama-3.3-70B-Instruct-FP4", env(map[string]string{"HF_HOME": hfHome}))
	if err != nil {
		t.Fatal(err)
	}
	if q.Method != "modelopt_fp4" {
		t.Errorf("Method = %q, want modelopt_fp4", q.Method)
	}
	if _, err := Effective("nvidia/absent", env(map[string]string{"HF_HOME": hfHome})); !errors.Is(err, ErrNotFound) {
		t.Errorf("absent model: %v, want ErrNotFound", err)
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		q    Quantization
		want []string
	}{
		{Quantization{}, nil},
		{Quantization{Method: "modelopt_fp4"}, []string{"modelopt_fp4"}},
		{Quantization{Method: "modelopt"}, []string{"modelopt", "modelopt_fp8"}},
		{Quantization{Method: "awq"}, []string{"awq", "awq_marlin"}},
	}
	for _, tc := range tests {
		if got := tc.q.Names(); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.q.Method, got, tc.want)
		}
	}
}
