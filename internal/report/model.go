package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"vigil/internal/bench"
	"vigil/internal/history"
	"vigil/internal/verdict"
)

// The view model: everything the template shows, computed here so that the
// template only places it. Coordinates are SVG user units.

// pageView is the whole page.
type pageView struct {
	Title     string
	Generated string
	Counts    []countView
	Models    int
	Span      string
	Compare   compareView
	Startups  []startupView
	Phases    []legendItem
	// AnyNotable says whether any startup has notable warnings recorded;
	// AnyMarked whether any bar is marked as the phase a startup stopped in.
	AnyNotable, AnyMarked bool
}

type countView struct {
	Verdict, Class string
	N              int
}

type legendItem struct{ Name, Class string }

// startupView is one startup's article.
type startupView struct {
	ID                         int64
	Anchor                     string
	Verdict, VerdictClass      string
	Headline                   string // "failed (gpu_oom) in kv_cache"
	Server, Model, Where, When string
	Total                      string
	Summary                    string
	LogPath                    string
	Timeline                   timelineView
	Chips                      []chipView
	Drift                      driftView
	Bench                      *benchView
	Smoke                      *smokeView
	Notable                    []noteView
	Kernels                    *kernelsView
	Other                      []otherView
}

type chipView struct{ Name, Class, Secs string }

// --- geometry ---

const (
	// The comparison chart (1000 units wide): labels on the left, bars on
	// one axis, verdict text after each bar.
	cmpBarX = 260.0
	cmpBarW = 540.0
	cmpRowH = 30.0
	cmpBarH = 16.0
	cmpTop  = 26.0

	// A startup's own timeline.
	tlBarX = 10.0
	tlBarW = 980.0
	tlBarY = 24.0
	tlBarH = 26.0
	tlH    = 78.0
)

// rectView is one phase's bar; Fail marks the phase a startup stopped in.
type rectView struct {
	X, Y, W, H     float64
	Class          string
	Title          string
	Label          string
	LabelX, LabelY float64
	Fail           bool
}

type tickView struct {
	X     float64
	Label string
}

// markView is where a startup ended: a line at X from Y1 to Y2 and its
// verdict as Text at (TextX, Y), anchored "start" or "end".
type markView struct {
	X, Y   float64
	Text   string
	Class  string
	TextX  float64
	Anchor string
	Y1, Y2 float64
}

type timelineView struct {
	Height float64
	Bars   []rectView
	Ticks  []tickView
	// TickY is where tick labels sit; tick lines run from TickLineY1 to
	// TickLineY2.
	TickY, TickLineY1, TickLineY2 float64
	Mark                          markView
	Empty                         string
}

type compareRow struct {
	ID     int64
	Anchor string
	// Band shades every other row from BandY, for the eye to follow.
	Band  bool
	BandY float64
	Y     float64
	TextY float64
	Label string
	Title string
	Bars  []rectView
	Mark  markView
}

type compareView struct {
	Height float64
	Rows   []compareRow
	Ticks  []tickView
	GridY2 float64
}

func build(in Input, o Options) pageView {
	loc := o.Location
	if loc == nil {
		loc = time.UTC
	}
	p := pageView{Title: fmt.Sprintf("vigil report: %d startup%s", len(in.Startups), plural(len(in.Startups)))}
	if !o.Now.IsZero() {
		p.Generated = o.Now.In(loc).Format("2006-01-02 15:04:05 MST")
	}
	counts := map[string]int{}
	models := map[string]bool{}
	var first, last time.Time
	for i, st := range in.Startups {
		counts[st.Verdict]++
		models[st.Server+"\x00"+st.Model] = true
		if i == 0 || st.StartedAt.Before(first) {
			first = st.StartedAt
		}
		if i == 0 || st.StartedAt.After(last) {
			last = st.StartedAt
		}
	}
	for _, v := range []string{"ready", "failed", "stalled", "timeout"} {
		if counts[v] > 0 {
			p.Counts = append(p.Counts, countView{Verdict: v, Class: verdictClass(v), N: counts[v]})
		}
		delete(counts, v)
	}
	for _, v := range slices.Sorted(maps.Keys(counts)) {
		p.Counts = append(p.Counts, countView{Verdict: dash(v), Class: "v-other", N: counts[v]})
	}
	p.Models = len(models)
	if len(in.Startups) > 0 {
		p.Span = first.In(loc).Format("2006-01-02 15:04")
		if !last.Equal(first) {
			p.Span += " to " + last.In(loc).Format("2006-01-02 15:04")
		}
	}

	seen := map[string]bool{}
	var axisMax float64
	for _, st := range in.Startups {
		axisMax = max(axisMax, span(st))
		for _, ph := range st.Phases {
			seen[phaseClass(ph.Name)] = true
		}
	}
	for _, ph := range verdict.Phases {
		if seen[phaseClass(string(ph))] {
			p.Phases = append(p.Phases, legendItem{Name: string(ph), Class: phaseClass(string(ph))})
		}
	}
	if seen["ph-other"] {
		p.Phases = append(p.Phases, legendItem{Name: "other", Class: "ph-other"})
	}

	p.Compare = compareChart(in.Startups, axisMax)
	for _, row := range p.Compare.Rows {
		for _, b := range row.Bars {
			p.AnyMarked = p.AnyMarked || b.Fail
		}
	}
	shown := map[int64]bool{}
	for _, st := range in.Startups {
		shown[st.ID] = true
	}
	for _, st := range in.Startups {
		sv := startupOf(st, loc)
		if prev, ok := in.Previous[st.ID]; ok {
			sv.Drift = driftOf(prev, st, loc)
			sv.Drift.PrevShown = shown[prev.ID]
		} else {
			sv.Drift = driftView{First: true}
		}
		if len(sv.Notable) > 0 {
			p.AnyNotable = true
		}
		p.Startups = append(p.Startups, sv)
	}
	return p
}

