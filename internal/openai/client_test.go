package openai

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vigil/internal/openai/openaitest"
)

func newClient(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &Client{BaseURL: srv.URL, HTTP: &http.Client{Transport: NewTransport(4)}}
}

func streamBody(e Endpoint, max int) []byte {
	return NewTemplate(e, Params{Model: "fake-model", MaxTokens: max, Stream: true}, "hello").Build(nil, "")
}

func TestStreamOutcomes(t *testing.T) {
	always := func(f openaitest.Fault) func(int64) openaitest.Fault {
		return func(int64) openaitest.Fault { return f }
	}
	tests := []struct {
		name       string
		cfg        openaitest.Config
		endpoint   Endpoint
		max        int
		stall      time.Duration
		wantReason string
		wantTokens int
		wantUsage  bool
		wantChunks int
	}{
		{name: "completions with usage", max: 20, wantTokens: 20, wantUsage: true, wantChunks: 20},
		{name: "chat with usage", endpoint: Chat, max: 20, wantTokens: 20, wantUsage: true, wantChunks: 20},
		{name: "generate counts from meta_info", endpoint: Generate, max: 12, wantTokens: 12, wantUsage: true, wantChunks: 12},
		{name: "no usage: tokens from chunks", cfg: openaitest.Config{NoUsage: true}, max: 20, wantTokens: 20, wantChunks: 20},
		{name: "stops before max_tokens", cfg: openaitest.Config{StopAfter: 7}, max: 20, wantTokens: 7, wantUsage: true, wantChunks: 7},
		{name: "stops early without usage", cfg: openaitest.Config{StopAfter: 7, NoUsage: true}, max: 20, wantTokens: 7, wantChunks: 7},
		{name: "429", cfg: openaitest.Config{Fault: always(openaitest.Status429)}, max: 5, wantReason: "HTTP 429"},
		{name: "500", cfg: openaitest.Config{Fault: always(openaitest.Status500)}, max: 5, wantReason: "HTTP 500"},
		{name: "malformed SSE", cfg: openaitest.Config{Fault: always(openaitest.Malformed), FaultAfter: 3}, max: 10, wantReason: "malformed SSE"},
		{name: "connection reset", cfg: openaitest.Config{Fault: always(openaitest.Reset), FaultAfter: 3, ITL: time.Millisecond}, max: 10, wantReason: "connection reset"},
		{name: "ends without DONE", cfg: openaitest.Config{Fault: always(openaitest.EarlyEOF), FaultAfter: 3}, max: 10, wantReason: "stream ended early"},
		{name: "in-band error", cfg: openaitest.Config{Fault: always(openaitest.InbandError), FaultAfter: 3}, max: 10, wantReason: "server error"},
		{name: "stall mid-stream", cfg: openaitest.Config{Fault: always(openaitest.Stall), FaultAfter: 3}, max: 10, stall: 200 * time.Millisecond, wantReason: "stalled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, openaitest.New(tt.cfg))
			c.StallTimeout = tt.stall
			if tt.endpoint == "" {
				tt.endpoint = Completions
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			var res StreamResult
			c.Stream(ctx, tt.endpoint.Path(), streamBody(tt.endpoint, tt.max), &res)
			if got := Reason(res.Err); got != tt.wantReason {
				t.Fatalf("got reason %q (%v), want %q", got, res.Err, tt.wantReason)
			}
			if tt.wantReason != "" {
				return
			}
			if got := res.OutputTokens(); got != tt.wantTokens {
				t.Errorf("got %d output tokens, want %d", got, tt.wantTokens)
			}
			if got := res.UsageTokens >= 0; got != tt.wantUsage {
				t.Errorf("got usage reported %v, want %v", got, tt.wantUsage)
			}
			if got := len(res.Times); got != tt.wantChunks {
				t.Errorf("got %d text chunks, want %d", got, tt.wantChunks)
			}
			if res.End < res.Last || res.Last < res.TTFT || res.TTFT <= 0 {
				t.Errorf("got TTFT %v, last %v, end %v; want 0 < TTFT <= last <= end", res.TTFT, res.Last, res.End)
			}
		})
	}
}

// TestStreamTiming checks the stamps against a server with known delays.
// The bounds are loose on purpose: this runs on busy CI machines. The strict
// 2% figures come from bench/client_cost.sh.
func TestStreamTiming(t *testing.T) {
	const ttft, itl, n = 50 * time.Millisecond, 10 * time.Millisecond, 30
	c := newClient(t, openaitest.New(openaitest.Config{TTFT: ttft, ITL: itl}))
	var res StreamResult
	c.Stream(t.Context(), Completions.Path(), streamBody(Completions, n), &res)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if res.TTFT < ttft || res.TTFT > ttft*3/2 {
		t.Errorf("got TTFT %v, want about %v", res.TTFT, ttft)
	}
	mean := (res.Last - res.TTFT) / (n - 1)
	if mean < itl*7/10 || mean > itl*13/10 {
		t.Errorf("got mean inter-token gap %v, want about %v", mean, itl)
	}
}

