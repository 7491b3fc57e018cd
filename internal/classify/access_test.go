package classify

import (
	"strings"
	"testing"
)

func TestAccessHealth(t *testing.T) {
	tests := []struct {
		name, line string
		ok         bool
		code       int
	}{
		{"uvicorn 500 on health", `INFO:     127.0.0.1:51880 - "GET /health HTTP/1.1" 500 Internal Server Error`, true, 500},
		{"uvicorn 200 on chat", `(APIServer pid=1) INFO:     127.0.0.1:4 - "POST /v1/chat/completions HTTP/1.1" 200 OK`, true, 200},
		{"uvicorn 404 on chat is not health", `INFO:     127.0.0.1:4 - "POST /v1/nope HTTP/1.1" 404 Not Found`, false, 0},
		{"uvicorn 503 on health", `INFO:     127.0.0.1:4 - "GET /health?x=1 HTTP/1.1" 503 Service Unavailable`, true, 503},
		{"llama.cpp", `srv  log_server_r: request: GET /health 127.0.0.1 503`, true, 503},
		{"a refused API key is no health answer", `INFO:     10.42.3.1:50112 - "GET /v1/models HTTP/1.1" 401 Unauthorized`, false, 0},
		{"not an access line", `the HTTP/1.1 spec says`, false, 0},
		{"cut short", `"GET /health HTTP/1.1`, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ok := AccessHealth(tt.line)
			if ok != tt.ok || h.Code != tt.code {
				t.Errorf("AccessHealth = %+v, %v; want code %d, %v", h, ok, tt.code, tt.ok)
			}
		})
	}
}

// TestServedRequest: a POST to the API answered 2xx is a started
// server's work; health probes and failed requests are not.
func TestServedRequest(t *testing.T) {
	tests := []struct {
		name, line, path string
		ok               bool
	}{
		{"llama.cpp under journald", "May 21 07:22:52 helium-cuda llm-server-start[59332]: srv  log_server_r: done request: POST /v1/chat/completions 192.168.122.1 200", "/v1/chat/completions", true},
		{"sglang's uvicorn", `[2025-08-02 19:24:20] INFO:     172.16.19.148:48276 - "POST /v1/completions HTTP/1.1" 200 OK`, "/v1/completions", true},
		{"vllm's uvicorn", `(APIServer pid=1194908) INFO:     172.22.0.188:49602 - "POST /v1/chat/completions HTTP/1.1" 200 OK`, "/v1/chat/completions", true},
		{"a health probe", `INFO:     127.0.0.1:4 - "GET /health HTTP/1.1" 200 OK`, "", false},
		{"a POST to a health endpoint", `INFO:     127.0.0.1:4 - "POST /health_generate HTTP/1.1" 200 OK`, "", false},
		{"loading", "srv  log_server_r: request: POST /completion 127.0.0.1 503", "", false},
		// vLLM on Ascend, a request that killed the engine (2025).
		{"a request taken and failed", `INFO:     127.0.0.1:54321 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error`, "/v1/chat/completions", true},
		{"a request refused", `INFO:     127.0.0.1:54321 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request`, "", false},
		{"a GET of the API", `INFO:     127.0.0.1:4 - "GET /v1/models HTTP/1.1" 200 OK`, "", false},
		{"not an access line", "POST /v1/completions 200", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, ok := ServedRequest(tt.line)
			if ok != tt.ok || path != tt.path {
				t.Errorf("ServedRequest = %q, %v; want %q, %v", path, ok, tt.path, tt.ok)
			}
		})
	}
}

// FuzzContainsBy: containsBy is strings.Contains, whichever byte it
// searches for.
func FuzzContainsBy(f *testing.F) {
	f.Add("srv  log_server_r: request: GET /health 127.0.0.1 200", "request: ", 2)
	f.Add("qq", "qq", 1)
	f.Add("aab", "ab", 0)
	f.Fuzz(func(t *testing.T, s, lit string, k int) {
		if lit == "" {
			return
		}
		k = int(uint(k) % uint(len(lit)))
		if got, want := containsBy(s, lit, k), strings.Contains(s, lit); got != want {
			t.Fatalf("containsBy(%q, %q, %d) = %v, want %v", s, lit, k, got, want)
		}
	})
}
