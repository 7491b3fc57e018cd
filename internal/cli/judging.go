package cli

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"vigil/internal/classify"
	"vigil/internal/follow"
	"vigil/internal/health"
	"vigil/internal/judge"
	"vigil/internal/logline"
	"vigil/internal/observe"
	"vigil/internal/procstat"
	"vigil/internal/render"
	"vigil/internal/session"
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
	expect     []string
	expectFile string
	noHistory  bool

	expects []srvconfig.Expect
}

func (f *judgeFlags) register(fs *pflag.FlagSet) {
	f.timeout, f.stallAfter = window{auto: true}, window{auto: true}
	fs.StringVar(&f.url, "url", "", "the server's base URL (default: --host/--port in COMMAND, else the server kind's default port on 127.0.0.1)")
	fs.StringVar(&f.server, "server", "auto", "server kind: sglang, vllm, trtllm, llamacpp, tgi or auto")
	fs.Var(&f.timeout, "timeout", "the whole startup's budget, or auto: learned from past startups of this model and config, else 60m")
	fs.Var(&f.stallAfter, "stall-after", "how long without any sign of progress (log, CPU, disk, download) counts as stalled, or auto: learned, else 5m")
	fs.BoolVar(&f.smoke, "smoke", false, "once ready, send one real generation request and judge its answer")
	fs.BoolVar(&f.json, "json", false, "print NDJSON events on stdout (human output goes to stderr)")
	fs.StringArrayVar(&f.expect, "expect", nil, "KEY=VALUE the server's printed configuration must show (repeatable), e.g. quantization=fp8, tp=4")
	fs.StringVar(&f.expectFile, "expect-file", "", "a file of KEY=VALUE expectations, one per line")
	fs.BoolVar(&f.noHistory, "no-history", false, "neither read nor record the startup history")
}