func startupOf(st history.Startup, loc *time.Location) startupView {
	sv := startupView{
		ID: st.ID, Anchor: anchor(st.ID), Verdict: dash(st.Verdict), VerdictClass: verdictClass(st.Verdict),
		Headline: headline(st), Server: dash(serverWithVersion(st)), Model: dash(st.Model),
		When: st.StartedAt.In(loc).Format("2006-01-02 15:04:05 MST"), Total: secs(st.TotalSeconds),
		Summary: clip(scrub(st.Summary), 600), LogPath: clip(st.LogPath, 300),
	}
	if st.Host != "" {
		sv.Where = st.Host
		if st.GPUs != "" {
			sv.Where += " (" + st.GPUs + ")"
		}
	}
	sv.Timeline = timeline(st)
	for _, ph := range st.Phases {
		sv.Chips = append(sv.Chips, chipView{Name: ph.Name, Class: phaseClass(ph.Name), Secs: secs(ph.Seconds)})
	}
	sv.Bench, sv.Smoke, sv.Notable, sv.Kernels, sv.Other = results(st.Extra)
	return sv
}

// span is the length of a startup on the time axis: its total, or the sum
// of its phases when they add up to more.
func span(st history.Startup) float64 {
	var sum float64
	for _, p := range st.Phases {
		sum += seconds(p.Seconds)
	}
	return max(seconds(st.TotalSeconds), sum)
}

// seconds is a recorded duration fit to draw: a negative, NaN or infinite
// one (a clock jump, a damaged row) draws as nothing.
func seconds(s float64) float64 {
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return 0
	}
	return s
}

// bars lays out a startup's phases one after another from x, scale units
// per second. The phase its verdict names is marked when it did not end
// ready.
func bars(st history.Startup, x, y, h, scale float64, labels bool) []rectView {
	failed := st.Verdict != string(verdict.Ready) && st.Verdict != ""
	var out []rectView
	at := x
	for _, ph := range st.Phases {
		w := seconds(ph.Seconds) * scale
		r := rectView{X: round1(at), Y: y, W: round1(max(w, 1.5)), H: h, Class: phaseClass(ph.Name),
			Title: ph.Name + " " + secs(ph.Seconds), Fail: failed && ph.Name == st.Phase}
		if labels {
			// Label a bar only where its text fits (about 7 units a
			// character at the template's font size).
			full := ph.Name + " " + secs(ph.Seconds)
			switch {
			case w >= float64(len(full))*7+10:
				r.Label = full
			case w >= float64(len(ph.Name))*7+10:
				r.Label = ph.Name
			}
			r.LabelX, r.LabelY = round1(at+w/2), y+h/2+4
		}
		out = append(out, r)
		at += w
	}
	return out
}

func timeline(st history.Startup) timelineView {
	tv := timelineView{Height: tlH, TickY: tlBarY + tlBarH + 18, TickLineY1: tlBarY + tlBarH, TickLineY2: tlBarY + tlBarH + 5}
	total := span(st)
	if total <= 0 || len(st.Phases) == 0 {
		tv.Empty = "no phase times recorded"
		if st.TotalSeconds > 0 {
			tv.Empty += "; " + secs(st.TotalSeconds) + " in all"
		}
		tv.Height = 30
		return tv
	}
	scale := tlBarW / total
	tv.Bars = bars(st, tlBarX, tlBarY, tlBarH, scale, true)
	tv.Ticks = ticks(total, tlBarX, scale, tlBarW)
	end := tlBarX + total*scale
	tv.Mark = markView{X: round1(end), Y1: tlBarY - 6, Y2: tlBarY + tlBarH + 4, Y: 14,
		Text: headline(st), Class: verdictClass(st.Verdict), TextX: round1(end), Anchor: "end"}
	return tv
}

