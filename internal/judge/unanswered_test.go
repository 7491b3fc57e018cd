package judge

import (
	"strings"
	"testing"
	"time"

	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

func TestHealthThatNeverAnswers(t *testing.T) {
	given := Config{Server: "sglang", StallAfter: 4 * time.Second, Timeout: 40 * time.Second}
	guessed := given
	guessed.URLGuessed = true
	noHealth := given
	noHealth.NoHealth = true
	const ready = "[2026-11-29 10:00:01] The server is fired up and ready to roll!"
	timeout := observe.Health{State: observe.HealthError, Err: "no answer within 2s"}
	// trtllm-serve --grpc: no HTTP at all, and an HTTP probe of its port
	// is refused until the gRPC server binds, then gets no HTTP answer.
	grpc := given
	grpc.Server = "trtllm"
	grpcSmoke, grpcLog := grpc, grpc
	grpcSmoke.Smoke, grpcLog.Readiness = true, LogReadiness
	const grpcReady = "[05/02/2026-07:22:20] [TRT-LLM] [I] TensorRT-LLM gRPC server started on 0.0.0.0:8000"
	eof := observe.Health{State: observe.HealthError, Err: "EOF"}
	foreign := observe.Health{State: observe.HealthForeign, Code: 200}
	tests := []struct {
		name     string
		cfg      Config
		steps    []step
		verdict  v.Verdict
		cause    v.Cause
		from, to float64 // decided between these times (seconds)
		summary  string  // a substring of the summary
	}{
		{
			name:  "--url refused throughout fails with cause health after the grace",
			cfg:   given,
			steps: []step{hl(0, refused), ln(1, ready), hl(2, refused), hl(4, refused)},
			// The grace is the stall window here: 4 s after the ready line.
			verdict: v.Failed, cause: v.Health, from: 5, to: 5.1, summary: "never answered (connection refused)",
		},
		{
			name:    "--url timing out throughout fails with cause health",
			cfg:     given,
			steps:   []step{hl(0, timeout), ln(1, ready)},
			verdict: v.Failed, cause: v.Health, from: 5, to: 5.1, summary: "no answer within 2s",
		},
		{
			name:    "another server's 200 is no answer of this one",
			cfg:     given,
			steps:   []step{hl(0, foreign), hl(0.5, refused), ln(1, ready)},
			verdict: v.Failed, cause: v.Health, from: 5, to: 5.1, summary: "never answered",
		},
		{
			name:    "--url answering within the grace is ready",
			cfg:     given,
			steps:   []step{hl(0, refused), ln(1, ready), hl(3, ok200)},
			verdict: v.Ready, from: 3, to: 3.1,
		},
		{
			name:    "--url that answered before and then times out keeps trusting the ready line",
			cfg:     given,
			steps:   []step{hl(0, starting), hl(0.5, timeout), ln(1, ready)},
			verdict: v.Ready, from: 5, to: 5.1,
		},
		{
			name:    "a guessed URL refused throughout is still ready on the ready line",
			cfg:     guessed,
			steps:   []step{hl(0, refused), ln(1, ready)},
			verdict: v.Ready, from: 5, to: 5.1,
		},
		{
			name:    "without a health endpoint the ready line decides at once",
			cfg:     noHealth,
			steps:   []step{hl(0, refused), ln(1, ready)},
			verdict: v.Ready, from: 1, to: 1.1,
		},
		{
			name:    "a ready line saying the server serves no HTTP decides at once, whatever the probe gets",
			cfg:     grpc,
			steps:   []step{hl(0, refused), ln(1, grpcReady), hl(1.5, eof), hl(3, eof)},
			verdict: v.Ready, from: 1, to: 1.1,
		},
		{
			name:    "a ready line saying the server serves no HTTP asks for no generation check",
			cfg:     grpcSmoke,
			steps:   []step{ln(1, grpcReady)},
			verdict: v.Ready, from: 1, to: 1.1,
		},
		{
			name:    "offline, a ready line saying the server serves no HTTP waits for no answer",
			cfg:     grpcLog,
			steps:   []step{ln(1, grpcReady)},
			verdict: v.Ready, from: 1, to: 1.1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := play(t, tt.cfg, tt.steps, 20)
			if r == nil {
				t.Fatal("no verdict")
			}
			if r.Verdict != tt.verdict || r.Cause != tt.cause {
				t.Fatalf("got %s/%s (%s), want %s/%s", r.Verdict, r.Cause, r.Summary, tt.verdict, tt.cause)
			}
			at := r.At.Sub(time.Unix(1_800_000_000, 0)).Seconds()
			if at < tt.from-1e-6 || at > tt.to+1e-6 {
				t.Errorf("decided at %.2fs, want within [%.2f, %.2f]", at, tt.from, tt.to)
			}
			if !strings.Contains(r.Summary, tt.summary) {
				t.Errorf("summary %q lacks %q", r.Summary, tt.summary)
			}
			if r.Verdict == v.Failed {
				ev := strings.Join(r.Evidence, "\n")
				if !strings.Contains(ev, "GET /health") || !strings.Contains(ev, "ready to roll") || r.Hint != UnansweredHint {
					t.Errorf("evidence %q / hint %q: want the probe, the ready line and the --url hint", r.Evidence, r.Hint)
				}
			}
		})
	}
}
