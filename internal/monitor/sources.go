package monitor

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"vigil/internal/classify"
	"vigil/internal/follow"
	"vigil/internal/health"
	"vigil/internal/journal"
	"vigil/internal/launch"
	"vigil/internal/logline"
	"vigil/internal/observe"
	"vigil/internal/procstat"
)

// followLog feeds the log file from the spec's offset into the session and
// records how far into the file the delivered lines reach.
func (m *monitor) followLog(ctx context.Context) {
	f := follow.New(m.spec.Log, follow.Options{Offset: m.spec.Offset, Poll: 100 * time.Millisecond, WaitForFile: m.spec.WaitForFile, PollOnly: m.deps.PollOnly,
		OnEvent: func(e follow.Event) { m.note(e.Msg) }})
	_ = f.Run(ctx, func(l logline.Line) {
		select {
		case m.lines <- l:
		case <-ctx.Done():
			return
		}
		if !l.Partial {
			m.emitted.Store(l.Offset + int64(len(l.Text)) + l.Cut)
			select {
			case m.drained <- struct{}{}:
			default:
			}
		}
	})
}

// followJournal feeds the unit's current activation from the journal.
func (m *monitor) followJournal(ctx context.Context, u Unit) {
	var lines journal.Lines
	opts := journal.Options{User: u.User, Since: u.Info.Start(), InvocationID: u.Info.InvocationID}
	err := journal.Follow(ctx, u.Name, opts, func(e journal.Entry) {
		lines.Write(e, func(l logline.Line) {
			select {
			case m.lines <- l:
			case <-ctx.Done():
			}
		})
	})
	if err != nil && ctx.Err() == nil {
		m.note("journalctl: " + err.Error())
	}
}

// drainBound is how long an exit waits for the log to be read to its end:
// a log that cannot be (a full disk, a huge backlog) must not hold the
// verdict for long.
const drainBound = 2 * time.Second

// waitLogDrained waits until the lines delivered to the judge reach the
// log's current end, so that a server's exit is judged after the output it
// wrote before dying. Without a log file (a journal) it gives the journal
// a moment to catch up.
func (m *monitor) waitLogDrained(ctx context.Context) {
	if m.spec.Log == "" || m.spec.Unit != nil {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
		}
		return
	}
	size := fileSize(m.spec.Log)
	deadline := time.NewTimer(drainBound)
	defer deadline.Stop()
	// A line's end offset leaves out its terminator ("\n" or "\r\n").
	for m.emitted.Load() < size-2 {
		select {
		case <-m.drained:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// watchExit reports the end of a server vigil launched, once its last
// output is judged.
func (m *monitor) watchExit(ctx context.Context) {
	select {
	case <-m.spec.Proc.Done():
	case <-ctx.Done():
		return
	}
	m.waitLogDrained(ctx)
	e := m.spec.Proc.Exit()
	if e.Signal == "SIGKILL" {
		e.OOMRecord = m.oomRecord(ctx)
		e.Memory = m.memoryPressure()
	}
	select {
	case m.exit <- e:
	case <-ctx.Done():
	}
}

// alivePoll is how often a process vigil did not start is checked.
const alivePoll = 200 * time.Millisecond

// watchAlive reports the end of a server vigil did not start: it has no
// exit status to read, only its disappearance (or its zombie's status).
func (m *monitor) watchAlive(ctx context.Context) {
	pid := m.spec.PID
	t := time.NewTicker(alivePoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if m.deps.Procs.Exists(pid) {
			continue
		}
		e := observe.Exit{Gone: true}
		if ws, ok := m.deps.Procs.ZombieStatus(pid); ok {
			e = observe.Exit{Code: ws.ExitStatus()}
			if ws.Signaled() {
				e = observe.Exit{Signal: launch.SignalName(ws.Signal())}
			}
		}
		m.waitLogDrained(ctx)
		if e.Signal == "SIGKILL" || e.Gone {
			e.OOMRecord = m.oomRecord(ctx)
		}
		if e.Signal == "SIGKILL" {
			e.Memory = m.memoryPressure()
		}
		select {
		case m.exit <- e:
		case <-ctx.Done():
		}
		return
	}
}

func (m *monitor) oomRecord(ctx context.Context) string {
	if m.deps.OOMRecord == nil {
		return ""
	}
	return m.deps.OOMRecord(ctx, m.spec.PID)
}

// sampleOffset delays the first activity sample against the health
// prober's ticks (see sampleActivity).
const sampleOffset = 125 * time.Millisecond

// busyCPU is the CPU use (in cores) that counts as work on its own.
const busyCPU = 0.05

// sampleActivity reports whether the process tree under the server works.
func (m *monitor) sampleActivity(ctx context.Context) {
	s := procstat.NewSampler(m.deps.Proc, m.spec.PID)
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
			m.rss.Store(cur.Total.RSS)
			m.seen.add(cur.Procs)
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
			a.Busy = d.Busy() || d.CPU >= busyCPU || runnable && wasRunnable
			wasRunnable = runnable
			if a.Busy {
				parts = append(parts, d.Activity()...)
				if len(parts) == 0 {
					parts = append(parts, fmt.Sprintf("cpu %.2f cores, %d runnable thread%s", d.CPU, d.Threads.Running, map[bool]string{true: "s"}[d.Threads.Running != 1]))
				}
			}
		}
		if m.spec.HFHome != "" {
			if cache, err := procstat.HFCache(m.spec.HFHome); err == nil {
				if havePrev && cache.Downloading(prevCache) {
					a.Busy = true
					parts = append(parts, fmt.Sprintf("download cache growing %s/s", procstat.FormatBytes(int64(cache.Growth(prevCache)))))
				}
				prevCache, havePrev = cache, true
			}
		}
		a.Detail = strings.Join(parts, ", ")
		select {
		case m.activity <- a:
		default:
		}
	}
}

