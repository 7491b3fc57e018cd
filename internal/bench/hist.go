package bench

import (
	"math"
	"math/bits"
	"time"
)

// Hist is a latency histogram of fixed precision in the manner of
// HdrHistogram: log-linear buckets, exact below 2,048 ns and 1,024 buckets
// per power of two above, so a bucket is never wider than 1/1,024 of its
// values and a percentile read at a bucket's middle is off by at most
// 1/2,048 (0.05%). Its size depends on the spread of the values, not on
// how many were recorded: buckets come in small chunks allocated on first
// use, so values in a narrow range take a few kilobytes. The mean, the minimum and the maximum are exact.
// The zero Hist is empty and ready to use.
type Hist struct {
	n        uint64
	sum      float64 // nanoseconds, for an exact mean
	min, max int64
	chunks   [histChunks]*[histChunk]uint64
}

const (
	histSubBits = 10
	histSub     = 1 << histSubBits // buckets per power of two
	// Buckets 0..2*histSub-1 hold those values exactly; then each power of
	// two above has histSub buckets: the value's top histSubBits+1 bits.
	histBuckets = 2*histSub + (63-histSubBits-1)*histSub
	histChunk   = 128
	histChunks  = histBuckets / histChunk
)

// Record adds one value; a negative one counts as zero.
func (h *Hist) Record(d time.Duration) {
	v := max(int64(d), 0)
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if h.n == 0 || v > h.max {
		h.max = v
	}
	h.n++
	h.sum += float64(v)
	i := histIndex(uint64(v))
	c := h.chunks[i/histChunk]
	if c == nil {
		c = new([histChunk]uint64)
		h.chunks[i/histChunk] = c
	}
	c[i%histChunk]++
}

// Merge adds every value of o to h.
func (h *Hist) Merge(o *Hist) {
	if o.n == 0 {
		return
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if h.n == 0 || o.max > h.max {
		h.max = o.max
	}
	h.n += o.n
	h.sum += o.sum
	for k, oc := range o.chunks {
		if oc == nil {
			continue
		}
		c := h.chunks[k]
		if c == nil {
			c = new([histChunk]uint64)
			h.chunks[k] = c
		}
		for i, n := range oc {
			c[i] += n
		}
	}
}

// Count is the number of values recorded.
func (h *Hist) Count() int { return int(h.n) }

// Dist summarises h as Summarize does its values: the same mean, and
// percentiles interpolated between the same ranks, within 0.05%.
func (h *Hist) Dist() Dist {
	if h.n == 0 {
		return Dist{}
	}
	return Dist{
		Mean: ms(h.sum / float64(h.n)),
		P50:  ms(h.percentile(50)),
		P90:  ms(h.percentile(90)),
		P99:  ms(h.percentile(99)),
	}
}

// percentile interpolates linearly between the closest ranks, in
// nanoseconds, as percentile does on the sorted values.
func (h *Hist) percentile(p float64) float64 {
	rank := p / 100 * float64(h.n-1)
	lo := uint64(math.Floor(rank))
	hi := min(lo+1, h.n-1)
	frac := rank - float64(lo)
	a, b := h.at(lo), h.at(hi)
	return a + frac*(b-a)
}

// at estimates the value of rank r (0-based, in ascending order): the
// middle of its bucket, kept within the exact minimum and maximum.
func (h *Hist) at(r uint64) float64 {
	var seen uint64
	for k, c := range h.chunks {
		if c == nil {
			continue
		}
		for i, n := range c {
			seen += n
			if n > 0 && seen > r {
				lo, width := histBucket(k*histChunk + i)
				v := float64(lo) + float64(width-1)/2
				return min(max(v, float64(h.min)), float64(h.max))
			}
		}
	}
	return float64(h.max)
}

// histIndex is the bucket of value v.
func histIndex(v uint64) int {
	shift := max(bits.Len64(v)-(histSubBits+1), 0)
	if shift == 0 {
		return int(v)
	}
	return histSub*(shift+1) + int(v>>shift) - histSub
}

// histBucket is the lowest value and the width of bucket i.
func histBucket(i int) (lo, width uint64) {
	if i < 2*histSub {
		return uint64(i), 1
	}
	shift := i/histSub - 1
	return uint64(i%histSub+histSub) << shift, 1 << shift
}
