package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"vigil/internal/colour"
	"vigil/internal/observe"
	"vigil/internal/termsafe"
)

// Live redraws a small status block on a terminal: phase, progress bar with
// rate and ETA, health, elapsed time and the last meaningful line. Lines
// that matter (phase changes, warnings) are printed above the block and
// stay in the scrollback.
type Live struct {
	W     io.Writer
	Width int
	Pal   colour.Palette
	// Out takes the verdict block, coloured with OutPal; nil means W.
	Out    io.Writer
	OutPal colour.Palette
	info   Info
	drawn  int // lines of the block currently on screen
	last   time.Time
	spin   int
}

// Begin prints the header.
func (l *Live) Begin(info Info) {
	l.info = info
	if l.Width <= 20 {
		l.Width = 100
	}
	fmt.Fprintf(l.W, "vigil: log %s, health %s\n", termsafe.String(info.LogFile), termsafe.String(info.URL))
	if info.Budget != nil {
		fmt.Fprintf(l.W, "vigil: budget %s\n", info.Budget.Text())
	}
}

func (l *Live) clear() {
	if l.drawn > 0 {
		// Up to the first line of the block, then clear to the end.
		fmt.Fprintf(l.W, "\x1b[%dF\x1b[J", l.drawn)
		l.drawn = 0
	}
}

func (l *Live) above(st Status, format string, a ...any) {
	l.clear()
	fmt.Fprintf(l.W, "%6.1fs  %s\n", st.Now.Sub(l.info.Start).Seconds(), fmt.Sprintf(format, safe(a)...))
	l.draw(st)
}

// Event prints lasting lines and redraws.
func (l *Live) Event(e observe.Event, st Status) {
	switch d := e.Data.(type) {
	case observe.PhaseChange:
		l.above(st, "phase %v", styled(l.Pal.Phase(string(d.Phase))))
	case observe.ServerSeen:
		l.above(st, "server %v", d.Server)
	case observe.Warning:
		l.above(st, "%s %v", styled(l.Pal.Warn("warning:")), d.Message)
	case observe.Failing:
		l.above(st, "%s %v", styled(l.Pal.Bad("error:")), d.Line)
	case observe.ExitSeen:
		l.above(st, "server process %v", d.Status)
	case observe.Quiet:
		l.above(st, "quiet for %.0fs, still working: %v", d.QuietS, d.Activity)
	case observe.ETA:
		l.above(st, "expected: %v done in ~%.0fs, ready in ~%.0fs", d.Phase, d.PhaseLeftS, d.TotalLeftS)
	default:
		l.Tick(st)
	}
}

// Tick redraws at most ten times a second.
func (l *Live) Tick(st Status) {
	if st.Now.Sub(l.last) < 100*time.Millisecond {
		return
	}
	l.clear()
	l.draw(st)
}

// Note prints a lasting line.
func (l *Live) Note(at time.Time, format string, a ...any) {
	l.clear()
	fmt.Fprintf(l.W, "%6.1fs  %s\n", at.Sub(l.info.Start).Seconds(), fmt.Sprintf(format, safe(a)...))
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (l *Live) draw(st Status) {
	l.last = st.Now
	l.spin = (l.spin + 1) % len(spinner)
	server := st.Server
	if server == "" {
		server = "server"
	}
	lines := []string{fmt.Sprintf("%s %s  %s  %s  health %s", spinner[l.spin], server, st.Phase,
		fmtElapsed(st.Now.Sub(l.info.Start)), healthText(observe.HealthChange{State: st.Health.State, Code: st.Health.Code}))}
	if p := st.Progress; p != nil {
		const width = 20
		fill := p.Done * width / max(p.Total, 1)
		bar := strings.Repeat("█", fill) + strings.Repeat("░", width-fill)
		s := fmt.Sprintf("  %s %s %d/%d %d%%", p.Desc, bar, p.Done, p.Total, p.Percent)
		if p.Rate > 0 {
			s += fmt.Sprintf("  %.2f/s", p.Rate)
		}
		if p.ETA != "" {
			s += "  eta " + p.ETA
		}
		lines = append(lines, s)
	}
	if st.Activity != "" {
		lines = append(lines, "  activity: "+st.Activity)
	}
	if st.LastLine != "" {
		lines = append(lines, "  "+st.LastLine)
	}
	for _, s := range lines {
		fmt.Fprintln(l.W, truncate(termsafe.String(s), l.Width-1))
	}
	l.drawn = len(lines)
}

// End replaces the block with the summary.
func (l *Live) End(r *observe.Result, _ Status) {
	l.clear()
	w, pal := l.W, l.Pal
	if l.Out != nil {
		w, pal = l.Out, l.OutPal
	}
	Summary(w, r, l.info, pal)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func fmtElapsed(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
