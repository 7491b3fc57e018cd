package ansi

import (
	"regexp"
	"testing"
)

func TestStrip(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "INFO ready", "INFO ready"},
		{"colour", "\x1b[32mINFO\x1b[0m ready", "INFO ready"},
		{"private mode", "\x1b[?25lLoading\x1b[?25h", "Loading"},
		{"title", "\x1b]0;vllm\x07INFO ready", "INFO ready"},
		{"a lone escape stays", "a\x1bb", "a\x1bb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Strip(tt.in); got != tt.want {
				t.Errorf("Strip(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// seqRe is the expression Strip is written from; the fuzz target holds
// them equal.
var seqRe = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07`)

func FuzzStrip(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[32mINFO\x1b[0m ready", "\x1b[?25lLoading\x1b[?25h", "\x1b]0;vllm\x07INFO", "a\x1bb", "\x1b", "\x1b[", "\x1b]no bel", "\x1b\x1b[1m", "\x1b[1;36m(EngineCore_DP0 pid=1)\x1b[0;0m ERROR"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Strip(s), seqRe.ReplaceAllString(s, ""); got != want {
			t.Fatalf("Strip(%q) = %q, the expression gives %q", s, got, want)
		}
	})
}

func BenchmarkStripColoured(b *testing.B) {
	l := "\x1b[1;36m(EngineCore_DP0 pid=3342)\x1b[0;0m ERROR 05-16 06:52:56 [core.py:708] EngineCore failed to start."
	for b.Loop() {
		Strip(l)
	}
}
