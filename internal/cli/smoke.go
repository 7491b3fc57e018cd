package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/apikey"
	"vigil/internal/endpoint"
	"vigil/internal/redact"
	"vigil/internal/smoke"
	"vigil/internal/verdict"
)

func newSmokeCmd(env *Env) *cobra.Command {
	var (
		opts           smoke.Options
		rawURL, expect string
		key            apikey.Option
		jsonOut        bool
	)
	cmd := &cobra.Command{
		Use:   "smoke --url URL [flags]",
		Short: "Send one real generation request and judge the answer",
		Long: `vigil smoke asks a running server one short question ("` + smoke.Prompt + `",
at most 32 tokens, temperature 0) through its chat API, falling back to text
completions, and to SGLang's /generate when the OpenAI routes are missing.

The answer must arrive within --timeout, be non-empty, not be garbage (runs of
'!', replacement characters, one token repeated, a soup of scripts) and, with
--expect-text, match the regular expression. A /health 200 proves none of
this: a model with broken numerics comes up healthy and answers "!!!!!!!!".

A model that generates no text (an embedding or reranking model: the server
has no generation route, or SGLang's /model_info says so) is asked for
embeddings, else a ranking, and the numbers are judged: finite, not zero, a
paraphrase closer than an unrelated sentence, the answering document first.

The API key comes from --api-key, else $VIGIL_API_KEY, else $OPENAI_API_KEY;
it is never printed.

Exit status: 0 a sane answer, 1 no answer, a bad one, or one that could not be
judged (UNCHECKED), 2 usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rawURL == "" {
				return Usagef("smoke: --url is required (e.g. --url http://127.0.0.1:30000)")
			}
			base, err := endpoint.Parse(rawURL)
			if err != nil {
				return Usagef("smoke: %v", err)
			}
			opts.BaseURL = base
			if opts.Server != "" && opts.Server != "auto" && !slices.Contains(verdict.Servers, opts.Server) {
				return Usagef("smoke: --server %q: want one of %v or auto", opts.Server, verdict.Servers)
			}
			if opts.Timeout <= 0 {
				return Usagef("smoke: --timeout must be positive")
			}
			if expect != "" {
				re, err := regexp.Compile(expect)
				if err != nil {
					return Usagef("smoke: --expect-text: %v", err)
				}
				opts.ExpectText = re
			}
			opts.APIKey, _ = key.Resolve(env.Getenv, opts.Server, nil)
			io := env.secured(redact.New(opts.APIKey)).IO

			res := smoke.Check(cmd.Context(), opts)
			if jsonOut {
				out := struct {
					OK        bool    `json:"ok"`
					Reason    string  `json:"reason"`
					Endpoint  string  `json:"endpoint"`
					Model     string  `json:"model"`
					Answer    string  `json:"answer"`
					LatencyMS float64 `json:"latency_ms"`
				}{res.OK, res.Reason, res.Endpoint, res.Model, res.Answer, float64(res.Latency.Microseconds()) / 1000}
				if err := json.NewEncoder(io.Out).Encode(out); err != nil {
					return err
				}
				if !res.OK {
					fmt.Fprintln(io.ErrOut, "vigil: smoke: "+res.Reason)
				}
			} else {
				status := "ok"
				switch {
				case res.Unchecked:
					status = "UNCHECKED  " + res.Reason
				case !res.OK:
					status = "FAIL  " + res.Reason
				}
				fmt.Fprintf(io.Out, "%s\n  endpoint %s  model %s  latency %v\n", status,
					orDash(res.Endpoint), orDash(res.Model), res.Latency.Round(time.Millisecond))
				if res.Answer != "" || res.Latency > 0 {
					fmt.Fprintf(io.Out, "  answer %s\n", quoteClip(res.Answer, 200))
				}
			}
			if !res.OK {
				return &ExitError{Code: 1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&rawURL, "url", "", "the server's base URL, e.g. http://127.0.0.1:30000")
	f.StringVar(&opts.Model, "model", "", "model name to send (default: the first of /v1/models)")
	f.StringVar(&opts.Server, "server", "", "server kind (sglang, vllm, trtllm, llamacpp, tgi): only SGLang gets /generate")
	f.DurationVar(&opts.Timeout, "timeout", smoke.DefaultTimeout, "how long the whole check may take")
	f.StringVar(&expect, "expect-text", "", "a regular expression the answer must match, e.g. '(?i)paris'")
	key.Register(f)
	f.BoolVar(&jsonOut, "json", false, "print one JSON object on stdout")
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
