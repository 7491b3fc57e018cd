// Package ansi removes terminal escape sequences from server output, so
// that a coloured log line reads as its plain text.
package ansi

import (
	"regexp"
	"strings"
)

// seq matches CSI sequences (colours, cursor moves, "\x1b[?25l") and OSC
// sequences ending in BEL (terminal titles, hyperlinks).
var seq = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07`)

// Strip removes terminal colour and control sequences.
func Strip(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	return seq.ReplaceAllString(s, "")
}
