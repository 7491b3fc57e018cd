package judge

import (
	"strings"
	"testing"
	"time"

	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// TestRustPanicMessage: Rust 1.73 and later print a panic's message on the
// lines under "thread '...' panicked at FILE:LINE:COL:". One no rule knows
// is the failure's summary and first evidence (rust.panic_message); one a
// rule knows keeps that rule; the note after it is no part of it. TGI's
// lines, from backends/v3/src/lib.rs's assert_eq! and the launcher's shard
// manager thread (launcher/src/main.rs remove_file(uds).unwrap()).
func TestRustPanicMessage(t *testing.T) {
	const stamp = "2026-01-08T10:00:00.100000Z  INFO text_generation_launcher: "
	tests := []struct {
		name     string
		lines    []string
		exit     bool
		rule     string
		summary  string
		evidence []string // in order, from the first
	}{
		{
			name: "an assertion of the main thread, on three lines",
			lines: []string{"thread 'main' panicked at backends/v3/src/lib.rs:66:13:", "assertion `left == right` failed",
				"  left: 4096", " right: 4095", "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"},
			rule: "rust.panic_message", summary: "the program panicked: assertion `left == right` failed",
			evidence: []string{"assertion `left == right` failed", "thread 'main' panicked at backends/v3/src/lib.rs:66:13:", "  left: 4096", " right: 4095"},
		},
		{
			name: "another thread's, decided when the process dies",
			lines: []string{"thread '<unnamed>' panicked at launcher/src/main.rs:966:30:",
				"called `Result::unwrap()` on an `Err` value: Os { code: 13, kind: PermissionDenied, message: \"Permission denied\" }",
				"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
				"2026-01-08T10:00:02.200000Z ERROR text_generation_launcher: Shard status channel disconnected"},
			exit: true, rule: "rust.panic_message", summary: "PermissionDenied",
			evidence: []string{"called `Result::unwrap()` on an `Err` value", "thread '<unnamed>' panicked at launcher/src/main.rs:966:30:"},
		},
		{
			name:  "a message a rule knows keeps its rule",
			lines: []string{"thread 'main' panicked at router/src/server.rs:1991:10:", `failed to build prometheus recorder: FailedToCreateHTTPListener("Address already in use (os error 98)")`},
			rule:  "tgi.prometheus_port", summary: "Prometheus metrics port",
			evidence: []string{"failed to build prometheus recorder", "thread 'main' panicked at"},
		},
		{
			name:  "a panic of the old form carries its message itself",
			lines: []string{"thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', router/src/main.rs:120:50", "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"},
			rule:  "rust.panic", summary: "the program panicked: thread 'main' panicked at 'called `Option::unwrap()`",
			evidence: []string{"thread 'main' panicked at 'called"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := []step{ln(0, stamp+"Args { model_id: \"Qwen/Qwen3-8B\" }")}
			for i, l := range tt.lines {
				steps = append(steps, ln(1+0.01*float64(i), l))
			}
			if tt.exit {
				steps = append(steps, ex(2, observe.Exit{Code: 1}))
			}
			r := play(t, Config{Server: "tgi", StallAfter: time.Minute, Timeout: time.Hour}, steps, 10)
			if r == nil || r.Verdict != v.Failed {
				t.Fatalf("result %+v, want failed", r)
			}
			if r.RuleID != tt.rule || !strings.Contains(r.Summary, tt.summary) {
				t.Errorf("rule %q summary %q, want %q and %q", r.RuleID, r.Summary, tt.rule, tt.summary)
			}
			if len(r.Evidence) < len(tt.evidence) {
				t.Fatalf("evidence %q, want %q first", r.Evidence, tt.evidence)
			}
			for i, e := range tt.evidence {
				if !strings.Contains(r.Evidence[i], e) {
					t.Errorf("evidence[%d] = %q, want it to hold %q (all: %q)", i, r.Evidence[i], e, r.Evidence)
				}
			}
		})
	}
}
