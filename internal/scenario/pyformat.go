package scenario

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A progress bar's fmt is a Python format string (str.format) with named
// fields. This file implements the part of Python's format mini-language a
// bar needs: {name} and {name:spec} with fill, align, sign, zero padding,
// width, grouping, precision and the types d n x X o b e E f F g G % s.
// Anything else is an error, found when the scenario is checked.

// maxWidth bounds widths and precisions so that a format cannot make the
// player build huge strings.
const maxWidth = 1000

// pyArg is one field's value: an int, a float or a string.
type pyArg struct {
	kind byte // 'i', 'f' or 's'
	i    int64
	f    float64
	s    string
}

// ProgressLine formats the bar's line for step i after el seconds, exactly
// as player.py computes it.
func ProgressLine(p *Progress, i int, el float64) (string, error) {
	rate := 0.0
	if el > 0 {
		rate = float64(i) / el
	}
	eta := 0.0
	if rate > 0 {
		eta = float64(p.N-i) / rate
	}
	n := max(p.N, 1)
	args := map[string]pyArg{
		"pct":  {kind: 'i', i: int64(100 * float64(i) / float64(n))},
		"i":    {kind: 'i', i: int64(i)},
		"n":    {kind: 'i', i: int64(p.N)},
		"rate": {kind: 'f', f: rate},
		"el":   {kind: 's', s: mmss(el)},
		"eta":  {kind: 's', s: mmss(eta)},
	}
	return pyFormat(p.Fmt, args)
}

// mmss is Python's "%02d:%02d" % divmod(int(sec), 60).
func mmss(sec float64) string {
	s := int64(clamp(sec, -maxSecond, maxSecond))
	m, r := s/60, s%60
	if r < 0 { // floor division, as divmod does
		m, r = m-1, r+60
	}
	return fmt.Sprintf("%02d:%02d", m, r)
}

