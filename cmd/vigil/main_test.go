package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain makes this test binary double as the vigil command: scripts run
// `vigil ...` (and vigil runs `vigil play ...` servers) through main, the
// real entry point.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"vigil": main})
}

// TestScript runs testdata/script/*.txtar. Each script gets its own HOME,
// XDG_STATE_HOME and HF_HOME under $WORK and a free loopback port in $PORT;
// a server it leaves running (its pid in $WORK/server.pid) is killed at the
// end.
//
// Extra commands:
//
//	status CODE PROG [ARGS...]   run PROG, want exit status CODE; its stdout
//	                             and stderr are then checked as exec's are
//	lines stdout|stderr N        the last command wrote exactly N lines there
//	verdict VERDICT [CAUSE]      the last command's stdout is NDJSON ending
//	                             with this verdict, whose log_file exists
//	[!] alive PIDFILE            the process is running (! : it is gone
//	                             within 3s)
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			for k, sub := range map[string]string{"HOME": "home", "XDG_STATE_HOME": "state", "HF_HOME": "hf"} {
				dir := filepath.Join(work, sub)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
				env.Setenv(k, dir)
			}
			port, err := freePort()
			if err != nil {
				return err
			}
			env.Setenv("PORT", strconv.Itoa(port))
			if os.Getenv("GORACE") == "" {
				// The race detector's default 1s pause at exit would
				// slow every vigil process by a second.
				env.Setenv("GORACE", "atexit_sleep_ms=10")
			}
			env.Values[envKey{}] = env
			env.Defer(func() { killPidfileGroup(filepath.Join(work, "server.pid")) })
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":  cmdStatus,
			"lines":   cmdLines,
			"verdict": cmdVerdict,
			"alive":   cmdAlive,
		},
	})
}

type envKey struct{}

// freePort returns a loopback port nothing listens on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func readPid(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// killPidfileGroup kills the process group of the pid in path and waits
// (at most 5s) for its leader to be gone.
func killPidfileGroup(path string) {
	pid := readPid(path)
	if pid <= 0 {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); running(pid) && time.Now().Before(deadline); {
		time.Sleep(25 * time.Millisecond)
	}
}

// cmdStatus runs a program in the script's environment and wants its exit
// status to be CODE.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %q is not an exit status", args[0])
	}
	env := ts.Value(envKey{}).(*testscript.Env)
	var vars []string
	for _, kv := range env.Vars {
		k, _, _ := strings.Cut(kv, "=")
		vars = append(vars, k+"="+ts.Getenv(k))
	}
	prog, err := lookPath(args[1], ts.Getenv("PATH"))
	if err != nil {
		ts.Fatalf("status: %v", err)
	}
	cmd := exec.Command(prog, args[2:]...)
	cmd.Args[0] = args[1]
	cmd.Env = vars
	cmd.Dir = ts.MkAbs(".")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	_, _ = ts.Stdout().Write(stdout.Bytes())
	_, _ = ts.Stderr().Write(stderr.Bytes())
	got := cmd.ProcessState.ExitCode()
	if err != nil && got == 0 {
		ts.Fatalf("status: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found in $PATH", name)
}

// cmdLines checks how many lines the last command wrote to stdout or
// stderr.
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || (args[0] != "stdout" && args[0] != "stderr") {
		ts.Fatalf("usage: lines stdout|stderr N")
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("lines: %q is not a number", args[1])
	}
	text := ts.ReadFile(args[0])
	got := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		got++
	}
	if got != want {
		ts.Fatalf("%s has %d lines, want %d:\n%s", args[0], got, want, text)
	}
}

// cmdVerdict checks the last command's stdout: every line a JSON event,
// the last one the verdict wanted, with an existing log_file.
func cmdVerdict(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: verdict VERDICT [CAUSE]")
	}
	lines := strings.Split(strings.TrimRight(ts.ReadFile("stdout"), "\n"), "\n")
	var last map[string]any
	for i, line := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			ts.Fatalf("stdout line %d is not JSON: %s", i+1, line)
		}
		if _, ok := ev["event"].(string); !ok {
			ts.Fatalf("stdout line %d has no event: %s", i+1, line)
		}
		last = ev
	}
	if last["event"] != "verdict" {
		ts.Fatalf("the last stdout line is not the verdict: %v", last)
	}
	if last["verdict"] != args[0] {
		ts.Fatalf("verdict %v, want %s", last["verdict"], args[0])
	}
	if len(args) == 2 && last["cause"] != args[1] {
		ts.Fatalf("cause %v, want %s", last["cause"], args[1])
	}
	lf, _ := last["log_file"].(string)
	if fi, err := os.Stat(lf); err != nil || fi.Size() == 0 {
		ts.Fatalf("log_file %q is missing or empty", lf)
	}
}

// cmdAlive checks whether the process in a pid file runs (not a zombie).
func cmdAlive(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: [!] alive PIDFILE")
	}
	pid := readPid(ts.MkAbs(args[0]))
	if pid <= 0 {
		ts.Fatalf("no pid in %s", args[0])
	}
	if !neg {
		if !running(pid) {
			ts.Fatalf("pid %d is not running", pid)
		}
		return
	}
	for deadline := time.Now().Add(3 * time.Second); running(pid); time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			ts.Fatalf("pid %d is still running", pid)
		}
	}
}

func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndex(s, ") ")
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z' && s[i+2] != 'X'
}
