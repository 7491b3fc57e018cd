package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/classify"
	"vigil/internal/follow"
	"vigil/internal/journal"
	"vigil/internal/judge"
	"vigil/internal/monitor"
	"vigil/internal/procfind"
	"vigil/internal/procstat"
	"vigil/internal/render"
)

type watchOptions struct {
	judgeFlags
	log  string
	pid  int
	unit string
	user bool
}

func newWatchCmd(env *Env) *cobra.Command {
	opts := &watchOptions{}
	cmd := &cobra.Command{
		Use:   "watch [flags] (--log FILE [--pid PID] | --unit UNIT)",
		Short: "Judge the startup of a server that is already starting",
		Long: `Judge the startup of a server that is already running: follow its log
file (--log, with the server's --pid, else the process that holds the file
open for writing) or its systemd unit's journal (--unit).

Only this run counts: lines of earlier runs already in the log are skipped
(by the process's start time against the lines' timestamps, the servers'
start banners and the file's modification time), and vigil says what it
skipped. watch never signals the server, whatever the verdict.

A log that only exists as a stream is judged as it arrives: --log - reads
standard input (kubectl logs -f POD | vigil watch --log -), and a FIFO or
/dev/stdin is read the same way; the earlier output the stream starts
with is cut into runs like a file's. Give --pid to also sample the server.

Progress and events go to stderr; the verdict goes to stdout (with
--json, stdout carries NDJSON events only; --quiet prints the verdict line
alone).

Exit status: 0 ready, 1 failed, 2 usage error, 3 stalled, 124 timeout.`,
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
	return cmd
}

func runWatch(ctx context.Context, env *Env, opts *watchOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	if (opts.log == "") == (opts.unit == "") {
		return Usagef("watch: give exactly one of --log FILE or --unit UNIT")
	}
	if opts.pid < 0 || opts.pid > 0 && !procfind.Exists(opts.pid) {
		return Usagef("--pid %d: no such process", opts.pid)
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
	var notes []string
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
	if opts.pid > 0 {
		argv = procfind.FS{}.Cmdline(opts.pid)
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
	info := render.Info{Mode: "watch", PID: opts.pid, LogFile: source, URL: base, Argv: argv, Start: start}
	model := classify.ModelFromArgv(argv)
	hist := openStartupHistory(env, &opts.judgeFlags, kind, model)
	cfg := hist.judgeConfig(&opts.judgeFlags, judge.Config{Server: kind, Argv: argv, URLGuessed: guessed, Smoke: opts.smoke})
	info.Budget = hist.budget()
	notes = append(hist.notes(cfg, &opts.judgeFlags), notes...)

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()

	extras := map[string]any{}
	spec := monitor.Spec{
		Judge: cfg, Start: start, PID: opts.pid, URL: base,
		HFHome: procstat.DefaultHFHome(env.Getenv),
		Smoke:  smokeFor(env, base, extras),
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
			log, wait = stream.path, false
		}
		offset, note := monitor.FindRunStart(log, kind, procStart)
		if note != "" {
			notes = append(notes, note)
		}
		spec.Log, spec.Offset, spec.WaitForFile = log, offset, wait
	}
	spec.Notes = notes
	r := pickRenderer(env, &opts.judgeFlags)
	r.Begin(info)
	out, err := monitor.Run(ctx, spec, hostDeps(), r)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(env.IO.ErrOut, "vigil: interrupted; the server was left as it is")
			return &ExitError{Code: 130}
		}
		return err
	}
	finish(r, out, info, hist, model, extras)
	return verdictExit(out.Result)
}
