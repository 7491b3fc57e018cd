package classify

import "testing"

// kernelCases are real kernel config lines, one or more per kernel rule.
var kernelCases = []struct {
	name, server, line string
	id                 string
	want               KernelConfig
}{
	{"sglang 0.5 moe tuned", "sglang",
		"[2026-11-29 10:00:00 TP0] Using MoE kernel config from /sgl-workspace/sglang/python/sglang/srt/layers/moe/moe_runner/triton_utils/configs/triton_3_4_0/E=256,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128, 128].json.",
		"kernel.moe_tuned", KernelConfig{Kernel: "fused_moe", State: KernelTuned, File: "/sgl-workspace/sglang/python/sglang/srt/layers/moe/moe_runner/triton_utils/configs/triton_3_4_0/E=256,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128, 128].json", Shape: "E=256,N=512", Device: "NVIDIA_H200", Dtype: "fp8_w8a8", BlockShape: "[128,128]"}},
	{"sglang 0.5 moe down tuned", "sglang",
		"[2026-11-29 10:00:00 TP3] Using MoE kernel config from /moe-configs/configs/triton_3_5_1/E=160,N=384,device_name=NVIDIA_GB10,dtype=fp8_w8a8_down.json.",
		"kernel.moe_tuned", KernelConfig{Kernel: "fused_moe_down", State: KernelTuned, File: "/moe-configs/configs/triton_3_5_1/E=160,N=384,device_name=NVIDIA_GB10,dtype=fp8_w8a8_down.json", Shape: "E=160,N=384", Device: "NVIDIA_GB10", Dtype: "fp8_w8a8"}},
	{"vllm moe tuned", "vllm",
		"(VllmWorker TP2 pid=60498) INFO 09-09 16:23:07 [fused_moe.py:720] Using configuration from /your_moe_tuned_dir/E=512,N=128,device_name=NVIDIA_H20-3e.json for MoE layer.",
		"kernel.moe_tuned_layer", KernelConfig{Kernel: "fused_moe", State: KernelTuned, File: "/your_moe_tuned_dir/E=512,N=128,device_name=NVIDIA_H20-3e.json", Shape: "E=512,N=128", Device: "NVIDIA_H20-3e"}},
	{"sglang block fp8 tuned", "sglang",
		"[2025-02-19 16:39:11 DP7 TP7] Using configuration from /sgl-workspace/sglang/python/sglang/srt/layers/quantization/configs/N=576,K=7168,device_name=NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8,block_shape=[128, 128].json for W8A8 Block FP8 kernel.",
		"kernel.fp8_tuned", KernelConfig{Kernel: "w8a8_block_fp8", State: KernelTuned, File: "/sgl-workspace/sglang/python/sglang/srt/layers/quantization/configs/N=576,K=7168,device_name=NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8,block_shape=[128, 128].json", Shape: "N=576,K=7168", Device: "NVIDIA_H100_80GB_HBM3", Dtype: "fp8_w8a8", BlockShape: "[128,128]"}},
	{"vllm block fp8 default", "vllm",
		"(EngineCore pid=280186) WARNING 08-17 01:44:23 [fp8_utils.py:851] Using default W8A8 Block FP8 kernel config. Performance might be sub-optimal! Config file not found at /root/venv/lib/python3.12/site-packages/vllm/model_executor/layers/quantization/utils/configs/N=16384,K=5120,device_name=AMD_Radeon_Graphics,dtype=fp8_w8a8,block_shape=[128,128].json",
		"kernel.fp8_default", KernelConfig{Kernel: "w8a8_block_fp8", State: KernelDefault, File: "/root/venv/lib/python3.12/site-packages/vllm/model_executor/layers/quantization/utils/configs/N=16384,K=5120,device_name=AMD_Radeon_Graphics,dtype=fp8_w8a8,block_shape=[128,128].json", Shape: "N=16384,K=5120", Device: "AMD_Radeon_Graphics", Dtype: "fp8_w8a8", BlockShape: "[128,128]"}},
	{"vllm moe default, one path", "vllm",
		"(EngineCore pid=310) WARNING 06-01 21:42:14 [fused_moe.py:1071] Using default MoE config. Performance might be sub-optimal! Config file not found at /usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/configs/E=256,N=512,device_name=NVIDIA_GB10.json",
		"kernel.moe_default", KernelConfig{Kernel: "fused_moe", State: KernelDefault, File: "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/configs/E=256,N=512,device_name=NVIDIA_GB10.json", Shape: "E=256,N=512", Device: "NVIDIA_GB10"}},
	{"vllm moe default, a list", "vllm",
		"(Worker_TP6_EP6 pid=2084) WARNING 09-24 20:53:34 [fused_moe.py:727] Using default MoE config. Performance might be sub-optimal! Config file not found at ['/workspace/.venv/lib/python3.12/site-packages/vllm/model_executor/layers/fused_moe/configs/E=16,N=1536,device_name=NVIDIA_L40S,dtype=fp8_w8a8,block_shape=[128,128].json']",
		"kernel.moe_default", KernelConfig{Kernel: "fused_moe", State: KernelDefault, File: "/workspace/.venv/lib/python3.12/site-packages/vllm/model_executor/layers/fused_moe/configs/E=16,N=1536,device_name=NVIDIA_L40S,dtype=fp8_w8a8,block_shape=[128,128].json", Shape: "E=16,N=1536", Device: "NVIDIA_L40S", Dtype: "fp8_w8a8", BlockShape: "[128,128]"}},
	{"vllm moe default, tuned folder and package", "vllm",
		"WARNING 05-02 10:00:00 [fused_moe.py:1073] Using default MoE config. Performance might be sub-optimal! Config file not found at /tmp/tuned/E=128,N=1024,device_name=AMD_Instinct_MI355_OAM,dtype=fp8_w8a8.json, /usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/configs/E=128,N=1024,device_name=AMD_Instinct_MI355_OAM,dtype=fp8_w8a8.json",
		"kernel.moe_default", KernelConfig{Kernel: "fused_moe", State: KernelDefault, File: "/tmp/tuned/E=128,N=1024,device_name=AMD_Instinct_MI355_OAM,dtype=fp8_w8a8.json", Shape: "E=128,N=1024", Device: "AMD_Instinct_MI355_OAM", Dtype: "fp8_w8a8"}},
	{"sglang 0.5 moe default", "sglang",
		"[2026-11-29 10:00:00 TP0] Using default MoE kernel config. Performance might be sub-optimal! Config file not found at /sgl-workspace/sglang/python/sglang/srt/layers/moe/moe_runner/triton_utils/configs/triton_3_4_0/E=128,N=768,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json, you can create them with https://github.com/sgl-project/sglang/tree/main/benchmark/kernels/fused_moe_triton",
		"kernel.moe_default", KernelConfig{Kernel: "fused_moe", State: KernelDefault, File: "/sgl-workspace/sglang/python/sglang/srt/layers/moe/moe_runner/triton_utils/configs/triton_3_4_0/E=128,N=768,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition.json", Shape: "E=128,N=768", Device: "NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition"}},
	{"sglang 0.4 moe default", "sglang",
		"[2025-03-01 10:00:00 TP0] Using default MoE config. Performance might be sub-optimal! Config file not found at /usr/local/lib/python3.10/dist-packages/sglang/srt/layers/moe/fused_moe_triton/configs/E=64,N=1408,device_name=NVIDIA_A100-SXM4-80GB.json",
		"kernel.moe_default", KernelConfig{Kernel: "fused_moe", State: KernelDefault, File: "/usr/local/lib/python3.10/dist-packages/sglang/srt/layers/moe/fused_moe_triton/configs/E=64,N=1408,device_name=NVIDIA_A100-SXM4-80GB.json", Shape: "E=64,N=1408", Device: "NVIDIA_A100-SXM4-80GB"}},
	{"sglang down config borrowed", "sglang",
		"[2026-11-29 10:00:00 TP0] Using MoE kernel config with down_moe=False. Performance might be sub-optimal! Config file not found at /x/configs/triton_3_4_0/E=256,N=256,device_name=NVIDIA_B200,dtype=fp8_w8a8,block_shape=[128, 128]_down.json, you can create them with https://github.com/sgl-project/sglang/tree/main/benchmark/kernels/fused_moe_triton",
		"kernel.moe_down_default", KernelConfig{Kernel: "fused_moe_down", State: KernelDefault, File: "/x/configs/triton_3_4_0/E=256,N=256,device_name=NVIDIA_B200,dtype=fp8_w8a8,block_shape=[128, 128]_down.json", Shape: "E=256,N=256", Device: "NVIDIA_B200", Dtype: "fp8_w8a8", BlockShape: "[128,128]"}},
	{"sglang other triton version", "sglang",
		"[2026-11-29 10:00:00 TP0] Config file not found at /x/configs/triton_3_5_1/E=160,N=192,device_name=NVIDIA_H100_80GB_HBM3.json. Fallback to triton version 3.4.0 and use MoE kernel config from /x/configs/triton_3_4_0/E=160,N=192,device_name=NVIDIA_H100_80GB_HBM3.json. Performance might be sub-optimal!",
		"kernel.moe_fallback", KernelConfig{Kernel: "fused_moe", State: KernelFallback, File: "/x/configs/triton_3_4_0/E=160,N=192,device_name=NVIDIA_H100_80GB_HBM3.json", Shape: "E=160,N=192", Device: "NVIDIA_H100_80GB_HBM3"}},
	{"sglang block int8 tuned", "sglang",
		"[2026-11-29 10:00:00 TP0] Using configuration from /sgl/python/sglang/srt/layers/quantization/configs/N=4096,K=7168,device_name=NVIDIA_A100-SXM4-80GB,dtype=int8_w8a8,block_shape=[128, 128].json for W8A8 Block INT8 kernel.",
		"kernel.int8_tuned", KernelConfig{Kernel: "w8a8_block_int8", State: KernelTuned, File: "/sgl/python/sglang/srt/layers/quantization/configs/N=4096,K=7168,device_name=NVIDIA_A100-SXM4-80GB,dtype=int8_w8a8,block_shape=[128, 128].json", Shape: "N=4096,K=7168", Device: "NVIDIA_A100-SXM4-80GB", Dtype: "int8_w8a8", BlockShape: "[128,128]"}},
	{"sglang block int8 default", "sglang",
		"[2026-11-29 10:00:00 TP0] Using default W8A8 Block INT8 kernel config. Performance might be sub-optimal! Config file not found at /sgl/python/sglang/srt/layers/quantization/configs/N=576,K=7168,device_name=NVIDIA_L20,dtype=int8_w8a8,block_shape=[128, 128].json",
		"kernel.int8_default", KernelConfig{Kernel: "w8a8_block_int8", State: KernelDefault, File: "/sgl/python/sglang/srt/layers/quantization/configs/N=576,K=7168,device_name=NVIDIA_L20,dtype=int8_w8a8,block_shape=[128, 128].json", Shape: "N=576,K=7168", Device: "NVIDIA_L20", Dtype: "int8_w8a8", BlockShape: "[128,128]"}},
	{"sglang deterministic", "sglang",
		"[2026-11-29 10:00:00 TP0] Deterministic inference is enabled, using default MoE kernel config.",
		"kernel.moe_deterministic", KernelConfig{Kernel: "fused_moe", State: KernelDefault}},
}

