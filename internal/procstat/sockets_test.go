package procstat

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/procfs"
)

const tcpHeader = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

// tcpFixture writes a /proc tree whose net/tcp and net/tcp6 hold the lines
// given, and whose processes hold the socket inodes given, all in one
// network namespace.
func tcpFixture(t *testing.T, tcp, tcp6 []string, fds map[int][]string) string {
	t.Helper()
	root := t.TempDir()
	write := func(name, s string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	write("net/tcp", tcpHeader+strings.Join(tcp, "\n")+"\n")
	if tcp6 != nil {
		write("net/tcp6", tcpHeader+strings.Join(tcp6, "\n")+"\n")
	}
	link("net:[4026531992]", "self/ns/net")
	for pid, targets := range fds {
		dir := strconv.Itoa(pid)
		link("net:[4026531992]", filepath.Join(dir, "ns/net"))
		if err := os.MkdirAll(filepath.Join(root, dir, "fd"), 0o755); err != nil {
			t.Fatal(err)
		}
		for i, target := range targets {
			link(target, filepath.Join(dir, "fd", strconv.Itoa(i)))
		}
	}
	return root
}

func TestListenInodes(t *testing.T) {
	const (
		v4      = "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 100 0 0 10 0"
		v6      = "   1: 00000000000000000000000000000000:7530 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 100 0 0 10 0"
		est     = "   2: 0100007F:1F90 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 999 1 0000000000000000 100 0 0 10 0"
		noInode = "   3: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 0 1 0000000000000000 100 0 0 10 0"
	)
	tests := []struct {
		name      string
		tcp, tcp6 []string
		port      int
		want      []uint64
	}{
		{"listening v4", []string{v4, est}, nil, 8080, []uint64{123456}},
		{"listening v6", []string{est}, []string{v6}, 30000, []uint64{777}},
		{"another port", []string{v4}, nil, 8000, nil},
		{"established, not listening", []string{est}, nil, 53968, nil},
		{"inode 0", []string{noInode}, nil, 8080, nil},
		{"a table cut short adds nothing", []string{"   0: 0100007F:1F90 00000000:0000 0A"}, []string{v6}, 8080, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pfs, err := procfs.NewFS(tcpFixture(t, tt.tcp, tt.tcp6, nil))
			if err != nil {
				t.Fatal(err)
			}
			got := listenInodes(pfs, tt.port)
			if len(got) != len(tt.want) {
				t.Fatalf("listenInodes = %v, want %v", got, tt.want)
			}
			for _, ino := range tt.want {
				if !got[ino] {
					t.Errorf("listenInodes = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestPortHolderFixture: who holds a listening socket, told from a /proc
// fixture's socket table and descriptor links.
func TestPortHolderFixture(t *testing.T) {
	const listen = "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 100 0 0 10 0"
	fsys := FS{Root: tcpFixture(t, []string{listen}, nil, map[int][]string{
		10: {"/dev/null", "socket:[555]"},
		20: {"pipe:[9]", "socket:[123456]"},
	})}
	tests := []struct {
		name string
		port int
		tree []int
		want PortHolding
	}{
		{"the tree holds it", 8080, []int{10, 20}, HolderTree},
		{"another process holds it", 8080, []int{10}, HolderOther},
		{"nobody listens", 8000, []int{10, 20}, HolderUnknown},
		{"a tree that is gone", 8080, []int{30}, HolderUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fsys.PortHolder(tt.port, tt.tree); got != tt.want {
				t.Errorf("PortHolder = %v, want %v", got, tt.want)
			}
		})
	}
	if got := fsys.PortListener(8080, []int{10}); got != 20 {
		t.Errorf("PortListener = %d, want 20", got)
	}
	if got := fsys.PortListener(8080, []int{20}); got != 0 {
		t.Errorf("PortListener skipping the holder = %d, want 0", got)
	}
}

// TestListenersFixture: the TCP addresses a tree listens on, by port, each
// once; a connected socket and another process's listener are
// not the tree's.
func TestListenersFixture(t *testing.T) {
	const (
		// 127.0.0.1:8080 and 0.0.0.0:41000 listening, 127.0.0.1:5000
		// connected (state 01), [::]:30000 listening.
		loop      = "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 101 1 0000000000000000 100 0 0 10 0"
		any       = "   1: 00000000:A028 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 102 1 0000000000000000 100 0 0 10 0"
		connected = "   2: 0100007F:1388 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 103 1 0000000000000000 100 0 0 10 0"
		v6any     = "   0: 00000000000000000000000000000000:7530 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 104 1 0000000000000000 100 0 0 10 0"
		other     = "   3: 0100007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 105 1 0000000000000000 100 0 0 10 0"
	)
	fsys := FS{Root: tcpFixture(t, []string{loop, any, connected, other}, []string{v6any}, map[int][]string{
		10: {"/dev/null", "socket:[102]", "socket:[103]"},
		11: {"socket:[104]", "socket:[101]", "socket:[102]"},
		99: {"socket:[105]"},
	})}
	tests := []struct {
		name string
		tree []int
		want string
	}{
		{"the tree's, each once", []int{10, 11}, "127.0.0.1:8080 [::]:30000 0.0.0.0:41000"},
		{"one process's", []int{10}, "0.0.0.0:41000"},
		{"a tree that is gone", []int{30}, ""},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, a := range fsys.Listeners(tt.tree) {
				got = append(got, a.String())
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("Listeners(%v) = %q, want %q", tt.tree, s, tt.want)
			}
		})
	}
}
