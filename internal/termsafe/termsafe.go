// Package termsafe makes text from a server or a log safe to print on a
// terminal: a NUL, a stray escape sequence or a carriage return in a log
// line must not garble, recolour or rewrite the user's screen.
package termsafe

import (
	"strings"
	"unicode/utf8"
)

// String returns s with everything a terminal would act on removed:
// escape sequences (CSI, OSC, and two-byte ESC ones) whole, C0 control
// characters including NUL, CR and LF (tab is kept), DEL, C1 controls, and
// the bidirectional overrides that reorder what is shown. Invalid UTF-8
// becomes U+FFFD, so no raw byte reaches an 8-bit terminal.
func String(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b {
			i = skipEscape(s, i)
			continue
		}
		if c < utf8.RuneSelf {
			if c == '\t' || c >= 0x20 && c != 0x7f {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == 0x9b: // C1 CSI: a sequence follows, as after ESC [
			i = skipCSIBody(s, i)
		case r >= 0x80 && r <= 0x9f:
		case bidi(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plain is true for text with nothing to remove: the common case costs
// one scan and no allocation.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' || c >= 0x7f {
			return false
		}
	}
	return true
}

func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// skipEscape returns the index after the escape sequence starting at i.
func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSIBody(s, i+1)
	case ']', 'P', '_', '^', 'X':
		// OSC, DCS, APC, PM, SOS: up to BEL or ST (ESC \).
		for i++; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return i
	}
	// A two-byte sequence (ESC c, ESC 7, ESC ( B takes one more).
	if s[i] >= 0x20 && s[i] <= 0x2f && i+1 < len(s) {
		return i + 2
	}
	return i + 1
}

// skipCSIBody skips parameter and intermediate bytes and the final byte.
func skipCSIBody(s string, i int) int {
	for ; i < len(s); i++ {
		if c := s[i]; c >= 0x40 && c <= 0x7e {
			return i + 1
		} else if c < 0x20 || c > 0x7e {
			return i
		}
	}
	return i
}
