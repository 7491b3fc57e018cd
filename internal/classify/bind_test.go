package classify

import (
	"testing"

	v "vigil/internal/verdict"
)

// Every line a taken-port rule matches passes MayFailBind (the judge
// classifies only those after a ready line), and ordinary lines do not.
func TestMayFailBind(t *testing.T) {
	for _, tt := range failureLines {
		c := Lookup(tt.server).Classify(tt.line)
		if c.Failure != nil && c.Failure.Cause == v.PortInUse && !MayFailBind(tt.line) {
			t.Errorf("%s: %q is a taken port, but MayFailBind is false", tt.id, tt.line)
		}
	}
	rules := commonFailures
	for _, pr := range allProfiles {
		rules = append(rules[:len(rules):len(rules)], pr.Failures...)
	}
	n := 0
	for _, r := range rules {
		if r.Cause == v.PortInUse {
			n++
			if r.Fold {
				t.Errorf("%s: a taken-port rule folds case, which MayFailBind does not", r.ID)
			}
		}
	}
	if n < 5 {
		t.Errorf("%d taken-port rules, want every server's", n)
	}
	for _, line := range []string{
		`INFO:     127.0.0.1:53016 - "POST /v1/completions HTTP/1.1" 200 OK`,
		"[2026-11-29 10:00:00] Decode batch. #running-req: 1, #token: 100, gen throughput (token/s): 50.0",
	} {
		if MayFailBind(line) {
			t.Errorf("MayFailBind(%q) is true", line)
		}
	}
}
