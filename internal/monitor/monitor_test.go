package monitor

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"vigil/internal/judge"
	"vigil/internal/observe"
	"vigil/internal/procfind"
	"vigil/internal/procstat"
	"vigil/internal/render"
	v "vigil/internal/verdict"
)

// fakeHealth answers every probe with the status code it holds.
type fakeHealth struct {
	mu   sync.Mutex
	code int
	n    int
}

func (f *fakeHealth) set(code int) { f.mu.Lock(); f.code = code; f.mu.Unlock() }

func (f *fakeHealth) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.code == 0 {
		return nil, fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED)
	}
	return &http.Response{StatusCode: f.code, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

// stuckHealth never answers: a probe waits for its deadline, then takes
// another second to give up, so a prober that is not joined is still
// running when Run returns.
type stuckHealth struct{}

func (stuckHealth) RoundTrip(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	time.Sleep(time.Second)
	return nil, r.Context().Err()
}

// sink records what the session shows.
type sink struct {
	mu     sync.Mutex
	events []observe.Kind
	notes  []string
}

func (s *sink) Event(e observe.Event, _ render.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e.Kind())
}

func (s *sink) Note(_ time.Time, format string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, fmt.Sprintf(format, a...))
}

func (s *sink) Tick(render.Status) {}

// procTree writes a /proc fixture with one process in state.
func procTree(t testing.TB, pid int, state string, waitStatus int) string {
	t.Helper()
	root := t.TempDir()
	writeStat(t, root, pid, state, waitStatus)
	if err := os.WriteFile(filepath.Join(root, "uptime"), []byte("1000.00 2000.00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "meminfo"), []byte("MemTotal: 1000 kB\nMemAvailable: 500 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// writeStat writes /proc/PID/stat: 52 fields, state in field 3, the exit
// status in field 52.
func writeStat(t testing.TB, root string, pid int, state string, waitStatus int) {
	t.Helper()
	f := make([]string, 52)
	for i := range f {
		f[i] = "0"
	}
	f[0], f[1], f[2], f[3], f[4], f[5] = fmt.Sprint(pid), "(python3)", state, "1", fmt.Sprint(pid), fmt.Sprint(pid)
	f[19] = "1" // threads
	f[21] = "100"
	f[51] = fmt.Sprint(waitStatus)
	dir := filepath.Join(root, fmt.Sprint(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Written aside and renamed, as reads of the real /proc are whole.
	tmp := filepath.Join(dir, "stat.tmp")
	if err := os.WriteFile(tmp, []byte(strings.Join(f, " ")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "stat")); err != nil {
		t.Fatal(err)
	}
}

func writeLog(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// leftover lists the stacks of the goroutines running the monitor's code,
// other than a test's own: goleak's check, narrowed to this package.
func leftover() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var left []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "vigil/internal/monitor.") && !strings.Contains(g, "vigil/internal/monitor.Test") {
			left = append(left, g)
		}
	}
	return left
}

func deps(proc string, rt http.RoundTripper) Deps {
	return Deps{Proc: procstat.FS{Root: proc}, Procs: procfind.FS{Root: proc}, Transport: rt, PollOnly: true}
}

// A ready startup in watch mode, every source running: the verdict comes,
// and every goroutine the monitor started has ended when Run returns.
func TestRunJoinsEverySource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pid = 4100
		proc := procTree(t, pid, "S", 0)
		log := writeLog(t,
			"[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')",
			"[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB",
			"[2026-11-29 10:00:09] The server is fired up and ready to roll!")
		hc := &fakeHealth{code: 200}
		spec := Spec{
			Judge: judge.Config{Server: "sglang", StallAfter: time.Minute, Timeout: time.Hour},
			Start: time.Now(), PID: pid, Log: log, WaitForFile: true,
			URL: "http://127.0.0.1:30000", HFHome: t.TempDir(),
			Notes: []string{"first note"}, Later: func() []string { return []string{"later note"} },
		}
		s := &sink{}
		out, err := Run(context.Background(), spec, deps(proc, hc), s)
		if err != nil {
			t.Fatal(err)
		}
		// A joined goroutine signals its end (a deferred close, Done)
		// just before it returns: let such ones finish; any left then is
		// blocked for good.
		synctest.Wait()
		if left := leftover(); len(left) != 0 {
			t.Errorf("%d of the monitor's goroutines still run after Run:\n%s", len(left), strings.Join(left, "\n\n"))
		}
		if out.Result.Verdict != v.Ready {
			t.Fatalf("verdict %s (%s), want ready", out.Result.Verdict, out.Result.Summary)
		}
		if out.Status.Server != "sglang" {
			t.Errorf("status server %q", out.Status.Server)
		}
		if hc.n == 0 {
			t.Error("the health endpoint was never probed")
		}
	})
}

