package classify

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A rule's literal only says that its regular expression could match;
// some literals are common ("quantization" occurs in every vLLM config
// line) and some expressions are slow on long lines (an unanchored
// alternation with ".*" costs tens of microseconds). A guard is a sharper
// necessary condition read off the expression itself: a set of literals of
// which every match contains at least one. When none occurs, the
// expression cannot match and is not run. The result is the same; only
// the cost changes.

// guard is the literal condition for one regular expression.
type guard struct {
	// ok: the expression has a guard; otherwise it always runs.
	ok bool
	// exact occur as written; folded (lower case, ASCII) occur in the
	// ASCII-lower-cased message.
	exact, folded []string
}

// allows reports whether the expression could match msg. lower returns
// msg with ASCII letters lowered.
func (g *guard) allows(msg string, lower func() string) bool {
	if !g.ok {
		return true
	}
	for _, l := range g.exact {
		if strings.Contains(msg, l) {
			return true
		}
	}
	if len(g.folded) > 0 {
		lm := lower()
		for _, l := range g.folded {
			if strings.Contains(lm, l) {
				return true
			}
		}
	}
	return false
}

// guardOf derives the guard of the expression expr, or an empty guard when the expression
// has none that is certain.
func guardOf(expr string) guard {
	t, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return guard{}
	}
	set, ok := required(t.Simplify())
	if !ok || len(set) == 0 {
		return guard{}
	}
	g := guard{ok: true}
	for _, l := range set {
		if l.fold {
			g.folded = append(g.folded, l.s)
		} else {
			g.exact = append(g.exact, l.s)
		}
	}
	return g
}

// reqLit is one literal of a required set.
type reqLit struct {
	s    string
	fold bool
}

// required returns literals of which every match of t contains one, and
// false when there is no such set (the expression can match text that
// holds no particular literal).
func required(t *syntax.Regexp) ([]reqLit, bool) {
	switch t.Op {
	case syntax.OpLiteral:
		l, ok := literalOf(t)
		if !ok {
			return nil, false
		}
		return []reqLit{l}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return required(t.Sub[0])
		}
		return nil, false
	case syntax.OpAlternate:
		var all []reqLit
		for _, s := range t.Sub {
			set, ok := required(s)
			if !ok {
				return nil, false
			}
			all = append(all, set...)
		}
		return all, true
	case syntax.OpConcat:
		// Every part of a concatenation occurs in a match, so the most
		// selective part's set will do. Adjacent literals join up.
		var best []reqLit
		bestScore := 0
		consider := func(set []reqLit) {
			score := len(set[0].s)
			for _, l := range set[1:] {
				score = min(score, len(l.s))
			}
			if score > bestScore {
				best, bestScore = set, score
			}
		}
		var run reqLit
		flush := func() {
			if run.s != "" {
				consider([]reqLit{run})
			}
			run = reqLit{}
		}
		for _, s := range t.Sub {
			if s.Op == syntax.OpLiteral {
				if l, ok := literalOf(s); ok {
					if run.s != "" && run.fold != l.fold {
						flush()
					}
					run.s += l.s
					run.fold = l.fold
					continue
				}
			}
			flush()
			if set, ok := required(s); ok && len(set) > 0 {
				consider(set)
			}
		}
		flush()
		return best, best != nil
	}
	return nil, false
}

// literalOf turns a literal node into a required literal. A
// case-insensitive literal is cut at letters that also fold outside ASCII
// ("k" matches the Kelvin sign, "s" the long s) and at non-ASCII runes; its
// longest ASCII piece is required, lower-cased.
func literalOf(t *syntax.Regexp) (reqLit, bool) {
	s := string(t.Rune)
	if s == "" || strings.ContainsRune(s, utf8.RuneError) {
		return reqLit{}, false
	}
	if t.Flags&syntax.FoldCase == 0 {
		return reqLit{s: s}, true
	}
	best := ""
	for piece := range strings.FieldsFuncSeq(s, func(r rune) bool {
		return r >= utf8.RuneSelf || strings.ContainsRune("kKsS", r)
	}) {
		if len(piece) > len(best) {
			best = piece
		}
	}
	if best == "" {
		return reqLit{}, false
	}
	return reqLit{s: foldString(best), fold: true}, true
}
