package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"

	"vigil/internal/classify"
	"vigil/internal/judge"
	"vigil/internal/launch"
	"vigil/internal/multinode"
	"vigil/internal/remote"
	"vigil/internal/termsafe"
	v "vigil/internal/verdict"
)

// The commands that take --hosts: a start spread over several hosts, one
// member vigil per host (internal/multinode judges the whole).
var hostsCommands = map[string]bool{"run": true, "watch": true}

// addHostsFlag gives run and watch their --hosts flag for help and
// completion; Main takes it off before cobra parses the rest, as --ssh.
func addHostsFlag(root *cobra.Command) {
	for _, c := range root.Commands() {
		if hostsCommands[c.Name()] {
			c.Flags().String("hosts", "", "a multi-node start: one member per host (node0,node1,...; localhost runs here, others over ssh), {rank} {host} {nnodes} filled into COMMAND and --log")
		}
	}
}

// memberFlag is --member: this vigil judges one member of a multi-node
// start that is not the serving one (rank > 0). Such a member never
// answers the server's HTTP port (vLLM --headless), or answers only a
// stand-in (SGLang's dummy health server on --node-rank > 0), so its own
// log decides: its ready line, never a health answer, and no smoke test.
// The vigil driving `--hosts` passes it to every rank > 0.
type memberFlag struct{ on bool }

func (m *memberFlag) register(fs *pflag.FlagSet) {
	fs.BoolVar(&m.on, "member", false, "judge a non-serving member of a multi-node start (rank > 0): ready on its own log, without a health answer or smoke test")
}

// apply makes the judge decide without the health endpoint.
func (m memberFlag) apply(cfg *judge.Config) {
	if m.on {
		cfg.NoHealth, cfg.Smoke, cfg.Member = true, false, true
	}
}

// noHTTPMode: a command that starts the server with no HTTP endpoint at
// all (trtllm-serve --grpc) is judged by its log alone, without health
// probes or a generation check. It returns the URL to probe ("" for none)
// and a note saying so ("" when the server serves HTTP).
func noHTTPMode(kind string, argv []string, cfg *judge.Config, url string) (probe, note string) {
	if !classify.ServesNoHTTP(kind, argv) {
		return url, ""
	}
	cfg.NoHealth, cfg.Smoke = true, false
	return "", "the server serves no HTTP (" + classify.Lookup(kind).NoHTTPFlag + "): judged by its log alone, without health probes or a generation check"
}

// splitHosts finds --hosts LIST (or --hosts=LIST) among run's or watch's
// own flags, before any "--", and returns the arguments without it.
func splitHosts(args []string) (hosts string, rest []string, ok bool, err error) {
	hosts, rest, ok, err = splitFlag(args, hostsCommands, "--hosts", "--hosts needs a list of hosts (node0,node1,...)")
	if err != nil {
		return "", nil, false, err
	}
	if ok {
		if _, _, ssh, _ := splitSSH(rest); ssh {
			return "", nil, false, Usagef("--hosts and --ssh: name every host in --hosts")
		}
	}
	return hosts, rest, ok, nil
}

// hostsRun is one `run --hosts` or `watch --hosts`.
type hostsRun struct {
	env     *Env
	mode    string // "run" or "watch"
	asJSON  bool
	history bool
	start   time.Time
	now     func() time.Time
	members []*hostMember
	whole   multinode.Whole
	decided bool
	// signal is the stop signal that ended the start before its verdict.
	signal syscall.Signal
}

// hostMember is one host's member vigil and what it said so far.
type hostMember struct {
	launch multinode.Launch
	args   []string // the member vigil's arguments
	argv   []string // the server's command line (run), for the history
	proc   memberProc
	m      multinode.Member
	show   remoteText
	rec    remoteStartup // for the local history
	// lastEvent is when the member vigil last said anything.
	lastEvent time.Time
	ended     bool
	code      int
	err       error
	stderr    string
	// stopped: asked to stop (Interrupt), and when.
	stopped   bool
	stoppedAt time.Time
}

