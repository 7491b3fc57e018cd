package render

import (
	"fmt"
	"io"
	"strings"
	"time"
	"vigil/internal/ansi"

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
	// Size, when set, is asked for the terminal's width before each
	// redraw (the caller re-reads it after SIGWINCH); 0 keeps the last.
	Size func() int
	Pal  colour.Palette
	// Out takes the verdict block, coloured with OutPal; nil means W.
	Out     io.Writer
	OutPal  colour.Palette
	info    Info
	drawn   []int // the width of each line of the block on screen
	last    time.Time
	spin    int
	phaseAt time.Time // when the current phase began
}

// Begin prints the header.
func (l *Live) Begin(info Info) {
	l.info, l.phaseAt = info, info.Start
	l.resize()
	if l.Width <= 20 {
		l.Width = 100
	}
	what := "watching"
	if info.Mode == "run" {
		what = "launched"
	}
	if info.PID > 0 {
		what += fmt.Sprintf(" pid %d", info.PID)
	} else {
		what += " (no server pid)"
	}
	fmt.Fprintf(l.W, "vigil: %s, log %s, health %s\n", what, termsafe.String(info.LogFile), healthShown(info.URL))
	if info.Budget != nil {
		fmt.Fprintf(l.W, "vigil: budget %s\n", info.Budget.Text())
	}
}

// resize takes the terminal's current width.
func (l *Live) resize() {
	if l.Size == nil {
		return
	}
	if w := l.Size(); w > 20 {
		l.Width = w
	}
}

// clear moves up over the block and clears to the end of the screen. A
// terminal made narrower since the block was drawn has wrapped its lines
// into more rows: each counts as many rows as it now takes.
func (l *Live) clear() {
	l.resize()
	rows := 0
	for _, n := range l.drawn {
		rows += max(1, (n+l.Width-1)/l.Width)
	}
	if rows > 0 {
		fmt.Fprintf(l.W, "\x1b[%dF\x1b[J", rows)
	}
	l.drawn = l.drawn[:0]
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
		l.phaseAt = e.At
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

// quietShown is how long without progress before the live view counts
// down to a stall.
const quietShown = 5 * time.Second

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (l *Live) draw(st Status) {
	l.last = st.Now
	l.spin = (l.spin + 1) % len(spinner)
	server := st.Server
	if server == "" {
		server = "server"
	}
	head := fmt.Sprintf("%s %s  %s %s  total %s", spinner[l.spin], server, st.Phase,
		fmtElapsed(st.Now.Sub(l.phaseAt)), fmtElapsed(st.Now.Sub(l.info.Start)))
	timeout := st.Timeout
	if b := l.info.Budget; timeout == 0 && b != nil {
		timeout = b.Timeout
	}
	if timeout > 0 {
		head += "  " + fmtElapsed(max(0, timeout-st.Now.Sub(l.info.Start))) + " left"
	}
	// While quiet, the stall window counting down: said once the quiet is
	// long enough to wonder about.
	if quiet := st.Now.Sub(st.LastProgress); st.StallAfter > 0 && !st.LastProgress.IsZero() && quiet >= quietShown {
		head += "  quiet " + fmtElapsed(quiet) + ", stalled in " + fmtElapsed(max(0, st.StallAfter-quiet))
	}
	head += "  health " + healthText(observe.HealthChange{State: st.Health.State, Code: st.Health.Code})
	if l.info.PID > 0 {
		head += fmt.Sprintf("  pid %d", l.info.PID)
	}
	lines := []string{head}
	if p := st.Progress; p != nil {
		const width = 20
		fill := min(max(p.Done*width/max(p.Total, 1), 0), width)
		bar := strings.Repeat("█", fill) + strings.Repeat("░", width-fill)
		s := fmt.Sprintf("  %s %s %d/%d %d%%", p.Desc, bar, p.Done, p.Total, p.Percent)
		// A rate and an ETA only once one is known: "0% eta 00:00" at
		// the start of a bar says nothing true.
		if p.Rate > 0 && p.Done > 0 {
			s += fmt.Sprintf("  %.2f/s", p.Rate)
			if p.ETA != "" {
				s += "  eta " + p.ETA
			}
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
		// Two columns to spare: some terminals draw the ellipsis two
		// columns wide, and a line that fills the last column may wrap.
		s = truncate(termsafe.String(s), l.Width-2)
		fmt.Fprintln(l.W, s)
		l.drawn = append(l.drawn, columns(s))
	}
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

// columns is how many terminal columns s takes at most: its runes without
// colour sequences, an ellipsis counted as two.
func columns(s string) int {
	v := ansi.Strip(s)
	return len([]rune(v)) + strings.Count(v, "…")
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
