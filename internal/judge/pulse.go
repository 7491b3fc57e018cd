package judge

import (
	"fmt"
	"strings"
	"time"

	"vigil/internal/classify"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// The server's pulse beyond ready or failed: which tuned kernel configs it
// loaded and which warnings that change results or speed it printed. Both
// go into the verdict's Extras (and so into the history, for the report);
// each default kernel config and each notable warning is also an event as
// it appears.

// maxPulse bounds the kernel configs and notable warnings kept.
const maxPulse = 256

// kernelKey is what makes two kernel-config lines the same config: every
// tensor-parallel rank prints its own.
type kernelKey struct {
	kernel, shape, device, dtype, block string
}

// pulse is what the judge keeps of kernels and notable warnings.
type pulse struct {
	kernels   []classify.KernelConfig
	kernelSet map[kernelKey]bool
	notable   []notableSeen
	notableIx map[string]int
}

type notableSeen struct {
	rule  *classify.NotableRule
	line  string
	count int
}

// feedPulse reads a classified line's kernel config or notable warning.
func (j *Judge) feedPulse(c *classify.Class, now time.Time) {
	if k := c.Kernel; k != nil {
		key := kernelKey{k.Kernel, k.Shape, k.Device, k.Dtype, k.BlockShape}
		if j.pulse.kernelSet == nil {
			j.pulse.kernelSet = map[kernelKey]bool{}
		}
		if !j.pulse.kernelSet[key] && len(j.pulse.kernels) < maxPulse {
			j.pulse.kernelSet[key] = true
			j.pulse.kernels = append(j.pulse.kernels, *k)
			if k.State == classify.KernelDefault {
				j.emit(now, observe.Warning{Message: defaultKernelMessage(k), Phase: string(j.phase)})
			}
		}
	}
	if n := c.Notable; n != nil {
		if j.pulse.notableIx == nil {
			j.pulse.notableIx = map[string]int{}
		}
		if i, ok := j.pulse.notableIx[n.ID]; ok {
			j.pulse.notable[i].count++
		} else if len(j.pulse.notable) < maxPulse {
			j.pulse.notableIx[n.ID] = len(j.pulse.notable)
			j.pulse.notable = append(j.pulse.notable, notableSeen{rule: n, line: clip(c.Raw, 300), count: 1})
			j.emit(now, observe.Warning{Message: fmt.Sprintf("notable warning (%s): %s", n.Effect, n.Meaning), Phase: string(j.phase)})
		}
	}
}

// Notable is a notable warning a start printed: its rule's ID, effect
// and meaning, its first line, and how many times it came.
type Notable struct {
	ID      string `json:"id"`
	Effect  string `json:"effect"`
	Meaning string `json:"meaning"`
	Line    string `json:"line"`
	Count   int    `json:"count"`
}

// Notable is the notable warnings seen so far, in the order they first
// came (nil for none), whether or not there is a verdict.
func (j *Judge) Notable() []Notable {
	if len(j.pulse.notable) == 0 {
		return nil
	}
	out := make([]Notable, len(j.pulse.notable))
	for i, n := range j.pulse.notable {
		out[i] = Notable{ID: n.rule.ID, Effect: n.rule.Effect, Meaning: n.rule.Meaning, Line: n.line, Count: n.count}
	}
	return out
}

// defaultKernelMessage says which kernel runs on defaults, the file that
// was missing and how to create it.
func defaultKernelMessage(k *classify.KernelConfig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s runs on its default config", k.Kernel)
	if d := kernelDetail(k); d != "" {
		b.WriteString(" (" + d + ")")
	}
	if k.File != "" {
		fmt.Fprintf(&b, ": no tuned file %s", k.File)
	}
	b.WriteString("; ")
	b.WriteString(tuneHint(k.Kernel))
	return b.String()
}

// tuneHint says how to create a tuned config for kernel.
func tuneHint(kernel string) string {
	if strings.HasPrefix(kernel, "w8a8_block") {
		return "tune it for this GPU with the server's block-quantized kernel tuning script (SGLang benchmark/kernels/quantization, vLLM benchmarks/kernels/benchmark_w8a8_block_fp8.py) and put the file where the server looks"
	}
	return "tune it for this GPU (SGLang benchmark/kernels/fused_moe_triton, vLLM benchmarks/kernels/benchmark_moe.py --tune) and put the file where the server looks"
}

// kernelDetail is a config's shape, device, dtype and block, as known.
func kernelDetail(k *classify.KernelConfig) string {
	var parts []string
	for _, s := range []string{k.Shape, k.Device, k.Dtype, k.BlockShape} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

// kernelCounts is the tuned (including a fallback to another Triton
// version's file) and default configs seen.
func (p *pulse) kernelCounts() (tuned, defaults int) {
	for _, k := range p.kernels {
		if k.State == classify.KernelDefault {
			defaults++
		} else {
			tuned++
		}
	}
	return tuned, defaults
}

// kernelSummary is "12 tuned kernel configs loaded, 2 defaults", or "".
func (p *pulse) kernelSummary() string {
	tuned, defaults := p.kernelCounts()
	if tuned+defaults == 0 {
		return ""
	}
	s := fmt.Sprintf("%d tuned kernel config%s loaded", tuned, plural(tuned))
	if defaults > 0 {
		s += fmt.Sprintf(", %d default%s", defaults, plural(defaults))
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// attachPulse puts the kernels and notable warnings into r's Extras (the
// shapes of docs/contract.md "Results the report reads") and the kernel
// counts into a ready verdict's summary.
func (j *Judge) attachPulse(r *observe.Result) {
	p := &j.pulse
	if len(p.kernels) > 0 {
		tuned, defaults := []map[string]string{}, []map[string]string{}
		for _, k := range p.kernels {
			m := map[string]string{"kernel": k.Kernel, "state": k.State}
			for name, val := range map[string]string{"file": k.File, "shape": k.Shape, "device": k.Device, "dtype": k.Dtype, "block_shape": k.BlockShape} {
				if val != "" {
					m[name] = val
				}
			}
			if k.State == classify.KernelDefault {
				defaults = append(defaults, m)
			} else {
				tuned = append(tuned, m)
			}
		}
		r.SetExtra("kernels", map[string]any{"tuned": tuned, "default": defaults})
		if r.Verdict == v.Ready {
			r.Summary += "; " + p.kernelSummary()
		}
	}
	if n := j.Notable(); n != nil {
		r.SetExtra("notable", n)
	}
}
