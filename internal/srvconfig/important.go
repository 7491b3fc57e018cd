package srvconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"vigil/internal/lazyre"
)

// Canonical names of the operationally important settings, in the order
// summaries show them.
var CanonicalKeys = []string{
	"model", "quantization", "dtype", "kv_cache_dtype",
	"tp", "pp", "dp", "ep",
	"attention_backend", "moe_backend", "fp4_gemm_backend", "fp8_gemm_backend",
	"mem_fraction", "context_length", "cuda_graph", "max_running_requests",
}

// canonical describes where one canonical setting comes from per server.
type canonical struct {
	// raw lists each server's own keys, most authoritative first. Keys
	// resolved late in the startup (scheduler.*, weights.*, selected.*)
	// come first for display and are skipped by Fingerprint.
	raw map[string][]string
	// derive computes the value when it is not one printed key.
	derive func(kind string, c getter) (string, bool)
	// aliases are other spellings --expect may use for this setting.
	aliases []string
}

var canon = map[string]canonical{
	"model": {raw: map[string][]string{
		"sglang":   {"model_path", "served_model_name"},
		"vllm":     {"model", "model_tag", "served_model_name"},
		"tgi":      {"model_id"},
		"trtllm":   {"model", "model_path", "hf_model_dir"},
		"llamacpp": {"model", "general.name"},
	}, aliases: []string{"model_path", "model_id", "model_tag"}},
	"quantization": {raw: map[string][]string{
		"sglang":   {"quantization"},
		"vllm":     {"quantization"},
		"tgi":      {"quantize"},
		"trtllm":   {"quant_config.quant_algo", "quant_algo", "quantization"},
		"llamacpp": {"file_type"},
	}, aliases: []string{"quantize", "quant_algo"}},
	"dtype": {raw: map[string][]string{
		"sglang": {"weights.dtype", "dtype"},
		"vllm":   {"dtype"},
		"tgi":    {"dtype"},
		"trtllm": {"dtype"},
	}, aliases: []string{"torch_dtype"}},
	"kv_cache_dtype": {raw: map[string][]string{
		"sglang": {"kv_cache_dtype"},
		"vllm":   {"kv_cache_dtype", "cache_dtype"},
		"tgi":    {"kv_cache_dtype"},
		"trtllm": {"kv_cache_config.dtype", "kv_cache_dtype", "quant_config.kv_cache_quant_algo"},
	}, derive: deriveLlamaKV, aliases: []string{"cache_dtype", "kv_dtype"}},
	"tp": {raw: map[string][]string{
		"sglang": {"tp_size"},
		"vllm":   {"tensor_parallel_size"},
		"tgi":    {"num_shard"},
		"trtllm": {"tensor_parallel_size", "tp_size"},
	}, aliases: []string{"tp_size", "tensor_parallel_size", "num_shard"}},
	"pp": {raw: map[string][]string{
		"sglang": {"pp_size"},
		"vllm":   {"pipeline_parallel_size"},
		"trtllm": {"pipeline_parallel_size", "pp_size"},
	}, aliases: []string{"pp_size", "pipeline_parallel_size"}},
	"dp": {raw: map[string][]string{
		"sglang": {"dp_size"},
		"vllm":   {"data_parallel_size"},
		"trtllm": {"data_parallel_size", "dp_size"},
	}, aliases: []string{"dp_size", "data_parallel_size"}},
	"ep": {raw: map[string][]string{
		"sglang": {"ep_size", "expert_parallel_size"},
		"trtllm": {"moe_expert_parallel_size", "ep_size"},
	}, derive: deriveVLLMEP, aliases: []string{"ep_size", "expert_parallel_size", "moe_expert_parallel_size"}},
	"attention_backend": {raw: map[string][]string{
		"sglang": {"attention_backend", "decode_attention_backend", "prefill_attention_backend", "selected.attention_backend"},
		"vllm":   {"attention_backend", "attention_config.backend", "selected.attention_backend"},
		"trtllm": {"attn_backend", "attention_backend"},
	}, aliases: []string{"attn_backend"}},
	"moe_backend": {raw: map[string][]string{
		"sglang": {"moe_runner_backend"},
		"vllm":   {"moe_backend", "kernel_config.moe_backend", "selected.moe_backend"},
		"trtllm": {"moe_config.backend", "moe_backend"},
	}, aliases: []string{"moe_runner_backend"}},
	"fp4_gemm_backend": {raw: map[string][]string{
		"sglang": {"fp4_gemm_runner_backend", "fp4_gemm_backend"},
		"vllm":   {"kernel_config.fp4_gemm_backend"},
	}, aliases: []string{"fp4_gemm_runner_backend"}},
	"fp8_gemm_backend": {raw: map[string][]string{
		"sglang": {"fp8_gemm_runner_backend", "fp8_gemm_backend"},
		"vllm":   {"kernel_config.fp8_gemm_backend"},
	}, aliases: []string{"fp8_gemm_runner_backend"}},
	"mem_fraction": {raw: map[string][]string{
		"sglang": {"mem_fraction_static"},
		"vllm":   {"gpu_memory_utilization"},
		"tgi":    {"cuda_memory_fraction"},
		"trtllm": {"kv_cache_config.free_gpu_memory_fraction", "free_gpu_memory_fraction"},
	}, aliases: []string{"mem_fraction_static", "gpu_memory_utilization", "cuda_memory_fraction", "free_gpu_memory_fraction"}},
	"context_length": {raw: map[string][]string{
		"sglang":   {"scheduler.context_len", "context_length"},
		"vllm":     {"max_seq_len", "max_model_len"},
		"tgi":      {"max_total_tokens"},
		"trtllm":   {"max_seq_len"},
		"llamacpp": {"n_ctx"},
	}, aliases: []string{"context_len", "max_model_len", "max_seq_len", "n_ctx"}},
	"cuda_graph": {derive: deriveCUDAGraph, aliases: []string{"cuda_graphs", "cudagraph"}},
	"max_running_requests": {raw: map[string][]string{
		"sglang":   {"scheduler.max_running_requests", "max_running_requests"},
		"vllm":     {"max_num_seqs"},
		"tgi":      {"max_concurrent_requests"},
		"trtllm":   {"max_batch_size", "max_num_requests"},
		"llamacpp": {"n_slots", "n_seq_max"},
	}, aliases: []string{"max_num_seqs", "max_concurrent_requests", "max_batch_size"}},
}

