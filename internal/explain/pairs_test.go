package explain

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vigil/internal/explain/scenlog"
	"vigil/internal/logline"
	"vigil/internal/scenario"
	"vigil/internal/stamp"
)

// TestRestarts: any startup followed in the same log by a restart, soon
// or much later, is two runs, each judged as if it were alone, the second
// starting where the restart's output does (give or take the few lines of
// noise a process may print before its banner). Every pair of scenarios is
// tried. The one exception is the same start-up crash twice with no stamp
// between them: ranks started together print the very same crash, so it
// is one run.
func TestRestarts(t *testing.T) {
	type startup struct {
		name string
		sc   *scenario.Scenario
	}
	var all []startup
	for _, file := range scenarioFiles(t) {
		sc, err := scenario.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.StaleLog) > 0 {
			continue // a log that holds a run already
		}
		if !announced(t, sc) {
			// A start that prints no banner and dies of no start-up
			// crash is only told apart by time (TestTwoRuns).
			continue
		}
		all = append(all, startup{strings.TrimSuffix(filepath.Base(file), ".json"), sc})
	}
	gaps := []time.Duration{2 * time.Minute, 20 * time.Minute}
	if raceEnabled {
		gaps = gaps[:1]
	}
	wrong := 0
	for _, a := range all {
		for _, b := range all {
			for _, gap := range gaps {
				var buf bytes.Buffer
				end, _ := scenlog.Write(&buf, a.sc, start)
				bFirst := int64(bytes.Count(buf.Bytes(), []byte("\n"))) + 1
				scenlog.Write(&buf, b.sc, end.Add(gap).Truncate(time.Second))
				lines := int64(bytes.Count(buf.Bytes(), []byte("\n")))
				runs := readAll(t, bytes.NewReader(buf.Bytes()), Options{})

				va, ca, _ := offline(a.sc.Expect)
				vb, cb, _ := offline(b.sc.Expect)
				var got []string
				for _, r := range runs {
					got = append(got, fmt.Sprintf("%s/%s from line %d", r.Verdict, r.Cause, r.FirstLine))
				}
				ok := len(runs) == 2 &&
					runs[0].Verdict == va && runs[0].Cause == ca &&
					runs[1].Verdict == vb && runs[1].Cause == cb &&
					runs[1].FirstLine >= bFirst && runs[1].FirstLine <= bFirst+preBannerMax &&
					runs[0].Lines+runs[1].Lines == lines
				if !ok && a.name == b.name && len(runs) == 1 && runs[0].Verdict == va && runs[0].Cause == ca && !runs[0].Timed {
					ok = true // the same crash twice, unstamped
				}
				if !ok {
					wrong++
					t.Errorf("%s, restarted %s later as %s: got %q; want %s/%s, then %s/%s from line %d",
						a.name, gap, b.name, got, va, ca, vb, cb, bFirst)
				}
			}
		}
	}
	if wrong > 0 {
		t.Logf("%d of %d restarts judged wrong", wrong, len(all)*len(all)*len(gaps))
	}
}

// announced reports whether a startup's log shows where it starts: a
// start banner or a start-up crash block.
func announced(t *testing.T, sc *scenario.Scenario) bool {
	var buf bytes.Buffer
	scenlog.Write(&buf, sc, start)
	c := &chunk{}
	c.lines = logline.NewCutter().Split(buf.String(), nil)
	c.learn(stamp.NewReader(time.Local, now), nil)
	for i := range c.meta {
		if c.meta[i].flags&(fBanner|fCrash) != 0 {
			return true
		}
	}
	return false
}
