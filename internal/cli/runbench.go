package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"vigil/internal/bench"
	"vigil/internal/history"
	"vigil/internal/observe"
	"vigil/internal/verdict"
)

// benchAfterReady runs the serving benchmark of `vigil run --bench` on a
// server that is ready, and returns its result for the verdict event and
// the history. A benchmark that cannot run is reported, never a reason to
// stop the server or change the verdict: the startup itself succeeded.
func benchAfterReady(ctx context.Context, w io.Writer, base, key string, o bench.Options, hist *startupHistory, res *observe.Result) (*bench.Result, string) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	r, err := bench.Run(ctx, bench.NewClient(base, key, o), o, nil)
	if err != nil {
		return nil, "bench: " + err.Error()
	}
	var src bench.BaselineSource
	if o.Baseline != "" {
		b, err := bench.ParseBaseline(o.Baseline)
		if err != nil {
			return r, "bench: " + err.Error()
		}
		src = b
	} else if hist.store != nil {
		src = &historyBaseline{store: hist.store, model: importantValue(res.Important, "model"), fingerprint: res.Fingerprint}
	}
	if err := r.Judge(ctx, src, o.Tolerance); err != nil {
		return r, "bench: " + err.Error()
	}
	_ = bench.WriteText(w, r)
	if !r.OK {
		return r, fmt.Sprintf("bench: below its baseline: %v", r.Problems())
	}
	return r, ""
}

// historyBaseline is "the last good run of the same model and config": the
// newest ready startup with the same model and configuration fingerprint
// that has benchmark results.
type historyBaseline struct {
	store              *history.Store
	model, fingerprint string
}

func (h *historyBaseline) Lookup(ctx context.Context, run *bench.Result) (*bench.Baseline, error) {
	if h.model == "" {
		return nil, nil
	}
	past, err := h.store.List(ctx, history.Filter{Model: h.model, Limit: 50})
	if err != nil {
		return nil, err
	}
	for _, st := range past {
		raw, ok := st.Extra["bench"]
		if !ok || st.Verdict != "ready" || st.Fingerprint != h.fingerprint || st.Model != h.model {
			continue
		}
		var old bench.Result
		if json.Unmarshal(raw, &old) != nil {
			continue
		}
		b := &bench.Baseline{Source: fmt.Sprintf("history: startup %d of %s", st.ID, st.StartedAt.Format(time.DateTime)),
			TokS: map[int]float64{}, Model: old.Model, Endpoint: old.Endpoint, InputLen: old.InputLen, OutputLen: old.OutputLen}
		for _, lv := range old.Levels {
			if lv.Completed > 0 {
				b.TokS[lv.Concurrency] = lv.OutputTokS
			}
		}
		if len(b.TokS) > 0 {
			return b, nil
		}
	}
	return nil, nil
}

// gateBench makes a ready startup whose benchmark fell below its baseline
// a failed one (cause regression), the figures as evidence, and reports
// whether it did.
func gateBench(res *observe.Result, b *bench.Result) bool {
	if res.Verdict != verdict.Ready || b.Baseline == nil || b.Baseline.OK {
		return false
	}
	res.Verdict, res.Cause = verdict.Failed, verdict.Regression
	res.Summary = fmt.Sprintf("ready, but the serving benchmark fell more than %g%% below its baseline (%s)", b.Baseline.TolerancePct, b.Baseline.Source)
	res.Evidence = nil
	for _, p := range b.Problems() {
		res.Evidence = append(res.Evidence, "[bench] "+p)
	}
	res.Hint = "compare the server's configuration and version with the baseline's; a different GPU, driver, quantization or attention backend changes throughput. Raise the tolerance with --bench 'tolerance=20%' only if the baseline was noisy"
	return true
}

// baselineNote says which baseline the benchmark was held against and why
// that one.
func baselineNote(o bench.Options, b *bench.Result) string {
	switch {
	case b.Baseline != nil && o.Baseline != "":
		return "bench: baseline " + b.Baseline.Source + ", as given with --bench baseline="
	case b.Baseline != nil:
		return "bench: baseline " + b.Baseline.Source + ": the last ready start of this model and configuration with benchmark results (none was given)"
	default:
		return "bench: no baseline: none given with --bench baseline=, and no earlier ready start of this model and configuration has benchmark results"
	}
}