// pyFormat is format.format(**args).
func pyFormat(format string, args map[string]pyArg) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); {
		c := format[i]
		switch {
		case c == '{' && i+1 < len(format) && format[i+1] == '{':
			b.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(format) && format[i+1] == '}':
			b.WriteByte('}')
			i += 2
		case c == '}':
			return "", errors.New("single '}' encountered in format string")
		case c == '{':
			end := strings.IndexAny(format[i+1:], "{}")
			if end < 0 || format[i+1+end] != '}' {
				return "", errors.New("unmatched '{' or nested field in format string")
			}
			field := format[i+1 : i+1+end]
			name, spec, _ := strings.Cut(field, ":")
			if strings.ContainsAny(name, "!.[") {
				return "", fmt.Errorf("field %s: conversions, attributes and indexes are not supported", strconv.Quote(field))
			}
			a, ok := args[name]
			if !ok {
				return "", fmt.Errorf("unknown field %s (have pct, i, n, el, eta, rate)", strconv.Quote(name))
			}
			s, err := formatArg(a, spec)
			if err != nil {
				return "", fmt.Errorf("field %s: %v", strconv.Quote(field), err)
			}
			b.WriteString(s)
			i += end + 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

type fmtSpec struct {
	fill      rune
	align     rune // 0, '<', '>', '=', '^'
	sign      rune // 0, '+', '-', ' '
	alt       bool
	zero      bool
	width     int
	group     rune // 0, ',', '_'
	precision int  // -1 if none
	typ       rune // 0 if none
}

func parseSpec(spec string) (fmtSpec, error) {
	fs := fmtSpec{fill: ' ', precision: -1}
	r := []rune(spec)
	i := 0
	isAlign := func(c rune) bool { return strings.ContainsRune("<>=^", c) }
	if len(r) >= 2 && isAlign(r[1]) {
		fs.fill, fs.align, i = r[0], r[1], 2
	} else if len(r) >= 1 && isAlign(r[0]) {
		fs.align, i = r[0], 1
	}
	if i < len(r) && strings.ContainsRune("+- ", r[i]) {
		fs.sign = r[i]
		i++
	}
	if i < len(r) && r[i] == 'z' {
		i++
	}
	if i < len(r) && r[i] == '#' {
		fs.alt = true
		i++
	}
	if i < len(r) && r[i] == '0' {
		fs.zero = true
		i++
	}
	num := func() (int, bool, error) {
		start := i
		for i < len(r) && r[i] >= '0' && r[i] <= '9' {
			i++
		}
		if i == start {
			return 0, false, nil
		}
		n, err := strconv.Atoi(string(r[start:i]))
		if err != nil || n > maxWidth {
			return 0, true, fmt.Errorf("width or precision above %d", maxWidth)
		}
		return n, true, nil
	}
	var err error
	if fs.width, _, err = num(); err != nil {
		return fs, err
	}
	if i < len(r) && (r[i] == ',' || r[i] == '_') {
		fs.group = r[i]
		i++
	}
	if i < len(r) && r[i] == '.' {
		i++
		p, ok, err := num()
		if err != nil {
			return fs, err
		}
		if !ok {
			return fs, errors.New("format specifier missing precision")
		}
		fs.precision = p
	}
	if i < len(r) {
		fs.typ = r[i]
		i++
	}
	if i < len(r) {
		return fs, errors.New("invalid format specifier")
	}
	return fs, nil
}

func formatArg(a pyArg, spec string) (string, error) {
	fs, err := parseSpec(spec)
	if err != nil {
		return "", err
	}
	switch a.kind {
	case 's':
		return formatString(a.s, fs)
	case 'i':
		switch fs.typ {
		case 0, 'd', 'n', 'x', 'X', 'o', 'b':
			return formatInt(a.i, fs)
		case 'e', 'E', 'f', 'F', 'g', 'G', '%':
			return formatFloat(float64(a.i), fs)
		}
		return "", fmt.Errorf("unknown format code '%c' for an integer", fs.typ)
	}
	switch fs.typ {
	case 0, 'e', 'E', 'f', 'F', 'g', 'G', '%':
		return formatFloat(a.f, fs)
	}
	return "", fmt.Errorf("unknown format code '%c' for a float", fs.typ)
}

func formatString(s string, fs fmtSpec) (string, error) {
	switch {
	case fs.typ != 0 && fs.typ != 's':
		return "", fmt.Errorf("unknown format code '%c' for a string", fs.typ)
	case fs.sign != 0:
		return "", errors.New("sign not allowed in string format specifier")
	case fs.alt:
		return "", errors.New("alternate form (#) not allowed in string format specifier")
	case fs.group != 0:
		return "", errors.New("cannot specify grouping with a string")
	case fs.align == '=':
		return "", errors.New("'=' alignment not allowed in string format specifier")
	}
	if fs.precision >= 0 && utf8.RuneCountInString(s) > fs.precision {
		s = string([]rune(s)[:fs.precision])
	}
	return pad("", s, fs, false), nil
}

func formatInt(v int64, fs fmtSpec) (string, error) {
	if fs.precision >= 0 {
		return "", errors.New("precision not allowed in integer format specifier")
	}
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	var digits, prefix string
	switch fs.typ {
	case 'x', 'X', 'o', 'b':
		if fs.group != 0 {
			return "", errors.New("grouping is only supported for decimal integers")
		}
		base := map[rune]int{'x': 16, 'X': 16, 'o': 8, 'b': 2}[fs.typ]
		digits = strconv.FormatUint(u, base)
		if fs.typ == 'X' {
			digits = strings.ToUpper(digits)
		}
		if fs.alt {
			prefix = "0" + string(fs.typ)
		}
	default:
		digits = group(strconv.FormatUint(u, 10), fs.group)
	}
	return pad(signOf(neg, fs.sign)+prefix, digits, fs, true), nil
}

func formatFloat(f float64, fs fmtSpec) (string, error) {
	neg := math.Signbit(f) && !math.IsNaN(f)
	a := math.Abs(f)
	var body string
	switch {
	case math.IsNaN(a), math.IsInf(a, 0):
		body = "inf"
		if math.IsNaN(a) {
			body = "nan"
		}
		if fs.typ == 'E' || fs.typ == 'F' || fs.typ == 'G' {
			body = strings.ToUpper(body)
		}
		if fs.typ == '%' {
			body += "%"
		}
	default:
		prec := fs.precision
		switch fs.typ {
		case 'f', 'F':
			body = strconv.FormatFloat(a, 'f', orDefault(prec, 6), 64)
		case 'e', 'E':
			body = strconv.FormatFloat(a, 'e', orDefault(prec, 6), 64)
		case '%':
			body = strconv.FormatFloat(a*100, 'f', orDefault(prec, 6), 64) + "%"
		case 'g', 'G':
			body = formatG(a, orDefault(prec, 6), fs.alt, false)
		default: // no type: repr, or like 'g' keeping a decimal digit
			if prec < 0 {
				body = formatRepr(a)
			} else {
				body = formatG(a, prec, fs.alt, true)
			}
		}
		if fs.typ == 'E' || fs.typ == 'G' {
			body = strings.ToUpper(body)
		}
		if fs.group != 0 {
			intPart, rest := body, ""
			if k := strings.IndexAny(body, ".e%"); k >= 0 {
				intPart, rest = body[:k], body[k:]
			}
			body = group(intPart, fs.group) + rest
		}
	}
	return pad(signOf(neg, fs.sign), body, fs, true), nil
}

func orDefault(p, def int) int {
	if p < 0 {
		return def
	}
	return p
}

// formatG is Python's 'g' (and, with keepPoint, the no-type format with a
// precision, which switches to exponents one digit earlier and keeps at
// least one digit after the point).
func formatG(a float64, prec int, alt, keepPoint bool) string {
	if prec == 0 {
		prec = 1
	}
	e := strconv.FormatFloat(a, 'e', prec-1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	limit := prec
	if keepPoint {
		limit = prec - 1
		if limit < 1 {
			limit = 1
		}
	}
	var s string
	if exp < -4 || exp >= limit {
		mant, ex, _ := strings.Cut(e, "e")
		if !alt {
			mant = trimZeros(mant)
		}
		s = mant + "e" + ex
	} else {
		s = strconv.FormatFloat(a, 'f', max(prec-1-exp, 0), 64)
		if !alt {
			s = trimZeros(s)
		}
		if keepPoint && !strings.Contains(s, ".") {
			s += ".0"
		}
	}
	return s
}

// formatRepr is Python's repr of a non-negative finite float.
func formatRepr(a float64) string {
	if a == 0 {
		return "0.0"
	}
	e := strconv.FormatFloat(a, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(a, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// group inserts sep between groups of three digits.
func group(digits string, sep rune) string {
	if sep == 0 || len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	head := len(digits) % 3
	if head > 0 {
		b.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteRune(sep)
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

func signOf(neg bool, sign rune) string {
	switch {
	case neg:
		return "-"
	case sign == '+':
		return "+"
	case sign == ' ':
		return " "
	}
	return ""
}

// pad aligns sign+body in the spec's width. Numbers align right by default
// and a leading 0 in the width pads them with zeros after the sign; strings
// align left.
func pad(sign, body string, fs fmtSpec, numeric bool) string {
	n := fs.width - utf8.RuneCountInString(sign) - utf8.RuneCountInString(body)
	if n <= 0 {
		return sign + body
	}
	align, fill := fs.align, fs.fill
	if align == 0 {
		switch {
		case fs.zero && numeric:
			align, fill = '=', '0'
		case fs.zero:
			align, fill = '<', '0'
		case numeric:
			align = '>'
		default:
			align = '<'
		}
	}
	f := string(fill)
	switch align {
	case '<':
		return sign + body + strings.Repeat(f, n)
	case '^':
		return strings.Repeat(f, n/2) + sign + body + strings.Repeat(f, n-n/2)
	case '=':
		return sign + strings.Repeat(f, n) + body
	}
	return strings.Repeat(f, n) + sign + body
}
