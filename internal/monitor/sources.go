package monitor

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"vigil/internal/classify"
	"vigil/internal/endpoint"
	"vigil/internal/follow"
	"vigil/internal/health"
	"vigil/internal/journal"
	"vigil/internal/launch"
	"vigil/internal/logline"
	"vigil/internal/observe"
	"vigil/internal/procstat"
)

// followLog feeds the log file from the spec's offset into the session
// until ctx ends or the server's exit stops the follower.
func (m *monitor) followLog(ctx context.Context) {
	defer close(m.logDone)
	_ = m.follower.RunBatches(ctx, func(b []logline.Line) {
		select {
		case m.lines <- b:
			l := &b[len(b)-1]
			m.emitted.Store(l.Offset + int64(len(l.Text)) + l.Cut)
		case <-ctx.Done():
		}
	})
}

func (m *monitor) newFollower() *follow.Follower {
	return follow.New(m.spec.Log, follow.Options{Offset: m.spec.Offset, Poll: 100 * time.Millisecond, WaitForFile: m.spec.WaitForFile, PollOnly: m.deps.PollOnly,
		OnEvent: func(e follow.Event) { m.note(e.Msg) }})
}

// followJournal feeds the unit's current activation from the journal.
func (m *monitor) followJournal(ctx context.Context, u Unit) {
	var lines journal.Lines
	opts := journal.Options{User: u.User, Since: u.Info.Start(), InvocationID: u.Info.InvocationID}
	err := journal.Follow(ctx, u.Name, opts, func(e journal.Entry) {
		var b []logline.Line
		lines.Write(e, func(l logline.Line) { b = append(b, l) })
		if len(b) == 0 {
			return
		}
		select {
		case m.lines <- b:
		case <-ctx.Done():
		}
	})
	if err != nil && ctx.Err() == nil {
		m.note("journalctl: " + err.Error())
	}
}

// journalCatchUp is how long an exit waits for the journal, which has no
// end to read to, to deliver the server's last lines.
const journalCatchUp = 300 * time.Millisecond

// waitLogDrained returns once every line the server wrote before its exit
// has been handed to the session, so that the exit is judged after them:
// the follower reads the file to its end, however long that takes (the
// file is finite once its writer has died; a clock would make the verdict
// depend on the machine's speed), hands over the unterminated last line,
// and stops. Without a log file (a journal) it gives the journal a moment
// to catch up.
func (m *monitor) waitLogDrained(ctx context.Context) {
	if m.follower == nil {
		if m.spec.Unit != nil {
			select {
			case <-time.After(journalCatchUp):
			case <-ctx.Done():
			}
		}
		return
	}
	m.follower.Stop()
	select {
	case <-m.logDone:
	case <-ctx.Done():
	}
}

// watchExit reports the end of a server vigil launched, once its last
// output is judged. A server that daemonized (its process exited 0 and
// left a daemon) is followed to the daemon, whose end is the server's.
func (m *monitor) watchExit(ctx context.Context) {
	proc := m.spec.Proc
	for {
		select {
		case <-proc.Done():
		case <-ctx.Done():
			return
		}
		d := m.daemonOf(ctx, proc)
		if d == nil {
			break
		}
		proc = d
	}
	// What the server wrote before it ended may still be in the copier's
	// pipe: into the log with it first.
	if m.spec.Output != nil {
		m.spec.Output.SyncOutput(ctx)
	}
	m.waitLogDrained(ctx)
	e := proc.Exit()
	if e.Signal == "SIGKILL" {
		m.attributeKill(ctx, &e)
		e.Memory = m.memoryPressure()
	}
	select {
	case m.exit <- e:
	case <-ctx.Done():
	}
}

// daemonOf returns the daemon the server left when proc, followed as the
// server, exited 0 (nil: none, or another end). The daemon is the server
// from then on: its liveness, activity and exit; the first hand-over is
// said once.
func (m *monitor) daemonOf(ctx context.Context, proc Process) *launch.Daemon {
	if m.spec.Daemon == nil {
		return nil
	}
	if e := proc.Exit(); e.Code != 0 || e.Signal != "" || e.Gone {
		return nil
	}
	d, ok := m.spec.Daemon()
	if !ok {
		return nil
	}
	first := m.serverPID() == m.spec.PID
	m.server.Store(int64(d.Pid))
	if smp, err := m.deps.Proc.Sample([]int{d.Pid}); err == nil {
		m.seen.add(smp.Procs) // its start, for the kernel log's records
	}
	select {
	case m.moved <- struct{}{}:
	default:
	}
	if first {
		select {
		case m.notes <- fmt.Sprintf("the server daemonized: following PID %d", d.Pid):
		case <-ctx.Done():
		}
	}
	return d
}

