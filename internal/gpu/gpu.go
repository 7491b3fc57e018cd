// Package gpu reads GPU memory, utilisation and per-process GPU memory from
// nvidia-smi, for vigil's "stuck or slow?" evidence: GPU memory that grows is
// a server loading weights or capturing CUDA graphs even when its log is
// silent.
//
// nvidia-smi runs as a child process with a timeout (nvidia-smi links the
// driver's library at run time, so vigil stays CGO_ENABLED=0). A machine
// without nvidia-smi is no error: the snapshot just says Available=false. A
// nvidia-smi that does not answer in time is evidence in its own right (a GPU
// fallen off the bus, a wedged driver): the snapshot says Hung=true.
package gpu

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout bounds one nvidia-smi query; a healthy one answers in well
// under a second, even with eight GPUs.
const DefaultTimeout = 5 * time.Second

// Unknown stands for a value nvidia-smi reported as "[N/A]", "[Not
// Supported]" or similar.
const Unknown = -1

// The two queries, fixed so that the parsers know the columns.
var (
	GPUQuery = []string{"--query-gpu=index,uuid,name,memory.used,memory.total,utilization.gpu", "--format=csv,noheader,nounits"}
	AppQuery = []string{"--query-compute-apps=pid,gpu_uuid,used_memory", "--format=csv,noheader,nounits"}
)

// GPU is one device.
type GPU struct {
	Index       int
	UUID        string
	Name        string
	MemUsedMiB  int64 // Unknown when not reported
	MemTotalMiB int64 // Unknown when not reported
	UtilPct     int   // Unknown when not reported
}

// App is one process holding GPU memory. Inside a container nvidia-smi may
// show host PIDs, which differ from the container's.
type App struct {
	PID      int
	GPUUUID  string
	GPUIndex int   // Unknown when the UUID matches no GPU of the snapshot
	UsedMiB  int64 // Unknown when not reported (MIG, some drivers)
}

// Snapshot is what nvidia-smi said at one moment.
type Snapshot struct {
	GPUs []GPU
	Apps []App
	// Available is true when nvidia-smi ran and listed at least one GPU.
	Available bool
	// Hung is true when nvidia-smi did not answer in time, or an earlier
	// call that did not answer has still not exited.
	Hung bool
	// Err says what went wrong: nvidia-smi's own message when it failed,
	// lines that could not be parsed, a timeout. "" when all went well or
	// nvidia-smi is simply not installed.
	Err string
	// Took is how long the queries took.
	Took time.Duration
}

// UsedMiB is the memory in use over all GPUs whose usage is known.
func (s Snapshot) UsedMiB() int64 {
	var n int64
	for _, g := range s.GPUs {
		if g.MemUsedMiB > 0 {
			n += g.MemUsedMiB
		}
	}
	return n
}

// BusyMemMiB is how far GPU memory in use must move between two snapshots
// to count as progress.
const BusyMemMiB = 64

// Progress reports whether GPU memory in use moved by at least BusyMemMiB
// since prev, up (weights, KV cache, CUDA graphs) or down. Utilisation is
// deliberately left out: a rank stuck in an NCCL collective spins at 100%.
func (s Snapshot) Progress(prev Snapshot) bool {
	if !s.Available || !prev.Available {
		return false
	}
	d := s.UsedMiB() - prev.UsedMiB()
	return d >= BusyMemMiB || -d >= BusyMemMiB
}

// ProcessMiB is the GPU memory held by the given processes (a server's
// tree), over all GPUs, counting only known values.
func (s Snapshot) ProcessMiB(pids []int) int64 {
	want := make(map[int]bool, len(pids))
	for _, p := range pids {
		want[p] = true
	}
	var n int64
	for _, a := range s.Apps {
		if want[a.PID] && a.UsedMiB > 0 {
			n += a.UsedMiB
		}
	}
	return n
}

// Summary is a one-line account for evidence: "8 GPUs, 571.4 GiB of 637.2
// GiB used, 97% busy" or why there is nothing to say.
func (s Snapshot) Summary() string {
	switch {
	case s.Hung && !s.Available:
		return "nvidia-smi hung: " + s.Err
	case !s.Available && s.Err != "":
		return "no GPU information: " + s.Err
	case !s.Available:
		return "no NVIDIA GPU (nvidia-smi not found)"
	}
	var used, total int64
	util, utilN := 0, 0
	for _, g := range s.GPUs {
		if g.MemUsedMiB >= 0 && g.MemTotalMiB > 0 {
			used += g.MemUsedMiB
			total += g.MemTotalMiB
		}
		if g.UtilPct >= 0 {
			util += g.UtilPct
			utilN++
		}
	}
	out := fmt.Sprintf("%d GPU", len(s.GPUs))
	if len(s.GPUs) != 1 {
		out += "s"
	}
	if total > 0 {
		out += fmt.Sprintf(", %.1f GiB of %.1f GiB used", float64(used)/1024, float64(total)/1024)
	}
	if utilN > 0 {
		out += fmt.Sprintf(", %d%% busy", util/utilN)
	}
	if s.Hung {
		out += " (then nvidia-smi hung: " + s.Err + ")"
	}
	return out
}

