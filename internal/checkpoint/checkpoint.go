// Package checkpoint reads what a model's checkpoint says about itself,
// from its files on this machine: a local model directory, or the Hugging
// Face cache. It never downloads anything.
//
// Servers print quantization=None when they leave the choice to the
// checkpoint; [Effective] answers with the checkpoint's own method, in the
// servers' vocabulary, so that --expect quantization=modelopt_fp4 can be
// confirmed or contradicted.
//
// # Where a model is looked for
//
// A model argument that is an existing directory is the checkpoint itself
// (config.json inside it); an existing .json file is read as its
// config.json. Anything else that looks like a Hub repository ID (ORG/NAME
// or NAME) is looked up in the Hugging Face cache:
//
//	$HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub,
//	else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub
//
// there as models--ORG--NAME/snapshots/REVISION/, where REVISION is the one
// refs/main names, else the newest snapshot holding a config.json.
//
// # Where the quantization is read
//
// As SGLang and vLLM read it: config.json's quantization_config, else its
// compression_config (compressed-tensors), else text_config's
// quantization_config (multimodal models), else a ModelOpt
// hf_quant_config.json beside it. No such entry means the checkpoint is not
// quantized.
package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"vigil/internal/lazyre"
)

// ErrNotFound is wrapped when a model has no config.json on this machine
// (not a local checkpoint, not in the Hugging Face cache).
var ErrNotFound = errors.New("checkpoint not found on this machine")

// maxConfigBytes bounds what is read of one JSON file: configs are a few
// kilobytes; a huge file is not one.
const maxConfigBytes = 16 << 20

// Quantization is a checkpoint's own quantization.
type Quantization struct {
	// Method is the server's name for it: "fp8", "awq", "gptq",
	// "modelopt" (ModelOpt FP8), "modelopt_fp4", "modelopt_mxfp8",
	// "compressed-tensors", "mxfp4", "bitsandbytes", ...; "" when the
	// checkpoint is not quantized. Servers may run it with a faster
	// kernel of the same format and print that name (awq_marlin for awq).
	Method string
	// Declared is quant_method as the file wrote it ("modelopt" for an
	// NVFP4 checkpoint whose Method is "modelopt_fp4").
	Declared string
	// Algo is the format detail when the file gives one: ModelOpt's
	// quant_algo ("NVFP4"), compressed-tensors' format, bitsandbytes'
	// 4-bit type, "w4" for 4-bit AWQ/GPTQ.
	Algo string
	// KVCacheAlgo is ModelOpt's kv_cache_quant_algo ("FP8"), if given.
	KVCacheAlgo string
	// File is the file the answer came from.
	File string
}

// Names lists the names a server may print for q's method: the method
// itself, then its other spellings and the faster kernels of the same
// format that servers switch to on their own (vLLM runs an awq checkpoint
// as awq_marlin). An unquantized checkpoint has none.
func (q Quantization) Names() []string {
	if q.Method == "" {
		return nil
	}
	return append([]string{q.Method}, sameFormat[q.Method]...)
}

// sameFormat are the other names of a checkpoint format, as SGLang and
// vLLM print them.
var sameFormat = map[string][]string{
	"modelopt":           {"modelopt_fp8"},
	"modelopt_fp8":       {"modelopt"},
	"compressed-tensors": {"compressed_tensors", "w8a8_fp8"},
	"awq":                {"awq_marlin"},
	"gptq":               {"gptq_marlin", "gptq_marlin_24"},
}

// Effective finds model's checkpoint (see the package doc) and reads its
// quantization. The error wraps ErrNotFound when there is no checkpoint on
// this machine.
func Effective(model string, getenv func(string) string) (Quantization, error) {
	path, err := Locate(model, getenv)
	if err != nil {
		return Quantization{}, err
	}
	return ReadQuantization(path)
}

// Locate returns the path of model's config.json. The error wraps
// ErrNotFound when there is none on this machine.
func Locate(model string, getenv func(string) string) (string, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return "", fmt.Errorf("checkpoint: no model given: %w", ErrNotFound)
	}
	if fi, err := os.Stat(model); err == nil {
		if fi.IsDir() {
			p := filepath.Join(model, "config.json")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("checkpoint %s: no config.json: %w", model, ErrNotFound)
			}
			return p, nil
		}
		if strings.HasSuffix(model, ".json") {
			return model, nil
		}
		return "", fmt.Errorf("checkpoint %s: a file, not a checkpoint directory: %w", model, ErrNotFound)
	}
	if !repoID.Get().MatchString(model) || strings.Contains(model, "..") {
		return "", fmt.Errorf("checkpoint %s: not a local path or a Hub repository ID: %w", model, ErrNotFound)
	}
	cache := hubCache(getenv)
	if cache == "" {
		return "", fmt.Errorf("checkpoint %s: no Hugging Face cache (HF_HOME and HOME unset): %w", model, ErrNotFound)
	}
	repo := filepath.Join(cache, "models--"+strings.ReplaceAll(model, "/", "--"))
	if p, ok := snapshotConfig(repo); ok {
		return p, nil
	}
	return "", fmt.Errorf("checkpoint %s: not in the Hugging Face cache %s: %w", model, cache, ErrNotFound)
}

