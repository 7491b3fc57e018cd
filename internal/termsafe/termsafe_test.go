package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "INFO ready on :8000", "INFO ready on :8000"},
		{"tab kept", "a\tb", "a\tb"},
		{"NUL", "a\x00b", "ab"},
		{"CR and LF", "progress\r50%\n", "progress50%"},
		{"bell and backspace", "x\x07\x08y", "xy"},
		{"colour", "\x1b[31mred\x1b[0m", "red"},
		{"cursor moves", "\x1b[2J\x1b[1;1Hclear", "clear"},
		{"title set by OSC", "\x1b]0;owned\x07text", "text"},
		{"OSC 8 link with ST", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"charset", "\x1b(Bok", "ok"},
		{"lone ESC at the end", "end\x1b", "end"},
		{"DEL", "a\x7fb", "ab"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"C1 control", "a\u0085b", "ab"},
		{"bidi override", "abc\u202edcba", "abcdcba"},
		{"unicode kept", "模型 ✓ é", "模型 ✓ é"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a\x00b", "\x1b[31mx", "\x1b]0;t\x07", "\xff\xfe", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q: %q", s, out)
		}
		for _, r := range out {
			if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || bidi(r) {
				t.Fatalf("control %U left in %q (from %q)", r, out, s)
			}
		}
		if strings.Contains(out, "\x1b") {
			t.Fatalf("ESC left in %q", out)
		}
		if again := String(out); again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
	})
}

func BenchmarkPlain(b *testing.B) {
	line := "[2026-12-01 21:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00"
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		_ = String(line)
	}
}
