package classify

import (
	"strings"

	"vigil/internal/observe"
)

// healthPaths are the endpoints whose answers tell the server's health.
var healthPaths = map[string]bool{
	"/health": true, "/health_generate": true, "/v1/models": true, "/ping": true,
	"/get_model_info": true, "/model_info": true, "/get_server_info": true,
}

// MayBeAccess is a cheap test for a line AccessHealth may read.
func MayBeAccess(line string) bool {
	return strings.Contains(line, "HTTP/1.") || containsBy(line, "request: ", 2)
}

// containsBy is strings.Contains(s, lit), searching for lit's k-th byte:
// one that is rare in log text skips faster than a common first byte
// ("r" of "request: " is on nearly every line, "q" on few).
func containsBy(s, lit string, k int) bool {
	c := lit[k]
	for i := k; i < len(s); {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return false
		}
		p := i + j - k
		if p+len(lit) <= len(s) && s[p:p+len(lit)] == lit {
			return true
		}
		i += j + 1
	}
	return false
}

// AccessHealth reads a health answer from a server's access-log line:
// uvicorn's `"GET /health HTTP/1.1" 500 Internal Server Error` or
// llama.cpp's `request: GET /health 127.0.0.1 503`. A 2xx answer to any
// request means the server answers; other statuses count only from health
// endpoints. Offline, these answers stand in for the prober's.
func AccessHealth(line string) (observe.Health, bool) {
	_, path, code := access(line)
	if code == 0 {
		return observe.Health{}, false
	}
	switch {
	case code >= 200 && code < 300:
		return observe.Health{State: observe.HealthOK, Code: code}, true
	case !healthPaths[path], code == 401 || code == 403:
		// A refused API key says nothing about the server's health.
		return observe.Health{}, false
	case code == 503:
		return observe.Health{State: observe.HealthStarting, Code: code}, true
	}
	return observe.Health{State: observe.HealthOther, Code: code}, true
}

// access reads an access-log line's request and status (code 0: not
// one).
func access(line string) (method, path string, code int) {
	if i := strings.Index(line, " HTTP/1."); i > 0 {
		q := strings.LastIndexByte(line[:i], '"')
		if q < 0 {
			return "", "", 0
		}
		method, path, _ = strings.Cut(line[q+1:i], " ")
		code = statusAfter(line[i+1:])
	} else if i := strings.Index(line, "request: "); i >= 0 {
		f := strings.Fields(line[i+9:])
		if len(f) < 4 {
			return "", "", 0
		}
		method, path = f[0], f[1]
		code = leadingStatus(f[3])
	}
	if method == "" || code < 100 || code > 599 {
		return "", "", 0
	}
	path, _, _ = strings.Cut(path, "?")
	return method, path, code
}

// ServedRequest reports whether line is an access-log line of a POST to
// the server's API answered 2xx, or 500 (a request it took and failed),
// and its path: a started server's work (while one loads it answers 503,
// or not at all). SGLang's own warmup request, before its ready line, is
// one too: "POST /generate".
func ServedRequest(line string) (path string, ok bool) {
	if !MayBeAccess(line) {
		return "", false
	}
	method, path, code := access(line)
	if method != "POST" || (code < 200 || code > 299) && code != 500 || healthPaths[path] {
		return "", false
	}
	return path, true
}

// statusAfter reads the status after `1.1" ` in an access line.
func statusAfter(s string) int {
	i := strings.IndexByte(s, '"')
	if i < 0 {
		return 0
	}
	return leadingStatus(strings.TrimLeft(s[i+1:], " "))
}

// leadingStatus reads a three-digit status at the start of s (0: none).
func leadingStatus(s string) int {
	n, d := 0, 0
	for d < len(s) && d < 4 && s[d] >= '0' && s[d] <= '9' {
		n = n*10 + int(s[d]-'0')
		d++
	}
	if d != 3 {
		return 0
	}
	return n
}
