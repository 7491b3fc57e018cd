package classify

import (
	"slices"
	"strings"
)

// The banner filter is built from the start banners of the profiles
// (BannerClauses): each clause is the literals one alternative of
// a banner pattern needs. A clause whose longest literal is short is
// checked on every line as it stands (or, by explain, looked for in a
// whole chunk at once: ShortBannerHits); the others go through a sampled
// window filter keyed by their longest literal, which looks at fewer
// windows the longer the shortest of those literals is.
var (
	bannerAlways bool // some banner needs no literal: every line may be one
	shortClauses []Clause
	// shortKeys are the short clauses' longest literals, each one that
	// the clause needs as it stands (not folded).
	shortKeys   []string
	longClauses []Clause
	// longKeys are the long clauses' longest literals, the filter's keys.
	longKeys         []string
	bannerGrams      *gramFilter
	shortClauseBelow = 12
)

func init() {
	clauses, ok := BannerClauses()
	if !ok {
		bannerAlways = true
		return
	}
	for _, c := range clauses {
		k := longest(c)
		if len(k) < shortClauseBelow {
			if !slices.Contains(c.Exact, k) {
				// A folded short literal cannot be searched for as it
				// stands.
				bannerAlways = true
				return
			}
			shortClauses = append(shortClauses, c)
			shortKeys = append(shortKeys, k)
			continue
		}
		longClauses = append(longClauses, c)
		longKeys = append(longKeys, k)
	}
	// The filter is built when this package is (bannergrams.go), so that
	// a start does not spend its table's 64 pages on it; a table left
	// behind by a change of the clauses is not used (and
	// TestBannerGramsGenerated fails until it is made again).
	bannerGrams = generatedBannerGrams
	if !slices.Equal(longKeys, generatedBannerGramKeys) {
		bannerGrams = newGramFilter(longKeys)
	}
	if len(longClauses) > 32 {
		panic("classify: more banner clauses than the filter's masks hold")
	}
}

func longest(c Clause) string {
	k := ""
	for _, l := range append(append([]string(nil), c.Exact...), c.Folded...) {
		if len(l) > len(k) {
			k = l
		}
	}
	return k
}

func holds(line string, c Clause) bool {
	for _, l := range c.Exact {
		if !strings.Contains(line, l) {
			return false
		}
	}
	return containsAllFold(line, c.Folded)
}

// MayBeBanner is a cheap test that every banner line passes: when it is
// false for a line, no message taken from that line is a banner. It runs
// on every line of a log, so it looks at a window every few bytes.
func MayBeBanner(line string) bool {
	if bannerAlways {
		return true
	}
	for _, c := range shortClauses {
		if holds(line, c) {
			return true
		}
	}
	return MayBeLongBanner(line)
}

// MayBeLongBanner is MayBeBanner without the short clauses: a line it
// turns away may be a banner only if it holds one of their literals
// (ShortBannerHits finds those).
func MayBeLongBanner(line string) bool {
	if bannerAlways {
		return true
	}
	// Only the clauses whose literal's windows the line holds can match.
	m, escaped := bannerGrams.scanSpecial(line)
	if escaped {
		return true // escapes may sit inside a literal until stripped
	}
	for i, c := range longClauses {
		if m&(1<<i) != 0 && holds(line, c) {
			return true
		}
	}
	return false
}

// ShortBannerHits calls hit with the offset of each place in text (many
// lines) where a literal of a short clause begins, in no order: with
// MayBeLongBanner it is MayBeBanner for a whole chunk, where the short
// literals cost a search each rather than one per line. It reports
// false when it cannot stand in for MayBeBanner (every line may be a
// banner).
func ShortBannerHits(text string, hit func(at int)) bool {
	if bannerAlways {
		return false
	}
	for _, k := range shortKeys {
		for at := 0; ; {
			i := strings.Index(text[at:], k)
			if i < 0 {
				break
			}
			hit(at + i)
			at += i + 1
		}
	}
	return true
}

func containsAllFold(s string, lits []string) bool {
	for _, l := range lits {
		if !containsFold(s, l) {
			return false
		}
	}
	return true
}

// gramFilter answers "might one of these literals occur in s?" cheaply.
// It looks at the 6-byte window at every step-th position of s. A literal
// of length L covers L-5 consecutive windows, so any step of them contains
// a sampled one: the filter holds, for each literal, the step consecutive
// windows that look rarest (step is as large as the shortest literal
// allows). Bytes are compared with the 0x20 bit set, which folds ASCII
// letters (and merges a few other byte pairs: the filter may say yes too
// often, never too rarely); a "#" window stands for its ten digits. A
// string with an escape byte (0x1b) always may: a terminal escape sequence
// inside a literal is gone once the line's colours are stripped. So may a
// string with a byte outside ASCII, so that case-insensitive literals can
// be folded in ASCII.
type gramFilter struct {
	// masks are, per window hash, the literals (by index) that hold a
	// window of that hash among their sampled ones.
	masks [1 << 16]uint32
	step  int
}

const gramLen = 6

