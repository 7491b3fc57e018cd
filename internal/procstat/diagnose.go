package procstat

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// IdleCPU is the CPU use, in cores, below which one process counts as idle
// in a diagnosis (a Python process with a few polling threads uses less).
const IdleCPU = 0.05

// Diagnosis says what one process was doing between two samples.
type Diagnosis struct {
	PID   int
	Comm  string
	Title string // the command line, or the title set with setproctitle
	State byte   // main thread's state
	Wchan string // kernel function the main thread sleeps in; "" if unknown
	CPU   float64
	// Threads counts the threads by state; ThreadWchans says where the
	// threads wait (at most 3): where threads are in D state first, then the
	// most common.
	Threads      ThreadStates
	ThreadWchans []WaitCount
	Gone         bool // the process exited between the samples
}

// WaitCount is how many threads sleep in one kernel function.
type WaitCount struct {
	Wchan string
	N     int
}

// Idle reports whether the process used almost no CPU and none of its
// threads is running or waiting for I/O.
func (d Diagnosis) Idle() bool {
	return !d.Gone && d.CPU < IdleCPU && d.Threads.Running == 0 && d.Threads.DiskWait == 0
}

// String renders the diagnosis as one line, for example
// "pid 4181 sglang::scheduler_TP1: sleeping in futex_wait_queue, 0% CPU; 6 threads: 6 sleeping (futex_wait_queue ×4, do_epoll_wait ×2)".
func (d Diagnosis) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pid %d %s", d.PID, displayName(d.Comm, d.Title))
	if d.Gone {
		b.WriteString(": exited")
		return b.String()
	}
	b.WriteString(": ")
	b.WriteString(stateWord(d.State))
	if d.Wchan != "" && d.State != 'R' {
		b.WriteString(" in ")
		b.WriteString(d.Wchan)
	}
	fmt.Fprintf(&b, ", %.0f%% CPU", d.CPU*100)
	if n := d.Threads.Total(); n > 1 {
		fmt.Fprintf(&b, "; %d threads: %s", n, d.Threads)
		if len(d.ThreadWchans) > 0 {
			var ws []string
			for _, w := range d.ThreadWchans {
				ws = append(ws, fmt.Sprintf("%s ×%d", w.Wchan, w.N))
			}
			fmt.Fprintf(&b, " (%s)", strings.Join(ws, ", "))
		}
	}
	return b.String()
}

// displayName prefers a process title that extends the 15-byte comm
// ("sglang::schedul" → "sglang::scheduler_TP1") and otherwise shows the
// command line in parentheses.
func displayName(comm, title string) string {
	switch {
	case title == "" || title == comm:
		return comm
	case strings.HasPrefix(title, comm) && len(comm) >= 15:
		first, _, _ := strings.Cut(title, " ")
		return first
	}
	return comm + " (" + title + ")"
}

func stateWord(s byte) string {
	switch s {
	case 'R':
		return "running"
	case 'S', 'I':
		return "sleeping"
	case 'D':
		return "waiting for I/O (D state)"
	case 'T', 't':
		return "stopped"
	case 'Z':
		return "zombie"
	case 'X', 'x':
		return "dead"
	}
	return "state " + string(s)
}

// Wchan returns the kernel function pid's main thread sleeps in, or "" when
// the process runs, is gone, or the kernel does not say (it shows "0" to
// readers without ptrace access).
func (fsys FS) Wchan(pid int) string {
	var r reader
	return fsys.wchan(&r, fsys.path(pid, "wchan"))
}

func (fsys FS) wchan(r *reader, path string) string {
	b, err := r.read(path)
	if err != nil {
		return ""
	}
	w := string(bytes.TrimSpace(b))
	if w == "0" {
		return ""
	}
	return w
}

// TitleMax bounds the command line shown in a diagnosis.
const TitleMax = 80

// Title returns pid's command line with NULs turned into spaces, cut to
// TitleMax bytes: "python3 -m sglang.launch_server --model-path ...", or the
// title a process set for itself ("sglang::scheduler_TP0").
func (fsys FS) Title(pid int) string {
	var r reader
	return fsys.title(&r, pid)
}

func (fsys FS) title(r *reader, pid int) string {
	b, err := r.read(fsys.path(pid, "cmdline"))
	if err != nil {
		return ""
	}
	s := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\x00", " ")), " ")
	if len(s) > TitleMax {
		s = s[:TitleMax-3] + "..."
	}
	return s
}

