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
		base, guessed = guessURL(kind, argv), true
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
		r := pickRenderer(env, opts.json)
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
	model := modelFromArgv(argv)
	hist := openStartupHistory(env, &opts.judgeFlags, kind, model)
	cfg := hist.judgeConfig(&opts.judgeFlags, judge.Config{Server: kind, Argv: argv, URLGuessed: guessed, Smoke: opts.smoke})
	j := newJudging(env, &opts.judgeFlags, info, cfg)
	notes := hist.notes(cfg, &opts.judgeFlags)
	for _, f := range findings {
		notes = append(notes, "preflight: "+f.text)
	}
	j.queueNotes(notes)
	if opts.preflight == "warn" {
		go func() {
			var later []string
			for _, f := range preflightHost(kind, proc.Pid) {
				later = append(later, "preflight: "+f.text)
			}
			j.queueNotes(later)
		}()
	}

	// Ctrl-C or SIGTERM before the verdict stops the startup.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	interrupted := make(chan struct{})
	killNow := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-ctx.Done():
			return
		}
		close(interrupted)
		cancel()
		select {
		case <-sigs:
			close(killNow)
		case <-time.After(time.Hour):
		}
	}()

	var emitted atomic.Int64
	emitted.Store(offset)
	srcCtx, stopSources := context.WithCancel(ctx)
	defer stopSources()
	go j.followLog(srcCtx, logPath, offset, false, &emitted)
	go j.probeHealth(srcCtx, base, kind, proc.Pid)
	go j.sampleActivity(srcCtx, proc.Pid, procstat.DefaultHFHome(env.Getenv))
	go j.sampleGPU(srcCtx)
	go j.watchDisk(srcCtx, logPath)
	go func() {
		<-proc.Done()
		// Report the exit only once its last output is judged.
		waitLogDrained(logPath, &emitted)
		e := proc.Exit()
		if e.Signal == "SIGKILL" {
			e.OOMRecord = findOOMRecord(proc.Pid)
			e.Memory = memoryPressure(j.rss.bytes.Load())
		}
		select {
		case j.exit <- e:
		case <-srcCtx.Done():
		}
	}()

	// An nvidia-smi still running when vigil exits would outlive it.
	defer gpuClient.Wait(2 * time.Second)
	res, err := j.run(ctx, base)
	stopSources()
	if err != nil {
		select {
		case <-interrupted:
			j.renderer.Note(time.Now(), "interrupted: stopping the server (pid %d); Ctrl-C again to kill it now", proc.Pid)
			proc.Stop(opts.grace, killNow)
			fmt.Fprintln(env.IO.ErrOut, "vigil: interrupted; the server was stopped")
			return &ExitError{Code: 130}
		default:
		}
		return err
	}
	diagnoseStall(res, proc.Pid)
	if opts.stopWhenDone && res.Verdict == v.Ready {
		defer proc.Stop(opts.grace, killNow)
	}
	if res.Verdict != v.Ready && !opts.keep {
		// Also when the leader has exited: workers of its group may linger
		// and hold the GPUs or the port.
		j.renderer.Note(time.Now(), "stopping the server's process group (pid %d)", proc.Pid)
		proc.Stop(opts.grace, killNow)
		for _, s := range survivors(proc.Pid, base, &j.seen) {
			j.renderer.Note(time.Now(), "%s", s)
			res.Evidence = append(res.Evidence, "[vigil] "+s)
		}
	}
	addDiskEvidence(res, logPath)
	if res.Verdict == v.Ready && opts.benchSpec != "" {
		j.renderer.Note(time.Now(), "running the serving benchmark")
		b, warn := benchAfterReady(ctx, env, base, opts.benchOpts, hist, res)
		if warn != "" {
			j.renderer.Note(time.Now(), "%s", warn)
		}
		if b != nil {
			j.extras["bench"] = b
		}
	}
	j.finish(res, hist, model)
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

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
