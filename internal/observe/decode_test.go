package observe

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Every payload comes back from its own JSON unchanged.
func TestDecodePayloadRoundTrips(t *testing.T) {
	for _, p := range []Payload{
		ServerSeen{Server: "sglang"},
		Progress{Desc: "Loading safetensors checkpoint shards", Done: 3, ETA: "00:04", Percent: 60, Rate: 1.5, Total: 5},
		ReadyLine{Line: "The server is fired up and ready to roll!"},
		Failing{Line: "RuntimeError: Not enough memory."},
		PhaseChange{From: "launch", Phase: "weights"},
		ETA{Phase: "weights", PhaseLeftS: 3.5, Samples: 2, TotalLeftS: 9},
		ConfigSeen{Fingerprint: "fa49b849d1881ea2", Important: map[string]string{"tp": "2"}},
		Warning{Message: "weights is slow", Phase: "weights", Slow: true},
		HealthChange{Code: 503, State: HealthStarting},
		Quiet{Activity: "cpu 3.9 cores", QuietS: 12},
		ExitSeen{Status: "exited with status 1"},
		Smoke{Answer: "Paris", Endpoint: "/v1/completions", LatencyMS: 80, OK: true},
	} {
		raw, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		// The stream's lines carry "event" and "t" beside the fields.
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		m["event"], m["t"] = string(p.Kind()), 1.5
		line, _ := json.Marshal(m)
		got, ok := DecodePayload(p.Kind(), line)
		if !ok || !reflect.DeepEqual(got, p) {
			t.Errorf("%s: got %#v %v, want %#v", p.Kind(), got, ok, p)
		}
	}
	if _, ok := DecodePayload("verdict", []byte(`{}`)); ok {
		t.Error("decoded a kind that is no payload")
	}
	if _, ok := DecodePayload(KindPhase, []byte(`{"phase":3}`)); ok {
		t.Error("decoded fields of the wrong type")
	}
}

func TestDecodeVerdict(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		ok     bool
		cause  string
		server string
	}{
		{"failed", `{"event":"verdict","t":3.5,"verdict":"failed","cause":"gpu_oom","phase":"weights","evidence":["x"],"log_file":"/l","server":"vllm"}`, true, "gpu_oom", "vllm"},
		{"ready with a null cause", `{"event":"verdict","t":9,"verdict":"ready","cause":null,"phase":"ready","server":"sglang"}`, true, "", "sglang"},
		{"another event", `{"event":"phase","t":1,"phase":"weights"}`, false, "", ""},
		{"no verdict", `{"event":"verdict","t":1}`, false, "", ""},
		{"not JSON", `verdict: failed`, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := DecodeVerdict([]byte(tt.raw))
			if ok != tt.ok || d.Cause != tt.cause || d.Server != tt.server {
				t.Fatalf("DecodeVerdict = %+v, %v; want ok %v, cause %q, server %q", d, ok, tt.ok, tt.cause, tt.server)
			}
		})
	}
}
