package classify

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestListenAddress: the address lines of each server, as their current
// and older sources print them, give the base URL a local probe reaches.
func TestListenAddress(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"llama-server --port 0", "llama_server: listening on http://127.0.0.1:34737", "http://127.0.0.1:34737"},
		{"llama-server on all interfaces", "llama_server: listening on http://0.0.0.0:9931", "http://127.0.0.1:9931"},
		{"llama-server with TLS", "llama_server: listening on https://[::]:8443", "https://[::1]:8443"},
		{"llama-server on a Unix socket", "llama_server: listening on unix:///run/llama.sock", "unix:///run/llama.sock"},
		{"llama-server on a relative socket", "llama_server: listening on unix://llama.sock", ""},
		{"vLLM on a Unix socket", "Starting vLLM API server 0 on unix:/tmp/vllm.sock", "unix:///tmp/vllm.sock"},
		{"older llama-server", "main: server is listening on http://0.0.0.0:8008 - starting the main loop", "http://127.0.0.1:8008"},
		{"older llama-server, fields", "main: HTTP server is listening, hostname: 0.0.0.0, port: 8080, http threads: 31", "http://127.0.0.1:8080"},
		{"uvicorn", "Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)", "http://127.0.0.1:30000"},
		{"uvicorn on one address", "Uvicorn running on http://10.1.2.3:8000 (Press CTRL+C to quit)", "http://10.1.2.3:8000"},
		{"uvicorn on IPv6", "Uvicorn running on http://[::]:8000 (Press CTRL+C to quit)", "http://[::1]:8000"},
		{"uvicorn on a Unix socket", "Uvicorn running on unix socket /tmp/sglang.sock (Press CTRL+C to quit)", "unix:///tmp/sglang.sock"},
		{"vLLM", "Starting vLLM API server 0 on http://0.0.0.0:8000", "http://127.0.0.1:8000"},
		{"vLLM before 0.10", "Starting vLLM API server on http://0.0.0.0:8000", "http://127.0.0.1:8000"},
		{"a port out of range", "Uvicorn running on http://0.0.0.0:70000", ""},
		{"no port", "Uvicorn running on http://0.0.0.0 (Press CTRL+C to quit)", ""},
		{"another listener", "TCPStore listening on port 29500", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ListenAddress(tt.line); got != tt.want {
				t.Errorf("ListenAddress(%q) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

// FuzzListenAddress: whatever a line holds, the address read from it is
// none or a base URL a client can dial: http(s), a host, a port in range,
// no path; or an absolute Unix socket path.
func FuzzListenAddress(f *testing.F) {
	for _, s := range []string{
		"llama_server: listening on http://127.0.0.1:34737",
		"main: HTTP server is listening, hostname: 0.0.0.0, port: 8080, http threads: 31",
		"Uvicorn running on http://[::]:8000 (Press CTRL+C to quit)",
		"Starting vLLM API server 0 on http://0.0.0.0:8000",
		"Uvicorn running on unix socket /tmp/x.sock",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got := ListenAddress(line)
		if got == "" {
			return
		}
		if path, ok := strings.CutPrefix(got, "unix://"); ok {
			if !strings.HasPrefix(path, "/") || len(path) < 2 || strings.ContainsAny(path, " \x00\n") {
				t.Fatalf("ListenAddress(%q) = %q: not an absolute socket path", line, got)
			}
			return
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("ListenAddress(%q) = %q, not a URL: %v", line, got, err)
		}
		port, err := strconv.Atoi(u.Port())
		if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || err != nil || port < 1 || port > 65535 || u.Path != "" {
			t.Fatalf("ListenAddress(%q) = %q: not scheme://host:port", line, got)
		}
	})
}
