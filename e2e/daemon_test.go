package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// daemonizeScript is a server that daemonizes the classic way: its first
// child calls setsid and starts the daemon in the background, then the
// child and the launched process both exit 0. The daemon writes its pid,
// the startup's lines (inherited stdout: vigil's log) and then, by $MODE:
// serves on (ready), prints a fatal traceback and hangs with a worker of
// its own (fail), or exits 1 (exit).
const daemonizeScript = `( setsid sh "$DAEMON_SCRIPT" & )
exit 0
`

const daemonScript = `echo $$ > "$DAEMON_PIDFILE"
cat "$CHUNKS_DIR/load"
sleep 0.3
case "$MODE" in
ready)
	cat "$CHUNKS_DIR/up"
	exec sleep 600 ;;
fail)
	sleep 600 &
	echo $! > "$WORKER_PIDFILE"
	cat "$CHUNKS_DIR/fail"
	wait ;;
exit)
	exit 1 ;;
esac
`

// TestDaemonizingServer (preflight off: the test's own health endpoint
// holds the port): a server whose launched process exits 0 after
// starting a daemon (setsid) is followed to the daemon, said once; the
// daemon's startup is judged as the server's, and a failed one is stopped,
// its worker with it.
func TestDaemonizingServer(t *testing.T) {
	needVigil(t)
	t.Parallel()
	tests := []struct {
		mode    string
		health  int // the --url endpoint's answer
		verdict string
		cause   string
		// alive is whether the daemon (and worker) run after vigil exits.
		alive bool
		// evidence is a substring of the verdict's evidence.
		evidence string
	}{
		{mode: "ready", health: 200, verdict: "ready", alive: true},
		{mode: "fail", health: 503, verdict: "failed", cause: "gpu_oom", evidence: "Not enough memory"},
		{mode: "exit", health: 503, verdict: "failed", cause: "crash", evidence: "status 1"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			takeSlot(t)
			h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tt.health) }))
			defer h.Close()
			sb := newSandbox(t)
			chunks := sb.path("chunks")
			if err := os.Mkdir(chunks, 0o755); err != nil {
				t.Fatal(err)
			}
			faultWrite(t, filepath.Join(chunks, "load"), faultSGLangLoad, 0o644)
			faultWrite(t, filepath.Join(chunks, "up"), faultSGLangUp, 0o644)
			faultWrite(t, filepath.Join(chunks, "fail"), faultSGLangKVOOM, 0o644)
			faultWrite(t, sb.path("server.sh"), daemonizeScript, 0o644)
			faultWrite(t, sb.path("daemon.sh"), daemonScript, 0o644)
			daemonPid, workerPid := sb.path("daemon.pid"), sb.path("worker.pid")
			killPidfileGroupAtEnd(t, daemonPid, workerPid)
			env := sb.with("DAEMON_SCRIPT="+sb.path("daemon.sh"), "DAEMON_PIDFILE="+daemonPid,
				"WORKER_PIDFILE="+workerPid, "CHUNKS_DIR="+chunks, "MODE="+tt.mode)
			v := startVigil(t, env, "run", "--json", "--server", "sglang", "--url", h.URL,
				"--log-file", sb.path("server.log"), "--stall-after", "20s", "--timeout", "60s", "--grace", "2s", "--preflight", "off",
				"--", "sh", sb.path("server.sh"))
			if !v.wait(t, 50*time.Second) {
				return
			}
			got := expectVerdict(t, v, tt.verdict, tt.cause)
			if tt.evidence != "" && !strings.Contains(strings.Join(evidence(got), "\n"), tt.evidence) {
				t.Errorf("evidence %q lacks %q", evidence(got), tt.evidence)
			}
			daemon := readPid(daemonPid)
			if daemon == 0 {
				t.Fatalf("the daemon never wrote its pid\n%s", v.excerpt())
			}
			events, _, _ := parseEvents(v.stdout.Bytes())
			want := fmt.Sprintf("the server daemonized: following PID %d", daemon)
			said := 0
			for _, e := range events {
				if e.str("event") == "note" && strings.Contains(e.str("message"), "daemonized") {
					said++
					if e.str("message") != want {
						t.Errorf("note %q, want %q", e.str("message"), want)
					}
				}
			}
			if said != 1 {
				t.Errorf("the hand-over to the daemon was said %d times, want once\n%s", said, v.stdout.String())
			}
			pids := []int{daemon}
			if w := readPid(workerPid); w > 0 {
				pids = append(pids, w)
			}
			if tt.alive {
				if !alive(daemon) {
					t.Errorf("the ready daemon (pid %d) did not survive vigil's exit", daemon)
				}
				return
			}
			if left := deadWithin(5*time.Second, pids...); len(left) > 0 {
				t.Errorf("processes %v of the failed daemon survived vigil\n%s", left, v.excerpt())
			}
		})
	}
}
