package gpu

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// reply is what a fake runner answers to one query.
type reply struct {
	out  string
	err  error
	hang bool // block until the context ends, then return its error
}

// fakeRunner answers the GPU query with gpus and the apps query with apps.
func fakeRunner(gpus, apps reply) RunnerFunc {
	return func(ctx context.Context, name string, args ...string) ([]byte, error) {
		if name != "nvidia-smi" {
			return nil, fmt.Errorf("ran %q, want nvidia-smi", name)
		}
		r := apps
		if strings.HasPrefix(args[0], "--query-gpu=") {
			r = gpus
		}
		if r.hang {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return []byte(r.out), r.err
	}
}

func TestClientSnapshot(t *testing.T) {
	h100 := reply{out: string(fixture(t, "h100x8-gpus.csv"))}
	h100Apps := reply{out: string(fixture(t, "h100x8-apps.csv"))}
	notFound := reply{err: &exec.Error{Name: "nvidia-smi", Err: exec.ErrNotFound}}
	tests := []struct {
		name          string
		gpus, apps    reply
		wantAvailable bool
		wantHung      bool
		wantGPUs      int
		wantApps      int
		wantErr       string
		wantSummary   string
	}{
		{name: "8xH100", gpus: h100, apps: h100Apps, wantAvailable: true, wantGPUs: 8, wantApps: 8,
			wantSummary: "8 GPUs, 582.9 GiB of 637.2 GiB used, 99% busy"},
		{name: "not installed", gpus: notFound, apps: notFound,
			wantSummary: "no NVIDIA GPU (nvidia-smi not found)"},
		{name: "driver not loaded", gpus: reply{err: &ExitError{Code: 9, Output: string(fixture(t, "no-driver.txt"))}},
			wantErr:     "nvidia-smi exit status 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
			wantSummary: "no GPU information: nvidia-smi exit status 9: NVIDIA-SMI has failed"},
		{name: "no devices, exit 0", gpus: reply{out: "No devices were found\n"},
			wantErr: "No devices were found"},
		{name: "hangs", gpus: reply{hang: true}, wantHung: true,
			wantErr: "nvidia-smi did not answer within 50ms", wantSummary: "nvidia-smi hung: nvidia-smi did not answer within 50ms"},
		{name: "apps query hangs", gpus: h100, apps: reply{hang: true}, wantAvailable: true, wantHung: true, wantGPUs: 8,
			wantErr: "compute apps: nvidia-smi did not answer within 50ms", wantSummary: "8 GPUs, 582.9 GiB of 637.2 GiB used, 99% busy (then nvidia-smi hung"},
		{name: "fallen off the bus", gpus: reply{out: string(fixture(t, "odd-gpus.csv"))}, apps: reply{},
			wantAvailable: true, wantGPUs: 2,
			wantErr:     "unparsed: Unable to determine the device handle for GPU0000:1B:00.0: Unknown Error",
			wantSummary: "2 GPUs, 0.0 GiB of 95.6 GiB used"},
		{name: "other error", gpus: reply{err: errors.New("fork/exec: permission denied")},
			wantErr: "fork/exec: permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A short timeout only where something hangs: a loaded machine
			// must not turn a prompt fake into a hung one.
			timeout := 10 * time.Second
			if tt.gpus.hang || tt.apps.hang {
				timeout = 50 * time.Millisecond
			}
			c := &Client{Runner: fakeRunner(tt.gpus, tt.apps), Timeout: timeout}
			s := c.Snapshot(t.Context())
			if s.Available != tt.wantAvailable || s.Hung != tt.wantHung {
				t.Errorf("got available %v, hung %v, want %v, %v", s.Available, s.Hung, tt.wantAvailable, tt.wantHung)
			}
			if len(s.GPUs) != tt.wantGPUs || len(s.Apps) != tt.wantApps {
				t.Errorf("got %d GPUs and %d apps, want %d and %d", len(s.GPUs), len(s.Apps), tt.wantGPUs, tt.wantApps)
			}
			if !strings.HasPrefix(s.Err, tt.wantErr) || (tt.wantErr == "") != (s.Err == "") {
				t.Errorf("got error %q, want %q", s.Err, tt.wantErr)
			}
			if tt.wantSummary != "" && !strings.HasPrefix(s.Summary(), tt.wantSummary) {
				t.Errorf("got summary %q, want %q", s.Summary(), tt.wantSummary)
			}
		})
	}
}

func TestClientParentCancelled(t *testing.T) {
	c := &Client{Runner: fakeRunner(reply{hang: true}, reply{}), Timeout: time.Hour}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s := c.Snapshot(ctx)
	if s.Hung || s.Err != "context canceled" {
		t.Errorf("got hung %v, error %q, want false, %q", s.Hung, s.Err, "context canceled")
	}
}

// TestClientStuck checks that while one nvidia-smi has not exited, later
// snapshots say Hung at once instead of starting another.
func TestClientStuck(t *testing.T) {
	tests := []struct {
		name string
		// run answers the first call; release lets the stuck call end.
		run func(release <-chan struct{}) RunnerFunc
	}{
		{
			name: "runner reports a process it could not reap",
			run: func(release <-chan struct{}) RunnerFunc {
				return func(ctx context.Context, _ string, _ ...string) ([]byte, error) {
					<-ctx.Done()
					return nil, &StuckError{Err: ctx.Err(), Done: release}
				}
			},
		},
		{
			name: "runner ignores its context",
			run: func(release <-chan struct{}) RunnerFunc {
				return func(context.Context, string, ...string) ([]byte, error) {
					<-release
					return nil, errors.New("late")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			var calls atomic.Int32
			stuck := tt.run(release)
			healthy := fakeRunner(reply{out: string(fixture(t, "rtx4090-gpus.csv"))}, reply{})
			c := &Client{Timeout: 30 * time.Millisecond, Runner: RunnerFunc(func(ctx context.Context, name string, args ...string) ([]byte, error) {
				if calls.Add(1) == 1 {
					return stuck(ctx, name, args...)
				}
				return healthy(ctx, name, args...)
			})}

			if s := c.Snapshot(t.Context()); !s.Hung {
				t.Fatalf("first call: got %+v, want hung", s)
			}
			start := time.Now()
			s := c.Snapshot(t.Context())
			if !s.Hung || !strings.Contains(s.Err, "has still not exited") {
				t.Errorf("second call: got hung %v, error %q, want hung, still not exited", s.Hung, s.Err)
			}
			if calls.Load() != 1 || time.Since(start) > time.Second {
				t.Errorf("second call: got %d runs taking %v, want 1 run and no waiting", calls.Load(), time.Since(start))
			}

			close(release)
			deadline := time.Now().Add(5 * time.Second)
			for {
				s = c.Snapshot(t.Context())
				if !s.Hung || time.Now().After(deadline) {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			if !s.Available || s.Hung {
				t.Errorf("after release: got %+v, want available", s)
			}
		})
	}
}
