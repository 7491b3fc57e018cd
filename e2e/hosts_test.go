package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vigil/internal/remote/sshtest"
)

// Multi-node starts (`vigil run --hosts`, `vigil watch --hosts`) over real
// ssh: node0 and node1 are network namespaces with an sshd each
// (internal/remote/sshtest), every node's server the scenario player. The
// namespaces share this machine's filesystem, so one directory holds each
// node's scenario as {host}.json and its pid file as {host}.pid, and the
// one COMMAND reaches both through the {host} placeholder.

// twoHostDir writes files[i] (repo-relative scenarios) as node<i>.json
// into a new directory and returns it.
func twoHostDir(t *testing.T, files [2]string) string {
	t.Helper()
	dir := t.TempDir()
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join(repoRoot(t), f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "node"+strconv.Itoa(i)+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	killPidfileGroupAtEnd(t, filepath.Join(dir, "node0.pid"), filepath.Join(dir, "node1.pid"))
	return dir
}

// hostsRunArgs is `vigil run --hosts node0,node1` of a two-node SGLang
// start whose servers are the scenarios in dir.
func hostsRunArgs(dir string, extra ...string) []string {
	port := strconv.Itoa(remotePort)
	args := append([]string{"run", "--hosts", "node0,node1", "--url", "http://127.0.0.1:" + port}, extra...)
	return append(args, "--", vigilBin, "play", filepath.Join(dir, "{host}.json"), "--port", port,
		"--pidfile", filepath.Join(dir, "{host}.pid"), "--",
		"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--tp", "4",
		"--nnodes", "{nnodes}", "--node-rank", "{rank}", "--dist-init-addr", "192.0.2.2:5000", "--port", port)
}

// vigilHosts runs the vigil binary here with args, its ssh client the test
// network's and its state (history) under state.
func vigilHosts(t *testing.T, n *sshtest.Net, state string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.CommandContext(remoteCtx(t), vigilBin, args...)
	cmd.Env = append(os.Environ(), "VIGIL_SSH="+n.SSH, "XDG_STATE_HOME="+state)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("vigil: %v", err)
	}
	return code, out.String(), errb.String()
}

// memberEvents checks that every line but the last is a member's event
// with host and rank, that the only verdict event is the last (the
// whole's), and returns the whole verdict and the member verdicts by host.
func memberEvents(t *testing.T, stdout string) (event, map[string]event) {
	t.Helper()
	events, whole, problems := parseEvents([]byte(stdout))
	if len(problems) > 0 {
		t.Fatalf("NDJSON: %v\n%s", problems, clip(stdout, 4000))
	}
	members := map[string]event{}
	for _, e := range events[:len(events)-1] {
		host, rank := e.str("host"), e["rank"]
		if host != "node0" && host != "node1" || rank == nil {
			t.Fatalf("member event without host and rank: %v", e)
		}
		if e.str("event") == "verdict" {
			t.Fatalf("a member's verdict event before the whole's: %v", e)
		}
		if e.str("event") == "member_verdict" {
			members[host] = e
		}
	}
	return whole, members
}

