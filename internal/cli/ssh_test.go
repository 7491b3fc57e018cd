package cli

import (
	"slices"
	"testing"
)

func TestSplitSSH(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		target string
		rest   []string
		ok     bool
		err    bool
	}{
		{"none", []string{"watch", "--log", "x"}, "", []string{"watch", "--log", "x"}, false, false},
		{"separate", []string{"watch", "--ssh", "gpu1", "--log", "x"}, "gpu1", []string{"watch", "--log", "x"}, true, false},
		{"equals", []string{"run", "--ssh=root@gpu1", "--", "sglang", "--ssh", "no"}, "root@gpu1", []string{"run", "--", "sglang", "--ssh", "no"}, true, false},
		{"after -- is the server's", []string{"run", "--", "x", "--ssh", "h"}, "", []string{"run", "--", "x", "--ssh", "h"}, false, false},
		{"other command", []string{"history", "--ssh", "h"}, "", []string{"history", "--ssh", "h"}, false, false},
		{"missing host", []string{"watch", "--ssh"}, "", nil, false, true},
		{"empty host", []string{"watch", "--ssh="}, "", nil, false, true},
		{"host is --", []string{"run", "--ssh", "--", "x"}, "", nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target, rest, ok, err := splitSSH(tt.args)
			if (err != nil) != tt.err || target != tt.target || ok != tt.ok || (!tt.err && !slices.Equal(rest, tt.rest)) {
				t.Errorf("splitSSH(%q) = %q %q %v %v; want %q %q %v err %v", tt.args, target, rest, ok, err, tt.target, tt.rest, tt.ok, tt.err)
			}
		})
	}
}

func TestWithHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"event":"phase","t":1}`, `{"host":"gpu1","event":"phase","t":1}` + "\n"},
		{`{}`, `{"host":"gpu1"}` + "\n"},
		{`not json`, "not json\n"},
	}
	for _, tt := range tests {
		if got := string(withHost([]byte(tt.in), "gpu1")); got != tt.want {
			t.Errorf("withHost(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
