package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vigil/internal/procfind"
	v "vigil/internal/verdict"
)

// vigil's ancestors (timeout, a wrapper script) and descendants (the
// server it launched) are never "another server"; others are.
func TestOwnKin(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "stat"), []byte("cpu 1 2 3\nbtime 1700000000\n"), 0o644)
	// 1 init -> 10 sh -> 20 timeout -> 30 bash wrapper.sh -> 40 vigil -> 50 server -> 60 worker; 70 another server under init;
	// 35, a subshell of the wrapper (its command line), and 36, a server the wrapper started before vigil.
	procs := map[int]int{1: 0, 10: 1, 20: 10, 30: 20, 35: 30, 36: 30, 40: 30, 50: 40, 60: 50, 70: 1}
	cmdlines := map[int]string{30: "bash\x00wrapper.sh\x00sglang\x00", 35: "bash\x00wrapper.sh\x00sglang\x00", 36: "python3\x00-m\x00sglang.launch_server\x00"}
	for pid, ppid := range procs {
		dir := filepath.Join(root, fmt.Sprint(pid))
		os.MkdirAll(dir, 0o755)
		line := fmt.Sprintf("%d (p%d) S %d %d %d 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 8 0 100 123456789 2000 18446744073709551615\n", pid, pid, ppid, pid, pid)
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		if c, ok := cmdlines[pid]; ok {
			if err := os.WriteFile(filepath.Join(dir, "cmdline"), []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	kin := ownKin(procfind.FS{Root: root}, 40)
	for _, tc := range []struct {
		pid  int
		want bool
	}{{10, true}, {20, true}, {30, true}, {35, true}, {36, false}, {40, true}, {50, true}, {60, true}, {70, false}} {
		if kin[tc.pid] != tc.want {
			t.Errorf("pid %d: kin %v, want %v", tc.pid, kin[tc.pid], tc.want)
		}
	}
}

// TestPortToCheck: a server told to take any port (--port 0) has no port
// to find taken before it starts; a port given, or a URL given, has.
func TestPortToCheck(t *testing.T) {
	const base = "http://127.0.0.1:8080"
	tests := []struct {
		name    string
		guessed bool
		argv    []string
		want    string
	}{
		{"port 0", true, []string{"llama-server", "--port", "0", "-m", "x.gguf"}, ""},
		{"port=0", true, []string{"llama-server", "--port=0"}, ""},
		{"a port", true, []string{"llama-server", "--port", "8080"}, base},
		{"no port", true, []string{"llama-server", "-m", "x.gguf"}, base},
		{"given URL", false, []string{"llama-server", "--port", "0"}, base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := portToCheck(base, tt.guessed, tt.argv); got != tt.want {
				t.Errorf("portToCheck = %q, want %q", got, tt.want)
			}
		})
	}
	if f := preflightPort(""); f != nil {
		t.Errorf("preflightPort(\"\") = %v, want nothing checked", f)
	}
}

// TestPreflightSocket: a Unix socket something listens on is taken; a
// socket file nothing listens on (its server was killed) blocks the bind;
// no file is no finding.
func TestPreflightSocket(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "live.sock")
	l, err := net.Listen("unix", live)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	stale := filepath.Join(dir, "stale.sock")
	sl, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	sl.(*net.UnixListener).SetUnlinkOnClose(false)
	sl.Close()
	tests := []struct {
		name, sock string
		cause      v.Cause
		text       string
	}{
		{"listening", live, v.PortInUse, "something already listens on the Unix socket"},
		{"stale file", stale, v.Config, "a socket file is left at"},
		{"no file", filepath.Join(dir, "none.sock"), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := preflightPort("unix://" + tt.sock)
			if tt.text == "" {
				if len(f) != 0 {
					t.Errorf("findings %v, want none", f)
				}
				return
			}
			if len(f) != 1 || f[0].cause != tt.cause || !strings.Contains(f[0].text, tt.text) {
				t.Errorf("findings %v, want one of cause %s saying %q", f, tt.cause, tt.text)
			}
		})
	}
}

// TestPreflightAddress: a --host address that none of the interfaces has
// is named, as is a --port above 65535; this machine's, a loopback or
// wildcard one, a name, a given --url and a socket are not checked
// against them.
func TestPreflightAddress(t *testing.T) {
	own := func() ([]net.Addr, error) {
		return []net.Addr{
			&net.IPNet{IP: net.ParseIP("127.0.0.1"), Mask: net.CIDRMask(8, 32)},
			&net.IPNet{IP: net.ParseIP("10.0.0.7"), Mask: net.CIDRMask(24, 32)},
			&net.IPNet{IP: net.ParseIP("fd00::7"), Mask: net.CIDRMask(64, 128)},
		}, nil
	}
	tests := []struct {
		name    string
		base    string
		guessed bool
		want    bool
	}{
		{"another machine's", "http://10.9.9.9:8080", true, true},
		{"another machine's, IPv6", "http://[fd00::9]:8080", true, true},
		{"this machine's", "http://10.0.0.7:8080", true, false},
		{"this machine's, IPv6", "http://[fd00::7]:8080", true, false},
		{"loopback", "http://127.0.0.2:8080", true, false},
		{"a name", "http://gpu-07:8080", true, false},
		{"a given --url", "http://10.9.9.9:8080", false, false},
		{"a socket", "unix:///run/l.sock", true, false},
		{"no TCP port", "http://127.0.0.1:99999", true, true},
		{"the last TCP port", "http://127.0.0.1:65535", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := preflightAddress(tt.base, tt.guessed, own)
			if got := len(f) > 0; got != tt.want {
				t.Fatalf("preflightAddress(%q) = %v, want a finding: %v", tt.base, f, tt.want)
			}
			flag := "--host"
			if strings.Contains(tt.name, "port") {
				flag = "--port"
			}
			if tt.want && (f[0].cause != v.Config || !strings.Contains(f[0].text, flag)) {
				t.Errorf("finding %+v; want config, naming %s", f[0], flag)
			}
			if tt.want {
				if r := preflightRefusal(f, time.Time{}); r.Cause != v.Config || !strings.Contains(r.Hint, flag) {
					t.Errorf("--preflight=strict refuses with %s: %q; want config and a hint about %s", r.Cause, r.Hint, flag)
				}
			}
		})
	}
	broken := func() ([]net.Addr, error) { return nil, errors.New("no netlink") }
	if f := preflightAddress("http://10.9.9.9:8080", true, broken); f != nil {
		t.Errorf("with the interfaces unknown: %v, want nothing said", f)
	}
}
