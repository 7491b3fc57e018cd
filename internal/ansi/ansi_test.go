package ansi

import "testing"

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
