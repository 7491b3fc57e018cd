package judge

import (
	"strings"
	"testing"

	"vigil/internal/logline"
)

// FuzzEvidenceOpen checks evidenceOpen against its definition with
// strings.TrimRight.
func FuzzEvidenceOpen(f *testing.F) {
	for _, s := range []string{"", " ", "\t", "x:", "x: \r", "  File", "\tat", "x", "x:y", "\r", ": \t"} {
		f.Add(s, false)
	}
	f.Add("x", true)
	f.Fuzz(func(t *testing.T, msg string, partial bool) {
		tr := strings.TrimRight(msg, " \t\r")
		want := partial || tr == "" || strings.HasSuffix(tr, ":") || strings.HasPrefix(msg, " ") || strings.HasPrefix(msg, "\t")
		if got := evidenceOpen(logline.Line{Partial: partial}, msg); got != want {
			t.Fatalf("evidenceOpen(%q, partial %v) = %v, want %v", msg, partial, got, want)
		}
	})
}
