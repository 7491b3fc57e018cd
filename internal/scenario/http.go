package scenario

import (
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// state is what the endpoints answer from; the timeline changes it.
type state struct {
	health int    // 0: not listening
	body   string // body of health answers
	gen    Gen
}

// server is the player's HTTP side: a listener on 127.0.0.1:port that
// exists while health is not 0.
type server struct {
	mu    sync.Mutex
	state state
	srv   *http.Server
	done  chan struct{} // closed when srv's Serve has returned
}

// maxTokens bounds one generation (player.py has no bound).
const maxTokens = 4096

// setListening opens or closes the listener.
func (p *player) setListening(on bool) error {
	p.mu.Lock()
	srv, done := p.srv, p.done
	p.mu.Unlock()
	switch {
	case on && srv == nil:
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)))
		if err != nil {
			return err
		}
		srv = &http.Server{
			Handler:           p,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          log.New(io.Discard, "", 0),
		}
		done = make(chan struct{})
		p.mu.Lock()
		p.srv, p.done = srv, done
		p.mu.Unlock()
		go func() {
			_ = srv.Serve(ln)
			close(done)
		}()
	case !on && srv != nil:
		_ = srv.Close() // the port refuses connections from now on
		<-done
		p.mu.Lock()
		p.srv, p.done = nil, nil
		p.mu.Unlock()
	}
	return nil
}

func (p *player) snapshot() state {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state
}

// ServeHTTP answers like player.py's handler: every GET path with the
// health status, every POST path as a generation endpoint. Paths are
// compared with the query string included, as player.py does.
func (p *player) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		p.get(w, r)
	case http.MethodPost:
		p.post(w, r)
	default:
		send(w, http.StatusNotImplemented, `{"error":"unsupported method"}`)
	}
}

func (p *player) get(w http.ResponseWriter, r *http.Request) {
	st := p.snapshot()
	code, body := st.health, st.body
	if strings.HasPrefix(r.RequestURI, "/v1/models") && code == 200 {
		b, _ := json.Marshal(modelList{Object: "list", Data: []modelEntry{{ID: p.model, Object: "model"}}})
		body = string(b)
	}
	if code == 0 {
		code = http.StatusServiceUnavailable
	}
	send(w, code, body)
}

func send(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

type modelList struct {
	Object string       `json:"object"`
	Data   []modelEntry `json:"data"`
}

type modelEntry struct {
	ID     string `json:"id"`
	Object string `json:"object"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type choice struct {
	Index        int      `json:"index"`
	FinishReason string   `json:"finish_reason,omitempty"`
	Message      *message `json:"message,omitempty"`
	Text         *string  `json:"text,omitempty"`
	Delta        *delta   `json:"delta,omitempty"`
}

type delta struct {
	Content *string `json:"content,omitempty"`
}

type completion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage,omitempty"`
}

type generateAnswer struct {
	Text     string `json:"text"`
	MetaInfo struct {
		CompletionTokens int `json:"completion_tokens"`
	} `json:"meta_info"`
}

func (p *player) post(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	req, _ := decodeObject(data)
	st := p.snapshot()
	if st.health != 200 && r.RequestURI != "/health_generate" {
		send(w, http.StatusServiceUnavailable, `{"error":"not ready"}`)
		return
	}
	g := st.gen
	if g.Mode == GenError {
		send(w, http.StatusInternalServerError, `{"error":"internal error"}`)
		return
	}
	n := requestedTokens(req)
	var words []string
	switch g.Mode {
	case GenEmpty:
	case GenNaN:
		for range n {
			words = append(words, "!!!!!!!!")
		}
	default:
		text := strings.Fields(g.Text)
		for i := 0; i < n && len(text) > 0; i++ {
			words = append(words, text[i%len(text)])
		}
	}
	chat := strings.Contains(r.RequestURI, "chat")
	finish := "stop"
	if len(words) > 0 {
		finish = "length"
	}
	u := usage{PromptTokens: 8, CompletionTokens: len(words), TotalTokens: 8 + len(words)}
	ctx := r.Context()

	if !truthy(req["stream"]) {
		if g.TokS > 0 {
			if sleepFor(ctx, secs(float64(len(words))/g.TokS)) != nil {
				return
			}
		}
		text := strings.Join(words, " ")
		var b []byte
		if r.RequestURI == "/generate" {
			var a generateAnswer
			a.Text, a.MetaInfo.CompletionTokens = text, len(words)
			b, _ = json.Marshal(a)
		} else {
			c := choice{Index: 0, FinishReason: finish}
			obj := "text_completion"
			if chat {
				c.Message, obj = &message{Role: "assistant", Content: text}, "chat.completion"
			} else {
				c.Text = &text
			}
			b, _ = json.Marshal(completion{ID: "x", Object: obj, Model: p.model, Choices: []choice{c}, Usage: &u})
		}
		send(w, http.StatusOK, string(b))
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	event := func(v any) bool {
		b, _ := json.Marshal(v)
		_, err := io.WriteString(w, "data: "+string(b)+"\n\n")
		if flusher != nil {
			flusher.Flush()
		}
		return err == nil
	}
	obj := "text_completion"
	if chat {
		obj = "chat.completion.chunk"
	}
	for i, word := range words {
		if g.TokS > 0 && sleepFor(ctx, secs(1/g.TokS)) != nil {
			return
		}
		piece := word
		if i > 0 {
			piece = " " + word
		}
		c := choice{Index: 0}
		if chat {
			c.Delta = &delta{Content: &piece}
		} else {
			c.Text = &piece
		}
		if !event(completion{ID: "x", Object: obj, Model: p.model, Choices: []choice{c}}) {
			return
		}
	}
	last := completion{ID: "x", Object: "chat.completion.chunk", Model: p.model,
		Choices: []choice{{Index: 0, Delta: &delta{}, FinishReason: finish}}}
	if so, ok := req["stream_options"].(map[string]any); ok && truthy(so["include_usage"]) {
		last.Usage = &u
	}
	if event(last) {
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// decodeObject is the request's JSON object; anything else is empty.
func decodeObject(data []byte) (map[string]any, bool) {
	var m map[string]any
	if len(data) == 0 || json.Unmarshal(data, &m) != nil || m == nil {
		return map[string]any{}, false
	}
	return m, true
}

// requestedTokens is player.py's
// int(max_tokens or sampling_params.max_new_tokens or 32), bounded.
func requestedTokens(req map[string]any) int {
	v := req["max_tokens"]
	if !truthy(v) {
		if sp, ok := req["sampling_params"].(map[string]any); ok {
			v = sp["max_new_tokens"]
		}
	}
	n := 32
	switch x := v.(type) {
	case float64:
		if x != 0 {
			n = int(clamp(x, -1, maxTokens))
		}
	case bool:
		if x {
			n = 1
		}
	case string:
		if i, err := strconv.Atoi(strings.TrimSpace(x)); err == nil && i != 0 {
			n = int(clamp(float64(i), -1, maxTokens))
		}
	}
	return max(n, 0)
}

// truthy is Python's bool() of a JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}
