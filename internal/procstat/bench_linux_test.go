//go:build linux

package procstat

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// Measured on the development VM (2 vCPUs, Linux 6.18, about 130 processes
// on the machine, load average ~9 from other work; go test -run xxx -bench .
// -benchtime 100x), CPU time per sample from getrusage:
//
//	BenchmarkSample64       1.33-1.37 ms  FS.Tree + FS.Sample of 65 processes (64 sleeps + the test binary)
//	BenchmarkSampler64      0.99-1.07 ms  Sampler.Next of the same tree (link cache)
//	BenchmarkSampleThreads  0.78-0.79 ms  FS.Sample of one process with ~260 threads
//
// So 1 Hz sampling of a 64-process tree costs about 0.13% of one core (0.10%
// with Sampler), well under the 1% budget. The cost grows with the tree's
// threads (about 3 µs per thread for task/TID/stat) and, for FS.Tree, with
// the processes on the machine (one stat read each; Sampler reads only new
// ones). Eight tensor-parallel ranks of ~250 threads would cost ~0.7% at
// 1 Hz; Sampler.ThreadEvery bounds that. Wall-clock ns/op on a loaded
// machine overstates the cost; cpu-ns/op and %core@1Hz are the figures.

// startSleeps starts n "sleep 60" children, killed by PID when b ends.
func startSleeps(b *testing.B, n int) {
	for range n {
		startSleep(b)
	}
}

func reportCPU(b *testing.B, start time.Duration) {
	perOp := float64(selfCPU()-start) / float64(b.N)
	b.ReportMetric(perOp, "cpu-ns/op")
	b.ReportMetric(perOp/1e9*100, "%core@1Hz")
}

func BenchmarkSample64(b *testing.B) {
	startSleeps(b, 64)
	var fsys FS
	self := os.Getpid()
	pids, err := fsys.Tree(self)
	if err != nil || len(pids) != 65 {
		b.Fatalf("got %d processes (%v), want 65", len(pids), err)
	}
	b.ResetTimer()
	start := selfCPU()
	for b.Loop() {
		pids, _ := fsys.Tree(self)
		if _, err := fsys.Sample(pids); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkSampler64(b *testing.B) {
	startSleeps(b, 64)
	s := NewSampler(FS{}, os.Getpid())
	if _, d, err := s.Next(); err != nil || d.Procs != 65 {
		b.Fatalf("got %d processes (%v), want 65", d.Procs, err)
	}
	b.ResetTimer()
	start := selfCPU()
	for b.Loop() {
		if _, _, err := s.Next(); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkSampleThreads samples one process with about 256 threads, the
// size of a tensor-parallel rank (PyTorch, CUDA, NCCL and OpenMP threads), to
// show the per-thread cost of the thread-state count.
func BenchmarkSampleThreads(b *testing.B) {
	release := make(chan struct{})
	defer close(release)
	for range 256 {
		go func() {
			runtime.LockOSThread() // keep this goroutine on its own thread until release
			<-release
		}()
	}
	var fsys FS
	self := os.Getpid()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := fsys.Sample([]int{self})
		if err != nil {
			b.Fatal(err)
		}
		if s.Total.Threads.Total() >= 256 || time.Now().After(deadline) {
			b.ReportMetric(float64(s.Total.Threads.Total()), "threads")
			break
		}
		time.Sleep(time.Millisecond)
	}
	b.ResetTimer()
	start := selfCPU()
	for b.Loop() {
		if _, err := fsys.Sample([]int{self}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}
