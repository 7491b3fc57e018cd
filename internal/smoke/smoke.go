// Package smoke sends one real generation request to a server that says it
// is ready and judges the answer. A /health 200 says nothing about the
// answers: a model with broken numerics (a wrong FP4 or FP16 setting) comes
// up healthy and answers "!!!!!!!!".
package smoke

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"vigil/internal/apikey"
	"vigil/internal/classify"
	"vigil/internal/lazyre"
	"vigil/internal/openai"
	"vigil/internal/redact"
)

// Prompt is the question every smoke test asks: short, with one obvious
// answer, so that a sane model of any size answers it in one sentence.
const Prompt = "What is the capital of France? Answer in one sentence."

// MaxTokens bounds the answer: enough for one sentence, short enough to be
// quick on a slow server.
const MaxTokens = 32

// DefaultTimeout is used when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Options say whom to ask and what to expect.
type Options struct {
	BaseURL    string // http://127.0.0.1:30000, with or without /v1
	Model      string // "" = discover from /v1/models
	Server     string // "sglang", "vllm", ... a hint, may be ""
	Timeout    time.Duration
	ExpectText *regexp.Regexp // the answer must match, when set
	APIKey     string
	HTTPClient *http.Client // nil: a default client
	// Pooling: the server was started with a model that generates no
	// text (its command line says so, classify.PoolingOf): an embedding
	// model (classify.Embedding) is asked for embeddings, then a ranking,
	// a reranker (classify.Ranking) for a ranking first.
	Pooling string
}

// Result is the judgement of one smoke test.
type Result struct {
	OK       bool
	Reason   string // why not OK: "empty answer", "garbage: run of 64 '!'", "HTTP 500", "timeout after 30s", ...
	Endpoint string // the path that answered, e.g. /v1/chat/completions
	Model    string
	Answer   string
	Latency  time.Duration // of the request that answered
	// Probes are the known-answer questions and what the model said, the
	// first being Prompt itself; empty when the answer failed before them.
	Probes []ProbeResult
	// Auth is set when the server refused the key (401/403): trouble with
	// the key, not a bad answer; the caller must not judge the server by it.
	Auth bool
	// NoModel is set when the server lists no model to ask (a
	// llama-server in router mode started with none).
	NoModel bool
	// Unchecked is set when the model generates no text and serves none
	// of the APIs whose answers are judged (a classification or reward
	// model): nothing was learnt about its answers.
	Unchecked bool
}

// Check asks the server Prompt and judges the answer. It tries the chat
// API first, falls back to text completions when the server has no chat
// route or no chat template, and to SGLang's /generate when the OpenAI
// routes are missing. A model that generates no text (Options.Pooling,
// SGLang's model info, or no generation route at all) is asked for
// embeddings, then a ranking (pooling.go). Requests are never retried.
func Check(ctx context.Context, opts Options) Result {
	res := check(ctx, opts)
	// Nothing the server said may carry the key out, nor any other secret.
	r := redact.New(opts.APIKey)
	res.Reason, res.Answer = r.String(res.Reason), r.String(res.Answer)
	return res
}

