package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/history"
	"vigil/internal/learn"
	"vigil/internal/srvconfig"
	"vigil/internal/statedir"
)

func newHistoryCmd(env *Env) *cobra.Command {
	var (
		model   string
		limit   int
		jsonOut bool
		dbPath  string
	)
	cmd := &cobra.Command{
		Use:   "history [--model M] [--limit N] [--json]",
		Short: "List past startups, newest first",
		Long: `vigil history lists the startups vigil has judged on this machine, newest
first: when, which server and model, the verdict (with its cause), the total
time and the time of each phase.

The history lives in $XDG_STATE_HOME/vigil/history.db (else
~/.local/state/vigil/history.db); --db reads another file.

--json prints an array of objects with id, started_at, server, model,
verdict, cause, total_s, phases (phase name to seconds, in order) and config
(every pair the server printed), plus a few more fields.

Exit status: 0 listed (even when empty), 1 the history could not be read,
2 usage error.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 0 {
				return Usagef("history: --limit must be 0 (no limit) or more")
			}
			store, path, err := openHistory(env, dbPath, "history")
			if err != nil {
				return err
			}
			var list []history.Startup
			if store != nil {
				defer store.Close()
				list, err = store.List(cmd.Context(), history.Filter{Model: model, Limit: limit})
				if err != nil {
					return err
				}
			}
			if jsonOut {
				return histJSON(env.IO.Out, startupsJSON(list))
			}
			if len(list) == 0 {
				if model != "" {
					fmt.Fprintf(env.IO.Out, "No startups of a model matching %q in %s.\n", model, path)
				} else {
					fmt.Fprintf(env.IO.Out, "No startups recorded yet (%s). 'vigil run' and 'vigil watch' add one per startup.\n", path)
				}
				return nil
			}
			return printHistory(env.IO.Out, list)
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "only startups whose model contains `M` (any case)")
	cmd.Flags().IntVar(&limit, "limit", 20, "show at most `N` startups (0: all)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print a JSON array instead of a table")
	cmd.PersistentFlags().StringVar(&dbPath, "db", "", "history database `PATH` (default $XDG_STATE_HOME/vigil/history.db)")
	cmd.AddCommand(newHistoryShowCmd(env, &dbPath))
	return cmd
}

func newHistoryShowCmd(env *Env, dbPath *string) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Draw one startup's timeline",
		Long: `vigil history show draws one startup's timeline: a bar per phase, placed
and scaled on the whole startup, with its seconds; then the verdict, its
summary, the important configuration and any attached results.

Exit status: 0 shown, 1 the history could not be read, 2 usage error or no
such startup.`,
		Args:          cobra.ExactArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := loadStartup(cmd.Context(), env, *dbPath, "history show", args[0])
			if err != nil {
				return err
			}
			printTimeline(env.IO.Out, st, env.IO.IsStdoutTTY)
			return nil
		},
	}
}

// openHistory opens the history database for reading. A database that does
// not exist yet gives a nil store and no error: an empty history.
func openHistory(env *Env, dbPath, cmdName string) (*history.Store, string, error) {
	path := dbPath
	if path == "" {
		path = history.DefaultPath(env.Getenv)
	}
	if path == "" {
		return nil, "", Usagef("%s: no history database: set HOME or XDG_STATE_HOME, or give --db", cmdName)
	}
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, path, nil
	}
	if err == nil && fi.IsDir() {
		return nil, path, Usagef("%s: %s is a directory, not a history database", cmdName, path)
	}
	var store *history.Store
	if dbPath == "" {
		// The default database lives in the checked state directory.
		store, err = history.OpenDefault(env.Getenv)
	} else {
		store, err = history.Open(path)
	}
	if errors.Is(err, statedir.ErrUnsafe) || errors.Is(err, statedir.ErrNoStateDir) {
		return nil, path, Usagef("%s: %v", cmdName, err)
	}
	if err != nil {
		return nil, path, fmt.Errorf("%s: %w", cmdName, err)
	}
	for _, w := range store.Warnings() {
		fmt.Fprintln(env.IO.ErrOut, "vigil: warning: "+w)
	}
	return store, path, nil
}

// loadStartup reads one startup by the ID given on the command line.
func loadStartup(ctx context.Context, env *Env, dbPath, cmdName, arg string) (history.Startup, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(arg, "#"), 10, 64)
	if err != nil || id <= 0 {
		return history.Startup{}, Usagef("%s: %q is not a startup ID (see 'vigil history')", cmdName, arg)
	}
	store, path, err := openHistory(env, dbPath, cmdName)
	if err != nil {
		return history.Startup{}, err
	}
	if store == nil {
		return history.Startup{}, Usagef("%s: no startup %d: no history yet (%s)", cmdName, id, path)
	}
	defer store.Close()
	st, err := store.Get(ctx, id)
	if errors.Is(err, history.ErrNotFound) {
		return history.Startup{}, Usagef("%s: no startup %d in %s (see 'vigil history')", cmdName, id, path)
	}
	if err != nil {
		return history.Startup{}, fmt.Errorf("%s: %w", cmdName, err)
	}
	return st, nil
}

// --- the list ---

func printHistory(w io.Writer, list []history.Startup) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tSERVER\tMODEL\tVERDICT\tTOTAL\tPHASES")
	for _, st := range list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", st.ID, st.StartedAt.Local().Format("2006-01-02 15:04"),
			histDash(serverWithVersion(st)), histDash(st.Model), verdictWithCause(st), histSecs(st.TotalSeconds), phaseTimes(st.Phases))
	}
	return tw.Flush()
}

func serverWithVersion(st history.Startup) string {
	if st.Version == "" {
		return st.Server
	}
	return st.Server + " " + st.Version
}

func verdictWithCause(st history.Startup) string {
	if st.Cause != "" {
		return st.Verdict + " (" + st.Cause + ")"
	}
	return histDash(st.Verdict)
}

func phaseTimes(ph []learn.Phase) string {
	parts := make([]string, 0, len(ph))
	for _, p := range ph {
		parts = append(parts, p.Name+" "+histSecs(p.Seconds))
	}
	return histDash(strings.Join(parts, ", "))
}

func histDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// histSecs prints a duration in seconds the way people read startup times:
// 0.4s, 41.7s, 2m05s, 1h02m.
func histSecs(s float64) string {
	switch {
	case s < 60:
		return strconv.FormatFloat(math.Round(s*10)/10, 'f', 1, 64) + "s"
	case s < 3600:
		r := int(math.Round(s))
		return fmt.Sprintf("%dm%02ds", r/60, r%60)
	}
	r := int(math.Round(s / 60))
	return fmt.Sprintf("%dh%02dm", r/60, r%60)
}

// --- JSON ---

// startupJSON is one startup in 'vigil history --json'. id, started_at,
// server, model, verdict, cause, total_s, phases and config are the
// documented fields; the others may be added to but not renamed.
type startupJSON struct {
	ID          int64                      `json:"id"`
	StartedAt   string                     `json:"started_at"`
	Server      string                     `json:"server"`
	Version     string                     `json:"version"`
	Model       string                     `json:"model"`
	Verdict     string                     `json:"verdict"`
	Cause       *string                    `json:"cause"`
	Phase       string                     `json:"phase"`
	Summary     string                     `json:"summary"`
	TotalS      float64                    `json:"total_s"`
	Phases      phaseSeconds               `json:"phases"`
	Config      srvconfig.Config           `json:"config"`
	Fingerprint string                     `json:"fingerprint"`
	Host        string                     `json:"host"`
	GPUs        string                     `json:"gpus"`
	LogFile     string                     `json:"log_file"`
	Mode        string                     `json:"mode,omitempty"`
	Argv        []string                   `json:"argv,omitempty"`
	Evidence    []string                   `json:"evidence,omitempty"`
	Hint        string                     `json:"hint,omitempty"`
	Results     map[string]json.RawMessage `json:"results,omitempty"`
	Remote      string                     `json:"remote,omitempty"`
	NodeRank    *int                       `json:"node_rank,omitempty"`
	NNodes      int                        `json:"nnodes,omitempty"`
}

func startupsJSON(list []history.Startup) []startupJSON {
	out := make([]startupJSON, 0, len(list))
	for _, st := range list {
		var cause *string
		if st.Cause != "" {
			c := st.Cause
			cause = &c
		}
		cfg := st.Config
		if cfg == nil {
			cfg = srvconfig.Config{}
		}
		out = append(out, startupJSON{
			ID: st.ID, StartedAt: st.StartedAt.UTC().Format(time.RFC3339Nano), Server: st.Server,
			Version: st.Version, Model: st.Model, Verdict: st.Verdict, Cause: cause, Phase: st.Phase,
			Summary: st.Summary, TotalS: st.TotalSeconds, Phases: phaseSeconds(st.Phases), Config: cfg,
			Fingerprint: st.Fingerprint, Host: st.Host, GPUs: st.GPUs, LogFile: st.LogPath, Results: st.Extra,
			Mode: st.Mode, Argv: st.Argv, Evidence: st.Evidence, Hint: st.Hint,
			Remote: st.Remote, NNodes: st.NNodes,
		})
		if st.NNodes > 0 {
			r := st.NodeRank
			out[len(out)-1].NodeRank = &r
		}
	}
	return out
}

// phaseSeconds marshals as a JSON object of phase name to seconds, in the
// order the phases were passed.
type phaseSeconds []learn.Phase

func (p phaseSeconds) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, ph := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(ph.Name)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(ph.Seconds, 'f', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func histJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// --- the timeline ---

const histBarWidth = 40

func printTimeline(w io.Writer, st history.Startup, tty bool) {
	block := "#"
	if tty {
		block = "█"
	}
	fmt.Fprintf(w, "Startup %d: %s, %s\n", st.ID, histDash(serverWithVersion(st)), histDash(st.Model))
	where := ""
	if st.Host != "" {
		where = " on " + st.Host
		if st.GPUs != "" {
			where += " (" + st.GPUs + ")"
		}
		if st.Remote != "" {
			where += ", judged over ssh " + st.Remote
		}
	}
	fmt.Fprintf(w, "Started  %s%s\n", st.StartedAt.Local().Format("2006-01-02 15:04:05"), where)
	verdict := verdictWithCause(st)
	if st.Phase != "" && st.Verdict != "ready" {
		verdict += " in " + st.Phase
	}
	fmt.Fprintf(w, "Verdict  %s after %s\n", verdict, histSecs(st.TotalSeconds))
	if st.Summary != "" {
		fmt.Fprintf(w, "Summary  %s\n", st.Summary)
	}
	if st.LogPath != "" && st.Remote != "" {
		fmt.Fprintf(w, "Log      %s:%s\n", st.Host, st.LogPath)
	} else if st.LogPath != "" {
		fmt.Fprintf(w, "Log      %s\n", st.LogPath)
	}
	if st.Mode != "" {
		fmt.Fprintf(w, "Mode     %s\n", st.Mode)
	}
	if st.NNodes > 0 {
		fmt.Fprintf(w, "Node     rank %d of %d (vigil run --hosts)\n", st.NodeRank, st.NNodes)
	}
	if len(st.Argv) > 0 {
		fmt.Fprintf(w, "Command  %s\n", strings.Join(st.Argv, " "))
	}
	for i, e := range st.Evidence {
		label := "Evidence"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(w, "%-8s %s\n", label, e)
	}
	if st.Hint != "" {
		fmt.Fprintf(w, "Hint     %s\n", st.Hint)
	}

	fmt.Fprintln(w)
	total := st.TotalSeconds
	var sum float64
	for _, p := range st.Phases {
		sum += p.Seconds
	}
	total = max(total, sum)
	if len(st.Phases) == 0 || total <= 0 {
		fmt.Fprintln(w, "  (no phase times recorded)")
	} else {
		nameW := len("total")
		for _, p := range st.Phases {
			nameW = max(nameW, len(p.Name))
		}
		var at float64
		for _, p := range st.Phases {
			from := int(math.Round(at / total * histBarWidth))
			n := int(math.Round((at+p.Seconds)/total*histBarWidth)) - from
			if p.Seconds > 0 && n == 0 {
				n = 1 // every phase that took time is visible
			}
			from = min(from, histBarWidth-n)
			bar := strings.Repeat(" ", from) + strings.Repeat(block, n)
			fmt.Fprintf(w, "  %-*s  %-*s  %7s\n", nameW, p.Name, histBarWidth, bar, histSecs(p.Seconds))
			at += p.Seconds
		}
		fmt.Fprintf(w, "  %-*s  %-*s  %7s\n", nameW, "total", histBarWidth, "", histSecs(st.TotalSeconds))
	}

	if imp := srvconfig.Important(st.Server, st.Config); len(imp) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Config")
		keyW := 0
		for _, kv := range imp {
			keyW = max(keyW, len(kv.Key))
		}
		for _, kv := range imp {
			fmt.Fprintf(w, "  %-*s  %s\n", keyW, kv.Key, histClip(kv.Value, 100))
		}
		if st.Fingerprint != "" {
			fmt.Fprintf(w, "  %-*s  %s (%d pairs in all; 'vigil history --json' has them)\n", keyW, "fingerprint", st.Fingerprint, len(st.Config))
		}
	}
	if len(st.Extra) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Results")
		for _, name := range histSortedKeys(st.Extra) {
			fmt.Fprintf(w, "  %s  %s\n", name, histClip(string(st.Extra[name]), 200))
		}
	}
}

func histClip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

func histSortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