func TestStreamKeepsConnectionsAlive(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(openaitest.New(openaitest.Config{}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, HTTP: &http.Client{Transport: NewTransport(1)}}
	var res StreamResult
	for range 10 {
		c.Stream(t.Context(), Chat.Path(), streamBody(Chat, 8), &res)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("got %d connections for 10 sequential requests, want 1", got)
	}
}

func TestStreamEdgeCases(t *testing.T) {
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		stall      time.Duration
		wantReason string
		wantTokens int
	}{
		{name: "finish_reason then EOF without DONE is complete", wantTokens: 2,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write([]byte("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":\"b\",\"finish_reason\":\"stop\"}]}\n\n"))
			}},
		{name: "JSON answer to a stream request", wantReason: "not a stream",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"choices":[{"text":"whole"}]}`))
			}},
		{name: "JSON error with status 200", wantReason: "server error",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"object":"error","message":"model not loaded"}`))
			}},
		{name: "keep-alive comments hold off the stall timer", stall: 150 * time.Millisecond, wantTokens: 1,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				rc := http.NewResponseController(w)
				for range 4 {
					w.Write([]byte(": ping\n\n"))
					rc.Flush()
					time.Sleep(80 * time.Millisecond)
				}
				w.Write([]byte("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n"))
			}},
		{name: "no headers at all counts as a stall", stall: 150 * time.Millisecond, wantReason: "stalled",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				<-r.Context().Done()
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, tt.handler)
			c.StallTimeout = tt.stall
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			var res StreamResult
			c.Stream(ctx, Completions.Path(), streamBody(Completions, 4), &res)
			if got := Reason(res.Err); got != tt.wantReason {
				t.Fatalf("got reason %q (%v), want %q", got, res.Err, tt.wantReason)
			}
			if tt.wantReason == "" && res.OutputTokens() != tt.wantTokens {
				t.Errorf("got %d tokens, want %d", res.OutputTokens(), tt.wantTokens)
			}
		})
	}
}

func TestStreamDeadline(t *testing.T) {
	c := newClient(t, openaitest.New(openaitest.Config{TTFT: time.Minute}))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	var res StreamResult
	start := time.Now()
	c.Stream(ctx, Completions.Path(), streamBody(Completions, 4), &res)
	if got := Reason(res.Err); got != "timeout" {
		t.Fatalf("got reason %q (%v), want timeout", got, res.Err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v to give up", d)
	}
}

func TestModelsAndAPIKey(t *testing.T) {
	var auth atomic.Value
	fake := openaitest.New(openaitest.Config{Model: "Qwen/Qwen3-8B"})
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		fake.ServeHTTP(w, r)
	}))
	c.APIKey = "sk-secret"
	got, err := c.Models(t.Context())
	if err != nil || len(got) != 1 || got[0] != "Qwen/Qwen3-8B" {
		t.Fatalf("got %v, %v; want [Qwen/Qwen3-8B]", got, err)
	}
	if a := auth.Load(); a != "Bearer sk-secret" {
		t.Errorf("got Authorization %q, want Bearer sk-secret", a)
	}
}

// TestStreamEarlyAnswer: a server that refuses before reading the body may
// see the transport report the write after Stream returned. Reusing the
// result for the next request must stay race-free (run with -race).
func TestStreamEarlyAnswer(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusTooManyRequests)
	}))
	big := make([]byte, 1<<20)
	var res StreamResult
	for range 20 {
		c.Stream(t.Context(), Completions.Path(), big, &res)
		if got := Reason(res.Err); got != "HTTP 429" && got != "connection reset" && got != "other" {
			t.Fatalf("got %q (%v)", got, res.Err)
		}
		if res.Start.IsZero() || res.Send < 0 {
			t.Fatalf("got start %v, send %v", res.Start, res.Send)
		}
	}
}

// A 401 body that echoes the refused key never carries it into an error.
func TestRefusedKeyIsAuthAndRedacted(t *testing.T) {
	const key = "planted-key-0123456789"
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"Incorrect API key provided: ` + r.Header.Get("Authorization") + `"}`))
	}))
	c.APIKey = key
	err := c.Do(t.Context(), http.MethodGet, "/v1/models", nil, nil)
	if !IsAuth(err) {
		t.Errorf("IsAuth(%v) = false", err)
	}
	if strings.Contains(err.Error(), key) {
		t.Errorf("error holds the key: %v", err)
	}
	var res StreamResult
	c.Stream(t.Context(), Completions.Path(), []byte(`{}`), &res)
	if !IsAuth(res.Err) || strings.Contains(res.Err.Error(), key) {
		t.Errorf("stream error %v: want auth, without the key", res.Err)
	}
	if IsAuth(&StatusError{Code: 500}) {
		t.Error("a 500 counted as auth")
	}
}

// TestUnixSocket: a server on a Unix socket is reached through it, by a
// client given no HTTP client and by one over NewTransportTo.
func TestUnixSocket(t *testing.T) {
	sock := t.TempDir() + "/s.sock"
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: openaitest.New(openaitest.Config{Model: "on-a-socket"})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	base := "unix://" + sock
	for _, c := range []*Client{
		{BaseURL: base},
		{BaseURL: base, HTTP: &http.Client{Transport: NewTransportTo(base, 2)}},
	} {
		models, err := c.Models(context.Background())
		if err != nil || len(models) != 1 || models[0] != "on-a-socket" {
			t.Errorf("Models over the socket = %q, %v", models, err)
		}
	}
}
