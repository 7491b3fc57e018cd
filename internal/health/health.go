// Package health probes a server's health endpoint and tells apart the
// states that matter during a startup: nothing listening, up but starting
// (503), ready (200), an unexpected status, or no answer at all.
package health

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"vigil/internal/observe"
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
}

// New returns a prober for base+path with vigil's defaults: a probe every
// 250 ms, each allowed 2 s.
func New(base, path string) *Prober {
	return &Prober{
		Client:   &http.Client{Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}},
		URL:      base + path,
		Interval: 250 * time.Millisecond,
		Timeout:  2 * time.Second,
	}
}

// Probe sends one request and classifies the answer.
func (p *Prober) Probe(ctx context.Context) observe.Health {
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL, nil)
	if err != nil {
		return observe.Health{State: observe.HealthError, Err: err.Error()}
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
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	return Classify(resp.StatusCode)
}

// Classify maps an HTTP status to a health state.
func Classify(code int) observe.Health {
	switch code {
	case http.StatusOK:
		return observe.Health{State: observe.HealthOK, Code: code}
	case http.StatusServiceUnavailable:
		return observe.Health{State: observe.HealthStarting, Code: code}
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return observe.Health{State: observe.HealthNone, Code: code}
	}
	return observe.Health{State: observe.HealthOther, Code: code}
}

// Run probes every Interval and sends each result until ctx ends. A slow
// reader of out never slows the probes down: results are dropped instead.
func (p *Prober) Run(ctx context.Context, out chan<- observe.Health) {
	t := time.NewTicker(p.Interval)
	defer t.Stop()
	for {
		h := p.Probe(ctx)
		if ctx.Err() != nil {
			return
		}
		select {
		case out <- h:
		default:
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// isRefused is true only for a refused connection: nothing listens. A
// reset or another failure while connecting is no answer, not absence.
func isRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
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
