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

// TestLazyRegexpCompilesOnFirstUse checks that making an expression
// compiles nothing and that a match compiles it once.
func TestLazyRegexpCompilesOnFirstUse(t *testing.T) {
	p := &lazyRegexp{src: `^bar \d+`}
	if p.re != nil {
		t.Fatal("compiled before use")
	}
	lower := func() string { return "" }
	if p.matches("foo 1", lower) || !p.matches("bar 12", lower) {
		t.Error("wrong answers")
	}
	re := p.re
	if re == nil || p.Regexp() != re {
		t.Error("not compiled exactly once")
	}
}
