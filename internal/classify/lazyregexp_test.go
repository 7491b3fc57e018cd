package classify

import "testing"

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