func check(ctx context.Context, opts Options) Result {
	res := Result{Model: opts.Model}
	base, err := openai.ParseBaseURL(opts.BaseURL)
	if err != nil {
		res.Reason = "bad URL: " + err.Error()
		return res
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := &openai.Client{BaseURL: base, APIKey: opts.APIKey, HTTP: opts.HTTPClient}
	if c.HTTP == nil {
		c.HTTP = &http.Client{Transport: openai.NewTransportTo(base, 1)}
	}
	fail := func(endpoint string, err error) Result {
		res.Endpoint = endpoint
		res.Reason = reason(ctx, err, timeout)
		res.Auth = openai.IsAuth(err)
		res.NoModel = errors.Is(err, openai.ErrNoModel)
		return res
	}

	if res.Model == "" {
		models, err := c.Models(ctx)
		var se *openai.StatusError
		switch {
		case err == nil:
			res.Model = models[0]
		case errors.As(err, &se) && se.Code == http.StatusNotFound:
			// No model list (some TGI and llama.cpp builds): send no model
			// name and let the server use the one it has.
		default:
			return fail("/v1/models", err)
		}
	}

	if opts.Pooling == "" && maybeSGLang(opts.Server) {
		if generates, known := generatesText(ctx, c); known && !generates {
			opts.Pooling = classify.Embedding
		}
	}
	if opts.Pooling != "" {
		return checkPooling(ctx, c, res, opts.Pooling, nil, fail)
	}

	var tried []string
	for _, a := range attempts(opts.Server) {
		start := time.Now()
		answer, err := a.ask(ctx, c, res.Model, question{chat: Prompt, text: Prompt, maxTokens: MaxTokens})
		if err != nil {
			if a.unsupported(err) {
				tried = append(tried, a.path+" "+openai.Reason(err))
				continue
			}
			return fail(a.path, err)
		}
		res.Endpoint, res.Answer, res.Latency = a.path, answer, time.Since(start)
		if why, bad := Garbage(answer); bad {
			res.Reason = why
			return res
		}
		if opts.ExpectText != nil {
			if !opts.ExpectText.MatchString(answer) {
				res.Reason = fmt.Sprintf("answer does not match /%s/", opts.ExpectText)
				return res
			}
			// The user said what a sane answer is; the probes are English
			// questions and would second-guess that.
			res.OK = true
			return res
		}
		res.Probes = askProbes(ctx, c, a, res.Model, answer)
		if why, bad := wrongAnswers(res.Probes); bad {
			res.Reason = why
			return res
		}
		res.OK = true
		return res
	}
	// No generation route: a model that generates none whose command
	// line did not say so (vLLM registers the routes of its model's tasks
	// alone).
	return checkPooling(ctx, c, res, "", tried, fail)
}

// checkPooling asks a model that generates no text what it serves, after
// the routes tried already. pooling is what its command line says it
// serves (classify.PoolingOf), or "" when the model is not known to be
// one: a server that then answers nothing has no generation endpoint.
func checkPooling(ctx context.Context, c *openai.Client, res Result, pooling string, tried []string, fail func(string, error) Result) Result {
	asks := poolingAttempts
	if pooling == classify.Ranking {
		// A reranker's embeddings are zeros (llama-server's --rerank).
		asks = []poolingAttempt{poolingAttempts[1], poolingAttempts[0]}
	}
	for _, a := range asks {
		start := time.Now()
		answer, bad, err := a.ask(ctx, c, res.Model)
		if err != nil {
			if noPooling(err) {
				tried = append(tried, a.path+" "+refusal(ctx, err))
				continue
			}
			return fail(a.path, err)
		}
		res.Endpoint, res.Answer, res.Latency = a.path, answer, time.Since(start)
		res.Reason, res.OK = bad, bad == ""
		return res
	}
	if pooling != "" {
		res.Unchecked = true
		res.Reason = "the model generates no text and answered neither an embeddings nor a ranking request: " + strings.Join(tried, ", ")
		return res
	}
	res.Reason = "no generation endpoint: " + strings.Join(tried, ", ")
	return res
}

// refusal words a route's refusal: its status, and the server's message
// unless the route is missing.
func refusal(ctx context.Context, err error) string {
	var se *openai.StatusError
	if errors.As(err, &se) && se.Code == http.StatusNotFound {
		return openai.Reason(err)
	}
	return reason(ctx, err, 0)
}

// attempt is one way of asking.
type attempt struct {
	path        string
	ask         func(ctx context.Context, c *openai.Client, model string, q question) (string, error)
	unsupported func(error) bool // the server lacks this route: try the next one
}

func attempts(server string) []attempt {
	list := []attempt{
		{path: openai.Chat.Path(), ask: askChat, unsupported: noChat},
		{path: openai.Completions.Path(), ask: askCompletion, unsupported: noRoute},
	}
	// /generate means something else on TGI, so only SGLang (or an unknown
	// server) gets to use it.
	if maybeSGLang(server) {
		list = append(list, attempt{path: openai.Generate.Path(), ask: askGenerate, unsupported: noRoute})
	}
	return list
}

// maybeSGLang: the server is SGLang, or of a kind not known, so SGLang's
// own routes may be asked.
func maybeSGLang(server string) bool {
	return server == "" || server == "sglang" || server == "auto"
}

func askChat(ctx context.Context, c *openai.Client, model string, q question) (string, error) {
	req := map[string]any{
		"messages":    []map[string]string{{"role": "user", "content": q.chat}},
		"max_tokens":  q.maxTokens,
		"temperature": 0,
	}
	if model != "" {
		req["model"] = model
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content          *string `json:"content"`
				ReasoningContent *string `json:"reasoning_content"`
				Reasoning        *string `json:"reasoning"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := c.Do(ctx, http.MethodPost, openai.Chat.Path(), req, &out); err != nil {
		return "", err
	}
	if len(out.Choices) == 0 {
		return "", nil
	}
	m := out.Choices[0].Message
	// A reasoning model may spend all 32 tokens thinking: its reasoning is
	// then the answer to judge, not an empty content.
	for _, s := range []*string{m.Content, m.ReasoningContent, m.Reasoning} {
		if s != nil && strings.TrimSpace(*s) != "" {
			return *s, nil
		}
	}
	return "", nil
}

func askCompletion(ctx context.Context, c *openai.Client, model string, q question) (string, error) {
	req := map[string]any{"prompt": q.text, "max_tokens": q.maxTokens, "temperature": 0}
	if model != "" {
		req["model"] = model
	}
	var out struct {
		Choices []struct {
			Text string `json:"text"`
		} `json:"choices"`
	}
	if err := c.Do(ctx, http.MethodPost, openai.Completions.Path(), req, &out); err != nil {
		return "", err
	}
	if len(out.Choices) == 0 {
		return "", nil
	}
	return out.Choices[0].Text, nil
}

func askGenerate(ctx context.Context, c *openai.Client, _ string, q question) (string, error) {
	req := map[string]any{
		"text":            q.text,
		"sampling_params": map[string]any{"max_new_tokens": q.maxTokens, "temperature": 0},
	}
	var out struct {
		Text string `json:"text"`
	}
	if err := c.Do(ctx, http.MethodPost, openai.Generate.Path(), req, &out); err != nil {
		return "", err
	}
	return out.Text, nil
}

// noRoute: the server has no such endpoint.
func noRoute(err error) bool {
	var se *openai.StatusError
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == http.StatusNotFound || se.Code == http.StatusMethodNotAllowed || se.Code == http.StatusNotImplemented
}

// noChat: no chat route, or a model without a chat template (a base
// model): vLLM and SGLang answer 400 and name the template.
func noChat(err error) bool {
	if noRoute(err) {
		return true
	}
	var se *openai.StatusError
	if !errors.As(err, &se) || (se.Code != http.StatusBadRequest && se.Code != http.StatusUnprocessableEntity) {
		return false
	}
	body := strings.ToLower(se.Body)
	return strings.Contains(body, "chat template") || strings.Contains(body, "chat_template")
}

// reason words a failure for people: short, one line, no key.
func reason(ctx context.Context, err error, timeout time.Duration) string {
	var se *openai.StatusError
	switch {
	case errors.As(err, &se) && se.Auth():
		return fmt.Sprintf("HTTP %d: the server refuses the API key; give it with --api-key or %s", se.Code, apikey.EnvVar)
	case errors.As(err, &se):
		if msg := statusMessage(se.Body); msg != "" {
			return fmt.Sprintf("HTTP %d: %s", se.Code, msg)
		}
		return fmt.Sprintf("HTTP %d", se.Code)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("timeout after %v", timeout)
	}
	if r := openai.Reason(err); r != "other" {
		return r
	}
	return err.Error()
}

// statusMessage picks the message out of an error body, or its start.
func statusMessage(body string) string {
	if m := errMessage.Get().FindStringSubmatch(body); m != nil {
		return clip(m[1], 120)
	}
	return clip(body, 120)
}

var errMessage = lazyre.New(`"message"\s*:\s*"((?:[^"\\]|\\.)*)"`)
