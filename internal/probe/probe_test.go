package probe

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"vigil/internal/facts"
	"vigil/internal/verdict"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// board acts out a startup on a fresh board.
func board(steps ...func(b *facts.Board)) facts.Snapshot {
	b := facts.NewBoard(t0)
	b.SetServer("vllm")
	for _, s := range steps {
		s(b)
	}
	return b.Snapshot()
}

var (
	loading = func(b *facts.Board) {
		b.Phase(verdict.Weights, at(2))
		b.Progress("shards 3/9", at(5))
	}
	becameReady = func(b *facts.Board) {
		b.Phase(verdict.Serving, at(10))
		b.Health("ok", true, at(11))
		b.Ready(at(11))
	}
	oom = func(b *facts.Board) {
		b.Phase(verdict.KVCache, at(6))
		b.Failed(verdict.Failed, verdict.GPUOOM, "no memory for the KV cache", at(8))
	}
	unhealthy = func(b *facts.Board) { b.Health("status", false, at(20)) }
	hung      = func(b *facts.Board) { b.Hung(true, verdict.Health, "no health answer for 60s") }
	died      = func(b *facts.Board) { b.Died(verdict.CUDA, "illegal memory access", at(40)) }
	stopping  = func(b *facts.Board) { b.Stopping() }
)

func TestProbes(t *testing.T) {
	now := at(30)
	tests := []struct {
		name                  string
		s                     facts.Snapshot
		startup, ready, live  int
		startupStatus, status string
	}{
		{"launched", board(), 503, 503, 200, "starting", "starting"},
		{"loading", board(loading), 503, 503, 200, "starting", "starting"},
		{"ready and healthy", board(loading, becameReady), 200, 200, 200, "ready", "ready"},
		{"ready but unhealthy", board(loading, becameReady, unhealthy), 200, 503, 200, "ready", "unhealthy"},
		{"hung after ready", board(loading, becameReady, hung), 200, 503, 500, "ready", "hung"},
		{"died after ready", board(loading, becameReady, died), 200, 503, 500, "ready", "died"},
		{"startup failed", board(loading, oom), 500, 503, 500, "failed", "failed"},
		{"stopping", board(loading, becameReady, stopping), 200, 503, 200, "ready", "stopping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, a := Startup(tt.s, now)
			if code != tt.startup || a.Status != tt.startupStatus {
				t.Errorf("startup: %d %q, want %d %q", code, a.Status, tt.startup, tt.startupStatus)
			}
			code, a = Ready(tt.s, now)
			if code != tt.ready || a.Status != tt.status {
				t.Errorf("ready: %d %q, want %d %q", code, a.Status, tt.ready, tt.status)
			}
			if code, _ := Live(tt.s, now); code != tt.live {
				t.Errorf("live: %d, want %d", code, tt.live)
			}
		})
	}
}

func TestStartupAnswerSaysWhereAndWhy(t *testing.T) {
	_, a := Startup(board(loading), at(9))
	if a.Phase != "weights" || a.Progress != "shards 3/9" || *a.StartupSeconds != 9 || *a.SinceProgress != 4 {
		t.Errorf("starting: %+v", a)
	}
	_, a = Startup(board(loading, oom), at(30))
	if a.Verdict != "failed" || a.Cause != "gpu_oom" || a.Summary == "" || *a.StartupSeconds != 8 || a.SinceProgress != nil {
		t.Errorf("failed: %+v", a)
	}
}

