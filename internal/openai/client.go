// Package openai is a small client for the OpenAI-compatible APIs of LLM
// inference servers (SGLang, vLLM, TensorRT-LLM, llama.cpp, TGI): model
// discovery, plain requests for smoke tests, and a streaming path built for
// benchmarks.
//
// The streaming path is built for measurement: every network read is
// stamped, events are inspected for the few keys a benchmark needs instead
// of being decoded, buffers are pooled, and a request is sent again only when
// the kept-alive connection it went out on was already dead. The
// caller supplies the *http.Client, so connections are kept alive and shared
// as the caller decides (see [NewTransport]).
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"vigil/internal/endpoint"
	"vigil/internal/redact"
)

// Client talks to one server. The zero value is not usable: BaseURL is needed.
type Client struct {
	// BaseURL is scheme://host[:port] with an optional path prefix, without
	// the trailing /v1 (see [ParseBaseURL]).
	BaseURL string
	// APIKey, when set, goes in an Authorization: Bearer header. It is never
	// put in an error or a result.
	APIKey string
	// HTTP sends the requests; nil means a client over [NewTransport](64).
	// It should have no Timeout: deadlines come from the context, and a
	// client-wide timeout would cut long streams.
	HTTP *http.Client
	// Now stamps events; nil means time.Now.
	Now func() time.Time
	// StallTimeout abandons a stream that sends nothing for this long
	// (headers, data or keep-alive comments all count). Zero: never.
	StallTimeout time.Duration
}

// ParseBaseURL checks a user's --url and returns it without a trailing
// slash or /v1, so paths such as /v1/models can be appended.
func ParseBaseURL(raw string) (string, error) { return endpoint.Parse(raw) }

// NewTransport returns a transport for benchmarking: up to conns kept-alive
// connections to one host, no compression (it would only add CPU to SSE),
// and HTTP/1.1 so each in-flight request has its own connection as load
// generators usually do.
func NewTransport(conns int) *http.Transport {
	if conns < 1 {
		conns = 1
	}
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		TLSHandshakeTimeout: 10 * time.Second,
		ReadBufferSize:      32 << 10,
		WriteBufferSize:     16 << 10,
	}
}

// NewTransportTo is NewTransport for the server at base: one on a Unix
// socket is dialled there (see [endpoint.UnixDial]).
func NewTransportTo(base string, conns int) *http.Transport {
	t := NewTransport(conns)
	if dial := endpoint.UnixDial(base); dial != nil {
		t.DialContext, t.Proxy = dial, nil
	}
	return t
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	if _, ok := endpoint.Socket(c.BaseURL); ok {
		hc, _ := socketHTTP.LoadOrStore(c.BaseURL, &http.Client{Transport: NewTransportTo(c.BaseURL, 64)})
		return hc.(*http.Client)
	}
	return defaultHTTP
}

// socketHTTP holds a client per Unix socket, for clients given none.
var socketHTTP sync.Map

var defaultHTTP = &http.Client{Transport: NewTransport(64)}

// StatusError is an HTTP answer other than 200.
type StatusError struct {
	Code int
	Body string // the start of the body, on one line
}

// Auth reports a 401 or 403: the server refuses the key (or its lack).
// That is trouble with the key, never a sign of a broken server.
func (e *StatusError) Auth() bool {
	return e.Code == http.StatusUnauthorized || e.Code == http.StatusForbidden
}

// IsAuth reports whether err is a refused key (see [StatusError.Auth]).
func IsAuth(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Auth()
}

// redact masks the key and any secret-shaped text in what a server said:
// a 401 body may echo the key it refused.
func (c *Client) redact(s string) string {
	if c.APIKey == "" {
		return redact.String(s)
	}
	return redact.New(c.APIKey).String(s)
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("HTTP %d", e.Code)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Code, e.Body)
}

// ServerError is an error the server reported inside a 200 stream.
type ServerError struct{ Message string }

func (e *ServerError) Error() string { return "server error: " + clip(e.Message, 200) }

// Stream failures that are not errors of the network or the server's status.
var (
	// ErrStalled: nothing arrived for StallTimeout.
	ErrStalled = errors.New("stalled")
	// ErrEarlyEOF: the stream ended without [DONE] or a finish_reason.
	ErrEarlyEOF = errors.New("stream ended early")
	// ErrNotStream: the server answered a streaming request with plain JSON.
	ErrNotStream = errors.New("response is not an event stream")
)

func (c *Client) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, endpoint.HTTPBase(c.BaseURL)+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	return req, nil
}

// ErrNoModel is Models' error when the server lists no model at all (a
// llama-server in router mode started with none).
var ErrNoModel = errors.New("no model listed")

