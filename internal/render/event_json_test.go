package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"vigil/internal/observe"
)

// TestJSONEventFields checks each typed event against the map the stream
// carried before events were typed: the same keys, values and order.
func TestJSONEventFields(t *testing.T) {
	tests := []struct {
		name string
		data observe.Payload
		want map[string]any
	}{
		{"server", observe.ServerSeen{Server: "vllm"}, map[string]any{"server": "vllm"}},
		{"progress", observe.Progress{Desc: "shards", Done: 0, Total: 4, Percent: 0, Rate: 1.5, ETA: "00:13"},
			map[string]any{"desc": "shards", "done": 0, "total": 4, "percent": 0, "rate": 1.5, "eta": "00:13"}},
		{"ready_line", observe.ReadyLine{Line: "<ready> & up"}, map[string]any{"line": "<ready> & up"}},
		{"failing", observe.Failing{Line: "RuntimeError: x"}, map[string]any{"line": "RuntimeError: x"}},
		{"phase", observe.PhaseChange{Phase: "weights", From: "init"}, map[string]any{"phase": "weights", "from": "init"}},
		{"eta", observe.ETA{Phase: "weights", PhaseLeftS: 1.5, TotalLeftS: 20, Samples: 3},
			map[string]any{"phase": "weights", "phase_left_s": 1.5, "total_left_s": 20.0, "samples": 3}},
		{"config", observe.ConfigSeen{Fingerprint: "ab", Important: map[string]string{"tp": "2", "dtype": "bf16"}},
			map[string]any{"fingerprint": "ab", "important": map[string]string{"tp": "2", "dtype": "bf16"}}},
		{"config without important settings", observe.ConfigSeen{Fingerprint: "ab", Important: map[string]string{}},
			map[string]any{"fingerprint": "ab", "important": map[string]string{}}},
		{"warning", observe.Warning{Message: "m"}, map[string]any{"message": "m"}},
		{"slow warning", observe.Warning{Message: "m", Phase: "weights", Slow: true}, map[string]any{"message": "m", "phase": "weights", "slow": true}},
		{"health", observe.HealthChange{State: observe.HealthRefused, Code: 0}, map[string]any{"state": "refused", "code": 0}},
		{"quiet", observe.Quiet{QuietS: 12, Activity: "CPU 90%"}, map[string]any{"quiet_s": 12.0, "activity": "CPU 90%"}},
		{"exit", observe.ExitSeen{Status: "exited with status 1"}, map[string]any{"status": "exited with status 1"}},
		{"smoke", observe.Smoke{OK: false, Reason: "r", Answer: "", LatencyMS: 12, Endpoint: "/v1/completions"},
			map[string]any{"ok": false, "reason": "r", "answer": "", "latency_ms": int64(12), "endpoint": "/v1/completions"}},
	}
	t0 := time.Unix(1_800_000_000, 0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bytes.Buffer
			r := &JSON{W: &got}
			r.Begin(Info{Mode: "run", Start: t0})
			got.Reset()
			r.Event(observe.Event{At: t0.Add(1500 * time.Millisecond), Data: tt.data}, Status{})

			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			obj := map[string]any{"event": string(tt.data.Kind()), "t": 1.5}
			for k, v := range tt.want {
				obj[k] = v
			}
			if err := enc.Encode(obj); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("got  %s\nwant %s", strings.TrimSpace(got.String()), strings.TrimSpace(want.String()))
			}
		})
	}
}
