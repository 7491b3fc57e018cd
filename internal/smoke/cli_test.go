package smoke_test

// Tests of `vigil smoke` as a command. They live here rather than in
// internal/cli so that this package owns them.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"vigil/internal/cli"
)

func vigil(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cli.Env{
		IO:      &cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb},
		Getenv:  func(string) string { return "" },
		SelfExe: "vigil",
	}
	code = cli.Main(t.Context(), args, e)
	return out.String(), errb.String(), code
}

func server(t *testing.T, content string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			w.Write([]byte(`{"data":[{"id":"Qwen/Qwen2-1.5B-Instruct"}]}`))
		case "/v1/chat/completions":
			c, _ := json.Marshal(content)
			w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":` + string(c) + `}}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// poolingServer is an SGLang server of a model that generates no text:
// its model info says so, and it serves embeddings when embed is set.
func poolingServer(t *testing.T, embed bool) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/models":
			w.Write([]byte(`{"data":[{"id":"gte"}]}`))
		case r.URL.Path == "/model_info":
			w.Write([]byte(`{"model_path":"gte","is_generation":false}`))
		case r.URL.Path == "/v1/embeddings" && embed:
			w.Write([]byte(`{"data":[{"index":0,"embedding":[1,0.2]},{"index":1,"embedding":[0.9,0.3]},{"index":2,"embedding":[-0.2,1]}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestSmokeCommand(t *testing.T) {
	sane := server(t, "The capital of France is Paris.")
	bangs := server(t, strings.Repeat("!", 32))
	embedder := poolingServer(t, true)
	classifier := poolingServer(t, false)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "sane answer", args: []string{"smoke", "--url", sane}, wantCode: 0,
			wantStdout: "ok\n  endpoint /v1/chat/completions  model Qwen/Qwen2-1.5B-Instruct  latency "},
		{name: "NaN answer", args: []string{"smoke", "--url", bangs}, wantCode: 1,
			wantStdout: "FAIL  garbage: run of 32 '!'\n"},
		{name: "expected text", args: []string{"smoke", "--url", sane, "--expect-text", "(?i)berlin"}, wantCode: 1,
			wantStdout: "FAIL  answer does not match /(?i)berlin/"},
		{name: "JSON, failing", args: []string{"smoke", "--url", bangs, "--json"}, wantCode: 1,
			wantStdout: `{"ok":false,"reason":"garbage: run of 32 '!'","endpoint":"/v1/chat/completions","model":"Qwen/Qwen2-1.5B-Instruct","answer":"` + strings.Repeat("!", 32) + `","latency_ms":`,
			wantStderr: "vigil: smoke: garbage: run of 32 '!'\n"},
		{name: "embedding model", args: []string{"smoke", "--url", embedder, "--server", "sglang"}, wantCode: 0,
			wantStdout: "ok\n  endpoint /v1/embeddings  model gte  latency "},
		{name: "classifier", args: []string{"smoke", "--url", classifier}, wantCode: 1,
			wantStdout: "UNCHECKED  the model generates no text and answered neither an embeddings nor a ranking request: /v1/embeddings HTTP 404, /v1/rerank HTTP 404\n"},
		{name: "no URL", args: []string{"smoke"}, wantCode: 2, wantStderr: "vigil: smoke: --url is required"},
		{name: "bad URL", args: []string{"smoke", "--url", "ftp://x"}, wantCode: 2, wantStderr: `vigil: smoke: --url "ftp://x": the scheme must be http or https`},
		{name: "bad regexp", args: []string{"smoke", "--url", sane, "--expect-text", "(("}, wantCode: 2, wantStderr: "vigil: smoke: --expect-text: error parsing regexp"},
		{name: "bad server", args: []string{"smoke", "--url", sane, "--server", "ollama"}, wantCode: 2, wantStderr: `vigil: smoke: --server "ollama"`},
		{name: "bad timeout", args: []string{"smoke", "--url", sane, "--timeout", "0s"}, wantCode: 2, wantStderr: "vigil: smoke: --timeout must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := vigil(t, tt.args...)
			if code != tt.wantCode || !strings.HasPrefix(stdout, tt.wantStdout) || !strings.HasPrefix(stderr, tt.wantStderr) {
				t.Errorf("got exit %d\nstdout %q\nstderr %q\nwant exit %d, stdout starting %q, stderr starting %q",
					code, stdout, stderr, tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
			if tt.wantStderr == "" && stderr != "" {
				t.Errorf("got stderr %q, want none", stderr)
			}
		})
	}
}
