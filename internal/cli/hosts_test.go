package cli

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"vigil/internal/judge"
	"vigil/internal/learn"
	"vigil/internal/multinode"
)

func TestSplitHosts(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		hosts string
		rest  []string
		ok    bool
		usage bool
	}{
		{"run", []string{"run", "--hosts", "a,b", "--json", "--", "x", "--hosts", "c"}, "a,b", []string{"run", "--json", "--", "x", "--hosts", "c"}, true, false},
		{"equals", []string{"watch", "--hosts=a,b", "--log", "/l"}, "a,b", []string{"watch", "--log", "/l"}, true, false},
		{"after --", []string{"run", "--", "x", "--hosts", "a"}, "", []string{"run", "--", "x", "--hosts", "a"}, false, false},
		{"other command", []string{"explain", "--hosts", "a"}, "", []string{"explain", "--hosts", "a"}, false, false},
		{"no value", []string{"run", "--hosts", "--", "x"}, "", nil, false, true},
		{"empty", []string{"run", "--hosts="}, "", nil, false, true},
		{"with --ssh", []string{"run", "--hosts", "a,b", "--ssh", "c", "--", "x"}, "", nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hosts, rest, ok, err := splitHosts(tt.args)
			var ue *UsageError
			if tt.usage != errors.As(err, &ue) {
				t.Fatalf("err %v, want usage error %v", err, tt.usage)
			}
			if hosts != tt.hosts || ok != tt.ok || !slices.Equal(rest, tt.rest) {
				t.Errorf("got %q %q %v, want %q %q %v", hosts, rest, ok, tt.hosts, tt.rest, tt.ok)
			}
		})
	}
}

func TestMemberLine(t *testing.T) {
	l := multinode.Launch{Host: "root@node1", Rank: 1}
	tests := []struct {
		name, raw string
		want      map[string]any
	}{
		{"event", `{"event":"phase","t":1.5,"phase":"weights"}`, map[string]any{"host": "root@node1", "rank": 1.0, "event": "phase", "phase": "weights"}},
		{"verdict renamed", `{"cause":null,"event":"verdict","t":2,"verdict":"ready"}`, map[string]any{"host": "root@node1", "rank": 1.0, "event": "member_verdict", "verdict": "ready"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := localEvent([]byte(tt.raw))
			out := memberLine(e, l)
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s: %s = %v, want %v", out, k, got[k], want)
				}
			}
		})
	}
	if out := memberLine(localEvent([]byte("not json")), l); string(out) != "not json\n" {
		t.Errorf("a line that is not JSON became %q", out)
	}
}

func TestMemberFlag(t *testing.T) {
	cfg := judge.Config{Smoke: true}
	memberFlag{}.apply(&cfg)
	if cfg.NoHealth || !cfg.Smoke {
		t.Errorf("without --member: %+v", cfg)
	}
	memberFlag{on: true}.apply(&cfg)
	if !cfg.NoHealth || cfg.Smoke {
		t.Errorf("with --member the health endpoint and the smoke test stay in: %+v", cfg)
	}
}

func TestPhaseSecondsFrom(t *testing.T) {
	got := phaseSecondsFrom([]phaseAt{{"init", 0.5}, {"weights", 1}, {"kv_cache", 4}}, 5)
	want := []learn.Phase{{Name: "init", Seconds: 0.5}, {Name: "weights", Seconds: 3}, {Name: "kv_cache", Seconds: 1}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRemoteStartupTake(t *testing.T) {
	r, record := remoteRecord("root@gpu1", []string{"run", "--timeout", "1m", "--", "python3", "-m", "sglang.launch_server", "--model-path", "m"})
	if !record || r.host != "gpu1" || !slices.Equal(r.argv, []string{"python3", "-m", "sglang.launch_server", "--model-path", "m"}) {
		t.Fatalf("remoteRecord: %+v %v", r, record)
	}
	now := time.Now()
	for _, raw := range []string{`{"event":"server","t":0.1,"server":"sglang"}`, `{"event":"phase","t":0.2,"phase":"init"}`,
		`{"event":"config","t":0.3,"important":{"model":"Qwen/Qwen3-8B"}}`, `{"event":"verdict","t":2.5,"verdict":"ready"}`} {
		e := localEvent([]byte(raw))
		e.Received = now
		r.take(e)
	}
	if r.server != "sglang" || r.model != "Qwen/Qwen3-8B" || len(r.phases) != 1 || r.verdict == nil || r.verdictT != 2.5 {
		t.Errorf("after the events: %+v", r)
	}
	if _, record := remoteRecord("h", []string{"explain", "--log", "f"}); record {
		t.Error("explain over ssh is recorded as a startup")
	}
	if _, record := remoteRecord("h", []string{"watch", "--no-history", "--log", "f"}); record {
		t.Error("--no-history is recorded")
	}
}

// TestNoHTTPMode: trtllm-serve --grpc serves no HTTP, so nothing probes
// it and no generation check is asked of it; its HTTP mode is untouched.
func TestNoHTTPMode(t *testing.T) {
	const url = "http://127.0.0.1:8000"
	tests := []struct {
		name      string
		argv      []string
		wantProbe string
		noHealth  bool
	}{
		{"grpc", []string{"trtllm-serve", "Qwen/Qwen3-8B", "--grpc"}, "", true},
		{"http", []string{"trtllm-serve", "Qwen/Qwen3-8B"}, url, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := judge.Config{Server: "trtllm", Smoke: true}
			probe, note := noHTTPMode("trtllm", tt.argv, &cfg, url)
			if probe != tt.wantProbe || cfg.NoHealth != tt.noHealth || cfg.Smoke == tt.noHealth || (note != "") != tt.noHealth {
				t.Errorf("probe %q, NoHealth %v, Smoke %v, note %q", probe, cfg.NoHealth, cfg.Smoke, note)
			}
		})
	}
}
