package judge

import (
	"strings"
	"testing"
	"time"

	"vigil/internal/logline"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// A server that refuses vigil's key is up: never bad_output, never a
// health failure, and the hint names --api-key.
func TestAuthIsNotAFailure(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	auth := observe.Health{State: HealthAuth, Code: 401}
	tests := []struct {
		name  string
		smoke bool
		feed  func(j *Judge, at time.Time)
	}{
		{"health answers 401 after the ready line", false, func(j *Judge, at time.Time) {}},
		{"the smoke request is refused", true, func(j *Judge, at time.Time) {
			j.Smoke(observe.SmokeResult{Auth: true, Reason: "HTTP 401: the server refuses the API key", Endpoint: "/v1/chat/completions"}, at)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := New(Config{Server: "vllm", StallAfter: 4 * time.Second, Timeout: 40 * time.Second, Smoke: tt.smoke}, t0)
			j.Line(logline.Line{Text: "(APIServer pid=1) INFO:     Application startup complete."}, t0)
			var r *observe.Result
			for i := range 20 {
				at := t0.Add(time.Duration(i) * time.Second)
				j.Health(auth, at)
				if i == 1 {
					tt.feed(j, at)
				}
				if r = j.Tick(at); r != nil {
					break
				}
			}
			if r == nil || r.Verdict != v.Ready {
				t.Fatalf("got %+v, want ready", r)
			}
			if tt.smoke && !strings.Contains(r.Hint, "--api-key") {
				t.Errorf("hint %q does not name --api-key", r.Hint)
			}
		})
	}
}