// repoID is a Hub repository ID: NAME or ORG/NAME.
var repoID = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$`)

// hubCache is huggingface_hub's cache directory, from the same variables
// in the same order.
func hubCache(getenv func(string) string) string {
	for _, v := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"} {
		if d := getenv(v); d != "" {
			return d
		}
	}
	if d := getenv("HF_HOME"); d != "" {
		return filepath.Join(d, "hub")
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "huggingface", "hub")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "huggingface", "hub")
	}
	return ""
}

// snapshotConfig finds config.json in a cached repository: in the snapshot
// refs/main names, else in the newest snapshot that has one.
func snapshotConfig(repo string) (string, bool) {
	snaps := filepath.Join(repo, "snapshots")
	if ref, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err == nil {
		rev := strings.TrimSpace(string(ref))
		if rev != "" && !strings.ContainsAny(rev, `/\`) && rev != ".." {
			p := filepath.Join(snaps, rev, "config.json")
			if _, err := os.Stat(p); err == nil {
				return p, true
			}
		}
	}
	entries, err := os.ReadDir(snaps)
	if err != nil {
		return "", false
	}
	var best string
	var bestTime int64
	for _, e := range entries {
		p := filepath.Join(snaps, e.Name(), "config.json")
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if t := fi.ModTime().UnixNano(); best == "" || t > bestTime {
			best, bestTime = p, t
		}
	}
	return best, best != ""
}

// ReadQuantization reads the quantization a config.json declares (see the
// package doc), with a ModelOpt hf_quant_config.json beside it.
func ReadQuantization(configPath string) (Quantization, error) {
	var cfg struct {
		Quantization map[string]any `json:"quantization_config"`
		Compression  map[string]any `json:"compression_config"`
		Text         struct {
			Quantization map[string]any `json:"quantization_config"`
		} `json:"text_config"`
	}
	if err := readJSON(configPath, &cfg); err != nil {
		return Quantization{}, err
	}
	for _, qc := range []map[string]any{cfg.Quantization, cfg.Compression, cfg.Text.Quantization} {
		if qc != nil {
			q := fromQuantConfig(qc)
			q.File = configPath
			return q, nil
		}
	}
	hfq := filepath.Join(filepath.Dir(configPath), "hf_quant_config.json")
	if _, err := os.Stat(hfq); err == nil {
		var m map[string]any
		if err := readJSON(hfq, &m); err != nil {
			return Quantization{}, err
		}
		q := fromHFQuantConfig(m)
		q.File = hfq
		return q, nil
	}
	return Quantization{File: configPath}, nil
}

func readJSON(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if len(data) > maxConfigBytes {
		return fmt.Errorf("checkpoint %s: larger than %d MiB, not a config file", path, maxConfigBytes>>20)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

// fromQuantConfig reads a quantization_config object.
func fromQuantConfig(qc map[string]any) Quantization {
	declared := strings.ToLower(str(qc["quant_method"]))
	q := Quantization{Declared: declared, Method: declared}
	switch declared {
	case "modelopt", "modelopt_fp4", "modelopt_fp8", "modelopt_mxfp8":
		// Newer ModelOpt exports write quant_algo into config.json; older
		// ones nest hf_quant_config.json's "quantization" object.
		algo := str(qc["quant_algo"])
		kv := str(qc["kv_cache_quant_algo"])
		if inner, ok := qc["quantization"].(map[string]any); ok {
			algo = first(algo, str(inner["quant_algo"]))
			kv = first(kv, str(inner["kv_cache_quant_algo"]))
		}
		q.Algo, q.KVCacheAlgo = algo, kv
		if declared == "modelopt" {
			q.Method = modeloptMethod(algo)
		}
	case "compressed_tensors", "compressed-tensors":
		q.Method = "compressed-tensors"
		q.Algo = str(qc["format"])
	case "bitsandbytes":
		switch {
		case truthy(qc["load_in_4bit"]):
			q.Algo = first(str(qc["bnb_4bit_quant_type"]), "4bit")
		case truthy(qc["load_in_8bit"]):
			q.Algo = "int8"
		}
	case "awq", "gptq":
		if b := num(qc["bits"]); b != "" {
			q.Algo = "w" + b
		}
	case "":
		// Some producers write only a ModelOpt-style producer block.
		if p, ok := qc["producer"].(map[string]any); ok && strings.HasPrefix(strings.ToLower(str(p["name"])), "modelopt") {
			return fromHFQuantConfig(qc)
		}
	}
	return q
}

// fromHFQuantConfig reads ModelOpt's hf_quant_config.json.
func fromHFQuantConfig(m map[string]any) Quantization {
	inner, _ := m["quantization"].(map[string]any)
	algo := str(inner["quant_algo"])
	q := Quantization{Declared: "modelopt", Algo: algo, KVCacheAlgo: str(inner["kv_cache_quant_algo"])}
	if algo != "" {
		q.Method = modeloptMethod(algo)
	}
	return q
}

// modeloptMethod names a ModelOpt checkpoint as SGLang and vLLM do: FP4
// formats are modelopt_fp4, MXFP8 modelopt_mxfp8, FP8 and the rest plain
// modelopt.
func modeloptMethod(algo string) string {
	a := strings.ToUpper(algo)
	switch {
	case strings.Contains(a, "FP4"):
		return "modelopt_fp4"
	case strings.Contains(a, "MXFP8"):
		return "modelopt_mxfp8"
	}
	return "modelopt"
}

func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

func num(v any) string {
	if f, ok := v.(float64); ok && f > 0 && f == float64(int(f)) {
		return fmt.Sprint(int(f))
	}
	return ""
}

func truthy(v any) bool {
	b, _ := v.(bool)
	return b
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
