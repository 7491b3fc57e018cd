// Package verdict holds the words of vigil's outside contract: verdicts,
// causes and phases, and the exit status each verdict maps to.
package verdict

// Verdict is the outcome of judging one startup.
type Verdict string

const (
	Ready   Verdict = "ready"
	Failed  Verdict = "failed"
	Stalled Verdict = "stalled"
	Timeout Verdict = "timeout"
)

// ExitCode is the process exit status that scripts rely on for v.
func (v Verdict) ExitCode() int {
	switch v {
	case Ready:
		return 0
	case Failed:
		return 1
	case Stalled:
		return 3
	case Timeout:
		return 124
	}
	return 1
}

// ExitUsage is the exit status for vigil being used wrongly.
const ExitUsage = 2

// Cause says why a startup failed.
type Cause string

const (
	GPUOOM      Cause = "gpu_oom"
	HostOOM     Cause = "host_oom"
	NCCL        Cause = "nccl"
	CUDA        Cause = "cuda"
	Dependency  Cause = "dependency"
	Config      Cause = "config"
	ModelLoad   Cause = "model_load"
	PortInUse   Cause = "port_in_use"
	KernelBuild Cause = "kernel_build"
	Crash       Cause = "crash"
	Exception   Cause = "exception"
	BadOutput   Cause = "bad_output"
	Health      Cause = "health"
	// Regression: ready, but the serving benchmark of run --bench fell
	// below its baseline by more than the tolerance.
	Regression Cause = "regression"
)

// Causes lists every cause, in the contract's order.
var Causes = []Cause{GPUOOM, HostOOM, NCCL, CUDA, Dependency, Config, ModelLoad,
	PortInUse, KernelBuild, Crash, Exception, BadOutput, Health}

// Extended lists the causes docs/contract.md adds to the contract's: they
// come from vigil's own checks after ready, never from a server's log, so
// scenarios do not use them.
var Extended = []Cause{Regression}

// Phase names how far a startup got.
type Phase string

const (
	Launch      Phase = "launch"
	Init        Phase = "init"
	Distributed Phase = "distributed"
	Weights     Phase = "weights"
	KVCache     Phase = "kv_cache"
	Compile     Phase = "compile"
	CUDAGraph   Phase = "cuda_graph"
	Warmup      Phase = "warmup"
	Serving     Phase = "serving"
	PhaseReady  Phase = "ready"
)

// Phases lists every phase in the contract's order.
var Phases = []Phase{Launch, Init, Distributed, Weights, KVCache, Compile, CUDAGraph, Warmup, Serving, PhaseReady}

// Servers lists the server kinds vigil knows.
var Servers = []string{"sglang", "vllm", "trtllm", "llamacpp", "tgi"}
