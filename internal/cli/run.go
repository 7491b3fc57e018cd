package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vigil/internal/bench"
	"vigil/internal/classify"
	"vigil/internal/judge"
	"vigil/internal/launch"
	"vigil/internal/monitor"
	"vigil/internal/observe"
	"vigil/internal/procstat"
	"vigil/internal/render"
	v "vigil/internal/verdict"
)

// defaultGrace is how long a stopped server may take to exit after SIGTERM.
const defaultGrace = 10 * time.Second

type runOptions struct {
	judgeFlags
	keep      bool
	logFile   string
	grace     time.Duration
	preflight string
	benchSpec string
	benchOpts bench.Options
	// stopWhenDone stops the server after any verdict: the demo's
	// emulated server has nothing to serve once it has been judged.
	stopWhenDone bool
}

func newRunCmd(env *Env) *cobra.Command {
	opts := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags] -- COMMAND [ARG...]",
		Short: "Launch a server and judge its startup",
		Long: `Launch a server and judge its startup.

The server's stdout and stderr go straight into a log file (its path is
printed first), never through vigil, so the server does not depend on vigil.
The server runs in its own session and process group. When it is ready,
vigil exits 0 and the server keeps running. When it fails, stalls or times
out, vigil collects the evidence and then stops the whole process group
(SIGTERM, --grace, SIGKILL) unless --keep is given. Ctrl-C before the
verdict stops the startup the same way; a second Ctrl-C kills at once.

Progress and events go to stderr; the verdict goes to stdout (with
--json, stdout carries NDJSON events only; --quiet prints the verdict line
alone).

Exit status: 0 ready, 1 failed, 2 usage error, 3 stalled, 124 timeout,
130 interrupted.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return Usagef("run: no COMMAND given (vigil run [flags] -- COMMAND [ARG...])")
			}
			return runRun(cmd.Context(), env, opts, args)
		},
	}
	cmd.Flags().SetInterspersed(false)
	opts.registerRun(cmd.Flags())
	return cmd
}

func (opts *runOptions) registerRun(fs *pflag.FlagSet) {
	opts.register(fs)
	fs.BoolVar(&opts.keep, "keep", false, "do not stop the server when the startup fails, stalls or times out")
	fs.StringVar(&opts.logFile, "log-file", "", "where the server's output goes (default: a new file under $XDG_STATE_HOME/vigil/logs)")
	fs.DurationVar(&opts.grace, "grace", defaultGrace, "how long the server may take to exit after SIGTERM before SIGKILL")
	fs.StringVar(&opts.preflight, "preflight", "warn", "before launching, look for a taken port, GPU memory held by other processes and leftover servers: warn, strict (do not launch) or off")
	fs.StringVar(&opts.benchSpec, "bench", "", "once ready, run the smoke test and a serving benchmark (SPEC like c=1,8;n=50;in=512;out=128;baseline=c=1:67.76; default: the last good run of this model and config is the baseline)")
	fs.Lookup("bench").NoOptDefVal = "default"
}

func runRun(ctx context.Context, env *Env, opts *runOptions, argv []string) error {
	// Event times count from here, before the preflight checks.
	start := time.Now()
	if err := opts.validate(); err != nil {
		return err
	}
	if opts.benchSpec != "" {
		spec := opts.benchSpec
		if spec == "default" {
			spec = ""
		}
		o, err := bench.ParseSpec(spec)
		if err != nil {
			return Usagef("--bench: %v", err)
		}
		if o.Baseline != "" {
			if _, err := bench.ParseBaseline(o.Baseline); err != nil {
				return Usagef("--bench: %v", err)
			}
		}
		opts.benchOpts = o
		opts.smoke = true
	}
	if _, err := lookPath(argv[0]); err != nil {
		return Usagef("%s: command not found", argv[0])
	}
	kind := opts.kind()
	if kind == "" {
		kind = classify.DetectCommand(argv)
	}
	base, guessed := opts.url, false
	if base == "" {
		base, guessed = classify.GuessURL(kind, argv), true
	} else {
		base, _ = parseBaseURL(base)
	}
	// Strict mode checks everything before launching; warn mode only the
	// port, and the host once the server runs, so as not to delay it.
	var findings []preflightFinding
	switch opts.preflight {
	case "off":
	case "warn":
		findings = preflightPort(base)
	case "strict":
		findings = preflight(base, kind)
	default:
		return Usagef("--preflight %q: want warn, strict or off", opts.preflight)
	}
	logPath, logFile, offset, err := openLog(env, opts.logFile, kind)
	if err != nil {
		return err
	}
	defer logFile.Close()

	if opts.preflight == "strict" && len(findings) > 0 {
		r := pickRenderer(env, &opts.judgeFlags)
		info := render.Info{Mode: "run", LogFile: logPath, URL: base, Argv: argv, Start: start}
		r.Begin(info)
		r.End(preflightRefusal(findings, start), render.Status{Now: start})
		return &ExitError{Code: v.Failed.ExitCode()}
	}
	proc, err := launch.Start(launch.Spec{Argv: argv, Env: os.Environ(), Log: logFile})
	if err != nil {
		if errors.Is(err, launch.ErrNotFound) {
			return Usagef("%s: command not found", argv[0])
		}
		return Usagef("%v", err)
	}
	info := render.Info{Mode: "run", PID: proc.Pid, LogFile: logPath, URL: base, Argv: argv, Start: start}
	model := classify.ModelFromArgv(argv)
	hist := openStartupHistory(env, &opts.judgeFlags, kind, model)
	cfg := hist.judgeConfig(&opts.judgeFlags, judge.Config{Server: kind, Argv: argv, URLGuessed: guessed, Smoke: opts.smoke})
	info.Budget = hist.budget()
	notes := hist.notes(cfg, &opts.judgeFlags)
	for _, f := range findings {
		notes = append(notes, "preflight: "+f.text)
	}

	// Ctrl-C or SIGTERM before the verdict stops the startup; a second
	// one kills at once.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var interrupted atomic.Bool
	killNow := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-ctx.Done():
			return
		}
		interrupted.Store(true)
		cancel()
		select {
		case <-sigs:
			close(killNow)
		case <-time.After(time.Hour):
		}
	}()

	extras := map[string]any{}
	spec := monitor.Spec{
		Judge: cfg, Start: start, PID: proc.Pid, Proc: proc,
		Log: logPath, Offset: offset, URL: base,
		HFHome: procstat.DefaultHFHome(env.Getenv),
		Notes:  notes,
		Smoke:  smokeFor(env, base, extras),
	}
	if opts.preflight == "warn" {
		spec.Later = func() []string {
			var later []string
			for _, f := range preflightHost(kind, proc.Pid) {
				later = append(later, "preflight: "+f.text)
			}
			return later
		}
	}
	if !opts.keep {
		spec.Stop = func() { proc.Stop(opts.grace, killNow) }
	}
	r := pickRenderer(env, &opts.judgeFlags)
	r.Begin(info)
	out, err := monitor.Run(ctx, spec, hostDeps(), r)
	if err != nil {
		if interrupted.Load() {
			r.Note(time.Now(), "interrupted: stopping the server (pid %d); Ctrl-C again to kill it now", proc.Pid)
			proc.Stop(opts.grace, killNow)
			fmt.Fprintln(env.IO.ErrOut, "vigil: interrupted; the server was stopped")
			return &ExitError{Code: 130}
		}
		return err
	}
	res := out.Result
	if opts.stopWhenDone && res.Verdict == v.Ready {
		defer proc.Stop(opts.grace, killNow)
	}
	if res.Verdict == v.Ready && opts.benchSpec != "" {
		r.Note(time.Now(), "running the serving benchmark")
		b, warn := benchAfterReady(ctx, env, base, opts.benchOpts, hist, res)
		if warn != "" {
			r.Note(time.Now(), "%s", warn)
		}
		if b != nil {
			extras["bench"] = b
		}
	}
	finish(r, out, info, hist, model, extras)
	return verdictExit(res)
}

func verdictExit(res *observe.Result) error {
	if code := res.Verdict.ExitCode(); code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}

// openLog opens (creating) the server's log file for appending and returns
// the offset where this run's output starts.
func openLog(env *Env, path, kind string) (string, *os.File, int64, error) {
	if path == "" {
		dir := defaultLogDir(env.Getenv)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, 0, Usagef("cannot create the log directory %s: %v", dir, err)
		}
		name := kind
		if name == "" {
			name = "server"
		}
		path = filepath.Join(dir, fmt.Sprintf("%s-%s-%d.log", name, time.Now().Format("20060102-150405"), os.Getpid()))
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		path = abs
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return "", nil, 0, Usagef("--log-file %s: %v", path, unwrapPathErr(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return "", nil, 0, Usagef("--log-file %s: %v", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return "", nil, 0, Usagef("--log-file %s: not a regular file", path)
	}
	return path, f, fi.Size(), nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
