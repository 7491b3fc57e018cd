// Package monitor watches one server's startup to its verdict. It runs the
// sources (the log or journal follower, the health prober with its
// port-holder check, the activity and GPU samplers, the disk watcher, the
// liveness check), the session goroutine that owns the judge, and gathers
// the evidence a verdict needs once it is reached (where a stalled server
// waits, what survived the stop, a full disk).
//
// Every goroutine runs under one errgroup and is joined before Run returns.
// Run never decides how the command ends: the caller maps the result to
// history, output and exit codes.
package monitor

import (
	"context"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"vigil/internal/follow"
	"vigil/internal/gpu"
	"vigil/internal/journal"
	"vigil/internal/judge"
	"vigil/internal/launch"
	"vigil/internal/logcopy"
	"vigil/internal/logline"
	"vigil/internal/observe"
	"vigil/internal/oomkill"
	"vigil/internal/procfind"
	"vigil/internal/procstat"
	"vigil/internal/render"
	v "vigil/internal/verdict"
)

// Process is a server vigil launched: its end and exit status.
type Process interface {
	Done() <-chan struct{}
	Exit() observe.Exit
}

// Unit is a systemd unit whose journal is the server's output.
type Unit struct {
	Name string
	User bool
	Info journal.Info
}

// Spec is one startup to judge.
type Spec struct {
	// Judge configures the judge; Start is when the startup began.
	Judge judge.Config
	Start time.Time
	// PID is the server's main process (0: unknown). Proc is set when vigil
	// launched it, and then its exit status is known.
	PID  int
	Proc Process
	// Daemon, when set, is asked for the server's daemon when the process
	// followed as the server (Proc, or a daemon before) exits 0: a server
	// that daemonizes is followed to the daemon, which is the server from
	// then on (launch.Process.FollowDaemon).
	Daemon func() (*launch.Daemon, bool)
	// Identity, when set, is the attached process's identity: it is alive
	// while procfind.Still says so, so a reused PID is not the server.
	Identity *procfind.Identity
	// Log is the server's log file, read from Offset; WaitForFile allows
	// it not to exist yet. Unit replaces the log with a journal.
	Log         string
	Offset      int64
	WaitForFile bool
	Unit        *Unit
	// Backlog, when set, is what the log already held of this run when
	// vigil attached (ReadBacklog): its lines are judged at their stamps'
	// times, and the startup began at the first of them if that is before
	// Start.
	Backlog *Backlog
	// URL is the server's base URL; its kind's health path is probed.
	URL string
	// AwaitAddress: URL is only a default (the server was told to take
	// any port, --port 0), so nothing is probed until the server prints
	// the address it got, and then that address is.
	AwaitAddress bool
	// APIKey is sent with the health probes (servers started with a key
	// may refuse /health without it).
	APIKey string
	// HFHome is the Hugging Face home whose download cache growing counts
	// as activity.
	HFHome string
	// Notes are shown first, in order. Later computes more while the
	// server starts (checks that must not delay the launch).
	Notes []string
	Later func() []string
	// Smoke sends the generation request to the server at base once the
	// judge asks for it.
	Smoke func(ctx context.Context, server, base string) observe.SmokeResult
	// Progressed, when set, is told after every step of the judge when the
	// latest sign of progress came (a supervisor's start deadline follows
	// it).
	Progressed func(at time.Time)
	// Stop, when set, stops the server after a verdict other than ready;
	// the processes that outlive it are named in the evidence.
	Stop func()
	// Output, when set, is the copier that carries a launched server's
	// output into Log (launch.Process): synced before an exit is judged,
	// and asked what a full disk took.
	Output Output
}

// Output is how a launched server's output reaches its log.
type Output interface {
	// SyncOutput returns once all the server wrote before the call is in
	// the log, or ctx ends.
	SyncOutput(ctx context.Context)
	// Output waits up to wait for the last of the output and says what
	// the log refused; ok is false when nothing is counted.
	Output(wait time.Duration) (st logcopy.State, ok bool)
}

// Deps are the monitor's ways into the world, injected so tests can fake
// them.
type Deps struct {
	// Now is the one clock of the session (nil: time.Now).
	Now func() time.Time
	// Proc reads /proc for the activity sampler, the port holder and the
	// evidence; Procs for liveness and command lines.
	Proc  procstat.FS
	Procs procfind.FS
	// GPU is the nvidia-smi client (nil: no GPU sampling or evidence).
	GPU *gpu.Client
	// Transport carries the health probes (nil: a fresh one without
	// keep-alives or proxies).
	Transport http.RoundTripper
	// OOMRecord searches the kernel's log for the OOM-killer record of a
	// process (nil: the log is never read, as if unreadable).
	OOMRecord func(ctx context.Context, p oomkill.Proc) oomkill.Result
	// PollOnly follows the log by polling alone, without fsnotify (whose
	// reader blocks in a system call, which a synctest bubble cannot wait
	// out).
	PollOnly bool
}

