package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
)

// DefaultListen is where the endpoints listen without --listen: loopback
// only, so nothing is exposed unless asked for.
const DefaultListen = "127.0.0.1:9811"

// SocketName is the file name of the unix socket a supervisor listens on in
// its state directory, for `vigil probe` in pods without a port.
const SocketName = "supervise.sock"

// DefaultSocket is the supervisor's socket in vigil's state directory:
// $XDG_STATE_HOME/vigil/supervise.sock, else
// $HOME/.local/state/vigil/supervise.sock, or "" when neither is set.
func DefaultSocket(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "vigil", SocketName)
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "vigil", SocketName)
	}
	return ""
}

// ErrSocketInUse means another supervisor already answers on the socket.
var ErrSocketInUse = errors.New("another supervisor answers on this socket")

// ListenSocket listens on the unix socket at path. A socket file left by a
// supervisor that is gone is replaced; one that a live supervisor answers
// on is not.
func ListenSocket(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("probe socket: %w", err)
	}
	l, err := net.Listen("unix", path)
	if err == nil {
		return l, nil
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("probe socket: %w", err)
	}
	if c, derr := net.DialTimeout("unix", path, time.Second); derr == nil {
		c.Close()
		return nil, fmt.Errorf("probe socket %s: %w", path, ErrSocketInUse)
	}
	fi, serr := os.Lstat(path)
	if serr != nil || fi.Mode()&os.ModeSocket == 0 {
		// Never remove what is not a socket.
		return nil, fmt.Errorf("probe socket: %w", err)
	}
	if rerr := os.Remove(path); rerr != nil {
		return nil, fmt.Errorf("probe socket: %w", rerr)
	}
	l, err = net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("probe socket: %w", err)
	}
	return l, nil
}

// Serve answers h on every listener until ctx ends, then shuts the servers
// down (letting answers in flight finish for up to a second) and returns.
// A listener that fails ends them all.
func Serve(ctx context.Context, h http.Handler, ls ...net.Listener) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, l := range ls {
		srv := &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 5 * time.Second,
			// A probe answers at once; a slow client must not hold vigil.
			WriteTimeout: 10 * time.Second,
			IdleTimeout:  time.Minute,
		}
		g.Go(func() error {
			if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("probe endpoint %s: %w", l.Addr(), err)
			}
			return nil
		})
		g.Go(func() error {
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				srv.Close()
			}
			return nil
		})
	}
	return g.Wait()
}

// Target says where a supervisor answers: an HTTP address (host:port) or
// the path of its unix socket.
type Target struct {
	Addr   string
	Socket string
}

func (t Target) String() string {
	if t.Socket != "" {
		return t.Socket
	}
	return t.Addr
}

// Ask asks the supervisor at t one probe (a key of [Kinds]) and reports
// whether it passed, with the answer's body (one line of JSON). An error
// means no answer at all: a probe that cannot be asked has not passed.
func Ask(ctx context.Context, t Target, kind string) (ok bool, body string, err error) {
	path, known := Kinds[kind]
	if !known {
		return false, "", fmt.Errorf("unknown probe %q", kind)
	}
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	url := "http://" + t.Addr + path
	if t.Socket != "" {
		var d net.Dialer
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", t.Socket)
		}
		url = "http://supervisor" + path
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, "", fmt.Errorf("probe %s: %w", t, err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return false, "", fmt.Errorf("probe %s: %w", t, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return false, "", fmt.Errorf("probe %s: %w", t, err)
	}
	return resp.StatusCode == http.StatusOK, strings.TrimSpace(string(b)), nil
}
