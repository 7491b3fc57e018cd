package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vigil/internal/remote/sshtest"
	"vigil/internal/scenario"
)

// vigilSSH runs the real vigil binary here with args, its ssh client
// the test network's (VIGIL_SSH), and returns its exit status and streams.
func vigilSSH(t *testing.T, n *sshtest.Net, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.CommandContext(remoteCtx(t), vigilBin, args...)
	cmd.Env = append(os.Environ(), "VIGIL_SSH="+n.SSH, "XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("vigil: %v", err)
	}
	return code, out.String(), errb.String()
}

// runArgs is `vigil run --ssh HOST` of a scenario file on the host.
func runArgs(t *testing.T, host, file string, extra ...string) []string {
	t.Helper()
	path := filepath.Join(repoRoot(t), file)
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	pidfile := filepath.Join(t.TempDir(), "server.pid")
	killPidfileGroupAtEnd(t, pidfile)
	args := append([]string{"run", "--ssh", host, "--url", "http://127.0.0.1:" + strconv.Itoa(remotePort)}, sc.VigilArgs...)
	args = append(args, extra...)
	args = append(args, "--", vigilBin, "play", path, "--port", strconv.Itoa(remotePort), "--pidfile", pidfile, "--")
	return append(args, playerArgv(sc, remotePort)...)
}

// `vigil run --ssh HOST` shows the remote startup here, for people and
// as NDJSON with the host in every event, and exits as the remote vigil.
func TestSSHFlagRun(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"}, sshtest.HostOptions{Name: "down", NoSSHD: true})
	t.Run("text", func(t *testing.T) {
		code, out, errs := vigilSSH(t, n, runArgs(t, "node0", "e2e/testdata/scenarios/sglang-quick-ready.json")...)
		// Shown as a local startup is: the verdict block on stdout, its
		// log named with the host, the phases on stderr.
		if code != 0 || !strings.Contains(out, "READY after") || !strings.Contains(out, "log: node0:") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want 0, READY and the log on node0", code, out, errs)
		}
		if !strings.Contains(errs, "phase weights") || !strings.Contains(errs, "node0:") {
			t.Errorf("stderr shows no remote header and phases: %q", errs)
		}
	})
	t.Run("json", func(t *testing.T) {
		code, out, errs := vigilSSH(t, n, runArgs(t, "node0", "testdata/scenarios/shared/sglang-kv-pool-not-enough-memory-eagle.json", "--json")...)
		if code != 1 {
			t.Fatalf("exit %d, want 1 (failed)\nstderr %q", code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil || m["host"] != "node0" {
				t.Fatalf("line %q: not JSON with host node0 (%v)", l, err)
			}
		}
		var last map[string]any
		_ = json.Unmarshal([]byte(lines[len(lines)-1]), &last)
		if last["event"] != "verdict" || last["verdict"] != "failed" || last["cause"] != "gpu_oom" {
			t.Errorf("last event %v, want the failed/gpu_oom verdict", last)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		code, out, errs := vigilSSH(t, n, "watch", "--ssh", "down", "--log", "/nonexistent")
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "down") {
			t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line naming the host", code, out, errs)
		}
	})
	t.Run("no host", func(t *testing.T) {
		code, _, errs := vigilSSH(t, n, "watch", "--ssh")
		if code != 2 || !strings.Contains(errs, "--ssh needs a host") {
			t.Errorf("exit %d, stderr %q; want 2 and --ssh needs a host", code, errs)
		}
	})
}