func compareChart(list []history.Startup, axisMax float64) compareView {
	cv := compareView{}
	if len(list) == 0 {
		return cv
	}
	scale := 0.0
	if axisMax > 0 {
		scale = cmpBarW / axisMax
	}
	for i, st := range list {
		y := cmpTop + float64(i)*cmpRowH
		row := compareRow{ID: st.ID, Anchor: anchor(st.ID), Band: i%2 == 1, BandY: y - (cmpRowH-cmpBarH)/2, Y: y, TextY: y + cmpBarH - 3,
			Label: clip(fmt.Sprintf("#%d %s", st.ID, dash(shortModel(st.Model))), 36),
			Title: fmt.Sprintf("#%d %s %s: %s after %s", st.ID, dash(st.Server), dash(st.Model), headline(st), secs(st.TotalSeconds))}
		row.Bars = bars(st, cmpBarX, y, cmpBarH, scale, false)
		end := cmpBarX + span(st)*scale
		text := headline(st) + ", " + secs(st.TotalSeconds)
		row.Mark = markView{X: round1(end), Y1: y - 3, Y2: y + cmpBarH + 3, Y: y + cmpBarH - 3,
			Text: text, Class: verdictClass(st.Verdict), TextX: round1(end + 6), Anchor: "start"}
		cv.Rows = append(cv.Rows, row)
	}
	cv.GridY2 = cmpTop + float64(len(list))*cmpRowH - 8
	cv.Height = cv.GridY2 + 10
	cv.Ticks = ticks(axisMax, cmpBarX, scale, cmpBarW)
	for i := range cv.Ticks {
		cv.Ticks[i].X = round1(cv.Ticks[i].X)
	}
	return cv
}

// tickSteps are the axis steps people read easily, in seconds.
var tickSteps = []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400}

// ticks places at most 9 labelled ticks, 0 included, on an axis of total
// seconds.
func ticks(total, x0, scale, width float64) []tickView {
	if total <= 0 || scale <= 0 {
		return nil
	}
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if total/s <= 8 {
			step = s
			break
		}
	}
	var out []tickView
	for t := 0.0; t <= total+1e-9 && len(out) < 40; t += step {
		x := x0 + t*scale
		if x > x0+width+0.5 {
			break
		}
		out = append(out, tickView{X: round1(x), Label: tickLabel(t)})
	}
	return out
}

func tickLabel(s float64) string {
	n := int(math.Round(s))
	switch {
	case n == 0:
		return "0"
	case n < 60:
		return strconv.Itoa(n) + "s"
	case n < 3600 && n%60 == 0:
		return strconv.Itoa(n/60) + "m"
	case n < 3600:
		return fmt.Sprintf("%dm%02ds", n/60, n%60)
	case n%3600 == 0:
		return strconv.Itoa(n/3600) + "h"
	}
	return fmt.Sprintf("%dh%02dm", n/3600, n%3600/60)
}

// --- words ---

// headline is the verdict as one phrase: "ready", "failed (gpu_oom) in
// kv_cache", "stalled in weights".
func headline(st history.Startup) string {
	s := dash(st.Verdict)
	if st.Cause != "" {
		s += " (" + st.Cause + ")"
	}
	if st.Phase != "" && st.Verdict != string(verdict.Ready) {
		s += " in " + st.Phase
	}
	return s
}

func verdictClass(v string) string {
	switch v {
	case "ready":
		return "v-ready"
	case "failed":
		return "v-failed"
	case "stalled", "timeout":
		return "v-slow"
	}
	return "v-other"
}

// phaseClass is the CSS class of a phase; names the contract does not
// know share one.
func phaseClass(name string) string {
	for _, p := range verdict.Phases {
		if string(p) == name {
			return "ph-" + name
		}
	}
	return "ph-other"
}

func anchor(id int64) string { return "startup-" + strconv.FormatInt(id, 10) }

func serverWithVersion(st history.Startup) string {
	if st.Version == "" {
		return st.Server
	}
	return st.Server + " " + st.Version
}

