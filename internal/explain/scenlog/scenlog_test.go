package scenlog

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"vigil/internal/scenario"
)

func TestProgressLine(t *testing.T) {
	p := &scenario.Progress{Fmt: "Loading: {pct:3d}% Completed | {i}/{n} [{el}<{eta}, {rate:.2f}it/s] {{x}}", N: 4, To: 4, Dur: 2}
	tests := []struct {
		name string
		i    int
		el   float64
		want string
	}{
		{"start", 0, 0, "Loading:   0% Completed | 0/4 [00:00<00:00, 0.00it/s] {x}"},
		{"half", 2, 1, "Loading:  50% Completed | 2/4 [00:01<00:01, 2.00it/s] {x}"},
		{"done", 4, 2, "Loading: 100% Completed | 4/4 [00:02<00:00, 2.00it/s] {x}"},
	}
	bad := &scenario.Progress{Fmt: "b {nope}", N: 1, To: 1}
	if got := ProgressLine(bad, 1, 1); got != bad.Fmt {
		t.Errorf("an unknown field: got %q, want the format as it stands", got)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ProgressLine(p, tt.i, tt.el); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	sc, err := scenario.Parse([]byte(`{"id":"x","server":"sglang","source":"test","summary":"test","argv":["a"],
		"stale_log":["[{ts:-60}] old"],
		"timeline":[{"t":1,"err":"[{ts}] one"},{"t":1.5,"progress":{"fmt":"b {i}/{n}","n":2,"dur":4,"cr":true}},
			{"t":2,"busy":3},{"t":2,"out":"[{ts}] two"}],
		"expect":{"verdict":"stalled"}}`))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.Local)
	var buf bytes.Buffer
	end, err := Write(&buf, sc, start)
	if err != nil {
		t.Fatal(err)
	}
	// The bar blocks 4 s from 1.5 s, the busy step 3 s more.
	want := "[2026-05-01 09:59:00] old\n[2026-05-01 10:00:01] one\nb 0/2\rb 1/2\rb 2/2\n[2026-05-01 10:00:08] two\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if !end.Equal(start.Add(8500 * time.Millisecond)) {
		t.Errorf("end %v, want 8.5 s after the start", end.Sub(start))
	}
	if strings.Contains(buf.String(), "{ts") {
		t.Errorf("placeholders left in %q", buf.String())
	}
}
