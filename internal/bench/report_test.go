package bench

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func sample() *Result {
	good := 0.25
	base := 67.76
	change := 7.73
	base8, change8 := 400.0, -22.5
	return &Result{
		URL: "http://127.0.0.1:30000", Model: "Qwen/Qwen2.5-7B-Instruct", Endpoint: "/v1/completions",
		InputLen: 1024, OutputLen: 256, IgnoreEOS: true, SLO: &SLOLimits{TTFT: 500, TPOT: 50},
		Levels: []Level{
			{Concurrency: 1, Completed: 20, OutputTokens: 5120, TokensFrom: "usage", DurationS: 70, OutputTokS: 73, ReqS: 0.2857,
				GoodputReqS: &good, TTFT: Dist{Mean: 51.2, P99: 55.1}, ITL: Dist{Mean: 13.5, P99: 15}, TPOT: Dist{Mean: 13.5},
				E2E: Dist{P50: 3500}, ClientCPUms: 2.5},
			{Concurrency: 8, Completed: 30, Failed: 2, OutputTokens: 7680, TokensFrom: "chunks", OutputTokS: 310, ReqS: 1.2,
				Failures: []Failure{{Reason: "HTTP 500", Count: 2, Example: "HTTP 500: internal error"}}},
		},
		Baseline: &Comparison{Source: "reference figures c=1:67.76,c=8:400", TolerancePct: 10, Levels: []LevelComparison{
			{Concurrency: 1, OutputTokS: 73, BaselineTokS: &base, ChangePct: &change},
			{Concurrency: 8, OutputTokS: 310, BaselineTokS: &base8, ChangePct: &change8, Below: true},
		}},
	}
}

func TestWriteText(t *testing.T) {
	var b strings.Builder
	if err := WriteText(&b, sample()); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"vigil bench http://127.0.0.1:30000/v1/completions  model Qwen/Qwen2.5-7B-Instruct  input ~1024  output 256 tokens, ignore_eos",
		"c  done  failed  out tok/s  req/s  goodput/s  TTFT ms mean/p99  ITL ms mean/p99  TPOT ms mean  E2E s p50",
		"1    20       0      73.00  0.286      0.250       51.2 / 55.1    13.50 / 15.00         13.50       3.50",
		"c=8: 2 failed: HTTP 500 (HTTP 500: internal error)",
		"c=8: the server reported no usage; output tokens counted from the chunks that arrived",
		"vigil's own CPU per request: c=1 2.500 ms",
		"baseline: reference figures c=1:67.76,c=8:400 (tolerance 10%)",
		"c=1   73.00 tok/s   vs 67.76   +7.7%     ok",
		"c=8  310.00 tok/s  vs 400.00  -22.5%  BELOW",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q; got:\n%s", want, got)
		}
	}
}

// TestJSONFields pins the field names the issue and scripts rely on.
func TestJSONFields(t *testing.T) {
	data, err := json.Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Levels []map[string]any `json:"levels"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"concurrency", "completed", "failed", "output_tokens", "output_tok_s", "req_s"} {
		if _, ok := v.Levels[0][key]; !ok {
			t.Errorf("level lacks %q", key)
		}
	}
	for _, key := range []string{"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"} {
		d, _ := v.Levels[0][key].(map[string]any)
		var keys []string
		for k := range d {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"mean", "p50", "p90", "p99"}) {
			t.Errorf("%s has %v, want mean, p50, p90, p99", key, keys)
		}
	}
}

func TestProgressLine(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		snap ProgressSnapshot
		want string
	}{
		{name: "nothing yet", snap: ProgressSnapshot{}, want: ""},
		{name: "counted", snap: ProgressSnapshot{Concurrency: 8, Done: 45, Total: 90, Failed: 2, Tokens: 4500, Start: start},
			want: "c=8    [███████████████░░░░░░░░░░░░░░░]  45/90  2 failed  450.0 tok/s  0:10"},
		{name: "timed", snap: ProgressSnapshot{Concurrency: 1, Done: 3, Duration: 20 * time.Second, Start: start},
			want: "c=1    [███████████████░░░░░░░░░░░░░░░]  3  0.0 tok/s  0:10"},
		{name: "warmup", snap: ProgressSnapshot{Concurrency: 1, Warmup: true, Done: 0, Total: 1, Start: start},
			want: "warmup [░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]  0/1  0:10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.snap.Line(start.Add(10*time.Second), 100); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	var nilProgress *Progress
	nilProgress.add(record{})
	if got := nilProgress.Snapshot(); got != (ProgressSnapshot{}) {
		t.Errorf("nil progress: got %+v", got)
	}
}
