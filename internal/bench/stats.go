package bench

import (
	"errors"
	"math"
	"slices"
	"strings"
	"time"
	"vigil/internal/redact"

	"vigil/internal/openai"
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

// levelStats is what one level's requests add up to. Each worker keeps its
// own and they are merged at the end, so its size does not grow with the
// number of requests: latencies go into histograms, not lists.
type levelStats struct {
	ttft, itl, tpot, e2e, send Hist

	completed, failed, tokens int
	serverErrors              int // failed on an error event inside the stream
	resent                    int // sent again on a fresh connection
	good                      int // completed within the SLO
	withUsage                 int // completed requests whose usage the server reported
	promptN, promptSum        int
	failures                  map[string]*Failure
	firstErr                  error
}

// add counts one request; times are the arrivals of its text events.
func (s *levelStats) add(rec record, times []time.Duration, slo SLO) {
	s.resent += rec.resent
	if rec.err != nil {
		s.failed++
		var se *openai.ServerError
		if errors.As(rec.err, &se) {
			s.serverErrors++
		}
		if s.firstErr == nil {
			s.firstErr = rec.err
		}
		reason := openai.Reason(rec.err)
		f := s.failures[reason]
		if f == nil {
			if s.failures == nil {
				s.failures = map[string]*Failure{}
			}
			// The client already masked its own key in what the server
			// said; this catches any other secret.
			f = &Failure{Reason: reason, Example: oneLine(redact.String(rec.err.Error()))}
			s.failures[reason] = f
		}
		f.Count++
		return
	}
	s.completed++
	s.tokens += rec.tokens
	if rec.usage {
		s.withUsage++
	}
	if rec.prompt >= 0 {
		s.promptN++
		s.promptSum += rec.prompt
	}
	for j := 1; j < len(times); j++ {
		s.itl.Record(times[j] - times[j-1])
	}
	var tpot time.Duration
	if rec.tokens > 1 {
		tpot = (rec.last - rec.ttft) / time.Duration(rec.tokens-1)
		s.tpot.Record(tpot)
	}
	if rec.tokens > 0 {
		s.ttft.Record(rec.ttft)
	}
	s.e2e.Record(rec.e2e)
	s.send.Record(rec.send)
	if slo.Meets(rec.ttft, tpot, rec.e2e) && rec.tokens > 0 {
		s.good++
	}
}

// merge adds o's requests to s.
func (s *levelStats) merge(o *levelStats) {
	for _, p := range []struct{ to, from *Hist }{
		{&s.ttft, &o.ttft}, {&s.itl, &o.itl}, {&s.tpot, &o.tpot}, {&s.e2e, &o.e2e}, {&s.send, &o.send},
	} {
		p.to.Merge(p.from)
	}
	s.completed += o.completed
	s.failed += o.failed
	s.serverErrors += o.serverErrors
	s.resent += o.resent
	s.tokens += o.tokens
	s.good += o.good
	s.withUsage += o.withUsage
	s.promptN += o.promptN
	s.promptSum += o.promptSum
	if s.firstErr == nil {
		s.firstErr = o.firstErr
	}
	for reason, f := range o.failures {
		if mine := s.failures[reason]; mine != nil {
			mine.Count += f.Count
			continue
		}
		if s.failures == nil {
			s.failures = map[string]*Failure{}
		}
		s.failures[reason] = &Failure{Reason: f.Reason, Count: f.Count, Example: f.Example}
	}
}

// level sums up s as the level of concurrency conc that ran for elapsed.
func (s *levelStats) level(conc int, elapsed time.Duration, slo SLO) Level {
	lv := Level{
		Concurrency: conc, DurationS: round(elapsed.Seconds(), 3),
		Completed: s.completed, Failed: s.failed, OutputTokens: s.tokens,
		ServerErrors: s.serverErrors, Resent: s.resent,
	}
	switch {
	case lv.Completed == 0:
		lv.TokensFrom = ""
	case s.withUsage == lv.Completed:
		lv.TokensFrom = "usage"
	case s.withUsage == 0:
		lv.TokensFrom = "chunks"
	default:
		lv.TokensFrom = "mixed"
	}
	if s.promptN > 0 {
		lv.InputTokens = round(float64(s.promptSum)/float64(s.promptN), 1)
	}
	if secs := elapsed.Seconds(); secs > 0 {
		lv.OutputTokS = round(float64(lv.OutputTokens)/secs, 3)
		lv.ReqS = round(float64(lv.Completed)/secs, 4)
		if !slo.IsZero() {
			g := round(float64(s.good)/secs, 4)
			lv.GoodputReqS = &g
		}
	}
	lv.TTFT, lv.ITL, lv.TPOT, lv.E2E = s.ttft.Dist(), s.itl.Dist(), s.tpot.Dist(), s.e2e.Dist()
	lv.Send = s.send.Dist()
	for _, f := range s.failures {
		lv.Failures = append(lv.Failures, *f)
	}
	slices.SortFunc(lv.Failures, func(a, b Failure) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	return lv
}
