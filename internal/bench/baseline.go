package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"vigil/internal/lazyre"
)

// Baseline is what a run is held against: output tokens per second at each
// concurrency level, and, when known, the settings it was measured with.
type Baseline struct {
	Source    string          // for people: "file old.json", "reference figures c=1:67.76"
	TokS      map[int]float64 // output tokens/s by concurrency
	Model     string          // "" when unknown
	Endpoint  string
	InputLen  int
	OutputLen int
}

// BaselineSource finds the baseline for a run. A fixed *Baseline is one;
// the startup history will be another ("the last good run of the same
// model and config"), looked up from the run's model and settings.
type BaselineSource interface {
	// Lookup returns the baseline for run (whose Levels are filled in), or
	// nil when there is none.
	Lookup(ctx context.Context, run *Result) (*Baseline, error)
}

// Lookup returns b itself: a baseline given on the command line.
func (b *Baseline) Lookup(context.Context, *Result) (*Baseline, error) { return b, nil }

var specLike = lazyre.New(`^(c=)?\d+:`)

// ParseBaseline reads --baseline: reference figures such as
// 'c=1:67.76,c=8:410' (output tokens/s by concurrency; "c=" may be left
// out), or else the path of an earlier `vigil bench --json` result. The file
// is read now, so a mistake shows before a long benchmark, not after.
func ParseBaseline(arg string) (*Baseline, error) {
	arg = strings.TrimSpace(arg)
	if specLike.Get().MatchString(arg) {
		if _, err := os.Stat(arg); err != nil { // "1:2" could in theory be a file name
			return parseFigures(arg)
		}
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var old Result
	if err := json.Unmarshal(data, &old); err != nil {
		return nil, fmt.Errorf("baseline %s: not a vigil bench --json result: %w", arg, err)
	}
	b := &Baseline{Source: "file " + arg, TokS: map[int]float64{}, Model: old.Model,
		Endpoint: old.Endpoint, InputLen: old.InputLen, OutputLen: old.OutputLen}
	for _, lv := range old.Levels {
		if lv.Completed > 0 {
			b.TokS[lv.Concurrency] = lv.OutputTokS
		}
	}
	if len(b.TokS) == 0 {
		return nil, fmt.Errorf("baseline %s: no level with completed requests", arg)
	}
	return b, nil
}

func parseFigures(arg string) (*Baseline, error) {
	b := &Baseline{Source: "reference figures " + arg, TokS: map[int]float64{}}
	for f := range strings.SplitSeq(arg, ",") {
		c, v, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(f), "c="), ":")
		conc, err1 := strconv.Atoi(c)
		tok, err2 := strconv.ParseFloat(strings.TrimSuffix(v, "tok/s"), 64)
		if !ok || err1 != nil || err2 != nil || conc < 1 || tok <= 0 {
			return nil, fmt.Errorf("baseline %q: want c=CONCURRENCY:TOKENS_PER_S pairs like c=1:67.76,c=8:410", arg)
		}
		if _, dup := b.TokS[conc]; dup {
			return nil, fmt.Errorf("baseline %q: concurrency %d is given twice", arg, conc)
		}
		b.TokS[conc] = tok
	}
	return b, nil
}

// Comparison is a run held against a baseline.
type Comparison struct {
	Source       string            `json:"source"`
	TolerancePct float64           `json:"tolerance_pct"`
	Levels       []LevelComparison `json:"levels"`
	Warnings     []string          `json:"warnings,omitempty"`
	OK           bool              `json:"ok"`
}

// LevelComparison compares one level's output tokens/s.
type LevelComparison struct {
	Concurrency  int      `json:"concurrency"`
	OutputTokS   float64  `json:"output_tok_s"`
	BaselineTokS *float64 `json:"baseline_tok_s"` // null: the baseline has no figure for this level
	ChangePct    *float64 `json:"change_pct,omitempty"`
	Below        bool     `json:"below"` // by more than the tolerance
}

// Compare holds run against b: a level fails when its output tokens/s is
// more than tolerance (a fraction) below the baseline's. Levels the
// baseline lacks are shown but not judged.
func Compare(run *Result, b *Baseline, tolerance float64) *Comparison {
	cmp := &Comparison{Source: b.Source, TolerancePct: round(tolerance*100, 2), OK: true}
	for _, lv := range run.Levels {
		lc := LevelComparison{Concurrency: lv.Concurrency, OutputTokS: lv.OutputTokS}
		if ref, ok := b.TokS[lv.Concurrency]; ok {
			change := round((lv.OutputTokS-ref)/ref*100, 2)
			lc.BaselineTokS, lc.ChangePct = &ref, &change
			lc.Below = lv.OutputTokS < ref*(1-tolerance)
			if lc.Below {
				cmp.OK = false
			}
		}
		cmp.Levels = append(cmp.Levels, lc)
	}
	var missing []string
	for c := range b.TokS {
		if !slices.ContainsFunc(run.Levels, func(l Level) bool { return l.Concurrency == c }) {
			missing = append(missing, strconv.Itoa(c))
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		cmp.Warnings = append(cmp.Warnings, "not run, so not compared: c="+strings.Join(missing, ",c="))
	}
	// Figures measured with other settings do not compare; say so rather
	// than fail or pass on them silently.
	differs := func(what, was, now string) {
		if was != "" && was != now {
			cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("baseline %s was %s, now %s", what, was, now))
		}
	}
	differs("model", b.Model, run.Model)
	differs("endpoint", b.Endpoint, run.Endpoint)
	if b.InputLen != 0 {
		differs("input length", strconv.Itoa(b.InputLen), strconv.Itoa(run.InputLen))
	}
	if b.OutputLen != 0 {
		differs("output length", strconv.Itoa(b.OutputLen), strconv.Itoa(run.OutputLen))
	}
	return cmp
}
