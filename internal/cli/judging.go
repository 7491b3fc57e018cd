package cli

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"vigil/internal/apikey"
	"vigil/internal/classify"
	"vigil/internal/colour"
	"vigil/internal/endpoint"
	"vigil/internal/monitor"
	"vigil/internal/observe"
	"vigil/internal/redact"
	"vigil/internal/render"
	"vigil/internal/srvconfig"
)

// Defaults for the time windows when neither the flags nor the history
// give one. A 5-minute stall window is safe because vigil also counts CPU,
// disk and download activity as progress, so a long silent step that works
// is not a stall.
const (
	defaultTimeout    = 60 * time.Minute
	defaultStallAfter = 5 * time.Minute
)

// judgeFlags are the flags every judging command takes.
type judgeFlags struct {
	url        string
	server     string
	timeout    window
	stallAfter window
	smoke      bool
	json       bool
	quiet      bool
	expect     []string
	expectFile string
	noHistory  bool
	apiKey     apikey.Option

	expects []srvconfig.Expect
	// key is the resolved API key; red masks it and every secret's shape.
	key string
	red *redact.Redactor
}

func (f *judgeFlags) register(fs *pflag.FlagSet) {
	f.timeout, f.stallAfter = window{auto: true}, window{auto: true}
	fs.StringVar(&f.url, "url", "", "the server's base URL (default: --host/--port in COMMAND, else the variables the server kind reads them from (LLAMA_ARG_PORT, TGI's PORT), else its default port on 127.0.0.1)")
	fs.StringVar(&f.server, "server", "auto", "server kind: sglang, vllm, trtllm, llamacpp, tgi or auto")
	fs.Var(&f.timeout, "timeout", "the whole startup's budget, or auto: learned from past startups of this model and config, else 60m")
	fs.Var(&f.stallAfter, "stall-after", "how long without any sign of progress (log, CPU, disk, download) counts as stalled, or auto: learned, else 5m")
	fs.BoolVar(&f.smoke, "smoke", false, "once ready, send one real generation request and judge its answer")
	fs.BoolVar(&f.json, "json", false, "print NDJSON events on stdout (the summary for people goes to stderr)")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print only the verdict line (on stdout; with --json, nothing for people)")
	fs.StringArrayVar(&f.expect, "expect", nil, "KEY=VALUE the server's printed configuration must show (repeatable), e.g. quantization=fp8, tp=4")
	fs.StringVar(&f.expectFile, "expect-file", "", "a file of KEY=VALUE expectations, one per line")
	fs.BoolVar(&f.noHistory, "no-history", false, "neither read nor record the startup history")
	f.apiKey.Register(fs)
}

// resolveKey picks the API key (argv: the server's command line under run,
// nil under watch) and returns env with its output redacted.
func (f *judgeFlags) resolveKey(env *Env, kind string, argv []string) *Env {
	f.key, _ = f.apiKey.Resolve(env.Getenv, kind, argv)
	f.red = redact.New(f.key)
	return env.secured(f.red)
}

func (f *judgeFlags) validate() error {
	if f.server != "auto" {
		if _, ok := classify.Profiles[f.server]; !ok {
			return Usagef("--server %q: want one of sglang, vllm, trtllm, llamacpp, tgi, auto", f.server)
		}
	}
	if f.url != "" {
		base, err := endpoint.Parse(f.url)
		if err != nil {
			return Usagef("%v", err)
		}
		f.url = base
	}
	exps, err := srvconfig.ParseExpect(f.expect)
	if err != nil {
		return Usagef("--expect: %v", err)
	}
	if f.expectFile != "" {
		more, err := srvconfig.LoadExpectFile(f.expectFile)
		if err != nil {
			return Usagef("--expect-file: %v", err)
		}
		exps = append(exps, more...)
	}
	f.expects = exps
	return nil
}

func (f *judgeFlags) kind() string {
	if f.server == "auto" {
		return ""
	}
	return f.server
}

// defaultLogDir is $XDG_STATE_HOME/vigil/logs, else ~/.local/state/vigil/logs.
func defaultLogDir(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "vigil", "logs")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".local", "state", "vigil", "logs")
}

