// Package openaitest is a fake OpenAI-compatible inference server for tests
// and for measuring vigil's own client: it streams a known number of tokens
// on a known schedule, and can be told to fail in the ways real servers do.
package openaitest

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Fault is how one request goes wrong.
type Fault int

const (
	None        Fault = iota
	Status429         // answers 429 Too Many Requests
	Status500         // answers 500 Internal Server Error
	Malformed         // sends an event whose data is not JSON after FaultAfter tokens
	Reset             // resets the TCP connection after FaultAfter tokens
	Stall             // goes silent after FaultAfter tokens, keeping the connection open
	EarlyEOF          // ends the body cleanly after FaultAfter tokens, without [DONE]
	InbandError       // sends an error event after FaultAfter tokens, as vLLM and SGLang do
)

// Config shapes the fake server's answers.
type Config struct {
	Model string        // listed by /v1/models; "fake-model" when empty
	TTFT  time.Duration // from the request's arrival to the first token
	ITL   time.Duration // between tokens
	// StopAfter ends every answer after this many tokens with
	// finish_reason "stop", as a model that meets its EOS does (0: never,
	// the answer runs to max_tokens).
	StopAfter int
	NoUsage   bool   // ignore stream_options.include_usage (old servers)
	Token     string // the text of each token; " hi" when empty
	// Fault picks the fault of the n-th request (counting from 0) to a
	// generation endpoint; nil means none.
	Fault      func(n int64) Fault
	FaultAfter int // tokens sent before a mid-stream fault
	// StallFor caps how long a stalled request holds its connection
	// (a minute when zero); the client normally gives up first.
	StallFor time.Duration
}

// Server is an http.Handler. Its counters tell what it really sent, and
// when: a client's measurements can be held against what was delivered,
// not only against the configured delays.
type Server struct {
	cfg      Config
	requests atomic.Int64 // generation requests received
	tokens   atomic.Int64 // tokens written to clients
	ttftSum  atomic.Int64 // nanoseconds from arrival to the first token's flush, summed
	ttftN    atomic.Int64
	gapSum   atomic.Int64 // nanoseconds between consecutive token flushes, summed
	gapN     atomic.Int64
	chat     []byte // one chat.completion.chunk event carrying a token
	text     []byte // one text_completion event carrying a token
}

// Stats is what the server did so far.
type Stats struct {
	Requests int64         `json:"requests"` // generation requests received
	Tokens   int64         `json:"tokens"`   // tokens written
	TTFT     time.Duration `json:"-"`        // mean delay from arrival to the first token's flush
	ITL      time.Duration `json:"-"`        // mean gap between token flushes
	TTFTms   float64       `json:"ttft_ms"`
	ITLms    float64       `json:"itl_ms"`
}

