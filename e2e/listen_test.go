package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperServerEnv names a server this test binary plays when it is
// started with it set (the server of a test that needs a real listening
// socket); helperPidEnv a file it writes its pid to.
const (
	helperServerEnv = "VIGIL_E2E_HELPER_SERVER"
	helperPidEnv    = "VIGIL_E2E_HELPER_PIDFILE"
)

// helperKinds are the helper servers and the kind each plays.
var helperKinds = map[string]string{"llama-any-port": "llamacpp", "llama-socket": "llamacpp", "vllm-any-port": "vllm"}

// helperServer runs the named server until it is stopped, or a minute at
// most, and returns its exit status.
func helperServer(name string) int {
	if helperKinds[name] == "" {
		fmt.Fprintf(os.Stderr, "unknown helper server %q\n", name)
		return 2
	}
	if f := os.Getenv(helperPidEnv); f != "" {
		if err := os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	// llama-server --port 0 (b10587): the kernel picks the port, and the
	// server names it in its "listening on" line; --host PATH.sock: a
	// Unix socket, named unix://PATH.
	network, addr, shown := "tcp", "127.0.0.1:0", ""
	if name == "llama-socket" {
		network, addr = "unix", os.Args[len(os.Args)-1]
		shown = "unix://" + addr
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if shown == "" {
		shown = "http://" + ln.Addr().String()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"status":"ok"}`) })
	go func() { _ = http.Serve(ln, mux) }()
	// As a real server, print nothing in the first 50 ms: vigil watch
	// takes lines written sooner than that as an earlier run's.
	time.Sleep(100 * time.Millisecond)
	if name == "vllm-any-port" {
		// vLLM binds its socket first and names the address it was
		// given (api_server.py's listen_address), port 0 and all;
		// uvicorn, handed the socket, names none.
		pid := os.Getpid()
		fmt.Printf("(APIServer pid=%d) INFO 12-07 10:00:01 [api_server.py:1839] vLLM API server version 0.11.0\n", pid)
		fmt.Printf("(APIServer pid=%d) INFO 12-07 10:00:09 [api_server.py:1778] Starting vLLM API server 0 on http://0.0.0.0:0\n", pid)
		fmt.Printf("(APIServer pid=%d) INFO:     Started server process [%d]\n", pid, pid)
		fmt.Printf("(APIServer pid=%d) INFO:     Waiting for application startup.\n", pid)
		fmt.Printf("(APIServer pid=%d) INFO:     Application startup complete.\n", pid)
	} else {
		fmt.Println("0.00.011.101 I srv    load_model: loading model 'tiny.gguf'")
		fmt.Println("0.00.853.903 I srv    load_model: initializing slots, n_slots = 4")
		fmt.Println("0.00.856.470 I srv  llama_server: model loaded")
		fmt.Printf("0.00.856.501 I srv  llama_server: listening on %s\n", shown)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-stop:
	case <-time.After(time.Minute):
	}
	return 0
}

// runHelperServer starts `vigil run` of this binary as the named helper
// server, given args, and returns vigil and the file the server writes its
// pid to (its group is killed when t ends).
func runHelperServer(t *testing.T, sb *sandbox, name string, args ...string) (*vigilProc, string) {
	t.Helper()
	pidfile := sb.path("server.pid")
	killPidfileGroupAtEnd(t, pidfile)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"run", "--json", "--server", helperKinds[name], "--timeout", "60s", "--", self}, args...)
	return startVigil(t, sb.with(helperServerEnv+"="+name, helperPidEnv+"="+pidfile), argv...), pidfile
}

// TestRunProbesWhereTheServerListens: a server started with --port 0
// listens where the kernel put it; vigil, which could only guess the
// default port from the command line, probes nothing until it knows the
// port, then probes there and finds it ready. llama-server prints the
// port; vLLM prints the 0 it was given, and the port is read from its
// listening socket (before, vigil probed port 0 and called a served
// server stalled).
func TestRunProbesWhereTheServerListens(t *testing.T) {
	needVigil(t)
	tests := []struct{ helper, note string }{
		// From its line or, when vigil looks first, from its socket.
		{"llama-any-port", "(it was told to take any port"},
		{"vllm-any-port", "(it was told to take any port, and its socket says which): probing there"},
	}
	for _, tt := range tests {
		t.Run(tt.helper, func(t *testing.T) {
			takeSlot(t)
			sb := newSandbox(t)
			v, pidfile := runHelperServer(t, sb, tt.helper, "--port", "0")
			if !v.wait(t, 50*time.Second) {
				return
			}
			got := expectVerdict(t, v, "ready", "")
			if ev := strings.Join(evidence(got), "\n"); !strings.Contains(ev, "GET /health -> 200") {
				t.Errorf("ready without the health answer: %s", ev)
			}
			if readPid(pidfile) == 0 {
				t.Fatalf("the server never wrote its pid\n%s", v.excerpt())
			}
			events, _, _ := parseEvents(v.stdout.Bytes())
			moved := false
			for _, e := range events {
				moved = moved || e.str("event") == "note" && strings.Contains(e.str("message"), tt.note)
				if e.str("event") == "warning" && strings.Contains(e.str("message"), "nothing answers") {
					t.Errorf("warned %q though the server answers where it listens", e.str("message"))
				}
			}
			if !moved {
				t.Errorf("no note saying %q\n%s", tt.note, v.stdout.String())
			}
		})
	}
}

// TestWatchFindsThePortOfAServerThatPrintsZero: a vLLM started with
// --port 0 by someone else, its output in a file, is watched by its pid
// alone; vigil reads the port from its socket, as under run (before, it
// probed the default port and called the served server stalled).
func TestWatchFindsThePortOfAServerThatPrintsZero(t *testing.T) {
	needVigil(t)
	takeSlot(t)
	sb := newSandbox(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(sb.path("vllm.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	server := exec.Command(self, "--port", "0")
	server.Env = sb.with(helperServerEnv + "=vllm-any-port")
	server.Stdout, server.Stderr = log, log
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		server.Process.Kill()
		server.Wait()
	})
	v := startVigil(t, sb.env, "watch", "--json", "--server", "vllm", "--pid", strconv.Itoa(server.Process.Pid), "--timeout", "40s")
	if !v.wait(t, 50*time.Second) {
		return
	}
	got := expectVerdict(t, v, "ready", "")
	if ev := strings.Join(evidence(got), "\n"); !strings.Contains(ev, "GET /health -> 200") {
		t.Errorf("ready without the health answer: %s", ev)
	}
}

// TestRunProbesAUnixSocket: llama-server started with --host PATH.sock
// listens on a Unix socket; vigil probes it there and finds it ready,
// with no warning that nothing answers.
func TestRunProbesAUnixSocket(t *testing.T) {
	needVigil(t)
	takeSlot(t)
	sb := newSandbox(t)
	sock := sb.path("llama.sock")
	v, _ := runHelperServer(t, sb, "llama-socket", "--host", sock)
	if !v.wait(t, 50*time.Second) {
		return
	}
	expectReadyOnSocket(t, v, sock)
}

// expectReadyOnSocket checks that vigil found the server ready through
// its health answer over the socket at sock, probed from the start,
// with no warning.
func expectReadyOnSocket(t *testing.T, v *vigilProc, sock string) {
	t.Helper()
	got := expectVerdict(t, v, "ready", "")
	if ev := strings.Join(evidence(got), "\n"); !strings.Contains(ev, "GET /health -> 200") {
		t.Errorf("evidence %q; want the socket's health answer", ev)
	}
	events, _, _ := parseEvents(v.stdout.Bytes())
	for _, e := range events {
		if e.str("event") == "warning" {
			t.Errorf("warning %q", e.str("message"))
		}
		if e.str("event") == "start" && e.str("url") != "unix://"+sock {
			t.Errorf("start event's url %q, want the socket %s", e.str("url"), sock)
		}
	}
}

// TestWatchFindsARelativeSocket: a llama-server started elsewhere with
// --host NAME.sock listens on NAME.sock in its own working directory,
// which is not vigil's; vigil watch reads that directory from the process
// and probes the socket there.
func TestWatchFindsARelativeSocket(t *testing.T) {
	needVigil(t)
	takeSlot(t)
	sb := newSandbox(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	logPath := sb.path("server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	server := exec.Command(self, "--host", "llama.sock")
	server.Dir, server.Env, server.Stdout = sb.dir, sb.with(helperServerEnv+"=llama-socket"), logFile
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		server.Process.Kill()
		server.Wait()
	})
	pid := strconv.Itoa(server.Process.Pid)
	v := startVigil(t, sb.env, "watch", "--json", "--server", "llamacpp", "--pid", pid, "--log", logPath, "--timeout", "60s")
	if !v.wait(t, 50*time.Second) {
		return
	}
	// The socket in the server's directory, not vigil's.
	expectReadyOnSocket(t, v, sb.path("llama.sock"))
}
