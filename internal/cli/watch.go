package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/classify"
	"vigil/internal/explain"
	"vigil/internal/journal"
	"vigil/internal/judge"
	"vigil/internal/launch"
	"vigil/internal/logline"
	"vigil/internal/observe"
	"vigil/internal/procfind"
	"vigil/internal/procstat"
	"vigil/internal/render"
	"vigil/internal/runstart"
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

Exit status: 0 ready, 1 failed, 2 usage error, 3 stalled, 124 timeout.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWatch(cmd.Context(), env, opts)
		},
	}
	opts.register(cmd.Flags())
	cmd.Flags().StringVar(&opts.log, "log", "", "the server's log file (it may not exist yet)")
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
	if opts.pid == 0 && opts.log != "" {
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
		argv = cmdline(opts.pid)
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
	if opts.pid == 0 {
		notes = append(notes, "no server process found: judging from the log and the health endpoint alone")
	}
	source := opts.log
	if opts.unit != "" {
		source = "journal of " + opts.unit
	}
	info := render.Info{Mode: "watch", PID: opts.pid, LogFile: source, URL: base, Argv: argv, Start: start}
	model := modelFromArgv(argv)
	hist := openStartupHistory(env, &opts.judgeFlags, kind, model)
	cfg := hist.judgeConfig(&opts.judgeFlags, judge.Config{Server: kind, Argv: argv, URLGuessed: guessed, Smoke: opts.smoke})
	j := newJudging(env, &opts.judgeFlags, info, cfg)
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

	srcCtx, stopSources := context.WithCancel(ctx)
	defer stopSources()
	var emitted atomic.Int64
	if opts.unit != "" {
		go j.followJournal(srcCtx, opts.unit, opts.user, unitInfo)
	} else {
		offset, note := findRunStart(opts.log, kind, opts.pid)
		if note != "" {
			notes = append(notes, note)
		}
		go j.followLog(srcCtx, opts.log, offset, true, &emitted)
		go j.watchDisk(srcCtx, opts.log)
	}
	go j.probeHealth(srcCtx, base, kind, opts.pid)
	if opts.pid > 0 {
		go j.sampleActivity(srcCtx, opts.pid, procstat.DefaultHFHome(env.Getenv))
		go j.sampleGPU(srcCtx)
		go j.watchAlive(srcCtx, opts.pid, opts.log, &emitted)
	}
	go func() {
		for _, n := range notes {
			select {
			case j.notes <- n:
			case <-srcCtx.Done():
			}
		}
	}()
	// An nvidia-smi still running when vigil exits would outlive it.
	defer gpuClient.Wait(2 * time.Second)
	res, err := j.run(ctx, base)
	stopSources()
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(env.IO.ErrOut, "vigil: interrupted; the server was left as it is")
			return &ExitError{Code: 130}
		}
		return err
	}
	diagnoseStall(res, opts.pid)
	if opts.log != "" {
		addDiskEvidence(res, opts.log)
	}
	j.finish(res, hist, model)
	return verdictExit(res)
}

// findRunStart decides where this run begins in the existing log and says
// what it skipped.
func findRunStart(path, kind string, pid int) (int64, string) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "" // not there yet: everything that comes is this run's
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return 0, ""
	}
	in := runstart.Input{Kind: kind, ModTime: fi.ModTime(), Size: fi.Size()}
	if pid > 0 {
		if t, err := procfind.StartTime(pid); err == nil {
			in.ProcStart = t
		}
	}
	found, err := runstart.Find(f, in)
	if err != nil || found.Offset == 0 {
		return 0, ""
	}
	note := fmt.Sprintf("ignored %d lines from an earlier run", found.StaleLines)
	if !found.StaleEnd.IsZero() {
		note += " that ended " + found.StaleEnd.Format("15:04:05")
	}
	// How the earlier run ended is what explain says of it.
	var last *explain.Run
	_ = explain.Read(io.NewSectionReader(f, 0, found.Offset), explain.Options{Server: kind, Workers: 1}, func(r *explain.Run) { last = r })
	switch {
	case last == nil:
	case last.Verdict == "failed":
		note += " with " + string(last.Cause)
	case last.Verdict == "ready":
		note += " ready"
	case last.Phase != "":
		note += " in phase " + string(last.Phase)
	}
	note += " (" + found.How + ")"
	return found.Offset, note
}

// watchAlive reports the server's end. A process vigil did not start has no
// exit status to read, only its disappearance.
func (j *judging) watchAlive(ctx context.Context, pid int, logPath string, emitted *atomic.Int64) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if procfind.Exists(pid) {
			continue
		}
		e, known := zombieExit(pid)
		if !known {
			e = observe.Exit{Gone: true}
		}
		if logPath != "" {
			waitLogDrained(logPath, emitted)
		} else {
			time.Sleep(300 * time.Millisecond) // let the journal catch up
		}
		if e.Signal == "SIGKILL" || e.Gone {
			e.OOMRecord = findOOMRecord(pid)
		}
		if e.Signal == "SIGKILL" {
			e.Memory = memoryPressure(j.rss.bytes.Load())
		}
		select {
		case j.exit <- e:
		case <-ctx.Done():
		}
		return
	}
}

// followJournal feeds the unit's current activation from the journal.
func (j *judging) followJournal(ctx context.Context, unit string, user bool, info journal.Info) {
	var lines journal.Lines
	opts := journal.Options{User: user, Since: info.Start(), InvocationID: info.InvocationID}
	err := journal.Follow(ctx, unit, opts, func(e journal.Entry) {
		lines.Write(e, func(l logline.Line) {
			select {
			case j.lines <- l:
			case <-ctx.Done():
			}
		})
	})
	if err != nil && ctx.Err() == nil {
		select {
		case j.notes <- "journalctl: " + err.Error():
		default:
		}
	}
}

// cmdline is the process's command line, or nil.
func cmdline(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// zombieExit reads how a process that has died but not yet been reaped by
// its parent ended: /proc/PID/stat keeps its wait status (field 52) while
// it is a zombie. ok is false when the process is gone for good.
func zombieExit(pid int) (observe.Exit, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return observe.Exit{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return observe.Exit{}, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); field 52 is f[49].
	if len(f) < 50 || f[0] != "Z" {
		return observe.Exit{}, false
	}
	status, err := strconv.Atoi(f[49])
	if err != nil {
		return observe.Exit{}, false
	}
	ws := syscall.WaitStatus(status)
	if ws.Signaled() {
		return observe.Exit{Signal: launch.SignalName(ws.Signal())}, true
	}
	return observe.Exit{Code: ws.ExitStatus()}, true
}