func TestKernelConfigs(t *testing.T) {
	for _, tt := range kernelCases {
		t.Run(tt.name, func(t *testing.T) {
			c := Lookup(tt.server).Classify(tt.line)
			if c.Kernel == nil || c.KernelRule == nil {
				t.Fatalf("no kernel config read from %q", tt.line)
			}
			if c.KernelRule.ID != tt.id {
				t.Errorf("rule %q, want %q", c.KernelRule.ID, tt.id)
			}
			if *c.Kernel != tt.want {
				t.Errorf("got  %+v\nwant %+v", *c.Kernel, tt.want)
			}
			if c.Failure != nil {
				t.Errorf("a kernel config line is failure %s", c.Failure.ID)
			}
		})
	}
}

// A line about a kernel that is not a config lookup reads no config.
func TestKernelConfigNotOther(t *testing.T) {
	for _, line := range []string{
		"[2026-11-29 10:00:00 TP0] Using configuration from /x/config.json for something else.",
		"(EngineCore pid=1) INFO 11-29 10:00:00 [fp8.py:1] Using DeepGEMM for block FP8 GEMM.",
		"Capturing batches (bs=1 avail_mem=23.56 GB): 100%|██████████| 52/52 [00:05<00:00, 10.36it/s]",
	} {
		if c := Lookup("sglang").Classify(line); c.Kernel != nil {
			t.Errorf("%q read as kernel config %+v", line, *c.Kernel)
		}
	}
}

func TestFirstPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/a/E=1,N=2.json", "/a/E=1,N=2.json"},
		{"['/a/E=1,N=2.json', '/b/E=1,N=2.json']", "/a/E=1,N=2.json"},
		{"/a/x,block_shape=[128, 128].json, /b/x.json", "/a/x,block_shape=[128, 128].json"},
		{"", ""},
		{"[", ""},
	}
	for _, tt := range tests {
		if got := firstPath(tt.in); got != tt.want {
			t.Errorf("firstPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
