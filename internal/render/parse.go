package render

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"vigil/internal/observe"
	"vigil/internal/srvconfig"
	v "vigil/internal/verdict"
)

// The inverse of JSON: a stream another vigil wrote (over ssh) read back
// into what the renderers take, so a remote startup is shown as a local one.

// ParseStart reads a "start" event into the session's Info; start is when
// the session began on this machine's clock.
func ParseStart(raw []byte, start time.Time) (Info, error) {
	var s struct {
		Mode    string   `json:"mode"`
		LogFile string   `json:"log_file"`
		URL     string   `json:"url"`
		PID     int      `json:"pid"`
		Server  string   `json:"server"`
		Argv    []string `json:"argv"`
		Budget  *struct {
			Timeout     float64 `json:"timeout_s"`
			TimeoutFrom string  `json:"timeout_from"`
			StallAfter  float64 `json:"stall_after_s"`
			StallFrom   string  `json:"stall_after_from"`
			Samples     int     `json:"samples"`
		} `json:"budget"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return Info{}, err
	}
	info := Info{Mode: s.Mode, LogFile: s.LogFile, URL: s.URL, PID: s.PID, Server: s.Server, Argv: s.Argv, Start: start}
	if b := s.Budget; b != nil {
		info.Budget = &Budget{Timeout: secs(b.Timeout), TimeoutFrom: b.TimeoutFrom, StallAfter: secs(b.StallAfter), StallFrom: b.StallFrom, Samples: b.Samples}
	}
	return info, nil
}

// verdictFields are the verdict event's own fields; the others are the
// results attached to it (smoke, bench, kernels, ...).
var verdictFields = []string{"event", "t", "verdict", "cause", "phase", "summary", "hint", "evidence", "log_file",
	"server", "elapsed_s", "phases", "rule", "config", "important", "fingerprint", "history_id", "pid"}

// ParseVerdict reads a "verdict" event back into the result and the
// status End takes. start is when the session began on this machine's
// clock; spans are the phases as the stream's phase events showed them
// (nil: rebuilt from the verdict's durations, in the contract's order).
func ParseVerdict(raw []byte, start time.Time, spans []observe.PhaseSpan) (*observe.Result, Status, error) {
	d, ok := observe.DecodeVerdict(raw)
	if !ok {
		return nil, Status{}, errors.New("not a verdict event")
	}
	r := &observe.Result{
		Verdict: v.Verdict(d.Verdict), Cause: v.Cause(d.Cause), Phase: v.Phase(d.Phase), Summary: d.Summary, Hint: d.Hint,
		Evidence: d.Evidence, Server: d.Server, RuleID: d.Rule, Fingerprint: d.Fingerprint,
		At: start.Add(secs(d.ElapsedS)),
	}
	r.Phases = spans
	if len(spans) == 0 {
		r.Phases = spansOf(d.Phases, start)
	}
	keys := make([]string, 0, len(d.Config))
	for k := range d.Config {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		r.Config = append(r.Config, srvconfig.KV{Key: k, Value: d.Config[k]})
	}
	for _, k := range srvconfig.CanonicalKeys {
		if val, ok := d.Important[k]; ok {
			r.Important = append(r.Important, srvconfig.KV{Key: k, Value: val})
		}
	}
	st := Status{Now: r.At, Server: d.Server, Phase: r.Phase, HistoryID: d.HistoryID}
	var all map[string]json.RawMessage
	_ = json.Unmarshal(raw, &all)
	for k, x := range all {
		if slices.Contains(verdictFields, k) {
			continue
		}
		if st.Extras == nil {
			st.Extras = map[string]any{}
		}
		st.Extras[k] = x
	}
	return r, st, nil
}

// spansOf lays phase durations end to end from start, in the contract's
// order of phases.
func spansOf(durations map[string]float64, start time.Time) []observe.PhaseSpan {
	var spans []observe.PhaseSpan
	at := start
	for _, p := range v.Phases {
		if d, ok := durations[string(p)]; ok {
			spans = append(spans, observe.PhaseSpan{Phase: p, Start: at})
			at = at.Add(secs(d))
		}
	}
	return spans
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
