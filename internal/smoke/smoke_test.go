package smoke

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"vigil/internal/openai/openaitest"
)

// fakeServer answers like a small OpenAI-compatible server: routes maps a
// path to (status, body); unknown paths are 404. It records what it was asked.
type fakeServer struct {
	routes map[string]func(body map[string]any) (int, string)
	delay  time.Duration

	mu   sync.Mutex
	hits []string
	auth string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.hits = append(f.hits, r.Method+" "+r.URL.Path)
	f.auth = r.Header.Get("Authorization")
	f.mu.Unlock()
	var body map[string]any
	data, _ := io.ReadAll(r.Body)
	json.Unmarshal(data, &body)
	h, ok := f.routes[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	code, out := h(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	io.WriteString(w, out)
}

func models(id string) func(map[string]any) (int, string) {
	return func(map[string]any) (int, string) { return 200, `{"data":[{"id":"` + id + `"}]}` }
}

func chat(content string) func(map[string]any) (int, string) {
	return func(map[string]any) (int, string) {
		c, _ := json.Marshal(content)
		return 200, `{"choices":[{"index":0,"message":{"role":"assistant","content":` + string(c) + `},"finish_reason":"stop"}]}`
	}
}

func completion(text string) func(map[string]any) (int, string) {
	return func(map[string]any) (int, string) {
		c, _ := json.Marshal(text)
		return 200, `{"choices":[{"index":0,"text":` + string(c) + `}]}`
	}
}

// byPrompt answers a completion with the text whose key the prompt holds.
func byPrompt(answers map[string]string) func(map[string]any) (int, string) {
	return func(b map[string]any) (int, string) {
		p, _ := b["prompt"].(string)
		for k, a := range answers {
			if strings.Contains(p, k) {
				return completion(a)(b)
			}
		}
		return 400, `{"error":{"message":"unexpected prompt"}}`
	}
}

func lastMessage(b map[string]any) string {
	ms, _ := b["messages"].([]any)
	if len(ms) == 0 {
		return ""
	}
	m, _ := ms[len(ms)-1].(map[string]any)
	s, _ := m["content"].(string)
	return s
}

func status(code int, body string) func(map[string]any) (int, string) {
	return func(map[string]any) (int, string) { return code, body }
}

const paris = "The capital of France is Paris."

func TestCheck(t *testing.T) {
	tests := []struct {
		name       string
		routes     map[string]func(map[string]any) (int, string)
		opts       Options
		delay      time.Duration
		wantOK     bool
		wantReason string // prefix
		wantPath   string
		wantModel  string
		wantHits   []string
	}{
		{name: "chat answers", wantOK: true, wantPath: "/v1/chat/completions", wantModel: "Qwen/Qwen2.5-7B",
			routes: map[string]func(map[string]any) (int, string){"/v1/models": models("Qwen/Qwen2.5-7B"), "/v1/chat/completions": chat(paris)},
			// (A server of unknown kind may be SGLang with an embedding model.)
			wantHits: []string{"GET /v1/models", "GET /model_info", "GET /get_model_info", "POST /v1/chat/completions", "POST /v1/chat/completions", "POST /v1/chat/completions"}},
		{name: "given model skips discovery", wantOK: true, wantPath: "/v1/chat/completions", wantModel: "m",
			opts:     Options{Model: "m", Server: "vllm"},
			routes:   map[string]func(map[string]any) (int, string){"/v1/chat/completions": chat(paris)},
			wantHits: []string{"POST /v1/chat/completions", "POST /v1/chat/completions", "POST /v1/chat/completions"}},
		{name: "no chat route falls back to completions", wantOK: true, wantPath: "/v1/completions", wantModel: "base",
			routes: map[string]func(map[string]any) (int, string){"/v1/models": models("base"), "/v1/completions": completion(" Paris.")}},
		{name: "no chat template falls back to completions", wantOK: true, wantPath: "/v1/completions",
			routes: map[string]func(map[string]any) (int, string){"/v1/models": models("base"),
				"/v1/chat/completions": status(400, `{"object":"error","message":"As of transformers v4.44, default chat template is no longer allowed, so you must provide a chat template if the tokenizer does not define one.","code":400}`),
				"/v1/completions":      completion(" Paris.")}},
		{name: "other 400 is a failure, not a fallback", wantReason: "HTTP 400: The model `x` does not exist.", wantPath: "/v1/chat/completions",
			opts: Options{Model: "x"},
			routes: map[string]func(map[string]any) (int, string){
				"/v1/chat/completions": status(400, `{"object":"error","message":"The model `+"`x`"+` does not exist.","code":404}`),
				"/v1/completions":      completion(" Paris.")}},
		{name: "SGLang without OpenAI routes uses /generate", wantOK: true, wantPath: "/generate",
			opts: Options{Model: "m", Server: "sglang"},
			routes: map[string]func(map[string]any) (int, string){"/generate": func(b map[string]any) (int, string) {
				if sp, _ := b["sampling_params"].(map[string]any); sp["max_new_tokens"] != 32.0 {
					return 400, `{"error":"bad"}`
				}
				return 200, `{"text":" Paris.","meta_info":{"completion_tokens":2}}`
			}}},
		{name: "vLLM never tries /generate", wantReason: "no generation endpoint: /v1/chat/completions HTTP 404, /v1/completions HTTP 404",
			opts: Options{Model: "m", Server: "vllm"}, routes: map[string]func(map[string]any) (int, string){}},
		{name: "NaN output", wantReason: "garbage: run of 64 '!'", wantPath: "/v1/chat/completions",
			opts:   Options{Model: "m"},
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": chat(strings.TrimSpace(strings.Repeat("!!!!!!!! ", 8)))}},
		{name: "empty answer", wantReason: "empty answer", opts: Options{Model: "m"},
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": chat("")}},
		{name: "null content", wantReason: "empty answer", opts: Options{Model: "m"},
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": status(200, `{"choices":[{"message":{"content":null}}]}`)}},
		{name: "reasoning model thinking within 32 tokens", wantOK: true, opts: Options{Model: "m"},
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": status(200,
				`{"choices":[{"message":{"content":null,"reasoning_content":"Okay, the user wants the capital of France. It is Paris, so"}}]}`)}},
		{name: "HTTP 500", wantReason: "HTTP 500: internal error", opts: Options{Model: "m"},
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": status(500, `{"error":{"message":"internal error"}}`)}},
		{name: "models 503", wantReason: "HTTP 503", wantPath: "/v1/models",
			routes: map[string]func(map[string]any) (int, string){"/v1/models": status(503, `{"error":{"message":"Loading model"}}`)}},
		{name: "no model list sends no model", wantOK: true, wantModel: "",
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": func(b map[string]any) (int, string) {
				if _, has := b["model"]; has {
					return 400, `{"error":"unexpected model"}`
				}
				return chat(paris)(b)
			}}},
		{name: "expected text matches", wantOK: true, opts: Options{Model: "m", ExpectText: regexp.MustCompile(`(?i)paris`)},
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": chat(paris)}},
		{name: "expected text does not match", wantReason: "answer does not match /(?i)berlin/", opts: Options{Model: "m", ExpectText: regexp.MustCompile(`(?i)berlin`)},
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": chat(paris)}},
		{name: "word salad fails every known answer", wantReason: `wrong answers to all 3 known-answer questions (word salad: random or broken weights?): capital "Saturday reli hol gen ControllerDOCTYPE"`,
			opts:   Options{Model: "m"},
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": chat("Saturday reli hol gen ControllerDOCTYPE")}},
		{name: "base model right on one probe only", wantOK: true, wantPath: "/v1/completions",
			opts: Options{Model: "base"},
			routes: map[string]func(map[string]any) (int, string){"/v1/completions": byPrompt(map[string]string{
				"France": " The answer is not known to me.", "7 + 5": " 13", "1, 2, 3": " 6, 7, 8"})}},
		{name: "a failed probe request is no verdict on the answers", wantOK: true,
			opts: Options{Model: "m"},
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": func(b map[string]any) (int, string) {
				if strings.Contains(lastMessage(b), "France") {
					return chat("Bonjour, je suis un modèle.")(b)
				}
				return 503, `{"error":{"message":"busy"}}`
			}}},
		{name: "timeout", wantReason: "timeout after 100ms", delay: 5 * time.Second, opts: Options{Model: "m", Timeout: 100 * time.Millisecond},
			routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": chat(paris)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeServer{routes: tt.routes, delay: tt.delay}
			srv := httptest.NewServer(f)
			defer srv.Close()
			opts := tt.opts
			opts.BaseURL = srv.URL + "/v1"
			start := time.Now()
			got := Check(t.Context(), opts)
			if time.Since(start) > 3*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if got.OK != tt.wantOK || !strings.HasPrefix(got.Reason, tt.wantReason) || (tt.wantOK && got.Reason != "") {
				t.Fatalf("got OK %v reason %q, want OK %v reason %q", got.OK, got.Reason, tt.wantOK, tt.wantReason)
			}
			if tt.wantPath != "" && got.Endpoint != tt.wantPath {
				t.Errorf("got endpoint %q, want %q", got.Endpoint, tt.wantPath)
			}
			if tt.wantModel != "" && got.Model != tt.wantModel {
				t.Errorf("got model %q, want %q", got.Model, tt.wantModel)
			}
			if got.OK && (got.Answer == "" || got.Latency <= 0) {
				t.Errorf("got answer %q latency %v", got.Answer, got.Latency)
			}
			if tt.wantHits != nil && strings.Join(f.hits, ",") != strings.Join(tt.wantHits, ",") {
				t.Errorf("got requests %v, want %v", f.hits, tt.wantHits)
			}
		})
	}
}

func TestCheckSendsKeyAndNeverRetries(t *testing.T) {
	f := &fakeServer{routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": status(500, `{}`)}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	got := Check(t.Context(), Options{BaseURL: srv.URL, Model: "m", Server: "vllm", APIKey: "sk-123"})
	if got.OK || strings.Contains(got.Reason, "sk-123") {
		t.Errorf("got %+v", got)
	}
	if len(f.hits) != 1 || f.auth != "Bearer sk-123" {
		t.Errorf("got requests %v with Authorization %q; want one, with the key", f.hits, f.auth)
	}
}

func TestCheckConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	got := Check(t.Context(), Options{BaseURL: url, Model: "m"})
	if got.OK || got.Reason != "connection refused" {
		t.Errorf("got OK %v reason %q, want connection refused", got.OK, got.Reason)
	}
}

// TestCheckAgainstFakeOpenAI runs Check against the streaming fake used
// for benchmarks, which answers non-streaming requests too.
func TestCheckAgainstFakeOpenAI(t *testing.T) {
	srv := httptest.NewServer(openaitest.New(openaitest.Config{Token: " Paris"}))
	defer srv.Close()
	got := Check(t.Context(), Options{BaseURL: srv.URL})
	// The fake repeats its one token: exactly the degenerate output Check
	// exists to catch.
	if got.OK || !strings.HasPrefix(got.Reason, `garbage: one token repeated: "Paris"`) || got.Model != "fake-model" {
		t.Errorf("got %+v", got)
	}
}

func TestWrongAnswers(t *testing.T) {
	tests := []struct {
		name    string
		results []ProbeResult
		bad     bool
	}{
		{"all wrong", []ProbeResult{{Name: "capital", Answer: "a b c"}, {Name: "arithmetic", Answer: "d"}, {Name: "sequence", Answer: "e"}}, true},
		{"one right", []ProbeResult{{Name: "capital", Answer: "a b c"}, {Name: "arithmetic", Answer: "12", Right: true}, {Name: "sequence", Answer: "e"}}, false},
		{"a request failed", []ProbeResult{{Name: "capital", Answer: "a b c"}, {Name: "arithmetic", Err: "HTTP 503"}, {Name: "sequence", Answer: "e"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why, bad := wrongAnswers(tt.results)
			if bad != tt.bad || (bad && !strings.Contains(why, `capital "a b c"`)) {
				t.Errorf("wrongAnswers = %q, %v; want bad %v with the answers quoted", why, bad, tt.bad)
			}
		})
	}
}

// A refused key is auth trouble, not a bad answer, and the echoed key
// never reaches the result.
func TestRefusedKeyIsAuth(t *testing.T) {
	const key = "mykey-0123456789"
	tests := []struct {
		name string
		code int
		auth bool
	}{
		{"401", 401, true},
		{"403", 403, true},
		{"500 is not auth", 500, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"error":{"message":"Incorrect API key provided: ` + key + `"}}`
			f := &fakeServer{routes: map[string]func(map[string]any) (int, string){"/v1/chat/completions": status(tt.code, body)}}
			srv := httptest.NewServer(f)
			defer srv.Close()
			got := Check(t.Context(), Options{BaseURL: srv.URL, Model: "m", APIKey: key})
			if got.OK || got.Auth != tt.auth {
				t.Errorf("got %+v, want Auth %v", got, tt.auth)
			}
			if strings.Contains(got.Reason+got.Answer, key) {
				t.Errorf("the key is in %+v", got)
			}
			if tt.auth && !strings.Contains(got.Reason, "--api-key") {
				t.Errorf("reason %q gives no hint", got.Reason)
			}
		})
	}
}

func TestProbesKnowTheirAnswers(t *testing.T) {
	sane := map[string][]string{
		"capital":    {"The capital of France is Paris.", " Paris.", "Paris is the capital and largest city of France."},
		"arithmetic": {"12", " 12\nQuestion:", "7 + 5 = 12.", "The answer is twelve."},
		"sequence":   {" 6, 7, 8, 9", "6", "The next number is 6."},
	}
	salad := []string{"Saturday reli hol gen ControllerDOCTYPE", " 126 1512 x", "b6 s1x"}
	for _, p := range Probes {
		for _, a := range sane[p.Name] {
			if !p.Want.Get().MatchString(a) {
				t.Errorf("probe %s: %q is right, but Want does not match it", p.Name, a)
			}
		}
		for _, a := range salad {
			if p.Want.Get().MatchString(a) {
				t.Errorf("probe %s: %q is wrong, but Want matches it", p.Name, a)
			}
		}
	}
}

// TestCheckNoModelListed: an empty model list (llama-server's router
// mode with no model) is said as such, not as a bad answer.
func TestCheckNoModelListed(t *testing.T) {
	f := &fakeServer{routes: map[string]func(map[string]any) (int, string){"/v1/models": status(200, `{"object":"list","data":[]}`)}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	got := Check(t.Context(), Options{BaseURL: srv.URL + "/v1"})
	if got.OK || !got.NoModel || got.Endpoint != "/v1/models" || !strings.Contains(got.Reason, "no model listed") {
		t.Fatalf("got %+v; want no model listed", got)
	}
}
