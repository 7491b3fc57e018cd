package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests run the remote side's scripts for real, with the local sh in
// a private HOME: fakeHost stands in for ssh and the network, not for the
// host. The real-sshd tests are in e2e/remote_test.go.

// codeErr is an exit status, as an *exec.ExitError carries one.
type codeErr int

func (c codeErr) Error() string { return fmt.Sprintf("exit status %d", int(c)) }
func (c codeErr) ExitCode() int { return int(c) }

// fakeHost runs the remote command string with sh, as sshd would hand it
// to a login shell.
type fakeHost struct {
	t    *testing.T
	home string
	path string // PATH on the host

	mu     sync.Mutex
	calls  [][]string
	master bool // whether a master connection is up

	// refuse, when set, is ssh's stderr for a failed connection (exit 255).
	refuse string
	// drop, when set, is called with each session's stdout line; when it
	// returns true the connection breaks there.
	drop func(line string) bool
	// stdoutOnly makes a drop break only the session's stdout, its stdin
	// left open: the session sees the loss in its stream alone.
	stdoutOnly bool
}

func newFakeHost(t *testing.T) *fakeHost {
	t.Helper()
	home := t.TempDir()
	return &fakeHost{t: t, home: home, path: os.Getenv("PATH")}
}

func (f *fakeHost) env() []string {
	return []string{"HOME=" + f.home, "PATH=" + f.path, "LC_ALL=C"}
}

func (f *fakeHost) Run(ctx context.Context, c Command) error {
	f.mu.Lock()
	f.calls = append(f.calls, slices.Clone(c.Args))
	f.mu.Unlock()
	if i := slices.Index(c.Args, "-O"); i >= 0 {
		f.mu.Lock()
		defer f.mu.Unlock()
		alive := f.master
		if c.Args[i+1] == "exit" {
			f.master = false
		}
		if !alive {
			return codeErr(255)
		}
		return nil
	}
	if f.refuse != "" {
		io.WriteString(c.Stderr, f.refuse+"\n")
		return codeErr(255)
	}
	i := slices.Index(c.Args, "--")
	if i < 0 || i+2 >= len(c.Args) {
		f.t.Errorf("ssh command without -- TARGET COMMAND: %q", c.Args)
		return codeErr(255)
	}
	f.mu.Lock()
	f.master = true
	f.mu.Unlock()
	cmd := exec.CommandContext(ctx, "sh", "-c", c.Args[i+2])
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = f.env()
	cmd.Stderr = c.Stderr
	cmd.Stdin = c.Stdin
	if f.drop == nil || !strings.Contains(c.Args[i+2], "vigil-remote") {
		cmd.Stdout = c.Stdout
		return cmd.Run()
	}
	// A connection that can break: the session's stdin and stdout go
	// through pipes the fake closes, as sshd does when the link is gone.
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		return err
	}
	inR.Close()
	outW.Close()
	go io.Copy(inW, c.Stdin) // ends when the session closes its end
	var dropped bool
	lw := &lineWriter{on: func(b []byte) {
		if dropped {
			return
		}
		c.Stdout.Write(append(bytes.Clone(b), '\n'))
		if f.drop(string(b)) {
			dropped = true
			if !f.stdoutOnly {
				inW.Close()
			}
			outR.Close()
			f.mu.Lock()
			f.master = false
			f.mu.Unlock()
		}
	}}
	buf := make([]byte, 4096)
	for !dropped {
		n, err := outR.Read(buf)
		lw.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if dropped {
		// The wrapper dies of the broken pipe at its next write; ssh
		// reports the loss at once.
		if !f.stdoutOnly {
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
		inW.Close()
		io.WriteString(c.Stderr, "Connection to host closed by remote host.\n")
		return codeErr(255)
	}
	inW.Close()
	return cmd.Wait()
}

// fakeVigil writes an executable shell script standing in for vigil's
// binary: it answers --help and otherwise runs body.
func fakeVigil(t testing.TB, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "vigil")
	script := "#!/bin/sh\nif [ \"$1\" = --help ]; then exit 0; fi\n" + body + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// testCtx bounds a test's remote commands: a hung session fails the test
// instead of hanging it.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func options(f *fakeHost, bin string) Options {
	return Options{Runner: f, Binary: bin, ControlDir: f.t.TempDir()}
}