// pickRenderer: NDJSON on stdout with --json, a live view on a terminal,
// plain lines otherwise. Progress and events for people go to stderr, the
// verdict block to stdout (unless stdout carries the NDJSON), so
// `vigil run ... > out.txt` keeps the verdict and a pipe sees only it.
func pickRenderer(env *Env, f *judgeFlags) render.Renderer {
	pal := colour.New(colour.Enabled(env.Getenv, env.IO.IsStderrTTY))
	outPal := colour.New(colour.Enabled(env.Getenv, env.IO.IsStdoutTTY))
	switch {
	case f.json && f.quiet:
		return &render.JSON{W: env.IO.Out}
	case f.json:
		return &jsonAndSummary{JSON: render.JSON{W: env.IO.Out}, errOut: env.IO.ErrOut, pal: pal}
	case f.quiet:
		return &render.Quiet{Out: env.IO.Out, Pal: outPal}
	}
	if env.IO.IsStderrTTY && env.Getenv("TERM") != "dumb" {
		live := &render.Live{W: env.IO.ErrOut, Width: 100, Pal: pal, Out: env.IO.Out, OutPal: outPal}
		if f, ok := env.IO.errFile(); ok {
			live.Size = terminalWidth(f)
		}
		return live
	}
	return &render.Plain{W: env.IO.ErrOut, Pal: pal, Out: env.IO.Out, OutPal: outPal}
}

// terminalWidth reads the terminal's width each time the live view asks,
// before every redraw (ten a second at most). A width cached until the
// SIGWINCH is handled would be stale in the moments after a resize, when
// the terminal has already rewrapped the block and a busy machine has not
// yet run the signal's goroutine: the block would be cleared by too few
// rows and a copy of it left on screen.
func terminalWidth(f *os.File) func() int {
	return func() int {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			return cols
		}
		return 0
	}
}

// jsonAndSummary writes events to stdout and the person's summary to stderr.
type jsonAndSummary struct {
	render.JSON
	errOut interface{ Write([]byte) (int, error) }
	pal    colour.Palette
	info   render.Info
}

func (r *jsonAndSummary) Begin(info render.Info) { r.info = info; r.JSON.Begin(info) }
func (r *jsonAndSummary) End(res *observe.Result, st render.Status) {
	r.JSON.End(res, st)
	render.Summary(r.errOut, res, r.info, r.pal)
}

// hostDeps are the monitor's ways into this host.
func hostDeps() monitor.Deps {
	return monitor.Deps{Now: time.Now, GPU: gpuClient, OOMRecord: monitor.DefaultOOMRecord}
}

// smokeFor runs the smoke request and keeps its outcome in extras. argv
// is the server's command line and getenv its environment (nil when not
// known): they say whether its model generates text.
func smokeFor(key string, argv []string, getenv func(string) string, extras map[string]any) func(context.Context, string, string) observe.SmokeResult {
	return func(ctx context.Context, server, base string) observe.SmokeResult {
		r := smokeCheck(ctx, base, server, key, classify.PoolingOf(server, argv, getenv))
		extras["smoke"] = map[string]any{"ok": r.OK, "reason": r.Reason, "endpoint": r.Endpoint, "answer": r.Answer, "latency_ms": r.Latency.Milliseconds()}
		return r
	}
}

// smokeEndpoint is the route that answered the smoke request kept in
// extras (smokeFor), or "".
func smokeEndpoint(extras map[string]any) string {
	m, _ := extras["smoke"].(map[string]any)
	ep, _ := m["endpoint"].(string)
	return ep
}

// finish records the startup in the history and shows the verdict; it
// returns the startup's history id (0: not recorded).
func finish(r render.Renderer, out monitor.Outcome, info render.Info, hist *startupHistory, model string, extras map[string]any, red *redact.Redactor) int64 {
	redactResult(red, out.Result)
	hist.red = red
	st := out.Status
	for name, x := range out.Result.Extras {
		extras[name] = x // the judge's results (kernels, notable) go to the verdict and the history
	}
	if !out.Start.IsZero() {
		info.Start = out.Start // attached late: the run began before vigil did
	}
	id, warn := hist.record(out.Result, info, model, extras)
	if warn != "" {
		r.Note(time.Now(), "%s", warn)
	}
	st.HistoryID = id
	st.Extras = extras
	r.End(out.Result, st)
	return id
}

// budget is the --timeout and --stall-after judgeConfig put in force and
// where each came from, for the start of the output.
func (h *startupHistory) budget() *render.Budget {
	w := h.windows
	b := &render.Budget{Timeout: w.Timeout, TimeoutFrom: string(w.TimeoutFrom), StallAfter: w.StallAfter, StallFrom: string(w.StallFrom)}
	if h.learned != nil {
		b.Samples = h.learned.Samples
	}
	return b
}
