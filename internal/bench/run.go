package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vigil/internal/openai"
	"vigil/internal/redact"
)

// Result is one benchmark run. Its JSON form is what `vigil bench --json`
// prints and what --baseline FILE reads back.
type Result struct {
	URL       string      `json:"url"`
	Model     string      `json:"model"`
	Endpoint  string      `json:"endpoint"`
	InputLen  int         `json:"input_len"`
	OutputLen int         `json:"output_len"`
	IgnoreEOS bool        `json:"ignore_eos"`
	Started   time.Time   `json:"started"`
	SLO       *SLOLimits  `json:"slo,omitempty"`
	Levels    []Level     `json:"levels"`
	Baseline  *Comparison `json:"baseline,omitempty"`
	// MaxFailuresPct is the share of a level's requests that may fail.
	MaxFailuresPct float64 `json:"max_failures_pct"`
	// OK is false when a level completed no request, had more failures
	// than MaxFailuresPct allows, or fell below its baseline: `vigil bench`
	// then exits 1.
	OK bool `json:"ok"`
}

// SLOLimits is an SLO as it appears in results, in milliseconds.
type SLOLimits struct {
	TTFT float64 `json:"ttft_ms,omitempty"`
	TPOT float64 `json:"tpot_ms,omitempty"`
	E2E  float64 `json:"e2e_ms,omitempty"`
}

// Level is the outcome of one concurrency level.
type Level struct {
	Concurrency int       `json:"concurrency"`
	Completed   int       `json:"completed"`
	Failed      int       `json:"failed"`
	Failures    []Failure `json:"failures,omitempty"`
	// ServerErrors counts the requests that ended in an error event the
	// server sent inside its stream (they are among Failed).
	ServerErrors int `json:"server_errors,omitempty"`
	// Resent counts the requests sent again on a fresh connection because
	// the server had closed the kept-alive one (llama-server does after an
	// error event): the server never saw them, so they are no failure.
	Resent int `json:"resent,omitempty"`
	// Warmup is set when the level never ran because every warmup request
	// failed; Failed and Failures are then the warmup's.
	Warmup       bool `json:"warmup_failed,omitempty"`
	OutputTokens int  `json:"output_tokens"`
	// TokensFrom says where output tokens were counted: "usage" (the
	// server's report), "chunks" (text events that arrived) or "mixed".
	TokensFrom  string   `json:"tokens_from"`
	InputTokens float64  `json:"input_tokens_mean,omitempty"` // as the server counted them, when it said
	DurationS   float64  `json:"duration_s"`
	OutputTokS  float64  `json:"output_tok_s"`
	ReqS        float64  `json:"req_s"`
	GoodputReqS *float64 `json:"goodput_req_s,omitempty"`
	TTFT        Dist     `json:"ttft_ms"`
	ITL         Dist     `json:"itl_ms"`
	TPOT        Dist     `json:"tpot_ms"`
	E2E         Dist     `json:"e2e_ms"`
	// Send is the time each request spent in the client before its last
	// byte was written (queueing for a connection, dialing, writing). TTFT
	// and E2E are measured from then on; a large Send means the client or
	// the network, not the server, held requests back.
	Send Dist `json:"send_ms"`
	// ClientCPUms is vigil's own CPU time per request at this level, to show
	// the load generator was not the bottleneck.
	ClientCPUms float64 `json:"client_cpu_ms_per_req"`
}

// Failure counts failed requests of one kind, with one full message.
type Failure struct {
	Reason  string `json:"reason"`
	Count   int    `json:"count"`
	Example string `json:"example"`
}

// NewClient returns a client for a benchmark with these options: one
// kept-alive connection per request in flight at the highest level.
func NewClient(baseURL, apiKey string, o Options) *openai.Client {
	return &openai.Client{
		BaseURL:      baseURL,
		APIKey:       apiKey,
		HTTP:         &http.Client{Transport: openai.NewTransportTo(baseURL, slices.Max(o.Concurrency))},
		StallTimeout: o.StallTimeout,
	}
}