// Models lists the served model ids (GET /v1/models).
func (c *Client) Models(ctx context.Context) ([]string, error) {
	var out struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := c.Do(ctx, http.MethodGet, "/v1/models", nil, &out); err != nil {
		return nil, fmt.Errorf("GET /v1/models: %w", err)
	}
	ids := make([]string, 0, len(out.Data))
	for _, d := range out.Data {
		if d.ID != "" {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("GET /v1/models: %w", ErrNoModel)
	}
	return ids, nil
}

// Do sends one request with a JSON body (nil for none) and decodes a 200
// answer into out. Any other status is a *StatusError.
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	req, err := c.newRequest(ctx, method, path, body)
	if err != nil {
		return err
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return transportError(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return transportError(ctx, err)
	}
	if resp.StatusCode != http.StatusOK {
		return &StatusError{Code: resp.StatusCode, Body: c.redact(oneLine(data))}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decoding the answer: %w (%s)", err, c.redact(clip(oneLine(data), 80)))
	}
	return nil
}

// StreamResult is one streamed request, with times measured from Start.
type StreamResult struct {
	// Start is when the request's last byte was written to the connection:
	// the client-side counterpart of the server receiving it. Time spent
	// before, in the client (queueing for a connection, dialing, writing),
	// is Send, so that it is seen but not mistaken for the server's.
	Start time.Time
	Send  time.Duration   // from the call to Start
	TTFT  time.Duration   // first event carrying text; 0 when none did
	Last  time.Duration   // last event carrying text
	End   time.Duration   // [DONE], or the end of the stream
	Times []time.Duration // arrival of every event carrying text, in order
	// UsageTokens is completion_tokens as the server reported it (OpenAI
	// usage or SGLang meta_info); -1 when it reported none.
	UsageTokens  int
	PromptTokens int // -1 when not reported
	// Resent counts the times the request was sent again on a fresh
	// connection because the kept-alive one it went out on was dead.
	Resent   int
	Err      error
	finished bool
}

// OutputTokens is the number of generated tokens: the server's own count
// when it gave one, otherwise the text events that actually arrived. It is
// never the requested max_tokens.
func (r *StreamResult) OutputTokens() int {
	if r.UsageTokens >= 0 {
		return r.UsageTokens
	}
	return len(r.Times)
}

func (r *StreamResult) reset() {
	*r = StreamResult{Times: r.Times[:0], UsageTokens: -1, PromptTokens: -1}
}

// sendStamp records when one request's last byte was written. It is per
// request, not per result: when a server answers before reading the body,
// the transport may report the write after the caller has moved on.
type sendStamp struct {
	called time.Time
	now    func() time.Time
	wrote  atomic.Int64 // nanoseconds from called, plus one; 0: not yet
	// reused: the request went out on a kept-alive connection.
	reused atomic.Bool
}

func (s *sendStamp) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { s.reused.Store(info.Reused) },
		WroteRequest: func(httptrace.WroteRequestInfo) {
			// Called from the transport's writer goroutine: hence the atomic.
			s.wrote.Store(int64(s.now().Sub(s.called)) + 1)
		},
	}
}

// sent is the time from the call until the request was written.
func (s *sendStamp) sent() time.Duration { return time.Duration(s.wrote.Load() - 1) }

// maxResend bounds how often one request is sent again after a dead
// kept-alive connection: each failure takes that connection out of the
// pool, so a few tries reach a fresh one.
const maxResend = 3

