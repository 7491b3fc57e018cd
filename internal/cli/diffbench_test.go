package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"vigil/internal/history"
)

func TestDiffBench(t *testing.T) {
	withBench := func(id int64, tok8 float64) history.Startup {
		raw, _ := json.Marshal(map[string]any{"levels": []map[string]any{
			{"concurrency": 1, "output_tok_s": 100.0, "ttft_ms": map[string]any{"mean": 20.0}},
			{"concurrency": 8, "output_tok_s": tok8, "ttft_ms": map[string]any{"mean": 40.0}},
		}})
		return history.Startup{ID: id, Verdict: "ready", Extra: map[string]json.RawMessage{"bench": raw}}
	}
	tests := []struct {
		name    string
		a, b    history.Startup
		want    int
		wantPct float64
	}{
		{"both benchmarked", withBench(1, 400), withBench(2, 300), 2, -25},
		{"one without a benchmark", withBench(1, 400), history.Startup{ID: 2, Verdict: "ready"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := diffStartups(tt.a, tt.b)
			if len(d.Bench) != tt.want {
				t.Fatalf("bench rows %+v, want %d", d.Bench, tt.want)
			}
			if tt.want == 0 {
				return
			}
			if got := d.Bench[1]; got.Concurrency != 8 || got.Pct == nil || *got.Pct != tt.wantPct {
				t.Errorf("c=8 row %+v, want %g%%", got, tt.wantPct)
			}
			var buf bytes.Buffer
			printDiff(&buf, tt.a, tt.b, d)
			if !strings.Contains(buf.String(), "c=8") || !strings.Contains(buf.String(), "-25.0%") {
				t.Errorf("text output lacks the bench rows:\n%s", buf.String())
			}
		})
	}
}
