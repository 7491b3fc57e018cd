// Package bench measures an inference server's serving performance and gates
// on it: streaming requests at fixed concurrency levels, with TTFT, ITL,
// TPOT and end-to-end latency, output tokens per second, goodput under an
// SLO, and a comparison against a baseline that decides the exit status.
//
// The client is built not to be the bottleneck (see package openai): one
// goroutine per in-flight request, kept-alive connections, events inspected
// rather than decoded, and no retries. Output tokens come from the server's
// usage report, else from the text events that actually arrived, never from
// max_tokens.
package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"vigil/internal/openai"
)

// Options are what a user chooses, from flags or a --bench=SPEC string.
type Options struct {
	Model        string          // "" = the first model of /v1/models
	Endpoint     openai.Endpoint // completions, chat or generate
	Concurrency  []int           // the levels, run in this order
	Requests     int             // per level; 0 = DefaultRequests, or as many as fit in Duration
	Duration     time.Duration   // per level: stop sending new requests after this long
	InputLen     int             // prompt length in words, about one token each
	OutputLen    int             // max_tokens
	Warmup       int             // rounds of uncounted short requests before each level, one per connection each
	IgnoreEOS    bool            // ask for exactly OutputLen tokens
	Seed         int64           // for the prompts
	SLO          SLO             // for goodput
	Timeout      time.Duration   // per request
	StallTimeout time.Duration   // a stream silent this long fails
	Tolerance    float64         // a fraction: 0.10 lets a level fall 10% below its baseline
	MaxFailures  float64         // a fraction: 0.05 lets 5% of a level's requests fail
	Baseline     string          // a result file, or reference figures 'c=1:67.76,c=8:410'; "" for none
}

// DefaultOptions are the settings of a plain `vigil bench`.
func DefaultOptions() Options {
	return Options{
		Endpoint:     openai.Completions,
		Concurrency:  []int{1, 8, 32},
		InputLen:     1024,
		OutputLen:    256,
		Warmup:       1,
		IgnoreEOS:    true,
		Seed:         1,
		Timeout:      10 * time.Minute,
		StallTimeout: time.Minute,
		Tolerance:    0.10,
		MaxFailures:  0.05,
	}
}

// DefaultRequests is the number of requests at concurrency c when neither
// Requests nor Duration is set: enough for stable percentiles at low
// concurrency, and several rounds of every slot at high concurrency.
func DefaultRequests(c int) int { return max(20, 4*c) }

// Validate reports the first option that makes no sense.
func (o Options) Validate() error {
	switch {
	case len(o.Concurrency) == 0:
		return fmt.Errorf("no concurrency level")
	case o.Requests < 0:
		return fmt.Errorf("requests must be positive, got %d", o.Requests)
	case o.Requests > 0 && o.Duration > 0:
		return fmt.Errorf("requests and duration exclude each other")
	case o.Duration < 0:
		return fmt.Errorf("duration must be positive, got %v", o.Duration)
	case o.InputLen < 1:
		return fmt.Errorf("input length must be at least 1, got %d", o.InputLen)
	case o.OutputLen < 1:
		return fmt.Errorf("output length must be at least 1, got %d", o.OutputLen)
	case o.Warmup < 0:
		return fmt.Errorf("warmup must be 0 or more, got %d", o.Warmup)
	case o.Tolerance < 0 || o.Tolerance >= 1:
		return fmt.Errorf("tolerance must be from 0%% to below 100%%, got %g%%", o.Tolerance*100)
	case o.MaxFailures < 0 || o.MaxFailures > 1:
		return fmt.Errorf("allowed failures must be from 0%% to 100%%, got %g%%", o.MaxFailures*100)
	case o.Timeout <= 0:
		return fmt.Errorf("timeout must be positive, got %v", o.Timeout)
	}
	if _, err := openai.ParseEndpoint(string(o.Endpoint)); err != nil {
		return err
	}
	for _, c := range o.Concurrency {
		if c < 1 || c > 10000 {
			return fmt.Errorf("concurrency must be from 1 to 10000, got %d", c)
		}
	}
	return nil
}

// ParseConcurrency reads a list of levels such as "1,8,32".
func ParseConcurrency(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("concurrency %q: want positive whole numbers like 1,8,32", s)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("concurrency %q: %d is listed twice", s, n)
		}
		out = append(out, n)
	}
	return out, nil
}

// ParseTolerance reads a percentage: "10%" or "10" both mean 10%.
func ParseTolerance(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v < 0 || v >= 100 {
		return 0, fmt.Errorf("tolerance %q: want a percentage from 0 to below 100, like 10%%", s)
	}
	return v / 100, nil
}

