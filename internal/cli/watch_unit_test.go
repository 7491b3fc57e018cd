package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"vigil/internal/procfind"
)

// The journal of a unit holds an earlier activation that failed and the
// current one that comes up; only the current one counts. systemd is not
// needed: fake systemctl and journalctl stand on PATH.
func TestWatchUnitJudgesTheCurrentActivation(t *testing.T) {
	dir := t.TempDir()
	entry := func(inv, msg string) string {
		b, _ := json.Marshal(map[string]any{"MESSAGE": msg, "_PID": "4242", "_SYSTEMD_INVOCATION_ID": inv, "__REALTIME_TIMESTAMP": "1763000000001000", "PRIORITY": "6"})
		return string(b)
	}
	var journal []string
	journal = append(journal,
		entry("aaaa", "[2026-11-12 09:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):"),
		entry("aaaa", "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."),
		entry("bbbb", "[2026-11-12 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1)"),
		entry("bbbb", "[2026-11-12 10:00:01] Load weight begin. avail mem=70 GB"),
		entry("bbbb", "[2026-11-12 10:00:05] The server is fired up and ready to roll!"),
	)
	if err := os.WriteFile(filepath.Join(dir, "journal.json"), []byte(strings.Join(journal, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeScript(t, dir, "journalctl", "#!/bin/sh\ncat "+filepath.Join(dir, "journal.json")+"\nexec sleep 30\n")
	writeScript(t, dir, "systemctl", `#!/bin/sh
cat <<'EOS'
Id=sglang.service
LoadState=loaded
ActiveState=active
SubState=running
MainPID=0
InvocationID=bbbb
ActiveEnterTimestamp=Wed 2025-11-12 10:00:00 UTC
InactiveExitTimestamp=Wed 2025-11-12 10:00:00 UTC
ExecMainStartTimestamp=Wed 2025-11-12 10:00:00 UTC
EOS
`)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) }))
	defer srv.Close()

	var out, errOut bytes.Buffer
	env := &Env{IO: &IOStreams{Out: &out, ErrOut: &errOut}, Getenv: func(k string) string {
		if k == "XDG_STATE_HOME" || k == "HOME" {
			return dir
		}
		return os.Getenv(k)
	}}
	code := Main(context.Background(), []string{"watch", "--json", "--no-history", "--unit", "sglang.service", "--url", srv.URL, "--stall-after", "10s", "--timeout", "20s"}, env)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (ready)\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var v map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &v); err != nil {
		t.Fatal(err)
	}
	if v["verdict"] != "ready" || v["server"] != "sglang" {
		t.Errorf("verdict event %s, want ready from sglang", lines[len(lines)-1])
	}
	if strings.Contains(out.String(), "Not enough memory") {
		t.Error("a line of the earlier activation reached the judge")
	}
}

func writeScript(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestWatchByPIDAlone: a server started as "server > server.log 2>&1" is
// watched by its pid alone: its log is the file its output goes to. A
// server whose output goes to a pipe is a usage error that says so.
func TestWatchByPIDAlone(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "server.log")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) }))
	defer srv.Close()
	start := func(script string, piped bool) int {
		cmd := exec.Command("sh", "-c", script, "sh", log)
		if piped {
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
		return cmd.Process.Pid
	}
	watch := func(pid int) (int, string, string) {
		env, out, errOut, _ := testEnv(t)
		code := Main(context.Background(), []string{"watch", "--json", "--no-history", "--server", "sglang", "--pid", strconv.Itoa(pid),
			"--url", srv.URL, "--stall-after", "20s", "--timeout", "40s"}, env)
		return code, out.String(), errOut.String()
	}

	// The lines come once vigil follows the file: sleep first, as a
	// server's start takes longer than vigil's.
	pid := start(`exec >"$1" 2>&1; sleep 1
now() { date '+%Y-%m-%d %H:%M:%S'; }
echo "[$(now)] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1)"
echo "[$(now)] The server is fired up and ready to roll!"
exec sleep 30`, false)
	// Until the shell has redirected its output (watch is meant for a
	// server that runs already).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got, err := (procfind.FS{}).OutputFile(pid); err == nil && got == log {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never redirected its output")
		}
	}
	code, out, errOut := watch(pid)
	if code != 0 || !strings.Contains(out, "writes its output to "+log) {
		t.Errorf("exit %d, want 0 (ready) and a note naming %s\nstdout:\n%s\nstderr:\n%s", code, log, out, errOut)
	}

	pid = start(`exec sleep 30`, true)
	code, _, errOut = watch(pid)
	if want := "its output goes to pipe:["; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("a piped server: exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
}
