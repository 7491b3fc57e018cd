package probe

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
	"syscall"
	"testing"
	"time"

	"vigil/internal/facts"
	"vigil/internal/verdict"
)

// TestRealPrometheusScrapes runs Debian's prometheus on loopback against
// the endpoints and reads the phase and the startup seconds back through
// its query API, as a dashboard would.
func TestRealPrometheusScrapes(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary on PATH: install Debian's prometheus package (apt-get install -y prometheus) to run this test")
	}
	if testing.Short() {
		t.Skip("starts a real prometheus; skipped with -short")
	}

	// A server that started 90s ago and is loading its weights.
	start := time.Now().Add(-90 * time.Second)
	b := facts.NewBoard(start)
	b.SetServer("sglang")
	b.Phase(verdict.Init, start.Add(5*time.Second))
	b.Phase(verdict.Weights, start.Add(10*time.Second))
	b.Progress("shards 4/9", time.Now())
	target := serve(t, b)

	prom := startPrometheus(t, bin, target.Addr)
	query := func(q string) (float64, bool) {
		return prom.query(t, q)
	}
	waitFor := func(what, q string, want float64) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		var last string
		for time.Now().Before(deadline) {
			if v, ok := query(q); ok && v == want {
				return
			} else if ok {
				last = strconv.FormatFloat(v, 'g', -1, 64)
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Fatalf("%s: %s never became %v (last %s); prometheus log:\n%s", what, q, want, last, prom.log())
	}

	waitFor("first scrape", `up{job="vigil"}`, 1)
	waitFor("the phase while loading", `vigil_phase{phase="weights"}`, 1)
	if v, ok := query(`vigil_startup_seconds`); !ok || v < 90 {
		t.Errorf("startup seconds while loading: %v (found %v), want at least 90", v, ok)
	}

	// Ready 75s after launch: the startup seconds stop there.
	b.Phase(verdict.Serving, start.Add(70*time.Second))
	b.Health("ok", true, start.Add(75*time.Second))
	b.Ready(start.Add(75 * time.Second))
	waitFor("the phase once ready", `vigil_phase{phase="ready"}`, 1)
	waitFor("the startup seconds", `vigil_startup_seconds`, 75)
	waitFor("the weights phase's seconds", `vigil_phase_seconds{phase="weights"}`, 60)
	waitFor("the verdict", `vigil_startup_verdict{verdict="ready"}`, 1)
	// The queries docs/supervise.md suggests for a dashboard.
	waitFor("the documented startup query", `vigil_startup_seconds and on() vigil_server_ready == 1`, 75)
}

type promServer struct {
	url     string
	logPath string
}

func (p *promServer) log() string {
	b, _ := os.ReadFile(p.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// query runs an instant query and returns its single sample's value.
func (p *promServer) query(t *testing.T, q string) (float64, bool) {
	t.Helper()
	resp, err := http.Get(p.url + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" || len(r.Data.Result) != 1 {
		return 0, false
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// startPrometheus runs prometheus on a free loopback port, scraping target
// every second, with its storage in a temporary directory; it is stopped
// when the test ends.
func startPrometheus(t *testing.T, bin, target string) *promServer {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: vigil
    static_configs:
      - targets: [%q]
`, target), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	logPath := filepath.Join(dir, "prometheus.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin,
		"--config.file="+cfg,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--log.level=warn",
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start prometheus: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	return &promServer{url: "http://" + addr, logPath: logPath}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
