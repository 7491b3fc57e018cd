package notify

import (
	"strings"
	"testing"
	"time"

	"vigil/internal/facts"
	"vigil/internal/verdict"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func starting(phase verdict.Phase, progress string, last float64) facts.Snapshot {
	return facts.Snapshot{Server: "sglang", Started: t0, Phase: phase, Progress: progress, LastProgress: at(last)}
}

func ready(readyAt, healthAt float64, healthy bool) facts.Snapshot {
	s := starting(verdict.PhaseReady, "", readyAt)
	s.Ready, s.ReadyAt, s.Verdict = true, at(readyAt), verdict.Ready
	s.Health, s.Healthy, s.HealthAt = "ok", healthy, at(healthAt)
	if !healthy {
		s.Health = "status"
	}
	return s
}

type step struct {
	now  float64
	s    facts.Snapshot
	want string // the whole datagram, "" for none
}

func TestStep(t *testing.T) {
	failed := starting(verdict.KVCache, "", 3)
	failed.Verdict, failed.Cause, failed.Summary, failed.EndedAt = verdict.Failed, verdict.GPUOOM, "not enough memory for the KV cache", at(4)
	died := ready(10, 10, true)
	died.Died, died.Cause, died.Summary = true, verdict.CUDA, "illegal memory access"
	stopping := ready(10, 10, true)
	stopping.Stopping = true

	tests := []struct {
		name  string
		cfg   Config
		steps []step
	}{
		{
			name: "status only on change, progress at most once a second",
			steps: []step{
				{0, starting(verdict.Launch, "", 0), "STATUS=starting: launch"},
				{0.25, starting(verdict.Launch, "", 0), ""},
				{0.5, starting(verdict.Weights, "shards 1/9", 0.5), ""},
				{1.0, starting(verdict.Weights, "shards 2/9", 1), "STATUS=starting: weights, shards 2/9"},
				{1.5, starting(verdict.Weights, "shards 3/9", 1.5), ""},
				{2.0, starting(verdict.Weights, "shards 3/9", 1.5), "STATUS=starting: weights, shards 3/9"},
				{3.5, starting(verdict.Weights, "shards 3/9", 1.5), ""},
			},
		},
		{
			name: "ready at once with its status, whatever the rate limit",
			steps: []step{
				{0, starting(verdict.Serving, "", 0), "STATUS=starting: serving"},
				{0.2, ready(0.2, 0.2, true), "READY=1\nSTATUS=sglang ready after 200ms"},
				{0.4, ready(0.2, 0.4, true), ""},
			},
		},
		{
			name: "a failed startup says its cause and is never ready",
			steps: []step{
				{0, starting(verdict.KVCache, "", 0), "STATUS=starting: kv_cache"},
				{4, failed, "STATUS=failed in kv_cache: gpu_oom: not enough memory for the KV cache"},
			},
		},
		{
			name: "death after ready, then stopping",
			steps: []step{
				{10, ready(10, 10, true), "READY=1\nSTATUS=sglang ready after 10s"},
				{20, died, "STATUS=died after ready: cuda: illegal memory access"},
				{21, func() facts.Snapshot { s := died; s.Stopping = true; return s }(), "STOPPING=1\nSTATUS=stopping: died after ready: cuda: illegal memory access"},
			},
		},
		{
			name: "unhealthy after ready",
			steps: []step{
				{10, ready(10, 10, true), "READY=1\nSTATUS=sglang ready after 10s"},
				{11, ready(10, 11, false), "STATUS=sglang ready after 10s; unhealthy: health status"},
			},
		},
		{
			name: "extension follows progress and stops with it",
			cfg:  Config{ExtendGrace: 30 * time.Second},
			steps: []step{
				{0, starting(verdict.Weights, "", 0), "STATUS=starting: weights\nEXTEND_TIMEOUT_USEC=30000000"},
				{1, starting(verdict.Weights, "", 1), ""},                             // moved 1s: under a tenth of the grace
				{3, starting(verdict.Weights, "", 3), "EXTEND_TIMEOUT_USEC=30000000"}, // moved 3s
				{5, starting(verdict.Weights, "", 3), ""},                             // no new progress, no new extension
				{40, starting(verdict.Weights, "", 3), ""},                            // past the deadline: systemd decides
				{41, starting(verdict.Weights, "", 41), "EXTEND_TIMEOUT_USEC=30000000"},
				{42.5, starting(verdict.Weights, "", 36), ""}, // progress older than what was asked for
			},
		},
		{
			name: "the extension is relative to now, not to the progress",
			cfg:  Config{ExtendGrace: 10 * time.Second},
			steps: []step{
				{4, starting(verdict.Weights, "", 1), "STATUS=starting: weights\nEXTEND_TIMEOUT_USEC=7000000"},
			},
		},
		{
			name: "no extension once ready, failed or stopping",
			cfg:  Config{ExtendGrace: 10 * time.Second},
			steps: []step{
				{0, ready(0, 0, true), "READY=1\nSTATUS=sglang ready after 0s"},
				{1, failed, "STATUS=failed in kv_cache: gpu_oom: not enough memory for the KV cache"},
			},
		},
		{
			name: "watchdog at half its interval while healthy and recently answered",
			cfg:  Config{Watchdog: 4 * time.Second},
			steps: []step{
				{0, starting(verdict.Serving, "", 0), "STATUS=starting: serving"}, // not before ready
				{1, ready(1, 1, true), "READY=1\nSTATUS=sglang ready after 1s\nWATCHDOG=1"},
				{2, ready(1, 2, true), ""},
				{3, ready(1, 3, true), "WATCHDOG=1"},
				{5, ready(1, 3, true), "WATCHDOG=1"},
				{7.5, ready(1, 3, true), ""}, // the last answer is older than the interval
				{8, ready(1, 8, false), "STATUS=sglang ready after 1s; unhealthy: health status"}, // unhealthy
				{9, ready(1, 9, true), "STATUS=sglang ready after 1s\nWATCHDOG=1"},
				{12, stopping, "STOPPING=1\nSTATUS=stopping"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := New(tt.cfg, nil)
			for _, st := range tt.steps {
				if got := n.Step(at(st.now), st.s); got != st.want {
					t.Errorf("at %vs: got %q, want %q", st.now, got, st.want)
				}
			}
		})
	}
}

func TestStatusIsOneShortLine(t *testing.T) {
	s := starting(verdict.Weights, "a\nb  "+strings.Repeat("é", 300), 0)
	got, _ := Status(t0, s)
	if len(got) > MaxStatus || strings.ContainsAny(got, "\n\r") || !strings.HasSuffix(got, "...") {
		t.Fatalf("status %q (%d bytes)", got, len(got))
	}
	if !strings.HasPrefix(got, "starting: weights, a b éé") {
		t.Errorf("status %q", got)
	}
	for _, r := range got {
		if r == '\uFFFD' {
			t.Fatalf("status cut inside a rune: %q", got)
		}
	}
}

func TestScrubEnv(t *testing.T) {
	got := ScrubEnv([]string{"PATH=/bin", "NOTIFY_SOCKET=/run/systemd/notify", "WATCHDOG_USEC=1", "WATCHDOG_PID=1", "NOTIFY_SOCKETS=x"})
	want := []string{"PATH=/bin", "NOTIFY_SOCKETS=x"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGraceForOutlastsVigilsOwnStall(t *testing.T) {
	stall, stop := 5*time.Minute, 10*time.Second
	g := GraceFor(stall, stop)
	if g <= stall+stop {
		t.Errorf("GraceFor(%v, %v) = %v: systemd would kill before vigil names the stall and stops", stall, stop, g)
	}
}
