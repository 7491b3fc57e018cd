package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests here drive vigil supervise as systemd would run it: as the
// main process of a Type=notify unit with a start timeout shorter than the
// load, reading its notifications from a real unixgram socket.

// fakeSystemd is the part of systemd that reads a Type=notify unit's
// notifications and enforces TimeoutStartSec: before READY=1, a start that
// outlives its deadline is killed; EXTEND_TIMEOUT_USEC=N moves the
// deadline to N from now.
type fakeSystemd struct {
	path string
	conn *net.UnixConn

	mu       sync.Mutex
	msgs     []string
	deadline time.Time
	ready    bool
	readyAt  time.Time
	lastExt  time.Time
	killed   bool
}

func newFakeSystemd(t *testing.T, timeoutStart time.Duration) *fakeSystemd {
	t.Helper()
	// A socket path must fit in 108 bytes; the test's temp dir may not.
	dir, err := os.MkdirTemp("", "sd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	sd := &fakeSystemd{path: path, conn: conn, deadline: time.Now().Add(timeoutStart)}
	go sd.read()
	return sd
}

func (sd *fakeSystemd) read() {
	buf := make([]byte, 4096)
	for {
		n, err := sd.conn.Read(buf)
		if err != nil {
			return
		}
		now := time.Now()
		sd.mu.Lock()
		for _, kv := range strings.Split(string(buf[:n]), "\n") {
			sd.msgs = append(sd.msgs, kv)
			switch {
			case kv == "READY=1":
				sd.ready, sd.readyAt = true, now
			case strings.HasPrefix(kv, "EXTEND_TIMEOUT_USEC="):
				us, _ := strconv.ParseInt(strings.TrimPrefix(kv, "EXTEND_TIMEOUT_USEC="), 10, 64)
				if d := now.Add(time.Duration(us) * time.Microsecond); d.After(sd.deadline) {
					sd.deadline = d
				}
				sd.lastExt = now
			}
		}
		sd.mu.Unlock()
	}
}

// enforce kills v (SIGKILL, as systemd does after its stop) once the start
// deadline passes before READY=1; it returns when v ends.
func (sd *fakeSystemd) enforce(v *vigilProc) {
	for !v.finished() {
		sd.mu.Lock()
		late := !sd.ready && time.Now().After(sd.deadline)
		sd.mu.Unlock()
		if late {
			sd.mu.Lock()
			sd.killed = true
			sd.mu.Unlock()
			_ = v.cmd.Process.Kill()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (sd *fakeSystemd) sent(prefix string) []string {
	sd.mu.Lock()
	defer sd.mu.Unlock()
	var out []string
	for _, m := range sd.msgs {
		if strings.HasPrefix(m, prefix) {
			out = append(out, m)
		}
	}
	return out
}

// superviseArgs launches the scenario under vigil supervise.
func superviseArgs(t *testing.T, scenario string, port, listen int, extra ...string) []string {
	t.Helper()
	sc, err := filepath.Abs(filepath.Join("testdata", "supervise", scenario))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"supervise", "--json", "--server", "sglang", "--url", fmt.Sprintf("http://127.0.0.1:%d", port),
		"--listen", fmt.Sprintf("127.0.0.1:%d", listen)}
	args = append(args, extra...)
	return append(args, "--", vigilBin, "play", sc, "--port", strconv.Itoa(port), "--",
		"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct", "--port", strconv.Itoa(port))
}

func lifeEvent(stdout []byte) map[string]any {
	for _, l := range strings.Split(string(stdout), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["event"] == "life" {
			return m
		}
	}
	return nil
}

func TestSuperviseUnderSystemd(t *testing.T) {
	t.Parallel()
	needVigil(t)
	t.Run("a slow but progressing load survives a short start timeout, then a crash after ready", func(t *testing.T) {
		t.Parallel()
		takeSlot(t)
		sb := newSandbox(t)
		// The load takes about 14s; the unit gives it 3s.
		sd := newFakeSystemd(t, 3*time.Second)
		v := startVigil(t, sb.with("NOTIFY_SOCKET="+sd.path),
			superviseArgs(t, "slow-load-then-cuda-crash.json", freePort(t), freePort(t), "--stall-after", "4s", "--grace", "2s")...)
		sd.enforce(v)
		if !v.wait(t, 60*time.Second) {
			t.Fatalf("vigil supervise did not end\n%s", v.excerpt())
		}
		if sd.killed {
			t.Fatalf("the start timeout killed the supervisor: EXTEND_TIMEOUT_USEC did not keep it alive\nsent: %q\n%s", sd.sent(""), v.excerpt())
		}
		if len(sd.sent("READY=1")) != 1 || len(sd.sent("EXTEND_TIMEOUT_USEC=")) == 0 {
			t.Errorf("notifications: READY %q, extensions %q", sd.sent("READY=1"), sd.sent("EXTEND_TIMEOUT_USEC="))
		}
		if time.Since(v.started) < 3*time.Second || sd.readyAt.Sub(v.started) < 3*time.Second {
			t.Errorf("ready after %s: the load should outlast the 3s start timeout", sd.readyAt.Sub(v.started))
		}
		if v.code != 4 {
			t.Errorf("exit status %d, want 4 (died after ready)\n%s", v.code, v.excerpt())
		}
		life := lifeEvent(v.stdout.Bytes())
		if life == nil || life["how"] != "died" || life["cause"] != "cuda" {
			t.Fatalf("life event %v, want died with cause cuda\n%s", life, v.excerpt())
		}
		if ev := fmt.Sprint(life["evidence"]); !strings.Contains(ev, "illegal memory access") {
			t.Errorf("evidence %s lacks the CUDA error", ev)
		}
		// The history keeps how the life ended with the startup.
		hist := exec.Command(vigilBin, "history", "--json")
		hist.Env = sb.env
		b, err := hist.Output()
		var startups []struct {
			Results struct {
				Life struct{ How, Cause string }
			}
		}
		if err != nil || json.Unmarshal(b, &startups) != nil || len(startups) != 1 || startups[0].Results.Life.Cause != "cuda" {
			t.Errorf("history: %v %s", err, clip(string(b), 2000))
		}
		if len(sd.sent("STOPPING=1")) == 0 {
			t.Errorf("no STOPPING=1 on the way down: %q", sd.sent(""))
		}
	})
	t.Run("a stall is not extended", func(t *testing.T) {
		t.Parallel()
		takeSlot(t)
		sb := newSandbox(t)
		sd := newFakeSystemd(t, 3*time.Second)
		v := startVigil(t, sb.with("NOTIFY_SOCKET="+sd.path),
			superviseArgs(t, "stall-in-weights.json", freePort(t), freePort(t), "--stall-after", "3s", "--grace", "1s")...)
		stalledAt := v.started.Add(3 * time.Second) // the scenario's last progress
		sd.enforce(v)
		if !v.wait(t, 60*time.Second) {
			t.Fatalf("vigil supervise did not end\n%s", v.excerpt())
		}
		if len(sd.sent("READY=1")) != 0 {
			t.Errorf("a stalled start sent READY=1")
		}
		sd.mu.Lock()
		lastExt := sd.lastExt
		sd.mu.Unlock()
		// Extensions follow progress; once it stops, none may come more than
		// a sampling period after it.
		if lastExt.After(stalledAt.Add(2 * time.Second)) {
			t.Errorf("an extension came %s after the progress stopped", lastExt.Sub(stalledAt))
		}
		// Either vigil named the stall (3) or systemd's timeout killed it:
		// the stall never survives.
		if !sd.killed && v.code != 3 {
			t.Errorf("exit status %d, want 3 (stalled)\n%s", v.code, v.excerpt())
		}
	})
}

// TestSupervisedStartInPrometheus scrapes a real supervised start with
// Debian's prometheus and reads the phase and the startup seconds back.
func TestSupervisedStartInPrometheus(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	needVigil(t)
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary on PATH: install Debian's prometheus package (apt-get install -y prometheus) to run this test")
	}
	takeSlot(t)
	sb := newSandbox(t)
	listen := freePort(t)
	// Prometheus is up and scraping (the target still down) before the
	// start begins, so a loaded machine's slow Prometheus start cannot
	// miss the phases.
	prom := startProm(t, bin, fmt.Sprintf("127.0.0.1:%d", listen))
	if !waitUntil(90*time.Second, prom.ready) {
		t.Fatal("prometheus did not become ready within 90s")
	}
	v := startVigil(t, sb.env, superviseArgs(t, "slow-load-serving.json", freePort(t), listen, "--stall-after", "4s", "--grace", "2s")...)
	waitQuery := func(what, q string, ok func(float64) bool) float64 {
		t.Helper()
		var last float64
		if waitUntil(90*time.Second, func() bool {
			v, found := prom.query(q)
			last = v
			return found && ok(v)
		}) {
			return last
		}
		t.Fatalf("%s: %s never held (last %v)\n%s", what, q, last, v.excerpt())
		return 0
	}
	// Any scrape while the weights loaded counts, however late the query.
	waitQuery("loading", `max_over_time(vigil_phase{phase="weights"}[10m])`, func(f float64) bool { return f == 1 })
	waitQuery("ready", `vigil_server_ready`, func(f float64) bool { return f == 1 })
	secs := waitQuery("startup seconds", `vigil_startup_seconds and on() vigil_server_ready == 1`, func(f float64) bool { return f > 0 })
	if secs < 8 || secs > 40 {
		t.Errorf("startup seconds %v, want the scripted load's (about 14s)", secs)
	}
	waitQuery("weights seconds", `vigil_phase_seconds{phase="weights"}`, func(f float64) bool { return f >= 4 })
	// A stop asked for ends with 0: the server ends by the signal relayed.
	_ = v.cmd.Process.Signal(syscall.SIGTERM)
	if !v.wait(t, 30*time.Second) {
		t.Fatalf("vigil supervise did not end after SIGTERM\n%s", v.excerpt())
	}
	if v.code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0\n%s", v.code, v.excerpt())
	}
}

type prom struct{ url string }

// ready reports whether Prometheus says it is ready to serve queries.
func (p prom) ready() bool {
	resp, err := http.Get(p.url + "/-/ready")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (p prom) query(q string) (float64, bool) {
	resp, err := http.Get(p.url + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   struct{ Result []struct{ Value [2]any } }
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" || len(r.Data.Result) != 1 {
		return 0, false
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func startProm(t *testing.T, bin, target string) prom {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	body := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: vigil\n    static_configs:\n      - targets: [%q]\n", target)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start prometheus: %v", err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return prom{url: "http://" + addr}
}

// TestWatchFollowSeesCrash: watch --follow keeps judging after ready and
// names a crash hours later as supervise does, without signalling.
func TestWatchFollowSeesCrash(t *testing.T) {
	t.Parallel()
	needVigil(t)
	takeSlot(t)
	sb := newSandbox(t)
	sc, err := filepath.Abs(filepath.Join("testdata", "supervise", "slow-load-then-cuda-crash.json"))
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	logPath := sb.path("server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	server := exec.Command(vigilBin, "play", sc, "--port", strconv.Itoa(port), "--", "python3", "-m", "sglang.launch_server", "--port", strconv.Itoa(port))
	server.Stdout, server.Stderr = logf, logf
	server.Env = sb.env
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Process.Kill(); _ = server.Wait() })
	v := startVigil(t, sb.env, "watch", "--follow", "--json", "--server", "sglang", "--url", fmt.Sprintf("http://127.0.0.1:%d", port),
		"--pid", strconv.Itoa(server.Process.Pid), "--log", logPath)
	if !v.wait(t, 60*time.Second) {
		t.Fatalf("watch --follow did not end\n%s", v.excerpt())
	}
	if v.code != 4 {
		t.Errorf("exit status %d, want 4\n%s", v.code, v.excerpt())
	}
	if life := lifeEvent(v.stdout.Bytes()); life == nil || life["cause"] != "cuda" {
		t.Errorf("life event %v, want died of cuda\n%s", life, v.excerpt())
	}
}
