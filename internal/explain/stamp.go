package explain

import (
	"strings"
	"time"

	"vigil/internal/classify"
)

// stamper reads the timestamp a line starts with, in the four layouts that
// classify.ParseFast recognises (SGLang, vLLM, ISO/TGI, TensorRT-LLM), without
// regular expressions: it runs on every line, so it only looks at the
// first bytes. Consecutive lines mostly carry the same stamp, so the last
// stamp's time is kept and a repeat costs one string comparison.
type stamper struct {
	loc *time.Location
	now time.Time
	// last stamp text and kind, and its time in Unix nanoseconds
	text string
	kind byte
	t    int64
}

func newStamper(loc *time.Location, now time.Time) *stamper {
	return &stamper{loc: loc, now: now}
}

// of returns the line's time in Unix nanoseconds, or 0 when it carries no
// stamp.
func (s *stamper) of(line string) int64 {
	text, kind := stampText(line)
	if kind == 0 {
		return 0
	}
	if kind == s.kind && text == s.text {
		return s.t
	}
	t, ok := s.parse(text, kind)
	if !ok {
		return 0
	}
	s.text, s.kind, s.t = text, kind, t
	return t
}

// Stamp kinds.
const (
	kindSGLang = 's' // [2026-05-24 00:52:39(.123)
	kindVLLM   = 'v' // INFO 05-24 00:52:39
	kindISO    = 'i' // 2026-05-24T00:52:39.123456Z
	kindTRT    = 't' // [05/24/2026-00:52:39]
)

// stampText finds the stamp text at the start of a line (after vLLM's
// process tag), or kind 0.
func stampText(line string) (string, byte) {
	if line != "" && line[0] == 0x1b {
		// Coloured lines (TGI) go the slow, exact way.
		p := classify.ParseFast(line)
		switch p.StampKind {
		case "sglang":
			return p.Stamp, kindSGLang
		case "vllm":
			return p.Stamp, kindVLLM
		case "iso":
			return p.Stamp, kindISO
		case "trtllm":
			return p.Stamp, kindTRT
		}
		return "", 0
	}
	if len(line) < 19 {
		return "", 0
	}
	switch c := line[0]; {
	case c == '[':
		if shape(line[1:], "9999-99-99 99:99:99") {
			n := 20
			if n < len(line) && line[n] == '.' {
				d := countDigits(line[n+1:])
				if d >= 1 && d <= 6 {
					n += 1 + d
				}
			}
			return line[1:n], kindSGLang
		}
		if shape(line[1:], "99/99/9999-99:99:99]") {
			return line[1:20], kindTRT
		}
	case c >= '0' && c <= '9':
		if shape(line, "9999-99-99T99:99:99") {
			n := 19
			if n < len(line) && line[n] == '.' {
				n += 1 + countDigits(line[n+1:])
			}
			if n < len(line) && line[n] == 'Z' {
				return line[:n+1], kindISO
			}
		}
	case c == '(':
		// "(EngineCore_DP0 pid=7502) INFO ..."
		if k := strings.IndexByte(line, ')'); k > 0 && k+2 < len(line) && line[k+1] == ' ' {
			line = line[k+2:]
		}
	}
	for _, l := range [...]string{"INFO ", "WARNING ", "ERROR ", "DEBUG ", "CRITICAL "} {
		if strings.HasPrefix(line, l) {
			if shape(line[len(l):], "99-99 99:99:99") {
				return line[len(l) : len(l)+14], kindVLLM
			}
			break
		}
	}
	return "", 0
}

// parse turns stamp text into Unix nanoseconds. Local layouts are in
// s.loc; vLLM's year-less stamps take the year that puts them closest
// before now (as runstart does).
func (s *stamper) parse(text string, kind byte) (int64, bool) {
	var y, mo, d, h, mi, sec, ns int
	loc := s.loc
	switch kind {
	case kindSGLang:
		y, mo, d = num(text[0:4]), num(text[5:7]), num(text[8:10])
		h, mi, sec = num(text[11:13]), num(text[14:16]), num(text[17:19])
		ns = frac(text[19:])
	case kindTRT:
		mo, d, y = num(text[0:2]), num(text[3:5]), num(text[6:10])
		h, mi, sec = num(text[11:13]), num(text[14:16]), num(text[17:19])
	case kindISO:
		y, mo, d = num(text[0:4]), num(text[5:7]), num(text[8:10])
		h, mi, sec = num(text[11:13]), num(text[14:16]), num(text[17:19])
		ns = frac(text[19 : len(text)-1])
		loc = time.UTC
	case kindVLLM:
		mo, d = num(text[0:2]), num(text[3:5])
		h, mi, sec = num(text[6:8]), num(text[9:11]), num(text[12:14])
		y = s.now.Year()
	default:
		return 0, false
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 {
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ns, loc)
	if kind == kindVLLM && t.After(s.now.Add(24*time.Hour)) {
		t = t.AddDate(-1, 0, 0)
	}
	return t.UnixNano(), true
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
func frac(s string) int {
	if len(s) < 2 || s[0] != '.' {
		return 0
	}
	ns, scale := 0, 100_000_000
	for i := 1; i < len(s) && scale > 0; i++ {
		ns += int(s[i]-'0') * scale
		scale /= 10
	}
	return ns
}