// shortModel drops the directories of a model path: the comparison's
// labels have room for the name only.
func shortModel(m string) string {
	m = strings.TrimRight(m, "/")
	if strings.HasPrefix(m, "/") || strings.HasPrefix(m, ".") {
		if i := strings.LastIndexByte(m, '/'); i >= 0 {
			return m[i+1:]
		}
	}
	return m
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// secs prints seconds the way people read startup times: 0.4s, 41.7s,
// 2m05s, 1h02m.
func secs(s float64) string {
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return "?"
	case s < 60:
		return strconv.FormatFloat(math.Round(s*10)/10, 'f', 1, 64) + "s"
	case s < 3600:
		r := int(math.Round(s))
		return fmt.Sprintf("%dm%02ds", r/60, r%60)
	}
	r := int(math.Round(s / 60))
	return fmt.Sprintf("%dh%02dm", r/60, r%60)
}

// clip shortens s to at most n runes, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// --- attached results ---

type benchView struct {
	Endpoint, Model, Shape string
	Baseline               string // the baseline's source and tolerance, "" without one
	OK                     bool
	Levels                 []benchLevel
	Problems               []string
	Warnings               []string
	Chart                  benchChart
}

type benchLevel struct {
	C                   int
	Done, Failed        int
	TokS                string
	BaseTokS, Change    string
	Status, StatusClass string
	TTFT, ITL           string
}

type benchChart struct {
	Height float64
	Rows   []benchRow
}

type benchRow struct {
	Y, TextY  float64
	BaseY2    float64
	Label     string
	W         float64
	Class     string
	BaseX     float64
	HasBase   bool
	Value     string
	ValueX    float64
	Title     string
	BaseTitle string
}

const (
	benchLabelW = 60.0
	benchBarW   = 760.0
	benchRowH   = 24.0
)

type smokeView struct {
	OK                bool
	Reason, Endpoint  string
	Answer, LatencyMS string
}

type noteView struct {
	Text, Detail string
	Count        int
}

type kernelsView struct {
	Tuned, Default []string
}

type otherView struct{ Name, JSON string }

func results(extra map[string]json.RawMessage) (*benchView, *smokeView, []noteView, *kernelsView, []otherView) {
	var (
		bv    *benchView
		sm    *smokeView
		notes []noteView
		kv    *kernelsView
		other []otherView
	)
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		raw := extra[name]
		ok := true
		switch name {
		case "bench":
			bv, ok = benchOf(raw)
		case "smoke":
			sm, ok = smokeOf(raw)
		case "notable":
			notes, ok = notesOf(raw)
		case "kernels":
			kv, ok = kernelsOf(raw)
		default:
			ok = false
		}
		if !ok {
			other = append(other, otherView{Name: name, JSON: clip(string(raw), 400)})
		}
	}
	return bv, sm, notes, kv, other
}

func benchOf(raw json.RawMessage) (*benchView, bool) {
	var r bench.Result
	if json.Unmarshal(raw, &r) != nil || len(r.Levels) == 0 {
		return nil, false
	}
	bv := &benchView{Endpoint: r.Endpoint, Model: r.Model, OK: r.OK,
		Shape: fmt.Sprintf("input ~%d, output %d tokens", r.InputLen, r.OutputLen)}
	base := map[int]bench.LevelComparison{}
	if r.Baseline != nil {
		bv.Baseline = fmt.Sprintf("%s (tolerance %g%%)", r.Baseline.Source, r.Baseline.TolerancePct)
		for _, lc := range r.Baseline.Levels {
			base[lc.Concurrency] = lc
		}
		bv.Warnings = r.Baseline.Warnings
	}
	bv.Problems = r.Problems()
	var top float64
	for _, lv := range r.Levels {
		top = max(top, lv.OutputTokS)
		if lc, ok := base[lv.Concurrency]; ok && lc.BaselineTokS != nil {
			top = max(top, *lc.BaselineTokS)
		}
	}
	scale := 0.0
	if top > 0 {
		scale = benchBarW / top
	}
	for i, lv := range r.Levels {
		bl := benchLevel{C: lv.Concurrency, Done: lv.Completed, Failed: lv.Failed,
			TokS:     fmt.Sprintf("%.1f", lv.OutputTokS),
			TTFT:     fmt.Sprintf("%.0f / %.0f", lv.TTFT.Mean, lv.TTFT.P99),
			ITL:      fmt.Sprintf("%.1f / %.1f", lv.ITL.Mean, lv.ITL.P99),
			BaseTokS: "-", Change: "-", Status: "no baseline", StatusClass: "v-other"}
		y := float64(i) * benchRowH
		row := benchRow{Y: y + 4, BaseY2: y + 22, TextY: y + 17, Label: fmt.Sprintf("c=%d", lv.Concurrency),
			W: round1(max(lv.OutputTokS*scale, 1)), Class: "bar-now",
			Value: fmt.Sprintf("%.1f tok/s", lv.OutputTokS), Title: fmt.Sprintf("c=%d: %.2f output tok/s", lv.Concurrency, lv.OutputTokS)}
		row.ValueX = round1(benchLabelW + row.W + 6)
		if lc, ok := base[lv.Concurrency]; ok && lc.BaselineTokS != nil {
			bl.BaseTokS = fmt.Sprintf("%.1f", *lc.BaselineTokS)
			if lc.ChangePct != nil {
				bl.Change = fmt.Sprintf("%+.1f%%", *lc.ChangePct)
			}
			bl.Status, bl.StatusClass = "ok", "v-ready"
			if lc.Below {
				bl.Status, bl.StatusClass = "below", "v-failed"
				row.Class = "bar-below"
			}
			row.HasBase = true
			row.BaseX = round1(benchLabelW + *lc.BaselineTokS*scale)
			row.BaseTitle = fmt.Sprintf("baseline %.2f tok/s", *lc.BaselineTokS)
			row.ValueX = round1(max(row.ValueX, row.BaseX+6))
		}
		if lv.Completed == 0 {
			bl.Status, bl.StatusClass = "none completed", "v-failed"
			row.Class = "bar-below"
		}
		bv.Levels = append(bv.Levels, bl)
		bv.Chart.Rows = append(bv.Chart.Rows, row)
	}
	bv.Chart.Height = float64(len(r.Levels))*benchRowH + 4
	return bv, true
}

