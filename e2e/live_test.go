package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The live view in a real terminal (tmux): the header names the server's
// pid, the block redraws in place (also after the window is narrowed
// mid-run: no stale copies of the status line stay on screen), and the
// verdict is one clean line.
func TestLiveViewInTmux(t *testing.T) {
	t.Parallel()
	needVigil(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	takeSlot(t)
	sb := newSandbox(t)
	sock := sb.path("tmux.sock")
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	envArgs := []string{}
	for _, kv := range sb.env {
		if k, _, _ := strings.Cut(kv, "="); k == "HOME" || k == "XDG_STATE_HOME" || k == "HF_HOME" {
			envArgs = append(envArgs, kv)
		}
	}
	cmd := "env " + strings.Join(envArgs, " ") + " TERM=xterm-256color NO_COLOR=1 " + vigilBin + " demo --scenario sglang-ready; echo EXIT=$?; sleep 60"
	tmux("new-session", "-d", "-x", "140", "-y", "50", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })

	var screen string
	narrowed := false
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		screen = tmux("capture-pane", "-p", "-J", "-S", "-")
		if !narrowed && strings.Contains(screen, "phase weights") {
			tmux("resize-window", "-x", "70")
			narrowed = true
		}
		if strings.Contains(screen, "EXIT=") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(screen, "EXIT=0") {
		t.Fatalf("the demo did not end ready in 60s:\n%s", screen)
	}
	if !narrowed {
		t.Errorf("never saw the weights phase to narrow the window during:\n%s", screen)
	}
	for _, want := range []string{"launched pid ", "READY after ", "(sglang, "} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "in phase ready") {
		t.Errorf("the old verdict wording:\n%s", screen)
	}
	// The block is gone once the verdict is shown: no status line left
	// behind (they start with a spinner and say "total").
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, "  total ") {
			t.Errorf("a stale status line stayed on screen: %q\n%s", line, screen)
		}
	}
}
