package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"vigil/internal/classify"
	"vigil/internal/facts"
	"vigil/internal/judge"
	"vigil/internal/launch"
	"vigil/internal/life"
	"vigil/internal/monitor"
	"vigil/internal/notify"
	"vigil/internal/observe"
	"vigil/internal/probe"
	"vigil/internal/procstat"
	"vigil/internal/reaper"
	"vigil/internal/redact"
	"vigil/internal/render"
	"vigil/internal/termsafe"
	v "vigil/internal/verdict"
)

// defaultListen is where the probe and metrics endpoints listen.
const defaultListen = "127.0.0.1:9811"

type superviseOptions struct {
	runOptions
	listen    string
	hangAfter time.Duration
}

func newSuperviseCmd(env *Env) *cobra.Command {
	opts := &superviseOptions{}
	cmd := &cobra.Command{
		Use:   "supervise [flags] -- COMMAND [ARG...]",
		Short: "Launch a server, judge its startup, then stay for its whole life (systemd, pods)",
		Long: `Launch a server, judge its startup exactly as vigil run does, then stay in the
foreground for the server's life: follow its log and health, and when it dies
or hangs, say why and exit with a status a supervisor can act on. It never
restarts the server.

Under systemd (Type=notify) it sends STATUS=, READY=1 once ready,
EXTEND_TIMEOUT_USEC= while the startup makes progress, WATCHDOG=1 while
healthy and STOPPING=1. --listen serves /startupz, /readyz, /livez and
/metrics; vigil probe asks the same over a unix socket. Signals are relayed
to the server's group; as PID 1 it reaps zombies.

Exit status: 0 stopped on request, 1 failed, 2 usage error, 3 stalled,
4 died after ready, 5 hung after ready, 124 timeout, 128+N stop by signal N
that did not end cleanly.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return Usagef("supervise: no COMMAND given (vigil supervise [flags] -- COMMAND [ARG...])")
			}
			if opts.keep {
				return Usagef("supervise: --keep does not apply: the supervisor's exit ends the service")
			}
			if opts.benchSpec != "" {
				return Usagef("supervise: --bench does not apply (use vigil run --bench)")
			}
			if opts.hangAfter <= 0 {
				return Usagef("supervise: --hang-after must be positive")
			}
			if _, _, err := net.SplitHostPort(opts.listen); err != nil {
				return Usagef("supervise: --listen %q: want HOST:PORT", opts.listen)
			}
			return runSupervise(cmd.Context(), env, opts, args)
		},
	}
	cmd.Flags().SetInterspersed(false)
	opts.registerRun(cmd.Flags())
	cmd.Flags().StringVar(&opts.listen, "listen", defaultListen, "where the probe and metrics endpoints listen (`ADDR` host:port)")
	cmd.Flags().DurationVar(&opts.hangAfter, "hang-after", life.DefaultHangAfter, "after ready, how long the health endpoint may keep failing before the server counts as hung")
	return cmd
}

// stopSignals are the relayed signals that ask the service to stop.
func stopSignal(sig syscall.Signal) bool {
	return sig == syscall.SIGTERM || sig == syscall.SIGINT || sig == syscall.SIGQUIT
}

func runSupervise(ctx context.Context, env *Env, opts *superviseOptions, argv []string) error {
	start := time.Now()
	if err := opts.validateRun(); err != nil {
		return err
	}
	if _, err := lookPath(argv[0]); err != nil {
		return Usagef("%s: command not found", argv[0])
	}
	// The guesses read the server's own words (a shell's -c script's).
	words := classify.ServerArgv(argv)
	kind := opts.kind()
	if kind == "" {
		kind = classify.DetectCommand(words)
	}
	// From here on everything printed masks the key and secrets' shapes.
	env = opts.resolveKey(env, kind, words)
	red := opts.red
	base, guessed := opts.url, false
	if base == "" {
		base, guessed = classify.GuessURL(kind, words, env.Getenv, ""), true
	}
	findings := runPreflight(opts.preflight, kind, base, guessed, words)
	if opts.preflight == "strict" && len(findings) > 0 {
		info := render.Info{Mode: "supervise", URL: redact.URL(base), Argv: red.Argv(argv), Start: start}
		return refuseLaunch(env, &opts.judgeFlags, info, findings)
	}
	// The endpoints are taken before the server starts: an address in use
	// is a usage error, with nothing launched.
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return Usagef("supervise: --listen %s: %v", opts.listen, unwrapNetErr(err))
	}
	listeners := []net.Listener{ln}
	var laterNotes []string
	if path := probe.DefaultSocket(env.Getenv); path != "" {
		if sl, err := probe.ListenSocket(path); err == nil {
			listeners = append(listeners, sl)
			defer os.Remove(path)
		} else {
			laterNotes = append(laterNotes, "vigil probe's socket: "+err.Error())
		}
	}
	closeAll := func() {
		for _, l := range listeners {
			l.Close()
		}
	}
	watchdog, err := notify.WatchdogFromEnv()
	if err != nil {
		laterNotes = append(laterNotes, err.Error())
	}
	logPath, logFile, offset, err := openLog(env, opts.logFile, kind)
	if err != nil {
		closeAll()
		return err
	}
	defer logFile.Close()

	var rp *reaper.Reaper
	if reaper.IsInit() {
		rp = reaper.New()
	}
	var proc *launch.Process
	err = rp.Start(func() (int, <-chan struct{}, error) {
		var err error
		proc, err = launch.Start(launch.Spec{Argv: argv, Env: notify.ScrubEnv(os.Environ()), Log: logFile})
		if err != nil {
			return 0, nil, err
		}
		return proc.Pid, proc.Done(), nil
	})
	// The copier (or the server) holds its own descriptor: vigil's would
	// make vigil look like a writer of the log to a watch --log.
	logFile.Close()
	if err != nil {
		closeAll()
		if errors.Is(err, launch.ErrNotFound) {
			return Usagef("%s: command not found", argv[0])
		}
		return Usagef("%v", err)
	}

	board := facts.NewBoard(start)
	// A stop asked for during the startup ends the judging; after the grace
	// period the group is killed.
	stopAsked := make(chan struct{})
	var stopOnce sync.Once
	var forced atomic.Bool
	fwd := reaper.NewForwarder(proc)
	fwd.OnSignal = func(sig syscall.Signal) {
		if stopSignal(sig) {
			board.StopRequested(int(sig))
			stopOnce.Do(func() { close(stopAsked) })
		}
	}

	info := render.Info{Mode: "supervise", PID: proc.Pid, LogFile: logPath, URL: redact.URL(base), Argv: red.Argv(argv), Start: start}
	model := classify.ModelFromArgv(words)
	hist, err := openStartupHistory(env, &opts.judgeFlags, kind, model)
	if err != nil {
		return err
	}
	cfg := hist.judgeConfig(&opts.judgeFlags, monitorJudgeConfig(kind, words, guessed, opts.smoke))
	probeURL, noHTTP := noHTTPMode(kind, words, &cfg, base)
	info.URL = redact.URL(probeURL)
	notes := append(hist.notes(cfg, &opts.judgeFlags), laterNotes...)
	if noHTTP != "" {
		notes = append(notes, noHTTP)
	}
	notes = redactNotes(red, append(notes, preflightNotes(findings, &cfg)...))
	stall := cfg.StallAfter
	if stall <= 0 {
		stall = max(cfg.FallbackStall, defaultStallAfter)
	}

	sideCtx, stopSide := context.WithCancel(context.WithoutCancel(ctx))
	g, gctx := errgroup.WithContext(sideCtx)
	g.Go(func() error { return rp.Run(gctx) })
	g.Go(func() error { return fwd.Run(gctx) })
	if notify.Enabled(env.Getenv) {
		n := notify.New(notify.Config{ExtendGrace: notify.GraceFor(stall, opts.grace), Watchdog: watchdog}, notify.Systemd)
		g.Go(func() error { return n.Run(gctx, board) })
	}
	g.Go(func() error { return probe.Serve(gctx, probe.Handler(board, time.Now), listeners...) })
	g.Go(func() error {
		select {
		case <-stopAsked:
		case <-gctx.Done():
			return nil
		}
		t := time.NewTimer(opts.grace)
		defer t.Stop()
		select {
		case <-proc.Done():
		case <-gctx.Done():
		case <-t.C:
			forced.Store(true)
			_ = proc.Signal(syscall.SIGKILL)
		}
		return nil
	})
	// Only errors of the side tasks (a notification that failed) come back;
	// they are told, never the exit status.
	joinSide := func() {
		stopSide()
		if err := g.Wait(); err != nil {
			fmt.Fprintln(env.IO.ErrOut, "vigil: "+oneLine(err.Error()))
		}
	}

	r := pickRenderer(env, &opts.judgeFlags)
	sink := &boardSink{Renderer: r, board: board}
	spec := monitor.Spec{
		Judge: cfg, Start: start, PID: proc.Pid, Proc: proc, Output: proc,
		Log: logPath, Offset: offset, URL: probeURL, AwaitAddress: guessed && classify.PicksAnyPort(words),
		HFHome:     procstat.DefaultHFHome(env.Getenv),
		Notes:      notes,
		Smoke:      smokeFor(opts.key, words, env.Getenv, map[string]any{}),
		Progressed: sink.progressed,
		Stop:       func() { board.Stopping(); proc.Stop(opts.grace, nil) },
	}
	if opts.preflight == "warn" {
		spec.Later = preflightLater(kind, proc.Pid, red)
	}
	r.Begin(info)
	judgeCtx, endJudging := context.WithCancel(ctx)
	go func() {
		select {
		case <-stopAsked:
			endJudging()
		case <-judgeCtx.Done():
		}
	}()
	out, err := monitor.Run(judgeCtx, spec, hostDeps(), sink)
	endJudging()
	if err != nil {
		// A stop was asked for before the verdict: the signal went to the
		// server; its end decides the status.
		r.Note(time.Now(), "stop asked for before the verdict; waiting for the server (pid %d)", proc.Pid)
		return superviseEnd(env, board, proc, &forced, joinSide)
	}
	res := out.Result
	extras := map[string]any{}
	if res.Verdict != v.Ready {
		board.Failed(res.Verdict, res.Cause, res.Summary, res.At)
		finish(r, out, info, hist, model, extras, red)
		return superviseEnd(env, board, proc, &forced, joinSide)
	}
	board.Ready(res.At)
	id := finish(r, out, info, hist, model, extras, red)

	ls := monitor.LifeSpec{
		Spec: spec, ReadyAt: res.At, HangAfter: opts.hangAfter,
		Stopping: func() bool { return board.Snapshot().Stopping },
	}
	ls.Spec.Offset, ls.Spec.URL = out.Offset, out.URL
	end, err := monitor.Follow(ctx, ls, hostDeps(), lifeSink{r: r, board: board})
	if err != nil {
		proc.Stop(opts.grace, nil)
		return superviseEnd(env, board, proc, &forced, joinSide)
	}
	switch end.How {
	case life.Died:
		board.Died(end.Cause, end.Summary, end.At)
	case life.Hung:
		board.Hung(true, end.Cause, end.Summary)
		board.Stopping()
		r.Note(time.Now(), "the server hangs: stopping its process group (pid %d)", proc.Pid)
		proc.Stop(opts.grace, nil)
	}
	reportLife(env, opts.json, end, res.At)
	if warn := recordLife(env, &opts.judgeFlags, kind, model, id, end, res.At); warn != "" {
		fmt.Fprintln(env.IO.ErrOut, "vigil: "+warn)
	}
	return superviseEnd(env, board, proc, &forced, joinSide)
}

// recordLife attaches how the life after ready ended to the startup's
// history entry, as its "life" result.
func recordLife(env *Env, f *judgeFlags, kind, model string, id int64, end *life.End, readyAt time.Time) string {
	if id == 0 {
		return ""
	}
	h, err := openStartupHistory(env, f, kind, model)
	if err != nil || h.store == nil {
		return ""
	}
	defer h.store.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = h.store.AttachResults(ctx, id, "life", map[string]any{
		"how": end.How, "cause": string(end.Cause), "summary": end.Summary,
		"evidence": end.Evidence, "after_ready_s": end.At.Sub(readyAt).Seconds(),
	})
	if err != nil {
		return "the life after ready not recorded: " + err.Error()
	}
	return ""
}

// superviseEnd waits for the server, records how it ended and maps the
// facts to the exit status.
func superviseEnd(env *Env, board *facts.Board, proc *launch.Process, forced *atomic.Bool, joinSide func()) error {
	<-proc.Done()
	e := proc.Exit()
	board.Exited(facts.Exit{Code: e.Code, Signal: signalNumber(e.Signal), Forced: forced.Load()})
	board.Stopping()
	joinSide()
	if code := board.Snapshot().ExitStatus(); code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}

func monitorJudgeConfig(kind string, argv []string, guessed, smoke bool) judge.Config {
	return judge.Config{Server: kind, Argv: argv, URLGuessed: guessed, Smoke: smoke}
}

// signalNumber is the number of a signal named as launch names them.
func signalNumber(name string) int {
	if name == "" {
		return 0
	}
	for n := 1; n < 65; n++ {
		if launch.SignalName(syscall.Signal(n)) == name {
			return n
		}
	}
	return 0
}

func unwrapNetErr(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

// boardSink shows the startup and writes the facts the notifier and the
// probes read.
type boardSink struct {
	render.Renderer
	board *facts.Board
	last  time.Time // the latest progress told to the board
}

func (s *boardSink) Event(e observe.Event, st render.Status) {
	switch d := e.Data.(type) {
	case observe.ServerSeen:
		s.board.SetServer(d.Server)
	case observe.PhaseChange:
		s.board.Phase(v.Phase(d.Phase), e.At)
	case observe.Progress:
		text := d.Desc
		if d.Total > 0 {
			text = fmt.Sprintf("%s %d/%d", d.Desc, d.Done, d.Total)
		}
		s.board.Progress(text, e.At)
	case observe.HealthChange:
		s.board.Health(string(d.State), d.State == observe.HealthOK, e.At)
	}
	s.Renderer.Event(e, st)
}

// progressed runs in the judge's goroutine after each step.
func (s *boardSink) progressed(at time.Time) {
	if at.After(s.last) {
		s.last = at
		s.board.Progressed(at)
	}
}

// lifeSink writes the facts after ready.
type lifeSink struct {
	r     render.Renderer
	board *facts.Board
}

func (s lifeSink) Health(h observe.Health, at time.Time) {
	s.board.Health(string(h.State), h.State == observe.HealthOK, at)
	s.r.Note(at, "health: %s", h.State)
}

func (s lifeSink) Note(at time.Time, format string, a ...any) { s.r.Note(at, format, a...) }

// reportLife tells how the server's life after ready ended: a line and
// its evidence on stderr, and with --json a "life" event on stdout.
func reportLife(env *Env, asJSON bool, end *life.End, readyAt time.Time) {
	after := end.At.Sub(readyAt).Round(time.Second)
	w := env.IO.ErrOut
	switch end.How {
	case life.Stopped:
		fmt.Fprintf(w, "vigil: %s (%s after ready)\n", termsafe.String(end.Summary), after)
	default:
		fmt.Fprintf(w, "vigil: the server %s %s after ready: %s: %s\n", end.How, after, end.Cause, termsafe.String(end.Summary))
		for _, l := range end.Evidence {
			fmt.Fprintf(w, "  | %s\n", termsafe.String(l))
		}
	}
	if !asJSON {
		return
	}
	ev := map[string]any{
		"event": "life", "t": end.At.UTC().Format(time.RFC3339Nano),
		"how": end.How, "cause": string(end.Cause), "summary": end.Summary,
		"evidence": append([]string{}, end.Evidence...), "after_ready_s": end.At.Sub(readyAt).Seconds(),
	}
	b, _ := json.Marshal(ev)
	fmt.Fprintf(env.IO.Out, "%s\n", b)
}
