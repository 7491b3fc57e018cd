// Package stamp reads the timestamps server log lines start with, in the
// four layouts that classify.ParseFast recognises (SGLang, vLLM, ISO/TGI,
// TensorRT-LLM). It is the one timestamp parser: the offline judge reads
// every line's stamp through a Reader, the run splitter the stamps
// classify has taken apart through Parse.
package stamp

import (
	"iter"
	"strings"
	"time"

	"vigil/internal/classify"
)

// Reader reads the timestamp a line starts with, without regular
// expressions: it runs on every line, so it only looks at the first bytes.
// Consecutive lines mostly carry the same stamp, so the last stamp's time
// is kept and a repeat costs one string comparison.
type Reader struct {
	loc *time.Location
	now time.Time
	// last stamp text and kind, and its time in Unix nanoseconds
	text string
	kind Kind
	t    int64
}

// NewReader reads local stamps in loc (nil: time.Local) and places vLLM's
// year-less stamps in the year that puts them closest before now.
func NewReader(loc *time.Location, now time.Time) *Reader {
	if loc == nil {
		loc = time.Local
	}
	return &Reader{loc: loc, now: now}
}

// SetNow moves the time that places year-less stamps (see YearNow).
func (s *Reader) SetNow(now time.Time) {
	if !now.Equal(s.now) {
		s.now = now
		s.text, s.kind = "", 0
	}
}

// YearNow is the time year-less stamps are placed before for a log whose
// first lines are lines: now, unless a dated stamp among them shows an
// older log. vLLM prints "08-11 10:45:36" beside NCCL's, a wrapper's or
// a runtime's dated lines; placed before now, a log from an earlier year
// fell a year after its own dated lines. With a dated stamp, the year-less
// ones take the year that puts them from a week before the first of them
// to a year after it (lines come in time order, but a library's logger
// may print another zone's time, or the day before: SGLang 0.4's vLLM
// imports), never after now.
func YearNow(lines iter.Seq[string], loc *time.Location, now time.Time) time.Time {
	for line := range lines {
		text, kind := Text(line)
		if kind != SGLang && kind != ISO && kind != TRT {
			continue
		}
		t, ok := Parse(text, kind, loc, now)
		if !ok {
			continue
		}
		// Parse places a year-less stamp in the year up to a day after
		// its now.
		if at := time.Unix(0, t).Add(yearAhead); at.Before(now) {
			return at
		}
		return now
	}
	return now
}

// yearAhead: YearNow's now is this long after a log's first dated stamp
// (a year less the week before it and Parse's day after now).
const yearAhead = (365 - 7 - 1) * 24 * time.Hour

// Of returns the line's time in Unix nanoseconds, or 0 when it carries no
// stamp.
func (s *Reader) Of(line string) int64 {
	text, kind := Text(line)
	if kind == 0 {
		return 0
	}
	if kind == s.kind && text == s.text {
		return s.t
	}
	t, ok := Parse(text, kind, s.loc, s.now)
	if !ok {
		return 0
	}
	s.text, s.kind, s.t = text, kind, t
	return t
}

// Kind is a stamp's layout.
type Kind byte

// Stamp kinds.
const (
	SGLang Kind = 's' // [2026-05-24 00:52:39(.123)
	VLLM   Kind = 'v' // INFO 05-24 00:52:39
	ISO    Kind = 'i' // 2026-05-24T00:52:39.123456Z
	TRT    Kind = 't' // [05/24/2026-00:52:39]
	Syslog Kind = 'j' // May 24 00:52:39 (journalctl's short format)
)

// KindOf maps classify's StampKind names to kinds (0: none).
func KindOf(name string) Kind {
	switch name {
	case "sglang":
		return SGLang
	case "vllm":
		return VLLM
	case "iso":
		return ISO
	case "trtllm":
		return TRT
	case "syslog":
		return Syslog
	}
	return 0
}