func newGramFilter(lits []string) *gramFilter {
	g := &gramFilter{step: 1 << 30}
	for _, l := range lits {
		g.step = min(g.step, len(l)-gramLen+1)
	}
	if g.step < 1 {
		panic("classify: banner literals must be at least 6 bytes")
	}
	// scanSpecial's loads must cover every byte.
	g.step = min(g.step, 8)
	for i, l := range lits {
		// The windows' rarest-looking run: best worst window, then best
		// sum, then the later one (literals often start with common words).
		best, bestMin, bestSum := 0, -1, -1
		for o := 0; o+gramLen+g.step-1 <= len(l); o++ {
			lo, sum := 1<<30, 0
			for k := range g.step {
				sc := gramScore(l[o+k : o+k+gramLen])
				lo, sum = min(lo, sc), sum+sc
			}
			if lo > bestMin || lo == bestMin && sum >= bestSum {
				best, bestMin, bestSum = o, lo, sum
			}
		}
		for k := range g.step {
			g.add(l[best+k:best+k+gramLen], 1<<i)
		}
	}
	return g
}

// add puts a window in the filter, each "#" as every digit.
func (g *gramFilter) add(w string, lit uint32) {
	if i := strings.IndexByte(w, '#'); i >= 0 {
		for d := byte('0'); d <= '9'; d++ {
			g.add(w[:i]+string(d)+w[i+1:], lit)
		}
		return
	}
	g.masks[gramHash(w, 0)] |= lit
}

// gramScore prefers windows that look rare in log text: punctuation and
// digits over letters, rare letters over common ones, letters over spaces.
func gramScore(w string) int {
	n := 0
	for i := 0; i < len(w); i++ {
		c := w[i] | 0x20
		switch {
		case c == ' ':
			n++
		case strings.IndexByte(":.,/=[]()'\"-_\r", w[i]) >= 0:
			n += 2 // log lines are full of these ("INFO:     ", "[rank 0]", "k=v, ", "launch_slot_")
		case c < 'a' || c > 'z':
			n += 10
		case strings.IndexByte("etaoinsr", c) >= 0:
		case strings.IndexByte("hldcumfp", c) >= 0:
			n += 2
		default:
			n += 4
		}
	}
	return n
}

func gramHash(s string, i int) uint32 {
	var x uint64
	for k := gramLen - 1; k >= 0; k-- {
		x = x<<8 | uint64(s[i+k])
	}
	return mix(x)
}

func mix(x uint64) uint32 {
	x = (x & 0xFFFF_FFFF_FFFF) | 0x2020_2020_2020
	return uint32((x * 0x9E3779B97F4A7C15) >> 48)
}

// Per-byte constants for finding an escape byte in a word at once.
const (
	ones  = 0x0101_0101_0101_0101
	highs = 0x8080_8080_8080_8080
	escs  = 0x1b * ones
)

// candidates returns the literals (a bit each) that may occur in s: every
// literal when s holds an escape or a byte outside ASCII (special).
func (g *gramFilter) candidates(s string) uint32 {
	m, isSpecial := g.scanSpecial(s)
	if isSpecial {
		return ^uint32(0)
	}
	return m
}

// scanSpecial returns the literals whose sampled windows s holds (a bit
// each) and whether s is special, in one pass: the 6-byte window at every
// step-th position is read as one 8-byte load (the compiler merges the
// byte loads), masked to the window by mix; those loads cover every byte
// when the step is at most 8, and the bytes after the last one are looked
// at one by one.
func (g *gramFilter) scanSpecial(s string) (m uint32, isSpecial bool) {
	step := g.step
	var acc uint64
	i := 0
	for ; i+8 <= len(s); i += step {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		e := x ^ escs
		acc |= x | (e-ones)&^e
		m |= g.masks[mix(x)]
	}
	covered := 0
	if i > 0 {
		covered = i - step + 8
	}
	for ; i+gramLen <= len(s); i += step {
		m |= g.masks[gramHash(s, i)]
	}
	for k := covered; k < len(s); k++ {
		if s[k] == 0x1b || s[k] >= 0x80 {
			return m, true
		}
	}
	return m, acc&highs != 0
}

// mayContain reports whether one of the literals may occur in s.
func (g *gramFilter) mayContain(s string) bool { return g.candidates(s) != 0 }

// special reports whether s holds an escape byte or a byte outside ASCII,
// eight bytes at a time.
func special(s string) bool {
	var acc uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		e := x ^ escs
		acc |= x | (e-ones)&^e
	}
	for ; i < len(s); i++ {
		if s[i] == 0x1b || s[i] >= 0x80 {
			return true
		}
	}
	return acc&highs != 0
}

// containsFold reports whether s contains lit (lower-case ASCII),
// ignoring ASCII case.
func containsFold(s, lit string) bool {
	c := lit[0]
	for i := 0; i+len(lit) <= len(s); i++ {
		if !foldEq(s[i], c) {
			continue
		}
		j := 1
		for j < len(lit) && foldEq(s[i+j], lit[j]) {
			j++
		}
		if j == len(lit) {
			return true
		}
	}
	return false
}

// foldEq compares a byte with a lower-case literal byte, ignoring ASCII
// case.
func foldEq(b, l byte) bool {
	if b == l {
		return true
	}
	return l >= 'a' && l <= 'z' && b == l-('a'-'A')
}