// A cancelled context ends Run with its error, sources joined, nothing
// decided.
func TestRunCancelledJoinsEverySource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pid = 4100
		proc := procTree(t, pid, "S", 0)
		log := writeLog(t, "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB")
		ctx, cancel := context.WithCancel(context.Background())
		spec := Spec{
			Judge: judge.Config{Server: "sglang", StallAfter: time.Hour, Timeout: 2 * time.Hour},
			Start: time.Now(), PID: pid, Log: log, URL: "http://127.0.0.1:30000",
			Smoke: func(context.Context, string, string) observe.SmokeResult { return observe.SmokeResult{OK: true} },
		}
		go func() {
			time.Sleep(10 * time.Second)
			cancel()
		}()
		_, err := Run(ctx, spec, deps(proc, stuckHealth{}), &sink{})
		if err == nil {
			t.Fatal("Run returned no error on a cancelled context")
		}
		synctest.Wait() // the canceller itself returns
		if left := leftover(); len(left) != 0 {
			t.Errorf("%d of the monitor's goroutines still run after Run:\n%s", len(left), strings.Join(left, "\n\n"))
		}
	})
}

// A server vigil did not start dies: its zombie's wait status in the /proc
// fixture is the exit the judge gets, after the log's last lines.
func TestWatchReadsTheZombiesExitStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pid = 4200
		proc := procTree(t, pid, "S", 0)
		log := writeLog(t,
			"INFO 11-29 10:00:00 [api_server.py:1] vLLM API server version 0.11.0",
			"INFO 11-29 10:00:01 [x.py:1] Loading weights")
		spec := Spec{
			Judge: judge.Config{Server: "vllm", StallAfter: time.Hour, Timeout: 2 * time.Hour},
			Start: time.Now(), PID: pid, Log: log, URL: "http://127.0.0.1:8000",
		}
		go func() {
			time.Sleep(5 * time.Second)
			writeStat(t, proc, pid, "Z", 1<<8) // exited with status 1
		}()
		out, err := Run(context.Background(), spec, deps(proc, &fakeHealth{}), &sink{})
		if err != nil {
			t.Fatal(err)
		}
		r := out.Result
		if r.Verdict != v.Failed {
			t.Fatalf("verdict %s (%s), want failed", r.Verdict, r.Summary)
		}
		if !strings.Contains(strings.Join(r.Evidence, "\n")+r.Summary, "exited with status 1") {
			t.Errorf("the exit status is not in the verdict: %s / %q", r.Summary, r.Evidence)
		}
		if took := r.At.Sub(spec.Start); took < 5*time.Second || took > 7*time.Second {
			t.Errorf("decided after %s, want soon after the exit at 5s", took)
		}
	})
}

// fakeProcess is a launched server that has already exited.
type fakeProcess struct {
	done chan struct{}
	exit observe.Exit
}

func (p *fakeProcess) Done() <-chan struct{} { return p.done }
func (p *fakeProcess) Exit() observe.Exit    { return p.exit }

// A launched server writes its traceback and dies at once: the exit is
// judged only after those lines, so the cause is the traceback's, and a
// failed verdict stops the server and looks for survivors.
func TestRunJudgesTheLinesBeforeTheExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pid = 4300
		proc := procTree(t, pid, "S", 0)
		log := writeLog(t,
			"[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')",
			"[2026-11-29 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):",
			"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.")
		p := &fakeProcess{done: make(chan struct{}), exit: observe.Exit{Code: 1}}
		close(p.done)
		stopped := false
		spec := Spec{
			Judge: judge.Config{Server: "sglang", StallAfter: time.Hour, Timeout: 2 * time.Hour},
			Start: time.Now(), PID: pid, Proc: p, Log: log, URL: "http://127.0.0.1:30000",
			Stop: func() { stopped = true; os.RemoveAll(filepath.Join(proc, fmt.Sprint(pid))) },
		}
		s := &sink{}
		out, err := Run(context.Background(), spec, deps(proc, &fakeHealth{}), s)
		if err != nil {
			t.Fatal(err)
		}
		if r := out.Result; r.Verdict != v.Failed || r.Cause != v.GPUOOM {
			t.Fatalf("got %s/%s (%s), want failed/gpu_oom", r.Verdict, r.Cause, r.Summary)
		}
		if !stopped {
			t.Error("a failed startup was not stopped")
		}
		if !strings.Contains(strings.Join(s.notes, "\n"), "stopping the server's process group (pid 4300)") {
			t.Errorf("notes %q", s.notes)
		}
	})
}

