package procfind

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

const btime = 1763000000

// statLine builds a /proc/PID/stat line with the fields procfind reads.
func statLine(pid int, comm string, state byte, ppid int, ticks uint64) string {
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime priority nice threads
	// itrealvalue starttime vsize rss ...
	return fmt.Sprintf("%d (%s) %c %d %d %d 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 8 0 %d 123456789 2000 18446744073709551615\n",
		pid, comm, state, ppid, pid, pid, ticks)
}

type fakeProc struct {
	pid   int
	comm  string
	state byte
	ppid  int
	ticks uint64
	// fds maps descriptor numbers to link targets and fdinfo flags (an
	// empty flags string leaves fdinfo out).
	fds   map[int]fakeFD
	noFDs bool // fd directory missing: vanished or forbidden
}

type fakeFD struct {
	target string
	flags  string
}

// fixture builds a proc tree with the given processes and returns it.
func fixture(t *testing.T, procs []fakeProc) FS {
	t.Helper()
	root := filepath.Join(t.TempDir(), "proc")
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "stat"), "cpu  1 2 3 4\nintr 0\nbtime "+strconv.Itoa(btime)+"\nprocesses 900\n")
	write(filepath.Join(root, "self", "stat"), "not a pid directory")
	for _, p := range procs {
		dir := filepath.Join(root, strconv.Itoa(p.pid))
		write(filepath.Join(dir, "stat"), statLine(p.pid, p.comm, p.state, p.ppid, p.ticks))
		if p.noFDs {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, "fd"), 0o755); err != nil {
			t.Fatal(err)
		}
		for fd, f := range p.fds {
			if err := os.Symlink(f.target, filepath.Join(dir, "fd", strconv.Itoa(fd))); err != nil {
				t.Fatal(err)
			}
			if f.flags != "" {
				write(filepath.Join(dir, "fdinfo", strconv.Itoa(fd)), "pos:\t0\nflags:\t"+f.flags+"\nmnt_id:\t25\nino:\t1234\n")
			}
		}
	}
	return FS{Root: root}
}

