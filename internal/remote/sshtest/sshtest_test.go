package sshtest

import (
	"strings"
	"testing"
)

func TestHostsAnswerOverSSH(t *testing.T) {
	n := New(t, HostOptions{Name: "node0", FakeTools: map[string]string{"uname": "echo Linux aarch64"}},
		HostOptions{Name: "node1", Env: map[string]string{"GREETING": "hello there"}},
		HostOptions{Name: "down", NoSSHD: true})
	tests := []struct {
		host, command, want string
	}{
		{"node0", "uname -sm", "Linux aarch64"},
		{"node0", `echo "$HOME"`, n.Host("node0").Home},
		{"node1", `echo "$GREETING"`, "hello there"},
		{"node1", "uname -s", "Linux"},
	}
	for _, tt := range tests {
		out, err := n.Command(tt.host, tt.command).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh %s %s: %v\n%s\nsshd log:\n%s", tt.host, tt.command, err, out, n.Host(tt.host).Log())
		}
		if got := strings.TrimSpace(string(out)); got != tt.want {
			t.Errorf("ssh %s %s = %q, want %q", tt.host, tt.command, got, tt.want)
		}
	}
	if got := n.Host("node1").Logins(); got != 2 {
		t.Errorf("node1 logins %d, want 2 (one per ssh command)", got)
	}
	out, err := n.Command("down", "true").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Connection refused") {
		t.Errorf("ssh to a host without sshd: %v, %s; want Connection refused", err, out)
	}
}
