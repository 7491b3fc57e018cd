package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vigil/internal/multinode"
	"vigil/internal/remote"
	"vigil/internal/remote/sshtest"
	"vigil/internal/scenario"
	v "vigil/internal/verdict"
)

// Remote startups over real ssh: every host is a network namespace with
// its own sshd (internal/remote/sshtest), the server is the scenario
// player, started on the host by the vigil pushed there. The tests skip
// where namespaces or sshd are not available (not root, no openssh-server).

// remotePort is the server's port on every host: each namespace has a
// loopback of its own, so the same port never clashes.
const remotePort = 30000

// remoteNet makes hosts whose sessions keep their state, caches and HF
// downloads in the test's own directories.
func remoteNet(t *testing.T, hosts ...sshtest.HostOptions) *sshtest.Net {
	t.Helper()
	needVigil(t)
	sshtest.Need(t)
	for i := range hosts {
		dir := t.TempDir()
		env := map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state"), "HF_HOME": filepath.Join(dir, "hf")}
		for k, val := range hosts[i].Env {
			env[k] = val
		}
		hosts[i].Env = env
	}
	return sshtest.New(t, hosts...)
}

// remoteCtx bounds a remote session: a hung one fails its test.
func remoteCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func connectHost(t *testing.T, n *sshtest.Net, host string) *remote.Conn {
	t.Helper()
	c, err := remote.Connect(remoteCtx(t), host, remote.Options{SSH: n.SSH, Binary: vigilBin, KeepAlive: time.Second})
	if err != nil {
		t.Fatalf("connect %s: %v\nsshd log:\n%s", host, err, n.Host(host).Log())
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// runSpec is `vigil run` of a scenario file (repo-relative) on a host,
// the server's pid written to the returned pidfile.
func runSpec(t *testing.T, file string, extra ...string) (remote.Spec, string) {
	t.Helper()
	path := filepath.Join(repoRoot(t), file)
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	pidfile := filepath.Join(t.TempDir(), "server.pid")
	killPidfileGroupAtEnd(t, pidfile)
	args := append([]string{"run", "--url", "http://127.0.0.1:" + strconv.Itoa(remotePort)}, sc.VigilArgs...)
	args = append(args, extra...)
	args = append(args, "--", vigilBin, "play", path, "--port", strconv.Itoa(remotePort), "--pidfile", pidfile, "--")
	args = append(args, playerArgv(sc, remotePort)...)
	return remote.Spec{Args: args, Detach: true}, pidfile
}

// collector keeps a session's events, safe to read while it runs.
type collector struct {
	mu     sync.Mutex
	events []event
	names  chan string
}

func newCollector() *collector { return &collector{names: make(chan string, 1024)} }

func (c *collector) on(e remote.Event) {
	var ev event
	if json.Unmarshal(e.Raw, &ev) != nil {
		ev = event{"event": "", "raw": string(e.Raw)}
	}
	c.mu.Lock()
	c.events = append(c.events, ev)
	c.mu.Unlock()
	select {
	case c.names <- e.Name:
	default:
	}
}

// waitEvent waits at most 60s for an event named name.
func (c *collector) waitEvent(t *testing.T, name string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case n := <-c.names:
			if n == name {
				return
			}
		case <-timeout:
			t.Fatalf("no %q event within 60s", name)
		}
	}
}

