// Package scenlog renders a startup scenario as the log file its player
// would have written, without playing it in real time: every line carries
// the time it would have been printed at, and progress bars are redrawn
// with carriage returns as tqdm does. Tests and benchmarks use it to get
// real-shaped logs of every server kind in milliseconds.
package scenlog

import (
	"bufio"
	"io"
	"math"
	"time"

	"vigil/internal/scenario"
)

// Write renders sc as if its player had started at start: first the
// scenario's stale_log lines (their placeholders carry their own offsets),
// then the timeline. Events happen at start+T, or later when a blocking
// event (progress, busy, download) before them took longer, as with the
// real player. It returns the simulated time at which the last event ended.
func Write(w io.Writer, sc *scenario.Scenario, start time.Time) (time.Time, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, l := range sc.StaleLog {
		bw.WriteString(scenario.Render(l, start))
		bw.WriteByte('\n')
	}
	now := start
	for _, ev := range sc.Timeline {
		at := start.Add(secs(ev.T))
		if at.After(now) {
			now = at
		}
		switch ev.Kind {
		case scenario.KindErr, scenario.KindOut:
			for _, l := range ev.Lines {
				bw.WriteString(scenario.Render(l, now))
				bw.WriteByte('\n')
			}
		case scenario.KindProgress:
			now = writeProgress(bw, ev.Progress, now)
		case scenario.KindBusy:
			now = now.Add(secs(ev.Busy))
		case scenario.KindDownload:
			now = now.Add(secs(ev.Download.Dur))
		}
	}
	return now, bw.Flush()
}

// writeProgress draws a bar the way the player does: i = 0..To spread over
// Dur, separated by "\r" (or "\n"), ending with a newline.
func writeProgress(bw *bufio.Writer, p *scenario.Progress, t0 time.Time) time.Time {
	sep := byte('\n')
	if p.CR {
		sep = '\r'
	}
	for i := 0; i <= p.To; i++ {
		el := 0.0
		if p.To > 0 {
			el = p.Dur * float64(i) / float64(p.To)
		}
		at := t0.Add(secs(el))
		bw.WriteString(scenario.Render(ProgressLine(p, i, el), at))
		if i == p.To {
			bw.WriteByte('\n')
		} else {
			bw.WriteByte(sep)
		}
	}
	return t0.Add(secs(p.Dur))
}

// ProgressLine formats the bar's line for step i after el seconds, as the
// player does; a format the player would refuse is written as it stands.
func ProgressLine(p *scenario.Progress, i int, el float64) string {
	line, err := scenario.ProgressLine(p, i, el)
	if err != nil {
		return p.Fmt
	}
	return line
}

func secs(s float64) time.Duration {
	return time.Duration(math.Max(-1e9, math.Min(1e9, s)) * float64(time.Second))
}