// New returns a server answering as cfg says.
func New(cfg Config) *Server {
	if cfg.Model == "" {
		cfg.Model = "fake-model"
	}
	if cfg.Token == "" {
		cfg.Token = " hi"
	}
	if cfg.StallFor == 0 {
		cfg.StallFor = time.Minute
	}
	s := &Server{cfg: cfg}
	tok, _ := json.Marshal(cfg.Token)
	model, _ := json.Marshal(cfg.Model)
	// Shaped like vLLM's chunks, so the client parses realistic sizes.
	s.chat = []byte(`data: {"id":"chatcmpl-7f3a","object":"chat.completion.chunk","created":1767225600,"model":` +
		string(model) + `,"choices":[{"index":0,"delta":{"content":` + string(tok) +
		`},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	s.text = []byte(`data: {"id":"cmpl-7f3a","object":"text_completion","created":1767225600,"model":` +
		string(model) + `,"choices":[{"index":0,"text":` + string(tok) +
		`,"logprobs":null,"finish_reason":null,"stop_reason":null}]}` + "\n\n")
	return s
}

// Stats returns the generation requests received and tokens sent so far.
func (s *Server) Stats() (requests, tokens int64) {
	return s.requests.Load(), s.tokens.Load()
}

// Timing returns the counters with the delays the server really achieved
// (streaming requests only).
func (s *Server) Timing() Stats {
	st := Stats{Requests: s.requests.Load(), Tokens: s.tokens.Load()}
	if n := s.ttftN.Load(); n > 0 {
		st.TTFT = time.Duration(s.ttftSum.Load() / n)
	}
	if n := s.gapN.Load(); n > 0 {
		st.ITL = time.Duration(s.gapSum.Load() / n)
	}
	st.TTFTms, st.ITLms = float64(st.TTFT)/1e6, float64(st.ITL)/1e6
	return st
}

type request struct {
	Stream        bool `json:"stream"`
	MaxTokens     int  `json:"max_tokens"`
	MaxCompletion int  `json:"max_completion_tokens"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	SamplingParams *struct {
		MaxNewTokens int `json:"max_new_tokens"`
	} `json:"sampling_params"`
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		m, _ := json.Marshal(s.cfg.Model)
		w.Write([]byte(`{"object":"list","data":[{"id":` + string(m) + `,"object":"model"}]}`))
	case r.Method == http.MethodGet && (r.URL.Path == "/health" || r.URL.Path == "/stats"):
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.Timing())
	case r.Method == http.MethodPost && (r.URL.Path == "/v1/completions" || r.URL.Path == "/v1/chat/completions" || r.URL.Path == "/generate"):
		s.generate(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	n := s.requests.Add(1) - 1
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad JSON"}}`, http.StatusBadRequest)
		return
	}
	// Reading to EOF lets the server notice a client that goes away, so a
	// stalled answer ends when the client gives up.
	io.Copy(io.Discard, r.Body)
	fault := None
	if s.cfg.Fault != nil {
		fault = s.cfg.Fault(n)
	}
	switch fault {
	case Status429:
		http.Error(w, `{"error":{"message":"too many requests"}}`, http.StatusTooManyRequests)
		return
	case Status500:
		http.Error(w, `{"error":{"message":"internal error"}}`, http.StatusInternalServerError)
		return
	}
	max := req.MaxTokens
	if req.MaxCompletion > 0 {
		max = req.MaxCompletion
	}
	if req.SamplingParams != nil && req.SamplingParams.MaxNewTokens > 0 {
		max = req.SamplingParams.MaxNewTokens
	}
	if max <= 0 {
		max = 16
	}
	count := max
	if s.cfg.StopAfter > 0 && s.cfg.StopAfter < max {
		count = s.cfg.StopAfter
	}
	finish := "length"
	if count < max {
		finish = "stop"
	}
	path := r.URL.Path
	if !req.Stream {
		if !sleepUntil(r.Context(), arrived.Add(s.cfg.TTFT+time.Duration(count)*s.cfg.ITL)) {
			return
		}
		s.tokens.Add(int64(count))
		s.writeWhole(w, path, count, finish)
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	flushEach := s.cfg.ITL > 0 || s.cfg.TTFT > 0
	event := s.text
	if path == "/v1/chat/completions" {
		event = s.chat
	}
	var text strings.Builder // /generate sends the text so far in every event
	var flushed time.Time    // when the previous token was flushed
	for i := 0; i < count; i++ {
		if fault >= Malformed && i == s.cfg.FaultAfter {
			s.fail(w, r, rc, fault)
			return
		}
		sleep := sleepUntil
		if i == 0 {
			sleep = sleepUntilPrecisely
		}
		if !sleep(r.Context(), arrived.Add(s.cfg.TTFT+time.Duration(i)*s.cfg.ITL)) {
			return
		}
		if path == "/generate" {
			text.WriteString(s.cfg.Token)
			var fin any // SGLang puts the finish reason in the last token's event
			if i == count-1 {
				fin = map[string]any{"type": finish}
			}
			b, _ := json.Marshal(map[string]any{"text": text.String(),
				"meta_info": map[string]any{"prompt_tokens": 8, "completion_tokens": i + 1, "finish_reason": fin}})
			event = append(append([]byte("data: "), b...), "\n\n"...)
		}
		if _, err := w.Write(event); err != nil {
			return
		}
		s.tokens.Add(1)
		if flushEach {
			if rc.Flush() != nil {
				return
			}
			now := time.Now()
			if i == 0 {
				s.ttftSum.Add(int64(now.Sub(arrived)))
				s.ttftN.Add(1)
			} else {
				s.gapSum.Add(int64(now.Sub(flushed)))
				s.gapN.Add(1)
			}
			flushed = now
		}
	}
	if fault >= Malformed && count == s.cfg.FaultAfter {
		s.fail(w, r, rc, fault)
		return
	}
	var last string
	switch {
	case path == "/generate":
	case path == "/v1/chat/completions":
		last = `data: {"id":"chatcmpl-7f3a","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"` + finish + `"}]}` + "\n\n"
	default:
		last = `data: {"id":"cmpl-7f3a","object":"text_completion","model":"m","choices":[{"index":0,"text":"","finish_reason":"` + finish + `"}]}` + "\n\n"
	}
	if path != "/generate" && req.StreamOptions != nil && req.StreamOptions.IncludeUsage && !s.cfg.NoUsage {
		last += `data: {"id":"cmpl-7f3a","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":8,"total_tokens":` +
			strconv.Itoa(8+count) + `,"completion_tokens":` + strconv.Itoa(count) + `,"completion_tokens_details":null}}` + "\n\n"
	}
	last += "data: [DONE]\n\n"
	w.Write([]byte(last))
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, fault Fault) {
	switch fault {
	case Malformed:
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\n\n"))
		rc.Flush()
	case InbandError:
		w.Write([]byte(`data: {"error":{"object":"error","message":"CUDA out of memory","code":500}}` + "\n\n"))
		rc.Flush()
	case EarlyEOF:
		rc.Flush()
	case Stall:
		rc.Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(s.cfg.StallFor):
		}
	case Reset:
		rc.Flush()
		conn, _, err := rc.Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // close with RST, not FIN
		}
		conn.Close()
	}
}

