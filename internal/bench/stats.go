package bench

import (
	"math"
	"slices"
	"time"
)

// Dist summarises a distribution in milliseconds.
type Dist struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
}

// Summarize computes a Dist; it sorts ds. Percentiles interpolate linearly
// between the closest ranks, as numpy.percentile does, so figures compare
// with those of SGLang's and vLLM's benchmark scripts.
func Summarize(ds []time.Duration) Dist {
	if len(ds) == 0 {
		return Dist{}
	}
	slices.Sort(ds)
	var sum float64
	for _, d := range ds {
		sum += float64(d)
	}
	return Dist{
		Mean: ms(sum / float64(len(ds))),
		P50:  ms(percentile(ds, 50)),
		P90:  ms(percentile(ds, 90)),
		P99:  ms(percentile(ds, 99)),
	}
}

// percentile of sorted ds, in nanoseconds.
func percentile(sorted []time.Duration, p float64) float64 {
	rank := p / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(rank))
	hi := min(lo+1, len(sorted)-1)
	frac := rank - float64(lo)
	return float64(sorted[lo]) + frac*float64(sorted[hi]-sorted[lo])
}

// ms converts nanoseconds to milliseconds, rounded to the microsecond: finer
// digits would be noise.
func ms(ns float64) float64 { return round(ns/1e6, 3) }

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
