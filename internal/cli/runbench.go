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