func TestWritersOf(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "server.log")
	other := filepath.Join(dir, "other.log")
	for _, f := range []string{log, other} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The same file seen through another path, as from a bind mount.
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(dir, alias); err != nil {
		t.Fatal(err)
	}
	fsys := fixture(t, []fakeProc{
		{pid: 100, comm: "python3", state: 'S', ppid: 1, fds: map[int]fakeFD{
			0: {"/dev/null", "0100000"},
			1: {log, "02102001"}, // O_WRONLY|O_APPEND|O_LARGEFILE|O_CLOEXEC
			2: {log, "02102001"},
		}},
		{pid: 101, comm: "sglang::schedul", state: 'R', ppid: 100, fds: map[int]fakeFD{
			2: {log, "0100002"}, // O_RDWR
		}},
		{pid: 200, comm: "tail", state: 'S', ppid: 1, fds: map[int]fakeFD{
			3: {log, "0100000"}, // read-only: a reader, not a writer
		}},
		{pid: 300, comm: "other", state: 'S', ppid: 1, fds: map[int]fakeFD{
			1: {other, "01"},
		}},
		{pid: 400, comm: "root-owned", state: 'S', ppid: 1, noFDs: true},
		{pid: 500, comm: "vanishing", state: 'S', ppid: 1, fds: map[int]fakeFD{
			1: {log, ""}, // exited between reading fd and fdinfo
		}},
		{pid: 600, comm: "in a container", state: 'S', ppid: 1, fds: map[int]fakeFD{
			1: {filepath.Join(alias, "server.log"), "0101"},
		}},
		{pid: 700, comm: "sock", state: 'S', ppid: 1, fds: map[int]fakeFD{
			5: {"socket:[12345]", "02"},
		}},
		// A vigil run's server writes other.log through vigil's copier:
		// the server and its worker hold the pipe's write end, a reader
		// of another pipe and the copier (which reads it) do not count.
		{pid: 800, comm: CopierComm, state: 'S', ppid: 1, fds: map[int]fakeFD{
			0: {"pipe:[777]", "0"},
			1: {other, "02002001"},
		}},
		{pid: 801, comm: "llama-server", state: 'S', ppid: 799, fds: map[int]fakeFD{
			1: {"pipe:[777]", "01"},
			2: {"pipe:[777]", "01"},
		}},
		{pid: 802, comm: "worker", state: 'S', ppid: 801, fds: map[int]fakeFD{
			2: {"pipe:[777]", "01"},
		}},
		{pid: 803, comm: "cat", state: 'S', ppid: 1, fds: map[int]fakeFD{
			0: {"pipe:[777]", "0"},
			1: {"pipe:[778]", "01"},
		}},
	})

	tests := []struct {
		name string
		path string
		want []int
	}{
		{name: "log", path: log, want: []int{100, 101, 600}},
		{name: "through a symlink", path: filepath.Join(alias, "server.log"), want: []int{100, 101, 600}},
		{name: "other file, and through the copier", path: other, want: []int{300, 801, 802}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fsys.WritersOf(tt.path)
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got writers %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("roots", func(t *testing.T) {
		if got, want := fsys.Roots([]int{100, 101, 600}), []int{100, 600}; !slices.Equal(got, want) {
			t.Errorf("got roots %v, want %v", got, want)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if _, err := fsys.WritersOf(filepath.Join(dir, "none.log")); err == nil {
			t.Error("got nil error, want one")
		}
	})
	t.Run("missing proc", func(t *testing.T) {
		if _, err := (FS{Root: filepath.Join(dir, "no-proc")}).WritersOf(log); err == nil {
			t.Error("got nil error, want one")
		}
	})
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		want      Process
		wantTicks uint64
		wantErr   bool
	}{
		{
			name:      "plain",
			line:      statLine(4242, "python3", 'S', 1, 12345),
			want:      Process{PID: 4242, PPID: 1, Comm: "python3", State: 'S'},
			wantTicks: 12345,
		},
		{
			name:      "comm with spaces and parentheses",
			line:      statLine(7, "a) (b c)", 'Z', 3, 9),
			want:      Process{PID: 7, PPID: 3, Comm: "a) (b c)", State: 'Z'},
			wantTicks: 9,
		},
		{name: "no comm", line: "7 S 1 2 3", wantErr: true},
		{name: "too short", line: "7 (x) S 1 2 3", wantErr: true},
		{name: "bad pid", line: "x (y) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ticks, err := parseStat(tt.line)
			if tt.wantErr {
				if err == nil {
					t.Errorf("got %+v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if got != tt.want || ticks != tt.wantTicks {
				t.Errorf("got %+v, %d ticks; want %+v, %d ticks", got, ticks, tt.want, tt.wantTicks)
			}
		})
	}
}

func TestStartTimeAndExists(t *testing.T) {
	fsys := fixture(t, []fakeProc{
		{pid: 10, comm: "server", state: 'S', ppid: 1, ticks: 12345},
		{pid: 11, comm: "worker", state: 'R', ppid: 10, ticks: 20000},
		{pid: 12, comm: "grandchild", state: 'D', ppid: 11, ticks: 20001},
		{pid: 13, comm: "dead worker", state: 'Z', ppid: 10, ticks: 20002},
		{pid: 20, comm: "unrelated", state: 'S', ppid: 1, ticks: 5},
	})

	got, err := fsys.StartTime(10)
	if want := time.Unix(btime, 0).Add(123450 * time.Millisecond); err != nil || !got.Equal(want) {
		t.Errorf("got start %v, %v; want %v", got, err, want)
	}
	if _, err := fsys.StartTime(99); err == nil {
		t.Error("got nil error for a missing process, want one")
	}

	for _, tt := range []struct {
		pid  int
		want bool
	}{{10, true}, {12, true}, {13, false}, {99, false}, {0, false}, {-1, false}} {
		if got := fsys.Exists(tt.pid); got != tt.want {
			t.Errorf("got Exists(%d) %v, want %v", tt.pid, got, tt.want)
		}
	}

	desc, err := fsys.Descendants(10)
	if want := []int{11, 12, 13}; err != nil || !slices.Equal(desc, want) {
		t.Errorf("got descendants %v, %v; want %v", desc, err, want)
	}
	if desc, _ := fsys.Descendants(20); len(desc) != 0 {
		t.Errorf("got descendants %v, want none", desc)
	}
}

func TestBootTimeMissing(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "stat"), []byte("cpu 1 2 3\n"), 0o644)
	if _, err := (FS{Root: root}).BootTime(); err == nil {
		t.Error("got nil error, want one")
	}
}

