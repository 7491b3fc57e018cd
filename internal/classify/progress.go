package classify

import "strings"

// progressGroups are the parts of a tqdm bar that matchProgress reads:
// the description, percent, done, total, elapsed, remaining, rate and its
// unit ("it/s" or "s/it"); "" for a part the bar does not show.
type progressGroups [8]string

// matchProgress is the hand-written form of the pattern
//
//	^(.*?):?\s*(\d{1,3})%\s*(?:Completed\s*)?\|[^|]*?\|?\s*(\d+)/(\d+)(?:\s*\[([^<\]]*)<([^,\]]*)(?:,\s*([\d.]+)\s*(it/s|s/it))?)?
//
// with a backtracking engine's choices (Go's leftmost-first submatches):
// it finds the same match and the same groups (FuzzMatchProgress compares
// the two), in one pass over the message for nearly every line, where the
// expression backtracked over the description for every start of it.
func matchProgress(s string) (g progressGroups, ok bool) {
	// The lazy description ends at the first place where the rest
	// matches; '.' does not match a newline, so it ends before one.
	limit := len(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		limit = i
	}
	for e := 0; e <= limit; e++ {
		if e < len(s) {
			// The rest starts with ':', a space or a digit.
			if c := s[e]; c != ':' && !isSpace(c) && !isDigit(c) {
				continue
			}
		}
		if g, ok = progressAfterDesc(s, e); ok {
			g[0] = s[:e]
			return g, true
		}
	}
	return g, false
}

// progressAfterDesc matches the pattern after its description, which ends
// at e.
func progressAfterDesc(s string, e int) (g progressGroups, ok bool) {
	i := e
	if i < len(s) && s[i] == ':' {
		// ":?" is greedy, and without the colon the rest cannot start
		// at one: taking it is the only way on.
		i++
	}
	i = skipSpaces(s, i)
	// (\d{1,3})%: every shorter run of digits is followed by a digit.
	n := digitRun(s, i)
	if n == 0 || n > 3 || i+n >= len(s) || s[i+n] != '%' {
		return g, false
	}
	g[1] = s[i : i+n]
	i = skipSpaces(s, i+n+1)
	if strings.HasPrefix(s[i:], "Completed") {
		// Greedy; without it the '|' could not be at 'C'.
		i = skipSpaces(s, i+len("Completed"))
	}
	if i >= len(s) || s[i] != '|' {
		return g, false
	}
	// [^|]*? is lazy: the first place q at or before the next '|' from
	// which "\|?\s*(\d+)/(\d+)" matches; at that '|' itself only past it.
	for q := i + 1; ; q++ {
		r := q
		if q < len(s) && s[q] == '|' {
			r = q + 1
		}
		if done, total, end, ok := fraction(s, r); ok {
			g[2], g[3] = done, total
			progressTail(s, end, &g)
			return g, true
		}
		if q >= len(s) || s[q] == '|' {
			return g, false
		}
	}
}

// fraction matches "\s*(\d+)/(\d+)" at r (both runs greedy, and the
// first must end at the '/').
func fraction(s string, r int) (done, total string, end int, ok bool) {
	r = skipSpaces(s, r)
	n := digitRun(s, r)
	if n == 0 || r+n >= len(s) || s[r+n] != '/' {
		return "", "", 0, false
	}
	t := r + n + 1
	m := digitRun(s, t)
	if m == 0 {
		return "", "", 0, false
	}
	return s[r : r+n], s[t : t+m], t + m, true
}

// progressTail matches the optional
// "\s*\[([^<\]]*)<([^,\]]*)(?:,\s*([\d.]+)\s*(it/s|s/it))?" at i into
// g[4:]. Every run is greedy and what follows it cannot start inside it,
// so each takes all it can.
func progressTail(s string, i int, g *progressGroups) {
	i = skipSpaces(s, i)
	if i >= len(s) || s[i] != '[' {
		return
	}
	i++
	a := i + runNotOf(s[i:], '<', ']')
	if a >= len(s) || s[a] != '<' {
		return
	}
	b := a + 1 + runNotOf(s[a+1:], ',', ']')
	g[4], g[5] = s[i:a], s[a+1:b]
	if b >= len(s) || s[b] != ',' {
		return
	}
	j := skipSpaces(s, b+1)
	k := j
	for k < len(s) && (isDigit(s[k]) || s[k] == '.') {
		k++
	}
	if k == j {
		return
	}
	u := skipSpaces(s, k)
	switch rest := s[u:]; {
	case strings.HasPrefix(rest, "it/s"):
		g[6], g[7] = s[j:k], "it/s"
	case strings.HasPrefix(rest, "s/it"):
		g[6], g[7] = s[j:k], "s/it"
	}
}

func skipSpaces(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func digitRun(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	return digits(s[i:])
}

// runNotOf is the length of the run at the start of s without a or b.
func runNotOf(s string, a, b byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == a || s[i] == b {
			return i
		}
	}
	return len(s)
}
