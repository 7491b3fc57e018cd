// Package render shows a judging session: NDJSON events for machines, one
// plain line per phase change or progress step for logs and CI, and a live
// view for terminals. Renderers only format; the judge decides.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"vigil/internal/buildinfo"
	"vigil/internal/classify"
	"vigil/internal/colour"
	"vigil/internal/observe"
	"vigil/internal/termsafe"
	v "vigil/internal/verdict"
)

// Info describes the session being shown.
type Info struct {
	Mode    string // "run" or "watch"
	Server  string
	PID     int
	LogFile string
	URL     string
	Argv    []string
	Start   time.Time
	// Budget is the --timeout and --stall-after in force (nil: not known).
	Budget *Budget
}

// Budget is a startup's time budgets and where each came from: "flag",
// "learned" (from Samples earlier starts) or "default".
type Budget struct {
	Timeout     time.Duration
	TimeoutFrom string
	StallAfter  time.Duration
	StallFrom   string
	Samples     int
}

// Text says the budget for people: "--timeout 40s (flag), --stall-after
// 2m40s (learned from 3 starts)".
func (b *Budget) Text() string {
	from := func(o string) string {
		if o == "learned" {
			return "learned from " + plural(b.Samples, "start", "starts")
		}
		return o
	}
	return fmt.Sprintf("--timeout %s (%s), --stall-after %s (%s)", fmtDur(b.Timeout), from(b.TimeoutFrom), fmtDur(b.StallAfter), from(b.StallFrom))
}

func (b *Budget) json() map[string]any {
	d := map[string]any{"timeout_s": b.Timeout.Seconds(), "timeout_from": b.TimeoutFrom,
		"stall_after_s": b.StallAfter.Seconds(), "stall_after_from": b.StallFrom}
	if b.TimeoutFrom == "learned" || b.StallFrom == "learned" {
		d["samples"] = b.Samples
	}
	return d
}

// fmtDur prints a budget as it would be given: 40s, 5m0s, 1h0m0s.
func fmtDur(d time.Duration) string { return d.Round(time.Second).String() }

// Status is a snapshot of the startup for live views.
type Status struct {
	Now      time.Time
	Server   string
	Phase    v.Phase
	Progress *classify.Progress
	Health   observe.Health
	LastLine string
	Activity string
	// HistoryID is the startup's id in the history, once recorded.
	HistoryID int64
	// Extras are results attached to the verdict (smoke, bench).
	Extras map[string]any
	// Timeout and StallAfter are the budgets in force now; LastProgress
	// is the last sign of progress, from which the stall window counts.
	Timeout, StallAfter time.Duration
	LastProgress        time.Time
}

// Renderer shows a session.
type Renderer interface {
	Begin(info Info)
	Event(e observe.Event, st Status)
	Tick(st Status)
	Note(at time.Time, format string, a ...any)
	End(r *observe.Result, st Status)
}

// seconds since the session began, rounded to milliseconds.
func since(start, t time.Time) float64 {
	return math.Round(t.Sub(start).Seconds()*1000) / 1000
}

// PhaseDurations turns phase spans into seconds per phase.
func PhaseDurations(spans []observe.PhaseSpan, end time.Time) map[string]float64 {
	out := map[string]float64{}
	for i, s := range spans {
		if s.Phase == v.PhaseReady {
			continue
		}
		stop := end
		if i+1 < len(spans) {
			stop = spans[i+1].Start
		}
		out[string(s.Phase)] += math.Round(stop.Sub(s.Start).Seconds()*1000) / 1000
	}
	return out
}

// JSON writes one JSON object per line to W; nothing else goes there.
type JSON struct {
	W io.Writer
	// Build names the build in the start event; nil means the running
	// binary's (buildinfo.Read), so a saved stream says which build judged it.
	Build *buildinfo.Info
	info  Info
	enc   *json.Encoder
	start time.Time
}

func (j *JSON) write(name string, at time.Time, data map[string]any) {
	obj := map[string]any{"event": name, "t": since(j.start, at)}
	for k, v := range data {
		obj[k] = v
	}
	_ = j.enc.Encode(obj)
}

