package colour

import "testing"

func TestEnabled(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		tty  bool
		want bool
	}{
		{"terminal", nil, true, true},
		{"pipe", nil, false, false},
		{"NO_COLOR on a terminal", map[string]string{"NO_COLOR": "1"}, true, false},
		{"empty NO_COLOR is unset", map[string]string{"NO_COLOR": ""}, true, true},
		{"CLICOLOR_FORCE through a pipe", map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{"CLICOLOR_FORCE=0 forces nothing", map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{"NO_COLOR beats CLICOLOR_FORCE", map[string]string{"NO_COLOR": "1", "CLICOLOR_FORCE": "1"}, true, false},
		{"dumb terminal", map[string]string{"TERM": "dumb"}, true, false},
		{"CLICOLOR=0", map[string]string{"CLICOLOR": "0"}, true, false},
		{"forced on a dumb terminal", map[string]string{"TERM": "dumb", "CLICOLOR_FORCE": "1"}, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			if got := Enabled(getenv, tc.tty); got != tc.want {
				t.Fatalf("Enabled = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPalette(t *testing.T) {
	off := New(false)
	if got := off.Verdict("FAILED"); got != "FAILED" {
		t.Fatalf("off palette changed text: %q", got)
	}
	var zero Palette
	if got := zero.Bad("x"); got != "x" {
		t.Fatalf("zero palette changed text: %q", got)
	}
	on := New(true)
	tests := []struct {
		name, got, want string
	}{
		{"ready", on.Verdict("READY"), "\x1b[1;32mREADY\x1b[0m"},
		{"failed", on.Verdict("failed"), "\x1b[1;31mfailed\x1b[0m"},
		{"stalled", on.Verdict("STALLED"), "\x1b[1;33mSTALLED\x1b[0m"},
		{"phase", on.Phase("weights"), "\x1b[36mweights\x1b[0m"},
		{"empty stays empty", on.Bad(""), ""},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