func (f *judgeFlags) validate() error {
	if f.server != "auto" {
		if _, ok := classify.Profiles[f.server]; !ok {
			return Usagef("--server %q: want one of sglang, vllm, trtllm, llamacpp, tgi, auto", f.server)
		}
	}
	if f.url != "" {
		if _, err := parseBaseURL(f.url); err != nil {
			return Usagef("--url %q: %v", f.url, err)
		}
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

// parseBaseURL accepts http(s)://host[:port][/prefix].
func parseBaseURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("want an http:// or https:// URL")
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("no host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("bad port %q", p)
		}
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("a base URL has no query or fragment")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// guessURL finds the server's URL in its command line: --host/--port (TGI:
// --hostname, llama.cpp: --host/--port too), else the kind's default port.
// Wildcard addresses become 127.0.0.1.
func guessURL(kind string, argv []string) string {
	host, port := "127.0.0.1", 0
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		name, val, hasVal := strings.Cut(a, "=")
		if !hasVal && i+1 < len(argv) {
			val = argv[i+1]
		}
		switch name {
		case "--host", "--hostname":
			if val != "" && val != "0.0.0.0" && val != "::" && val != "[::]" {
				host = val
			}
		case "--port":
			if n, err := strconv.Atoi(val); err == nil {
				port = n
			}
		}
	}
	if port == 0 {
		port = classify.Lookup(kind).DefaultPort
		if port == 0 {
			port = 8000
		}
	}
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("http://%s:%d", host, port)
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

// judging is one session being judged, whatever its sources.
type judging struct {
	env      *Env
	flags    *judgeFlags
	info     render.Info
	judge    *judge.Judge
	renderer render.Renderer
	lines    chan logline.Line
	healthCh chan observe.Health
	activity chan observe.Activity
	exit     chan observe.Exit
	notes    chan string
	rss      treeRSS
	seen     seenProcs
	// extras are results attached to the verdict and the history (smoke,
	// bench), by name. Written only in the session goroutine or after it.
	extras map[string]any
}

func newJudging(env *Env, flags *judgeFlags, info render.Info, cfg judge.Config) *judging {
	j := &judging{
		env: env, flags: flags, info: info,
		judge:    judge.New(cfg, info.Start),
		lines:    make(chan logline.Line, 4096),
		healthCh: make(chan observe.Health, 16),
		activity: make(chan observe.Activity, 16),
		exit:     make(chan observe.Exit, 1),
		notes:    make(chan string, 16),
		extras:   map[string]any{},
	}
	j.info.Server = j.judge.Server()
	j.renderer = pickRenderer(env, flags.json)
	return j
}

// pickRenderer: NDJSON on stdout with --json, a live view on a terminal,
// plain lines otherwise. Human output always goes to stderr.
func pickRenderer(env *Env, asJSON bool) render.Renderer {
	if asJSON {
		return &jsonAndSummary{JSON: render.JSON{W: env.IO.Out}, errOut: env.IO.ErrOut}
	}
	if env.IO.IsStderrTTY && env.Getenv("TERM") != "dumb" {
		w := 100
		if f, ok := env.IO.ErrOut.(*os.File); ok {
			if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
				w = cols
			}
		}
		return &render.Live{W: env.IO.ErrOut, Width: w}
	}
	return &render.Plain{W: env.IO.ErrOut}
}

// jsonAndSummary writes events to stdout and the person's summary to stderr.
type jsonAndSummary struct {
	render.JSON
	errOut interface{ Write([]byte) (int, error) }
	info   render.Info
}

func (r *jsonAndSummary) Begin(info render.Info) { r.info = info; r.JSON.Begin(info) }
func (r *jsonAndSummary) End(res *observe.Result, st render.Status) {
	r.JSON.End(res, st)
	render.Summary(r.errOut, res, r.info)
}

func (j *judging) status(now time.Time) render.Status {
	return render.Status{Now: now, Server: j.judge.Server(), Phase: j.judge.Phase(), Progress: j.judge.Progress(),
		Health: j.judge.HealthNow(), LastLine: j.judge.LastLine(), Activity: j.judge.ActivityText()}
}

// followLog feeds the log file from offset into the session and records
// in emitted how far into the file the delivered lines reach.
func (j *judging) followLog(ctx context.Context, path string, offset int64, wait bool, emitted *atomic.Int64) {
	f := follow.New(path, follow.Options{Offset: offset, Poll: 100 * time.Millisecond, WaitForFile: wait,
		OnEvent: func(e follow.Event) {
			select {
			case j.notes <- e.Msg:
			default:
			}
		}})
	_ = f.Run(ctx, func(l logline.Line) {
		select {
		case j.lines <- l:
		case <-ctx.Done():
			return
		}
		if !l.Partial {
			emitted.Store(l.Offset + int64(len(l.Text)) + l.Cut)
		}
	})
}

// sampleOffset delays the first activity sample against the health
// prober's ticks (see sampleActivity).
const sampleOffset = 125 * time.Millisecond

// sampleActivity reports whether the process tree under pid works.
func (j *judging) sampleActivity(ctx context.Context, pid int, hfHome string) {
	s := procstat.NewSampler(procstat.FS{}, pid)
	var prevCache procstat.CacheSample
	havePrev, wasRunnable := false, false
	// The health prober runs every 250 ms from about the same moment; a
	// sample taken as a probe is being answered would catch the server's
	// HTTP thread at work. Sampling a little off the probes' beat keeps
	// an idle hang that answers probes idle.
	select {
	case <-ctx.Done():
		return
	case <-time.After(sampleOffset):
	}
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cur, d, err := s.Next()
		if err == nil {
			j.rss.bytes.Store(cur.Total.RSS)
			j.seen.add(cur.Procs)
		}
		a := observe.Activity{}
		var parts []string
		if err == nil && d.Interval > 0 {
			// A spinning step on a crowded machine may get little CPU; any
			// steady use at all is work, an idle hang uses none.
			// A thread that is runnable (state R) but got no CPU on a
			// crowded machine is trying to work: not a hang either.
			// It must be runnable in two samples in a row, though: a
			// thread woken for a moment (to answer a probe) is no work.
			runnable := d.Threads.Running > 0
			a.Busy = d.Busy() || d.CPU >= 0.05 || runnable && wasRunnable
			wasRunnable = runnable
			if a.Busy {
				parts = append(parts, d.Activity()...)
				if len(parts) == 0 {
					parts = append(parts, fmt.Sprintf("cpu %.2f cores, %d runnable threads", d.CPU, d.Threads.Running))
				}
			}
		}
		if cache, err := procstat.HFCache(hfHome); err == nil {
			if havePrev && cache.Downloading(prevCache) {
				a.Busy = true
				parts = append(parts, fmt.Sprintf("download cache growing %s/s", procstat.FormatBytes(int64(cache.Growth(prevCache)))))
			}
			prevCache, havePrev = cache, true
		}
		a.Detail = strings.Join(parts, ", ")
		select {
		case j.activity <- a:
		default:
		}
	}
}