// Sink shows the session as it runs. render.Renderer is one.
type Sink interface {
	Event(observe.Event, render.Status)
	Note(at time.Time, format string, a ...any)
	Tick(render.Status)
}

// Outcome is the verdict and the session's state when it came.
type Outcome struct {
	Result *observe.Result
	Status render.Status
	// Offset is how far into the log the lines handed to the judge reach:
	// where judging the server's life after ready ([Follow]) reads on.
	Offset int64
	// Start is when the judged startup began: Spec.Start, or the first
	// stamp of the Backlog when that is earlier.
	Start time.Time
	// URL is the base URL probed at the end: Spec.URL, or where the
	// server said it listens when Spec.URL was a guess that differs.
	URL string
}

// DefaultOOMRecord searches the kernel's log for the OOM-killer record of
// p, briefly: a kernel log that cannot be read is no record, never a delay.
func DefaultOOMRecord(ctx context.Context, p oomkill.Proc) oomkill.Result {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return oomkill.Finder{}.Search(ctx, p)
}

// monitor is one Run's shared state.
type monitor struct {
	spec Spec
	deps Deps
	sink Sink
	j    *judge.Judge

	lines    chan []logline.Line // batches: the lines of one read of the log
	health   chan observe.Health
	activity chan observe.Activity
	exit     chan observe.Exit
	notes    chan string
	nudge    chan struct{} // the session asks the prober for a probe now
	// retarget hands the prober the base URL the server said it listens
	// at; url is the base URL probed now (nil: Spec.URL).
	retarget chan string
	url      atomic.Pointer[string]

	// follower reads the log file (nil: no file); logDone is closed when
	// it has returned, every line it read handed to the session.
	follower *follow.Follower
	logDone  chan struct{}
	// emitted is how far into the log the lines handed to the session
	// reach: where judging the life after ready reads on.
	emitted atomic.Int64

	rss  atomic.Int64 // the tree's resident memory at the last sample
	seen seenProcs

	// server is the PID of the daemon the server left when it daemonized
	// (0: none, the server is spec.PID); moved says that it changed.
	server atomic.Int64
	moved  chan struct{}
}

// serverPID is the server's main process now (0: unknown).
func (m *monitor) serverPID() int {
	if pid := m.server.Load(); pid != 0 {
		return int(pid)
	}
	return m.spec.PID
}

// Run judges the startup until a verdict or ctx ends, then gathers the
// verdict's evidence. Every goroutine it starts has ended when it returns.
// With ctx cancelled before a verdict it returns ctx's error and stops
// nothing.
func Run(ctx context.Context, spec Spec, deps Deps, sink Sink) (Outcome, error) {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	start, jcfg := spec.Start, spec.Judge
	if b := spec.Backlog.Start(); !b.IsZero() && b.Before(start) {
		start, jcfg.Attached = b, spec.Start
	}
	m := &monitor{
		spec: spec, deps: deps, sink: sink,
		j:        judge.New(jcfg, start),
		lines:    make(chan []logline.Line, lineBatches),
		health:   make(chan observe.Health, 16),
		activity: make(chan observe.Activity, 16),
		exit:     make(chan observe.Exit, 1),
		notes:    make(chan string, 16),
		nudge:    make(chan struct{}, 1),
		retarget: make(chan string, 1),
		logDone:  make(chan struct{}),
		moved:    make(chan struct{}, 1),
	}
	m.emitted.Store(spec.Offset)
	m.noteStart()
	if deps.GPU != nil {
		// An nvidia-smi still running when vigil exits would outlive it.
		defer deps.GPU.Wait(2 * time.Second)
	}

	srcCtx, stopSources := context.WithCancel(ctx)
	defer stopSources()
	g, gctx := errgroup.WithContext(srcCtx)
	m.startSources(g, gctx)
	res, err := m.session().Run(ctx)
	stopSources()
	_ = g.Wait() // sources return no errors; this joins them
	if err != nil {
		return Outcome{}, err
	}
	m.evidence(res)
	return Outcome{Result: res, Status: m.status(m.deps.Now()), Offset: m.emitted.Load(), Start: start, URL: m.baseURL()}, nil
}

