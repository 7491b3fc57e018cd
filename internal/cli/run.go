package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	"vigil/internal/redact"
	"vigil/internal/render"
	"vigil/internal/smoke"
	"vigil/internal/statedir"
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
	member       memberFlag
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
(SIGTERM, --grace, SIGKILL) unless --keep is given. Ctrl-C, SIGTERM,
SIGHUP (a closed terminal) or SIGPIPE (a reader that went away, or any
failed write to stdout or stderr) before the verdict stops the startup the
same way; a second one kills at once.

Progress and events go to stderr; the verdict goes to stdout (with
--json, stdout carries NDJSON events only; --quiet prints the verdict line
alone).

Exit status: 0 ready, 1 failed, 2 usage error, 3 stalled, 124 timeout,
128+N stopped by signal N (130 Ctrl-C, 129 SIGHUP, 141 SIGPIPE, 143 SIGTERM).`,
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
	opts.member.register(cmd.Flags())
	return cmd
}

func (opts *runOptions) registerRun(fs *pflag.FlagSet) {
	opts.register(fs)
	fs.BoolVar(&opts.keep, "keep", false, "do not stop the server when the startup fails, stalls or times out")
	fs.StringVar(&opts.logFile, "log-file", "", "where the server's output goes (default: a new file under $XDG_STATE_HOME/vigil/logs)")
	fs.DurationVar(&opts.grace, "grace", defaultGrace, "how long the server may take to exit after SIGTERM before SIGKILL")
	fs.StringVar(&opts.preflight, "preflight", "warn", "before launching, look for a --host address not this machine's, a taken port, GPU memory held by other processes and leftover servers: warn, strict (do not launch) or off")
	fs.StringVar(&opts.benchSpec, "bench", "", "once ready, run the smoke test and a serving benchmark (SPEC like c=1,8;n=50;in=512;out=128;baseline=c=1:67.76; default: the last good run of this model and config is the baseline)")
	fs.Lookup("bench").NoOptDefVal = "default"
}

// validateRun checks the flags run and supervise share.
func (opts *runOptions) validateRun() error {
	if err := opts.validate(); err != nil {
		return err
	}
	if !slices.Contains([]string{"warn", "strict", "off"}, opts.preflight) {
		return Usagef("--preflight %q: want warn, strict or off", opts.preflight)
	}
	return nil
}

func runRun(ctx context.Context, env *Env, opts *runOptions, argv []string) error {
	// Event times count from here, before the preflight checks.
	start := time.Now()
	if err := opts.validateRun(); err != nil {
		return err
	}
	if opts.grace < 0 {
		return Usagef("--grace %v: want a duration of 0 or more", opts.grace)
	}
	// A stop signal (or stdout/stderr gone) before the verdict stops the
	// startup; a second one kills at once.
	ctx, stops, env, stopWatching := watchStops(ctx, env)
	defer stopWatching()
	killNow := stops.killWait()
	if opts.benchSpec == "default" && looksLikeBenchSpec(argv[0]) {
		// pflag reads "--bench SPEC" as a bare --bench and SPEC as the
		// COMMAND, which would then be launched.
		return Usagef("--bench takes its SPEC after '=': give --bench=%s", argv[0])
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
		return commandError(argv[0])
	}
	// The guesses read the server's own words (a shell's -c script's);
	// argv is what is launched and shown.
	words := classify.ServerArgv(argv)
	kind := opts.kind()
	if kind == "" {
		kind = classify.DetectCommand(words)
	}
	// From here on everything printed masks the key and secrets' shapes.
	env = opts.resolveKey(env, kind, words)
	red := opts.red
	shownArgv := red.Argv(argv)
	base, guessed := opts.url, false
	if base == "" {
		base, guessed = classify.GuessURL(kind, words, env.Getenv, ""), true
	}
	findings := runPreflight(opts.preflight, kind, base, guessed, words)
	model := classify.ModelFromArgv(words)
	hist, err := openStartupHistory(env, &opts.judgeFlags, kind, model)
	if err != nil {
		return err
	}
	logPath, logFile, offset, err := openLog(env, opts.logFile, kind)
	if err != nil {
		return err
	}
	defer logFile.Close()

	if opts.preflight == "strict" && len(findings) > 0 {
		info := render.Info{Mode: "run", LogFile: logPath, URL: redact.URL(base), Argv: shownArgv, Start: start}
		return refuseLaunch(env, &opts.judgeFlags, info, findings)
	}
	proc, err := launch.Start(launch.Spec{Argv: argv, Env: os.Environ(), Log: logFile, Subreaper: true})
	// The copier (or the server) holds its own descriptor: vigil's would
	// make vigil look like a writer of the log to a watch --log.
	logFile.Close()
	if err != nil {
		if errors.Is(err, launch.ErrNotFound) {
			return commandError(argv[0])
		}
		return Usagef("%v", err)
	}
	info := render.Info{Mode: "run", PID: proc.Pid, LogFile: logPath, URL: redact.URL(base), Argv: shownArgv, Start: start}
	cfg := hist.judgeConfig(&opts.judgeFlags, judge.Config{Server: kind, Argv: words, URLGuessed: guessed, Smoke: opts.smoke})
	opts.member.apply(&cfg)
	probeURL, noHTTP := noHTTPMode(kind, words, &cfg, base)
	info.URL = redact.URL(probeURL)
	info.Budget = hist.budget()
	notes := hist.notes(cfg, &opts.judgeFlags)
	if noHTTP != "" {
		notes = append(notes, noHTTP)
	}
	notes = append(notes, preflightNotes(findings, &cfg)...)
	notes = redactNotes(red, notes)

	extras := map[string]any{}
	spec := monitor.Spec{
		Judge: cfg, Start: start, PID: proc.Pid, Proc: proc, Daemon: proc.FollowDaemon, Output: proc,
		Log: logPath, Offset: offset, URL: probeURL, AwaitAddress: guessed && classify.PicksAnyPort(words), APIKey: opts.key,
		HFHome: procstat.DefaultHFHome(env.Getenv),
		Notes:  notes,
		Smoke:  smokeFor(opts.key, words, env.Getenv, extras),
	}
	if opts.preflight == "warn" {
		spec.Later = preflightLater(kind, proc.Pid, red)
	}
	if !opts.keep {
		spec.Stop = func() { proc.Stop(opts.grace, killNow) }
	}
	r := pickRenderer(env, &opts.judgeFlags)
	r.Begin(info)
	out, err := monitor.Run(ctx, spec, hostDeps(), r)
	if err != nil {
		if sig, ok := stops.signal(); ok {
			return stopForSignal(env, r, proc, opts, stops, hist, info, model, sig)
		}
		return err
	}
	res := out.Result
	if opts.stopWhenDone && res.Verdict == v.Ready {
		defer proc.Stop(opts.grace, killNow)
	}
	// A model that generates no text (an embedding model, a reranker) has
	// no serving benchmark: its command line says so, or the route that
	// answered the smoke request does.
	noText := classify.PoolingOf(kind, words, env.Getenv) != "" || !smoke.Generates(smokeEndpoint(extras))
	if res.Verdict == v.Ready && opts.benchSpec != "" && noText {
		r.Note(time.Now(), "bench: no serving benchmark: the model generates no text")
	} else if res.Verdict == v.Ready && opts.benchSpec != "" {
		r.Note(time.Now(), "running the serving benchmark")
		b, warn := benchAfterReady(ctx, env.IO.ErrOut, cmp.Or(out.URL, base), opts.key, opts.benchOpts, hist, res)
		if warn != "" {
			r.Note(time.Now(), "%s", warn)
		}
		if b != nil {
			extras["bench"] = b
			r.Note(time.Now(), "%s", baselineNote(opts.benchOpts, b))
			if gateBench(res, b) && !opts.keep {
				proc.Stop(opts.grace, killNow)
			}
		}
	}
	if sig, ok := stops.signal(); ok && res.Verdict == v.Ready {
		// Stopped during the benchmark, before the verdict was given.
		return stopForSignal(env, r, proc, opts, stops, hist, info, model, sig)
	}
	finish(r, out, info, hist, model, extras, red)
	return verdictExit(res)
}

func verdictExit(res *observe.Result) error {
	if code := res.Verdict.ExitCode(); code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}

// openLog opens the server's log for appending: a new private file in the
// state directory, or --log-file, which must be a regular file (a link,
// FIFO, socket, device or directory is refused at once). It returns the
// offset where this run's output starts.
func openLog(env *Env, path, kind string) (string, *os.File, int64, error) {
	var f *os.File
	var err error
	if path == "" {
		f, err = statedir.NewLog(env.Getenv, kind, time.Now())
		if err != nil {
			return "", nil, 0, Usagef("cannot create the server's log: %v", err)
		}
		path = f.Name()
	} else {
		if abs, aerr := filepath.Abs(path); aerr == nil {
			path = abs
		}
		f, err = statedir.OpenAppend(path)
		if err != nil {
			return "", nil, 0, Usagef("--log-file %s: %v", path, unwrapPathErr(err))
		}
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return "", nil, 0, Usagef("--log-file %s: %v", path, err)
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

// looksLikeBenchSpec reports whether a COMMAND is really a --bench SPEC
// given with a space: KEY=VALUE words that bench.ParseSpec accepts, and no
// file of that name.
func looksLikeBenchSpec(arg string) bool {
	if !strings.Contains(arg, "=") || strings.Contains(arg, "/") {
		return false
	}
	if _, err := os.Stat(arg); err == nil {
		return false
	}
	_, err := bench.ParseSpec(arg)
	return err == nil
}

// stopForSignal stops the server's group after a stop signal before the
// verdict, says why on stderr and in the history, and exits 128+signal.
func stopForSignal(env *Env, r render.Renderer, proc *launch.Process, opts *runOptions, stops *stopper, hist *startupHistory, info render.Info, model string, sig syscall.Signal) error {
	name := launch.SignalName(sig)
	r.Note(time.Now(), "interrupted by %s: stopping the server (pid %d); the same signal again kills it now", name, proc.Pid)
	proc.Stop(opts.grace, stops.killWait())
	hist.recordStopped(info, model, name, proc.Pid)
	fmt.Fprintf(env.IO.ErrOut, "vigil: %s before the verdict; the server (pid %d) was stopped\n", name, proc.Pid)
	return &ExitError{Code: stops.exitCode()}
}
