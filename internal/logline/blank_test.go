package logline

import (
	"strings"
	"testing"
)

// FuzzBlank checks Blank against strings.TrimSpace.
func FuzzBlank(f *testing.F) {
	for _, s := range []string{"", " ", "\t \r\n\v\f", "x", " x ", "\u00a0", " \u3000 ", "\u0085x", "\xff", " \xc2", "\u2028\u2029\u205f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Blank(s), strings.TrimSpace(s) == ""; got != want {
			t.Fatalf("Blank(%q) = %v, want %v", s, got, want)
		}
	})
}
