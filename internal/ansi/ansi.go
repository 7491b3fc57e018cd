// Package ansi removes terminal escape sequences from server output, so
// that a coloured log line reads as its plain text.
package ansi

import "strings"

// Strip removes terminal colour and control sequences: CSI sequences
// (colours, cursor moves, "\x1b[?25l"), `\x1b\[[0-9;?]*[A-Za-z]`, and OSC
// sequences ending in BEL (terminal titles, hyperlinks),
// `\x1b\][^\x07]*\x07`. An escape that starts neither stays. It is
// written out rather than a regexp's replace: every line of a log passes
// here, a coloured one several times.
func Strip(s string) string {
	i := strings.IndexByte(s, 0x1b)
	if i < 0 {
		return s
	}
	// A Builder hands its buffer over as the string: one copy, not two.
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		if n := seqLen(s[i:]); n > 0 {
			b.WriteString(s[:i])
			s = s[i+n:]
		} else {
			b.WriteString(s[:i+1])
			s = s[i+1:]
		}
		i = strings.IndexByte(s, 0x1b)
	}
	b.WriteString(s)
	return b.String()
}

// seqLen is the length of the sequence the escape at s[0] starts, or 0.
func seqLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '[':
		j := 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == '?') {
			j++
		}
		if j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z') {
			return j + 1
		}
	case ']':
		if k := strings.IndexByte(s[2:], 0x07); k >= 0 {
			return 2 + k + 1
		}
	}
	return 0
}