type phaseAt struct {
	name string
	t    float64
}

// memberProc is a running member vigil, on this host or another.
type memberProc interface {
	Interrupt() error
	// Wait returns the member vigil's exit status and the tail of its
	// stderr; err is a failure to run it or a dropped connection.
	Wait() (code int, stderr string, err error)
}

// runHosts judges a start spread over the hosts in list: args are run's or
// watch's arguments without --hosts. Every member vigil gets the same
// flags (with the placeholders filled in) plus --json, and --member for
// rank > 0; its events are shown here as they come, and the whole is
// judged by multinode.Judge. The exit status is the whole verdict's.
func runHosts(ctx context.Context, env *Env, list string, args []string) error {
	mode := args[0]
	flags, command := args[1:], []string(nil)
	if i := slices.Index(flags, "--"); i >= 0 {
		flags, command = flags[:i], flags[i+1:]
	}
	var launches []multinode.Launch
	var err error
	switch mode {
	case "run":
		if len(command) == 0 {
			return Usagef("run --hosts: give COMMAND after -- (vigil run --hosts node0,node1 [flags] -- COMMAND --node-rank {rank} ...)")
		}
		launches, err = multinode.Plan(list, command)
	default:
		if len(command) > 0 {
			return Usagef("watch --hosts takes no COMMAND")
		}
		if !hasFlag(flags, "--log") {
			return Usagef("watch --hosts: give --log PATH (the same on every host; {rank} and {host} are filled in)")
		}
		launches, err = multinode.Hosts(list)
	}
	if err != nil {
		return &UsageError{Err: err}
	}
	h := &hostsRun{env: env, mode: mode, asJSON: hasFlag(flags, "--json"), history: !hasFlag(flags, "--no-history"),
		start: time.Now(), now: time.Now}
	for _, l := range launches {
		p := l.Placeholders(len(launches))
		margs := append([]string{mode, "--json"}, multinode.Expand(withoutJSON(flags), p)...)
		if !l.Serving {
			margs = append(margs, "--member")
		}
		var argv []string
		if mode == "run" {
			argv = l.Argv
			margs = append(append(margs, "--"), argv...)
		}
		label := l.Name()
		h.members = append(h.members, &hostMember{launch: l, args: margs, argv: argv,
			m:         multinode.Member{Host: l.Host, Rank: l.Rank, Serving: l.Serving},
			lastEvent: h.start,
			show:      remoteText{out: env.IO.ErrOut, err: env.IO.ErrOut, host: label},
			rec: remoteStartup{target: l.Host, host: label, mode: mode, argv: argv, rank: l.Rank,
				nnodes: len(launches), start: time.Now()}})
	}
	return h.run(ctx)
}

// hasFlag reports whether flag (--name) is among vigil's own flags, as
// --name, --name=VALUE or --name VALUE.
func hasFlag(flags []string, flag string) bool {
	for _, a := range flags {
		if a == flag || strings.HasPrefix(a, flag+"=") && !strings.HasSuffix(a, "=false") {
			return true
		}
	}
	return false
}

// withoutJSON drops --json: every member gets it once, first.
func withoutJSON(flags []string) []string {
	return slices.DeleteFunc(slices.Clone(flags), func(a string) bool { return a == "--json" || a == "--json=true" })
}

type memberEvent struct {
	i int
	e remote.Event
}

type memberEnd struct {
	i      int
	code   int
	stderr string
	err    error
}

