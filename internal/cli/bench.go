package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/apikey"
	"vigil/internal/bench"
	"vigil/internal/endpoint"
	"vigil/internal/openai"
	"vigil/internal/redact"
)

func newBenchCmd(env *Env) *cobra.Command {
	o := bench.DefaultOptions()
	var (
		rawURL, endpointName, conc, slo, tolerance string
		jsonOut                                    bool
		key                                        apikey.Option
	)
	cmd := &cobra.Command{
		Use:   "bench --url URL [flags]",
		Short: "Benchmark a running server and gate on a baseline",
		Long: `vigil bench sends streaming generation requests to a running server at
fixed concurrency levels and reports, per level, time to first token (TTFT),
inter-token latency (ITL), time per output token (TPOT), end-to-end latency
(mean, p50, p90, p99), output tokens/s, requests/s and, with --slo, goodput.

Output tokens are the server's own count (stream_options.include_usage),
else the text chunks that actually arrived; never the requested max_tokens.
Prompts are --input-len common words (about one token each) with a unique
prefix per request, so no two requests share a cached prefix.

--baseline takes an earlier 'vigil bench --json' result file, or reference
figures in output tokens/s such as 'c=1:67.76,c=8:410'.

The API key comes from --api-key, else $VIGIL_API_KEY, else $OPENAI_API_KEY;
it is never printed.

Exit status: 0 done, 1 a level fell more than --tolerance below its baseline
or completed no request (or the benchmark could not run), 2 usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rawURL == "" {
				return Usagef("bench: --url is required (e.g. --url http://127.0.0.1:30000)")
			}
			base, err := endpoint.Parse(rawURL)
			if err != nil {
				return Usagef("bench: %v", err)
			}
			if o.Endpoint, err = openai.ParseEndpoint(endpointName); err != nil {
				return Usagef("bench: --endpoint: %v", err)
			}
			if o.Concurrency, err = bench.ParseConcurrency(conc); err != nil {
				return Usagef("bench: --concurrency: %v", err)
			}
			if cmd.Flags().Changed("slo") {
				if o.SLO, err = bench.ParseSLO(slo); err != nil {
					return Usagef("bench: --slo: %v", err)
				}
			}
			if o.Tolerance, err = bench.ParseTolerance(tolerance); err != nil {
				return Usagef("bench: --tolerance: %v", err)
			}
			if cmd.Flags().Changed("requests") && cmd.Flags().Changed("duration") {
				return Usagef("bench: give --requests or --duration, not both")
			}
			if err := o.Validate(); err != nil {
				return Usagef("bench: %v", err)
			}
			var src bench.BaselineSource
			if o.Baseline != "" {
				b, err := bench.ParseBaseline(o.Baseline)
				if err != nil {
					return Usagef("bench: --baseline: %v", err)
				}
				src = b
			}
			k, _ := key.Resolve(env.Getenv, "", nil)
			streams := env.secured(redact.New(k)).IO
			return runBench(cmd.Context(), streams, terminalColumns(env), bench.NewClient(base, k, o), o, src, jsonOut)
		},
	}
	f := cmd.Flags()
	f.StringVar(&rawURL, "url", "", "the server's base URL, e.g. http://127.0.0.1:30000")
	f.StringVar(&o.Model, "model", "", "model name to send (default: the first of /v1/models)")
	key.Register(f)
	f.StringVar(&endpointName, "endpoint", string(o.Endpoint), "API to load: completions, chat or generate (SGLang)")
	f.StringVar(&conc, "concurrency", "1,8,32", "concurrency levels, run in order")
	f.IntVar(&o.Requests, "requests", 0, "requests per level (default: max(20, 4×concurrency))")
	f.DurationVar(&o.Duration, "duration", 0, "per level, send requests for this long instead of --requests")
	f.IntVar(&o.InputLen, "input-len", o.InputLen, "prompt length in words (about one token each)")
	f.IntVar(&o.OutputLen, "output-len", o.OutputLen, "max_tokens per request")
	f.IntVar(&o.Warmup, "warmup", o.Warmup, "rounds of uncounted short requests (one per connection) before each level")
	f.BoolVar(&o.IgnoreEOS, "ignore-eos", o.IgnoreEOS, "ask the server to generate exactly --output-len tokens")
	f.Int64Var(&o.Seed, "seed", o.Seed, "seed for the prompts")
	f.StringVar(&slo, "slo", "", "goodput objective, e.g. ttft=500ms,tpot=50ms (also e2e=; bare numbers are ms)")
	f.StringVar(&o.Baseline, "baseline", "", "earlier result FILE, or reference figures like 'c=1:67.76,c=8:410'")
	f.StringVar(&tolerance, "tolerance", "10%", "how far below the baseline a level may fall")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "give up on one request after this long")
	f.DurationVar(&o.StallTimeout, "stall-timeout", o.StallTimeout, "fail a request whose stream is silent this long (its first token included)")
	f.BoolVar(&jsonOut, "json", false, "print one JSON result object on stdout")
	return cmd
}

// runBench runs the benchmark, prints the result and decides the exit status.
func runBench(ctx context.Context, io *IOStreams, columns int, c *openai.Client, o bench.Options, src bench.BaselineSource, jsonOut bool) error {
	var progress *bench.Progress
	stop := func() {}
	if io.IsStderrTTY {
		progress = &bench.Progress{}
		stop = drawProgress(io.ErrOut, progress, 200*time.Millisecond, columns)
	}
	res, err := bench.Run(ctx, c, o, progress)
	stop()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := res.Judge(ctx, src, o.Tolerance); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if jsonOut {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if err := bench.WriteText(io.Out, res); err != nil {
		return err
	}
	if !res.OK {
		for _, p := range res.Problems() {
			fmt.Fprintln(io.ErrOut, "vigil: bench: "+p)
		}
		return &ExitError{Code: 1}
	}
	return nil
}

// drawProgress redraws one status line on w until the returned stop is
// called, which erases it.
func drawProgress(w io.Writer, p *bench.Progress, every time.Duration, columns int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case now := <-t.C:
				fmt.Fprint(w, "\r\033[K"+p.Snapshot().Line(now, columns))
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// terminalColumns is the width for the progress line: $COLUMNS when the
// shell exports it, else 80.
func terminalColumns(env *Env) int {
	if env.Getenv != nil {
		if n, err := strconv.Atoi(env.Getenv("COLUMNS")); err == nil && n > 20 {
			return n
		}
	}
	return 80
}

// quoteClip quotes s for one line of output, at most n characters of it.
func quoteClip(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return strconv.Quote(string(r[:n])) + "..."
	}
	return strconv.Quote(s)
}
