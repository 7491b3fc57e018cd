package redact

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

const key = "sk-live-0123456789abcdef"

func TestSecretName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"--api-key", true},
		{"--admin-api-key", true},
		{"--hf-token", true},
		{"--token", true},
		{"--ssl-key", true},
		{"--db-secret", true},
		{"--redis-password", true},
		{"HF_TOKEN", true},
		{"HUGGING_FACE_HUB_TOKEN", true},
		{"OPENAI_API_KEY", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"api_key", true},
		{"--max-tokens", false},
		{"--max-num-batched-tokens", false},
		{"--tokenizer", false},
		{"TOKENIZERS_PARALLELISM", false},
		{"--api-key-file", false},
		{"--ssl-keyfile", false},
		{"--model", false},
		{"monkey", false},
		{"--kv-cache-dtype", false},
		{"", false},
		{"--", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SecretName(tt.name); got != tt.want {
				t.Errorf("SecretName(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

func TestArgv(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"flag and value", []string{"vllm", "serve", "m", "--api-key", key, "--port", "8000"},
			[]string{"vllm", "serve", "m", "--api-key", Mask, "--port", "8000"}},
		{"flag=value", []string{"python", "-m", "sglang.launch_server", "--api-key=" + key},
			[]string{"python", "-m", "sglang.launch_server", "--api-key=" + Mask}},
		{"hf token", []string{"x", "--hf-token", "hf_abcdefghijklmnop"}, []string{"x", "--hf-token", Mask}},
		{"underscore spelling", []string{"x", "--api_key", "k1234"}, []string{"x", "--api_key", Mask}},
		{"password and secret", []string{"x", "--db-password", "p4ss", "--client-secret=s3cr3t"},
			[]string{"x", "--db-password", Mask, "--client-secret=" + Mask}},
		{"flag without value", []string{"x", "--api-key", "--port", "1"}, []string{"x", "--api-key", "--port", "1"}},
		{"flag at the end", []string{"x", "--token"}, []string{"x", "--token"}},
		{"env prefix", []string{"env", "HF_TOKEN=hf_abcdefghijkl", "CUDA_VISIBLE_DEVICES=0", "vllm"},
			[]string{"env", "HF_TOKEN=" + Mask, "CUDA_VISIBLE_DEVICES=0", "vllm"}},
		{"counts are not secrets", []string{"x", "--max-tokens", "512", "--tokenizer", "t"},
			[]string{"x", "--max-tokens", "512", "--tokenizer", "t"}},
		{"key file path is kept", []string{"llama-server", "--api-key-file", "/etc/keys"},
			[]string{"llama-server", "--api-key-file", "/etc/keys"}},
		{"shaped token anywhere", []string{"sh", "-c", "serve --key " + key}, []string{"sh", "-c", "serve --key " + Mask}},
		{"url userinfo", []string{"x", "--endpoint", "http://bob:pw@10.0.0.1:80/"},
			[]string{"x", "--endpoint", "http://" + Mask + "@10.0.0.1:80/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := slices.Clone(tt.in)
			got := Argv(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Argv(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if !slices.Equal(tt.in, orig) {
				t.Errorf("Argv changed its input: %q", tt.in)
			}
		})
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain line untouched", "INFO: Uvicorn running on http://0.0.0.0:8000", "INFO: Uvicorn running on http://0.0.0.0:8000"},
		{"sglang server args", "server_args=ServerArgs(model_path='m', api_key='k3yv4lue', port=30000)",
			"server_args=ServerArgs(model_path='m', api_key='***', port=30000)"},
		{"no key is shown", "ServerArgs(api_key=None, admin_api_key=None)", "ServerArgs(api_key=None, admin_api_key=None)"},
		{"vllm list", "non-default args: {'api_key': ['k1abc', 'k2abc'], 'port': 1}", "non-default args: {'api_key': ***, 'port': 1}"},
		{"json", `{"hf_token": "abcd1234", "model": "m"}`, `{"hf_token": "***", "model": "m"}`},
		{"flag in text", "cmd: vllm serve m --api-key abcd1234 --port 1", "cmd: vllm serve m --api-key *** --port 1"},
		{"prose is not a flag", "the key was refused", "the key was refused"},
		{"authorization header", "Authorization: Bearer abcd1234efgh", "Authorization: Bearer ***"},
		{"basic auth header", "authorization: Basic dXNlcjpwYXNz", "authorization: Basic ***"},
		{"bearer alone", `invalid token "Bearer abcd1234efgh"`, `invalid token "Bearer ***"`},
		{"userinfo", "GET http://alice:s3cret@host:8000/v1/models", "GET http://***@host:8000/v1/models"},
		{"hf shape", "token hf_AbCdEfGhIjKlMnOp expired", "token *** expired"},
		{"sk shape in a 401 body", `{"error":"Incorrect API key provided: ` + key + `"}`, `{"error":"Incorrect API key provided: ***"}`},
		{"env assignment", "HF_TOKEN=hf_secretsecret python x.py", "HF_TOKEN=*** python x.py"},
		{"counts kept", "max_tokens=32 max_new_tokens: 16", "max_tokens=32 max_new_tokens: 16"},
		{"sglang batch line kept", "Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00",
			"Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00"},
		{"a long number after a key is masked", "api_key=123456789012345", "api_key=***"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestURL(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"userinfo", "http://u:p@127.0.0.1:8000/v1", "http://***@127.0.0.1:8000/v1"},
		{"user only", "http://u@h/", "http://***@h/"},
		{"secret query", "http://h/health?token=abc&x=1", "http://h/health?token=%2A%2A%2A&x=1"},
		{"plain", "http://127.0.0.1:30000", "http://127.0.0.1:30000"},
		{"not a URL", "api_key=abcd1234", "api_key=***"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := URL(tt.in); got != tt.want {
				t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMapAndEnv(t *testing.T) {
	m := Map(map[string]string{"api_key": "abcd1234", "port": "8000", "hf_token": "None", "note": "Bearer abcdefgh"})
	want := map[string]string{"api_key": Mask, "port": "8000", "hf_token": "None", "note": "Bearer " + Mask}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("Map[%s] = %q, want %q", k, m[k], v)
		}
	}
	env := Env([]string{"HF_TOKEN=hf_abcdefghijkl", "PATH=/usr/bin", "VIGIL_API_KEY=" + key, "ODD"})
	wantEnv := []string{"HF_TOKEN=" + Mask, "PATH=/usr/bin", "VIGIL_API_KEY=" + Mask, "ODD"}
	if !slices.Equal(env, wantEnv) {
		t.Errorf("Env = %q, want %q", env, wantEnv)
	}
}

func TestRedactorKnownSecret(t *testing.T) {
	r := New("plainpassphrase", "ab") // "ab" is too short to mask
	tests := []struct{ in, want string }{
		{"server said: bad key plainpassphrase!", "server said: bad key ***!"},
		{"about", "about"},
		{"--api-key " + key, "--api-key " + Mask},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// A known secret ending in the mask's character, next to a value the
	// shapes mask, is not spelled again by that mask.
	starred := New("://*", "er *")
	for _, tt := range []struct{ in, want string }{
		{"http://user:pw@host/", "http*****@host/"},
		{"https://u@h and ://*", "https*****@h and ***"},
		{"Authorization: Bearer abcdef", "Authorization: Bear*****"},
		{"plain text", "plain text"},
	} {
		if got := starred.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var nilR *Redactor
	if got := nilR.String("x " + key); got != "x "+Mask {
		t.Errorf("nil Redactor: %q", got)
	}
	if got := r.Argv([]string{"a", "plainpassphrase"}); got[1] != Mask {
		t.Errorf("Argv with a known secret = %q", got)
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := New("myapikey99").Writer(&buf)
	line := "HTTP 401: invalid key myapikey99\n"
	n, err := w.Write([]byte(line))
	if err != nil || n != len(line) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(line))
	}
	if got := buf.String(); strings.Contains(got, "myapikey99") || got != "HTTP 401: invalid key ***\n" {
		t.Errorf("wrote %q", got)
	}
}

// FuzzString: redaction never panics, is idempotent, and never leaves a
// planted key behind, wherever it sits.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "--api-key X", "api_key='%s'", "Authorization: Bearer %s", "http://u:%s@h/", "%s", "{\"token\": \"%s\"}"} {
		f.Add(s, "k3y-VALUE-123")
	}
	f.Add("http://u@h", "://*") // a mask spelling a secret that holds '*'
	f.Fuzz(func(t *testing.T, text, secret string) {
		out := String(text)
		if again := String(out); again != out {
			t.Errorf("not idempotent: %q -> %q -> %q", text, out, again)
		}
		if len(secret) < 4 {
			return
		}
		planted := text + " " + secret + " " + text
		if got := New(secret).String(planted); strings.Contains(got, secret) {
			t.Errorf("known secret %q left in %q", secret, got)
		}
		for _, form := range []string{"--api-key=", "--hf-token ", "Authorization: Bearer ", "api_key='"} {
			s := "sk-" + strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
					return r
				}
				return 'x'
			}, secret)
			got := String(form + s + "'")
			if strings.Contains(got, s) {
				t.Errorf("%q: secret left in %q", form, got)
			}
		}
	})
}

func BenchmarkStringPlainLine(b *testing.B) {
	line := "[2026-12-01 21:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0"
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		_ = String(line)
	}
}

func BenchmarkStringNoHint(b *testing.B) {
	line := "INFO 12-01 21:00:00 [gpu_model_runner.py:1234] Model loading took 15.2 GiB and 12.3 seconds"
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		_ = String(line)
	}
}