// A launched server floods its log, then writes a traceback whose last
// line has no newline yet, and dies: every byte is read before the exit is
// judged, however many there are, and at once (no clock decides when
// reading is over), so the cause and evidence are the traceback's.
func TestRunReadsAFloodedLogToItsEndBeforeTheExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pid = 4400
		proc := procTree(t, pid, "S", 0)
		var b strings.Builder
		b.WriteString("[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')\n")
		const flood = "[2026-11-29 10:00:05 TP0] Decode batch. #running-req: 1, #token: 100, token usage: 0.00, gen throughput (token/s): 50.00, #queue-req: 0\n"
		for range 40000 { // 5 MB: more than the lines channel and many read rounds hold
			b.WriteString(flood)
		}
		b.WriteString("[2026-11-29 10:00:06 TP0] Scheduler hit an exception: Traceback (most recent call last):\n")
		b.WriteString("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.")
		log := filepath.Join(t.TempDir(), "server.log")
		if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		p := &fakeProcess{done: make(chan struct{}), exit: observe.Exit{Code: 1}}
		close(p.done)
		spec := Spec{
			Judge: judge.Config{Server: "sglang", StallAfter: time.Hour, Timeout: 2 * time.Hour},
			Start: time.Now(), PID: pid, Proc: p, Log: log, URL: "http://127.0.0.1:30000",
		}
		out, err := Run(context.Background(), spec, deps(proc, &fakeHealth{}), &sink{})
		if err != nil {
			t.Fatal(err)
		}
		r := out.Result
		if r.Verdict != v.Failed || r.Cause != v.GPUOOM {
			t.Fatalf("got %s/%s (%s), want failed/gpu_oom", r.Verdict, r.Cause, r.Summary)
		}
		if !strings.Contains(strings.Join(r.Evidence, "\n"), "RuntimeError: Not enough memory") {
			t.Errorf("the traceback's last line is not in the evidence: %q", r.Evidence)
		}
		if took := r.At.Sub(spec.Start); took > 100*time.Millisecond {
			t.Errorf("decided %s after the exit; the end of the file, not a clock, must end the reading", took)
		}
	})
}

// The ready line nudges the health prober: the 200 that completes
// readiness is asked for at once, not at the prober's next tick.
func TestReadyLineProbesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pid = 4700
		proc := procTree(t, pid, "S", 0)
		log := writeLog(t,
			"[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')",
			"[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB")
		hc := &fakeHealth{code: 503}
		start := time.Now()
		spec := Spec{
			Judge: judge.Config{Server: "sglang", StallAfter: time.Minute, Timeout: time.Hour},
			Start: start, PID: pid, Log: log, URL: "http://127.0.0.1:30000",
		}
		// /health turns 200 as the ready line is written. The follower
		// polls every 100 ms; the line lands just after its poll at 3.1 s,
		// past the fast probing after the first 503, between the prober's
		// ticks at 3.0 s and 3.25 s.
		const wrote = 3110 * time.Millisecond
		time.AfterFunc(wrote, func() {
			hc.set(200)
			f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			fmt.Fprintln(f, "[2026-11-29 10:00:09] The server is fired up and ready to roll!")
		})
		out, err := Run(context.Background(), spec, deps(proc, hc), &sink{})
		if err != nil {
			t.Fatal(err)
		}
		r := out.Result
		if r.Verdict != v.Ready {
			t.Fatalf("verdict %s (%s), want ready", r.Verdict, r.Summary)
		}
		// Read at the poll at 3.2 s and probed then: ready at 3.2 s, not
		// at the prober's next tick.
		if took := r.At.Sub(start); took != 3200*time.Millisecond {
			t.Errorf("ready at %s, want 3.2s: when the follower read the line", took)
		}
	})
}

// portHealth answers 200 on some host:ports and refuses every other; it
// counts the probes each got.
type portHealth struct {
	mu    sync.Mutex
	ok    []string
	asked map[string]int
}

func (f *portHealth) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.asked == nil {
		f.asked = map[string]int{}
	}
	f.asked[r.URL.Host]++
	if !slices.Contains(f.ok, r.URL.Host) {
		return nil, fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED)
	}
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