// Begin writes the "start" event with the log file's path.
func (j *JSON) Begin(info Info) {
	j.info, j.start = info, info.Start
	j.enc = json.NewEncoder(j.W)
	j.enc.SetEscapeHTML(false)
	d := map[string]any{"mode": info.Mode, "log_file": info.LogFile, "url": info.URL}
	if info.PID > 0 {
		d["pid"] = info.PID
	}
	if info.Server != "" {
		d["server"] = info.Server
	}
	if len(info.Argv) > 0 {
		d["argv"] = info.Argv
	}
	build := j.Build
	if build == nil {
		b := buildinfo.Read()
		build = &b
	}
	d["vigil"] = build
	if info.Budget != nil {
		d["budget"] = info.Budget.json()
	}
	j.write("start", info.Start, d)
}

// Event writes one event.
func (j *JSON) Event(e observe.Event, _ Status) {
	// The payload's fields sit beside "event" and "t"; a map keeps the
	// keys sorted, as every other line of the stream.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	var fields map[string]json.RawMessage
	if enc.Encode(e.Data) != nil || json.Unmarshal(b.Bytes(), &fields) != nil {
		return
	}
	data := make(map[string]any, len(fields))
	for k, v := range fields {
		data[k] = v
	}
	j.write(string(e.Kind()), e.At, data)
}

// Tick does nothing: JSON carries events only.
func (j *JSON) Tick(Status) {}

// Note writes a "note" event.
func (j *JSON) Note(at time.Time, format string, a ...any) {
	j.write("note", at, map[string]any{"message": fmt.Sprintf(format, a...)})
}

// End writes the verdict, always the last line.
func (j *JSON) End(r *observe.Result, st Status) {
	var cause any
	if r.Cause != "" {
		cause = string(r.Cause)
	}
	ev := r.Evidence
	if ev == nil {
		ev = []string{}
	}
	d := map[string]any{
		"verdict": string(r.Verdict), "cause": cause, "phase": string(r.Phase),
		"summary": r.Summary, "hint": r.Hint, "evidence": ev, "log_file": j.info.LogFile,
		"server": r.Server, "elapsed_s": since(j.start, r.At), "phases": PhaseDurations(r.Phases, r.At),
	}
	if r.RuleID != "" {
		d["rule"] = r.RuleID
	}
	if len(r.Config) > 0 {
		d["config"] = r.Config
		imp := map[string]string{}
		for _, kv := range r.Important {
			imp[kv.Key] = kv.Value
		}
		d["important"] = imp
		d["fingerprint"] = r.Fingerprint
	}
	if st.HistoryID > 0 {
		d["history_id"] = st.HistoryID
	}
	for k, x := range st.Extras {
		d[k] = x
	}
	if j.info.PID > 0 {
		d["pid"] = j.info.PID
	}
	j.write("verdict", r.At, d)
}

// Plain writes one line per phase change, progress step or health change:
// nothing redraws, so it suits log files, CI and journald.
type Plain struct {
	W io.Writer
	// Pal colours verdicts, causes, warnings and phase names; the zero
	// palette prints plain text.
	Pal colour.Palette
	// Out takes the verdict block (stdout, so `vigil run ... > out.txt`
	// keeps it) coloured with OutPal; nil means W and Pal.
	Out      io.Writer
	OutPal   colour.Palette
	info     Info
	lastPct  int
	lastDesc string
}

func (p *Plain) printf(at time.Time, format string, a ...any) {
	fmt.Fprintf(p.W, "[%6.1fs] %s\n", at.Sub(p.info.Start).Seconds(), fmt.Sprintf(format, safe(a)...))
}

// Begin prints what is being watched and where its log is.
func (p *Plain) Begin(info Info) {
	p.info = info
	p.lastPct = -1
	what := "watching"
	if info.Mode == "run" {
		what = "launched"
		if info.PID == 0 {
			what = "not launched"
		}
	}
	if info.PID > 0 {
		what += fmt.Sprintf(" pid %d", info.PID)
	}
	fmt.Fprintf(p.W, "vigil: %s, log %s, health %s\n", what, termsafe.String(info.LogFile), healthShown(info.URL))
	if info.Budget != nil {
		fmt.Fprintf(p.W, "vigil: budget %s\n", info.Budget.Text())
	}
}