func verdictOf(t *testing.T, res *remote.Result) event {
	t.Helper()
	if res == nil || res.Verdict == nil {
		t.Fatal("the remote vigil wrote no verdict")
	}
	var e event
	if err := json.Unmarshal(res.Verdict.Raw, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// The transport alone: plain `ssh host vigil watch --json`, with the
// server started on the host, streams vigil's NDJSON back line by line.
func TestRemoteSSHStreamsWatchJSON(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"})
	h := n.Host("node0")
	dir := t.TempDir()
	scen := filepath.Join(repoRoot(t), "e2e", "testdata", "scenarios", "sglang-quick-ready.json")
	logPath, pidfile := filepath.Join(dir, "server.log"), filepath.Join(dir, "server.pid")
	killPidfileGroupAtEnd(t, pidfile)
	player := h.Exec(vigilBin, "play", scen, "--port", strconv.Itoa(remotePort), "--pidfile", pidfile, "--log", logPath,
		"--", "python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-0.6B", "--port", strconv.Itoa(remotePort))
	player.Env = newSandbox(t).env
	player.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := player.Start(); err != nil {
		t.Fatal(err)
	}
	go player.Wait()
	pid := waitPid(t, pidfile, 10*time.Second)

	var stdout, stderr syncBuffer
	cmd := n.Command("node0", vigilBin, "watch", "--json", "--url", "http://127.0.0.1:"+strconv.Itoa(remotePort),
		"--log", logPath, "--pid", strconv.Itoa(pid), "--timeout", "30s")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("ssh node0 vigil watch: %v\nstderr: %s", err, stderr.String())
	}
	events, verdict, problems := parseEvents(stdout.Bytes())
	if len(problems) > 0 {
		t.Errorf("NDJSON over ssh: %v", problems)
	}
	if verdict.str("verdict") != "ready" {
		t.Fatalf("verdict %v, want ready\nstderr: %s", verdict, stderr.String())
	}
	if len(events) < 3 || events[0].str("event") != "start" {
		t.Errorf("events %v: want the start event first and more before the verdict", events)
	}
}

func TestRemoteRunReady(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"})
	c := connectHost(t, n, "node0")
	if !c.Pushed {
		t.Error("the first connection to a fresh host did not push vigil")
	}
	spec, pidfile := runSpec(t, "e2e/testdata/scenarios/sglang-quick-ready.json")
	col := newCollector()
	res, err := c.Run(remoteCtx(t), spec, col.on)
	if err != nil {
		t.Fatalf("remote run: %v", err)
	}
	ver := verdictOf(t, res)
	if res.Code != 0 || ver.str("verdict") != "ready" {
		t.Fatalf("exit %d verdict %v, want 0 and ready\nstderr: %s", res.Code, ver, res.Stderr)
	}
	if p := verdictFieldProblems(ver); len(p) > 0 {
		t.Errorf("verdict fields: %v", p)
	}
	if pid := readPid(pidfile); !alive(pid) {
		t.Errorf("the ready server (pid %d) is not running", pid)
	}
	if got := n.Host("node0").Logins(); got != 1 {
		t.Errorf("%d ssh logins for one remote run, want 1", got)
	}
}

func TestRemoteRunFailureStopsServer(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"})
	c := connectHost(t, n, "node0")
	spec, pidfile := runSpec(t, "testdata/scenarios/llamacpp-gpu-oom-cudamalloc-70b.json")
	res, err := c.Run(remoteCtx(t), spec, nil)
	if err != nil {
		t.Fatalf("remote run: %v", err)
	}
	ver := verdictOf(t, res)
	if res.Code != 1 || ver.str("verdict") != "failed" || ver.str("cause") != "gpu_oom" {
		t.Fatalf("exit %d verdict %v, want 1, failed, gpu_oom", res.Code, ver)
	}
	if ev := evidence(ver); len(ev) == 0 {
		t.Error("no evidence in the remote verdict")
	}
	if left := deadWithin(10*time.Second, readPid(pidfile)); len(left) > 0 {
		t.Errorf("the failed server (pid %v) still runs: the remote vigil must stop it", left)
	}
}

// A dropped connection is not a server failure: the remote vigil goes on,
// judges the startup and stops the failed server by itself.
func TestRemoteRunSurvivesDroppedConnection(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"})
	c := connectHost(t, n, "node0")
	spec, pidfile := runSpec(t, "testdata/scenarios/trtllm-gpu-oom-kv-cache-executor-qwen3-32b.json")
	col := newCollector()
	s, err := c.Start(remoteCtx(t), spec, col.on)
	if err != nil {
		t.Fatal(err)
	}
	col.waitEvent(t, "start")
	if n.Host("node0").DropSessions() == 0 {
		t.Fatal("no ssh session to drop")
	}
	res, err := s.Wait()
	if !errors.Is(err, remote.ErrDropped) {
		t.Fatalf("err %v, want ErrDropped", err)
	}
	if res.Verdict != nil {
		t.Fatalf("a verdict arrived before the drop: %s", res.Verdict.Raw)
	}
	t.Logf("drop reported as: %v", err)
	if !alive(res.PID) {
		t.Fatalf("the remote vigil (pid %d) died with the connection", res.PID)
	}
	t.Cleanup(func() { killGroup(res.PID) })
	if left := deadWithin(60*time.Second, res.PID); len(left) > 0 {
		t.Fatalf("the remote vigil did not finish within 60s")
	}
	b, err := os.ReadFile(filepath.Join(res.Dir, "events"))
	if err != nil {
		t.Fatal(err)
	}
	_, ver, _ := parseEvents(b)
	if ver.str("verdict") != "failed" || ver.str("cause") != "gpu_oom" {
		t.Errorf("the remote vigil's verdict after the drop: %v, want failed gpu_oom", ver)
	}
	if rc, _ := os.ReadFile(filepath.Join(res.Dir, "rc")); strings.TrimSpace(string(rc)) != "1" {
		t.Errorf("its exit status %q, want 1", rc)
	}
	if left := deadWithin(10*time.Second, readPid(pidfile)); len(left) > 0 {
		t.Errorf("the failed server (pid %v) still runs after the drop", left)
	}
}

func TestRemoteConnectErrors(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t,
		sshtest.HostOptions{Name: "arm", FakeTools: map[string]string{"uname": "echo Linux aarch64"}},
		sshtest.HostOptions{Name: "down", NoSSHD: true})
	tests := []struct {
		host string
		kind error
		want string
	}{
		{"down", remote.ErrUnreachable, "Connection refused"},
		{"arm", remote.ErrArch, "arm is linux/arm64"},
	}
	for _, tt := range tests {
		_, err := remote.Connect(remoteCtx(t), tt.host, remote.Options{SSH: n.SSH, Binary: vigilBin, GOOS: "linux", GOARCH: "amd64"})
		if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %v saying %q", tt.host, err, tt.kind, tt.want)
		}
	}
}

