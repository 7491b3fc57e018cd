package monitor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vigil/internal/procfind"
	"vigil/internal/procstat"
)

// portFixture is a /proc with the server (pid 4600) and another process
// (pid 3000) and one socket listening on port 30000, inode 777.
type portFixture struct {
	t    testing.TB
	root string
}

const (
	fixServer = 4600
	fixOther  = 3000
	fixPort   = 30000
)

func newPortFixture(t testing.TB) *portFixture {
	f := &portFixture{t: t, root: procTree(t, fixServer, "S", 0)}
	writeStat(t, f.root, fixOther, "S", 0)
	f.link("self/ns/net", "net:[4026531992]")
	f.netns(fixServer, "net:[4026531992]")
	f.netns(fixOther, "net:[4026531992]")
	f.cmdline(fixServer, "python3", "-m", "sglang.launch_server", "--port", "30000")
	f.write("net/tcp", "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"+
		fmt.Sprintf("   0: 0100007F:%04X 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 777 1 0000000000000000 100 0 0 10 0\n", fixPort))
	return f
}

func (f *portFixture) write(name, data string) {
	f.t.Helper()
	p := filepath.Join(f.root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *portFixture) link(name, target string) {
	f.t.Helper()
	p := filepath.Join(f.root, name)
	_ = os.Remove(p)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		f.t.Fatal(err)
	}
}

func (f *portFixture) netns(pid int, ns string) { f.link(fmt.Sprintf("%d/ns/net", pid), ns) }

func (f *portFixture) cmdline(pid int, argv ...string) {
	f.write(fmt.Sprintf("%d/cmdline", pid), strings.Join(argv, "\x00")+"\x00")
}

// holds gives pid the listening socket and takes it from the others.
func (f *portFixture) holds(pid int) {
	for _, p := range []int{fixServer, fixOther} {
		_ = os.RemoveAll(filepath.Join(f.root, fmt.Sprint(p), "fd"))
		if err := os.MkdirAll(filepath.Join(f.root, fmt.Sprint(p), "fd"), 0o755); err != nil {
			f.t.Fatal(err)
		}
		f.link(fmt.Sprintf("%d/fd/1", p), "/dev/null")
	}
	if pid > 0 {
		f.link(fmt.Sprintf("%d/fd/5", pid), "socket:[777]")
	}
}

func (f *portFixture) monitor() *monitor {
	return &monitor{deps: Deps{Proc: procstat.FS{Root: f.root}, Procs: procfind.FS{Root: f.root}}, notes: make(chan string, 16)}
}

func drainNotes(m *monitor) []string {
	var out []string
	for {
		select {
		case n := <-m.notes:
			out = append(out, n)
		default:
			return out
		}
	}
}

// Every 200 before ready is checked against the port's holder: another
// inference server's answers never count, also when whose the port is
// cannot be told from the server's side (another network namespace), and
// also when the holder changes after a first 200 that was the server's own.
func TestForeignAnswerOnEvery200(t *testing.T) {
	sglang := []string{"python3", "-m", "sglang.launch_server", "--port", "30000"}
	proxy := []string{"/usr/bin/docker-proxy", "-host-port", "30000"}
	type answer struct {
		holder  int    // who holds the socket (0: nobody visible)
		ns      string // the server's network namespace
		foreign bool
	}
	const same, elsewhere = "net:[4026531992]", "net:[4026532111]"
	cases := []struct {
		name    string
		other   []string // the other process's command line
		answers []answer
		notes   int
	}{
		{"another server holds it", sglang, []answer{{fixOther, same, true}, {fixOther, same, true}}, 1},
		{"the server holds it", sglang, []answer{{fixServer, same, false}}, 0},
		{"unknown is not ours when another server holds it", sglang, []answer{{fixOther, elsewhere, true}}, 1},
		{"a proxy holds it", proxy, []answer{{fixOther, same, false}, {fixOther, elsewhere, false}}, 0},
		{"nobody visible holds it", sglang, []answer{{0, elsewhere, false}}, 0},
		{"ours first, then an earlier server's again", sglang, []answer{{fixServer, same, false}, {fixOther, same, true}, {fixOther, same, true}}, 1},
		{"an earlier server's until ours binds", sglang, []answer{{fixOther, same, true}, {fixServer, same, false}, {fixServer, same, false}}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newPortFixture(t)
			f.cmdline(fixOther, tc.other...)
			m := f.monitor()
			var c portCheck
			for i, a := range tc.answers {
				f.holds(a.holder)
				f.netns(fixServer, a.ns)
				if got := c.foreignAnswer(m, fixPort, fixServer); got != a.foreign {
					t.Errorf("answer %d: foreign %v, want %v", i+1, got, a.foreign)
				}
			}
			notes := drainNotes(m)
			if len(notes) != tc.notes {
				t.Fatalf("notes %q, want %d", notes, tc.notes)
			}
			if tc.notes > 0 && !strings.Contains(notes[0], "held by another server, pid 3000") {
				t.Errorf("note %q does not name pid 3000", notes[0])
			}
		})
	}
}