func sum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func connect(t *testing.T, f *fakeHost, bin string) *Conn {
	t.Helper()
	c, err := Connect(testCtx(t), "user@host", options(f, bin))
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestConnectPushesOnlyWhenMissingOrDifferent(t *testing.T) {
	f := newFakeHost(t)
	bin := fakeVigil(t, "exit 0")
	c := connect(t, f, bin)
	if !c.Pushed {
		t.Fatal("first Connect did not push the binary")
	}
	want := filepath.Join(f.home, ".cache", "vigil", sum(t, bin)[:16], "vigil")
	if c.BinaryPath() != want {
		t.Fatalf("binary at %q, want %q", c.BinaryPath(), want)
	}
	st, err := os.Stat(want)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("binary mode %v, want 0700", st.Mode().Perm())
	}
	if got := sum(t, want); got != sum(t, bin) {
		t.Errorf("pushed binary's hash %s, want %s", got, sum(t, bin))
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(want), ".vigil.*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	if c2 := connect(t, f, bin); c2.Pushed {
		t.Error("second Connect pushed the same binary again")
	}

	// Same path, other bytes (a corrupted copy): pushed again.
	if err := os.WriteFile(want, []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if c3 := connect(t, f, bin); !c3.Pushed {
		t.Error("Connect kept a binary whose hash differs")
	}
	if got := sum(t, want); got != sum(t, bin) {
		t.Errorf("after re-push the hash is %s, want %s", got, sum(t, bin))
	}
}

func TestConnectUsesXDGCacheHome(t *testing.T) {
	f := newFakeHost(t)
	cache := t.TempDir()
	// XDG_CACHE_HOME set on the host wins over HOME.
	bin := fakeVigil(t, "exit 0")
	o := options(f, bin)
	o.Runner = RunnerFunc(func(ctx context.Context, c Command) error {
		if i := slices.Index(c.Args, "--"); i >= 0 && i+2 < len(c.Args) {
			c.Args = append(slices.Clone(c.Args[:i+2]), "XDG_CACHE_HOME="+cache+" "+c.Args[i+2])
		}
		return f.Run(ctx, c)
	})
	c, err := Connect(testCtx(t), "host", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !strings.HasPrefix(c.BinaryPath(), cache+"/vigil/") {
		t.Errorf("binary at %q, want under %s/vigil/", c.BinaryPath(), cache)
	}
}

// writeTool puts an executable named name with body in a new directory and
// returns "DIR:$PATH".
func writeTool(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + ":" + os.Getenv("PATH")
}

func TestConnectErrors(t *testing.T) {
	goarch := "arm64"
	if runtime.GOARCH == "arm64" {
		goarch = "amd64"
	}
	tests := []struct {
		name    string
		refuse  string
		tool    [2]string // a tool on the host's PATH: name, body
		bin     string    // fake vigil body
		goarch  string
		kind    error
		message []string
	}{
		{name: "connection refused", refuse: "ssh: connect to host node9 port 22: Connection refused",
			kind: ErrUnreachable, message: []string{"cannot reach user@host", "Connection refused"}},
		{name: "unknown name", refuse: "ssh: Could not resolve hostname node9: Name or service not known",
			kind: ErrUnreachable, message: []string{"Could not resolve hostname"}},
		{name: "key refused", refuse: "user@host: Permission denied (publickey).",
			kind: ErrAuth, message: []string{"refused the ssh login", "BatchMode", "Permission denied (publickey)"}},
		{name: "unknown host key", refuse: "Host key verification failed.",
			kind: ErrAuth, message: []string{"host key"}},
		{name: "other architecture", goarch: goarch,
			kind: ErrArch, message: []string{"user@host is " + runtime.GOOS + "/" + runtime.GOARCH, "binary is " + runtime.GOOS + "/" + goarch}},
		{name: "arch from a fake uname", tool: [2]string{"uname", "echo Linux aarch64"}, goarch: "amd64",
			kind: ErrArch, message: []string{"linux/arm64", "uname: Linux aarch64"}},
		{name: "noexec mount", tool: [2]string{"findmnt", "echo rw,nosuid,nodev,noexec,relatime"},
			bin: "exit 126", kind: ErrNoExec, message: []string{"mounted noexec", "XDG_CACHE_HOME"}},
		{name: "permission denied without noexec", tool: [2]string{"findmnt", "echo rw,relatime"},
			bin: "exit 126", kind: ErrNoExec, message: []string{"permission denied"}},
		{name: "binary fails", bin: "exit 5", kind: ErrNoExec, message: []string{"failed 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeHost(t)
			f.refuse = tt.refuse
			if tt.tool[0] != "" {
				f.path = writeTool(t, tt.tool[0], tt.tool[1])
			}
			body := "exit 0"
			if tt.bin != "" {
				// Only --help runs it here; make --help fail too.
				body = tt.bin
			}
			bin := fakeVigil(t, body)
			if tt.bin != "" {
				os.WriteFile(bin, []byte("#!/bin/sh\n"+tt.bin+"\n"), 0o755)
			}
			o := options(f, bin)
			if tt.goarch != "" {
				o.GOOS, o.GOARCH = runtime.GOOS, tt.goarch
				if tt.tool[0] == "uname" {
					o.GOOS = "linux"
				}
			}
			c, err := Connect(testCtx(t), "user@host", o)
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded")
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %v is not %v", err, tt.kind)
			}
			for _, m := range tt.message {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("message %q lacks %q", err, m)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("message has more than one line: %q", err)
			}
		})
	}
}

func TestConnectRefusesOptionLikeTargets(t *testing.T) {
	for _, target := range []string{"", "-oProxyCommand=x", "a b", "host\n"} {
		if _, err := Connect(testCtx(t), target, Options{Runner: newFakeHost(t)}); err == nil {
			t.Errorf("Connect(%q) succeeded", target)
		}
	}
}

func TestSSHCommandLine(t *testing.T) {
	f := newFakeHost(t)
	c := connect(t, f, fakeVigil(t, "exit 0"))
	c.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, args := range f.calls {
		line := strings.Join(args, " ")
		for _, want := range []string{"-o BatchMode=yes", "-o ControlMaster=auto", "-o ControlPath=" + c.dir + "/%C", "ControlPersist=30"} {
			if !strings.Contains(line, want) {
				t.Errorf("ssh command %q lacks %q", line, want)
			}
		}
	}
	last := f.calls[len(f.calls)-1]
	if !slices.Contains(last, "-O") || !slices.Contains(last, "exit") {
		t.Errorf("Close did not end the master: last command %q", last)
	}
}

func TestRunStreamsEventsAndStatus(t *testing.T) {
	f := newFakeHost(t)
	bin := fakeVigil(t, `echo "{\"event\":\"start\",\"t\":0,\"args\":\"$*\"}"
printf 'not json\n'
echo "usage complaint" >&2
echo '{"event":"verdict","t":1.5,"verdict":"failed","cause":"gpu_oom"}'
printf '{"event":"tail","t":2}'
exit 1`)
	c := connect(t, f, bin)
	var got []Event
	res, err := c.Run(testCtx(t), Spec{Args: []string{"watch", "--log", "/x y/server.log"}}, func(e Event) { got = append(got, e) })
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Code != 1 {
		t.Errorf("exit %d, want 1", res.Code)
	}
	names := []string{}
	for _, e := range got {
		names = append(names, e.Name)
	}
	if want := []string{"start", "", "verdict", "tail"}; !slices.Equal(names, want) {
		t.Fatalf("events %q, want %q", names, want)
	}
	if want := `"args":"watch --json --log /x y/server.log"`; !strings.Contains(string(got[0].Raw), want) {
		t.Errorf("remote vigil got %s, want %s", got[0].Raw, want)
	}
	if string(got[1].Raw) != "not json" {
		t.Errorf("non-JSON line %q not passed on", got[1].Raw)
	}
	if res.Verdict == nil || res.Verdict.T != 1.5 {
		t.Errorf("verdict %v", res.Verdict)
	}
	if !strings.Contains(res.Stderr, "usage complaint") || strings.Contains(res.Stderr, "vigil-remote:") {
		t.Errorf("stderr %q: want the remote vigil's, without the session line", res.Stderr)
	}
	if res.PID == 0 || res.Dir == "" {
		t.Errorf("pid %d dir %q not reported", res.PID, res.Dir)
	}
	if _, err := os.Stat(res.Dir); !os.IsNotExist(err) {
		t.Errorf("session directory %s left behind (%v)", res.Dir, err)
	}
}

func TestWithJSON(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"run", "--", "server", "--json"}, []string{"run", "--json", "--", "server", "--json"}},
		{[]string{"watch", "--json", "--log", "f"}, []string{"watch", "--json", "--log", "f"}},
		{[]string{"explain", "f"}, []string{"explain", "--json", "f"}},
	}
	for _, tt := range tests {
		if got := withJSON(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("withJSON(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestInterruptReachesRemoteVigil(t *testing.T) {
	f := newFakeHost(t)
	bin := fakeVigil(t, `trap 'echo "{\"event\":\"verdict\",\"t\":2,\"verdict\":\"failed\"}"; exit 130' TERM
echo '{"event":"start","t":0}'
while :; do sleep 0.05; done`)
	c := connect(t, f, bin)
	started := make(chan struct{})
	s, err := c.Start(testCtx(t), Spec{Args: []string{"run", "--", "x"}, Detach: true}, func(e Event) {
		if e.Name == "start" {
			close(started)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if err := s.Interrupt(); err != nil {
		t.Fatal(err)
	}
	res, err := s.Wait()
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if res.Code != 130 || res.Verdict == nil {
		t.Errorf("exit %d verdict %v, want 130 and the verdict", res.Code, res.Verdict)
	}
}

// gate is a fake vigil that prints a start event, then waits for a file
// to appear before it exits with status 1.
func gate(t *testing.T) (bin, gateFile string) {
	gateFile = filepath.Join(t.TempDir(), "go")
	bin = fakeVigil(t, fmt.Sprintf(`trap 'echo terminated >&2; exit 143' TERM
echo '{"event":"start","t":0}'
i=0; while [ ! -e %s ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
echo '{"event":"verdict","t":9,"verdict":"failed"}'
exit 1`, gateFile))
	return bin, gateFile
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 400 { // 20s at most
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("gave up waiting for %s", what)
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(b)
	i := strings.LastIndex(s, ") ")
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z'
}

func TestDroppedConnection(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	for _, detach := range []bool{true, false} {
		t.Run(fmt.Sprintf("detach=%v", detach), func(t *testing.T) {
			f := newFakeHost(t)
			f.drop = func(line string) bool { return strings.Contains(line, `"start"`) }
			bin, gateFile := gate(t)
			c := connect(t, f, bin)
			sub := "watch"
			if detach {
				sub = "run"
			}
			var events []string
			res, err := c.Run(testCtx(t), Spec{Args: []string{sub}, Detach: detach}, func(e Event) { events = append(events, e.Name) })
			if !errors.Is(err, ErrDropped) {
				t.Fatalf("err %v, want ErrDropped", err)
			}
			if !strings.Contains(err.Error(), "dropped") || strings.Contains(err.Error(), "\n") {
				t.Errorf("message %q", err)
			}
			if !slices.Equal(events, []string{"start"}) {
				t.Errorf("events %q", events)
			}
			rc := filepath.Join(res.Dir, "rc")
			if !detach {
				// The watch is stopped once the connection is gone, by
				// SIGTERM: its gate never opened.
				waitFor(t, "the attached vigil to stop", func() bool { return !alive(res.PID) })
				return
			}
			if !strings.Contains(err.Error(), "not a server failure") || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", res.PID)) {
				t.Errorf("message %q: want it to say the remote vigil keeps going, with its pid", err)
			}
			if !alive(res.PID) {
				t.Fatalf("the detached vigil (pid %d) died with the connection", res.PID)
			}
			os.WriteFile(gateFile, nil, 0o644)
			waitFor(t, "the detached vigil to finish", func() bool { _, err := os.Stat(rc); return err == nil })
			if b, _ := os.ReadFile(rc); strings.TrimSpace(string(b)) != "1" {
				t.Errorf("detached vigil's status %q, want 1", b)
			}
			if b, _ := os.ReadFile(filepath.Join(res.Dir, "events")); !strings.Contains(string(b), `"verdict"`) {
				t.Errorf("events file lacks the verdict written after the drop: %s", b)
			}
		})
	}
}

// An attached session whose stream breaks while its stdin stays open (the
// stdin reader never sees EOF) still stops its vigil: nobody reads it.
func TestAttachedStreamBroken(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	f := newFakeHost(t)
	f.drop = func(line string) bool { return strings.Contains(line, `"start"`) }
	f.stdoutOnly = true
	bin, _ := gate(t)
	c := connect(t, f, bin)
	res, err := c.Run(testCtx(t), Spec{Args: []string{"watch"}}, nil)
	if !errors.Is(err, ErrDropped) {
		t.Fatalf("err %v, want ErrDropped", err)
	}
	waitFor(t, "the attached vigil to stop", func() bool { return !alive(res.PID) })
}

func TestClassify255(t *testing.T) {
	tests := []struct {
		stderr string
		want   error
	}{
		{"ssh: connect to host 192.0.2.9 port 22: No route to host", ErrUnreachable},
		{"ssh: connect to host h port 22: Connection timed out", ErrUnreachable},
		{"root@h: Permission denied (publickey,password).", ErrAuth},
		{"Received disconnect from 1.2.3.4 port 22:2: Too many authentication failures", ErrAuth},
		{"Connection to h closed by remote host.", ErrDropped},
		{"client_loop: send disconnect: Broken pipe", ErrDropped},
		{"Timeout, server h not responding.", ErrDropped},
		{"", ErrUnreachable},
	}
	for _, tt := range tests {
		if got := classify255(tt.stderr); got != tt.want {
			t.Errorf("classify255(%q) = %v, want %v", tt.stderr, got, tt.want)
		}
	}
}

func TestPlatform(t *testing.T) {
	tests := []struct{ uname, goos, goarch string }{
		{"Linux x86_64", "linux", "amd64"},
		{"Linux aarch64", "linux", "arm64"},
		{"Darwin arm64", "darwin", "arm64"},
		{"Linux ppc64le", "linux", "ppc64le"},
		{"Linux armv7l", "linux", "arm"},
		{"", "unknown", "unknown"},
	}
	for _, tt := range tests {
		if goos, goarch := platform(tt.uname); goos != tt.goos || goarch != tt.goarch {
			t.Errorf("platform(%q) = %s/%s, want %s/%s", tt.uname, goos, goarch, tt.goos, tt.goarch)
		}
	}
}

func TestScriptsAreOneLine(t *testing.T) {
	for name, s := range map[string]string{"prepare": prepareScript, "push": pushScript, "session": sessionScript} {
		if strings.ContainsAny(s, "\n\\") {
			t.Errorf("%s script has a newline or a backslash: csh or fish would mangle it", name)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"plain", "", "it's", "a b", `$HOME`, "`x`", "--flag=v"} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != s {
			t.Errorf("shellQuote(%q) came back as %q", s, out)
		}
	}
}

func TestLineWriterKeepsEveryByte(t *testing.T) {
	var got []string
	w := &lineWriter{on: func(b []byte) { got = append(got, string(b)) }}
	for _, chunk := range []string{"a", "b\nc", "\n\n", "d"} {
		w.Write([]byte(chunk))
	}
	w.Flush()
	if want := []string{"ab", "c", "", "d"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
}

// An interrupt before the remote vigil's first event waits for it: until
// then vigil has not taken over SIGTERM and would just die of it.
func TestInterruptBeforeFirstEventWaits(t *testing.T) {
	f := newFakeHost(t)
	bin := fakeVigil(t, `sleep 0.3
trap 'echo "{\"event\":\"verdict\",\"t\":2,\"verdict\":\"failed\"}"; exit 130' TERM
echo '{"event":"start","t":0}'
while :; do sleep 0.05; done`)
	c := connect(t, f, bin)
	s, err := c.Start(testCtx(t), Spec{Args: []string{"run"}, Detach: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Interrupt(); err != nil {
		t.Fatal(err)
	}
	res, err := s.Wait()
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if res.Code != 130 || res.Verdict == nil {
		t.Errorf("exit %d verdict %v, want 130 and the verdict", res.Code, res.Verdict)
	}
}

func TestRunExitStatuses(t *testing.T) {
	tests := []struct {
		name string
		body string
		code int
		kind error // nil: the remote vigil's own status, no error
	}{
		{"ready", "exit 0", 0, nil},
		{"usage error", `echo "vigil: --timeout: bad duration" >&2; exit 2`, 2, nil},
		{"stalled", "exit 3", 3, nil},
		{"timeout", "exit 124", 124, nil},
		{"interrupted", "exit 130", 130, nil},
		{"killed", "kill -9 $$", 137, ErrRemote},
		{"cannot execute", "exit 126", 126, ErrNoExec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeHost(t)
			c := connect(t, f, fakeVigil(t, tt.body))
			res, err := c.Run(testCtx(t), Spec{Args: []string{"run"}, Detach: true}, nil)
			if tt.kind == nil && err != nil || tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Fatalf("err %v, want %v", err, tt.kind)
			}
			if res.Code != tt.code {
				t.Errorf("exit %d, want %d", res.Code, tt.code)
			}
			if tt.code == 2 && !strings.Contains(res.Stderr, "bad duration") {
				t.Errorf("stderr %q lacks the usage line", res.Stderr)
			}
		})
	}
}
