package classify

import (
	"regexp"
	"testing"
)

// TestEveryLazyRegexpCompiles compiles each of the catalogue's expressions,
// which a run only compiles when a line needs one.
func TestEveryLazyRegexpCompiles(t *testing.T) {
	if len(allLazyRegexps) < 100 {
		t.Fatalf("only %d expressions registered; the catalogue has more", len(allLazyRegexps))
	}
	for _, p := range allLazyRegexps {
		if _, err := regexp.Compile(p.src); err != nil {
			t.Errorf("%q: %v", p.src, err)
		}
	}
}

// TestLazyRegexpMatches: a match reads the guard and runs the expression.
func TestLazyRegexpMatches(t *testing.T) {
	p := newLazyRegexp(`^bar \d+`)
	lower := func() string { return "" }
	if p.matches("foo 1", lower) || !p.matches("bar 12", lower) {
		t.Error("wrong answers")
	}
	if !p.g.ok || len(p.g.exact) != 1 || p.g.exact[0] != "bar " {
		t.Errorf("guard %+v, want the literal %q", p.g, "bar ")
	}
}
