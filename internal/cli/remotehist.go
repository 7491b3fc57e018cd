package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"vigil/internal/classify"
	"vigil/internal/history"
	"vigil/internal/learn"
	"vigil/internal/observe"
	"vigil/internal/remote"
	"vigil/internal/statedir"
)

// remoteStartup is what a vigil on another host said about one startup,
// kept to record it in the local history with that host: the remote vigil
// records it in its own host's history too, where the operator is not.
type remoteStartup struct {
	target       string // [user@]host, as given
	host         string // its name, without user@
	mode         string
	argv         []string // the server's command line, when vigil launched it
	rank, nnodes int
	start        time.Time
	phases       []phaseAt
	server       string
	model        string
	verdict      []byte // the raw verdict event; nil until it comes
	verdictT     float64
}

// take reads one of the remote vigil's events.
func (r *remoteStartup) take(e remote.Event) {
	var head struct {
		Phase     string            `json:"phase"`
		Server    string            `json:"server"`
		Important map[string]string `json:"important"`
	}
	_ = json.Unmarshal(e.Raw, &head)
	if head.Server != "" {
		r.server = head.Server
	}
	switch e.Name {
	case "phase":
		r.phases = append(r.phases, phaseAt{head.Phase, e.T})
	case "config":
		if m := head.Important["model"]; m != "" {
			r.model = m
		}
	case "verdict":
		r.verdict, r.verdictT = e.Raw, e.T
	}
}

// phaseSecondsFrom turns phase events into each phase's duration, the
// last one lasting until the verdict at end.
func phaseSecondsFrom(phases []phaseAt, end float64) []learn.Phase {
	m := map[string]float64{}
	for i, p := range phases {
		next := end
		if i+1 < len(phases) {
			next = phases[i+1].t
		}
		if p.name != "" && next >= p.t {
			m[p.name] += next - p.t
		}
	}
	return learn.PhasesFrom(m)
}

// recordRemote stores a remote startup in the local history. As for a
// local one, a failure is a warning on stderr, never a changed verdict.
func recordRemote(env *Env, r remoteStartup) {
	if r.verdict == nil {
		return
	}
	ver, ok := observe.DecodeVerdict(r.verdict)
	if !ok {
		return
	}
	store, err := history.OpenDefault(env.Getenv)
	if errors.Is(err, statedir.ErrNoStateDir) {
		return
	}
	if err != nil {
		fmt.Fprintf(env.IO.ErrOut, "vigil: history not recorded: %v\n", err)
		return
	}
	defer store.Close()
	model := r.model
	if model == "" {
		model = classify.ModelFromArgv(r.argv)
	}
	server := r.server
	if ver.Server != "" {
		server = ver.Server
	}
	st := history.Startup{
		StartedAt: r.start, Server: server, Model: model, Host: r.host,
		Phases: phaseSecondsFrom(r.phases, r.verdictT), TotalSeconds: r.verdictT,
		Verdict: ver.Verdict, Cause: ver.Cause, Phase: ver.Phase, Summary: ver.Summary, Hint: ver.Hint,
		Evidence: ver.Evidence, LogPath: ver.LogFile, Mode: r.mode, Argv: r.argv,
		Remote: r.target, NodeRank: r.rank, NNodes: r.nnodes,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := store.Record(ctx, st); err != nil {
		fmt.Fprintf(env.IO.ErrOut, "vigil: history not recorded: %v\n", err)
	}
}

// hostName is an ssh target without its user@.
func hostName(target string) string {
	for i := len(target) - 1; i >= 0; i-- {
		if target[i] == '@' {
			return target[i+1:]
		}
	}
	return target
}

// remoteRecord prepares the local record of a startup judged with --ssh;
// record is false for explain (a finished log, not a startup) and with
// --no-history.
func remoteRecord(target string, args []string) (rec *remoteStartup, record bool) {
	flags, command := args[1:], []string(nil)
	if i := slices.Index(flags, "--"); i >= 0 {
		flags, command = flags[:i], flags[i+1:]
	}
	rec = &remoteStartup{target: target, host: hostName(target), mode: args[0], argv: command, start: time.Now()}
	return rec, args[0] != "explain" && !hasFlag(flags, "--no-history")
}
