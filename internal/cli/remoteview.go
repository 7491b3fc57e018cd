package cli

import (
	"encoding/json"
	"time"

	"vigil/internal/classify"
	"vigil/internal/observe"
	"vigil/internal/remote"
	"vigil/internal/render"
	v "vigil/internal/verdict"
)

// remoteView shows the NDJSON of a vigil run or watch on another host
// through the local renderers, so the startup looks as it would here: the
// same header, phase lines or live view, and verdict block. The log is
// named host:path. What it cannot read as an event passes to fallback.
type remoteView struct {
	r        render.Renderer
	host     string
	fallback func(remote.Event)

	start time.Time // the remote's t = 0 on this clock
	begun bool
	st    render.Status
	spans []observe.PhaseSpan
}

// at places a remote time (seconds since the remote vigil started) on
// this machine's clock.
func (w *remoteView) at(t float64) time.Time {
	return w.start.Add(time.Duration(t * float64(time.Second)))
}

func (w *remoteView) event(e remote.Event) {
	if !w.begun && e.Name != "start" {
		w.fallback(e)
		return
	}
	switch e.Name {
	case "start":
		w.start = e.Received.Add(-time.Duration(e.T * float64(time.Second)))
		info, err := render.ParseStart(e.Raw, w.start)
		if err != nil {
			w.fallback(e)
			return
		}
		if info.LogFile != "" {
			info.LogFile = w.host + ":" + info.LogFile
		}
		if b := info.Budget; b != nil {
			w.st.Timeout, w.st.StallAfter = b.Timeout, b.StallAfter
		}
		w.st.Server = info.Server
		w.spans = []observe.PhaseSpan{{Phase: v.Launch, Start: w.start}}
		w.begun = true
		w.r.Begin(info)
	case "note":
		var n struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Raw, &n) != nil {
			w.fallback(e)
			return
		}
		w.r.Note(w.at(e.T), "%s", n.Message)
	case "verdict":
		res, st, err := render.ParseVerdict(e.Raw, w.start, w.spans)
		if err != nil {
			w.fallback(e)
			return
		}
		w.r.End(res, st)
	default:
		p, ok := observe.DecodePayload(observe.Kind(e.Name), e.Raw)
		if !ok {
			w.fallback(e)
			return
		}
		at := w.at(e.T)
		w.follow(p, at)
		w.r.Event(observe.Event{At: at, Data: p}, w.st)
	}
}

// follow keeps the status the live view shows, as the remote judge had it.
func (w *remoteView) follow(p observe.Payload, at time.Time) {
	w.st.Now, w.st.LastProgress = at, at
	switch d := p.(type) {
	case observe.ServerSeen:
		w.st.Server = d.Server
	case observe.PhaseChange:
		w.st.Phase, w.st.Progress = v.Phase(d.Phase), nil
		w.spans = append(w.spans, observe.PhaseSpan{Phase: v.Phase(d.Phase), Start: at})
	case observe.Progress:
		w.st.Progress = &classify.Progress{Desc: d.Desc, Percent: d.Percent, Done: d.Done, Total: d.Total, Rate: d.Rate, ETA: d.ETA}
	case observe.HealthChange:
		w.st.Health = observe.Health{State: d.State, Code: d.Code}
	case observe.Quiet:
		w.st.Activity = d.Activity
	}
}
