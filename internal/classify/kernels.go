package classify

import (
	"path"
	"strings"

	"vigil/internal/lazyre"
)

// KernelConfig is what a line says about a kernel's tuned configuration:
// SGLang and vLLM look up a JSON file of block sizes per weight shape, GPU
// and dtype for their fused-MoE and block-FP8 Triton kernels, and say
// whether they found one. A default config costs speed, not correctness.
type KernelConfig struct {
	// Kernel is "fused_moe", "fused_moe_down" (SGLang's separate
	// down-projection config), "w8a8_block_fp8" or "w8a8_block_int8".
	Kernel string
	// State is "tuned" (the file was read), "fallback" (a file tuned for
	// another Triton version was read) or "default" (no file: built-in
	// defaults).
	State string
	// File is the config file read, or for a default the first file the
	// server looked for; "" when the server names none.
	File string
	// Shape is the weight shape the file is for: "E=256,N=512" for MoE,
	// "N=4096,K=7168" for block FP8.
	Shape string
	// Device is the GPU name as the file names it ("NVIDIA_H200").
	Device string
	// Dtype is the quantized dtype ("fp8_w8a8", "int4_w4a16"), or "" for
	// the model's own dtype.
	Dtype string
	// BlockShape is the quantization block ("[128,128]", spaces removed
	// so that SGLang's and vLLM's spellings agree), or "".
	BlockShape string
}

// KernelRule recognises a kernel config message. Its expression names the
// file in a group called "file".
type KernelRule struct {
	ID string
	Matcher
	Kernel, State string
}

const (
	KernelTuned    = "tuned"
	KernelFallback = "fallback"
	KernelDefault  = "default"
)

// kernelRules are the same for every profile: SGLang took its fused-MoE
// code from vLLM, and both still print these messages.
var kernelRules = []KernelRule{
	// sglang layers/moe/moe_runner/triton_utils/fused_moe_triton_config.py
	// (0.5.x): logger.info(f"Using MoE kernel config from {path}.")
	{ID: "kernel.moe_tuned", Matcher: re("Using MoE kernel config from", `Using MoE kernel config from (?P<file>.+?)\.?$`), Kernel: "fused_moe", State: KernelTuned},
	// vllm model_executor/layers/fused_moe/fused_moe.py (0.6-0.12) and
	// sglang layers/moe/fused_moe_triton/fused_moe.py (0.4.x):
	// "Using configuration from %s for MoE layer."
	{ID: "kernel.moe_tuned_layer", Matcher: re("for MoE layer", `Using configuration from (?P<file>.+?) for MoE layer\.?`), Kernel: "fused_moe", State: KernelTuned},
	// vllm model_executor/layers/quantization/utils/fp8_utils.py (0.7-0.12)
	// and sglang layers/quantization/fp8_kernel.py (0.4-0.5.x).
	{ID: "kernel.fp8_tuned", Matcher: re("for W8A8 Block FP8 kernel", `Using configuration from (?P<file>.+?) for W8A8 Block FP8 kernel\.?`), Kernel: "w8a8_block_fp8", State: KernelTuned},
	// sglang layers/quantization/int8_kernel.py (0.4-0.5.x), the same for
	// block INT8.
	{ID: "kernel.int8_tuned", Matcher: re("for W8A8 Block INT8 kernel", `Using configuration from (?P<file>.+?) for W8A8 Block INT8 kernel\.?`), Kernel: "w8a8_block_int8", State: KernelTuned},
	// sglang fused_moe_triton_config.py (0.5.x): a config tuned for another
	// Triton version, used because none exists for this one.
	{ID: "kernel.moe_fallback", Matcher: re("Fallback to triton version", `Fallback to triton version \S+ and use MoE kernel config from (?P<file>.+?)\. Performance might be sub-optimal`), Kernel: "fused_moe", State: KernelFallback},
	// sglang fused_moe_triton_config.py (0.5.x): the down projection has
	// no config of its own and borrows the up projection's.
	{ID: "kernel.moe_down_default", Matcher: re("Using MoE kernel config with down_moe=False", `Using MoE kernel config with down_moe=False\. Performance might be sub-optimal! Config file not found at (?P<file>.+?)(?:, you can create them with .*)?$`), Kernel: "fused_moe_down", State: KernelDefault},
	// vllm fused_moe.py: "Using default MoE config. Performance might be
	// sub-optimal! Config file not found at %s" (one path, a list of paths
	// in 0.10-0.11, or paths joined by ", " with VLLM_TUNED_CONFIG_FOLDER);
	// sglang 0.4.x the same; sglang 0.5.x says "default MoE kernel config"
	// and adds ", you can create them with <url>".
	{ID: "kernel.moe_default", Matcher: re("Using default MoE", `Using default MoE (?:kernel )?config\. Performance might be sub-optimal! Config file not found at (?P<file>.+?)(?:, you can create them with .*)?$`), Kernel: "fused_moe", State: KernelDefault},
	// vllm fp8_utils.py and sglang fp8_kernel.py.
	{ID: "kernel.fp8_default", Matcher: re("Using default W8A8 Block FP8 kernel config", `Using default W8A8 Block FP8 kernel config\. Performance might be sub-optimal! Config file not found at (?P<file>.+?)$`), Kernel: "w8a8_block_fp8", State: KernelDefault},
	{ID: "kernel.int8_default", Matcher: re("Using default W8A8 Block INT8 kernel config", `Using default W8A8 Block INT8 kernel config\. Performance might be sub-optimal! Config file not found at (?P<file>.+?)$`), Kernel: "w8a8_block_int8", State: KernelDefault},
	// sglang fused_moe_triton_config.py (0.5.x), --enable-deterministic-inference.
	{ID: "kernel.moe_deterministic", Matcher: lit("Deterministic inference is enabled, using default MoE kernel config"), Kernel: "fused_moe", State: KernelDefault},
}