// Event prints the events a person wants to read.
func (p *Plain) Event(e observe.Event, _ Status) {
	switch d := e.Data.(type) {
	case observe.ServerSeen:
		p.printf(e.At, "server: %v", d.Server)
	case observe.PhaseChange:
		p.printf(e.At, "phase %v", styled(p.Pal.Phase(string(d.Phase))))
		p.lastPct = -1
	case observe.Progress:
		// One line per 10% step of each bar, and its end.
		step := d.Percent / 10
		if d.Desc != p.lastDesc {
			p.lastDesc, p.lastPct = d.Desc, -1
		}
		if step > p.lastPct {
			p.lastPct = step
			p.printf(e.At, "  %s %v/%v (%d%%)", d.Desc, d.Done, d.Total, d.Percent)
		}
	case observe.HealthChange:
		p.printf(e.At, "health: %s", healthText(d))
	case observe.Warning:
		p.printf(e.At, "%s %v", styled(p.Pal.Warn("warning:")), d.Message)
	case observe.Quiet:
		p.printf(e.At, "quiet for %.0fs, still working: %v", d.QuietS, d.Activity)
	case observe.Failing:
		p.printf(e.At, "%s %v", styled(p.Pal.Bad("error:")), d.Line)
	case observe.ExitSeen:
		p.printf(e.At, "server process %v", d.Status)
	case observe.Smoke:
		p.printf(e.At, "smoke: ok=%v %v", d.OK, d.Reason)
	case observe.ReadyLine:
		p.printf(e.At, "ready line: %v", d.Line)
	case observe.ETA:
		p.printf(e.At, "  expected: %v done in ~%.0fs, ready in ~%.0fs (from %v earlier starts)", d.Phase, d.PhaseLeftS, d.TotalLeftS, d.Samples)
	case observe.ConfigSeen:
		if len(d.Important) > 0 {
			p.printf(e.At, "config: %s", joinSorted(d.Important))
		}
	}
}

// Tick does nothing: plain output never redraws.
func (p *Plain) Tick(Status) {}

// Note prints a message.
func (p *Plain) Note(at time.Time, format string, a ...any) { p.printf(at, format, a...) }

// End prints the summary.
func (p *Plain) End(r *observe.Result, _ Status) {
	w, pal := p.W, p.Pal
	if p.Out != nil {
		w, pal = p.Out, p.OutPal
	}
	Summary(w, r, p.info, pal)
}

// styled is text vigil coloured itself: safe passes it through untouched.
type styled string

// safe makes the arguments of a line for people safe for a terminal: text
// from the server or its log loses control characters and escapes
// (termsafe.String); vigil's own colour is kept.
func safe(a []any) []any {
	out := make([]any, len(a))
	for i, x := range a {
		switch s := x.(type) {
		case string:
			out[i] = termsafe.String(s)
		case styled:
			out[i] = string(s)
		default:
			out[i] = x
		}
	}
	return out
}

// Quiet prints the verdict line and nothing else, for --quiet.
type Quiet struct {
	Out  io.Writer
	Pal  colour.Palette
	info Info
}

// Begin only remembers when the session began.
func (q *Quiet) Begin(info Info) { q.info = info }

// Event prints nothing.
func (q *Quiet) Event(observe.Event, Status) {}

// Tick prints nothing.
func (q *Quiet) Tick(Status) {}

// Note prints nothing.
func (q *Quiet) Note(time.Time, string, ...any) {}

// End prints the verdict line.
func (q *Quiet) End(r *observe.Result, _ Status) {
	fmt.Fprintln(q.Out, VerdictLine(r, q.info, q.Pal))
}