// TestProbesWhereTheServerListens: a server that prints where it listens
// (llama-server --port 0) is probed, and its smoke request sent, there
// when vigil only guessed its URL; a URL the user gave is kept.
func TestProbesWhereTheServerListens(t *testing.T) {
	tests := []struct {
		name     string
		guessed  bool
		await    bool // --port 0
		verdict  v.Verdict
		probed   string // Outcome.URL
		smokedAt string
		note     string
		address  string // the address the server prints ("": none)
		socket   bool   // /proc shows the server listening on 41234
	}{
		{"guessed", true, false, v.Ready, "http://127.0.0.1:41234", "http://127.0.0.1:41234", "listens at http://127.0.0.1:41234, not at the guessed http://127.0.0.1:8080", "http://0.0.0.0:41234", false},
		{"given", false, false, v.Failed, "http://127.0.0.1:8080", "", "", "http://0.0.0.0:41234", false},
		// Another server answers on 8080: with --port 0 it is never asked.
		{"any port", true, true, v.Ready, "http://127.0.0.1:41234", "http://127.0.0.1:41234", "listens at http://127.0.0.1:41234 (it was told to take any port)", "http://0.0.0.0:41234", false},
		// A build that prints no address, and no socket to be read: the
		// guess is probed after all, once the server said it is ready.
		{"any port, no address", true, true, v.Ready, "http://127.0.0.1:8080", "http://127.0.0.1:8080", "", "", false},
		// vLLM prints the 0 it was given; its listening socket tells.
		{"any port, 0 printed", true, true, v.Ready, "http://127.0.0.1:41234", "http://127.0.0.1:41234", "listens at http://127.0.0.1:41234 (it was told to take any port, and its socket says which)", "http://0.0.0.0:0", true},
		{"any port, no address, a socket", true, true, v.Ready, "http://127.0.0.1:41234", "http://127.0.0.1:41234", "listens at http://127.0.0.1:41234 (it was told to take any port, and its socket says which)", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const pid = 4800
				proc := procTree(t, pid, "S", 0)
				if tt.socket {
					listenOn(t, proc, pid, "00000000:A112") // 0.0.0.0:41234
				}
				log := writeLog(t, "0.00.011.101 I srv    load_model: loading model 'tiny.gguf'")
				// The address comes two seconds in, after probes would
				// have found whatever answers at the guess.
				time.AfterFunc(2*time.Second, func() {
					f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Error(err)
						return
					}
					defer f.Close()
					fmt.Fprintln(f, "0.02.856.470 I srv  llama_server: model loaded")
					if tt.address != "" {
						fmt.Fprintln(f, "0.02.856.501 I srv  llama_server: listening on "+tt.address)
					}
				})
				hc := &portHealth{ok: []string{"127.0.0.1:41234"}}
				if tt.await || tt.address == "" {
					hc.ok = append(hc.ok, "127.0.0.1:8080")
				}
				var smokedAt string
				spec := Spec{
					Judge: judge.Config{Server: "llamacpp", StallAfter: time.Minute, Timeout: time.Hour, URLGuessed: tt.guessed, Smoke: true},
					Start: time.Now(), PID: pid, Log: log, URL: "http://127.0.0.1:8080", AwaitAddress: tt.await,
					Smoke: func(_ context.Context, _, base string) observe.SmokeResult {
						smokedAt = base
						return observe.SmokeResult{OK: true}
					},
				}
				s := &sink{}
				out, err := Run(context.Background(), spec, deps(proc, hc), s)
				if err != nil {
					t.Fatal(err)
				}
				if out.Result.Verdict != tt.verdict {
					t.Fatalf("verdict %s (%s), want %s", out.Result.Verdict, out.Result.Summary, tt.verdict)
				}
				if out.URL != tt.probed || smokedAt != tt.smokedAt {
					t.Errorf("probed %q and smoked at %q; want %q and %q", out.URL, smokedAt, tt.probed, tt.smokedAt)
				}
				noted := slices.ContainsFunc(s.notes, func(n string) bool {
					return tt.note != "" && strings.Contains(n, tt.note)
				})
				if noted != (tt.note != "") {
					t.Errorf("notes %q; want one saying %q", s.notes, tt.note)
				}
				if n := hc.asked["127.0.0.1:8080"]; tt.await && (tt.address != "" || tt.socket) && n > 0 {
					t.Errorf("the default port was probed %d times though the server was told to take any port", n)
				}
			})
		})
	}
}

