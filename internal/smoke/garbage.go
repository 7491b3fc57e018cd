package smoke

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thresholds for Garbage. They are set so that a sane one-sentence answer
// never trips them, while the outputs of broken numerics always do.
const (
	// A model whose logits are all NaN or zero picks token 0, which is "!"
	// in the Llama 3, Qwen and GPT-2 vocabularies: "!!!!!!!!..." (vLLM 14126,
	// SGLang 589). Eight in a row is already far from any real sentence.
	bangRun = 8
	// Other repeated symbols ("-----", "....") occur in real text, so they
	// need a much longer run.
	symbolRun = 24
	// A word (or two, or three) repeated this many times in a row is a
	// model stuck in a loop.
	wordRepeats = 8
	// Repetition inside one space-free word ("的的的...", "<unk><unk>...").
	unitRepeats = 10
	unitRunes   = 16
	// Distinct writing systems in one answer: English with a Chinese name is
	// two; four is the soup a mis-scaled FP4 model produces.
	scriptGroups = 4
)

// Garbage reports whether text is not a sane model answer, and why:
// empty or blank, a run of '!' or another symbol, replacement characters
// (U+FFFD, or invalid UTF-8) or control characters, one token repeated
// over and over, or a mix of unrelated scripts. It is pure and cheap.
func Garbage(text string) (reason string, bad bool) {
	t := strings.TrimSpace(text)
	if t == "" {
		return "empty answer", true
	}
	var runes, bad0, ctrl int
	for _, r := range t {
		runes++
		switch {
		case r == utf8.RuneError:
			bad0++
		case r != '\n' && r != '\t' && r != '\r' && (r < 0x20 || (r >= 0x7f && r < 0xa0)):
			ctrl++
		}
	}
	if bad0 >= 3 || (bad0 > 0 && bad0*4 >= runes) {
		return fmt.Sprintf("garbage: %d replacement characters (U+FFFD)", bad0), true
	}
	if ctrl >= 3 || (ctrl > 0 && ctrl*4 >= runes) {
		return fmt.Sprintf("garbage: %d control characters", ctrl), true
	}
	if r, n := longestSymbolRun(t); (r == '!' && n >= bangRun) || n >= symbolRun {
		return fmt.Sprintf("garbage: run of %d %q", n, r), true
	}
	if unit, n := repeatedWords(strings.Fields(t)); n >= wordRepeats {
		return fmt.Sprintf("garbage: one token repeated: %q ×%d", clip(unit, 40), n), true
	}
	for _, w := range strings.Fields(t) {
		if unit, n := repeatedUnit([]rune(w)); n >= unitRepeats && n*utf8.RuneCountInString(unit) >= unitRunes {
			return fmt.Sprintf("garbage: one token repeated: %q ×%d", clip(unit, 40), n), true
		}
	}
	if groups := scripts(t); len(groups) >= scriptGroups {
		return fmt.Sprintf("garbage: mixes %d scripts (%s)", len(groups), strings.Join(groups, ", ")), true
	}
	return "", false
}

// longestSymbolRun finds the longest run of one punctuation or symbol rune,
// ignoring white space in between ("!!!!!!!! !!!!!!!!" is one run).
func longestSymbolRun(s string) (rune, int) {
	var best, cur rune
	bestN, n := 0, 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			cur, n = 0, 0
			continue
		}
		if r == cur {
			n++
		} else {
			cur, n = r, 1
		}
		if n > bestN {
			best, bestN = cur, n
		}
	}
	return best, bestN
}

// repeatedWords finds the longest stretch where a group of one to three
// words repeats back to back, and returns the group and its count.
func repeatedWords(words []string) (string, int) {
	bestUnit, best := "", 0
	for p := 1; p <= 3; p++ {
		run := 0
		for i := p; i < len(words); i++ {
			if words[i] == words[i-p] {
				run++
			} else {
				run = 0
			}
			if n := (run + p) / p; n > best && run >= p {
				best, bestUnit = n, strings.Join(words[i-p+1:i+1], " ")
			}
		}
	}
	return bestUnit, best
}

// repeatedUnit finds the longest back-to-back repetition of a unit of one
// to eight runes inside a word.
func repeatedUnit(r []rune) (string, int) {
	bestUnit, best := "", 0
	for u := 1; u <= 8 && u < len(r); u++ {
		run := 0
		for i := u; i < len(r); i++ {
			if r[i] == r[i-u] {
				run++
			} else {
				run = 0
			}
			if n := (run + u) / u; n > best && run >= u {
				best, bestUnit = n, string(r[i-u+1:i+1])
			}
		}
	}
	return bestUnit, best
}

// scriptTable groups writing systems the way answers mix them: Japanese
// legitimately mixes kana and Han, so the CJK scripts count as one.
var scriptTable = []struct {
	name   string
	tables []*unicode.RangeTable
}{
	{"Latin", []*unicode.RangeTable{unicode.Latin}},
	{"CJK", []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo}},
	{"Cyrillic", []*unicode.RangeTable{unicode.Cyrillic}},
	{"Arabic", []*unicode.RangeTable{unicode.Arabic}},
	{"Greek", []*unicode.RangeTable{unicode.Greek}},
	{"Hebrew", []*unicode.RangeTable{unicode.Hebrew}},
	{"Thai", []*unicode.RangeTable{unicode.Thai}},
	{"Devanagari", []*unicode.RangeTable{unicode.Devanagari}},
	{"Armenian", []*unicode.RangeTable{unicode.Armenian}},
	{"Georgian", []*unicode.RangeTable{unicode.Georgian}},
	{"Bengali", []*unicode.RangeTable{unicode.Bengali}},
	{"Tamil", []*unicode.RangeTable{unicode.Tamil}},
}

// scripts lists the script groups with at least two letters in s.
func scripts(s string) []string {
	counts := map[string]int{}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			continue
		}
		for _, g := range scriptTable {
			if unicode.IsOneOf(g.tables, r) {
				counts[g.name]++
				break
			}
		}
	}
	var names []string
	for name, n := range counts {
		if n >= 2 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "..."
}
