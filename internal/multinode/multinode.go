// Package multinode judges a startup spread over several hosts (SGLang
// --nnodes, vLLM with Ray, TensorRT-LLM across nodes) from the verdicts of
// its members, one vigil per host, and expands the {rank}, {host} and
// {nnodes} placeholders of the command each member runs. It is pure: no
// I/O, no clock; the caller feeds it what each member's vigil reported.
package multinode

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// Outcome is one member's verdict, as its vigil reported it.
type Outcome struct {
	Verdict  v.Verdict
	Cause    v.Cause
	Phase    v.Phase
	Summary  string
	Hint     string
	Evidence []string
	LogFile  string
	At       time.Time // when the member's vigil decided
}

// Member is one host's part of the startup.
type Member struct {
	Host    string // as given in --hosts
	Rank    int
	Serving bool // the member whose HTTP server answers (rank 0)
	// Phase is how far the member got, while it runs.
	Phase v.Phase
	// Progressing: the member showed a sign of progress within its stall
	// window (log, CPU, disk, GPU memory), while it runs.
	Progressing bool
	// Lost: the connection to the member's vigil dropped; its state is
	// unknown (which is not a failure of its server).
	Lost bool
	// Outcome is the member's verdict; nil while it runs.
	Outcome *Outcome
}

// ProgressWindow is how long after a member vigil's last event the member
// still counts as progressing. A member vigil speaks while its server
// does: every log line it makes sense of, and a "quiet" event at least
// every 30s while the log is silent but the processes work; a member
// silent longer waits (for a peer, most often).
const ProgressWindow = 45 * time.Second

// Progressing reports whether a member whose vigil last spoke at last
// still counts as progressing at now.
func Progressing(last, now time.Time) bool { return now.Sub(last) < ProgressWindow }

// Echo is what another member showed while the root cause happened.
type Echo struct {
	Host    string
	Rank    int
	State   string // "failed", "stalled", "timeout", "ready", "waiting", "starting", "lost"
	Cause   v.Cause
	Phase   v.Phase
	Summary string
	// Line is the member's first evidence line, if any.
	Line string
}

// Whole is the verdict on the whole startup.
type Whole struct {
	// Verdict is empty while the startup is still undecided.
	Verdict  v.Verdict
	Cause    v.Cause
	Phase    v.Phase
	Summary  string
	Hint     string
	Evidence []string // the root member's
	LogFile  string   // the root member's (on its host)
	// RootHost and RootRank name the member the verdict comes from.
	RootHost string
	RootRank int
	// Echoes are the other members, in rank order.
	Echoes []Echo
}

// EchoWindow is how long after one member's NCCL failure another member's
// failure still counts as the root cause: when a rank dies, its peers' NCCL
// calls fail too, and the dead rank's own vigil may decide a moment later
// (it waits for the log to drain, or looks for the OOM killer's record).
const EchoWindow = 30 * time.Second

func failed(m Member) bool { return m.Outcome != nil && m.Outcome.Verdict == v.Failed }

// echoCause says whether a failure is typically a consequence of another
// rank's: a collective that times out or errors because a peer is gone.
func echoCause(c v.Cause) bool { return c == v.NCCL }

// rootFailure picks the failing member whose failure is the root cause:
// the first one to fail, except that an NCCL failure yields to a failure
// of another kind within EchoWindow of it.
func rootFailure(ms []Member) int {
	var fails []int
	for i, m := range ms {
		if failed(m) {
			fails = append(fails, i)
		}
	}
	if len(fails) == 0 {
		return -1
	}
	slices.SortStableFunc(fails, func(a, b int) int {
		return cmp.Or(ms[a].Outcome.At.Compare(ms[b].Outcome.At), cmp.Compare(ms[a].Rank, ms[b].Rank))
	})
	first := fails[0]
	if !echoCause(ms[first].Outcome.Cause) {
		return first
	}
	for _, i := range fails[1:] {
		if !echoCause(ms[i].Outcome.Cause) && ms[i].Outcome.At.Sub(ms[first].Outcome.At) <= EchoWindow {
			return i
		}
	}
	return first
}