func TestMetrics(t *testing.T) {
	s := board(loading, becameReady, unhealthy, func(b *facts.Board) { b.Restarted() })
	reg := NewRegistry(facts.SourceFunc(func() facts.Snapshot { return s }), func() time.Time { return at(60) })
	want := `
# HELP vigil_phase 1 for the phase the server is in, 0 for the others.
# TYPE vigil_phase gauge
vigil_phase{phase="compile"} 0
vigil_phase{phase="cuda_graph"} 0
vigil_phase{phase="distributed"} 0
vigil_phase{phase="init"} 0
vigil_phase{phase="kv_cache"} 0
vigil_phase{phase="launch"} 0
vigil_phase{phase="ready"} 1
vigil_phase{phase="serving"} 0
vigil_phase{phase="warmup"} 0
vigil_phase{phase="weights"} 0
# HELP vigil_phase_seconds Seconds the server spent in each phase it entered (the current one so far).
# TYPE vigil_phase_seconds gauge
vigil_phase_seconds{phase="launch"} 2
vigil_phase_seconds{phase="ready"} 0
vigil_phase_seconds{phase="serving"} 1
vigil_phase_seconds{phase="weights"} 8
# HELP vigil_startup_seconds Seconds the startup took: to ready, to its failure, or so far.
# TYPE vigil_startup_seconds gauge
vigil_startup_seconds 11
# HELP vigil_startup_verdict 1 once the startup has a verdict, labelled with it and its cause (empty unless failed).
# TYPE vigil_startup_verdict gauge
vigil_startup_verdict{cause="",verdict="ready"} 1
# HELP vigil_server_ready 1 once the startup's verdict is ready.
# TYPE vigil_server_ready gauge
vigil_server_ready 1
# HELP vigil_server_healthy 1 while the server's latest health answer was a 200.
# TYPE vigil_server_healthy gauge
vigil_server_healthy 0
# HELP vigil_health_state 1 for the state of the server's latest health answer.
# TYPE vigil_health_state gauge
vigil_health_state{state="status"} 1
# HELP vigil_seconds_since_progress Seconds since the latest sign of progress (log, CPU, disk, GPU memory).
# TYPE vigil_seconds_since_progress gauge
vigil_seconds_since_progress 50
# HELP vigil_server_restarts_total Server restarts seen in its log during this supervision.
# TYPE vigil_server_restarts_total counter
vigil_server_restarts_total 1
# HELP vigil_server_info The supervised server's kind.
# TYPE vigil_server_info gauge
vigil_server_info{server="vllm"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	// A failed startup and a death name their cause.
	s = board(loading, oom)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP vigil_startup_verdict 1 once the startup has a verdict, labelled with it and its cause (empty unless failed).
# TYPE vigil_startup_verdict gauge
vigil_startup_verdict{cause="gpu_oom",verdict="failed"} 1
`), MetricVerdict); err != nil {
		t.Error(err)
	}
	s = board(loading, becameReady, died)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP vigil_server_ended 1 once the server died or hangs after ready, labelled with how and why.
# TYPE vigil_server_ended gauge
vigil_server_ended{cause="cuda",how="died"} 1
`), MetricEnded); err != nil {
		t.Error(err)
	}
	if n, err := testutil.GatherAndCount(reg); err != nil || n < 15 {
		t.Errorf("%d series (%v)", n, err)
	}
}

// serve starts the endpoints for src on a free loopback port and a unix
// socket, and stops them when the test ends.
func serve(t *testing.T, src facts.Source) Target {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(shortDir(t), SocketName)
	unix, err := ListenSocket(sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, Handler(src, time.Now), tcp, unix) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return Target{Addr: tcp.Addr().String(), Socket: sock}
}

func shortDir(t *testing.T) string {
	// A unix socket path has room for 107 bytes; t.TempDir's can be longer.
	dir, err := os.MkdirTemp("", "vp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestAskOverTCPAndSocket(t *testing.T) {
	b := facts.NewBoard(time.Now())
	tgt := serve(t, b)
	for _, via := range []Target{{Addr: tgt.Addr}, {Socket: tgt.Socket}} {
		t.Run(via.String(), func(t *testing.T) {
			ok, body, err := Ask(t.Context(), via, "startup")
			if err != nil || ok {
				t.Fatalf("starting: ok %v err %v", ok, err)
			}
			var a Answer
			if err := json.Unmarshal([]byte(body), &a); err != nil || a.Status != "starting" || strings.Contains(body, "\n") {
				t.Fatalf("body %q: %v", body, err)
			}
			if ok, _, err := Ask(t.Context(), via, "live"); err != nil || !ok {
				t.Errorf("live while starting: ok %v err %v", ok, err)
			}
		})
	}
	b.Health("ok", true, time.Now())
	b.Ready(time.Now())
	for _, kind := range []string{"startup", "ready", "live"} {
		if ok, body, err := Ask(t.Context(), Target{Socket: tgt.Socket}, kind); err != nil || !ok {
			t.Errorf("%s once ready: ok %v body %s err %v", kind, ok, body, err)
		}
	}
	if _, _, err := Ask(t.Context(), tgt, "nonsense"); err == nil {
		t.Error("an unknown probe was asked")
	}
	resp, err := http.Get("http://" + tgt.Addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("/metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestAskNobody(t *testing.T) {
	ok, _, err := Ask(t.Context(), Target{Socket: filepath.Join(shortDir(t), SocketName)}, "live")
	if ok || err == nil {
		t.Errorf("no supervisor: ok %v err %v", ok, err)
	}
}

func TestListenSocket(t *testing.T) {
	dir := shortDir(t)
	path := filepath.Join(dir, SocketName)

	// A socket left by a supervisor that is gone is taken over.
	stale, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	l, err := ListenSocket(path)
	if err != nil {
		t.Fatalf("stale socket: %v", err)
	}
	// A live one is not.
	if _, err := ListenSocket(path); !errors.Is(err, ErrSocketInUse) {
		t.Errorf("live socket: %v, want ErrSocketInUse", err)
	}
	l.Close()

	// Something that is not a socket is never removed.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ListenSocket(file); err == nil {
		t.Error("listened over a regular file")
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the regular file is gone: %v", err)
	}
}