// Text finds the stamp text at the start of a line (after vLLM's process
// tag), or kind 0.
func Text(line string) (string, Kind) {
	if line != "" && (line[0] == 0x1b || line[0] == '{') {
		// Coloured lines (TGI) and structured ones (TGI's --json-output)
		// go the slow, exact way.
		p := classify.ParseFast(line)
		if k := KindOf(p.StampKind); k != 0 {
			return p.Stamp, k
		}
		return "", 0
	}
	if len(line) < 19 {
		return "", 0
	}
	if c := line[0]; c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
		// A container runtime's prefix (docker compose's service, Docker
		// Desktop's time) or the journal's comes first: its stamp, or the
		// line's own after it.
		if classify.MayHaveContainer(line) && !(c >= '0' && c <= '9' && shape(line, "9999-99-99T")) {
			n, text, kind := classify.CutContainer(line)
			if k := KindOf(kind); k != 0 {
				return text, k
			}
			if n > 0 {
				return Text(line[n:])
			}
		}
	}
	if c := line[0]; c == ' ' || c >= '0' && c <= '9' {
		// srun --label's task number ("0: [12/04/2025-18:33:52] ...").
		if _, n := classify.CutSrunLabel(line); n > 0 {
			return Text(line[n:])
		}
	}
	switch c := line[0]; {
	case c == '[':
		if text, kind := bracketed(line); kind != 0 {
			return text, kind
		}
		// kubectl logs --prefix's "[pod/POD/CONTAINER] ".
		if _, n := classify.ComposeService(line); n > 0 {
			return Text(line[n:])
		}
	case c >= '0' && c <= '9':
		if k := classify.LocalDateTime(line); k > 0 {
			return line[:k], SGLang
		}
		if shape(line, "9999-99-99T99:99:99") {
			n := 19
			if n < len(line) && line[n] == '.' {
				n += 1 + countDigits(line[n+1:])
			}
			if n < len(line) && line[n] == 'Z' {
				return line[:n+1], ISO
			}
			// journalctl -o short-iso(-precise): the time with its zone.
			if _, text, kind := classify.CutContainer(line); kind == "iso" {
				return text, ISO
			}
		}
	case c == '(':
		// "(EngineCore_DP0 pid=7502) INFO ...", and Ray's driver's tag
		// before its actor's: "(APIServer pid=5332) (DPEngineCoreActor
		// pid=5862) INFO ...".
		for range 2 {
			k := strings.IndexByte(line, ')')
			if line == "" || line[0] != '(' || k <= 0 || k+2 >= len(line) || line[k+1] != ' ' {
				break
			}
			line = line[k+2:]
		}
		// (SGLang's own stamp under Ray's actor tag: "(SGLangEngine
		// pid=206831) [2026-02-26 12:02:18] ...".)
		if strings.HasPrefix(line, "[") {
			if text, kind := bracketed(line); kind != 0 {
				return text, kind
			}
		}
	}
	if k := classify.LocalDateTime(line); k > 0 {
		return line[:k], SGLang
	}
	if line == "" || strings.IndexByte("IWEDC", line[0]) < 0 {
		// (No level word: explain reads back over a chunk of a server's
		// unstamped lines, llama.cpp's default, at the end of each.)
		return "", 0
	}
	for _, l := range [...]string{"INFO ", "WARNING ", "ERROR ", "DEBUG ", "CRITICAL "} {
		if strings.HasPrefix(line, l) {
			if shape(line[len(l):], "99-99 99:99:99") {
				return line[len(l) : len(l)+14], VLLM
			}
			// Ray Serve's and InstructLab's level before a Python
			// logger's local time.
			if k := classify.LocalDateTime(line[len(l):]); k > 0 {
				return line[len(l) : len(l)+k], SGLang
			}
			break
		}
	}
	return "", 0
}

// bracketed is the stamp a line opens with in brackets: SGLang's
// "[2026-05-24 00:52:39(.123)" or TensorRT-LLM's "[05/24/2026-00:52:39]".
func bracketed(line string) (string, Kind) {
	if shape(line[1:], "9999-99-99 99:99:99") {
		n := 20
		if n < len(line) && line[n] == '.' {
			d := countDigits(line[n+1:])
			if d >= 1 && d <= 6 {
				n += 1 + d
			}
		}
		return line[1:n], SGLang
	}
	if shape(line[1:], "99/99/9999-99:99:99]") {
		return line[1:20], TRT
	}
	return "", 0
}

