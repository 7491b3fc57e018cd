package bench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Judge holds r against the baseline src finds (src may be nil: no
// baseline) and sets r.Baseline and r.OK.
func (r *Result) Judge(ctx context.Context, src BaselineSource, tolerance float64) error {
	if src == nil {
		return nil
	}
	b, err := src.Lookup(ctx, r)
	if err != nil {
		return fmt.Errorf("looking up the baseline: %w", err)
	}
	if b == nil {
		return nil
	}
	r.Baseline = Compare(r, b, tolerance)
	r.OK = r.OK && r.Baseline.OK
	return nil
}

// Problems lists, one line each, why r is not OK.
func (r *Result) Problems() []string {
	var out []string
	for _, lv := range r.Levels {
		switch {
		case lv.Warmup:
			out = append(out, fmt.Sprintf("c=%d: all %d warmup requests failed; later levels were not run", lv.Concurrency, lv.Failed))
		case lv.Completed == 0:
			out = append(out, fmt.Sprintf("c=%d: no request completed", lv.Concurrency))
		case lv.tooManyFailures(r.MaxFailuresPct / 100):
			out = append(out, fmt.Sprintf("c=%d: %d of %d requests failed, more than the %g%% allowed",
				lv.Concurrency, lv.Failed, lv.Completed+lv.Failed, r.MaxFailuresPct))
		}
	}
	if r.Baseline != nil {
		for _, lc := range r.Baseline.Levels {
			if lc.Below {
				out = append(out, fmt.Sprintf("c=%d: %.2f tok/s is %.1f%% below the baseline's %.2f (tolerance %g%%)",
					lc.Concurrency, lc.OutputTokS, -*lc.ChangePct, *lc.BaselineTokS, r.Baseline.TolerancePct))
			}
		}
	}
	return out
}

// WriteText prints r for people: one table row per level, then failures,
// notes and the baseline comparison.
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	eos := ""
	if r.IgnoreEOS {
		eos = ", ignore_eos"
	}
	fmt.Fprintf(&b, "%s %s%s  model %s  input ~%d  output %d tokens%s\n\n",
		"vigil bench", r.URL, r.Endpoint, r.Model, r.InputLen, r.OutputLen, eos)

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "c\tdone\tfailed\tout tok/s\treq/s\t"
	if r.SLO != nil {
		head += "goodput/s\t"
	}
	head += "TTFT ms mean/p99\tITL ms mean/p99\tTPOT ms mean\tE2E s p50\t"
	fmt.Fprintln(tw, head)
	for _, lv := range r.Levels {
		row := fmt.Sprintf("%d\t%d\t%d\t%.2f\t%.3f\t", lv.Concurrency, lv.Completed, lv.Failed, lv.OutputTokS, lv.ReqS)
		if r.SLO != nil {
			g := 0.0
			if lv.GoodputReqS != nil {
				g = *lv.GoodputReqS
			}
			row += fmt.Sprintf("%.3f\t", g)
		}
		row += fmt.Sprintf("%.1f / %.1f\t%.2f / %.2f\t%.2f\t%.2f\t",
			lv.TTFT.Mean, lv.TTFT.P99, lv.ITL.Mean, lv.ITL.P99, lv.TPOT.Mean, lv.E2E.P50/1000)
		fmt.Fprintln(tw, row)
	}
	tw.Flush()

	var cpu []string
	for _, lv := range r.Levels {
		if lv.Warmup {
			fmt.Fprintf(&b, "c=%d: every warmup request failed, so the level was not measured\n", lv.Concurrency)
		}
		for _, f := range lv.Failures {
			fmt.Fprintf(&b, "c=%d: %d failed: %s (%s)\n", lv.Concurrency, f.Count, f.Reason, f.Example)
		}
		if lv.ServerErrors > 0 {
			fmt.Fprintf(&b, "c=%d: %d requests ended in an error event inside the stream\n", lv.Concurrency, lv.ServerErrors)
		}
		if lv.Resent > 0 {
			fmt.Fprintf(&b, "c=%d: %d requests were sent again on a fresh connection: the server had closed the kept-alive one (not failures)\n", lv.Concurrency, lv.Resent)
		}
		switch lv.TokensFrom {
		case "chunks":
			fmt.Fprintf(&b, "c=%d: the server reported no usage; output tokens counted from the chunks that arrived\n", lv.Concurrency)
		case "mixed":
			fmt.Fprintf(&b, "c=%d: the server reported usage for some requests only; the rest counted from chunks\n", lv.Concurrency)
		}
		// Requests are timed from when they were written; say so when they
		// waited long before that, as the client or network held them back.
		if lv.Send.P99 > 10 {
			fmt.Fprintf(&b, "c=%d: requests waited up to %.1f ms (p99) in the client before being sent\n", lv.Concurrency, lv.Send.P99)
		}
		if lv.ClientCPUms > 0 {
			cpu = append(cpu, fmt.Sprintf("c=%d %.3f ms", lv.Concurrency, lv.ClientCPUms))
		}
	}
	if r.SLO != nil {
		var limits []string
		for _, l := range []struct {
			name string
			ms   float64
		}{{"TTFT", r.SLO.TTFT}, {"TPOT", r.SLO.TPOT}, {"E2E", r.SLO.E2E}} {
			if l.ms > 0 {
				limits = append(limits, fmt.Sprintf("%s <= %g ms", l.name, l.ms))
			}
		}
		fmt.Fprintf(&b, "goodput: requests per second with %s\n", strings.Join(limits, " and "))
	}
	if len(cpu) > 0 {
		fmt.Fprintf(&b, "vigil's own CPU per request: %s\n", strings.Join(cpu, ", "))
	}

	if c := r.Baseline; c != nil {
		fmt.Fprintf(&b, "\nbaseline: %s (tolerance %g%%)\n", c.Source, c.TolerancePct)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, lc := range c.Levels {
			if lc.BaselineTokS == nil {
				fmt.Fprintf(tw, "c=%d\t%.2f tok/s\t\t\tno baseline\t\n", lc.Concurrency, lc.OutputTokS)
				continue
			}
			verdict := "ok"
			if lc.Below {
				verdict = "BELOW"
			}
			fmt.Fprintf(tw, "c=%d\t%.2f tok/s\tvs %.2f\t%+.1f%%\t%s\t\n", lc.Concurrency, lc.OutputTokS, *lc.BaselineTokS, *lc.ChangePct, verdict)
		}
		tw.Flush()
		for _, w := range c.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
