package multinode

import (
	"slices"
	"strings"
	"testing"
	"time"

	v "vigil/internal/verdict"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func out(verdict v.Verdict, cause v.Cause, phase v.Phase, s float64, summary string, evidence ...string) *Outcome {
	return &Outcome{Verdict: verdict, Cause: cause, Phase: phase, At: at(s), Summary: summary, Evidence: evidence, Hint: summary + " hint"}
}

func node(rank int, o *Outcome) Member {
	m := Member{Host: []string{"node0", "node1", "node2"}[rank], Rank: rank, Serving: rank == 0, Outcome: o}
	if o != nil {
		m.Phase = o.Phase
	}
	return m
}

func running(rank int, phase v.Phase, progressing bool) Member {
	m := node(rank, nil)
	m.Phase, m.Progressing = phase, progressing
	return m
}

func TestJudge(t *testing.T) {
	tests := []struct {
		name      string
		members   []Member
		verdict   v.Verdict
		cause     v.Cause
		phase     v.Phase
		root      string
		evidence  string
		echoState []string // the echoes' states, in rank order
	}{
		{
			name: "every member ready",
			members: []Member{
				node(1, out(v.Ready, "", v.PhaseReady, 80, "ready")),
				node(0, out(v.Ready, "", v.PhaseReady, 90, "ready")),
			},
			verdict: v.Ready, phase: v.PhaseReady, root: "node0", echoState: []string{"ready"},
		},
		{
			name: "serving member not ready yet",
			members: []Member{
				running(0, v.Warmup, true),
				node(1, out(v.Ready, "", v.PhaseReady, 80, "ready")),
			},
		},
		{
			name: "node 1 cannot reach the rendezvous; node 0 waits",
			members: []Member{
				running(0, v.Distributed, false),
				node(1, out(v.Failed, v.NCCL, v.Distributed, 12, "torch.distributed init timed out", "DistNetworkError: connect to 10.20.0.11:5000 timed out")),
			},
			verdict: v.Failed, cause: v.NCCL, phase: v.Distributed, root: "node1",
			evidence: "DistNetworkError", echoState: []string{"waiting"},
		},
		{
			name: "node 0 dies, node 1 hangs",
			members: []Member{
				node(0, out(v.Failed, v.Crash, v.Weights, 40, "died of SIGSEGV", "Fatal Python error: Segmentation fault")),
				running(1, v.Distributed, false),
			},
			verdict: v.Failed, cause: v.Crash, phase: v.Weights, root: "node0",
			evidence: "Segmentation fault", echoState: []string{"waiting"},
		},
		{
			name: "a peer's NCCL timeout echoes the earlier crash",
			members: []Member{
				node(0, out(v.Failed, v.Crash, v.Weights, 40, "died of SIGSEGV", "Segmentation fault")),
				node(1, out(v.Failed, v.NCCL, v.Distributed, 640, "NCCL watchdog timeout", "Watchdog caught collective operation timeout")),
			},
			verdict: v.Failed, cause: v.Crash, root: "node0", phase: v.Weights,
			evidence: "Segmentation fault", echoState: []string{"failed"},
		},
		{
			name: "NCCL error first, the OOM kill that caused it a moment later",
			members: []Member{
				node(0, out(v.Failed, v.NCCL, v.Distributed, 50, "NCCL error: remote process exited", "ncclRemoteError")),
				node(1, out(v.Failed, v.HostOOM, v.Weights, 52, "killed by the OOM killer", "Out of memory: Killed process 4242")),
			},
			verdict: v.Failed, cause: v.HostOOM, root: "node1", phase: v.Weights,
			evidence: "Out of memory", echoState: []string{"failed"},
		},
		{
			name: "an NCCL failure long before another failure stays the root",
			members: []Member{
				node(0, out(v.Failed, v.NCCL, v.Distributed, 10, "NCCL unhandled system error", "ncclSystemError")),
				node(1, out(v.Failed, v.Exception, v.Weights, 100, "traceback", "RuntimeError")),
			},
			verdict: v.Failed, cause: v.NCCL, root: "node0", phase: v.Distributed,
			evidence: "ncclSystemError", echoState: []string{"failed"},
		},
		{
			name: "one stalled, another still progressing: undecided",
			members: []Member{
				node(0, out(v.Stalled, "", v.Weights, 300, "no progress")),
				running(1, v.Weights, true),
			},
		},
		{
			name: "no member progresses: stalled, root the one hung outside distributed",
			members: []Member{
				node(0, out(v.Stalled, "", v.Distributed, 200, "waiting for peers")),
				node(1, out(v.Stalled, "", v.Weights, 300, "no progress in weight loading")),
				running(2, v.Distributed, false),
			},
			verdict: v.Stalled, phase: v.Weights, root: "node1", echoState: []string{"stalled", "waiting"},
		},
		{
			name: "stalled members all in distributed: the first to stall",
			members: []Member{
				node(0, out(v.Stalled, "", v.Distributed, 300, "waiting")),
				node(1, out(v.Stalled, "", v.Distributed, 200, "waiting")),
			},
			verdict: v.Stalled, phase: v.Distributed, root: "node1", echoState: []string{"stalled"},
		},
		{
			name: "a timeout beats a stall: one member still progressed",
			members: []Member{
				node(0, out(v.Stalled, "", v.Distributed, 300, "waiting")),
				node(1, out(v.Timeout, "", v.Weights, 600, "still loading at the deadline")),
			},
			verdict: v.Timeout, phase: v.Weights, root: "node1", echoState: []string{"stalled"},
		},
		{
			name: "a lost member keeps the whole undecided",
			members: []Member{
				node(0, out(v.Ready, "", v.PhaseReady, 90, "ready")),
				{Host: "node1", Rank: 1, Lost: true},
			},
		},
		{
			name: "a lost member does not hide another's failure",
			members: []Member{
				{Host: "node0", Rank: 0, Serving: true, Lost: true},
				node(1, out(v.Failed, v.GPUOOM, v.KVCache, 70, "KV cache OOM", "CUDA out of memory")),
			},
			verdict: v.Failed, cause: v.GPUOOM, phase: v.KVCache, root: "node1",
			evidence: "CUDA out of memory", echoState: []string{"lost"},
		},
		{name: "no members", members: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := Judge(tt.members)
			if w.Verdict != tt.verdict || w.Cause != tt.cause || w.Phase != tt.phase {
				t.Fatalf("got %q/%q/%q, want %q/%q/%q (%+v)", w.Verdict, w.Cause, w.Phase, tt.verdict, tt.cause, tt.phase, w)
			}
			if tt.verdict == "" {
				return
			}
			if w.RootHost != tt.root {
				t.Errorf("root %s, want %s", w.RootHost, tt.root)
			}
			if tt.evidence != "" && (len(w.Evidence) == 0 || !strings.Contains(w.Evidence[0], tt.evidence)) {
				t.Errorf("evidence %q, want it to start with the root's %q", w.Evidence, tt.evidence)
			}
			if !strings.HasPrefix(w.Summary, tt.root+" (rank ") && tt.verdict != v.Ready {
				t.Errorf("summary %q does not name the root host", w.Summary)
			}
			var states []string
			for _, e := range w.Echoes {
				if e.Host == w.RootHost {
					t.Errorf("the root %s is among its echoes", e.Host)
				}
				states = append(states, e.State)
			}
			if !slices.Equal(states, tt.echoState) {
				t.Errorf("echo states %q, want %q", states, tt.echoState)
			}
		})
	}
}