func (s *Server) writeWhole(w http.ResponseWriter, path string, count int, finish string) {
	text := strings.Repeat(s.cfg.Token, count)
	var body any
	switch path {
	case "/generate":
		body = map[string]any{"text": text, "meta_info": map[string]any{"prompt_tokens": 8, "completion_tokens": count}}
	case "/v1/chat/completions":
		body = map[string]any{"id": "chatcmpl-7f3a", "object": "chat.completion", "model": s.cfg.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
				"message": map[string]any{"role": "assistant", "content": text}}},
			"usage": map[string]any{"prompt_tokens": 8, "completion_tokens": count, "total_tokens": 8 + count}}
	default:
		body = map[string]any{"id": "cmpl-7f3a", "object": "text_completion", "model": s.cfg.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "text": text}},
			"usage":   map[string]any{"prompt_tokens": 8, "completion_tokens": count, "total_tokens": 8 + count}}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// sleepUntil sleeps to an absolute time, so that lateness in one sleep does
// not add up over a stream: the server's real inter-token gaps average to ITL.
// It returns false when the client went away first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// spinSlack is how early a precise sleep stops sleeping and starts
// yielding: Go's timers can fire up to a millisecond late, because the
// netpoller waits in whole milliseconds.
const spinSlack = 1500 * time.Microsecond

// sleepUntilPrecisely is sleepUntil without the timer's lateness: it
// sleeps to just before t, then yields until t. It is used for the first
// token only, whose delay (TTFT) is what a benchmark measures on its own;
// later tokens' lateness averages out against absolute deadlines.
func sleepUntilPrecisely(ctx context.Context, t time.Time) bool {
	if !sleepUntil(ctx, t.Add(-spinSlack)) {
		return false
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
	return ctx.Err() == nil
}