func smokeOf(raw json.RawMessage) (*smokeView, bool) {
	var s struct {
		OK        *bool   `json:"ok"`
		Reason    string  `json:"reason"`
		Endpoint  string  `json:"endpoint"`
		Answer    string  `json:"answer"`
		LatencyMS float64 `json:"latency_ms"`
	}
	if json.Unmarshal(raw, &s) != nil || s.OK == nil {
		return nil, false
	}
	sv := &smokeView{OK: *s.OK, Reason: clip(s.Reason, 300), Endpoint: s.Endpoint, Answer: clip(s.Answer, 300)}
	if s.LatencyMS > 0 {
		sv.LatencyMS = fmt.Sprintf("%.0f ms", s.LatencyMS)
	}
	return sv, true
}

// item reads one entry of a list that holds strings or objects: its text
// from the first of textKeys present, its detail from the first of
// detailKeys that says something else.
func item(raw json.RawMessage, textKeys, detailKeys []string) (text, detail string, count int, ok bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return clip(s, 400), "", 0, s != ""
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return "", "", 0, false
	}
	pick := func(keys []string, not string) string {
		for _, k := range keys {
			if v, ok := m[k]; ok {
				var t string
				switch v := v.(type) {
				case string:
					t = v
				case nil:
				default:
					b, _ := json.Marshal(v)
					t = string(b)
				}
				if t != "" && t != not {
					return t
				}
			}
		}
		return ""
	}
	text = pick(textKeys, "")
	detail = pick(detailKeys, text)
	if text == "" {
		text, detail = detail, ""
	}
	if c, ok := m["count"].(float64); ok && c > 1 {
		count = int(c)
	}
	return clip(text, 400), clip(detail, 400), count, text != ""
}

var (
	noteText   = []string{"meaning", "title", "message", "text", "summary", "id"}
	noteDetail = []string{"line", "evidence", "example", "file"}
	kernelText = []string{"file", "config", "name", "shape", "kernel", "line"}
)

func notesOf(raw json.RawMessage) ([]noteView, bool) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, false
	}
	var out []noteView
	for _, it := range list {
		if text, detail, n, ok := item(it, noteText, noteDetail); ok {
			out = append(out, noteView{Text: scrub(text), Detail: scrub(detail), Count: n})
		}
	}
	return out, true
}

func kernelsOf(raw json.RawMessage) (*kernelsView, bool) {
	var k struct {
		Tuned   []json.RawMessage `json:"tuned"`
		Default []json.RawMessage `json:"default"`
	}
	if json.Unmarshal(raw, &k) != nil {
		return nil, false
	}
	kv := &kernelsView{}
	for _, it := range k.Tuned {
		if t, _, _, ok := item(it, kernelText, nil); ok {
			kv.Tuned = append(kv.Tuned, t)
		}
	}
	for _, it := range k.Default {
		if t, _, _, ok := item(it, kernelText, nil); ok {
			kv.Default = append(kv.Default, t)
		}
	}
	return kv, true
}
