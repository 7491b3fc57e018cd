// Package health probes a server's health endpoint and tells apart the
// states that matter during a startup: nothing listening, up but starting
// (503), ready (200), refusing vigil's key (401/403), an unexpected status,
// or no answer at all.
//
// Probes behave like the kubelet's: a redirect to another host is not
// followed (its 3xx is the answer, with a note), at most a small body is
// read, and a probe that gets no answer within its timeout is a failure
// (HealthError), never a success.
package health

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"vigil/internal/endpoint"
	"vigil/internal/observe"
	"vigil/internal/redact"
)

// Prober polls one URL.
type Prober struct {
	// Client sends the probes; its Transport is where tests fake the
	// network. It must not follow the server into long waits: each probe
	// has its own Timeout.
	Client   *http.Client
	URL      string
	Interval time.Duration
	Timeout  time.Duration
	// FastInterval is the probing period for FastFor after a nudge (a
	// ready or listening line: the 200 that makes the server ready is
	// likely near) and after the first 503 (the server is up and the flip
	// to 200 may come any moment), until a probe answers 200. The window
	// is short so that a server that stays at 503 is not flooded.
	FastInterval time.Duration
	FastFor      time.Duration
	// APIKey, when set, is sent as Authorization: Bearer, for servers
	// that guard their health route with the key they were given.
	APIKey string

	// moved is the URL Retarget set, which replaces URL; socket is the
	// Unix socket the probes are dialled on ("": TCP, as URL says).
	moved  atomic.Pointer[string]
	socket atomic.Pointer[string]
}

// Retarget makes the probes from now on go to base+path instead of URL
// (the server said where it listens), a Unix socket base included. It is
// safe while Run goes on.
func (p *Prober) Retarget(base, path string) {
	sock, _ := endpoint.Socket(base)
	p.socket.Store(&sock)
	u := endpoint.HTTPBase(base) + path
	p.moved.Store(&u)
}

func (p *Prober) target() string {
	if u := p.moved.Load(); u != nil {
		return *u
	}
	return p.URL
}

// dial connects a probe: to the Unix socket when there is one, else to
// the request's address.
func (p *Prober) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	if s := p.socket.Load(); s != nil && *s != "" {
		return d.DialContext(ctx, "unix", *s)
	}
	return d.DialContext(ctx, network, addr)
}

// StateAuth is a 401 or 403: the server is up and answering but refuses
// vigil's key (or its lack). It is trouble with the key, never a sign of a
// broken server, and must not stop one.
const StateAuth observe.HealthState = "auth"

// MaxBody is how much of an answer a probe reads: enough to close the
// connection cleanly, never so much that a streaming endpoint holds vigil.
const MaxBody = 4096

// New returns a prober for base+path with vigil's defaults: a probe every
// 250 ms, each allowed 2 s; every 25 ms for 2 s after a nudge or the first
// 503.
func New(base, path string) *Prober {
	p := &Prober{
		URL:          endpoint.HTTPBase(base) + path,
		Interval:     250 * time.Millisecond,
		Timeout:      2 * time.Second,
		FastInterval: 25 * time.Millisecond,
		FastFor:      2 * time.Second,
	}
	sock, _ := endpoint.Socket(base)
	p.socket.Store(&sock)
	p.Client = &http.Client{
		Transport:     &http.Transport{DisableKeepAlives: true, Proxy: nil, DialContext: p.dial},
		CheckRedirect: SameHostRedirects,
	}
	return p
}