// run connects to every remote host first (one failure: nothing starts),
// starts every member, and judges until every member vigil has ended.
func (h *hostsRun) run(ctx context.Context) error {
	conns := make([]*remote.Conn, len(h.members))
	var g errgroup.Group
	for i, mb := range h.members {
		if mb.launch.Local {
			continue
		}
		g.Go(func() error {
			c, err := remote.Connect(ctx, mb.launch.Target, remote.Options{SSH: h.env.Getenv("VIGIL_SSH"), Binary: h.env.SelfExe})
			conns[i] = c
			return err
		})
	}
	err := g.Wait()
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	if err != nil {
		return remoteError(err)
	}
	// Ctrl-C and SIGTERM reach every member vigil as they would a local
	// one: the first stops the start, a second kills at once. Local
	// members run in their own process group, so only this reaches them.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	events := make(chan memberEvent, 4096)
	ends := make(chan memberEnd, len(h.members))
	// A member's events are handed on in order from its own goroutine;
	// this loop alone touches the members' state and the output.
	for i, mb := range h.members {
		on := func(e remote.Event) { events <- memberEvent{i, e} }
		if mb.launch.Local {
			p, err := startLocalMember(h.env.SelfExe, mb.args, on)
			if err != nil {
				h.stopAll("")
				h.drain(events, ends, sigs)
				return Usagef("start the member vigil for %s: %v", mb.launch.Host, err)
			}
			mb.proc = p
		} else {
			s, err := conns[i].Start(ctx, remote.Spec{Args: mb.args, Detach: remote.Detached(h.mode)}, on)
			if err != nil {
				h.stopAll("")
				h.drain(events, ends, sigs)
				return remoteError(err)
			}
			mb.proc = remoteMember{s}
		}
		go func() {
			code, stderr, err := mb.proc.Wait()
			ends <- memberEnd{i, code, stderr, err}
		}()
	}
	h.drain(events, ends, sigs)
	return h.finish()
}

// drain runs the judgement until every started member has ended.
func (h *hostsRun) drain(events chan memberEvent, ends chan memberEnd, sigs chan os.Signal) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	left := 0
	for _, mb := range h.members {
		if mb.proc != nil {
			left++
		}
	}
	for left > 0 {
		select {
		case e := <-events:
			h.event(e)
		case end := <-ends:
			// Its last events were handed on before its session ended.
			for drained := false; !drained; {
				select {
				case e := <-events:
					h.event(e)
				default:
					drained = true
				}
			}
			h.ended(end)
			left--
		case sig := <-sigs:
			// A second signal reaches the members again: they kill at once.
			if s, ok := sig.(syscall.Signal); ok && !h.decided && h.signal == 0 {
				h.signal = s
			}
			for _, mb := range h.members {
				if mb.proc != nil && !mb.ended {
					mb.stopped, mb.stoppedAt = true, h.now()
					_ = mb.proc.Interrupt()
				}
			}
			continue
		case <-tick.C:
		}
		h.judge()
	}
}

// event takes one line of a member vigil's stdout.
func (h *hostsRun) event(me memberEvent) {
	mb, e := h.members[me.i], me.e
	var head struct {
		Phase string `json:"phase"`
	}
	_ = json.Unmarshal(e.Raw, &head)
	mb.rec.take(e)
	mb.lastEvent = e.Received
	switch e.Name {
	case "phase":
		mb.m.Phase = v.Phase(head.Phase)
	case "verdict":
		if o, ok := multinode.OutcomeOf(e.Raw, e.Received); ok {
			mb.m.Outcome = &o
		}
	}
	if h.asJSON {
		h.env.IO.Out.Write(memberLine(e, mb.launch))
		return
	}
	mb.show.event(e)
}

// memberLine is a member's event for --json: "host" and "rank" first,
// and its verdict renamed member_verdict, so that the stream's one
// verdict event is the whole's, last.
func memberLine(e remote.Event, l multinode.Launch) []byte {
	raw := bytes.TrimSpace(e.Raw)
	if e.Name == "verdict" {
		raw = bytes.Replace(raw, []byte(`"event":"verdict"`), []byte(`"event":"member_verdict"`), 1)
	}
	line := withHost(raw, l.Host)
	if len(line) > 1 && line[0] == '{' {
		// After "host": withHost put it first.
		if i := bytes.IndexByte(line, ','); i > 0 {
			line = slices.Concat(line[:i], []byte(fmt.Sprintf(`,"rank":%d`, l.Rank)), line[i:])
		}
	}
	return line
}

