package explain

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	v "vigil/internal/verdict"
)

// The text form as it was written with fmt, the reference WriteText is
// held to.

func writeTextRef(w io.Writer, r *Run) error {
	b, ok := w.(*bufio.Writer)
	if !ok {
		b = bufio.NewWriter(w)
	}
	fmt.Fprintf(b, "run %d", r.Index)
	if r.Service != "" {
		fmt.Fprintf(b, "  service %s", r.Service)
	}
	server := r.Server
	if server == "" {
		server = "unknown server"
	}
	fmt.Fprintf(b, "  %s", server)
	if r.Timed {
		fmt.Fprintf(b, "  %s -> %s (%s)", r.Start.Format("2006-01-02 15:04:05"), r.End.Format("15:04:05"), fmtDurRef(r.End.Sub(r.Start)))
	}
	fmt.Fprintf(b, "  lines %d-%d\n", r.FirstLine, r.FirstLine+r.Lines-1)
	switch r.Verdict {
	case "":
		fmt.Fprintf(b, "  verdict   none: ended in phase %s\n", r.Phase)
	case "failed":
		fmt.Fprintf(b, "  verdict   failed: %s in phase %s\n", r.Cause, r.Phase)
	default:
		fmt.Fprintf(b, "  verdict   %s\n", r.Verdict)
	}
	fmt.Fprintf(b, "  summary   %s\n", r.Summary)
	lifeTextRef(b, r.Life)
	if len(r.Phases) > 0 {
		var ps []string
		for _, p := range mergePhases(r.Phases) {
			if p.Timed {
				ps = append(ps, fmt.Sprintf("%s %s", p.Name, fmtDurRef(time.Duration(p.Seconds*float64(time.Second)))))
			} else {
				ps = append(ps, string(p.Name))
			}
		}
		fmt.Fprintf(b, "  phases    %s\n", strings.Join(ps, " > "))
	}
	if len(r.Evidence) > 0 {
		b.WriteString("  evidence\n")
		for _, e := range r.Evidence {
			fmt.Fprintf(b, "    %s\n", e)
		}
	}
	if r.Hint != "" {
		fmt.Fprintf(b, "  hint      %s\n", r.Hint)
	}
	if !ok {
		return b.Flush()
	}
	_, err := b.Write(nil) // the writer's first error, kept once it failed
	return err
}

func lifeTextRef(b io.Writer, a *AfterReady) {
	if a == nil {
		return
	}
	after := ""
	if a.Timed {
		after = " after " + lifeDurRef(a.After)
	}
	switch a.How {
	case LifeDied, LifeHung:
		fmt.Fprintf(b, "  after ready  %s%s: %s: %s\n", a.How, after, a.Cause, a.Summary)
		for _, e := range a.Evidence {
			fmt.Fprintf(b, "    %s\n", e)
		}
	case LifeServing:
		if a.Timed {
			fmt.Fprintf(b, "  after ready  still serving at the end of the log, %s after ready\n", lifeDurRef(a.After))
		} else {
			fmt.Fprintf(b, "  after ready  still serving at the end of the log\n")
		}
	default:
		fmt.Fprintf(b, "  after ready  ended%s without a word of why; the next start followed\n", after)
	}
}
func lifeDurRef(d time.Duration) string {
	if d < time.Hour {
		return fmtDurRef(d)
	}
	m := int64(d / time.Minute)
	return fmt.Sprintf("%dh%dm", m/60, m%60)
}

func fmtDurRef(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// TestWriteTextRef compares WriteText with the fmt form on runs that go
// through each of its branches.
func TestWriteTextRef(t *testing.T) {
	t0 := time.Date(2026, 5, 17, 8, 27, 32, 0, time.UTC)
	durs := []time.Duration{0, 49 * time.Millisecond, 950 * time.Millisecond, 59949 * time.Millisecond, 59951 * time.Millisecond,
		time.Minute, 4*time.Minute + 43*time.Second, 59*time.Minute + 59500*time.Millisecond, time.Hour, 9185*time.Hour + 44*time.Minute + 59*time.Second, -time.Second}
	var runs []*Run
	for i, d := range durs {
		for _, verdict := range []v.Verdict{"", v.Failed, v.Ready} {
			r := &Run{Index: i + 1, Service: []string{"", "qwen3.5-9b"}[i%2], Server: []string{"", "sglang", "vllm"}[i%3], Start: t0, End: t0.Add(d), Timed: i%4 != 3,
				FirstLine: int64(i * 100), Lines: int64(i + 1), Verdict: verdict, Cause: v.GPUOOM, Phase: v.Weights,
				Summary: "a 100% summary %s", Hint: []string{"", "a hint"}[i%2], Evidence: []string{"line one", "50% %d"}[:i%3]}
			if i%2 == 0 {
				r.Phases = []Phase{{Name: v.Launch, Seconds: d.Seconds(), Timed: r.Timed}, {Name: v.Weights, Seconds: 1.25, Timed: r.Timed}, {Name: v.Launch, Seconds: 2, Timed: r.Timed}}
			}
			runs = append(runs, r)
			for _, how := range []string{LifeDied, LifeHung, LifeServing, LifeEnded} {
				rr := *r
				rr.Life = &AfterReady{How: how, Cause: v.Crash, After: d, Timed: i%2 == 1, Summary: "died of it", Evidence: []string{"ev 1", "ev %2"}[:i%3]}
				runs = append(runs, &rr)
			}
		}
	}
	for _, r := range runs {
		var want bytes.Buffer
		if err := writeTextRef(&want, r); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		b := bufio.NewWriter(&got)
		if err := WriteText(b, r); err != nil {
			t.Fatal(err)
		}
		b.Flush()
		if got.String() != want.String() {
			t.Fatalf("run %+v:\ngot  %q\nwant %q", r, got.String(), want.String())
		}
		got.Reset()
		if err := WriteText(&got, r); err != nil || got.String() != want.String() {
			t.Fatalf("unbuffered: got %q (%v), want %q", got.String(), err, want.String())
		}
	}
}

// mergePhasesRef is mergePhases as it was written, with a map.
func mergePhasesRef(ps []Phase) []Phase {
	var out []Phase
	at := map[string]int{}
	for _, p := range ps {
		if i, ok := at[string(p.Name)]; ok {
			out[i].Seconds += p.Seconds
			continue
		}
		at[string(p.Name)] = len(out)
		out = append(out, p)
	}
	return out
}

func TestMergePhasesRef(t *testing.T) {
	names := []v.Phase{v.Launch, v.Init, v.Weights, v.KVCache, v.PhaseReady}
	for n := range 40 {
		var ps []Phase
		for i := range n {
			ps = append(ps, Phase{Name: names[(i*7+n)%len(names)%(1+n%len(names))], Seconds: float64(i) / 4, Timed: n%2 == 0})
		}
		if got, want := mergePhases(ps), mergePhasesRef(ps); !reflect.DeepEqual(got, want) {
			t.Fatalf("mergePhases(%v) = %v, want %v", ps, got, want)
		}
	}
}