// Probe sends one request and classifies the answer.
func (p *Prober) Probe(ctx context.Context) observe.Health {
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.target(), nil)
	if err != nil {
		return observe.Health{State: observe.HealthError, Err: err.Error()}
	}
	if p.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.APIKey)
	}
	resp, err := p.Client.Do(req)
	if err != nil {
		if isRefused(err) {
			return observe.Health{State: observe.HealthRefused}
		}
		if ctx.Err() != nil {
			return observe.Health{State: observe.HealthError, Err: "no answer within " + p.Timeout.String()}
		}
		return observe.Health{State: observe.HealthError, Err: shortErr(err)}
	}
	// Read a little of the body so the connection closes cleanly, never
	// much: a health endpoint that streams must not hold vigil.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxBody))
	resp.Body.Close()
	h := Classify(resp.StatusCode)
	if isRedirect(resp.StatusCode) {
		if loc, err := resp.Location(); err == nil && loc.Host != "" && (loc.Host != resp.Request.URL.Host || loc.Scheme != resp.Request.URL.Scheme) {
			h.Err = redirectPrefix + redact.URL(loc.Scheme+"://"+loc.Host) + redirectSuffix
		}
	}
	return h
}

// The Err of an answer that redirects to another host.
const (
	redirectPrefix = "health redirects to "
	redirectSuffix = "; not followed"
)

// RedirectedTo returns the other host (scheme://host:port) an answer
// redirected to, which was not followed.
func RedirectedTo(h observe.Health) (string, bool) {
	if !isRedirect(h.Code) {
		return "", false
	}
	rest, ok := strings.CutPrefix(h.Err, redirectPrefix)
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, redirectSuffix)
}

// SameHostRedirects is an http.Client CheckRedirect that follows a
// redirect only to the same host and port, as the kubelet does: a health
// answer from another host says nothing about this server. The 3xx itself
// is then the answer.
func SameHostRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return http.ErrUseLastResponse
	}
	if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
		return http.ErrUseLastResponse
	}
	return nil
}

func isRedirect(code int) bool { return code >= 300 && code < 400 }

// Classify maps an HTTP status to a health state.
func Classify(code int) observe.Health {
	switch code {
	case http.StatusOK:
		return observe.Health{State: observe.HealthOK, Code: code}
	case http.StatusServiceUnavailable:
		return observe.Health{State: observe.HealthStarting, Code: code}
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return observe.Health{State: observe.HealthNone, Code: code}
	case http.StatusUnauthorized, http.StatusForbidden:
		return observe.Health{State: StateAuth, Code: code, Err: "the server refuses the API key; give it with --api-key or VIGIL_API_KEY"}
	}
	return observe.Health{State: observe.HealthOther, Code: code}
}

// Run probes every Interval and sends each result until ctx ends. A slow
// reader of out never slows the probes down: results are dropped instead.
func (p *Prober) Run(ctx context.Context, out chan<- observe.Health) {
	p.RunNudged(ctx, out, nil)
}

// RunNudged is Run where a value on nudge makes the next probe go at once
// and the ones after it every FastInterval for FastFor (or until a 200):
// a ready or listening line means the answer that decides readiness is
// near, and waiting for the next tick would only delay the verdict.
func (p *Prober) RunNudged(ctx context.Context, out chan<- observe.Health, nudge <-chan struct{}) {
	next := time.NewTimer(0)
	defer next.Stop()
	var fastUntil time.Time
	sawStarting := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-next.C:
		case <-nudge:
			fastUntil = time.Now().Add(p.FastFor)
		}
		began := time.Now()
		h := p.Probe(ctx)
		if ctx.Err() != nil {
			return
		}
		select {
		case out <- h:
		default:
		}
		switch {
		case h.State == observe.HealthOK:
			fastUntil = time.Time{}
		case h.State == observe.HealthStarting && !sawStarting:
			sawStarting = true
			fastUntil = time.Now().Add(p.FastFor)
		}
		// The period runs from the probe's start, as a ticker's would.
		period := p.Interval
		if p.FastInterval > 0 && time.Now().Before(fastUntil) {
			period = p.FastInterval
		}
		next.Reset(max(0, time.Until(began.Add(period))))
	}
}

// isRefused is true only for a refused connection (or a missing Unix
// socket): nothing listens. A reset or another failure while connecting is
// no answer, not absence.
func isRefused(err error) bool {
	// A Unix socket that is not there yet is nothing listening too.
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

func shortErr(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "connection closed without an answer"
	}
	return err.Error()
}