// member runs one member's remote vigil and feeds its verdict into the
// multi-node judgement.
type member struct {
	m    multinode.Member
	sess *remote.Session
	res  *remote.Result
	err  error
}

func outcomeOf(res *remote.Result) *multinode.Outcome {
	if res == nil || res.Verdict == nil {
		return nil
	}
	var e struct {
		Verdict  string   `json:"verdict"`
		Cause    *string  `json:"cause"`
		Phase    string   `json:"phase"`
		Summary  string   `json:"summary"`
		Hint     string   `json:"hint"`
		Evidence []string `json:"evidence"`
		LogFile  string   `json:"log_file"`
	}
	if json.Unmarshal(res.Verdict.Raw, &e) != nil {
		return nil
	}
	o := &multinode.Outcome{Verdict: v.Verdict(e.Verdict), Phase: v.Phase(e.Phase), Summary: e.Summary,
		Hint: e.Hint, Evidence: e.Evidence, LogFile: e.LogFile, At: res.Verdict.Received}
	if e.Cause != nil {
		o.Cause = v.Cause(*e.Cause)
	}
	return o
}

// twoNodes starts scenario files[i] on node i, waits for the first member
// to decide, judges the whole, stops the other member (as a failed
// multi-node start must) and returns the judgement. The member waiting
// (the one whose peer fails) has no stall window or timeout of its own
// to speak of: it ends only when stopped, however long the other's
// failure and stop take on a busy machine.
func twoNodes(t *testing.T, files [2]string, waiting int) multinode.Whole {
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"}, sshtest.HostOptions{Name: "node1"})
	members := make([]*member, 2)
	decided := make(chan int, 2)
	for i, f := range files {
		host := n.Hosts[i].Name
		c := connectHost(t, n, host)
		var extra []string
		if i == waiting {
			extra = []string{"--stall-after", "10m", "--timeout", "10m"}
		}
		spec, _ := runSpec(t, f, extra...)
		mb := &member{m: multinode.Member{Host: host, Rank: i, Serving: i == 0}}
		s, err := c.Start(remoteCtx(t), spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		mb.sess = s
		members[i] = mb
		go func() { mb.res, mb.err = s.Wait(); decided <- i }()
	}
	first := <-decided
	if first == waiting {
		t.Fatalf("%s, which waits for its peer, ended first: exit %d, err %v; stderr:\n%s", members[first].m.Host, members[first].res.Code, members[first].err, members[first].res.Stderr)
	}
	if members[first].err != nil {
		t.Fatalf("%s: %v", members[first].m.Host, members[first].err)
	}
	if members[first].res.Verdict == nil {
		t.Fatalf("%s ended first, exit %d, with no verdict; stderr:\n%s", members[first].m.Host, members[first].res.Code, members[first].res.Stderr)
	}
	members[first].m.Outcome = outcomeOf(members[first].res)
	other := members[1-first]
	other.m.Phase = v.Distributed // still running, no word of progress from it here
	w := multinode.Judge([]multinode.Member{members[0].m, members[1].m})
	// All members stop on failure: the other one is interrupted as Ctrl-C
	// would, and its vigil stops its server.
	if err := other.sess.Interrupt(); err != nil {
		t.Fatal(err)
	}
	<-decided
	if other.err != nil {
		t.Errorf("%s after the interrupt: %v", other.m.Host, other.err)
	} else if other.res.Code != 143 {
		// The interrupt reaches the remote vigil as SIGTERM: 128+15.
		t.Errorf("%s exit %d after the interrupt, want 143", other.m.Host, other.res.Code)
	}
	return w
}

func TestRemoteTwoNodesRendezvousUnreachable(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	w := twoNodes(t, [2]string{
		"testdata/scenarios/shared/vllm-stall-nccl-init-tp8.json", // node 0 waits at the rendezvous
		"testdata/scenarios/sglang-multinode-node1-dist-init-addr-unreachable-timeout.json",
	}, 0)
	if w.Verdict != v.Failed || w.Cause != v.NCCL || w.RootHost != "node1" {
		t.Fatalf("whole %s/%s root %s, want failed/nccl root node1 (%+v)", w.Verdict, w.Cause, w.RootHost, w)
	}
	if len(w.Evidence) == 0 || len(w.Echoes) != 1 || w.Echoes[0].Host != "node0" {
		t.Errorf("evidence %q echoes %+v: want node1's evidence and node0 as the echo", w.Evidence, w.Echoes)
	}
}

func TestRemoteTwoNodesNode0DiesNode1Hangs(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	w := twoNodes(t, [2]string{
		"testdata/scenarios/sglang-crash-segfault-tokenizer.json",
		"testdata/scenarios/shared/vllm-stall-nccl-init-tp8.json",
	}, 1)
	if w.Verdict != v.Failed || w.Cause != v.Crash || w.RootHost != "node0" {
		t.Fatalf("whole %s/%s root %s, want failed/crash root node0 (%+v)", w.Verdict, w.Cause, w.RootHost, w)
	}
	if len(w.Echoes) != 1 || w.Echoes[0].Host != "node1" || w.Echoes[0].State != "waiting" {
		t.Errorf("echoes %+v: want node1 waiting", w.Echoes)
	}
}