// ParseMaxFailures reads the share of a level's requests that may fail:
// "5%" or "5" both mean 5%; "0" allows none.
func ParseMaxFailures(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v < 0 || v > 100 {
		return 0, fmt.Errorf("allowed failures %q: want a percentage from 0 to 100, like 5%%", s)
	}
	return v / 100, nil
}

// SLO is a service-level objective for goodput: a request is good when it
// meets every limit that is set (zero means no limit).
type SLO struct {
	TTFT time.Duration
	TPOT time.Duration
	E2E  time.Duration
}

// IsZero reports whether no limit is set.
func (s SLO) IsZero() bool { return s == SLO{} }

// Meets reports whether a request with these figures is good.
func (s SLO) Meets(ttft, tpot, e2e time.Duration) bool {
	return (s.TTFT == 0 || ttft <= s.TTFT) && (s.TPOT == 0 || tpot <= s.TPOT) && (s.E2E == 0 || e2e <= s.E2E)
}

func (s SLO) String() string {
	var parts []string
	for _, kv := range []struct {
		k string
		v time.Duration
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"e2e", s.E2E}} {
		if kv.v > 0 {
			parts = append(parts, kv.k+"="+kv.v.String())
		}
	}
	return strings.Join(parts, ",")
}

// ParseSLO reads "ttft=200ms,tpot=50ms" (also e2e=). A bare number is in
// milliseconds, as in other benchmark tools.
func ParseSLO(s string) (SLO, error) {
	var slo SLO
	for f := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok {
			return SLO{}, fmt.Errorf("SLO %q: want key=value pairs like ttft=200ms,tpot=50ms", s)
		}
		d, err := parseMillis(v)
		if err != nil || d <= 0 {
			return SLO{}, fmt.Errorf("SLO %q: %s=%s is not a positive duration", s, k, v)
		}
		switch strings.ToLower(k) {
		case "ttft":
			slo.TTFT = d
		case "tpot":
			slo.TPOT = d
		case "e2e", "e2el":
			slo.E2E = d
		default:
			return SLO{}, fmt.Errorf("SLO %q: unknown key %q (want ttft, tpot or e2e)", s, k)
		}
	}
	return slo, nil
}

func parseMillis(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(f * float64(time.Millisecond)), nil
	}
	return time.ParseDuration(v)
}

// ParseSpec reads the compact form of the options that `vigil run
// --bench=SPEC` takes: semicolon-separated key=value pairs, starting from
// DefaultOptions. Keys: c (concurrency), n (requests), d (duration), in
// (input length), out (output length), warmup, endpoint, model, slo,
// tolerance, baseline, ignore-eos, seed, timeout, stall-timeout. Example:
//
//	c=1,8;n=50;in=512;out=128;slo=ttft=500ms,tpot=50ms;baseline=c=1:67.76
func ParseSpec(spec string) (Options, error) {
	o := DefaultOptions()
	for part := range strings.SplitSeq(spec, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return o, fmt.Errorf("bench spec %q: %q is not key=value", spec, part)
		}
		if err := o.set(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			return o, fmt.Errorf("bench spec %q: %w", spec, err)
		}
	}
	return o, o.Validate()
}

func (o *Options) set(k, v string) error {
	var err error
	atoi := func(v string) int {
		var n int
		n, err = strconv.Atoi(v)
		return n
	}
	switch k {
	case "c", "concurrency":
		o.Concurrency, err = ParseConcurrency(v)
	case "n", "requests":
		o.Requests = atoi(v)
	case "d", "duration":
		o.Duration, err = time.ParseDuration(v)
	case "in", "input-len":
		o.InputLen = atoi(v)
	case "out", "output-len":
		o.OutputLen = atoi(v)
	case "warmup":
		o.Warmup = atoi(v)
	case "seed":
		o.Seed = int64(atoi(v))
	case "endpoint":
		o.Endpoint, err = openai.ParseEndpoint(v)
	case "model":
		o.Model = v
	case "slo":
		o.SLO, err = ParseSLO(v)
	case "tolerance":
		o.Tolerance, err = ParseTolerance(v)
	case "max-failures":
		o.MaxFailures, err = ParseMaxFailures(v)
	case "baseline":
		o.Baseline = v
	case "ignore-eos":
		o.IgnoreEOS, err = strconv.ParseBool(v)
	case "timeout":
		o.Timeout, err = time.ParseDuration(v)
	case "stall-timeout":
		o.StallTimeout, err = time.ParseDuration(v)
	default:
		return fmt.Errorf("unknown key %q", k)
	}
	if err != nil {
		return fmt.Errorf("%s=%s: %w", k, v, err)
	}
	return nil
}
