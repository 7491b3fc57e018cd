package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDemoTakesJudgingFlagsAndKeepsNoHistory: demo takes --timeout,
// --stall-after, --json and --no-history, and an emulated start is never
// recorded in the history real startups learn from.
func TestDemoTakesJudgingFlagsAndKeepsNoHistory(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	sb := newSandbox(t)
	p := startVigil(t, sb.env, "demo", "--json", "--timeout", "2s", "--stall-after", "90s", "--no-history")
	if !p.wait(t, 60*time.Second) {
		t.Fatalf("demo did not finish\n%s", p.excerpt())
	}
	expectVerdict(t, p, "timeout", "")
	p = startVigil(t, sb.env, "demo", "--json")
	if !p.wait(t, 90*time.Second) {
		t.Fatalf("demo did not finish\n%s", p.excerpt())
	}
	expectVerdict(t, p, "ready", "")
	if _, err := os.Stat(filepath.Join(sb.dir, "state", "vigil", "history.db")); err == nil {
		t.Error("the demo wrote a history database")
	}
}
