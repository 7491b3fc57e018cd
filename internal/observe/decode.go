package observe

import "encoding/json"

// DecodePayload reads an NDJSON event's fields back into the payload of
// its kind (the line's "event"): how a stream another vigil wrote (over
// ssh) becomes events again. ok is false for a kind this package does not
// define or fields that do not fit it.
func DecodePayload(kind Kind, raw []byte) (p Payload, ok bool) {
	decode := func(v any) bool { return json.Unmarshal(raw, v) == nil }
	switch kind {
	case KindServer:
		var d ServerSeen
		return d, decode(&d)
	case KindProgress:
		var d Progress
		return d, decode(&d)
	case KindReadyLine:
		var d ReadyLine
		return d, decode(&d)
	case KindFailing:
		var d Failing
		return d, decode(&d)
	case KindPhase:
		var d PhaseChange
		return d, decode(&d)
	case KindETA:
		var d ETA
		return d, decode(&d)
	case KindConfig:
		var d ConfigSeen
		return d, decode(&d)
	case KindWarning:
		var d Warning
		return d, decode(&d)
	case KindHealth:
		var d HealthChange
		return d, decode(&d)
	case KindQuiet:
		var d Quiet
		return d, decode(&d)
	case KindExit:
		var d ExitSeen
		return d, decode(&d)
	case KindSmoke:
		var d Smoke
		return d, decode(&d)
	}
	return nil, false
}

// VerdictFields are the contract's fields of a "verdict" event, as another
// vigil wrote them: what its readers (the remote view, a multi-node
// member's outcome, the local record of a remote startup) take from it.
// Results attached to it (smoke, bench, ...) are read from the raw event.
type VerdictFields struct {
	Event       string             `json:"event"`
	T           float64            `json:"t"`
	Verdict     string             `json:"verdict"`
	Cause       string             `json:"cause"` // null (ready) reads as ""
	Phase       string             `json:"phase"`
	Summary     string             `json:"summary"`
	Hint        string             `json:"hint"`
	Evidence    []string           `json:"evidence"`
	LogFile     string             `json:"log_file"`
	Server      string             `json:"server"`
	ElapsedS    float64            `json:"elapsed_s"`
	Phases      map[string]float64 `json:"phases"`
	Rule        string             `json:"rule"`
	Config      map[string]string  `json:"config"`
	Important   map[string]string  `json:"important"`
	Fingerprint string             `json:"fingerprint"`
	HistoryID   int64              `json:"history_id"`
	PID         int                `json:"pid"`
}

// DecodeVerdict reads a verdict event's fields; ok is false for another
// event, a line that is not JSON, or a verdict event without a verdict.
func DecodeVerdict(raw []byte) (d VerdictFields, ok bool) {
	if json.Unmarshal(raw, &d) != nil || d.Event != "verdict" || d.Verdict == "" {
		return VerdictFields{}, false
	}
	return d, true
}