func (m *monitor) startSources(g *errgroup.Group, ctx context.Context) {
	s := m.spec
	g.Go(func() error { m.queueNotes(ctx, s.Notes); return nil })
	if s.Later != nil {
		g.Go(func() error { m.queueNotes(ctx, s.Later()); return nil })
	}
	if s.Unit != nil {
		g.Go(func() error { m.followJournal(ctx, *s.Unit); return nil })
	} else if s.Log != "" {
		m.follower = m.newFollower()
		g.Go(func() error { m.followLog(ctx); return nil })
		g.Go(func() error { m.watchDisk(ctx); return nil })
	}
	if s.URL != "" {
		g.Go(func() error { m.probeHealth(ctx); return nil })
	}
	if s.PID > 0 {
		g.Go(func() error { m.sampleServer(ctx); return nil })
		if m.deps.GPU != nil {
			g.Go(func() error { m.sampleGPU(ctx); return nil })
		}
	}
	switch {
	case s.Proc != nil:
		g.Go(func() error { m.watchExit(ctx); return nil })
	case s.PID > 0:
		g.Go(func() error { m.watchAlive(ctx); return nil })
	}
}

func (m *monitor) session() *Session {
	return &Session{
		Judge: m.j, Now: m.deps.Now, Backlog: m.spec.Backlog,
		Lines: m.lines, Health: m.health, Activity: m.activity, Exit: m.exit, Notes: m.notes,
		OnNote: func(at time.Time, msg string) { m.sink.Note(at, "%s", msg) },
		Sink:   func(e observe.Event) { m.sink.Event(e, m.status(e.At)) },
		OnTick: func(now time.Time) {
			if m.spec.Progressed != nil {
				m.spec.Progressed(m.j.LastProgress())
			}
			m.sink.Tick(m.status(now))
		},
		Smoke:  m.smoke(),
		Nudge:  m.nudge,
		Listen: m.listenAt,
	}
}

// baseURL is the server's base URL probed now.
func (m *monitor) baseURL() string {
	if u := m.url.Load(); u != nil {
		return *u
	}
	return m.spec.URL
}

func (m *monitor) smoke() func(context.Context, string) observe.SmokeResult {
	if m.spec.Smoke == nil {
		return nil
	}
	return func(ctx context.Context, server string) observe.SmokeResult {
		return m.spec.Smoke(ctx, server, m.baseURL())
	}
}

// listenAt is told the address the server said it listens at, when the
// URL probed was a guess (again for each new run of a watched log). When
// that is elsewhere, the prober and the smoke request go there from now
// on, and the note returned says so.
func (m *monitor) listenAt(base string) (note string) {
	if u, err := url.Parse(base); err == nil && u.Port() == "0" {
		return "" // the port it was given, not the one it got (vLLM's --port 0)
	}
	was := m.baseURL()
	first := m.url.Load() == nil
	if was == "" || sameAddress(base, was) && !(first && m.spec.AwaitAddress) {
		return ""
	}
	base = withPathOf(base, was)
	m.url.Store(&base)
	select {
	case <-m.retarget: // not taken yet: this one replaces it
	default:
	}
	m.retarget <- base
	switch {
	case first && m.spec.AwaitAddress:
		return "the server listens at " + base + " (it was told to take any port): probing there"
	case first:
		return "the server listens at " + base + ", not at the guessed " + was + ": probing there"
	}
	return "the server now listens at " + base + ", no longer at " + was + ": probing there"
}

func (m *monitor) status(now time.Time) render.Status {
	timeout, stall, last := m.j.Budget()
	return render.Status{Now: now, Server: m.j.Server(), Phase: m.j.Phase(), Progress: m.j.Progress(),
		Health: m.j.HealthNow(), LastLine: m.j.LastLine(), Activity: m.j.ActivityText(),
		Timeout: timeout, StallAfter: stall, LastProgress: last}
}

// queueNotes hands remarks to the session, which shows them in order.
func (m *monitor) queueNotes(ctx context.Context, notes []string) {
	for _, n := range notes {
		select {
		case m.notes <- n:
		case <-ctx.Done():
			return
		}
	}
}

// note hands a remark over unless the session is busy: a remark is never
// worth blocking a source.
func (m *monitor) note(msg string) {
	select {
	case m.notes <- msg:
	default:
	}
}

// evidence adds what the verdict needs from outside the log, in the order
// it must be gathered: where a stalled server waits before anything is
// stopped, what outlives the stop, a full disk.
func (m *monitor) evidence(res *observe.Result) {
	m.diagnoseStall(res)
	if res.Verdict != v.Ready && m.spec.Stop != nil {
		// Also when the leader has exited: workers of its group may linger
		// and hold the GPUs or the port.
		m.sink.Note(m.deps.Now(), "stopping the server's process group (pid %d)", m.serverPID())
		m.spec.Stop()
		for _, s := range m.survivors() {
			m.sink.Note(m.deps.Now(), "%s", s)
			res.Evidence = append(res.Evidence, "[vigil] "+s)
		}
	}
	if res.Verdict != v.Ready && m.spec.Log != "" && m.spec.Unit == nil {
		loss := m.outputLoss(outputSettle)
		if full, msg := logDiskFull(m.spec.Log, loss); full {
			res.Evidence = append(res.Evidence, "[vigil] "+msg)
			res.Evidence = append(res.Evidence, refusedEvidence(loss)...)
		}
	}
}
