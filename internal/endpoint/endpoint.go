// Package endpoint parses the server addresses users give on the command
// line. Every command accepts the same forms and says the same thing about a
// bad one: a full URL (http://host:port/prefix), host:port, or :port (the
// local host), as wait4x and curl users expect, or a Unix socket
// (unix:///path, as llama-server prints it; vLLM's unix:/path too).
package endpoint

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// unixPrefix begins the base URL of a server on a Unix socket; the
// socket's absolute path follows. A server that serves its routes under a
// path on a socket (llama-server's --api-prefix) has the base URL
// http+unix://ESCAPED-PATH/PREFIX (requests-unixsocket's form): the
// socket's path, every "/" escaped, as the host, then the prefix.
const (
	unixPrefix       = "unix://"
	unixPrefixedForm = "http+unix://"
)

// SocketURL is the base URL of a server on the socket at path (absolute)
// that serves its routes under prefix ("" or "/llm").
func SocketURL(path, prefix string) string {
	if prefix == "" {
		return unixPrefix + path
	}
	return unixPrefixedForm + strings.ReplaceAll(url.PathEscape(path), "/", "%2F") + prefix
}

// Socket returns the socket path of a Unix socket base URL.
func Socket(base string) (string, bool) {
	path, _, ok := SplitSocket(base)
	return path, ok
}

// SplitSocket returns the socket path and route prefix of a Unix socket
// base URL.
func SplitSocket(base string) (path, prefix string, ok bool) {
	if path, ok := strings.CutPrefix(base, unixPrefix); ok {
		return path, "", path != ""
	}
	rest, ok := strings.CutPrefix(base, unixPrefixedForm)
	if !ok {
		return "", "", false
	}
	host, prefix, _ := strings.Cut(rest, "/")
	path, err := url.PathUnescape(host)
	if err != nil || !strings.HasPrefix(path, "/") {
		return "", "", false
	}
	if prefix != "" {
		prefix = "/" + prefix
	}
	return path, prefix, true
}

// HTTPBase is the URL that requests to base are sent to: base itself, or
// for a Unix socket http://localhost and its route prefix (the socket is
// dialled whatever the request names, see [UnixDial]).
func HTTPBase(base string) string {
	if _, prefix, ok := SplitSocket(base); ok {
		return "http://localhost" + prefix
	}
	return base
}

// UnixDial returns a transport's DialContext that reaches base's Unix
// socket, or nil when base is no socket (the transport's own dialer).
func UnixDial(base string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	path, ok := Socket(base)
	if !ok {
		return nil
	}
	d := net.Dialer{Timeout: 10 * time.Second}
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "unix", path)
	}
}

// Parse returns the base URL of a server: scheme, host, port and any path
// prefix, without a trailing slash or a trailing /v1 (the OpenAI paths are
// appended to it). A bare host:port or :port gets http://; :port means
// 127.0.0.1.
func Parse(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	bad := func(why string) error {
		return fmt.Errorf("--url %q: %s (want http://HOST:PORT, HOST:PORT, :PORT or unix:///PATH)", raw, why)
	}
	if s == "" {
		return "", bad("empty")
	}
	if strings.HasPrefix(s, unixPrefixedForm) {
		// http+unix://%2Frun%2Fllama.sock/llm: a socket and a prefix.
		path, prefix, ok := SplitSocket(s)
		if !ok || strings.ContainsAny(prefix, "?#") {
			return "", bad("not a socket's path and a route prefix")
		}
		prefix = strings.TrimSuffix(strings.TrimRight(prefix, "/"), "/v1")
		return SocketURL(path, prefix), nil
	}
	if rest, ok := strings.CutPrefix(s, "unix:"); ok {
		// unix:///path and unix:/path.
		path := "/" + strings.TrimLeft(rest, "/")
		if !strings.HasPrefix(rest, "/") || path == "/" {
			return "", bad("a Unix socket needs an absolute path")
		}
		return unixPrefix + path, nil
	}
	if !strings.Contains(s, "://") {
		if strings.HasPrefix(s, ":") {
			s = "127.0.0.1" + s
		}
		host, port, err := net.SplitHostPort(strings.TrimRight(s, "/"))
		if err != nil || host == "" {
			return "", bad("not a URL or HOST:PORT")
		}
		if err := checkPort(port); err != nil {
			return "", bad(err.Error())
		}
		s = "http://" + net.JoinHostPort(host, port)
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", bad("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", bad("the scheme must be http or https")
	}
	if u.Hostname() == "" {
		return "", bad("no host")
	}
	if p := u.Port(); p != "" || strings.HasSuffix(u.Host, ":") {
		if err := checkPort(p); err != nil {
			return "", bad(err.Error())
		}
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", bad("a query or fragment is not allowed")
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/v1")
	u.Path, u.RawPath = p, ""
	return strings.TrimRight(u.String(), "/"), nil
}

func checkPort(p string) error {
	n, err := strconv.Atoi(p)
	if err != nil || n <= 0 || n > 65535 {
		return fmt.Errorf("bad port %q", p)
	}
	return nil
}