// Settled says whether the whole verdict can be declared at now: at once
// for a failure of any kind but NCCL; for an NCCL failure only once the
// other members had EchoWindow to report a failure of their own (or all
// have decided). Without any failure it is whether Judge decided.
func Settled(ms []Member, now time.Time) bool {
	w := Judge(ms)
	if w.Verdict != v.Failed {
		return w.Verdict != ""
	}
	if !echoCause(w.Cause) {
		return true
	}
	for _, m := range ms {
		if m.Outcome == nil && !m.Lost {
			r := ms[rootFailure(ms)]
			return now.Sub(r.Outcome.At) >= EchoWindow
		}
	}
	return true
}

// Judge combines the members' states into the whole's verdict:
//   - failed as soon as one member failed, with that member's cause and
//     evidence (see rootFailure) and the others as echoes;
//   - ready when every member is ready (the serving one answered: its
//     vigil judged it ready);
//   - timeout when no member failed or still progresses and one ran out
//     of time while progressing;
//   - stalled only when no member shows progress and one was judged
//     stalled: the root is a member stalled outside the distributed phase
//     (those in it are waiting for a peer), else the first to stall;
//   - undecided ("") otherwise, and while a member is lost and the others
//     are ready.
func Judge(ms []Member) Whole {
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(a, b Member) int { return cmp.Compare(a.Rank, b.Rank) })
	if i := rootFailure(ms); i >= 0 {
		return whole(ms, i, v.Failed)
	}
	ready, progressing := 0, false
	stalled, timedOut := -1, -1
	for i, m := range ms {
		switch {
		case m.Lost:
		case m.Outcome == nil:
			progressing = progressing || m.Progressing
		case m.Outcome.Verdict == v.Ready:
			ready++
		case m.Outcome.Verdict == v.Timeout:
			if timedOut < 0 || m.Outcome.At.Before(ms[timedOut].Outcome.At) {
				timedOut = i
			}
		case m.Outcome.Verdict == v.Stalled:
			if stalled < 0 || stallRank(m) < stallRank(ms[stalled]) {
				stalled = i
			}
		}
	}
	switch {
	case len(ms) > 0 && ready == len(ms):
		serving := slices.IndexFunc(ms, func(m Member) bool { return m.Serving })
		if serving < 0 {
			serving = 0
		}
		return whole(ms, serving, v.Ready)
	case progressing:
		return Whole{}
	case timedOut >= 0:
		return whole(ms, timedOut, v.Timeout)
	case stalled >= 0:
		return whole(ms, stalled, v.Stalled)
	}
	return Whole{}
}

// stallRank orders stalled members for the root: outside the distributed
// phase first, then the first to stall.
func stallRank(m Member) int64 {
	r := m.Outcome.At.UnixNano()
	if m.Outcome.Phase == v.Distributed {
		r += int64(1) << 62
	}
	return r
}