// sampleGPU reports GPU memory that moves as progress (weights being
// copied, the KV pool allocated), and says once if nvidia-smi hangs, which
// is itself a sign of a GPU in trouble. Without nvidia-smi it does nothing.
func (m *monitor) sampleGPU(ctx context.Context) {
	client := m.deps.GPU
	prev := client.Snapshot(ctx)
	if !prev.Available && !prev.Hung {
		return
	}
	saidHung := false
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cur := client.Snapshot(ctx)
		if cur.Hung && !saidHung {
			saidHung = true
			m.note("nvidia-smi does not answer: a GPU may have fallen off the bus (check dmesg for Xid errors)")
		}
		if cur.Available && prev.Available && cur.Progress(prev) {
			select {
			case m.activity <- observe.Activity{Busy: true, Detail: "GPU memory moving: " + cur.Summary()}:
			default:
			}
		}
		if cur.Available {
			prev = cur
		}
	}
}

// watchDisk says once if the log's filesystem fills up during the startup.
func (m *monitor) watchDisk(ctx context.Context) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		if full, msg := logDiskFull(m.spec.Log); full {
			select {
			case m.notes <- msg:
			case <-ctx.Done():
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// probeHealth polls the health endpoint of the server kind known at the
// start. It must not ask the judge, which belongs to the session goroutine.
//
// With the server's pid (0: unknown), a 200 from a local port is checked
// once: when the listening socket is held outside the server's process
// tree by another inference server (an earlier one still on the port),
// its answers are HealthForeign and a note names it, until the server's
// own tree holds the port. Any other holder (docker-proxy, a port
// forward) or one that cannot be told leaves the answers as they are.
func (m *monitor) probeHealth(ctx context.Context) {
	kind, pid := m.spec.Judge.Server, m.spec.PID
	path := classify.Lookup(kind).HealthPath
	if path == "" {
		path = "/health"
	}
	p := health.New(m.spec.URL, path)
	if m.deps.Transport != nil {
		p.Client.Transport = m.deps.Transport
	}
	port, local := localPort(m.spec.URL)
	if !local || pid <= 0 {
		p.Run(ctx, m.health)
		return
	}
	probes := make(chan observe.Health, 1)
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx, probes) }()
	defer func() { <-done }()
	var port1 portCheck
	for {
		var h observe.Health
		select {
		case <-ctx.Done():
			return
		case h = <-probes:
		}
		if h.State == observe.HealthOK && port1.foreignAnswer(m, port, pid) {
			h.State = observe.HealthForeign
		}
		select {
		case m.health <- h:
		default:
		}
	}
}

// portCheck remembers what the port's holder turned out to be.
type portCheck struct{ checked, foreign bool }

// foreignAnswer reports whether a 200 on port comes from another server
// than the one under pid. It looks once, and again while the answers are
// foreign, until the server's own tree holds the port.
func (c *portCheck) foreignAnswer(m *monitor, port, pid int) bool {
	if c.checked && !c.foreign {
		return false
	}
	fsys := m.deps.Proc
	tree, err := fsys.Tree(pid)
	held := procstat.HolderUnknown
	if err == nil {
		held = fsys.PortHolder(port, tree)
	}
	switch {
	case held != procstat.HolderOther:
		c.foreign = false
	case !c.checked:
		if other := fsys.PortListener(port, tree); other > 0 && classify.DetectCommand(m.deps.Procs.Cmdline(other)) != "" {
			c.foreign = true
			m.note(fmt.Sprintf("port %d answers 200 but is held by another server, pid %d (%s): its answers do not count", port, other, m.deps.Procs.CmdlineText(other)))
		}
	}
	c.checked = true
	return c.foreign
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