// listenOn makes the /proc fixture at root show pid, in vigil's network
// namespace, listening on local (net/tcp's "HEXADDR:HEXPORT").
func listenOn(t *testing.T, root string, pid int, local string) {
	t.Helper()
	const inode = "424242"
	line := "   0: " + local + " 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 " + inode + " 1 0000000000000000 100 0 0 10 0"
	header := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	for _, d := range []string{"net", "self/ns", fmt.Sprint(pid, "/ns"), fmt.Sprint(pid, "/fd")} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "net/tcp"), []byte(header+line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{
		{"net:[4026531992]", "self/ns/net"},
		{"net:[4026531992]", fmt.Sprint(pid, "/ns/net")},
		{"socket:[" + inode + "]", fmt.Sprint(pid, "/fd/3")},
	} {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
}

// TestListenAtMovesOnEachNewAddress: a watched log's later run that
// listens elsewhere moves the probes again; the same address, or the
// guess itself, says nothing.
func TestListenAtMovesOnEachNewAddress(t *testing.T) {
	m := &monitor{spec: Spec{URL: "http://127.0.0.1:8080"}, retarget: make(chan string, 1)}
	steps := []struct {
		at, note, base string
	}{
		{"http://localhost:8080", "", "http://127.0.0.1:8080"},
		{"http://127.0.0.1:41234", "the server listens at http://127.0.0.1:41234, not at the guessed http://127.0.0.1:8080: probing there", "http://127.0.0.1:41234"},
		{"http://127.0.0.1:41234", "", "http://127.0.0.1:41234"},
		{"http://127.0.0.1:41999", "the server now listens at http://127.0.0.1:41999, no longer at http://127.0.0.1:41234: probing there", "http://127.0.0.1:41999"},
	}
	for i, st := range steps {
		if note := m.listenAt(st.at); note != st.note {
			t.Errorf("step %d: note %q, want %q", i, note, st.note)
		}
		if got := m.baseURL(); got != st.base {
			t.Errorf("step %d: probing %q, want %q", i, got, st.base)
		}
	}
	// The prober is handed the latest address only.
	if got := <-m.retarget; got != "http://127.0.0.1:41999" {
		t.Errorf("the prober was handed %q", got)
	}
}

// TestSameAddress: two base URLs are one listener only with the same
// scheme and port and the same host, loopback names counting as one.
func TestSameAddress(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"http://127.0.0.1:8080", "http://localhost:8080", true},
		{"http://127.0.0.1:8080", "http://[::1]:8080", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:9931", false},
		{"http://10.1.2.3:8000", "http://10.1.2.3:9000", false},
		{"http://10.1.2.3:8000", "http://10.1.2.4:8000", false},
		{"http://h", "http://h:80", true},
		{"https://127.0.0.1:8443", "http://127.0.0.1:8443", false},
		{"unix:///run/a.sock", "unix:///run/a.sock", true},
		{"unix:///run/a.sock", "unix:///run/b.sock", false},
		{"unix:///run/a.sock", "http://127.0.0.1:8080", false},
		// llama-server --host PATH.sock --api-prefix /llm prints the
		// socket alone.
		{"unix:///run/a.sock", "http+unix://%2Frun%2Fa.sock/llm", true},
		{"unix:///run/b.sock", "http+unix://%2Frun%2Fa.sock/llm", false},
	}
	for _, tt := range tests {
		if got := sameAddress(tt.a, tt.b); got != tt.want {
			t.Errorf("sameAddress(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestWithPathOf: an address the server printed keeps the path prefix of
// the URL probed so far (llama-server's --api-prefix is not in its
// "listening on" line).
func TestWithPathOf(t *testing.T) {
	tests := []struct {
		name, base, was, want string
	}{
		{"no prefix", "http://127.0.0.1:41234", "http://127.0.0.1:8080", "http://127.0.0.1:41234"},
		{"the prefix kept", "http://127.0.0.1:41234", "http://127.0.0.1:8080/llm", "http://127.0.0.1:41234/llm"},
		{"a trailing slash", "http://127.0.0.1:41234/", "http://127.0.0.1:8080/llm/", "http://127.0.0.1:41234/llm"},
		{"a printed path wins", "http://127.0.0.1:41234/v2", "http://127.0.0.1:8080/llm", "http://127.0.0.1:41234/v2"},
		{"a socket", "unix:///run/l.sock", "http://127.0.0.1:8080/llm", "unix:///run/l.sock"},
		{"a socket's prefix kept", "unix:///run/m.sock", "http+unix://%2Frun%2Fl.sock/llm", "http+unix://%2Frun%2Fm.sock/llm"},
		{"a socket without a prefix", "unix:///run/m.sock", "unix:///run/l.sock", "unix:///run/m.sock"},
		{"an address after a socket", "http://127.0.0.1:41234", "http+unix://%2Frun%2Fl.sock/llm", "http://127.0.0.1:41234"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withPathOf(tt.base, tt.was); got != tt.want {
				t.Errorf("withPathOf(%q, %q) = %q, want %q", tt.base, tt.was, got, tt.want)
			}
		})
	}
}