// Stream POSTs body to path and reads the event stream to its end, filling
// res (whose Times buffer is reused). It resends only a request that a dead
// kept-alive connection lost before any answer (res.Resent). A failed request
// has res.Err set: a *StatusError, *ServerError, *MalformedError, ErrStalled,
// ErrEarlyEOF, ErrNotStream, or a network or context error.
func (c *Client) Stream(ctx context.Context, path string, body []byte, res *StreamResult) {
	res.reset()
	now := orNow(c.Now)
	called := now()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var onRead func(time.Time)
	if c.StallTimeout > 0 {
		w := newStallWatch(called, c.StallTimeout, now, cancel)
		defer w.stop()
		onRead = w.saw
	}
	var (
		resp  *http.Response
		stamp *sendStamp
	)
	for {
		stamp = &sendStamp{called: called, now: now}
		req, err := c.newRequest(httptrace.WithClientTrace(ctx, stamp.trace()), http.MethodPost, path, body)
		if err != nil {
			res.Err = err
			return
		}
		req.Header.Set("Accept", "text/event-stream")
		resp, err = c.httpClient().Do(req)
		if err == nil {
			break
		}
		// A server may close a kept-alive connection after it answered
		// (llama-server does after an error event in a stream); a request
		// written on it meanwhile fails before any answer, and the server
		// never saw it. Go's transport does not resend a POST by itself.
		if !stamp.reused.Load() || ctx.Err() != nil || res.Resent >= maxResend {
			res.Err = transportError(ctx, err)
			res.Send = now().Sub(called)
			res.Start = called.Add(res.Send)
			return
		}
		res.Resent++
	}
	// The request is written before its answer comes, except when a server
	// answers early (an error before reading the body): then the answer's
	// arrival stands for it.
	if w := stamp.wrote.Load(); w > 0 {
		res.Send = stamp.sent()
	} else {
		res.Send = now().Sub(called)
	}
	res.Start = called.Add(res.Send)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		res.Err = &StatusError{Code: resp.StatusCode, Body: c.redact(oneLine(data))}
		return
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if msg := inbandError(data); msg != "" {
			res.Err = &ServerError{Message: c.redact(msg)}
		} else {
			res.Err = ErrNotStream
		}
		return
	}
	if onRead != nil {
		onRead(now()) // the headers count as a sign of life
	}

	bufs := getStreamBufs(resp.Body, now, onRead)
	defer putStreamBufs(bufs)
	er := bufs.er
	for {
		data, at, err := er.Next()
		if err != nil {
			switch {
			case err == io.EOF && res.finished:
				res.End = res.Last // ended without [DONE] but after a finish_reason: tolerated
			case err == io.EOF:
				res.Err = ErrEarlyEOF
			default:
				res.Err = transportError(ctx, err)
			}
			return
		}
		ch, err := bufs.cp.Parse(data)
		if err != nil {
			res.Err = err
			return
		}
		if ch.Done {
			res.End = at.Sub(res.Start)
			// Read to the end of the body so the connection can be reused.
			_, _ = io.Copy(io.Discard, io.LimitReader(er.br, 64<<10))
			return
		}
		if ch.Err != "" {
			res.Err = &ServerError{Message: c.redact(ch.Err)}
			return
		}
		if ch.Text {
			d := at.Sub(res.Start)
			if len(res.Times) == 0 {
				res.TTFT = d
			}
			res.Last = d
			res.Times = append(res.Times, d)
		}
		if ch.Tokens >= 0 {
			res.UsageTokens = ch.Tokens
		}
		if ch.Prompt >= 0 {
			res.PromptTokens = ch.Prompt
		}
		if ch.Finished {
			res.finished = true
		}
	}
}

// stallWatch cancels a stream that has been silent for too long. One timer
// per stream, re-armed only when it fires, so a token costs an atomic store
// rather than a timer reset.
type stallWatch struct {
	start time.Time
	limit time.Duration
	now   func() time.Time
	last  atomic.Int64 // nanoseconds since start of the last read
	timer *time.Timer
}

func newStallWatch(start time.Time, limit time.Duration, now func() time.Time, cancel context.CancelCauseFunc) *stallWatch {
	w := &stallWatch{start: start, limit: limit, now: now}
	w.timer = time.AfterFunc(limit, func() {
		idle := now().Sub(w.start) - time.Duration(w.last.Load())
		if idle >= limit {
			cancel(fmt.Errorf("%w: nothing for %v", ErrStalled, limit))
			return
		}
		w.timer.Reset(limit - idle)
	})
	return w
}

func (w *stallWatch) saw(t time.Time) { w.last.Store(int64(t.Sub(w.start))) }
func (w *stallWatch) stop()           { w.timer.Stop() }

// transportError explains why the exchange failed: the context's cause
// (a stall or a deadline) takes precedence over the resulting I/O error.
func transportError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		return cause
	}
	return err
}

// Reason sorts a request's failure into a short, stable category for
// counting: "HTTP 429", "connection reset", "stalled", "timeout", ...
func Reason(err error) string {
	var se *StatusError
	var srv *ServerError
	var mal *MalformedError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &se):
		return fmt.Sprintf("HTTP %d", se.Code)
	case errors.As(err, &srv):
		return "server error"
	case errors.As(err, &mal):
		return "malformed SSE"
	case errors.Is(err, ErrStalled):
		return "stalled"
	case errors.Is(err, ErrEarlyEOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "stream ended early"
	case errors.Is(err, ErrNotStream):
		return "not a stream"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	}
	var nerr net.Error
	if errors.As(err, &nerr) && nerr.Timeout() {
		return "timeout"
	}
	return "other"
}

// oneLine squeezes a body into a short single line for messages.
func oneLine(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	return clip(s, 200)
}