// DiagnoseSamples explains each process of cur: its state, where it sleeps
// (read now from /proc/PID/wchan and task/*/wchan), and its CPU use between
// prev and cur. Processes of prev missing from cur are reported as gone.
// Lines come in PID order.
func (fsys FS) DiagnoseSamples(prev, cur Sample) []Diagnosis {
	before := make(map[key]Proc, len(prev.Procs))
	for _, p := range prev.Procs {
		before[p.key()] = p
	}
	sec := cur.At.Sub(prev.At).Seconds()
	var r reader
	var out []Diagnosis
	for _, p := range cur.Procs {
		d := Diagnosis{PID: p.PID, Comm: p.Comm, State: p.State, Threads: p.Threads}
		used := p.CPU // a process that appeared counts from its start
		if old, ok := before[p.key()]; ok {
			delete(before, p.key())
			used -= old.CPU
		}
		if sec > 0 {
			d.CPU = used.Seconds() / sec
		}
		d.Title = fsys.title(&r, p.PID)
		d.Wchan = fsys.wchan(&r, fsys.path(p.PID, "wchan"))
		d.ThreadWchans = fsys.threadWchans(&r, p.PID, 3)
		out = append(out, d)
	}
	for _, p := range before {
		out = append(out, Diagnosis{PID: p.PID, Comm: p.Comm, State: p.State, Gone: true})
	}
	slices.SortFunc(out, func(a, b Diagnosis) int { return a.PID - b.PID })
	return out
}

// threadWchans counts where the threads of pid sleep: kernel functions
// holding a thread in D state first, then the most common.
func (fsys FS) threadWchans(r *reader, pid, top int) []WaitCount {
	dir := fsys.path(pid, "task")
	names, err := readDirNames(dir)
	if err != nil {
		return nil
	}
	counts := map[string]int{}
	disk := map[string]bool{}
	for _, name := range names {
		w := fsys.wchan(r, dir+"/"+name+"/wchan")
		if w == "" {
			continue
		}
		counts[w]++
		if b, err := r.read(dir + "/" + name + "/stat"); err == nil {
			if s, ok := threadState(b); ok && s == 'D' {
				disk[w] = true
			}
		}
	}
	var out []WaitCount
	for w, n := range counts {
		out = append(out, WaitCount{w, n})
	}
	slices.SortFunc(out, func(a, b WaitCount) int {
		if disk[a.Wchan] != disk[b.Wchan] {
			if disk[a.Wchan] {
				return -1
			}
			return 1
		}
		return cmp.Or(b.N-a.N, strings.Compare(a.Wchan, b.Wchan))
	})
	if len(out) > top {
		out = out[:top]
	}
	return out
}

// Diagnose samples pids twice, window apart, and explains each process (see
// DiagnoseSamples). It returns early with ctx's error when ctx ends.
func (fsys FS) Diagnose(ctx context.Context, pids []int, window time.Duration) ([]Diagnosis, error) {
	prev, err := fsys.Sample(pids)
	if err != nil && len(prev.Procs) == 0 {
		return nil, err
	}
	t := time.NewTimer(window)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	}
	cur, err := fsys.Sample(pids)
	return fsys.DiagnoseSamples(prev, cur), err
}

// PySpyTimeout bounds one py-spy dump.
const PySpyTimeout = 10 * time.Second

// PySpyDump returns the Python stacks of pid's threads from "py-spy dump
// --pid PID". When py-spy is not on PATH it returns "", nil: the dump is a
// bonus, not a requirement. It gives up after PySpyTimeout. On failure the
// error carries py-spy's own message (py-spy needs ptrace rights: same user
// and ptrace_scope 0, or CAP_SYS_PTRACE).
func PySpyDump(ctx context.Context, pid int) (string, error) {
	path, err := exec.LookPath("py-spy")
	if err != nil {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, PySpyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "dump", "--pid", strconv.Itoa(pid))
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		return stdout.String(), fmt.Errorf("py-spy dump --pid %d: %w", pid, ctx.Err())
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		return stdout.String(), fmt.Errorf("py-spy dump --pid %d: %w: %s", pid, err, msg)
	}
	return stdout.String(), nil
}