// whole builds the verdict from member root.
func whole(ms []Member, root int, verdict v.Verdict) Whole {
	r := ms[root]
	o := r.Outcome
	w := Whole{Verdict: verdict, Cause: o.Cause, Phase: o.Phase, Hint: o.Hint,
		Evidence: o.Evidence, LogFile: o.LogFile, RootHost: r.Host, RootRank: r.Rank}
	if verdict == v.Ready {
		w.Cause = ""
		w.Phase = v.PhaseReady
		w.Summary = fmt.Sprintf("all %d members ready; %s (rank %d) serves", len(ms), r.Host, r.Rank)
	} else {
		w.Summary = fmt.Sprintf("%s (rank %d): %s", r.Host, r.Rank, o.Summary)
	}
	waiting := 0
	for i, m := range ms {
		if i == root {
			continue
		}
		e := Echo{Host: m.Host, Rank: m.Rank, Phase: m.Phase}
		switch {
		case m.Lost:
			e.State = "lost"
		case m.Outcome == nil && m.Progressing:
			e.State = "starting"
		case m.Outcome == nil:
			e.State = "waiting"
			waiting++
		default:
			e.State, e.Cause, e.Phase, e.Summary = string(m.Outcome.Verdict), m.Outcome.Cause, m.Outcome.Phase, m.Outcome.Summary
			if len(m.Outcome.Evidence) > 0 {
				e.Line = m.Outcome.Evidence[0]
			}
			if m.Outcome.Verdict != v.Ready {
				waiting++
			}
		}
		w.Echoes = append(w.Echoes, e)
	}
	if verdict != v.Ready && waiting > 0 {
		w.Summary += fmt.Sprintf(" (%d other %s waited or failed after it)", waiting, plural(waiting, "member", "members"))
	}
	return w
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Launch is one member to start.
type Launch struct {
	Host    string   // as given
	Target  string   // the ssh target; empty when Local
	Local   bool     // localhost: started here, without ssh
	Rank    int      // its place in --hosts
	Serving bool     // rank 0: its HTTP server answers for the whole
	Argv    []string // COMMAND with the placeholders filled in
}

// Placeholders are what {rank}, {host} and {nnodes} stand for.
type Placeholders struct {
	Rank   int
	Host   string // the host name, without user@
	NNodes int
}

// Expand fills the placeholders into every argument. Other braces (JSON
// arguments, shell ${VAR}) are left as they are.
func Expand(argv []string, p Placeholders) []string {
	r := strings.NewReplacer("{rank}", strconv.Itoa(p.Rank), "{host}", p.Host, "{nnodes}", strconv.Itoa(p.NNodes))
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

// Plan turns --hosts (comma-separated) and COMMAND into one launch per
// host, rank 0 first and serving.
func Plan(hosts string, argv []string) ([]Launch, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("--hosts needs a COMMAND after --")
	}
	out, err := Hosts(hosts)
	if err != nil {
		return nil, err
	}
	if len(out) > 1 && !slices.ContainsFunc(argv, func(a string) bool {
		return strings.Contains(a, "{rank}") || strings.Contains(a, "{host}")
	}) {
		return nil, fmt.Errorf("--hosts: COMMAND has no {rank} or {host}: every member would start as the same node (for example --node-rank {rank})")
	}
	for i := range out {
		out[i].Argv = Expand(argv, out[i].Placeholders(len(out)))
	}
	return out, nil
}

// Hosts parses --hosts (comma-separated) into one member per host, rank 0
// first and serving, without a command: watch judges members started
// elsewhere.
func Hosts(hosts string) ([]Launch, error) {
	var list []string
	for h := range strings.SplitSeq(hosts, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, fmt.Errorf("--hosts %q: empty host name", hosts)
		}
		if strings.HasPrefix(h, "-") || strings.ContainsFunc(h, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			return nil, fmt.Errorf("--hosts: bad host %q: want [USER@]HOST", h)
		}
		if slices.Contains(list, h) {
			return nil, fmt.Errorf("--hosts: %s is given twice", h)
		}
		list = append(list, h)
	}
	out := make([]Launch, len(list))
	for i, h := range list {
		l := Launch{Host: h, Rank: i, Serving: i == 0}
		if isLocal(h) {
			l.Local = true
		} else {
			l.Target = h
		}
		out[i] = l
	}
	return out, nil
}

// Name is the member's host without user@: what {host} stands for.
func (l Launch) Name() string {
	if _, after, ok := strings.Cut(l.Host, "@"); ok {
		return after
	}
	return l.Host
}

// Placeholders are the member's values for Expand in a start of nnodes.
func (l Launch) Placeholders(nnodes int) Placeholders {
	return Placeholders{Rank: l.Rank, Host: l.Name(), NNodes: nnodes}
}

// OutcomeOf reads a member vigil's verdict event (the contract's fields),
// received at at. ok is false when raw is no verdict event.
func OutcomeOf(raw []byte, at time.Time) (Outcome, bool) {
	e, ok := observe.DecodeVerdict(raw)
	if !ok {
		return Outcome{}, false
	}
	return Outcome{Verdict: v.Verdict(e.Verdict), Cause: v.Cause(e.Cause), Phase: v.Phase(e.Phase), Summary: e.Summary,
		Hint: e.Hint, Evidence: e.Evidence, LogFile: e.LogFile, At: at}, true
}

// isLocal: members on this machine are started without ssh.
func isLocal(h string) bool {
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}
