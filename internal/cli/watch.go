package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/classify"
	"vigil/internal/facts"
	"vigil/internal/follow"
	"vigil/internal/journal"
	"vigil/internal/judge"
	"vigil/internal/launch"
	"vigil/internal/life"
	"vigil/internal/monitor"
	"vigil/internal/observe"
	"vigil/internal/procfind"
	"vigil/internal/procstat"
	"vigil/internal/redact"
	"vigil/internal/render"
	v "vigil/internal/verdict"
)

type watchOptions struct {
	judgeFlags
	log  string
	pid  int
	unit string
	user bool
	// follow keeps judging after ready (life.go), hangAfter its health
	// threshold.
	follow    bool
	hangAfter time.Duration
	member    memberFlag
}

func newWatchCmd(env *Env) *cobra.Command {
	opts := &watchOptions{}
	cmd := &cobra.Command{
		Use:   "watch [flags] (--log FILE [--pid PID] | --pid PID | --unit UNIT)",
		Short: "Judge the startup of a server that is already starting",
		Long: `Judge the startup of a server that is already running: follow its log
file (--log, with the server's --pid, else the process that holds the file
open for writing) or its systemd unit's journal (--unit). --pid alone
follows the file the process's output goes to ("server > server.log 2>&1").

Only this run counts: lines of earlier runs already in the log are skipped
(by the process's start time against the lines' timestamps, the servers'
start banners and the file's modification time), and vigil says what it
skipped. watch never signals the server, whatever the verdict.

A log that only exists as a stream is judged as it arrives: --log - reads
standard input (kubectl logs -f POD | vigil watch --log -), and a FIFO or
/dev/stdin is read the same way; the earlier output the stream starts
with is cut into runs like a file's. Give --pid to also sample the server.

With --follow it keeps judging after ready, as vigil supervise does, until
the server dies (exit 4) or hangs (exit 5), saying why.

Progress and events go to stderr; the verdict goes to stdout (with
--json, stdout carries NDJSON events only; --quiet prints the verdict line
alone).

Exit status: 0 ready, 1 failed, 2 usage error, 3 stalled, 124 timeout;
with --follow 4 died after ready, 5 hung after ready; 128+N ended by
signal N (the server is never signalled).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWatch(cmd.Context(), env, opts)
		},
	}
	opts.register(cmd.Flags())
	cmd.Flags().StringVar(&opts.log, "log", "", "the server's log file (it may not exist yet), or a stream: - for standard input, a FIFO, /dev/stdin")
	cmd.Flags().IntVar(&opts.pid, "pid", 0, "the server's process id (default: the process writing --log, or the unit's main process)")
	cmd.Flags().StringVar(&opts.unit, "unit", "", "a systemd unit whose current activation to judge")
	cmd.Flags().BoolVar(&opts.user, "user", false, "with --unit: the user's service manager")
	cmd.Flags().BoolVar(&opts.follow, "follow", false, "after ready, keep judging the server's life until it dies or hangs (never signals it)")
	opts.member.register(cmd.Flags())
	cmd.Flags().DurationVar(&opts.hangAfter, "hang-after", life.DefaultHangAfter, "with --follow: how long the health endpoint may keep failing after ready before the server counts as hung")
	return cmd
}

func runWatch(ctx context.Context, env *Env, opts *watchOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	if opts.hangAfter <= 0 {
		return Usagef("watch: --hang-after must be positive")
	}
	ctx, stops, env, stopWatching := watchStops(ctx, env)
	defer stopWatching()
	if opts.log != "" && opts.unit != "" || opts.log == "" && opts.unit == "" && opts.pid == 0 {
		return Usagef("watch: give exactly one of --log FILE or --unit UNIT (or --pid PID of a server whose output goes to a file)")
	}
	var ident *procfind.Identity
	if opts.pid < 0 {
		return Usagef("--pid %d: no such process", opts.pid)
	}
	if opts.pid > 0 {
		// The process is known by its start time too, so a PID reused
		// after it exits is never taken for the server.
		id, err := procfind.Identify(opts.pid)
		if err != nil {
			return Usagef("--pid %d: no such process", opts.pid)
		}
		ident = &id
	}
	var notes []string
	if opts.log == "" && opts.unit == "" {
		// "server > server.log 2>&1 &", watched by its pid alone.
		log, err := procfind.FS{}.OutputFile(opts.pid)
		if err != nil {
			return Usagef("--pid %d: %v; give --log FILE (or --log - with its output piped in, or --unit UNIT)", opts.pid, err)
		}
		opts.log = log
		notes = append(notes, fmt.Sprintf("pid %d writes its output to %s: following that log", opts.pid, log))
	}
	logExists := true
	if opts.log != "" && opts.log != "-" {
		var err error
		if logExists, err = checkWatchLog(opts.log); err != nil {
			return Usagef("--log %v", err)
		}
	}
	start := time.Now()
	var unitInfo journal.Info
	if opts.unit != "" {
		info, err := journal.UnitInfo(ctx, opts.unit, journal.Options{User: opts.user})
		if err != nil {
			return Usagef("--unit %s: %v", opts.unit, err)
		}
		unitInfo = info
		if opts.pid == 0 {
			opts.pid = info.MainPID
		}
	}
	var stream *streamLog
	if opts.log != "" && follow.IsStream(opts.log) {
		var err error
		if stream, err = openStreamLog(ctx, env, opts.log); err != nil {
			return Usagef("--log %s: %v", opts.log, err)
		}
		defer stream.close()
	}
	if opts.pid == 0 && opts.log != "" && stream == nil {
		if pids, err := procfind.WritersOf(opts.log); err == nil && len(pids) > 0 {
			pids = procfind.FS{}.Roots(pids)
			opts.pid = pids[0]
			if len(pids) > 1 {
				notes = append(notes, fmt.Sprintf("%d processes write %s; watching pid %d", len(pids), opts.log, pids[0]))
			}
		}
	}
	var argv []string
	dir := "" // the server's working directory, for a relative socket
	// The server's environment, for the variables its kind reads its
	// address and mode from (LLAMA_ARG_PORT, LLAMA_ARG_EMBEDDINGS); never
	// for a key (see resolveKey below).
	var serverEnv func(string) string
	if opts.pid > 0 {
		// The server's own words, out of a shell's -c script too.
		argv = classify.ServerArgv(procfind.FS{}.Cmdline(opts.pid))
		dir = procfind.FS{}.Cwd(opts.pid)
		serverEnv = procfind.FS{}.Environ(opts.pid)
	}
	kind := opts.kind()
	if kind == "" {
		kind = classify.DetectCommand(argv)
	}
	// watch never sends the server's own key found in its command line:
	// only one given to vigil.
	env = opts.resolveKey(env, kind, nil)
	red := opts.red
	base, guessed := opts.url, false
	if base == "" {
		base, guessed = classify.GuessURL(kind, argv, serverEnv, dir), true
	}
	switch {
	case opts.pid == 0 && stream != nil:
		notes = append(notes, "judging from the stream and the health endpoint alone (--pid PID also samples the server)")
	case opts.pid == 0:
		notes = append(notes, "no server process found: judging from the log and the health endpoint alone")
	}
	source := opts.log
	if stream != nil {
		source = streamName(opts.log)
	}
	if opts.unit != "" {
		source = "journal of " + opts.unit
	}
	info := render.Info{Mode: "watch", PID: opts.pid, LogFile: source, URL: redact.URL(base), Argv: red.Argv(argv), Start: start}
	model := classify.ModelFromArgv(argv)
	hist, err := openStartupHistory(env, &opts.judgeFlags, kind, model)
	if err != nil {
		return err
	}
	// A later start may be appended to the log while vigil watches it.
	cfg := hist.judgeConfig(&opts.judgeFlags, judge.Config{Server: kind, Argv: argv, URLGuessed: guessed, Smoke: opts.smoke, SplitRuns: true})
	opts.member.apply(&cfg)
	probeURL, noHTTP := noHTTPMode(kind, argv, &cfg, base)
	info.URL = redact.URL(probeURL)
	info.Budget = hist.budget()
	notes = append(hist.notes(cfg, &opts.judgeFlags), notes...)
	if noHTTP != "" {
		notes = append(notes, noHTTP)
	}

	extras := map[string]any{}
	spec := monitor.Spec{
		Judge: cfg, Start: start, PID: opts.pid, URL: probeURL, APIKey: opts.key,
		// Told to take any port: its address is printed (llama-server) or
		// read from its socket (vLLM prints the 0 it was given).
		AwaitAddress: guessed && classify.PicksAnyPort(argv),
		HFHome:       procstat.DefaultHFHome(env.Getenv),
		Smoke:        smokeFor(opts.key, argv, serverEnv, extras),
	}
	if opts.unit != "" {
		spec.Unit = &monitor.Unit{Name: opts.unit, User: opts.user, Info: unitInfo}
	} else {
		var procStart time.Time
		if opts.pid > 0 {
			procStart, _ = procfind.StartTime(opts.pid)
		}
		log, wait := opts.log, true
		if stream != nil {
			// The run-start rules see what the stream held at first.
			stream.backlog(ctx)
			if err := stream.checkHead(streamName(opts.log)); err != nil {
				return Usagef("--log %s: %v", opts.log, err)
			}
			log, wait = stream.path, false
		}
		offset, note := monitor.FindRunStart(log, kind, procStart)
		if _, ended := stream.spoolState(); stream != nil && procStart.IsZero() && !ended {
			// A stream still open after a failure is waiting for the
			// next start; one that ended holds only the past, judged.
			offset, note = monitor.FindStreamRunStart(log, kind)
		}
		if note != "" {
			notes = append(notes, note)
		}
		spec.Log, spec.Offset, spec.WaitForFile = log, offset, wait
		// What the log already holds of this run is timed by its stamps.
		spec.Backlog = monitor.ReadBacklog(log, offset, time.Now())
	}
	if !logExists {
		notes = append(notes, fmt.Sprintf("waiting for %s to appear (within --timeout %s)", opts.log, cfg.Timeout.Round(time.Second)))
	}
	spec.Identity = ident
	spec.Notes = redactNotes(red, notes)
	r := pickRenderer(env, &opts.judgeFlags)
	r.Begin(info)
	out, err := monitor.Run(ctx, spec, hostDeps(), r)
	if err != nil {
		if sig, ok := stops.signal(); ok {
			// watch never signals the server, whatever ends vigil.
			fmt.Fprintf(env.IO.ErrOut, "vigil: %s; the server was left as it is\n", launch.SignalName(sig))
			return &ExitError{Code: stops.exitCode()}
		}
		return err
	}
	finish(r, out, info, hist, model, extras, red)
	if !opts.follow || out.Result.Verdict != v.Ready {
		return verdictExit(out.Result)
	}
	return followWatch(ctx, env, opts, spec, out, r)
}

// followWatch judges the life after ready of a server vigil watches.
func followWatch(ctx context.Context, env *Env, opts *watchOptions, spec monitor.Spec, out monitor.Outcome, r render.Renderer) error {
	ls := monitor.LifeSpec{Spec: spec, ReadyAt: out.Result.At, HangAfter: opts.hangAfter}
	ls.Spec.Offset = out.Offset
	end, err := monitor.Follow(ctx, ls, hostDeps(), noteSink{r})
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(env.IO.ErrOut, "vigil: interrupted; the server was left as it is")
			return &ExitError{Code: 130}
		}
		return err
	}
	reportLife(env, opts.json, end, out.Result.At)
	if end.How == life.Hung {
		return &ExitError{Code: facts.ExitHung}
	}
	return &ExitError{Code: facts.ExitDied}
}

// noteSink shows the life after ready of a server vigil only watches.
type noteSink struct{ r render.Renderer }

func (s noteSink) Health(h observe.Health, at time.Time) { s.r.Note(at, "health: %s", h.State) }
func (s noteSink) Note(at time.Time, format string, a ...any) {
	s.r.Note(at, format, a...)
}
