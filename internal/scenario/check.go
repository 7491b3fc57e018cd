package scenario

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"vigil/internal/verdict"
)

// Limits beyond which a value is refused: a scenario must not be able to
// make the player allocate without bound or overflow a conversion.
const (
	maxCount  = 1_000_000 // progress n and to
	maxMBs    = 1024      // download speed, MB/s
	maxSecond = 1e7       // any duration or time, seconds (~115 days)
)

// parse decodes data and collects every problem, building the scenario as
// it goes. The scenario is only meaningful when there are no problems.
func parse(data []byte) (*Scenario, []string) {
	var root any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, []string{"not valid JSON: " + oneLine(err.Error())}
	}
	top, ok := root.(map[string]any)
	if !ok {
		return nil, []string{"top level must be a JSON object, is " + typeName(root)}
	}
	c := &checker{}
	s := &Scenario{}

	for _, key := range []string{"id", "server", "source", "summary", "argv", "timeline", "expect"} {
		if _, ok := top[key]; !ok {
			c.addf("missing top-level %s", pyQuote(key))
		}
	}
	for _, key := range []string{"id", "source", "summary"} {
		v, ok := top[key]
		if !ok {
			continue
		}
		str, isStr := v.(string)
		if !isStr {
			c.addf("%s must be a string", key)
		}
		switch key {
		case "id":
			s.ID = str
		case "source":
			s.Source = str
		case "summary":
			s.Summary = str
		}
	}
	server, _ := top["server"].(string)
	if !contains(verdict.Servers, server) {
		c.addf("server must be one of %s", pyList(sorted(verdict.Servers)))
	}
	s.Server = server

	argv, ok := stringList(top["argv"])
	if !ok {
		c.addf("argv must be a list of strings")
	}
	s.Argv = argv
	if v, ok := top["stale_log"]; ok {
		if s.StaleLog, ok = stringList(v); !ok {
			c.addf("stale_log must be a list of strings")
		}
	}
	if v, ok := top["vigil_args"]; ok {
		if s.VigilArgs, ok = stringList(v); !ok {
			c.addf("vigil_args must be a list of strings")
		}
	}

	if v, ok := top["timeline"]; ok {
		events, isList := v.([]any)
		if !isList {
			c.addf("timeline must be a list of events")
		}
		s.Timeline = c.timeline(events)
	}

	exp := map[string]any{}
	if v, ok := top["expect"]; ok {
		if exp, ok = v.(map[string]any); !ok {
			c.addf("expect must be an object")
			exp = map[string]any{}
		}
	}
	s.Expect = c.expect(exp)
	return s, c.problems
}

type checker struct{ problems []string }

func (c *checker) addf(format string, a ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, a...))
}

func (c *checker) timeline(events []any) []Event {
	out := make([]Event, 0, len(events))
	lastT := -1.0
	for i, raw := range events {
		ev, ok := raw.(map[string]any)
		if !ok {
			c.addf("event %d must be an object, is %s", i, typeName(raw))
			continue
		}
		var kinds []string
		for _, k := range Kinds {
			if _, ok := ev[string(k)]; ok {
				kinds = append(kinds, string(k))
			}
		}
		t, ok := ev["t"].(float64)
		if !ok {
			c.addf("event %d has no numeric t", i)
			continue
		}
		if t < lastT {
			c.addf("event %d: t goes backwards", i)
		}
		lastT = t
		if t > maxSecond {
			c.addf("event %d: t is too large", i)
		}
		if len(kinds) != 1 {
			all := make([]string, len(Kinds))
			for j, k := range Kinds {
				all[j] = string(k)
			}
			c.addf("event %d must have exactly one of %s, has %s", i, pyList(all), pyList(kinds))
			continue
		}
		e := Event{T: t, Kind: Kind(kinds[0])}
		c.event(i, &e, ev[kinds[0]], ev)
		out = append(out, e)
	}
	return out
}

