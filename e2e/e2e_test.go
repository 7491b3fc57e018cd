package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// vigilBin is the vigil binary TestMain built for this run.
var vigilBin string

// slots bounds how many vigil sessions (each with its server) run at once.
// Most of their time is sleeping through scripted startups, so six fit on
// two cores; more would make the timing checks flaky on a loaded machine.
var slots = make(chan struct{}, 6)

// exitFor is the exit status that goes with each verdict (contract.md).
var exitFor = map[string]int{"ready": 0, "failed": 1, "stalled": 3, "timeout": 124}

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	if name := os.Getenv(helperServerEnv); name != "" {
		return helperServer(name) // this binary is a test's server
	}
	flag.Parse()
	raiseParallel()
	if testing.Short() {
		return m.Run() // every test skips itself in -short mode
	}
	dir, err := os.MkdirTemp("", "vigil-e2e-bin-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	goTool, err := goCommand()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: cannot build the vigil binary: %v\n", err)
		return 1
	}
	bin := filepath.Join(dir, "vigil")
	build := exec.Command(goTool, "build", "-o", bin, "vigil/cmd/vigil")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %s build -o %s vigil/cmd/vigil: %v\n%s", goTool, bin, err, out)
		return 1
	}
	vigilBin = bin
	return m.Run()
}

// raiseParallel lets more parallel tests run at once than -parallel's
// default (GOMAXPROCS, 2 in CI) unless the flag was given: these tests
// mostly sleep through scripted startups, and what bounds them is the
// session slots each takes (slots). Two more than the slots leave room for
// parents waiting on their subtests and for tests between sessions.
func raiseParallel() {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(cap(slots)+2))
	}
}

// goCommand finds the go command: on $PATH, else under $GOROOT.
func goCommand() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("the go command is not on $PATH (nor under $GOROOT/bin); the e2e tests need it to build vigil/cmd/vigil")
}

// needVigil skips in -short mode; the e2e tests run real startups.
func needVigil(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: skipped in -short mode")
	}
	if vigilBin == "" {
		t.Fatal("e2e: the vigil binary was not built")
	}
}

// takeSlot blocks until a session slot is free and gives it back when t
// ends, after t's later cleanups (which kill leftover servers).
func takeSlot(t *testing.T) {
	t.Helper()
	slots <- struct{}{}
	t.Cleanup(func() { <-slots })
}

// repoRoot is the directory holding go.mod, found upwards from the test's
// working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("e2e: no go.mod above the working directory")
		}
		dir = parent
	}
}

// sandbox is one session's private world: its own HOME, XDG_STATE_HOME
// (where vigil keeps logs and history) and HF_HOME (the download cache the
// player grows and vigil watches), shared by vigil and the server.
type sandbox struct {
	dir string
	env []string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	dir := t.TempDir()
	s := &sandbox{dir: dir}
	vars := map[string]string{
		"HOME":           filepath.Join(dir, "home"),
		"XDG_STATE_HOME": filepath.Join(dir, "state"),
		"HF_HOME":        filepath.Join(dir, "hf"),
	}
	for _, d := range vars {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := vars[k]; ok || strings.HasPrefix(k, "VIGIL_") || strings.HasPrefix(k, "OPENAI_") ||
			k == "XDG_CACHE_HOME" || k == "HF_HUB_CACHE" || k == "HUGGINGFACE_HUB_CACHE" {
			continue
		}
		s.env = append(s.env, kv)
	}
	for k, v := range vars {
		s.env = append(s.env, k+"="+v)
	}
	return s
}

func (s *sandbox) path(name string) string { return filepath.Join(s.dir, name) }

// with returns the sandbox's environment plus extra KEY=VALUE pairs.
func (s *sandbox) with(extra ...string) []string {
	return append(append([]string(nil), s.env...), extra...)
}

var (
	portMu    sync.Mutex
	portsUsed = map[int]bool{}
)