// kernelFieldRe reads one field of a config file name; block_shape holds a
// comma of its own.
var kernelFieldRe = lazyre.New(`(?:^|,)(E|N|K|device_name|dtype|block_shape)=(\[[^\]]*\]|[^,]*)`)

// kernelConfig reads what a matched kernel rule's line says.
func (r *KernelRule) kernelConfig(msg string) *KernelConfig {
	k := &KernelConfig{Kernel: r.Kernel, State: r.State}
	if r.Re == nil {
		return k
	}
	re := r.Re.Regexp()
	m := re.FindStringSubmatch(msg)
	if i := re.SubexpIndex("file"); m != nil && i > 0 {
		k.File = firstPath(m[i])
	}
	if k.File == "" {
		return k
	}
	name := strings.TrimSuffix(path.Base(k.File), ".json")
	if n, ok := strings.CutSuffix(name, "_down"); ok {
		name = n
		if k.Kernel == "fused_moe" {
			k.Kernel = "fused_moe_down"
		}
	}
	var shape []string
	for _, f := range kernelFieldRe.Get().FindAllStringSubmatch(name, -1) {
		switch f[1] {
		case "E", "N", "K":
			shape = append(shape, f[1]+"="+f[2])
		case "device_name":
			k.Device = f[2]
		case "dtype":
			k.Dtype = f[2]
		case "block_shape":
			k.BlockShape = strings.ReplaceAll(f[2], " ", "")
		}
	}
	k.Shape = strings.Join(shape, ",")
	return k
}

// firstPath takes the first of the paths a message lists: "['/a.json',
// '/b.json']" or "/a.json, /b.json" or one path.
func firstPath(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		s = strings.TrimPrefix(s, "[")
		s = strings.TrimSuffix(s, "]")
		if q := s[:min(1, len(s))]; q == "'" || q == `"` {
			if end := strings.Index(s[1:], q); end >= 0 {
				return s[1 : 1+end]
			}
		}
	}
	// A path holds ", " only inside "[128, 128]"; one after ".json" starts
	// the next path.
	if i := strings.Index(s, ".json, "); i >= 0 {
		return s[:i+len(".json")]
	}
	return strings.Trim(s, `'"`)
}
