// Package sshtest gives tests real ssh hosts on one machine: each host is
// a network namespace of its own with an sshd on a TEST-NET-1 address
// (192.0.2.0/24, RFC 5737), reached from a client namespace over a veth
// pair. Keys, host keys, known_hosts and the client's config are generated
// for the test; everything (the sshd processes it started, the
// namespaces) is removed when the test ends, failed or not.
//
// It needs root, `ip netns`, sshd and ssh-keygen, and skips the test with
// the reason when one is missing.
package sshtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// HostOptions describes one host.
type HostOptions struct {
	// Name is the host's name in the client's ssh config ("node0").
	Name string
	// Env is set for every ssh session on the host (sshd's SetEnv), on
	// top of HOME and PATH. FakeTools are put first on its PATH.
	Env map[string]string
	// FakeTools are shell scripts (name to body) on the host's PATH ahead
	// of the system's: a fake uname makes another architecture.
	FakeTools map[string]string
	// NoSSHD leaves the host without an sshd: connections are refused.
	NoSSHD bool
}

// Host is one running host.
type Host struct {
	Name string
	Addr string // its address, inside its namespace
	NS   string // its network namespace
	// Home is HOME for sessions on the host.
	Home string
	link string // its end of the veth pair
	log  string // sshd's log
	cmd  *exec.Cmd
	done chan struct{}
}

// Net is a set of hosts and the client side that reaches them.
type Net struct {
	t   testing.TB
	Dir string
	// SSH is an ssh program for remote.Options.SSH: the system ssh run in
	// the client namespace with the generated config.
	SSH string
	// Config is the client's ssh config file.
	Config   string
	clientNS string
	Hosts    []*Host
}

var seq atomic.Int32

// Need skips t unless real ssh hosts can be made here.
func Need(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("sshtest: needs root (network namespaces and sshd)")
	}
	for _, tool := range []string{"ip", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("sshtest: no %s on PATH (apt-get install openssh-client iproute2)", tool)
		}
	}
	if sshdPath() == "" {
		t.Skip("sshtest: no sshd (apt-get install openssh-server)")
	}
	if out, err := exec.Command("ip", "netns", "list").CombinedOutput(); err != nil {
		t.Skipf("sshtest: ip netns does not work here: %v: %s", err, bytes.TrimSpace(out))
	}
}

func sshdPath() string {
	for _, p := range []string{"/usr/sbin/sshd", "/usr/local/sbin/sshd"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("sshd"); err == nil {
		return p
	}
	return ""
}

func run(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("sshtest: %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// New makes the hosts. It skips t when they cannot be made (see Need).
func New(t testing.TB, hosts ...HostOptions) *Net {
	t.Helper()
	Need(t)
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	removeStale()
	id := fmt.Sprintf("%d-%d", os.Getpid(), seq.Add(1))
	n := &Net{t: t, Dir: t.TempDir(), clientNS: "vigt-c-" + id}
	run(t, "ip", "netns", "add", n.clientNS)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "delete", n.clientNS).Run() })
	run(t, "ip", "-n", n.clientNS, "link", "set", "lo", "up")

	key := filepath.Join(n.Dir, "id_ed25519")
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "vigil-test", "-f", key)
	hostKey := filepath.Join(n.Dir, "host_ed25519")
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "vigil-test-host", "-f", hostKey)
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	auth := filepath.Join(n.Dir, "authorized_keys")
	if err := os.WriteFile(auth, pub, 0o600); err != nil {
		t.Fatal(err)
	}

	var cfg strings.Builder
	for i, o := range hosts {
		if i >= 60 {
			t.Fatal("sshtest: at most 60 hosts")
		}
		h := n.addHost(t, i, o, hostKey, auth)
		fmt.Fprintf(&cfg, "Host %s\n  HostName %s\n  User %s\n\n", h.Name, h.Addr, me.Username)
	}
	fmt.Fprintf(&cfg, "Host *\n  IdentityFile %s\n  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking accept-new\n  ConnectTimeout 5\n  LogLevel ERROR\n",
		key, filepath.Join(n.Dir, "known_hosts"))
	n.Config = filepath.Join(n.Dir, "ssh_config")
	if err := os.WriteFile(n.Config, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	n.SSH = filepath.Join(n.Dir, "ssh")
	script := fmt.Sprintf("#!/bin/sh\nexec ip netns exec %s ssh -F %s \"$@\"\n", n.clientNS, n.Config)
	if err := os.WriteFile(n.SSH, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range n.Hosts {
		if h.cmd != nil {
			n.waitListening(t, h)
		}
	}
	return n
}

func (n *Net) addHost(t testing.TB, i int, o HostOptions, hostKey, auth string) *Host {
	t.Helper()
	name := o.Name
	if name == "" {
		name = fmt.Sprintf("node%d", i)
	}
	h := &Host{Name: name, NS: fmt.Sprintf("%s-h%d", strings.Replace(n.clientNS, "-c-", "-", 1), i),
		Addr: fmt.Sprintf("192.0.2.%d", 4*i+2), link: fmt.Sprintf("vh%d", i)}
	dir := filepath.Join(n.Dir, name)
	h.Home = filepath.Join(dir, "home")
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{h.Home, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for tool, body := range o.FakeTools {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run(t, "ip", "netns", "add", h.NS)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "delete", h.NS).Run() })
	run(t, "ip", "-n", h.NS, "link", "set", "lo", "up")
	// Both ends are made inside namespaces of ours: nothing touches the
	// machine's own network.
	client := fmt.Sprintf("vc%d", i)
	run(t, "ip", "-n", n.clientNS, "link", "add", client, "type", "veth", "peer", "name", h.link, "netns", h.NS)
	run(t, "ip", "-n", n.clientNS, "addr", "add", fmt.Sprintf("192.0.2.%d/30", 4*i+1), "dev", client)
	run(t, "ip", "-n", h.NS, "addr", "add", h.Addr+"/30", "dev", h.link)
	run(t, "ip", "-n", n.clientNS, "link", "set", client, "up")
	run(t, "ip", "-n", h.NS, "link", "set", h.link, "up")
	n.Hosts = append(n.Hosts, h)
	if o.NoSSHD {
		return h
	}

	env := map[string]string{"HOME": h.Home, "PATH": bin + ":/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"}
	for k, v := range o.Env {
		env[k] = v
	}
	var setenv strings.Builder
	for k, v := range env {
		fmt.Fprintf(&setenv, " %s=%s", k, strconv.Quote(v))
	}
	h.log = filepath.Join(dir, "sshd.log")
	conf := fmt.Sprintf(`ListenAddress %s:22
HostKey %s
AuthorizedKeysFile %s
PidFile none
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers %s
SetEnv%s
MaxSessions 64
MaxStartups 64
ClientAliveInterval 1
ClientAliveCountMax 3
LogLevel VERBOSE
`, h.Addr, hostKey, auth, mustUser(t), setenv.String())
	confPath := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	// sshd refuses to start without its privilege separation directory.
	_ = os.MkdirAll("/run/sshd", 0o755)
	// `ip netns exec` execs sshd in place: the pid is sshd's own.
	h.cmd = exec.Command("ip", "netns", "exec", h.NS, sshdPath(), "-D", "-f", confPath, "-E", h.log)
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("sshtest: start sshd: %v", err)
	}
	h.done = make(chan struct{})
	go func() { _ = h.cmd.Wait(); close(h.done) }()
	t.Cleanup(func() { h.stop() })
	return h
}

