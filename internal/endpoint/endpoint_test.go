package endpoint

import (
	"strings"
	"testing"
)

// TestUnixSocket: a socket's base URL names localhost for HTTP and dials
// the socket; any other base is left to the transport.
func TestUnixSocket(t *testing.T) {
	if p, ok := Socket("http://h:1"); ok || p != "" {
		t.Errorf("Socket of a TCP base = %q, %v", p, ok)
	}
	if p, ok := Socket("unix:///run/llama.sock"); !ok || p != "/run/llama.sock" {
		t.Errorf("Socket = %q, %v", p, ok)
	}
	if got := HTTPBase("unix:///run/llama.sock"); got != "http://localhost" {
		t.Errorf("HTTPBase = %q", got)
	}
	if got := HTTPBase("http://h:1/p"); got != "http://h:1/p" {
		t.Errorf("HTTPBase of a TCP base = %q", got)
	}
	if UnixDial("http://h:1") != nil || UnixDial("unix:///run/llama.sock") == nil {
		t.Error("UnixDial: want a dialer for a socket only")
	}
}

// TestSocketWithPrefix: a socket whose server serves its routes under a
// path keeps both, and its requests name localhost under that path.
func TestSocketWithPrefix(t *testing.T) {
	tests := []struct {
		path, prefix, base, http string
	}{
		{"/run/llama.sock", "", "unix:///run/llama.sock", "http://localhost"},
		{"/run/llama.sock", "/llm", "http+unix://%2Frun%2Fllama.sock/llm", "http://localhost/llm"},
		{"/tmp/a b/x.sock", "/api/v2", "http+unix://%2Ftmp%2Fa%20b%2Fx.sock/api/v2", "http://localhost/api/v2"},
	}
	for _, tt := range tests {
		base := SocketURL(tt.path, tt.prefix)
		if base != tt.base {
			t.Errorf("SocketURL(%q, %q) = %q, want %q", tt.path, tt.prefix, base, tt.base)
		}
		if p, ok := Socket(base); !ok || p != tt.path {
			t.Errorf("Socket(%q) = %q, %v; want %q", base, p, ok, tt.path)
		}
		if got := HTTPBase(base); got != tt.http {
			t.Errorf("HTTPBase(%q) = %q, want %q", base, got, tt.http)
		}
		if got, err := Parse(base); err != nil || got != base {
			t.Errorf("Parse(%q) = %q, %v; want it back", base, got, err)
		}
	}
	if _, ok := Socket("http+unix://run.sock/llm"); ok {
		t.Error("a relative socket path in http+unix:// was taken")
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{"full URL", "http://127.0.0.1:30000", "http://127.0.0.1:30000", ""},
		{"trailing slash", "http://127.0.0.1:30000/", "http://127.0.0.1:30000", ""},
		{"v1 suffix", "http://h:8000/v1/", "http://h:8000", ""},
		{"prefix kept", "https://gw.example/llm/v1", "https://gw.example/llm", ""},
		{"host and port", "127.0.0.1:30000", "http://127.0.0.1:30000", ""},
		{"name and port", "localhost:8080", "http://localhost:8080", ""},
		{"port only", ":8000", "http://127.0.0.1:8000", ""},
		{"IPv6 host and port", "[::1]:8000", "http://[::1]:8000", ""},
		{"spaces", "  :8000 ", "http://127.0.0.1:8000", ""},
		{"empty", "", "", "empty"},
		{"bare host", "localhost", "", "not a URL or HOST:PORT"},
		{"bad port", "host:99999", "", `bad port "99999"`},
		{"bad port in URL", "http://h:0", "", `bad port "0"`},
		{"empty port in URL", "http://h:", "", `bad port ""`},
		{"other scheme", "ftp://h:21", "", "the scheme must be http or https"},
		{"no host", "http://:8000", "", "no host"},
		{"query", "http://h:1/?x=1", "", "a query or fragment"},
		{"words", "not a url", "", "not a URL or HOST:PORT"},
		{"Unix socket", "unix:///run/llama.sock", "unix:///run/llama.sock", ""},
		{"Unix socket, vLLM's form", "unix:/tmp/vllm.sock", "unix:///tmp/vllm.sock", ""},
		{"Unix socket, relative", "unix:llama.sock", "", "a Unix socket needs an absolute path"},
		{"Unix socket, no path", "unix://", "", "a Unix socket needs an absolute path"},
		{"Unix socket with a prefix", "http+unix://%2Frun%2Fllama.sock/llm/v1/", "http+unix://%2Frun%2Fllama.sock/llm", ""},
		{"Unix socket with a prefix, relative", "http+unix://llama.sock/llm", "", "not a socket's path and a route prefix"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse(%q) = %q, %v; want error containing %q", tc.in, got, err, tc.err)
				}
				if !strings.Contains(err.Error(), "want http://HOST:PORT, HOST:PORT, :PORT or unix:///PATH") {
					t.Fatalf("error %q does not say what is wanted", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Parse(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}