func TestSettled(t *testing.T) {
	ncclFirst := []Member{
		node(0, out(v.Failed, v.NCCL, v.Distributed, 50, "NCCL error", "ncclRemoteError")),
		running(1, v.Weights, false),
	}
	tests := []struct {
		name    string
		members []Member
		now     float64
		want    bool
	}{
		{"an NCCL failure waits for the others' reports", ncclFirst, 51, false},
		{"... until the echo window is over", ncclFirst, 50 + EchoWindow.Seconds(), true},
		{"another kind of failure is settled at once", []Member{
			node(0, out(v.Failed, v.GPUOOM, v.KVCache, 50, "oom")), running(1, v.Weights, true)}, 50, true},
		{"every member decided", []Member{
			node(0, out(v.Failed, v.NCCL, v.Distributed, 50, "nccl")), node(1, out(v.Stalled, "", v.Weights, 49, "s"))}, 50, true},
		{"undecided", []Member{running(0, v.Weights, true)}, 50, false},
		{"ready", []Member{node(0, out(v.Ready, "", v.PhaseReady, 50, "r"))}, 50, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Settled(tt.members, at(tt.now)); got != tt.want {
				t.Errorf("Settled = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	argv := []string{"python3", "-m", "sglang.launch_server", "--nnodes", "{nnodes}", "--node-rank", "{rank}",
		"--dist-init-addr", "node0:5000", "--host", "{host}", `--json-model-override-args={"rope":{"factor":2}}`, "${HOME}/m-{rank}"}
	got := Expand(argv, Placeholders{Rank: 1, Host: "node1", NNodes: 2})
	want := []string{"python3", "-m", "sglang.launch_server", "--nnodes", "2", "--node-rank", "1",
		"--dist-init-addr", "node0:5000", "--host", "node1", `--json-model-override-args={"rope":{"factor":2}}`, "${HOME}/m-1"}
	if !slices.Equal(got, want) {
		t.Errorf("Expand:\n got %q\nwant %q", got, want)
	}
	if argv[4] != "{nnodes}" {
		t.Error("Expand changed its input")
	}
}

func TestPlan(t *testing.T) {
	argv := []string{"serve", "--node-rank", "{rank}", "--nnodes", "{nnodes}", "--name", "{host}"}
	ls, err := Plan("localhost, root@gpu1 ,gpu2", argv)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		host, target string
		local        bool
		rank         int
		serving      bool
		argv         string
	}
	var got []row
	for _, l := range ls {
		got = append(got, row{l.Host, l.Target, l.Local, l.Rank, l.Serving, strings.Join(l.Argv, " ")})
	}
	want := []row{
		{"localhost", "", true, 0, true, "serve --node-rank 0 --nnodes 3 --name localhost"},
		{"root@gpu1", "root@gpu1", false, 1, false, "serve --node-rank 1 --nnodes 3 --name gpu1"},
		{"gpu2", "gpu2", false, 2, false, "serve --node-rank 2 --nnodes 3 --name gpu2"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Plan:\n got %+v\nwant %+v", got, want)
	}
}

func TestPlanErrors(t *testing.T) {
	tests := []struct {
		name, hosts string
		argv        []string
		want        string
	}{
		{"no command", "a,b", nil, "needs a COMMAND"},
		{"empty host", "a,,b", []string{"x", "{rank}"}, "empty host"},
		{"host twice", "a,b,a", []string{"x", "{rank}"}, "given twice"},
		{"option-like host", "a,-oProxyCommand=x", []string{"x", "{rank}"}, "bad host"},
		{"same command on every node", "a,b", []string{"serve", "--tp", "8"}, "no {rank} or {host}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Plan(tt.hosts, tt.argv)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Plan(%q, %q) error %v, want %q", tt.hosts, tt.argv, err, tt.want)
			}
		})
	}
	if _, err := Plan("solo", []string{"serve"}); err != nil {
		t.Errorf("one host needs no placeholder: %v", err)
	}
}

func TestProgressing(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		quiet time.Duration
		want  bool
	}{{0, true}, {30 * time.Second, true}, {ProgressWindow - time.Millisecond, true}, {ProgressWindow, false}, {time.Hour, false}} {
		if got := Progressing(t0, t0.Add(tc.quiet)); got != tc.want {
			t.Errorf("quiet %v: progressing %v, want %v", tc.quiet, got, tc.want)
		}
	}
}
