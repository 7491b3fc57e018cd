package bench_test

// Tests of `vigil bench` as a command: flags, exit statuses, output. They
// live here rather than in internal/cli so that this package owns them.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"vigil/internal/cli"
	"vigil/internal/openai/openaitest"
)

type outcome struct {
	stdout, stderr string
	code           int
}

func vigil(t *testing.T, env map[string]string, tty bool, args ...string) outcome {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cli.Env{
		IO:      &cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb, IsStdoutTTY: tty, IsStderrTTY: tty},
		Getenv:  func(k string) string { return env[k] },
		SelfExe: "vigil",
	}
	code := cli.Main(t.Context(), args, e)
	return outcome{out.String(), errb.String(), code}
}

func fakeURL(t *testing.T, cfg openaitest.Config) string {
	t.Helper()
	srv := httptest.NewServer(openaitest.New(cfg))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestBenchUsageErrors(t *testing.T) {
	url := fakeURL(t, openaitest.Config{})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no URL", args: []string{"bench"}, want: "vigil: bench: --url is required"},
		{name: "bad URL", args: []string{"bench", "--url", "ftp://x"}, want: `vigil: bench: --url "ftp://x": the scheme must be http or https`},
		{name: "bad concurrency", args: []string{"bench", "--url", url, "--concurrency", "0,8"}, want: "vigil: bench: --concurrency:"},
		{name: "bad SLO", args: []string{"bench", "--url", url, "--slo", "ttft"}, want: "vigil: bench: --slo:"},
		{name: "bad tolerance", args: []string{"bench", "--url", url, "--tolerance", "lots"}, want: "vigil: bench: --tolerance:"},
		{name: "requests and duration", args: []string{"bench", "--url", url, "--requests", "5", "--duration", "1s"}, want: "vigil: bench: give --requests or --duration, not both"},
		{name: "bad endpoint", args: []string{"bench", "--url", url, "--endpoint", "grpc"}, want: "vigil: bench: --endpoint:"},
		{name: "missing baseline file", args: []string{"bench", "--url", url, "--baseline", "/nonexistent/old.json"}, want: "vigil: bench: --baseline: baseline: open /nonexistent/old.json"},
		{name: "bad baseline figures", args: []string{"bench", "--url", url, "--baseline", "c=1:x"}, want: "vigil: bench: --baseline:"},
		{name: "bad duration", args: []string{"bench", "--url", url, "--timeout", "soon"}, want: `vigil: invalid argument "soon" for "--timeout"`},
		{name: "zero output length", args: []string{"bench", "--url", url, "--output-len", "0"}, want: "vigil: bench: output length must be at least 1"},
		{name: "stray argument", args: []string{"bench", "--url", url, "extra"}, want: "vigil: unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := vigil(t, nil, false, tt.args...)
			if got.code != 2 || !strings.HasPrefix(got.stderr, tt.want) || strings.Count(got.stderr, "\n") != 1 || got.stdout != "" {
				t.Errorf("got exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", got.code, got.stdout, got.stderr, tt.want)
			}
		})
	}
}