func TestHostsRunTwoNodesReady(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"}, sshtest.HostOptions{Name: "node1"})
	dir := twoHostDir(t, [2]string{
		"e2e/testdata/scenarios/sglang-multinode-node0-ready.json",
		"e2e/testdata/scenarios/sglang-multinode-node1-ready.json",
	})
	state := filepath.Join(t.TempDir(), "state")
	code, out, errs := vigilHosts(t, n, state, hostsRunArgs(dir, "--json", "--timeout", "40s", "--stall-after", "10s")...)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout %s\nstderr %s", code, clip(out, 4000), errs)
	}
	whole, members := memberEvents(t, out)
	if whole.str("verdict") != "ready" || whole.str("host") != "node0" {
		t.Errorf("whole verdict %v, want ready served by node0", whole)
	}
	if p := verdictFieldProblems(whole); len(p) > 0 {
		t.Errorf("whole verdict fields: %v", p)
	}
	for _, h := range []string{"node0", "node1"} {
		if members[h].str("verdict") != "ready" {
			t.Errorf("%s's verdict %v, want ready", h, members[h])
		}
	}
	// node1 never prints SGLang's ready line: its own vigil (--member)
	// found it ready by the dummy health server's line.
	if ev := evidence(members["node1"]); len(ev) == 0 || !strings.Contains(ev[0], "Dummy health check server") {
		t.Errorf("node1's ready evidence %q, want the dummy health server's line", ev)
	}
	for i := range 2 {
		if pid := readPid(filepath.Join(dir, "node"+strconv.Itoa(i)+".pid")); !alive(pid) {
			t.Errorf("node%d's ready server (pid %d) is not running", i, pid)
		}
	}
	// Both remote startups are in the local history, with their host.
	hcode, hout, herrs := vigilHosts(t, n, state, "history", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(hout), &list); hcode != 0 || err != nil {
		t.Fatalf("history --json: exit %d, %v\n%s", hcode, err, herrs)
	}
	seen := map[string]bool{}
	for _, st := range list {
		if st["remote"] != nil && st["nnodes"] == float64(2) {
			seen[st["host"].(string)] = true
		}
	}
	if !seen["node0"] || !seen["node1"] {
		t.Errorf("history %v: want a startup of node0 and of node1, each remote, of 2 nodes", list)
	}
}

func TestHostsRunRendezvousUnreachable(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"}, sshtest.HostOptions{Name: "node1"})
	dir := twoHostDir(t, [2]string{
		// node 0 waits for node 1 at the rendezvous it never reaches.
		"e2e/testdata/scenarios/sglang-multinode-node0-waits-for-rank1.json",
		"testdata/scenarios/sglang-multinode-node1-dist-init-addr-unreachable-timeout.json",
	})
	code, out, errs := vigilHosts(t, n, filepath.Join(t.TempDir(), "state"), hostsRunArgs(dir, "--timeout", "60s", "--stall-after", "30s")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (failed)\nstdout %s\nstderr %s", code, out, errs)
	}
	t.Logf("stdout:\n%s", out)
	head, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(head, "FAILED (nccl)") || !strings.Contains(head, "node1 (rank 1)") {
		t.Errorf("verdict line %q: want FAILED (nccl) naming node1 (rank 1)", head)
	}
	if !strings.Contains(out, "evidence (node1)") || !strings.Contains(out, "DistNetworkError") {
		t.Errorf("stdout %q: want node1's DistNetworkError as the evidence", out)
	}
	if !strings.Contains(out, "node0 (rank 0): ") {
		t.Errorf("stdout %q: want node0 as an echo", out)
	}
	if !strings.Contains(errs, "[node0") || !strings.Contains(errs, "[node1") {
		t.Errorf("stderr shows no member events with their host: %q", errs)
	}
	for i := range 2 {
		if left := deadWithin(10*time.Second, readPid(filepath.Join(dir, "node"+strconv.Itoa(i)+".pid"))); len(left) > 0 {
			t.Errorf("node%d's server (pid %v) still runs after the failed start", i, left)
		}
	}
}

