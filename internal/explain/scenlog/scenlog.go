// Package scenlog renders a startup scenario as the log file its player
// would have written, without playing it in real time: every line carries
// the time it would have been printed at, and progress bars are redrawn
// with carriage returns as tqdm does. Tests and benchmarks use it to get
// real-shaped logs of every server kind in milliseconds.
package scenlog

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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

// ProgressLine formats the bar's line for step i after el seconds. It knows
// the fields of the format (pct, i, n, el, eta, rate) and the format specs
// scenarios use (width, zero padding, alignment, precision, d/f/s); a field
// it cannot format is left as written.
func ProgressLine(p *scenario.Progress, i int, el float64) string {
	rate := 0.0
	if el > 0 {
		rate = float64(i) / el
	}
	eta := 0.0
	if rate > 0 {
		eta = float64(p.N-i) / rate
	}
	n := max(p.N, 1)
	vals := map[string]any{
		"pct":  int(100 * float64(i) / float64(n)),
		"i":    i,
		"n":    p.N,
		"rate": rate,
		"el":   mmss(el),
		"eta":  mmss(eta),
	}
	var b strings.Builder
	s := p.Fmt
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			b.WriteString(s)
			break
		}
		// "{{" is a literal brace in Python's format strings.
		if strings.HasPrefix(s[open:], "{{") {
			b.WriteString(s[:open+1])
			s = s[open+2:]
			continue
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:open])
		field := s[open+1 : open+end]
		name, spec, _ := strings.Cut(field, ":")
		if v, ok := vals[name]; ok {
			b.WriteString(format(v, spec))
		} else {
			b.WriteString(s[open : open+end+1])
		}
		s = s[open+end+1:]
	}
	return strings.ReplaceAll(b.String(), "}}", "}")
}

// format applies a small part of Python's format mini-language:
// [[fill]align][0][width][.precision][type].
func format(v any, spec string) string {
	fill, align := byte(' '), byte(0)
	if len(spec) >= 2 && strings.IndexByte("<>^", spec[1]) >= 0 {
		fill, align, spec = spec[0], spec[1], spec[2:]
	} else if len(spec) >= 1 && strings.IndexByte("<>^", spec[0]) >= 0 {
		align, spec = spec[0], spec[1:]
	}
	if strings.HasPrefix(spec, "0") {
		fill, align = '0', '='
		spec = spec[1:]
	}
	typ := byte(0)
	if spec != "" && strings.IndexByte("dfs", spec[len(spec)-1]) >= 0 {
		typ, spec = spec[len(spec)-1], spec[:len(spec)-1]
	}
	widthStr, precStr, hasPrec := strings.Cut(spec, ".")
	width, _ := strconv.Atoi(widthStr)
	prec, _ := strconv.Atoi(precStr)
	width, prec = min(width, 1000), min(prec, 100)
	var body string
	numeric := true
	switch x := v.(type) {
	case int:
		if typ == 'f' {
			if !hasPrec {
				prec = 6
			}
			body = strconv.FormatFloat(float64(x), 'f', prec, 64)
		} else {
			body = strconv.Itoa(x)
		}
	case float64:
		if !hasPrec {
			prec = 6
		}
		if typ == 'd' {
			body = strconv.Itoa(int(x))
		} else {
			body = strconv.FormatFloat(x, 'f', prec, 64)
		}
	default:
		body = fmt.Sprint(x)
		numeric = false
		if hasPrec && prec < len(body) {
			body = body[:prec]
		}
	}
	if align == 0 {
		align = '<'
		if numeric {
			align = '>'
		}
	}
	padN := width - len(body)
	if padN <= 0 {
		return body
	}
	pad := strings.Repeat(string(fill), padN)
	switch align {
	case '<':
		return body + pad
	case '^':
		return pad[:padN/2] + body + pad[padN/2:]
	case '=':
		if strings.HasPrefix(body, "-") {
			return "-" + pad + body[1:]
		}
	}
	return pad + body
}

// mmss is Python's "%02d:%02d" % divmod(int(sec), 60).
func mmss(sec float64) string {
	s := int64(math.Max(-1e9, math.Min(1e9, sec)))
	m, r := s/60, s%60
	if r < 0 {
		m, r = m-1, r+60
	}
	return fmt.Sprintf("%02d:%02d", m, r)
}

func secs(s float64) time.Duration {
	return time.Duration(math.Max(-1e9, math.Min(1e9, s)) * float64(time.Second))
}