func TestBenchJSON(t *testing.T) {
	url := fakeURL(t, openaitest.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	got := vigil(t, nil, false, "bench", "--url", url, "--concurrency", "1,2", "--requests", "3",
		"--output-len", "8", "--input-len", "32", "--slo", "ttft=1s", "--json")
	if got.code != 0 {
		t.Fatalf("got exit %d, stderr %q", got.code, got.stderr)
	}
	if got.stderr != "" {
		t.Errorf("got stderr %q, want nothing without a terminal", got.stderr)
	}
	var res struct {
		Model  string `json:"model"`
		OK     bool   `json:"ok"`
		Levels []struct {
			Concurrency  int                `json:"concurrency"`
			Completed    int                `json:"completed"`
			Failed       int                `json:"failed"`
			OutputTokens int                `json:"output_tokens"`
			OutputTokS   float64            `json:"output_tok_s"`
			ReqS         float64            `json:"req_s"`
			Goodput      *float64           `json:"goodput_req_s"`
			TTFT         map[string]float64 `json:"ttft_ms"`
			ITL          map[string]float64 `json:"itl_ms"`
			TPOT         map[string]float64 `json:"tpot_ms"`
			E2E          map[string]float64 `json:"e2e_ms"`
		} `json:"levels"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, got.stdout)
	}
	if res.Model != "fake-model" || !res.OK || len(res.Levels) != 2 {
		t.Fatalf("got %+v", res)
	}
	for _, lv := range res.Levels {
		if lv.Completed != 3 || lv.Failed != 0 || lv.OutputTokens != 24 || lv.OutputTokS <= 0 || lv.ReqS <= 0 || lv.Goodput == nil {
			t.Errorf("got level %+v", lv)
		}
		for name, d := range map[string]map[string]float64{"ttft": lv.TTFT, "itl": lv.ITL, "tpot": lv.TPOT, "e2e": lv.E2E} {
			if len(d) != 4 || d["mean"] <= 0 || d["p99"] < d["p50"] {
				t.Errorf("c=%d %s: got %v", lv.Concurrency, name, d)
			}
		}
	}
}

func TestBenchBaselineDecidesExit(t *testing.T) {
	url := fakeURL(t, openaitest.Config{ITL: 2 * time.Millisecond})
	args := []string{"bench", "--url", url, "--concurrency", "1", "--requests", "2", "--output-len", "10", "--input-len", "8"}
	// About 500 tok/s: 2 ms between tokens.
	tests := []struct {
		name     string
		baseline string
		extra    []string
		wantCode int
		wantErr  string
		wantOut  string
	}{
		{name: "far below the reference", baseline: "c=1:100000", wantCode: 1, wantErr: "vigil: bench: c=1: ", wantOut: "BELOW"},
		{name: "above the reference", baseline: "c=1:10", wantCode: 0, wantOut: "ok"},
		{name: "no figure for the level", baseline: "c=8:10", wantCode: 0, wantOut: "no baseline"},
		{name: "generous tolerance", baseline: "c=1:600", extra: []string{"--tolerance", "90%"}, wantCode: 0, wantOut: "ok"},
		{name: "earlier result file", baseline: "../../testdata/bench/baseline-qwen25-7b.json", wantCode: 0,
			wantOut: "warning: baseline model was Qwen/Qwen2.5-7B-Instruct, now fake-model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := vigil(t, nil, false, append(append(args, "--baseline", tt.baseline), tt.extra...)...)
			if got.code != tt.wantCode || !strings.HasPrefix(got.stderr, tt.wantErr) || !strings.Contains(got.stdout, tt.wantOut) {
				t.Errorf("got exit %d, stderr %q, stdout:\n%s\nwant exit %d, stderr %q, stdout with %q",
					got.code, got.stderr, got.stdout, tt.wantCode, tt.wantErr, tt.wantOut)
			}
		})
	}
}

func TestBenchServerDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	got := vigil(t, nil, false, "bench", "--url", url, "--concurrency", "1", "--requests", "1")
	if got.code != 1 || !strings.HasPrefix(got.stderr, "vigil: bench: finding the model") || !strings.Contains(got.stderr, "connection refused") {
		t.Errorf("got exit %d, stderr %q", got.code, got.stderr)
	}
}

func TestBenchProgressOnlyOnATerminal(t *testing.T) {
	url := fakeURL(t, openaitest.Config{ITL: 10 * time.Millisecond})
	args := []string{"bench", "--url", url, "--concurrency", "1", "--requests", "3", "--output-len", "20", "--input-len", "8", "--warmup", "0"}
	tty := vigil(t, nil, true, args...)
	if tty.code != 0 || !strings.Contains(tty.stderr, "\r\033[K") || !strings.Contains(tty.stderr, "c=1") {
		t.Errorf("terminal: got exit %d, stderr %q; want a progress line", tty.code, tty.stderr)
	}
	if strings.Contains(tty.stdout, "\r") {
		t.Errorf("terminal: progress leaked into stdout: %q", tty.stdout)
	}
	plain := vigil(t, nil, false, args...)
	if plain.code != 0 || plain.stderr != "" {
		t.Errorf("no terminal: got exit %d, stderr %q; want nothing on stderr", plain.code, plain.stderr)
	}
}

// TestBenchNeverPrintsTheKey uses a server that echoes the Authorization
// header in its error message, as careless proxies do.
func TestBenchNeverPrintsTheKey(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, `{"error":{"message":"invalid header: `+r.Header.Get("Authorization")+`"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	tests := []struct {
		name string
		env  map[string]string
		flag []string
		key  string
	}{
		{name: "flag wins", env: map[string]string{"VIGIL_API_KEY": "sk-env-vigil"}, flag: []string{"--api-key", "sk-flag-1234"}, key: "sk-flag-1234"},
		{name: "VIGIL_API_KEY", env: map[string]string{"VIGIL_API_KEY": "sk-env-vigil", "OPENAI_API_KEY": "sk-env-openai"}, key: "sk-env-vigil"},
		{name: "OPENAI_API_KEY", env: map[string]string{"OPENAI_API_KEY": "sk-env-openai"}, key: "sk-env-openai"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			seen = nil
			mu.Unlock()
			for _, json := range []string{"--json", "--json=false"} {
				args := append([]string{"bench", "--url", srv.URL, "--model", "m", "--concurrency", "1", "--requests", "1", "--warmup", "0", json}, tt.flag...)
				got := vigil(t, tt.env, false, args...)
				if got.code != 1 {
					t.Errorf("%s: got exit %d, want 1 (every request failed)", json, got.code)
				}
				if all := got.stdout + got.stderr; strings.Contains(all, tt.key) || !strings.Contains(all, "Bearer ***") {
					t.Errorf("%s: the key shows in the output, or the echo is gone:\n%s", json, all)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) == 0 || seen[0] != "Bearer "+tt.key {
				t.Errorf("server saw %q, want Bearer %s", seen, tt.key)
			}
		})
	}
}