// kindOrder is the order raw keys are tried in when the kind is unknown.
var kindOrder = []string{"sglang", "vllm", "trtllm", "tgi", "llamacpp"}

// rawKeys returns the raw keys for a canonical setting and server kind.
func (cn canonical) rawKeys(kind string) []string {
	if ks, ok := cn.raw[kind]; ok {
		return ks
	}
	if kind != "" && kind != "auto" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, k := range kindOrder {
		for _, r := range cn.raw[k] {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// lateKey reports keys whose values only appear once loading is under way
// (scheduler summaries, the weights' resolved dtype, the backend a server
// settled on, llama.cpp's model metadata). They are left out of the
// fingerprint so that it is the same at init time, when the ETA is looked
// up, and at the end, when the startup is recorded.
func lateKey(kind, key string) bool {
	if strings.HasPrefix(key, "scheduler.") || strings.HasPrefix(key, "weights.") || strings.HasPrefix(key, "selected.") {
		return true
	}
	if kind == "llamacpp" || kind == "" || kind == "auto" {
		switch key {
		case "file_type", "n_ctx", "type_k", "type_v", "n_slots", "n_seq_max", "gpu_layers", "general.name":
			return true
		}
	}
	return false
}

// value returns a canonical setting's value: the first of its raw keys that
// is set to something other than None or auto, else the first present at
// all.
func (cn canonical) value(kind string, c getter, declaredOnly bool) (string, bool) {
	first, found := "", false
	for _, k := range cn.rawKeys(kind) {
		if declaredOnly && lateKey(kind, k) {
			continue
		}
		v, ok := c.Get(k)
		if !ok {
			continue
		}
		if !isNone(v) && !isAuto(v) {
			return v, true
		}
		if !found {
			first, found = v, true
		}
	}
	if cn.derive != nil {
		dc := c
		if declaredOnly {
			dc = declaredView{kind, c}
		}
		if v, ok := cn.derive(kind, dc); ok {
			return v, true
		}
	}
	return first, found
}

// getter looks a key up as [Config.Get] does. The important settings are
// read only through it, so that a [Collector] can note which keys they
// depend on.
type getter interface {
	Get(key string) (string, bool)
}

// declaredView is a configuration without its late keys.
type declaredView struct {
	kind string
	c    getter
}

func (d declaredView) Get(key string) (string, bool) {
	if lateKey(d.kind, key) {
		return "", false
	}
	return d.c.Get(key)
}

// Important returns the operationally important settings under their
// canonical names (see [CanonicalKeys]), in that order, leaving out those
// the server did not print. Values are as printed; where a server printed a
// setting twice (declared, then resolved) the resolved value is shown.
func Important(kind string, c Config) []KV {
	return important(kind, c, false)
}

func important(kind string, c getter, declaredOnly bool) []KV {
	var out []KV
	for _, name := range CanonicalKeys {
		if v, ok := canon[name].value(kind, c, declaredOnly); ok {
			out = append(out, KV{name, v})
		}
	}
	return out
}

// Declared returns the important settings the fingerprint is made of:
// those known once the server has printed its arguments (no late keys).
func Declared(kind string, c Config) []KV {
	return important(kind, c, true)
}

// Fingerprint is a short stable hash of the important settings that are
// known once the server has printed its arguments: the same command gives
// the same fingerprint, whatever the host port, seed or log level, and
// whether the startup got far or failed early. It is "" when no important
// setting was printed.
func Fingerprint(kind string, c Config) string {
	return fingerprint(kind, c)
}

func fingerprint(kind string, c getter) string {
	imp := important(kind, c, true)
	if len(imp) == 0 {
		return ""
	}
	h := sha256.New()
	h.Write([]byte(kind))
	for _, kv := range imp {
		h.Write([]byte{'\n'})
		h.Write([]byte(kv.Key + "=" + strings.ToLower(normValue(kv.Value))))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// canonicalName resolves a key to a canonical setting's name, directly or
// through an alias.
func canonicalName(key string) (name string, direct bool) {
	k := normKey(key)
	if _, ok := canon[k]; ok {
		return k, true
	}
	for name, cn := range canon {
		for _, a := range cn.aliases {
			if a == k {
				return name, false
			}
		}
	}
	return "", false
}

// Lookup finds the value a --expect key refers to. Keys compare without
// regard to case, with '-' equal to '_' and leading dashes ignored, so
// "--tp-size", "tp_size" and "TP_SIZE" are one key. In order:
//
//  1. a canonical name (model, quantization, dtype, kv_cache_dtype, tp, pp,
//     dp, ep, attention_backend, moe_backend, fp4_gemm_backend,
//     fp8_gemm_backend, mem_fraction, context_length, cuda_graph,
//     max_running_requests) means that setting, mapped onto the server's
//     own key, preferring a resolved value over a declared None;
//  2. the server's own key as printed (fp4_gemm_runner_backend,
//     gpu_memory_utilization, compilation_config.mode, ...);
//  3. a known alias of a canonical name (tp_size on vLLM means
//     tensor_parallel_size);
//  4. the last dotted key ending in ".KEY" (context_len finds
//     scheduler.context_len).
func Lookup(kind string, c Config, key string) (string, bool) {
	name, direct := canonicalName(key)
	if direct {
		return canon[name].value(kind, c, false)
	}
	if v, ok := c.get(key); ok {
		return v, true
	}
	if name != "" {
		if v, ok := canon[name].value(kind, c, false); ok {
			return v, true
		}
	}
	suffix := "." + normKey(key)
	for i := len(c) - 1; i >= 0; i-- {
		if strings.HasSuffix(normKey(c[i].Key), suffix) {
			return c[i].Value, true
		}
	}
	return "", false
}

// --- derived settings ---

func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes", "on":
		return true
	}
	return false
}

func isFalse(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

// deriveVLLMEP: vLLM has no EP size, only --enable-expert-parallel, with
// which the expert-parallel size is TP x DP.
func deriveVLLMEP(kind string, c getter) (string, bool) {
	if kind != "vllm" && kind != "" && kind != "auto" {
		return "", false
	}
	v, ok := c.Get("enable_expert_parallel")
	if !ok {
		return "", false
	}
	if !isTrue(v) {
		return "1", true
	}
	n := 1
	for _, k := range []string{"tensor_parallel_size", "data_parallel_size"} {
		if s, ok := c.Get(k); ok {
			if x, err := strconv.Atoi(s); err == nil && x > 0 {
				n *= x
			}
		}
	}
	return strconv.Itoa(n), true
}

// deriveLlamaKV reads llama.cpp's K and V cache types ("f16", or "q8_0/f16"
// when they differ).
func deriveLlamaKV(kind string, c getter) (string, bool) {
	k, ok1 := c.Get("type_k")
	v, ok2 := c.Get("type_v")
	switch {
	case ok1 && ok2 && k != v:
		return k + "/" + v, true
	case ok1:
		return k, true
	case ok2:
		return v, true
	}
	return "", false
}

// deriveCUDAGraph summarises CUDA graph settings in one value: "disabled",
// "enabled", or the settings that shape capture ("max_bs=8 piecewise").
func deriveCUDAGraph(kind string, c getter) (string, bool) {
	var parts []string
	add := func(label, key string) {
		if v, ok := c.Get(key); ok && !isNone(v) {
			parts = append(parts, label+"="+shortValue(v))
		}
	}
	present := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := c.Get(k); ok {
				return true
			}
		}
		return false
	}
	finish := func(anyKey bool) (string, bool) {
		if len(parts) > 0 {
			return strings.Join(parts, " "), true
		}
		if anyKey {
			return "enabled", true
		}
		return "", false
	}
	any := kind == "" || kind == "auto"
	if kind == "sglang" || any {
		if v, ok := c.Get("disable_cuda_graph"); ok && isTrue(v) {
			return "disabled", true
		}
		add("config", "cuda_graph_config")
		add("max_bs", "cuda_graph_max_bs")
		if v, _ := c.Get("cuda_graph_max_bs"); isNone(v) {
			add("bs", "cuda_graph_bs") // the list matters only without a max
		}
		add("max_bs_decode", "cuda_graph_max_bs_decode")
		if v, _ := c.Get("cuda_graph_max_bs_decode"); isNone(v) {
			add("bs_decode", "cuda_graph_bs_decode")
		}
		add("backend_decode", "cuda_graph_backend_decode")
		add("backend_prefill", "cuda_graph_backend_prefill")
		if v, ok := c.Get("enable_piecewise_cuda_graph"); ok && isTrue(v) {
			parts = append(parts, "piecewise")
		}
		if kind == "sglang" || present("disable_cuda_graph", "cuda_graph_max_bs", "cuda_graph_config") {
			return finish(present("disable_cuda_graph", "cuda_graph_max_bs", "cuda_graph_bs", "cuda_graph_config", "cuda_graph_max_bs_decode"))
		}
	}
	if kind == "vllm" || any {
		if v, ok := c.Get("enforce_eager"); ok && isTrue(v) {
			return "disabled", true
		}
		if v, ok := c.Get("compilation_config.use_cudagraph"); ok && isFalse(v) {
			return "disabled", true
		}
		add("mode", "compilation_config.cudagraph_mode")
		add("max_size", "compilation_config.max_cudagraph_capture_size")
		add("max_size", "compilation_config.max_capture_size")
		if kind == "vllm" || present("enforce_eager") {
			return finish(present("enforce_eager", "compilation_config.cudagraph_mode", "compilation_config.use_cudagraph"))
		}
	}
	if kind == "tgi" || any {
		if v, ok := c.Get("cuda_graphs"); ok && !isNone(v) {
			if strings.ReplaceAll(v, " ", "") == "[0]" {
				return "disabled", true
			}
			return "bs=" + shortValue(v), true
		}
	}
	if kind == "trtllm" || any {
		if v, ok := c.Get("cuda_graph_config"); ok {
			if isNone(v) {
				return "disabled", true
			}
			return v, true
		}
		if v, ok := c.Get("use_cuda_graph"); ok {
			return boolWord(v), true
		}
	}
	if kind == "llamacpp" || any {
		if v, ok := c.Get("CUDA.USE_GRAPHS"); ok {
			return boolWord(v), true
		}
	}
	return "", false
}

func boolWord(v string) string {
	switch {
	case isTrue(v):
		return "enabled"
	case isFalse(v):
		return "disabled"
	}
	return v
}

var enumReprRE = lazyre.New(`^<([A-Za-z_][\w]*\.)?([A-Za-z_]\w*): .*>$`)

// shortValue makes a value fit a one-line summary: Python enum reprs
// (<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>) become their member name, and
// long lists show their ends and length ([1, 2, ... 512] (51)).
func shortValue(v string) string {
	if m := enumReprRE.Get().FindStringSubmatch(v); m != nil {
		return m[2]
	}
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") && len(v) > 40 {
		items := strings.Split(v[1:len(v)-1], ",")
		if len(items) > 4 {
			first := strings.TrimSpace(items[0])
			second := strings.TrimSpace(items[1])
			last := strings.TrimSpace(items[len(items)-1])
			return fmt.Sprintf("[%s, %s, ... %s] (%d)", first, second, last, len(items))
		}
	}
	return v
}

func isAuto(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "auto") }