func healthText(d observe.HealthChange) string {
	code := d.Code
	switch d.State {
	case observe.HealthRefused:
		return "refused (nothing listens yet)"
	case observe.HealthStarting:
		return "starting (503)"
	case observe.HealthOK:
		return "ok (200)"
	case observe.HealthNone:
		return fmt.Sprintf("no health endpoint (%d)", code)
	case observe.HealthError:
		return "no answer"
	case observe.HealthForeign:
		return fmt.Sprintf("%d from another process on the port", code)
	}
	return fmt.Sprintf("HTTP %d", code)
}

// VerdictLine is the verdict in one line: "READY after 32.5s (vllm, 8
// phases)", or for any other verdict its cause, the phase it ended in and
// the judge's summary.
func VerdictLine(r *observe.Result, info Info, pal colour.Palette) string {
	word := pal.Verdict(strings.ToUpper(string(r.Verdict)))
	after := fmt.Sprintf("after %.1fs", r.At.Sub(info.Start).Seconds())
	server := r.Server
	if server == "" {
		server = info.Server
	}
	server = termsafe.String(server)
	if r.Verdict == v.Ready {
		var detail []string
		if server != "" {
			detail = append(detail, server)
		}
		if n := phaseCount(r.Phases); n > 0 {
			detail = append(detail, plural(n, "phase", "phases"))
		}
		line := word + " " + after
		if len(detail) > 0 {
			line += " (" + strings.Join(detail, ", ") + ")"
		}
		return line
	}
	head := word
	if r.Cause != "" {
		head += " " + pal.Bad(string(r.Cause))
	}
	line := fmt.Sprintf("%s in phase %s %s", head, pal.Phase(string(r.Phase)), after)
	if server != "" {
		line += " (" + server + ")"
	}
	if r.Summary != "" {
		line += ": " + termsafe.String(r.Summary)
	}
	return line
}

// phaseCount is the number of phases a startup went through before ready.
func phaseCount(spans []observe.PhaseSpan) int {
	seen := map[v.Phase]bool{}
	for _, s := range spans {
		if s.Phase != v.PhaseReady {
			seen[s.Phase] = true
		}
	}
	return len(seen)
}

// plural says n things with the right noun: "1 phase", "8 phases".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Summary writes the verdict for a person: the verdict line, evidence,
// hint, phase timings and where the log is.
func Summary(w io.Writer, r *observe.Result, info Info, pal colour.Palette) {
	fmt.Fprintf(w, "\n%s\n", VerdictLine(r, info, pal))
	if r.Verdict == v.Ready && r.Summary != "" && !strings.Contains(r.Summary, " is ready after ") {
		fmt.Fprintln(w, termsafe.String(r.Summary))
	}
	if len(r.Evidence) > 0 {
		fmt.Fprintln(w, "evidence:")
		for _, e := range r.Evidence {
			fmt.Fprintln(w, "  "+termsafe.String(e))
		}
	}
	if r.Hint != "" {
		fmt.Fprintln(w, pal.Bold("hint:")+" "+termsafe.String(r.Hint))
	}
	d := PhaseDurations(r.Phases, r.At)
	if len(d) > 0 {
		var parts []string
		for _, s := range r.Phases {
			if secs, ok := d[string(s.Phase)]; ok {
				parts = append(parts, fmt.Sprintf("%s %.1fs", pal.Phase(string(s.Phase)), secs))
				delete(d, string(s.Phase))
			}
		}
		fmt.Fprintln(w, "phases: "+strings.Join(parts, ", "))
	}
	if len(r.Important) > 0 {
		var parts []string
		for _, kv := range r.Important {
			parts = append(parts, kv.Key+"="+kv.Value)
		}
		fmt.Fprintln(w, "config: "+termsafe.String(strings.Join(parts, " ")))
	}
	if info.LogFile != "" {
		fmt.Fprintln(w, pal.Dim("log: "+termsafe.String(info.LogFile)))
	}
}

func joinSorted(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, " ")
}

// healthShown is the header's health URL; a server with no HTTP endpoint
// (trtllm-serve --grpc) has none to probe.
func healthShown(url string) string {
	if url == "" {
		return "none (no HTTP endpoint)"
	}
	return termsafe.String(url)
}
