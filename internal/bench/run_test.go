package bench

import (
	"context"
	"math"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"vigil/internal/openai"
	"vigil/internal/openai/openaitest"
)

// fake starts a fake server and returns it with a client for o.
func fake(t *testing.T, cfg openaitest.Config, o Options) (*openaitest.Server, *openai.Client) {
	t.Helper()
	s := openaitest.New(cfg)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, NewClient(srv.URL, "", o)
}

func quick() Options {
	o := DefaultOptions()
	o.Concurrency = []int{1}
	o.Requests = 4
	o.InputLen = 16
	o.OutputLen = 20
	o.Warmup = 0
	o.StallTimeout = 5 * time.Second
	o.Timeout = 10 * time.Second
	return o
}

func within(got, want, frac float64) bool { return math.Abs(got-want) <= want*frac }

// TestRunTiming checks TTFT, ITL and throughput against a server with
// known delays. Bounds are loose because CI machines are noisy; the strict
// 2% check is bench/client_cost.sh.
func TestRunTiming(t *testing.T) {
	for _, conc := range []int{1, 4} {
		t.Run("c="+strconv.Itoa(conc), func(t *testing.T) {
			o := quick()
			o.Concurrency = []int{conc}
			o.Requests = 2 * conc
			s, c := fake(t, openaitest.Config{TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond}, o)
			res, err := Run(t.Context(), c, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			lv := res.Levels[0]
			if lv.Completed != o.Requests || lv.Failed != 0 {
				t.Fatalf("got %d completed, %d failed; want %d, 0", lv.Completed, lv.Failed, o.Requests)
			}
			if !within(lv.TTFT.Mean, 50, 0.3) {
				t.Errorf("got mean TTFT %.2f ms, want about 50", lv.TTFT.Mean)
			}
			if !within(lv.ITL.Mean, 10, 0.2) || !within(lv.TPOT.Mean, 10, 0.2) {
				t.Errorf("got mean ITL %.2f ms, TPOT %.2f ms; want about 10", lv.ITL.Mean, lv.TPOT.Mean)
			}
			_, sent := s.Stats()
			if int64(lv.OutputTokens) != sent || lv.TokensFrom != "usage" {
				t.Errorf("got %d output tokens from %s, server sent %d", lv.OutputTokens, lv.TokensFrom, sent)
			}
			if want := float64(sent) / lv.DurationS; !within(lv.OutputTokS, want, 0.01) {
				t.Errorf("got %.2f tok/s, want %.2f", lv.OutputTokS, want)
			}
			if lv.E2E.Mean < lv.TTFT.Mean+19*lv.ITL.Mean*0.9 {
				t.Errorf("got E2E %.1f ms, shorter than TTFT plus 19 gaps", lv.E2E.Mean)
			}
		})
	}
}

func TestRunCountsTokensThatArrived(t *testing.T) {
	tests := []struct {
		name      string
		cfg       openaitest.Config
		endpoint  openai.Endpoint
		wantFrom  string
		wantPerRq int
	}{
		{name: "stops early, with usage", cfg: openaitest.Config{StopAfter: 7}, wantFrom: "usage", wantPerRq: 7},
		{name: "stops early, no usage", cfg: openaitest.Config{StopAfter: 7, NoUsage: true}, wantFrom: "chunks", wantPerRq: 7},
		{name: "no usage, runs to max_tokens", cfg: openaitest.Config{NoUsage: true}, wantFrom: "chunks", wantPerRq: 20},
		{name: "chat", cfg: openaitest.Config{StopAfter: 5}, endpoint: openai.Chat, wantFrom: "usage", wantPerRq: 5},
		{name: "SGLang generate", cfg: openaitest.Config{StopAfter: 5}, endpoint: openai.Generate, wantFrom: "usage", wantPerRq: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := quick()
			if tt.endpoint != "" {
				o.Endpoint = tt.endpoint
			}
			s, c := fake(t, tt.cfg, o)
			res, err := Run(t.Context(), c, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			lv := res.Levels[0]
			_, sent := s.Stats()
			if lv.OutputTokens != tt.wantPerRq*o.Requests || int64(lv.OutputTokens) != sent || lv.TokensFrom != tt.wantFrom {
				t.Errorf("got %d tokens from %q (server sent %d), want %d from %q",
					lv.OutputTokens, lv.TokensFrom, sent, tt.wantPerRq*o.Requests, tt.wantFrom)
			}
		})
	}
}

// TestRunCountsFailures sends requests that fail in every way a server can
// and checks each is counted with its reason, without hanging.
func TestRunCountsFailures(t *testing.T) {
	faults := []openaitest.Fault{openaitest.None, openaitest.Status429, openaitest.Status500, openaitest.Malformed,
		openaitest.Reset, openaitest.Stall, openaitest.EarlyEOF, openaitest.InbandError}
	o := quick()
	o.Concurrency = []int{4}
	o.Requests = 2 * len(faults)
	o.StallTimeout = 300 * time.Millisecond
	_, c := fake(t, openaitest.Config{
		ITL:        time.Millisecond,
		FaultAfter: 3,
		Fault:      func(n int64) openaitest.Fault { return faults[n%int64(len(faults))] },
	}, o)
	start := time.Now()
	res, err := Run(t.Context(), c, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	lv := res.Levels[0]
	if lv.Completed != 2 || lv.Failed != 14 {
		t.Errorf("got %d completed, %d failed; want 2, 14", lv.Completed, lv.Failed)
	}
	got := map[string]int{}
	for _, f := range lv.Failures {
		got[f.Reason] = f.Count
		if f.Example == "" {
			t.Errorf("%s: no example message", f.Reason)
		}
	}
	for _, reason := range []string{"HTTP 429", "HTTP 500", "malformed SSE", "connection reset", "stalled", "stream ended early", "server error"} {
		if got[reason] != 2 {
			t.Errorf("got %d failures %q, want 2 (all: %v)", got[reason], reason, got)
		}
	}
	if lv.OutputTokens != 2*o.OutputLen {
		t.Errorf("got %d output tokens, want only the completed requests' %d", lv.OutputTokens, 2*o.OutputLen)
	}
	if lv.ServerErrors != 2 {
		t.Errorf("got %d in-stream error events, want 2", lv.ServerErrors)
	}
	// 14 of 16 failed: far above the default 5% allowed.
	if res.OK || len(res.Problems()) != 1 || !strings.Contains(res.Problems()[0], "14 of 16 requests failed, more than the 5% allowed") {
		t.Errorf("got OK %v, problems %q; want not OK for too many failures", res.OK, res.Problems())
	}
}

func TestRunFailureThreshold(t *testing.T) {
	tests := []struct {
		name   string
		max    float64
		wantOK bool
	}{
		{"one in four is above 5%", 0.05, false},
		{"one in four is within 25%", 0.25, true},
		{"none allowed", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := quick()
			o.MaxFailures = tt.max
			_, c := fake(t, openaitest.Config{Fault: func(n int64) openaitest.Fault {
				if n == 2 {
					return openaitest.Status500
				}
				return openaitest.None
			}}, o)
			res, err := Run(t.Context(), c, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			if lv := res.Levels[0]; lv.Failed != 1 || lv.Completed != 3 {
				t.Fatalf("got %d failed, %d completed; want 1, 3", lv.Failed, lv.Completed)
			}
			if res.OK != tt.wantOK {
				t.Errorf("got OK %v, want %v (problems %q)", res.OK, tt.wantOK, res.Problems())
			}
		})
	}
}

func TestRunEveryRequestFails(t *testing.T) {
	o := quick()
	_, c := fake(t, openaitest.Config{Fault: func(int64) openaitest.Fault { return openaitest.Status500 }}, o)
	res, err := Run(t.Context(), c, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Levels[0].Completed != 0 || len(res.Problems()) != 1 {
		t.Errorf("got OK %v, problems %q; want not OK with one problem", res.OK, res.Problems())
	}
}

func TestRunWarmupFailureStopsTheRun(t *testing.T) {
	o := quick()
	o.Warmup = 2
	s, c := fake(t, openaitest.Config{Fault: func(int64) openaitest.Fault { return openaitest.Status429 }}, o)
	res, err := Run(t.Context(), c, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reqs, _ := s.Stats(); reqs != 2 {
		t.Errorf("server got %d requests, want only the 2 warmup ones", reqs)
	}
	if res.OK || len(res.Levels) != 1 || !res.Levels[0].Warmup || res.Levels[0].Failed != 2 {
		t.Errorf("got OK %v, levels %+v; want one level whose warmup failed", res.OK, res.Levels)
	}
}

// TestRunKeepsLevelsBeforeAFailedOne: a server that breaks at the second
// level leaves the first level's figures in the result.
func TestRunKeepsLevelsBeforeAFailedOne(t *testing.T) {
	o := quick()
	o.Concurrency = []int{1, 2, 4}
	o.Warmup = 1
	// Requests 0 (warmup) to 4 make the first level; then all fail.
	s, c := fake(t, openaitest.Config{Fault: func(n int64) openaitest.Fault {
		if n >= 5 {
			return openaitest.Status500
		}
		return openaitest.None
	}}, o)
	res, err := Run(t.Context(), c, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Levels) != 2 || res.Levels[0].Completed != 4 || !res.Levels[1].Warmup || res.OK {
		t.Fatalf("got OK %v, levels %+v; want c=1 measured and c=2 failed in warmup", res.OK, res.Levels)
	}
	if reqs, _ := s.Stats(); reqs != 7 {
		t.Errorf("server got %d requests, want 7 (c=4 not run)", reqs)
	}
	var b strings.Builder
	if err := WriteText(&b, res); err != nil || !strings.Contains(b.String(), "c=2: every warmup request failed") {
		t.Errorf("report %q does not say the warmup failed", b.String())
	}
}

func TestRunGoodput(t *testing.T) {
	tests := []struct {
		name     string
		slo      SLO
		wantGood bool
	}{
		{name: "all within", slo: SLO{TTFT: time.Second, TPOT: time.Second}, wantGood: true},
		{name: "first token too slow", slo: SLO{TTFT: 5 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := quick()
			o.SLO = tt.slo
			_, c := fake(t, openaitest.Config{TTFT: 20 * time.Millisecond}, o)
			res, err := Run(t.Context(), c, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			lv := res.Levels[0]
			if lv.GoodputReqS == nil {
				t.Fatal("no goodput")
			}
			if want := map[bool]float64{true: lv.ReqS, false: 0}[tt.wantGood]; !within(*lv.GoodputReqS, want, 0.001) {
				t.Errorf("got goodput %v, want %v", *lv.GoodputReqS, want)
			}
		})
	}
}

func TestRunForDuration(t *testing.T) {
	o := quick()
	o.Requests = 0
	o.Duration = 300 * time.Millisecond
	o.Concurrency = []int{2}
	_, c := fake(t, openaitest.Config{ITL: 5 * time.Millisecond}, o)
	res, err := Run(t.Context(), c, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	lv := res.Levels[0]
	// Each request takes about 100 ms: 2 slots × 3 rounds, and in-flight
	// requests finish after the duration.
	if lv.Completed < 4 || lv.Completed > 10 || lv.DurationS < 0.3 || lv.DurationS > 1.5 {
		t.Errorf("got %d requests in %.2fs", lv.Completed, lv.DurationS)
	}
}

func TestRunCanceled(t *testing.T) {
	o := quick()
	o.Requests = 100
	_, c := fake(t, openaitest.Config{ITL: 10 * time.Millisecond}, o)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := Run(ctx, c, o, nil); err == nil {
		t.Fatal("got no error after cancel")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v to stop", d)
	}
}

func TestRunDiscoversModelAndReportsProgress(t *testing.T) {
	o := quick()
	o.Concurrency = []int{1, 2}
	o.Warmup = 1
	s, c := fake(t, openaitest.Config{Model: "Qwen/Qwen3-8B"}, o)
	p := &Progress{}
	res, err := Run(t.Context(), c, o, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "Qwen/Qwen3-8B" || len(res.Levels) != 2 || res.Levels[1].Concurrency != 2 {
		t.Errorf("got model %q, %d levels", res.Model, len(res.Levels))
	}
	// Warmup: one short request per connection before each level (1, then 2).
	reqs, toks := s.Stats()
	if wantReqs, wantToks := int64(3+2*o.Requests), int64(3*warmupTokens+2*o.Requests*o.OutputLen); reqs != wantReqs || toks != wantToks {
		t.Errorf("server got %d requests, sent %d tokens; want %d, %d", reqs, toks, wantReqs, wantToks)
	}
	snap := p.Snapshot()
	if snap.Concurrency != 2 || snap.Done != o.Requests || snap.Tokens != o.Requests*o.OutputLen || snap.Warmup {
		t.Errorf("got progress %+v", snap)
	}
}