// event checks and fills the kind-specific part of event i.
func (c *checker) event(i int, e *Event, v any, ev map[string]any) {
	switch e.Kind {
	case KindErr, KindOut:
		if str, ok := v.(string); ok {
			e.Lines = []string{str}
		} else if e.Lines, ok = stringList(v); !ok {
			c.addf("event %d: %s must be a string or a list of strings", i, e.Kind)
		}

	case KindProgress:
		p, ok := v.(map[string]any)
		if !ok {
			c.addf("event %d: progress must be an object", i)
			return
		}
		for _, f := range []string{"fmt", "n", "dur"} {
			if _, ok := p[f]; !ok {
				c.addf("event %d: progress needs %s", i, pyQuote(f))
			}
		}
		e.Progress = &Progress{}
		if f, ok := p["fmt"]; ok {
			if e.Progress.Fmt, ok = f.(string); !ok {
				c.addf("event %d: progress fmt must be a string", i)
			}
		}
		if n, ok := p["n"]; ok {
			if e.Progress.N, ok = c.count(n); !ok || e.Progress.N < 1 {
				c.addf("event %d: progress n must be a whole number from 1 to %d", i, maxCount)
			}
		}
		e.Progress.To = e.Progress.N
		if to, ok := p["to"]; ok {
			if e.Progress.To, ok = c.count(to); !ok {
				c.addf("event %d: progress to must be a whole number from 0 to %d", i, maxCount)
			}
		}
		if d, ok := p["dur"]; ok {
			if e.Progress.Dur, ok = seconds(d); !ok {
				c.addf("event %d: progress dur must be a number of seconds", i)
			}
		}
		if cr, ok := p["cr"]; ok {
			if e.Progress.CR, ok = cr.(bool); !ok {
				c.addf("event %d: progress cr must be true or false", i)
			}
		}
		if e.Progress.Fmt != "" {
			if _, err := ProgressLine(e.Progress, 0, 0); err != nil {
				c.addf("event %d: progress fmt: %v", i, err)
			}
		}

	case KindHealth:
		code, ok := v.(float64)
		if !ok || code != math.Trunc(code) || !(code == 0 || code >= 200 && code <= 599) {
			c.addf("event %d: health must be 0 (not listening) or an HTTP status from 200 to 599", i)
		}
		e.Health = int(clamp(code, 0, 999))
		if b, ok := ev["body"]; ok {
			body, isStr := b.(string)
			if !isStr {
				c.addf("event %d: body must be a string", i)
			}
			e.Body = &body
		}

	case KindGen:
		g, ok := v.(map[string]any)
		if !ok {
			c.addf("event %d: gen.mode must be ok|nan|empty|error", i)
			return
		}
		gen := DefaultGen
		gen.Text = "ok"
		gen.Mode, _ = g["mode"].(string)
		switch gen.Mode {
		case GenOK, GenNaN, GenEmpty, GenError:
		default:
			c.addf("event %d: gen.mode must be ok|nan|empty|error", i)
		}
		if ts, ok := g["tok_s"]; ok {
			if gen.TokS, ok = seconds(ts); !ok {
				c.addf("event %d: gen.tok_s must be a number, 0 or more", i)
			}
		}
		if tx, ok := g["text"]; ok {
			if gen.Text, ok = tx.(string); !ok {
				c.addf("event %d: gen.text must be a string", i)
			}
		}
		e.Gen = &gen

	case KindBusy:
		var ok bool
		if e.Busy, ok = seconds(v); !ok {
			c.addf("event %d: busy must be a number of seconds", i)
		}

	case KindDownload:
		d, ok := v.(map[string]any)
		_, hasRepo := d["repo"]
		_, hasMBs := d["mb_s"]
		_, hasDur := d["dur"]
		if !ok || !hasRepo || !hasMBs || !hasDur {
			c.addf("event %d: download needs repo, mb_s and dur", i)
			return
		}
		e.Download = &Download{}
		if e.Download.Repo, ok = d["repo"].(string); !ok || e.Download.Repo == "" {
			c.addf("event %d: download repo must be a name such as \"Qwen/Qwen3-8B\"", i)
		}
		if e.Download.MBs, ok = seconds(d["mb_s"]); !ok || e.Download.MBs > maxMBs {
			c.addf("event %d: download mb_s must be a number from 0 to %d", i, maxMBs)
		}
		if e.Download.Dur, ok = seconds(d["dur"]); !ok {
			c.addf("event %d: download dur must be a number of seconds", i)
		}
		if st, ok := d["stop"]; ok {
			if e.Download.Stop, ok = st.(bool); !ok {
				c.addf("event %d: download stop must be true or false", i)
			}
		}

	case KindHang:
		e.Hang, _ = v.(string)
		if e.Hang != "idle" && e.Hang != "busy" {
			c.addf("event %d: hang must be idle or busy", i)
		}

	case KindExit:
		code, ok := v.(float64)
		if !ok || code != math.Trunc(code) || code < 0 || code > 255 {
			c.addf("event %d: exit must be a status from 0 to 255", i)
		}
		e.Exit = int(clamp(code, 0, 255))

	case KindSignal:
		name, ok := v.(string)
		if _, known := signals[name]; !ok || !known {
			c.addf("event %d: unknown signal %s", i, show(v))
		}
		e.Signal = name
	}
}

