package procstat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDiagnoseFixture(t *testing.T) {
	prev := sampleAt(t, fixtureT0, t0, 4100, 4179, 4180, 4181, 4182, 4250)
	cur := sampleAt(t, fixtureT1, t0.Add(time.Second), 4100, 4179, 4180, 4181, 4182, 4301)
	got := map[int]Diagnosis{}
	for _, d := range fixtureT1.DiagnoseSamples(prev, cur) {
		got[d.PID] = d
	}
	tests := []struct {
		name     string
		pid      int
		wantLine string
		wantIdle bool
	}{
		{"launcher", 4100, "pid 4100 python3 (python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruc...): " +
			"sleeping in do_epoll_wait, 1% CPU; 4 threads: 4 sleeping (do_epoll_wait ×2, futex_wait_queue ×2)", true},
		{"resource tracker", 4179, "pid 4179 python3 (/usr/bin/python3 -c from multiprocessing.resource_tracker import main;main(13)): " +
			"sleeping in pipe_read, 0% CPU", true},
		{"busy rank", 4180, "pid 4180 sglang::scheduler_TP0: running, 100% CPU; 6 threads: 1 running, 5 sleeping " +
			"(futex_wait_queue ×3, do_epoll_wait ×1, do_sys_poll ×1)", false},
		{"rank reading weights", 4181, "pid 4181 sglang::scheduler_TP1: waiting for I/O (D state) in folio_wait_bit_common, 50% CPU; " +
			"6 threads: 1 D (I/O wait), 5 sleeping (folio_wait_bit_common ×1, futex_wait_queue ×3, do_epoll_wait ×1)", false},
		{"idle detokenizer", 4182, "pid 4182 sglang::detokenizer: sleeping in do_epoll_wait, 0% CPU; 2 threads: 2 sleeping (do_epoll_wait ×2)", true},
		{"exited orphan", 4250, "pid 4250 ninja: exited", false},
		{"new worker", 4301, "pid 4301 python3 (/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(...): " +
			"running, 12% CPU", false},
	}
	if len(got) != len(tests) {
		t.Errorf("got %d diagnoses, want %d", len(got), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := got[tt.pid]
			if !ok {
				t.Fatalf("got no diagnosis of %d", tt.pid)
			}
			if s := d.String(); s != tt.wantLine {
				t.Errorf("got  %q,\nwant %q", s, tt.wantLine)
			}
			if d.Idle() != tt.wantIdle {
				t.Errorf("got idle %v, want %v", d.Idle(), tt.wantIdle)
			}
		})
	}
}

func TestSamplerDiagnose(t *testing.T) {
	now := t0
	s := NewSampler(fixtureT0, 4100)
	s.Now = func() time.Time { return now }
	if _, _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if got := len(s.Diagnose()); got != 6 {
		t.Errorf("after one sample: got %d diagnoses, want 6", got)
	}
	s.FS, now = fixtureT1, now.Add(time.Second)
	if _, _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	ds := s.Diagnose()
	if got, want := len(ds), 7; got != want {
		t.Fatalf("got %d diagnoses, want %d", got, want)
	}
	if got, want := ds[2].String(), "pid 4180 sglang::scheduler_TP0: running, 100% CPU"; !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want prefix %q", got, want)
	}
}

func TestDisplayName(t *testing.T) {
	tests := []struct {
		name, comm, title, want string
	}{
		{"no title (kernel thread)", "kthreadd", "", "kthreadd"},
		{"title is comm", "sleep", "sleep", "sleep"},
		{"setproctitle extends truncated comm", "sglang::schedul", "sglang::scheduler_TP1", "sglang::scheduler_TP1"},
		{"command line", "python3", "python3 -m vllm.entrypoints.openai.api_server", "python3 (python3 -m vllm.entrypoints.openai.api_server)"},
		{"short comm that prefixes the title", "py", "python3 x", "py (python3 x)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := displayName(tt.comm, tt.title); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWchan(t *testing.T) {
	tests := []struct {
		name string
		pid  int
		want string
	}{
		{"sleeping", 4182, "do_epoll_wait"},
		{"disk wait", 4181, "folio_wait_bit_common"},
		{"running shows 0", 4180, ""},
		{"gone", 9999, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fixtureT0.Wchan(tt.pid); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDiagnoseContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := fixtureT0.Diagnose(ctx, []int{4100}, time.Hour)
	if err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
	ds, err := fixtureT0.Diagnose(t.Context(), []int{4182}, time.Millisecond)
	if err != nil || len(ds) != 1 || !ds[0].Idle() {
		t.Errorf("got %v, %v, want one idle process", ds, err)
	}
}

// fakeOnPath puts an executable shell script called name first on PATH.
func fakeOnPath(t *testing.T, name, script string) {
	t.Helper()
	dir := t.TempDir()
	if script != "" {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestPySpyDump(t *testing.T) {
	const stack = `Process 4181: sglang::scheduler_TP1
Python v3.12.3 (/usr/bin/python3.12)

Thread 4181 (idle): "MainThread"
    barrier (torch/distributed/distributed_c10d.py:4166)
    init_torch_distributed (sglang/srt/model_executor/model_runner.py:512)
`
	tests := []struct {
		name       string
		script     string // the fake py-spy's body
		timeout    time.Duration
		want       string
		wantErr    string
		hidePySpy  bool
		checkQuick bool
	}{
		{name: "not installed", hidePySpy: true},
		{name: "dump", script: "[ \"$1 $2 $3\" = \"dump --pid 4181\" ] || exit 3\ncat <<'X'\n" + stack + "X\n", want: stack},
		{name: "no permission", script: "echo 'Error: Permission denied (os error 13)' >&2\nexit 1\n",
			wantErr: "Permission denied (os error 13)"},
		{name: "hangs", script: "exec sleep 30\n", timeout: 300 * time.Millisecond, wantErr: "deadline exceeded", checkQuick: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.hidePySpy {
				t.Setenv("PATH", t.TempDir())
			} else {
				fakeOnPath(t, "py-spy", tt.script)
			}
			ctx := t.Context()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			start := time.Now()
			got, err := PySpyDump(ctx, 4181)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("got error %v, want %q", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if tt.checkQuick && time.Since(start) > 5*time.Second {
				t.Errorf("got %v to give up, want well under 5s", time.Since(start))
			}
		})
	}
}
