package classify

import (
	"regexp"
	"sync"

	"vigil/internal/lazyre"
)

// lazyRegexp is a rule's regular expression, compiled (lazyre) and its
// literal guard read on first use. A process meets few of the catalogue's
// rules (a rule's expression only runs on a line holding its literal), and
// compiling all of them when the package loaded was most of what `vigil
// explain` on a one-line log cost (bench/firstline).
// TestGuardsAllowMatches compiles each one (as does cli's test of every
// lazyre expression), so a broken expression fails the tests, not a run.
type lazyRegexp struct {
	src  string
	re   *lazyre.Regexp
	once sync.Once // reads g
	g    guard
}

// allLazyRegexps is every expression the catalogue made, for its tests.
var allLazyRegexps []*lazyRegexp

func newLazyRegexp(src string) *lazyRegexp {
	p := &lazyRegexp{src: src, re: lazyre.New(src)}
	allLazyRegexps = append(allLazyRegexps, p)
	return p
}

func (p *lazyRegexp) readGuard() {
	p.once.Do(func() { p.g = guardOf(p.src) })
}

// String is the expression as written.
func (p *lazyRegexp) String() string { return p.src }

// Regexp is the compiled expression.
func (p *lazyRegexp) Regexp() *regexp.Regexp { return p.re.Get() }

// matches reports whether the expression matches msg, testing its guard
// first; lower returns msg with ASCII letters lowered.
func (p *lazyRegexp) matches(msg string, lower func() string) bool {
	p.readGuard()
	return p.g.allows(msg, lower) && p.re.Get().MatchString(msg)
}