// waitFor fails the test if cond does not become true within 2 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// startChild starts a shell command and kills it (by its PID) when the
// test ends.
func startChild(t *testing.T, script string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", script, "sh"}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

func TestRealWriter(t *testing.T) {
	if _, err := os.Stat("/proc/self/fdinfo"); err != nil {
		t.Skip("no /proc here")
	}
	log := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	cmd := startChild(t, `exec 3>>"$1"; exec sleep 5`, log)
	pid := cmd.Process.Pid

	waitFor(t, "the child to open the log", func() bool {
		pids, err := WritersOf(log)
		return err == nil && slices.Contains(pids, pid)
	})
	if !Exists(pid) {
		t.Errorf("got Exists(%d) false, want true", pid)
	}
	start, err := StartTime(pid)
	// btime is whole seconds and starttime is in ticks: allow for both.
	if err != nil || start.Before(before.Add(-2*time.Second)) || start.After(time.Now().Add(2*time.Second)) {
		t.Errorf("got start time %v, %v; want about %v", start, err, before)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if Exists(pid) {
		t.Errorf("got Exists(%d) true after the child was killed and reaped, want false", pid)
	}
}

func TestRealZombie(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	cmd := startChild(t, "exit 0")
	pid := cmd.Process.Pid
	// Not reaped yet: a zombie, which is not alive.
	waitFor(t, "the child to exit", func() bool {
		proc, err := FS{}.Stat(pid)
		return err == nil && proc.State == 'Z'
	})
	if Exists(pid) {
		t.Errorf("got Exists(%d) true for a zombie, want false", pid)
	}
}

func TestRealDescendants(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	cmd := startChild(t, "sleep 5 & wait")
	var kids []int
	waitFor(t, "the child's own child", func() bool {
		kids, _ = Descendants(cmd.Process.Pid)
		return len(kids) == 1
	})
	// Kill the grandchild by its PID, so that the shell's wait ends.
	if err := killPID(kids[0]); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

func killPID(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func TestStill(t *testing.T) {
	fsys := fixture(t, []fakeProc{
		{pid: 10, comm: "python3", state: 'S', ppid: 1, ticks: 5000},
		{pid: 11, comm: "python3", state: 'Z', ppid: 1, ticks: 6000},
	})
	id, err := fsys.Identify(10)
	if err != nil || id != (Identity{PID: 10, StartTicks: 5000}) {
		t.Fatalf("Identify(10) = %+v, %v", id, err)
	}
	tests := []struct {
		name string
		id   Identity
		want bool
	}{
		{"same process", Identity{10, 5000}, true},
		{"pid reused by a later process", Identity{10, 4000}, false},
		{"zombie", Identity{11, 6000}, false},
		{"gone", Identity{12, 7000}, false},
		{"no pid", Identity{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fsys.Still(tt.id); got != tt.want {
				t.Errorf("Still(%+v) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
	if _, err := fsys.Identify(0); err == nil {
		t.Error("Identify(0) succeeded")
	}
}

// TestRealCwd: a process's working directory is its own, not the
// reader's; an ended process has none.
func TestRealCwd(t *testing.T) {
	if _, err := os.Stat("/proc/self/cwd"); err != nil {
		t.Skip("no /proc here")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := startChild(t, `cd "$1" && exec sleep 5`, dir)
	pid := cmd.Process.Pid
	waitFor(t, "the child to change directory", func() bool { return FS{}.Cwd(pid) == dir })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if got := (FS{}).Cwd(pid); got != "" {
		t.Errorf("Cwd of an ended process = %q, want \"\"", got)
	}
}

// TestRealEnviron: a process's environment is the one it started with,
// not the reader's; an ended process has none.
func TestRealEnviron(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc here")
	}
	cmd := exec.Command("sleep", "5")
	cmd.Env = []string{"LLAMA_ARG_PORT=9123", "EMPTY=", "WITH_EQUALS=a=b"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var getenv func(string) string
	// (Until its exec is done, the child's environment is its parent's.)
	waitFor(t, "the child's environment", func() bool {
		getenv = FS{}.Environ(cmd.Process.Pid)
		return getenv != nil && getenv("LLAMA_ARG_PORT") != ""
	})
	for name, want := range map[string]string{"LLAMA_ARG_PORT": "9123", "EMPTY": "", "WITH_EQUALS": "a=b", "HOME": ""} {
		if got := getenv(name); got != want {
			t.Errorf("getenv(%q) = %q, want %q", name, got, want)
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if (FS{}).Environ(cmd.Process.Pid) != nil {
		t.Error("Environ of an ended process is not nil")
	}
}

// TestRealOutputFile: the file a process's output is redirected to is its
// log; output to a pipe, /dev/null or a file since deleted is said to be
// no file.
func TestRealOutputFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc here")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "server.log")
	gone := filepath.Join(dir, "gone.log")
	tests := []struct {
		name, script string
		piped        bool // the child's stdout and stderr are a pipe, else /dev/null
		want, err    string
	}{
		{"stdout to a file", `exec >"$1" 2>&1; exec sleep 5`, true, log, ""},
		{"stderr to a file", `exec 2>"$1"; exec sleep 5`, true, log, ""},
		{"a pipe", `exec sleep 5`, true, "", "its output goes to pipe:["},
		{"/dev/null", `exec sleep 5`, false, "", "its output goes to /dev/null, not to a file"},
		{"a deleted file", `exec >"$2" 2>&1; rm "$2"; exec sleep 5`, false, "", "its output goes to a deleted file, " + gone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(log)
			cmd := exec.Command("sh", "-c", tt.script, "sh", log, gone)
			if tt.piped {
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
			})
			var got string
			var gotErr error
			waitFor(t, "the child's redirections", func() bool {
				got, gotErr = FS{}.OutputFile(cmd.Process.Pid)
				if tt.want != "" {
					return got == tt.want && gotErr == nil
				}
				return gotErr != nil && strings.Contains(gotErr.Error(), tt.err)
			})
		})
	}
}
