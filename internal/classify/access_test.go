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
