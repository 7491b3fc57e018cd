package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"vigil/internal/bench"
	"vigil/internal/history"
	"vigil/internal/learn"
	"vigil/internal/srvconfig"
)

func newDiffCmd(env *Env) *cobra.Command {
	var (
		jsonOut bool
		dbPath  string
	)
	cmd := &cobra.Command{
		Use:   "diff ID1 ID2",
		Short: "Show what changed between two recorded startups",
		Long: `vigil diff compares two startups from 'vigil history': the verdict, the
configuration keys added, removed or changed from ID1 to ID2, and the phase
times that changed (with the difference in seconds, and in percent of the
first time unless that was under 0.05 s; in --json pct is then null).

A phase time counts as changed when it differs by 0.1 s or more, or when
only one of the startups passed through the phase.

Exit status: 0 compared, 1 the history could not be read, 2 usage error or
no such startup.`,
		Args:          cobra.ExactArgs(2),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := loadStartup(cmd.Context(), env, dbPath, "diff", args[0])
			if err != nil {
				return err
			}
			b, err := loadStartup(cmd.Context(), env, dbPath, "diff", args[1])
			if err != nil {
				return err
			}
			d := diffStartups(a, b)
			if jsonOut {
				return histJSON(env.IO.Out, d)
			}
			printDiff(env.IO.Out, a, b, d)
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object instead of text")
	cmd.Flags().StringVar(&dbPath, "db", "", "history database `PATH` (default $XDG_STATE_HOME/vigil/history.db)")
	return cmd
}

// startupDiff is what 'vigil diff --json' prints.
type startupDiff struct {
	A       int64       `json:"a"`
	B       int64       `json:"b"`
	Server  *changed    `json:"server,omitempty"`
	Version *changed    `json:"version,omitempty"`
	Model   *changed    `json:"model,omitempty"`
	Verdict *changed    `json:"verdict,omitempty"`
	Cause   *changed    `json:"cause,omitempty"`
	Config  configDiff  `json:"config"`
	Phases  []phaseDiff `json:"phases"`
	Total   phaseDiff   `json:"total"`
	// Bench compares the serving benchmarks, per concurrency level, when
	// both startups have one.
	Bench []benchDiff `json:"bench,omitempty"`
}

// benchDiff is one concurrency level's output tokens/s and mean TTFT in
// both benchmarks.
type benchDiff struct {
	Concurrency int      `json:"concurrency"`
	ATokS       *float64 `json:"a_tok_s"`
	BTokS       *float64 `json:"b_tok_s"`
	Pct         *float64 `json:"pct"`
	ATTFTms     *float64 `json:"a_ttft_ms"`
	BTTFTms     *float64 `json:"b_ttft_ms"`
}

func diffBench(a, b history.Startup) []benchDiff {
	levels := func(st history.Startup) map[int]bench.Level {
		var r bench.Result
		raw, ok := st.Extra["bench"]
		if !ok || json.Unmarshal(raw, &r) != nil {
			return nil
		}
		m := map[int]bench.Level{}
		for _, lv := range r.Levels {
			if !lv.Warmup {
				m[lv.Concurrency] = lv
			}
		}
		return m
	}
	la, lb := levels(a), levels(b)
	if la == nil || lb == nil {
		return nil
	}
	var cs []int
	for c := range la {
		cs = append(cs, c)
	}
	for c := range lb {
		if _, ok := la[c]; !ok {
			cs = append(cs, c)
		}
	}
	slices.Sort(cs)
	var out []benchDiff
	for _, c := range cs {
		d := benchDiff{Concurrency: c}
		x, okA := la[c]
		y, okB := lb[c]
		if okA {
			d.ATokS, d.ATTFTms = ptr(x.OutputTokS), ptr(x.TTFT.Mean)
		}
		if okB {
			d.BTokS, d.BTTFTms = ptr(y.OutputTokS), ptr(y.TTFT.Mean)
		}
		if okA && okB && x.OutputTokS > 0 {
			d.Pct = ptr(math.Round((y.OutputTokS-x.OutputTokS)/x.OutputTokS*1000) / 10)
		}
		out = append(out, d)
	}
	return out
}

type changed struct {
	A string `json:"a"`
	B string `json:"b"`
}

type configDiff struct {
	Added   srvconfig.Config   `json:"added"`
	Removed srvconfig.Config   `json:"removed"`
	Changed map[string]changed `json:"changed"`
	// order keeps the changed keys in print order for the text output.
	order []string
}

type phaseDiff struct {
	Name   string   `json:"name"`
	AS     *float64 `json:"a_s"`
	BS     *float64 `json:"b_s"`
	DeltaS *float64 `json:"delta_s"`
	Pct    *float64 `json:"pct"`
}

// minPhaseChange is the smallest phase-time difference diff reports: the
// precision phase times are shown with.
const minPhaseChange = 0.1

func diffStartups(a, b history.Startup) startupDiff {
	d := startupDiff{A: a.ID, B: b.ID}
	ifChanged := func(x, y string) *changed {
		if x == y {
			return nil
		}
		return &changed{x, y}
	}
	d.Server = ifChanged(a.Server, b.Server)
	d.Version = ifChanged(a.Version, b.Version)
	d.Model = ifChanged(a.Model, b.Model)
	d.Verdict = ifChanged(a.Verdict, b.Verdict)
	d.Cause = ifChanged(a.Cause, b.Cause)

	d.Config = configDiff{Added: srvconfig.Config{}, Removed: srvconfig.Config{}, Changed: map[string]changed{}}
	for _, c := range srvconfig.Changes(a.Config, b.Config) {
		switch c.Kind {
		case "added":
			d.Config.Added = d.Config.Added.Merge([]srvconfig.KV{{Key: c.Key, Value: c.New}})
		case "removed":
			d.Config.Removed = d.Config.Removed.Merge([]srvconfig.KV{{Key: c.Key, Value: c.Old}})
		default:
			d.Config.order = append(d.Config.order, c.Key)
			d.Config.Changed[c.Key] = changed{c.Old, c.New}
		}
	}

	as, bs := phaseMap(a.Phases), phaseMap(b.Phases)
	d.Phases = []phaseDiff{}
	for _, name := range phaseUnion(a.Phases, b.Phases) {
		x, okA := as[name]
		y, okB := bs[name]
		if okA && okB && math.Abs(y-x) < minPhaseChange-1e-9 {
			continue
		}
		d.Phases = append(d.Phases, newPhaseDiff(name, x, okA, y, okB))
	}
	d.Total = newPhaseDiff("total", a.TotalSeconds, true, b.TotalSeconds, true)
	d.Bench = diffBench(a, b)
	return d
}

func newPhaseDiff(name string, x float64, okA bool, y float64, okB bool) phaseDiff {
	pd := phaseDiff{Name: name}
	if okA {
		pd.AS = ptr(x)
	}
	if okB {
		pd.BS = ptr(y)
	}
	if okA && okB {
		pd.DeltaS = ptr(math.Round((y-x)*1000) / 1000)
		// No percent of a time shown as 0.0s: "+13058%" says nothing.
		if x >= minPhaseChange/2 {
			pd.Pct = ptr(math.Round((y-x)/x*1000) / 10)
		}
	}
	return pd
}

func ptr(f float64) *float64 { return &f }

func phaseMap(ph []learn.Phase) map[string]float64 {
	m := make(map[string]float64, len(ph))
	for _, p := range ph {
		m[p.Name] += p.Seconds
	}
	return m
}

// phaseUnion lists the phases of either startup, in the contract's order.
func phaseUnion(a, b []learn.Phase) []string {
	m := phaseMap(a)
	for k, v := range phaseMap(b) {
		m[k] += v
	}
	var out []string
	for _, p := range learn.PhasesFrom(m) {
		out = append(out, p.Name)
	}
	return out
}

func printDiff(w io.Writer, a, b history.Startup, d startupDiff) {
	fmt.Fprintf(w, "Startup %d -> %d\n", a.ID, b.ID)
	if d.Server != nil || d.Version != nil {
		fmt.Fprintf(w, "%-9s%s -> %s\n", "Server", histDash(serverWithVersion(a)), histDash(serverWithVersion(b)))
	}
	if d.Model != nil {
		fmt.Fprintf(w, "%-9s%s -> %s\n", "Model", histDash(a.Model), histDash(b.Model))
	}
	if d.Verdict != nil || d.Cause != nil {
		fmt.Fprintf(w, "%-9s%s -> %s\n", "Verdict", verdictWithCause(a), verdictWithCause(b))
	} else {
		fmt.Fprintf(w, "%-9s%s (both)\n", "Verdict", verdictWithCause(b))
	}

	fmt.Fprintln(w)
	c := d.Config
	if len(c.Added)+len(c.Removed)+len(c.Changed) == 0 {
		fmt.Fprintln(w, "Config   identical")
	} else {
		fmt.Fprintf(w, "Config   %d changed, %d added, %d removed\n", len(c.Changed), len(c.Added), len(c.Removed))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, k := range c.order {
			fmt.Fprintf(tw, "  ~ %s\t%s -> %s\n", k, histClip(c.Changed[k].A, 60), histClip(c.Changed[k].B, 60))
		}
		for _, kv := range c.Added {
			fmt.Fprintf(tw, "  + %s\t%s\n", kv.Key, histClip(kv.Value, 60))
		}
		for _, kv := range c.Removed {
			fmt.Fprintf(tw, "  - %s\t%s\n", kv.Key, histClip(kv.Value, 60))
		}
		tw.Flush()
	}

	fmt.Fprintln(w)
	if len(d.Phases) == 0 {
		fmt.Fprintln(w, "Phases   same times (within 0.1s)")
	} else {
		fmt.Fprintln(w, "Phases")
	}
	rows := append(d.Phases, d.Total)
	nameW := 0
	for _, p := range rows {
		nameW = max(nameW, len(p.Name))
	}
	for _, p := range rows {
		fmt.Fprintf(w, "  %-*s  %6s -> %6s  %s\n", nameW, p.Name, secsOrDash(p.AS), secsOrDash(p.BS), deltaText(p))
	}
	if len(d.Bench) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Bench    output tok/s (mean TTFT ms)")
		for _, bd := range d.Bench {
			pct := ""
			if bd.Pct != nil {
				pct = fmt.Sprintf("  %+.1f%%", *bd.Pct)
			}
			fmt.Fprintf(w, "  c=%-4d %s -> %s%s\n", bd.Concurrency, tokOrDash(bd.ATokS, bd.ATTFTms), tokOrDash(bd.BTokS, bd.BTTFTms), pct)
		}
	}
}

func tokOrDash(tok, ttft *float64) string {
	if tok == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f (%.1f)", *tok, *ttft)
}

func secsOrDash(f *float64) string {
	if f == nil {
		return "-"
	}
	return histSecs(*f)
}

func deltaText(p phaseDiff) string {
	switch {
	case p.AS == nil:
		return "(only in the second)"
	case p.BS == nil:
		return "(only in the first)"
	}
	sign := "+"
	if *p.DeltaS < 0 {
		sign = "-"
	}
	s := sign + histSecs(math.Abs(*p.DeltaS))
	if p.Pct != nil {
		s += fmt.Sprintf(" (%+.0f%%)", *p.Pct)
	}
	return strings.TrimSpace(s)
}
