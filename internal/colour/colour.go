// Package colour decides whether human output is coloured and wraps text in
// the few ANSI styles vigil uses. It follows the conventions users bring from
// other tools: colour only on a terminal, never with NO_COLOR, always with
// CLICOLOR_FORCE, never on TERM=dumb.
package colour

import "strings"

// Enabled reports whether output to a stream should be coloured. getenv is
// the environment lookup (injected for tests); isTTY says whether the stream
// is a terminal.
func Enabled(getenv func(string) string, isTTY bool) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	if f := getenv("CLICOLOR_FORCE"); f != "" && f != "0" {
		return true
	}
	if getenv("TERM") == "dumb" || getenv("CLICOLOR") == "0" {
		return false
	}
	return isTTY
}

// Palette styles text; the zero Palette (or one made with New(false)) leaves
// text as it is, so callers never branch on whether colour is on.
type Palette struct{ on bool }

// New returns a palette that colours when on is true.
func New(on bool) Palette { return Palette{on: on} }

// On reports whether the palette adds colour.
func (p Palette) On() bool { return p.on }

const reset = "\x1b[0m"

func (p Palette) wrap(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + reset
}

// Good is for a ready verdict and passing checks: bold green.
func (p Palette) Good(s string) string { return p.wrap("1;32", s) }

// Bad is for failed verdicts and causes: bold red.
func (p Palette) Bad(s string) string { return p.wrap("1;31", s) }

// Warn is for stalls, timeouts and warnings: bold yellow.
func (p Palette) Warn(s string) string { return p.wrap("1;33", s) }

// Phase is for phase names: cyan.
func (p Palette) Phase(s string) string { return p.wrap("36", s) }

// Dim is for secondary detail (paths, hints' labels): faint.
func (p Palette) Dim(s string) string { return p.wrap("2", s) }

// Bold emphasises without meaning.
func (p Palette) Bold(s string) string { return p.wrap("1", s) }

// Verdict colours a verdict word by what it means: ready is good, failed is
// bad, anything else (stalled, timeout) is a warning.
func (p Palette) Verdict(word string) string {
	switch strings.ToLower(word) {
	case "ready":
		return p.Good(word)
	case "failed":
		return p.Bad(word)
	default:
		return p.Warn(word)
	}
}