// removeStale removes the namespaces of earlier test processes that died
// without cleaning up (a test binary killed at its -timeout runs no
// cleanups): each is named after its creator's pid, and only processes
// inside such a namespace, all started by this package, are killed.
func removeStale() {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "vigt-") {
			continue
		}
		ns := f[0]
		parts := strings.Split(strings.TrimPrefix(strings.TrimPrefix(ns, "vigt-"), "c-"), "-")
		pid, err := strconv.Atoi(parts[0])
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue // ours, or its creator lives
		}
		if pids, err := exec.Command("ip", "netns", "pids", ns).Output(); err == nil {
			for _, p := range strings.Fields(string(pids)) {
				if n, err := strconv.Atoi(p); err == nil {
					_ = syscall.Kill(n, syscall.SIGKILL)
				}
			}
		}
		_ = exec.Command("ip", "netns", "delete", ns).Run()
	}
}

func mustUser(t testing.TB) string {
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return me.Username
}

// stop kills the sshd this package started and its per-connection
// children, nothing else.
func (h *Host) stop() {
	if h.cmd == nil || h.cmd.Process == nil {
		return
	}
	for _, pid := range h.Sessions() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = h.cmd.Process.Kill()
	<-h.done
}

// waitListening waits (at most 10s) until the host's sshd accepts
// connections, as sshd says in its log.
func (n *Net) waitListening(t testing.TB, h *Host) {
	t.Helper()
	for range 200 {
		b, _ := os.ReadFile(h.log)
		if bytes.Contains(b, []byte("Server listening on")) {
			return
		}
		select {
		case <-h.done:
			t.Fatalf("sshtest: sshd for %s exited:\n%s", h.Name, b)
		case <-time.After(50 * time.Millisecond):
		}
	}
	b, _ := os.ReadFile(h.log)
	t.Fatalf("sshtest: sshd for %s does not listen after 10s:\n%s", h.Name, b)
}

// Host returns the host named name.
func (n *Net) Host(name string) *Host {
	for _, h := range n.Hosts {
		if h.Name == name {
			return h
		}
	}
	n.t.Fatalf("sshtest: no host %s", name)
	return nil
}

// Command is an exec.Cmd running ssh to a host with args, from the client
// namespace.
func (n *Net) Command(host string, args ...string) *exec.Cmd {
	return exec.Command(n.SSH, append([]string{"-o", "BatchMode=yes", "--", host}, args...)...)
}

// Exec runs name with args inside the host's namespace (a server that the
// host's vigil must reach on its loopback).
func (h *Host) Exec(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", h.NS, name}, args...)...)
}

// Sessions lists the pids of the sshd processes serving connections to
// the host: children of the sshd this package started.
func (h *Host) Sessions() []int {
	if h.cmd == nil || h.cmd.Process == nil {
		return nil
	}
	return children(h.cmd.Process.Pid)
}

// DropSessions kills the host's connection processes: every connection
// to the host breaks at once, as when the host's sshd dies.
func (h *Host) DropSessions() int {
	pids := h.Sessions()
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}

// CutLink takes the host's network link down: packets vanish, nobody is
// told, as when a switch port or a cable fails.
func (h *Host) CutLink(t testing.TB) {
	t.Helper()
	run(t, "ip", "-n", h.NS, "link", "set", h.link, "down")
}

// Logins counts the ssh logins the host accepted (each is one connection).
func (h *Host) Logins() int {
	b, _ := os.ReadFile(h.log)
	return bytes.Count(b, []byte("Accepted publickey"))
}

// Log is the host's sshd log, for failure reports.
func (h *Host) Log() string {
	b, _ := os.ReadFile(h.log)
	return string(b)
}

// children lists the pids whose parent is pid, from /proc.
func children(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndex(s, ") ")
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+2:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}