// Runner runs a command and returns its standard output. It must stop the
// command when ctx ends and return ctx's error. When the command is not
// installed the error must wrap exec.ErrNotFound; when it exits non-zero the
// error should be an *ExitError.
type Runner interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, name string, args ...string) ([]byte, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	return f(ctx, name, args...)
}

// ExitError is a command that exited with a non-zero status.
type ExitError struct {
	Code   int
	Output string // what it printed, stdout and stderr (nvidia-smi prints its errors on stdout)
}

func (e *ExitError) Error() string {
	msg := firstLine(e.Output)
	if msg == "" {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return fmt.Sprintf("exit status %d: %s", e.Code, msg)
}

// StuckError is returned by a Runner that killed a timed-out command but
// could not reap it: a process blocked in the driver ignores SIGKILL until
// the driver lets go. Done is closed once it has finally exited.
type StuckError struct {
	Err  error // the context's error
	Done <-chan struct{}
}

func (e *StuckError) Error() string { return e.Err.Error() + " (nvidia-smi ignores SIGKILL)" }
func (e *StuckError) Unwrap() error { return e.Err }

// Client queries nvidia-smi. A Client remembers a call that has not exited
// and, until it does, answers Hung at once instead of starting another
// nvidia-smi that would hang the same way. The zero value is ready to use;
// it is safe for concurrent use.
type Client struct {
	// Runner runs nvidia-smi; nil means Exec.
	Runner Runner
	// Timeout bounds each query; 0 means DefaultTimeout.
	Timeout time.Duration

	mu      sync.Mutex
	pending <-chan struct{} // closed when an abandoned call ends
	since   time.Time       // when the abandoned call started
}

// Query takes a snapshot with a fresh Client and the real nvidia-smi.
func Query(ctx context.Context) Snapshot {
	var c Client
	return c.Snapshot(ctx)
}

// Snapshot runs the GPU query and then, if that worked, the compute-apps
// query.
func (c *Client) Snapshot(ctx context.Context) Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	if c.pending != nil {
		select {
		case <-c.pending:
			c.pending = nil
		default:
			return Snapshot{Hung: true, Err: fmt.Sprintf("nvidia-smi started %s ago has still not exited",
				time.Since(c.since).Round(time.Second))}
		}
	}
	var s Snapshot
	out, err := c.run(ctx, GPUQuery)
	s.Took = time.Since(start)
	if err != nil {
		c.explain(ctx, &s, err)
		return s
	}
	gpus, bad := ParseGPUs(out)
	s.GPUs = gpus
	s.Available = len(gpus) > 0
	if !s.Available {
		s.Err = firstLine(string(out))
		return s
	}
	out, err = c.run(ctx, AppQuery)
	s.Took = time.Since(start)
	if err != nil {
		c.explain(ctx, &s, err)
		s.Err = "compute apps: " + s.Err
		return s
	}
	apps, badApps := ParseApps(out, gpus)
	s.Apps = apps
	if bad = append(bad, badApps...); len(bad) > 0 {
		s.Err = "unparsed: " + strings.Join(bad, " | ")
	}
	return s
}

// run runs one query under the timeout, without waiting for a Runner that
// ignores its context.
func (c *Client) run(ctx context.Context, args []string) ([]byte, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r := c.Runner
	if r == nil {
		r = Exec
	}
	type result struct {
		out []byte
		err error
	}
	res := make(chan result, 1)
	done := make(chan struct{})
	started := time.Now()
	go func() {
		out, err := r.Run(ctx, "nvidia-smi", args...)
		res <- result{out, err}
		var stuck *StuckError
		if errors.As(err, &stuck) {
			<-stuck.Done
		}
		close(done)
	}()
	select {
	case r := <-res:
		var stuck *StuckError
		if errors.As(r.err, &stuck) {
			c.pending, c.since = done, started
		}
		return r.out, r.err
	case <-ctx.Done():
		c.pending, c.since = done, started
		return nil, ctx.Err()
	}
}

// explain turns a Runner error into the snapshot's fields.
func (c *Client) explain(ctx context.Context, s *Snapshot, err error) {
	var exit *ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound):
		// Not installed: no GPU to report, nothing wrong.
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		s.Hung = true
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		s.Err = fmt.Sprintf("nvidia-smi did not answer within %s", timeout)
	case ctx.Err() != nil:
		s.Err = ctx.Err().Error()
	case errors.As(err, &exit):
		s.Err = "nvidia-smi " + exit.Error()
	default:
		s.Err = err.Error()
	}
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// Wait waits up to d for an nvidia-smi that the client gave up on to be
// killed and reaped, so that a program about to exit leaves none behind
// (each runs in its own process group, which outlives its parent).
func (c *Client) Wait(d time.Duration) {
	c.mu.Lock()
	pending := c.pending
	c.mu.Unlock()
	if pending == nil {
		return
	}
	select {
	case <-pending:
	case <-time.After(d):
	}
}