// freePort returns a loopback port that nothing listens on, never the same
// twice in this process. It prefers ports just below the kernel's ephemeral
// range, so that the many short-lived outgoing connections of the tests
// (health probes) cannot take it before the server binds it.
func freePort(t *testing.T) int {
	t.Helper()
	portMu.Lock()
	defer portMu.Unlock()
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				lo = n
			}
		}
	}
	base := max(1024, lo-10000)
	for range 200 {
		p := base + rand.IntN(lo-base)
		if portsUsed[p] {
			continue
		}
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			l.Close()
			portsUsed[p] = true
			return p
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p := l.Addr().(*net.TCPAddr).Port
	portsUsed[p] = true
	return p
}

// alive reports whether pid is a live process (a zombie is not), as
// shared/tools/evaluate.py decides it.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndex(s, ") ")
	if i < 0 {
		return false
	}
	f := strings.Fields(s[i+2:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// waitUntil polls cond every 25 ms for at most d and says whether it held.
func waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// deadWithin waits at most d for every pid to be gone and returns those
// still alive.
func deadWithin(d time.Duration, pids ...int) []int {
	var left []int
	waitUntil(d, func() bool {
		left = left[:0]
		for _, p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		return len(left) == 0
	})
	return left
}

// killGroup SIGKILLs the process group led by pid, and pid itself.
func killGroup(pid int) {
	if pid <= 0 {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// readPid reads a pid file; 0 when it is missing or not yet written.
func readPid(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return n
}

// waitPid waits at most d for a pid file to be written.
func waitPid(t *testing.T, path string, d time.Duration) int {
	t.Helper()
	var pid int
	if !waitUntil(d, func() bool { pid = readPid(path); return pid > 0 }) {
		t.Fatalf("no pid in %s after %s", path, d)
	}
	return pid
}

// killPidfileGroupAtEnd kills, when t ends, the process group of whatever
// pid the file holds by then: a server must never outlive its test.
func killPidfileGroupAtEnd(t *testing.T, paths ...string) {
	t.Cleanup(func() {
		var pids []int
		for _, p := range paths {
			if pid := readPid(p); pid > 0 {
				killGroup(pid)
				pids = append(pids, pid)
			}
		}
		// Gone before t's temporary directories are removed.
		deadWithin(5*time.Second, pids...)
	})
}

// syncBuffer is a bytes.Buffer that a process can write while the test
// reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}

func (b *syncBuffer) String() string { return string(b.Bytes()) }

// vigilProc is one vigil process started by a test.
type vigilProc struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	started        time.Time
	done           chan struct{}

	// Set once done is closed.
	exited  time.Time
	code    int            // exit status; -1 when killed by a signal
	signal  syscall.Signal // the signal that killed it, if any
	maxRSS  int64          // peak resident memory in bytes, as last seen (VmHWM)
	waitErr error
}

// startVigil starts the vigil binary with args in env. It is killed when t
// ends if it is still running.
func startVigil(t *testing.T, env []string, args ...string) *vigilProc {
	t.Helper()
	p := &vigilProc{done: make(chan struct{})}
	p.cmd = exec.Command(vigilBin, args...)
	p.cmd.Env = env
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	// vigil's own pipes must close when it exits: a server that inherited
	// them would keep them open. Bound the wait and report it.
	p.cmd.WaitDelay = 5 * time.Second
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start vigil: %v", err)
	}
	var hwm atomic.Int64
	exited := make(chan struct{})
	go func() {
		err := p.cmd.Wait()
		close(exited)
		p.exited = time.Now()
		p.waitErr = err
		st := p.cmd.ProcessState
		p.code = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.signal = ws.Signal()
		}
		p.maxRSS = hwm.Load()
		close(p.done)
	}()
	// vigil's peak RSS: VmHWM, read until it exits. (getrusage's ru_maxrss
	// of a child is no use: it starts at the forking test binary's RSS.)
	go func() {
		status := fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid)
		for {
			if kb := vmHWM(status); kb > hwm.Load() {
				hwm.Store(kb)
			}
			select {
			case <-exited:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// vmHWM reads the peak resident set size, in bytes, from a
// /proc/PID/status file; 0 once the process is gone or a zombie.
func vmHWM(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(v) // "1234 kB"
			if len(f) > 0 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// wait waits at most limit for vigil to exit; on overrun it kills vigil,
// reports an error and returns false.
func (p *vigilProc) wait(t *testing.T, limit time.Duration) bool {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("vigil did not exit within %s (killed)\n%s", limit, p.excerpt())
		return false
	}
	if errors.Is(p.waitErr, exec.ErrWaitDelay) {
		t.Errorf("vigil's stdout or stderr stayed open after it exited: a child process inherited them\n%s", p.excerpt())
	}
	return true
}

func (p *vigilProc) finished() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// excerpt is what a failure report shows of vigil's output: the last
// stdout lines (the verdict) and the tail of stderr.
func (p *vigilProc) excerpt() string {
	out := strings.Split(strings.TrimRight(p.stdout.String(), "\n"), "\n")
	if len(out) > 3 {
		out = out[len(out)-3:]
	}
	errText := p.stderr.String()
	if len(errText) > 1500 {
		errText = "..." + errText[len(errText)-1500:]
	}
	return fmt.Sprintf("  vigil %s\n  exit: %d\n  stdout (last lines):\n    %s\n  stderr:\n    %s",
		strings.Join(p.cmd.Args[1:], " "), p.code, clip(strings.Join(out, "\n    "), 3000),
		strings.ReplaceAll(strings.TrimRight(errText, "\n"), "\n", "\n    "))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes more)", len(s)-n)
}

// event is one NDJSON object of vigil's --json output.
type event map[string]any

func (e event) str(key string) string {
	s, _ := e[key].(string)
	return s
}

// parseEvents checks vigil's --json stdout: every line one JSON object
// with "event" and "t", the last one the verdict. It returns the events,
// the verdict (nil if the last line is not one) and the problems found.
func parseEvents(stdout []byte) (events []event, verdict event, problems []string) {
	lines := bytes.Split(bytes.TrimRight(stdout, "\n"), []byte("\n"))
	bad := 0
	for _, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e == nil {
			bad++
			if bad <= 3 {
				problems = append(problems, fmt.Sprintf("stdout line is not a JSON object: %s", clip(string(line), 200)))
			}
			continue
		}
		if _, ok := e["event"].(string); !ok {
			problems = append(problems, fmt.Sprintf("event without an \"event\" string: %s", clip(string(line), 200)))
		}
		if _, ok := e["t"].(float64); !ok {
			problems = append(problems, fmt.Sprintf("event without a numeric \"t\": %s", clip(string(line), 200)))
		}
		events = append(events, e)
	}
	if bad > 3 {
		problems = append(problems, fmt.Sprintf("%d stdout lines are not JSON", bad))
	}
	if len(events) > 0 && len(lines) > 0 {
		var last event
		if json.Unmarshal(lines[len(lines)-1], &last) == nil && last.str("event") == "verdict" {
			verdict = last
		}
	}
	if verdict == nil {
		problems = append(problems, "the last stdout line is not a verdict event")
	}
	return events, verdict, problems
}

// verdictFieldProblems checks the fields contract.md says a verdict event
// always has. Evidence must be non-empty for every verdict but ready.
func verdictFieldProblems(v event) []string {
	var p []string
	if _, ok := v["verdict"].(string); !ok {
		p = append(p, "no verdict string")
	}
	if c, ok := v["cause"]; !ok || (c != nil && v.str("cause") == "") {
		p = append(p, fmt.Sprintf("cause is %v; want null or a cause", c))
	}
	if _, ok := v["phase"].(string); !ok {
		p = append(p, "no phase string")
	}
	if v.str("summary") == "" {
		p = append(p, "no summary")
	}
	if v.str("log_file") == "" {
		p = append(p, "no log_file")
	}
	ev, ok := v["evidence"].([]any)
	switch {
	case !ok:
		p = append(p, fmt.Sprintf("evidence is %v; want an array of log lines", v["evidence"]))
	case len(ev) == 0 && v.str("verdict") != "ready":
		p = append(p, "evidence is empty")
	}
	for _, x := range ev {
		if _, ok := x.(string); !ok {
			p = append(p, fmt.Sprintf("evidence holds a %T, not a line", x))
			break
		}
	}
	return p
}

// evidence returns the verdict's evidence lines.
func evidence(v event) []string {
	var out []string
	list, _ := v["evidence"].([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// knownBug fails t with the description of a vigil bug this suite found
// once (and that was fixed): the test guards against its return.
func knownBug(t *testing.T, format string, a ...any) {
	t.Helper()
	t.Fatalf("regression: "+format, a...)
}
