package bench

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestHistAgainstExact compares the histogram's percentiles with the exact
// ones of the same random values: each must be within 0.1%.
func TestHistAgainstExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 3))
	tests := []struct {
		name string
		n    int
		gen  func() time.Duration
	}{
		{name: "uniform 0-100 ms", n: 50_000, gen: func() time.Duration { return time.Duration(rng.Int64N(int64(100 * time.Millisecond))) }},
		{name: "log-normal around 10 ms", n: 50_000, gen: func() time.Duration {
			return time.Duration(float64(10*time.Millisecond) * math.Exp(rng.NormFloat64()))
		}},
		{name: "tokens together, rare stalls", n: 100_000, gen: func() time.Duration {
			if rng.IntN(1000) == 0 {
				return time.Duration(rng.Int64N(int64(2 * time.Second)))
			}
			return time.Duration(rng.Int64N(5000)) // nanoseconds: exact buckets
		}},
		{name: "few values", n: 3, gen: func() time.Duration { return time.Duration(rng.Int64N(int64(time.Minute))) }},
		{name: "hours", n: 1000, gen: func() time.Duration { return time.Duration(rng.Int64N(int64(5 * time.Hour))) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Hist
			ds := make([]time.Duration, tt.n)
			for i := range ds {
				ds[i] = tt.gen()
				h.Record(ds[i])
			}
			slices.Sort(ds)
			for _, p := range []float64{0, 1, 50, 90, 99, 99.9, 100} {
				got, want := h.percentile(p), percentile(ds, p)
				if err := math.Abs(got-want) / want; want != 0 && err > 0.001 {
					t.Errorf("p%g: got %.0f ns, want %.0f ns (error %.4f%%)", p, got, want, err*100)
				}
			}
			if got, want := h.Dist().Mean, Summarize(ds).Mean; got != want {
				t.Errorf("got mean %v ms, want %v", got, want)
			}
			if h.Count() != tt.n {
				t.Errorf("got count %d, want %d", h.Count(), tt.n)
			}
		})
	}
}

func TestHistDist(t *testing.T) {
	ms := func(vs ...float64) []time.Duration {
		var out []time.Duration
		for _, v := range vs {
			out = append(out, time.Duration(v*float64(time.Millisecond)))
		}
		return out
	}
	tests := []struct {
		name string
		in   []time.Duration
		want Dist
	}{
		{name: "empty", in: nil, want: Dist{}},
		{name: "one", in: ms(7), want: Dist{Mean: 7, P50: 7, P90: 7, P99: 7}},
		{name: "negative counts as zero", in: []time.Duration{-5}, want: Dist{}},
		// Exact: 5.5, 9.1, 9.91; the buckets near 5, 6 and 9 ms are 4 and
		// 8 us wide, so the interpolated figures are off by a few us (< 0.05%).
		{name: "one to ten", in: ms(10, 1, 9, 2, 8, 3, 7, 4, 6, 5), want: Dist{Mean: 5.5, P50: 5.499, P90: 9.099, P99: 9.908}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Hist
			for _, d := range tt.in {
				h.Record(d)
			}
			if got := h.Dist(); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestHistMerge checks that histograms kept apart and merged equal one
// histogram of all the values, as the workers' are.
func TestHistMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var all, parts [4]Hist
	var merged Hist
	for i := range 10_000 {
		d := time.Duration(rng.Int64N(int64(time.Second)))
		all[0].Record(d)
		parts[i%4].Record(d)
	}
	for i := range parts {
		merged.Merge(&parts[i])
	}
	merged.Merge(&Hist{}) // an empty one changes nothing
	if merged.n != all[0].n || merged.sum != all[0].sum || merged.min != all[0].min || merged.max != all[0].max || !sameChunks(&merged, &all[0]) {
		t.Fatalf("merged histogram differs from the histogram of all values")
	}
	if got, want := merged.Dist(), all[0].Dist(); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func sameChunks(a, b *Hist) bool {
	for i := range a.chunks {
		if (a.chunks[i] == nil) != (b.chunks[i] == nil) || a.chunks[i] != nil && *a.chunks[i] != *b.chunks[i] {
			return false
		}
	}
	return true
}

// TestHistFixedSize checks that recording allocates only when a value
// falls in a chunk of buckets not seen before: the histogram does not grow
// with the number of values.
func TestHistFixedSize(t *testing.T) {
	var h Hist
	for d := time.Duration(1 << 23); d < 1<<24; d += 1 << 13 {
		h.Record(d)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	allocs := testing.AllocsPerRun(10_000, func() {
		// 8.4 to 16.7 ms: one power of two, already allocated
		h.Record(time.Duration(1<<23 + rng.Int64N(1<<23)))
	})
	if allocs != 0 {
		t.Errorf("got %v allocations per value, want 0", allocs)
	}
}

// TestHistBuckets checks that every value falls in a bucket that holds it
// and is at most 1/1024 as wide as the values in it.
func TestHistBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vs := []uint64{0, 1, 2047, 2048, 2049, 4095, 4096, 1<<40 + 12345, math.MaxInt64}
	for range 100_000 {
		vs = append(vs, rng.Uint64N(math.MaxInt64)>>rng.IntN(63))
	}
	for _, v := range vs {
		i := histIndex(v)
		if i < 0 || i >= histBuckets {
			t.Fatalf("value %d: bucket %d out of range", v, i)
		}
		lo, width := histBucket(i)
		if v < lo || v-lo >= width {
			t.Fatalf("value %d in bucket %d, which holds %d..%d", v, i, lo, lo+width-1)
		}
		if lo >= 2048 && width > lo/1024 {
			t.Fatalf("value %d: bucket %d is %d wide at %d", v, i, width, lo)
		}
	}
}
