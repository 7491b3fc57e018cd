package classify

import (
	"net"
	"strconv"
	"strings"
)

// listenMarkers are the lines an HTTP server prints once it accepts
// connections (uvicorn under SGLang, vLLM and TensorRT-LLM): the server is
// up, though not necessarily ready.
var listenMarkers = []string{"Application startup complete", "Uvicorn running on"}

// SaysListening reports whether a line says the server's HTTP server
// listens.
func SaysListening(line string) bool {
	for _, m := range listenMarkers {
		if strings.Contains(line, m) {
			return true
		}
	}
	return false
}

// addressLines are the literals after which a server prints the address
// its HTTP server listens on: scheme://host:port, a Unix socket (unix:PATH,
// unix://PATH, uvicorn's "unix socket PATH") or, with hostPort,
// "hostname: H, port: P".
var addressLines = []struct {
	lit      string
	hostPort bool
}{
	// uvicorn's config.py (SGLang, vLLM, TensorRT-LLM): "Uvicorn running
	// on http://0.0.0.0:8000 (Press CTRL+C to quit)".
	{lit: "Uvicorn running on "},
	// vllm/entrypoints/openai/api_server.py: "Starting vLLM API server 0
	// on http://0.0.0.0:8000" (before 0.10: no server index).
	{lit: "Starting vLLM API server "},
	// llama.cpp tools/server/server.cpp (b10587): "listening on
	// http://127.0.0.1:8080", the port a --port 0 was given; older builds
	// "main: server is listening on http://...  - starting the main loop"
	// and "main: HTTP server is listening, hostname: H, port: P, ...".
	{lit: "llama_server: listening on "},
	{lit: "main: server is listening on "},
	{lit: "server is listening, hostname: ", hostPort: true},
}

// ListenAddress returns the base URL (scheme://host:port, or unix:///PATH
// for a Unix socket) a line says the server listens at, or "". A wildcard
// host (0.0.0.0, ::) is given as the loopback address of its family, where
// a local client reaches it.
func ListenAddress(line string) string {
	for _, a := range addressLines {
		i := strings.Index(line, a.lit)
		if i < 0 {
			continue
		}
		rest := line[i+len(a.lit):]
		switch {
		case a.hostPort:
			return hostPortAddress(rest)
		case strings.HasPrefix(rest, "unix socket "):
			// uvicorn --uds: "unix socket /tmp/x.sock (Press CTRL+C ...)".
			return socketAddress(rest[len("unix socket "):])
		}
		// The address follows some words ("0 on http://...").
		if j := strings.Index(rest, "unix:"); j >= 0 && (j == 0 || rest[j-1] == ' ') {
			// llama-server's unix://PATH, vLLM's unix:PATH.
			r := rest[j+len("unix:"):]
			if strings.HasPrefix(r, "//") {
				r = r[2:]
			}
			return socketAddress(r)
		}
		if j := strings.Index(rest, "://"); j >= 0 {
			k := strings.LastIndexByte(rest[:j], ' ')
			return urlAddress(rest[k+1:])
		}
		return ""
	}
	return ""
}

// socketAddress reads a socket's absolute path up to the first space:
// unix:///PATH, or "" when there is none (a relative path is the server's
// working directory's, which a reader of its log does not know).
func socketAddress(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		s = s[:i]
	}
	if len(s) < 2 || s[0] != '/' || strings.ContainsAny(s, "\x00\t\r\n") {
		return ""
	}
	return "unix://" + s
}

// urlAddress reads scheme://host:port at the start of s.
func urlAddress(s string) string {
	scheme, rest, _ := strings.Cut(s, "://")
	if scheme != "http" && scheme != "https" {
		return ""
	}
	end := strings.IndexAny(rest, " /\t")
	if end >= 0 {
		rest = rest[:end]
	}
	host, port, err := net.SplitHostPort(rest)
	if err != nil {
		return ""
	}
	return address(scheme, host, port)
}

// hostPortAddress reads "H, port: P" at the start of s.
func hostPortAddress(s string) string {
	host, rest, ok := strings.Cut(s, ", port: ")
	if !ok {
		return ""
	}
	port, _, _ := strings.Cut(rest, ",")
	return address("http", host, strings.TrimSpace(port))
}

func address(scheme, host, port string) string {
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 || strings.Trim(port, "0123456789") != "" {
		return ""
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::", "[::]":
		host = "::1"
	}
	if net.ParseIP(host) == nil && !hostName(host) {
		return ""
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// hostName reports whether s is a DNS name: letters, digits, '-' and '.'.
func hostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