// ended takes a member vigil's end.
func (h *hostsRun) ended(end memberEnd) {
	mb := h.members[end.i]
	mb.ended, mb.code, mb.stderr, mb.err = true, end.code, end.stderr, end.err
	if errors.Is(end.err, remote.ErrDropped) {
		mb.m.Lost = true
	}
	if end.err != nil {
		fmt.Fprintf(h.env.IO.ErrOut, "vigil: %s: %s\n", mb.launch.Host, termsafe.String(oneLine(end.err.Error())))
	} else if mb.m.Outcome == nil && end.code == v.ExitUsage && end.stderr != "" {
		fmt.Fprintf(h.env.IO.ErrOut, "vigil: %s: %s\n", mb.launch.Host, termsafe.String(strings.TrimSpace(lastNonEmpty(end.stderr))))
	}
	if h.history && mb.m.Outcome != nil && !mb.launch.Local {
		recordRemote(h.env, mb.rec)
	}
}

// judge decides the whole once multinode says it is settled, and stops
// the members still starting when it is not ready. A member vigil that
// ended without a verdict and without losing its connection (a usage
// error, a vigil that could not run) ends the whole start too.
func (h *hostsRun) judge() {
	now := h.now()
	if !h.decided {
		ms := h.memberStates()
		if multinode.Settled(ms, now) {
			h.whole, h.decided = multinode.Judge(ms), true
		} else if broken := h.broken(); broken != nil {
			h.stopAll(broken.launch.Host)
			return
		}
		if h.decided && h.whole.Verdict != v.Ready {
			h.stopAll(h.whole.RootHost)
		}
	}
	// A member that does not end 30s after being asked to stop is asked
	// again, which kills its server at once.
	for _, mb := range h.members {
		if mb.stopped && !mb.ended && mb.proc != nil && now.Sub(mb.stoppedAt) > 30*time.Second {
			_ = mb.proc.Interrupt()
			mb.stoppedAt = now
		}
	}
}

func (h *hostsRun) memberStates() []multinode.Member {
	now := h.now()
	ms := make([]multinode.Member, len(h.members))
	for i, mb := range h.members {
		ms[i] = mb.m
		ms[i].Progressing = mb.m.Outcome == nil && !mb.ended && multinode.Progressing(mb.lastEvent, now)
	}
	return ms
}

// broken is a member vigil that ended, unasked, with neither a verdict
// nor a lost connection.
func (h *hostsRun) broken() *hostMember {
	for _, mb := range h.members {
		if mb.ended && mb.m.Outcome == nil && !mb.m.Lost && !mb.stopped {
			return mb
		}
	}
	return nil
}

// stopAll asks every member vigil still judging to stop, as Ctrl-C would:
// under run each stops its server; watch never signals a server.
func (h *hostsRun) stopAll(because string) {
	for _, mb := range h.members {
		if mb.proc == nil || mb.ended || mb.stopped || mb.m.Outcome != nil {
			continue
		}
		mb.stopped, mb.stoppedAt = true, h.now()
		if h.mode == "run" && because != "" && !h.asJSON {
			fmt.Fprintf(h.env.IO.ErrOut, "vigil: stopping the member on %s: the start failed on %s\n", mb.launch.Host, because)
		}
		_ = mb.proc.Interrupt()
	}
}

// finish says the whole verdict and maps it to the exit status.
func (h *hostsRun) finish() error {
	if !h.decided {
		// Everything ended: judge what is known.
		if w := multinode.Judge(h.memberStates()); w.Verdict != "" {
			h.whole, h.decided = w, true
		}
	}
	if !h.decided && h.signal != 0 {
		fmt.Fprintf(h.env.IO.ErrOut, "vigil: %s before the verdict; every member was asked to stop\n", launch.SignalName(h.signal))
		return &ExitError{Code: 128 + int(h.signal)}
	}
	if !h.decided {
		for _, mb := range h.members {
			if mb.m.Lost {
				return &codedError{code: exitDropped, err: fmt.Errorf("the ssh connection to %s dropped before the start was judged; this says nothing about the servers", mb.launch.Host)}
			}
		}
		if b := h.broken(); b != nil {
			code := b.code
			if code == 0 || b.err != nil {
				code = 1
			}
			return &ExitError{Code: code}
		}
		return fmt.Errorf("the start ended without a verdict")
	}
	w := h.whole
	if h.asJSON {
		h.wholeJSON(w)
	} else {
		h.wholeText(w)
	}
	if code := w.Verdict.ExitCode(); code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}