func (c *checker) expect(exp map[string]any) Expect {
	var x Expect
	v, _ := exp["verdict"].(string)
	x.Verdict = verdict.Verdict(v)
	switch x.Verdict {
	case verdict.Ready, verdict.Failed, verdict.Stalled, verdict.Timeout:
	default:
		c.addf("expect.verdict must be one of %s", pyList([]string{"failed", "ready", "stalled", "timeout"}))
	}
	causes := make([]string, len(verdict.Causes))
	for i, k := range verdict.Causes {
		causes[i] = string(k)
	}
	cause, isStr := exp["cause"].(string)
	if x.Verdict == verdict.Failed && !contains(causes, cause) {
		c.addf("expect.cause must be one of %s", pyList(sorted(causes)))
	} else if raw, ok := exp["cause"]; ok && raw != nil && (!isStr || !contains(causes, cause)) {
		c.addf("expect.cause must be one of %s", pyList(sorted(causes)))
	}
	x.Cause = verdict.Cause(cause)
	phases := make([]string, len(verdict.Phases))
	for i, p := range verdict.Phases {
		phases[i] = string(p)
	}
	if raw, ok := exp["phase"]; ok {
		p, _ := raw.(string)
		if !contains(phases, p) {
			c.addf("expect.phase must be one of %s", pyList(sorted(phases)))
		}
		x.Phase = verdict.Phase(p)
	}
	for _, key := range []string{"decided_by", "not_before"} {
		raw, ok := exp[key]
		if !ok {
			continue
		}
		sec, ok := seconds(raw)
		if !ok {
			c.addf("expect.%s must be a number of seconds", key)
			continue
		}
		if key == "decided_by" {
			x.DecidedBy = &sec
		} else {
			x.NotBefore = &sec
		}
	}
	return x
}

// count is a whole number in [0, maxCount] (player.py takes int() of it,
// so 8.0 is 8).
func (c *checker) count(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || f > maxCount {
		return 0, false
	}
	return int(f), true
}

// seconds is a non-negative, bounded number.
func seconds(v any) (float64, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || f > maxSecond {
		return 0, false
	}
	return f, true
}

func clamp(f, lo, hi float64) float64 {
	if !(f >= lo) { // also NaN
		return lo
	}
	if f > hi {
		return hi
	}
	return f
}

func stringList(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(list))
	for i, x := range list {
		if out[i], ok = x.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sorted(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

// pyQuote and pyList print strings and lists as Python's repr does, so that
// problems read like player.py's.
func pyQuote(s string) string { return "'" + s + "'" }

func pyList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = pyQuote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// show prints a value from the file safely on one line, cut if long.
func show(v any) string {
	s, ok := v.(string)
	if !ok {
		return typeName(v)
	}
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}

func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