func TestHostsRunNode0DiesNode1Hangs(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"}, sshtest.HostOptions{Name: "node1"})
	dir := twoHostDir(t, [2]string{
		"testdata/scenarios/sglang-crash-segfault-tokenizer.json",
		"e2e/testdata/scenarios/sglang-multinode-node1-waits-for-rank0.json",
	})
	code, out, errs := vigilHosts(t, n, filepath.Join(t.TempDir(), "state"), hostsRunArgs(dir, "--json", "--timeout", "60s", "--stall-after", "30s")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (failed)\nstdout %s\nstderr %s", code, clip(out, 4000), errs)
	}
	whole, _ := memberEvents(t, out)
	if whole.str("cause") != "crash" || whole.str("host") != "node0" || whole["rank"] != float64(0) {
		t.Errorf("whole verdict %v: want crash rooted in node0 (rank 0)", whole)
	}
	if ev := evidence(whole); len(ev) == 0 || !strings.Contains(strings.Join(ev, "\n"), "Segmentation fault") {
		t.Errorf("whole evidence %q: want node0's segmentation fault", ev)
	}
	ms, _ := whole["members"].([]any)
	if len(ms) != 1 || ms[0].(map[string]any)["host"] != "node1" {
		t.Errorf("members %v: want node1 as the echo", whole["members"])
	}
	// node 1 hangs waiting for rank 0: the whole start's failure stops it.
	if left := deadWithin(15*time.Second, readPid(filepath.Join(dir, "node1.pid"))); len(left) > 0 {
		t.Errorf("node1's server (pid %v) still runs after node0 died", left)
	}
}

// watch --hosts judges members started elsewhere from their logs, one
// --log PATH with {host} filled in per host, and never signals them.
func TestHostsWatchTwoLogs(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"}, sshtest.HostOptions{Name: "node1"})
	dir := twoHostDir(t, [2]string{
		"e2e/testdata/scenarios/sglang-multinode-node0-ready.json",
		"e2e/testdata/scenarios/sglang-multinode-node1-ready.json",
	})
	port := strconv.Itoa(remotePort)
	for i, h := range n.Hosts {
		node := "node" + strconv.Itoa(i)
		p := h.Exec(vigilBin, "play", filepath.Join(dir, node+".json"), "--port", port,
			"--pidfile", filepath.Join(dir, node+".pid"), "--log", filepath.Join(dir, node+".log"),
			"--", "python3", "-m", "sglang.launch_server", "--node-rank", strconv.Itoa(i), "--port", port)
		p.Env = newSandbox(t).env
		p.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		go p.Wait()
		waitPid(t, filepath.Join(dir, node+".pid"), 10*time.Second)
	}
	code, out, errs := vigilHosts(t, n, filepath.Join(t.TempDir(), "state"), "watch", "--hosts", "node0,node1",
		"--log", filepath.Join(dir, "{host}.log"), "--url", "http://127.0.0.1:"+port, "--timeout", "40s", "--stall-after", "10s")
	if code != 0 || !strings.HasPrefix(out, "READY, 2 nodes") {
		t.Fatalf("exit %d, stdout %q; want 0 and READY, 2 nodes\nstderr %s", code, out, errs)
	}
	if !strings.Contains(errs, "READY on node0") || !strings.Contains(errs, "READY on node1") {
		t.Errorf("stderr %q: want each member's state with its host", errs)
	}
	for i := range 2 {
		if pid := readPid(filepath.Join(dir, "node"+strconv.Itoa(i)+".pid")); !alive(pid) {
			t.Errorf("node%d's server (pid %d) is gone: watch must never signal it", i, pid)
		}
	}
}

// A startup judged with --ssh is in the local history with its host.
func TestHostsSSHRunRecordsTheHost(t *testing.T) {
	t.Parallel()
	takeSlot(t)
	n := remoteNet(t, sshtest.HostOptions{Name: "node0"})
	state := filepath.Join(t.TempDir(), "state")
	if code, out, errs := vigilHosts(t, n, state, runArgs(t, "node0", "e2e/testdata/scenarios/sglang-quick-ready.json")...); code != 0 {
		t.Fatalf("run --ssh: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, errs := vigilHosts(t, n, state, "history", "show", "1")
	t.Logf("history show 1:\n%s", out)
	if code != 0 || !strings.Contains(out, "on node0") || !strings.Contains(out, "judged over ssh node0") || !strings.Contains(out, "ready") {
		t.Errorf("history show 1: exit %d\n%s%s\nwant the ready startup on node0, judged over ssh", code, out, errs)
	}
}