// probeHealth polls the health endpoint of the server kind known at the
// start (every kind's is /health today). It must not ask the judge, which
// belongs to the session goroutine.
//
// With the server's pid (0: unknown), a 200 from a local port is checked
// once: when the listening socket is held outside the server's process
// tree by another inference server (an earlier one still on the port),
// its answers are HealthForeign and a note names it, until the server's
// own tree holds the port. Any other holder (docker-proxy, a port
// forward) or one that cannot be told leaves the answers as they are.
func (j *judging) probeHealth(ctx context.Context, base, kind string, pid int) {
	path := classify.Lookup(kind).HealthPath
	if path == "" {
		path = "/health"
	}
	port, local := localPort(base)
	if !local || pid <= 0 {
		health.New(base, path).Run(ctx, j.healthCh)
		return
	}
	probes := make(chan observe.Health, 1)
	go health.New(base, path).Run(ctx, probes)
	fsys := procstat.FS{}
	checked, foreign := false, false
	for {
		var h observe.Health
		select {
		case <-ctx.Done():
			return
		case h = <-probes:
		}
		if h.State == observe.HealthOK && (!checked || foreign) {
			tree, err := fsys.Tree(pid)
			held := procstat.HolderUnknown
			if err == nil {
				held = fsys.PortHolder(port, tree)
			}
			switch {
			case held != procstat.HolderOther:
				foreign = false
			case !checked:
				if other := fsys.PortListener(port, tree); other > 0 && classify.DetectCommand(cmdline(other)) != "" {
					foreign = true
					select {
					case j.notes <- fmt.Sprintf("port %d answers 200 but is held by another server, pid %d (%s): its answers do not count", port, other, cmdlineText(other)):
					default:
					}
				}
			}
			checked = true
			if foreign {
				h.State = observe.HealthForeign
			}
		}
		select {
		case j.healthCh <- h:
		default:
		}
	}
}

// localPort returns the port of a base URL on this host (loopback, the
// unspecified address, or an address of one of its interfaces).
func localPort(base string) (int, bool) {
	u, err := url.Parse(base)
	if err != nil {
		return 0, false
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		switch u.Scheme {
		case "http":
			port = 80
		case "https":
			port = 443
		default:
			return 0, false
		}
	}
	host := u.Hostname()
	if host == "localhost" {
		return port, true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return 0, false
	}
	if ip.IsLoopback() || ip.IsUnspecified() {
		return port, true
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return port, true
		}
	}
	return 0, false
}

// run drives the session until a verdict or ctx ends.
func (j *judging) run(ctx context.Context, base string) (*observe.Result, error) {
	j.renderer.Begin(j.info)
	s := &session.Session{
		Judge: j.judge, Now: time.Now,
		Lines: j.lines, Health: j.healthCh, Activity: j.activity, Exit: j.exit, Notes: j.notes,
		OnNote: func(at time.Time, msg string) { j.renderer.Note(at, "%s", msg) },
		Sink: func(e observe.Event) {
			if d, ok := e.Data.(observe.ServerSeen); ok {
				j.info.Server = d.Server
			}
			j.renderer.Event(e, j.status(e.At))
		},
		OnTick: func(now time.Time) { j.renderer.Tick(j.status(now)) },
		Smoke: func(ctx context.Context, server string) observe.SmokeResult {
			r := smokeCheck(ctx, base, server, apiKey(j.env))
			j.extras["smoke"] = map[string]any{"ok": r.OK, "reason": r.Reason, "endpoint": r.Endpoint, "answer": r.Answer, "latency_ms": r.Latency.Milliseconds()}
			return r
		},
	}
	return s.Run(ctx)
}

func apiKey(env *Env) string {
	for _, k := range []string{"VIGIL_API_KEY", "OPENAI_API_KEY"} {
		if s := env.Getenv(k); s != "" {
			return s
		}
	}
	return ""
}

// queueNotes hands remarks to the session, which shows them in order.
func (j *judging) queueNotes(notes []string) {
	go func() {
		for _, n := range notes {
			j.notes <- n
		}
	}()
}

// finish records the startup in the history and shows the verdict.
func (j *judging) finish(res *observe.Result, hist *startupHistory, model string) {
	st := j.status(time.Now())
	id, warn := hist.record(res, j.info, model, j.extras)
	if warn != "" {
		j.renderer.Note(time.Now(), "%s", warn)
	}
	st.HistoryID = id
	st.Extras = j.extras
	j.renderer.End(res, st)
}

// waitLogDrained waits until the lines delivered to the judge reach the
// log's current end, so that a server's exit is judged after the output it
// wrote before dying. Bounded: a log that cannot be read to its end (a full
// disk, a huge backlog) must not hold the verdict for long.
func waitLogDrained(path string, emitted *atomic.Int64) {
	size := fileSize(path)
	deadline := time.Now().Add(2 * time.Second)
	// A line's end offset leaves out its terminator ("\n" or "\r\n").
	for emitted.Load() < size-2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}
