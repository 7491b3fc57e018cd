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