// Run benchmarks the server behind c at each concurrency level of o.
// Progress, when not nil, is updated as requests finish. Run fails only
// when the benchmark could not take place (no model, every warmup request
// failed, ctx canceled); failed requests are counted in the result.
func Run(ctx context.Context, c *openai.Client, o Options, progress *Progress) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	now := c.Now
	if now == nil {
		now = time.Now
	}
	res := &Result{
		URL: redactURL(c.BaseURL), Model: o.Model, Endpoint: o.Endpoint.Path(),
		InputLen: o.InputLen, OutputLen: o.OutputLen, IgnoreEOS: o.IgnoreEOS, Started: now(),
		MaxFailuresPct: round(o.MaxFailures*100, 3),
	}
	if !o.SLO.IsZero() {
		res.SLO = &SLOLimits{TTFT: ms(float64(o.SLO.TTFT)), TPOT: ms(float64(o.SLO.TPOT)), E2E: ms(float64(o.SLO.E2E))}
	}
	if res.Model == "" && o.Endpoint != openai.Generate {
		models, err := c.Models(ctx)
		if err != nil {
			return nil, fmt.Errorf("finding the model (give --model to skip): %w", err)
		}
		res.Model = models[0]
	}
	r := &runner{
		c:    c,
		o:    o,
		now:  now,
		path: o.Endpoint.Path(),
		tmpl: openai.NewTemplate(o.Endpoint, openai.Params{
			Model: res.Model, MaxTokens: o.OutputLen, IgnoreEOS: o.IgnoreEOS, Stream: true,
		}, Prompt(o.InputLen-1, o.Seed)),
		progress: progress,
		seq:      new(atomic.Int64),
	}
	// Warmup answers are kept short: their job is to open every connection
	// the level will use and to wake the server, not to be measured.
	warm := *r
	warm.tmpl = openai.NewTemplate(o.Endpoint, openai.Params{
		Model: res.Model, MaxTokens: min(o.OutputLen, warmupTokens), IgnoreEOS: o.IgnoreEOS, Stream: true,
	}, Prompt(o.InputLen-1, o.Seed))
	for _, conc := range o.Concurrency {
		if o.Warmup > 0 {
			n := o.Warmup * conc
			progress.start(conc, n, 0, true, now())
			w := warm.level(ctx, conc, n, 0)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if w.completed == 0 {
				// The levels before this one stand; the ones after it
				// would only fail the same way.
				lv := w.stats.level(conc, w.elapsed, o.SLO)
				lv.Warmup = true
				res.Levels = append(res.Levels, lv)
				break
			}
		}
		n := o.Requests
		if n == 0 && o.Duration == 0 {
			n = DefaultRequests(conc)
		}
		progress.start(conc, n, o.Duration, false, now())
		cpu0 := cpuTime()
		raw := r.level(ctx, conc, n, o.Duration)
		cpu := cpuTime() - cpu0
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		lv := raw.stats.level(conc, raw.elapsed, o.SLO)
		if total := lv.Completed + lv.Failed; total > 0 && cpu > 0 {
			lv.ClientCPUms = round(float64(cpu)/1e6/float64(total), 4)
		}
		res.Levels = append(res.Levels, lv)
	}
	res.OK = true
	for _, lv := range res.Levels {
		if lv.Completed == 0 || lv.tooManyFailures(o.MaxFailures) {
			res.OK = false
		}
	}
	return res, nil
}

// tooManyFailures reports whether more than max (a fraction) of the
// level's requests failed.
func (lv Level) tooManyFailures(max float64) bool {
	total := lv.Completed + lv.Failed
	return total > 0 && float64(lv.Failed) > max*float64(total)
}

// warmupTokens bounds the answers to warmup requests.
const warmupTokens = 16

type runner struct {
	c        *openai.Client
	o        Options
	now      func() time.Time
	path     string
	tmpl     openai.Template
	seq      *atomic.Int64 // numbers prompts across levels and warmups, so no two share a prefix
	progress *Progress
}

// record is one request's outcome.
type record struct {
	ttft, last, e2e time.Duration
	send            time.Duration
	tokens          int
	prompt          int
	usage           bool
	resent          int
	err             error
}

type levelData struct {
	stats     levelStats
	elapsed   time.Duration
	completed int
	firstErr  error
}

// level sends n requests (or, with n == 0, requests until dur has passed)
// from conc goroutines, each with one request in flight at a time.
func (r *runner) level(ctx context.Context, conc, n int, dur time.Duration) levelData {
	var (
		issued atomic.Int64
		mu     sync.Mutex
		out    levelData
		wg     sync.WaitGroup
	)
	start := r.now()
	for range conc {
		wg.Go(func() {
			var (
				res   openai.StreamResult
				body  []byte
				stats levelStats
			)
			for ctx.Err() == nil {
				i := issued.Add(1)
				if (n > 0 && i > int64(n)) || (n == 0 && r.now().Sub(start) >= dur) {
					break
				}
				body = r.tmpl.Build(body[:0], strconv.FormatInt(r.seq.Add(1), 10)+" ")
				rctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
				r.c.Stream(rctx, r.path, body, &res)
				cancel()
				rec := record{err: res.Err, send: res.Send, resent: res.Resent}
				if res.Err == nil {
					rec = record{ttft: res.TTFT, last: res.Last, e2e: res.End, send: res.Send, tokens: res.OutputTokens(),
						prompt: res.PromptTokens, usage: res.UsageTokens >= 0, resent: res.Resent}
				} else if ctx.Err() != nil {
					break // canceled by the caller: not the server's failure
				}
				stats.add(rec, res.Times, r.o.SLO)
				r.progress.add(rec)
			}
			mu.Lock()
			out.stats.merge(&stats)
			mu.Unlock()
		})
	}
	wg.Wait()
	out.elapsed = r.now().Sub(start)
	out.completed, out.firstErr = out.stats.completed, out.stats.firstErr
	return out
}

// words make up benchmark prompts: common English words that most
// tokenizers encode as one token each (with their leading space), so a
// prompt of n words is about n tokens.
var words = strings.Fields(`the of and to in is was for on that with as by at from his her they this
which have are be one had not but what all were when we there can an your their if has been would will
more no out so up said who about them some could him into its then two time like only new other people
first may now way well down also any where after back year work use many day most over good just much
even such still through long same here own last old world own great make part high small large place
end never under might while state city home house water light night point form air line right
number name word hand study food power child group country town paper course story plan money music
river table market`)

// Prompt returns n words drawn from a fixed vocabulary with a seeded
// generator, so runs with the same seed send the same text.
func Prompt(n int, seed int64) string {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.String()
}

// redactURL drops userinfo and secret query values from a URL before it
// goes into a result.
func redactURL(s string) string { return redact.URL(s) }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