// sampleServer runs the activity sampler on the server's main process,
// afresh on the daemon once the server has daemonized.
func (m *monitor) sampleServer(ctx context.Context) {
	for {
		sctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); m.sampleActivity(sctx) }()
		select {
		case <-ctx.Done():
		case <-m.moved:
		}
		cancel()
		<-done
		if ctx.Err() != nil {
			return
		}
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
		alive := m.deps.Procs.Exists(pid)
		if id := m.spec.Identity; id != nil && id.PID == pid {
			alive = m.deps.Procs.Still(*id)
		}
		if alive {
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
			m.attributeKill(ctx, &e)
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

// sampleOffset delays the first activity sample against the health
// prober's ticks (see sampleActivity).
const sampleOffset = 125 * time.Millisecond

// busyCPU is the CPU use (in cores) that counts as work on its own.
const busyCPU = 0.05

// sampleActivity reports whether the process tree under the server works.
func (m *monitor) sampleActivity(ctx context.Context) {
	s := procstat.NewSampler(m.deps.Proc, m.serverPID())
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
			a.Waited = d.Waited
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
		if full, msg := logDiskFull(m.spec.Log, m.outputLoss(0)); full {
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
// With the server's pid (0: unknown), every 200 from a local port is
// checked against the port's holder: when the listening socket is held
// outside the server's process tree by another inference server (an
// earlier one still on the port), the answer is HealthForeign and a note
// names that server. Any other holder (docker-proxy, a port forward) or
// one that cannot be told leaves the answer as it is. A redirect to
// another host, which is not followed, is noted once.
func (m *monitor) probeHealth(ctx context.Context) {
	kind := m.spec.Judge.Server
	path := classify.Lookup(kind).HealthPath
	if path == "" {
		path = "/health"
	}
	if m.spec.AwaitAddress && m.url.Load() == nil && !m.awaitAddress(ctx) {
		return
	}
	p := health.New(m.baseURL(), path)
	p.APIKey = m.spec.APIKey
	if m.deps.Transport != nil {
		p.Client.Transport = m.deps.Transport
	}
	port, local := localPort(m.baseURL())
	probes := make(chan observe.Health, 1)
	done := make(chan struct{})
	go func() { defer close(done); p.RunNudged(ctx, probes, m.nudge) }()
	defer func() { <-done }()
	var holder portCheck
	redirected := false
	for {
		var h observe.Health
		select {
		case <-ctx.Done():
			return
		case base := <-m.retarget:
			p.Retarget(base, path)
			port, local = localPort(base)
			holder = portCheck{}
			// The answer that decides readiness is there: ask now.
			select {
			case m.nudge <- struct{}{}:
			default:
			}
			continue
		case h = <-probes:
		}
		// The server's pid is read afresh: it is the daemon's once the
		// server has daemonized.
		if pid := m.serverPID(); local && pid > 0 && h.State == observe.HealthOK && holder.foreignAnswer(m, port, pid) {
			h.State = observe.HealthForeign
		}
		if host, ok := health.RedirectedTo(h); ok && !redirected {
			redirected = true
			select {
			case m.notes <- "health redirects to " + host + "; not followed":
			case <-ctx.Done():
				return
			}
		}
		select {
		case m.health <- h:
		default:
		}
	}
}

// addressGrace is how long after the server says it is up or ready its
// address may still come before the guess is probed after all.
const addressGrace = 3 * time.Second

// awaitAddress waits until the server, told to take any port, prints the
// address it got (baseURL is that address then), or until it has said it
// is up or ready. Then the port its process tree listens on is looked
// for (a server that prints no port, or the 0 it was given: vLLM); when
// none can be told after addressGrace more, the guess is probed. It
// returns false when ctx ended.
func (m *monitor) awaitAddress(ctx context.Context) bool {
	var giveUp <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return false
		case <-m.retarget:
			return true
		case <-m.nudge:
			if m.adoptListener() {
				return true
			}
			if giveUp == nil {
				giveUp = time.After(addressGrace)
			}
		case <-giveUp:
			m.adoptListener()
			return true
		}
	}
}

// adoptListener probes, from now on, the one TCP port the server's
// process tree listens on, and reports whether there was one.
func (m *monitor) adoptListener() bool {
	base := m.listenerURL()
	if base == "" {
		return false
	}
	m.url.Store(&base)
	m.note("the server listens at " + base + " (it was told to take any port, and its socket says which): probing there")
	return true
}

// listenerURL is the guessed URL at the port the server listens on: the
// one TCP port of its main process, else the one of its tree (a shell
// wrapper's child). "" when there is none, or several: a tree also holds
// its workers' rendezvous ports (torch's TCPStore), which cannot be told
// from the HTTP server's.
func (m *monitor) listenerURL() string {
	pid := m.serverPID()
	if pid <= 0 {
		return ""
	}
	addrs := m.deps.Proc.Listeners([]int{pid})
	if len(addrs) == 0 {
		if tree, err := m.deps.Proc.Tree(pid); err == nil {
			addrs = m.deps.Proc.Listeners(tree)
		}
	}
	if len(addrs) == 0 || addrs[0].Port() != addrs[len(addrs)-1].Port() {
		return ""
	}
	u, err := url.Parse(m.spec.URL)
	if _, sock := endpoint.Socket(m.spec.URL); err != nil || sock {
		return ""
	}
	host := u.Hostname()
	if a := addrs[0].Addr(); !a.IsUnspecified() {
		host = a.String()
	}
	u.Host = net.JoinHostPort(host, strconv.Itoa(int(addrs[0].Port())))
	return u.String()
}

// portCheck remembers who else was last found listening on the port.
type portCheck struct {
	other  int  // a listener outside the server's tree (0: none found)
	server bool // other is an inference server
	named  int  // the pid the last note named
}

// foreignAnswer reports whether a 200 on port comes from another
// inference server than the one under pid. It looks on every answer: the
// server's own tree holding the port makes it ours; otherwise (held
// outside the tree, or not told) it is foreign when another inference
// server listens on the port. Finding that listener reads every process's
// descriptors, so it is looked for again only when the last one found no
// longer holds the port.
func (c *portCheck) foreignAnswer(m *monitor, port, pid int) bool {
	fsys := m.deps.Proc
	tree, err := fsys.Tree(pid)
	if err == nil && fsys.PortHolder(port, tree) == procstat.HolderTree {
		c.other, c.server = 0, false
		return false
	}
	if c.other == 0 || fsys.PortHolder(port, []int{c.other}) != procstat.HolderTree {
		c.other = fsys.PortListener(port, tree)
		c.server = c.other > 0 && classify.DetectCommand(m.deps.Procs.Cmdline(c.other)) != ""
	}
	if !c.server {
		return false
	}
	if c.named != c.other {
		c.named = c.other
		m.note(fmt.Sprintf("port %d answers 200 but is held by another server, pid %d (%s): its answers do not count", port, c.other, m.deps.Procs.CmdlineText(c.other)))
	}
	return true
}

// sameAddress reports whether two base URLs reach the same listener: the
// same scheme and port, and the same host or two loopback hosts (a Unix
// socket: the same path).
func sameAddress(a, b string) bool {
	sa, okA := endpoint.Socket(a)
	sb, okB := endpoint.Socket(b)
	if okA || okB {
		return okA && okB && sa == sb
	}
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	if ua.Scheme != ub.Scheme || portOf(ua) != portOf(ub) {
		return false
	}
	ha, hb := ua.Hostname(), ub.Hostname()
	return ha == hb || loopback(ha) && loopback(hb)
}

// withPathOf is base, an address a server printed (no path), with the
// path of was, the URL vigil probed so far (llama-server's --api-prefix,
// which its "listening on" line leaves out), for a socket too.
func withPathOf(base, was string) string {
	sock, isSock := endpoint.Socket(base)
	_, prefix, wasSock := endpoint.SplitSocket(was)
	if isSock && wasSock {
		return endpoint.SocketURL(sock, prefix)
	}
	if isSock || wasSock {
		return base
	}
	ub, err1 := url.Parse(base)
	uw, err2 := url.Parse(was)
	if err1 != nil || err2 != nil || strings.Trim(ub.Path, "/") != "" || strings.Trim(uw.Path, "/") == "" {
		return base
	}
	return strings.TrimRight(base, "/") + strings.TrimRight(uw.Path, "/")
}

// portOf is a URL's port, or its scheme's.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
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