// Parse turns stamp text of a kind into Unix nanoseconds. Local layouts
// are in loc; vLLM's year-less stamps take the year that puts them closest
// before now.
func Parse(text string, kind Kind, loc *time.Location, now time.Time) (int64, bool) {
	var y, mo, d, h, mi, sec, ns int
	if !wellFormed(text, kind) {
		return 0, false
	}
	switch kind {
	case SGLang:
		y, mo, d = num(text[0:4]), num(text[5:7]), num(text[8:10])
		h, mi, sec = num(text[11:13]), num(text[14:16]), num(text[17:19])
		ns = frac(text[19:])
	case TRT:
		mo, d, y = num(text[0:2]), num(text[3:5]), num(text[6:10])
		h, mi, sec = num(text[11:13]), num(text[14:16]), num(text[17:19])
	case ISO:
		y, mo, d = num(text[0:4]), num(text[5:7]), num(text[8:10])
		h, mi, sec = num(text[11:13]), num(text[14:16]), num(text[17:19])
		k := 19 + fracLen(text[19:])
		ns = frac(text[19:k])
		zone := text[k:]
		loc = time.UTC
		if zone != "Z" {
			// journalctl -o short-iso: "+02:00", or "+0200" before v248.
			off := (num(zone[1:3])*60 + num(zone[len(zone)-2:])) * 60
			if zone[0] == '-' {
				off = -off
			}
			loc = time.FixedZone("", off)
		}
	case VLLM:
		mo, d = num(text[0:2]), num(text[3:5])
		h, mi, sec = num(text[6:8]), num(text[9:11]), num(text[12:14])
		y = now.Year()
	case Syslog:
		mo = syslogMonth(text[0:3])
		d = num(strings.TrimLeft(text[4:6], " "))
		h, mi, sec = num(text[7:9]), num(text[10:12]), num(text[13:15])
		ns = frac(text[15:])
		y = now.Year()
	default:
		return 0, false
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 {
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ns, loc)
	if (kind == VLLM || kind == Syslog) && t.After(now.Add(24*time.Hour)) {
		t = t.AddDate(-1, 0, 0)
	}
	return t.UnixNano(), true
}

// wellFormed checks the text's shape, so that Parse can take text from
// anywhere (Text only finds well-formed stamps).
func wellFormed(text string, kind Kind) bool {
	switch kind {
	case SGLang:
		return shape(text, "9999-99-99 99:99:99") && (len(text) == 19 || (text[19] == '.' || text[19] == ',') && countDigits(text[20:]) == len(text)-20)
	case TRT:
		return len(text) == 19 && shape(text, "99/99/9999-99:99:99")
	case ISO:
		if !shape(text, "9999-99-99T99:99:99") {
			return false
		}
		zone := text[19+fracLen(text[19:]):]
		return zone == "Z" || len(zone) == 6 && (zone[0] == '+' || zone[0] == '-') && shape(zone[1:], "99:99") ||
			len(zone) == 5 && (zone[0] == '+' || zone[0] == '-') && shape(zone[1:], "9999")
	case VLLM:
		return len(text) == 14 && shape(text, "99-99 99:99:99")
	case Syslog:
		return (len(text) == 15 || len(text) == 22 && text[15] == '.' && countDigits(text[16:]) == 6) && syslogMonth(text[0:3]) > 0 &&
			text[3] == ' ' && (text[4] == ' ' || text[4] >= '0' && text[4] <= '9') && shape(text[5:], "9 99:99:99")
	}
	return false
}

// syslogMonth is the month of journalctl's abbreviation, in English or
// in the German ones that differ (and are ASCII); 0 for none.
func syslogMonth(s string) int {
	if i := strings.Index("JanFebMarAprMayJunJulAugSepOctNovDec", s); i >= 0 && i%3 == 0 {
		return 1 + i/3
	}
	switch s {
	case "Mai":
		return 5
	case "Okt":
		return 10
	case "Dez":
		return 12
	}
	return 0
}

// shape reports whether s starts with the shape pat, '9' standing for a
// digit.
func shape(s, pat string) bool {
	if len(s) < len(pat) {
		return false
	}
	for i := 0; i < len(pat); i++ {
		if pat[i] == '9' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != pat[i] {
			return false
		}
	}
	return true
}

func countDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func num(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// frac reads ".123" as nanoseconds; anything else is 0.
// fracLen is the length of the fraction of a second s opens with ("." and
// its digits), 0 for none.
func fracLen(s string) int {
	if len(s) < 2 || s[0] != '.' {
		return 0
	}
	return 1 + countDigits(s[1:])
}

func frac(s string) int {
	if len(s) < 2 || s[0] != '.' && s[0] != ',' {
		return 0
	}
	ns, scale := 0, 100_000_000
	for i := 1; i < len(s) && scale > 0; i++ {
		ns += int(s[i]-'0') * scale
		scale /= 10
	}
	return ns
}