// wholeJSON writes the whole verdict: the contract's fields, the root
// member's host and rank, and the other members.
func (h *hostsRun) wholeJSON(w multinode.Whole) {
	type echo struct {
		Host    string  `json:"host"`
		Rank    int     `json:"rank"`
		State   string  `json:"state"`
		Cause   *string `json:"cause"`
		Phase   string  `json:"phase"`
		Summary string  `json:"summary"`
		Line    string  `json:"line"`
	}
	var cause *string
	if w.Verdict == v.Failed {
		c := string(w.Cause)
		cause = &c
	}
	members := []echo{}
	for _, e := range w.Echoes {
		var c *string
		if e.Cause != "" {
			s := string(e.Cause)
			c = &s
		}
		members = append(members, echo{Host: e.Host, Rank: e.Rank, State: e.State, Cause: c, Phase: string(e.Phase), Summary: e.Summary, Line: e.Line})
	}
	ev := w.Evidence
	if ev == nil {
		ev = []string{}
	}
	obj := struct {
		Event    string   `json:"event"`
		T        float64  `json:"t"`
		Verdict  string   `json:"verdict"`
		Cause    *string  `json:"cause"`
		Phase    string   `json:"phase"`
		Summary  string   `json:"summary"`
		Hint     string   `json:"hint,omitempty"`
		Evidence []string `json:"evidence"`
		LogFile  string   `json:"log_file"`
		Host     string   `json:"host"`
		Rank     int      `json:"rank"`
		NNodes   int      `json:"nnodes"`
		Server   string   `json:"server,omitempty"`
		Members  []echo   `json:"members"`
	}{"verdict", h.now().Sub(h.start).Seconds(), string(w.Verdict), cause, string(w.Phase), w.Summary, w.Hint, ev,
		w.LogFile, w.RootHost, w.RootRank, len(h.members), h.members[w.RootRank].rec.server, members}
	enc := json.NewEncoder(h.env.IO.Out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(obj)
}

// wholeText writes the whole verdict for people, on stdout.
func (h *hostsRun) wholeText(w multinode.Whole) {
	out := h.env.IO.Out
	head := strings.ToUpper(string(w.Verdict))
	if w.Cause != "" {
		head += " (" + string(w.Cause) + ")"
	}
	if w.Verdict != v.Ready && w.Phase != "" {
		head += " in phase " + string(w.Phase)
	}
	fmt.Fprintf(out, "%s, %d nodes, after %.1fs: %s\n", head, len(h.members), h.now().Sub(h.start).Seconds(), termsafe.String(w.Summary))
	if len(w.Evidence) > 0 {
		fmt.Fprintf(out, "evidence (%s):\n", w.RootHost)
		for _, l := range w.Evidence {
			fmt.Fprintf(out, "  %s\n", termsafe.String(l))
		}
	}
	if w.Hint != "" {
		fmt.Fprintf(out, "hint: %s\n", termsafe.String(w.Hint))
	}
	if w.LogFile != "" {
		fmt.Fprintf(out, "log: %s:%s\n", w.RootHost, termsafe.String(w.LogFile))
	}
	for _, e := range w.Echoes {
		what := e.State
		if e.Cause != "" {
			what += " (" + string(e.Cause) + ")"
		}
		if e.Phase != "" && e.State != "ready" {
			what += " in " + string(e.Phase)
		}
		if e.Line != "" && e.State != "ready" {
			what += ": " + e.Line
		}
		fmt.Fprintf(out, "  %s (rank %d): %s\n", e.Host, e.Rank, termsafe.String(what))
	}
}
