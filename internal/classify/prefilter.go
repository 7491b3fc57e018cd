package classify

import (
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
)

// The prefilter makes Classify cost one pass over the message, however many
// rules a profile has. Every literal of every rule a line is checked
// against (phase markers, ready lines, benign look-alikes, failures, the
// traceback header and the words an exception line ends in) goes into one
// Aho-Corasick automaton per profile; one scan tells which rules' literals
// occur, and only those rules are evaluated, in their catalogue order, with
// their regular expressions. The outcome is exactly that of testing each
// rule's literals with strings.Contains (FuzzClassify compares the two).

// prefilter is one profile's automaton and what each key stands for.
type prefilter struct {
	ac *acAuto
	// checks[k] are the literals whose folded form is key k.
	checks [][]litCheck
	// always are bits of matchers with an empty literal, which
	// strings.Contains finds in every message.
	always []int
	words  int // len of a hit set in uint64s

	phaseBase, readyBase, noHTTPBase, benignBase, failBase, commonBase int
	kernelBase, notableBase, commonNotableBase                         int
	waitingBase, listenBit                                             int
	tracebackBit, exceptionBit, specialBit                             int
}

// litCheck is one literal of one matcher.
type litCheck struct {
	bit int
	lit string
	// fold: the literal is tested against the lower-cased message.
	fold bool
	// lower: lit has no upper-case ASCII letter, so a folded hit is a hit
	// in the lower-cased message (an upper-case letter never is).
	lower bool
}

// exceptionWords are the endings exceptionRe requires (case-sensitive).
var exceptionWords = []string{"Error", "Exception", "Exit", "Interrupt", "Failure", "Failed"}

const tracebackHeader = "Traceback (most recent call last)"

// specialRunes lower-case to ASCII ("İ" to "i", the Kelvin sign to "k"), so a
// message holding one needs its lower-cased form scanned for folded
// literals as strings.ToLower writes it.
var specialRunes = []string{"\u0130", "\u212a"}

type builder struct {
	pf   *prefilter
	keys []string
	ids  map[string]int
	bits int
}

func (b *builder) add(lit string, bit int, fold bool) {
	if lit == "" {
		b.pf.always = append(b.pf.always, bit)
		return
	}
	key := foldString(lit)
	id, ok := b.ids[key]
	if !ok {
		id = len(b.keys)
		b.ids[key] = id
		b.keys = append(b.keys, key)
		b.pf.checks = append(b.pf.checks, nil)
	}
	b.pf.checks[id] = append(b.pf.checks[id], litCheck{bit: bit, lit: lit, fold: fold, lower: foldString(lit) == lit})
}

// matchers adds each matcher's literals under consecutive bits and returns
// the first bit.
func (b *builder) matchers(n int, m func(i int) *Matcher) int {
	base := b.bits
	for i := range n {
		mm := m(i)
		for _, l := range mm.lits {
			b.add(l, base+i, mm.Fold)
		}
	}
	b.bits += n
	return base
}

func (b *builder) bit() int {
	b.bits++
	return b.bits - 1
}

func buildPrefilter(pr *Profile) *prefilter {
	b := &builder{pf: &prefilter{}, ids: map[string]int{}}
	pf := b.pf
	pf.phaseBase = b.matchers(len(pr.Phases), func(i int) *Matcher { return &pr.Phases[i].Matcher })
	pf.readyBase = b.matchers(len(pr.Ready), func(i int) *Matcher { return &pr.Ready[i] })
	pf.noHTTPBase = b.matchers(len(pr.NoHTTPReady), func(i int) *Matcher { return &pr.NoHTTPReady[i] })
	pf.benignBase = b.matchers(len(benign), func(i int) *Matcher { return &benign[i] })
	pf.failBase = b.matchers(len(pr.Failures), func(i int) *Matcher { return &pr.Failures[i].Matcher })
	pf.commonBase = b.matchers(len(commonFailures), func(i int) *Matcher { return &commonFailures[i].Matcher })
	pf.kernelBase = b.matchers(len(kernelRules), func(i int) *Matcher { return &kernelRules[i].Matcher })
	pf.notableBase = b.matchers(len(pr.Notable), func(i int) *Matcher { return &pr.Notable[i].Matcher })
	pf.commonNotableBase = b.matchers(len(commonNotable), func(i int) *Matcher { return &commonNotable[i].Matcher })
	pf.waitingBase = b.matchers(len(waiting), func(i int) *Matcher { return &waiting[i].Matcher })
	pf.listenBit = b.bit()
	for _, m := range listenMarkers {
		b.add(m, pf.listenBit, false)
	}
	pf.tracebackBit = b.bit()
	b.add(tracebackHeader, pf.tracebackBit, false)
	pf.exceptionBit = b.bit()
	for _, w := range exceptionWords {
		b.add(w, pf.exceptionBit, false)
	}
	pf.specialBit = b.bit()
	for _, r := range specialRunes {
		b.add(r, pf.specialBit, false)
	}
	pf.words = (b.bits + 63) / 64
	pf.ac = newACAuto(b.keys)
	return pf
}

// Each built-in profile's prefilter is built on its first use (after every
// init has prepared the rules' literal lists), so a run pays only for the
// servers it meets, and is found by a scan of a few pointers, which is
// cheaper than a map on every line; other profiles' are kept in a map.
var (
	builtins   = [...]*Profile{sglang, vllm, trtllm, llamacpp, tgi, generic}
	builtinPFs [len(builtins)]struct {
		once sync.Once
		pf   *prefilter
	}
	others sync.Map // *Profile -> *prefilter
)

func prefilterOf(pr *Profile) *prefilter {
	for i, p := range builtins {
		if p == pr {
			b := &builtinPFs[i]
			b.once.Do(func() { b.pf = buildPrefilter(p) })
			return b.pf
		}
	}
	if pf, ok := others.Load(pr); ok {
		return pf.(*prefilter)
	}
	pf, _ := others.LoadOrStore(pr, buildPrefilter(pr))
	return pf.(*prefilter)
}

// hitSet holds one bit per rule.
type hitSet []uint64

func (h hitSet) has(bit int) bool { return h[bit>>6]&(1<<(bit&63)) != 0 }
func (h hitSet) set(bit int)      { h[bit>>6] |= 1 << (bit & 63) }

// next is the first set bit in [bit, end), or -1.
func (h hitSet) next(bit, end int) int {
	for bit < end {
		if w := h[bit>>6] >> (bit & 63); w != 0 {
			if b := bit + bits.TrailingZeros64(w); b < end {
				return b
			}
			return -1
		}
		bit = (bit | 63) + 1
	}
	return -1
}

// scan sets the bits of every rule whose literal occurs in msg.
func (pf *prefilter) scan(msg string, hits hitSet) {
	for _, bit := range pf.always {
		hits.set(bit)
	}
	pf.scanText(msg, hits, true, true)
	if hits.has(pf.specialBit) {
		pf.scanText(strings.ToLower(msg), hits, false, true)
	}
}

// scanText runs the automaton over s. With exact, literals tested against
// the message must occur in s as written; with fold, literals tested
// against the lower-cased message are taken from s (s is the message, whose
// ASCII runs are those of its lower-cased form, or the lower-cased form).
func (pf *prefilter) scanText(s string, hits hitSet, exact, fold bool) {
	a := pf.ac
	delta, class, nclass := a.delta, &a.class, a.nclass
	row := a.root
	for i := 0; i < len(s); i++ {
		next := atomic.LoadInt32(&delta[row+int32(class[s[i]])])
		if next > 0 {
			row = next
			continue
		}
		if next == 0 {
			if next = a.step(row, class[s[i]]); next > 0 {
				row = next
				continue
			}
		}
		row = ^next
		st := row / nclass
		for _, k := range a.outs[a.outStart[st]:a.outStart[st+1]] {
			end := i + 1
			start := end - int(a.keyLen[k])
			for _, c := range pf.checks[k] {
				if hits.has(c.bit) {
					continue
				}
				if c.fold {
					if fold && c.lower {
						hits.set(c.bit)
					}
				} else if exact && s[start:end] == c.lit {
					hits.set(c.bit)
				}
			}
		}
	}
}

// classify is Classify with the prefilter: the same rules in the same
// order, each evaluated only when its literal occurs.
func (pf *prefilter) classify(pr *Profile, line string) Class {
	return pf.classifyParsed(pr, ParseFast(line))
}

// classifyParsed is classify of a line that ParseFast took apart as p.
// What it adds to p depends only on pr, p.Msg and p.Level (Memo relies on
// this).
func (pf *prefilter) classifyParsed(pr *Profile, p Parsed) Class {
	c := Class{Parsed: p}
	msg := c.Msg
	var buf [16]uint64
	hits := hitSet(buf[:])
	if pf.words > len(buf) {
		hits = make(hitSet, pf.words)
	}
	pf.scan(msg, hits)
	var lowered string
	lower := func() string {
		if lowered == "" {
			lowered = foldString(msg)
		}
		return lowered
	}
	// first is the index of the first of n rules, whose bits start at
	// base, whose literal occurred and whose expression matches, or -1;
	// at(i) is the i-th rule's matcher. Only bits that are set are visited.
	first := func(base, n int, at func(int) *Matcher) int {
		for b := hits.next(base, base+n); b >= 0; b = hits.next(b+1, base+n) {
			m := at(b - base)
			if m.Re == nil || m.Re.matches(msg, lower) {
				return b - base
			}
		}
		return -1
	}
	// A traceback's frame names a function, not a step the server reached
	// ("File ..., line 1015, in _run_cuda_graph_warmup"): Frame reads it.
	if i := first(pf.phaseBase, len(pr.Phases), func(i int) *Matcher { return &pr.Phases[i].Matcher }); i >= 0 && frameFunc(msg) == "" {
		r := &pr.Phases[i]
		c.Phase, c.Back, c.PhaseRule = r.Phase, r.Back, r
	}
	if MaybeProgress(msg) {
		if p, ok := ParseProgress(msg); ok {
			c.Progress = &p
			if c.Phase == "" {
				desc := strings.ToLower(p.Desc)
				for i := range pr.ProgressPhases {
					r := &pr.ProgressPhases[i]
					if r.match(p.Desc, desc) {
						c.Phase, c.Back, c.PhaseRule = r.Phase, r.Back, r
						break
					}
				}
			}
		}
	}
	if first(pf.readyBase, len(pr.Ready), func(i int) *Matcher { return &pr.Ready[i] }) >= 0 {
		c.Ready = true
	}
	if first(pf.noHTTPBase, len(pr.NoHTTPReady), func(i int) *Matcher { return &pr.NoHTTPReady[i] }) >= 0 {
		c.Ready, c.NoHTTP = true, true
	}
	if hits.has(pf.tracebackBit) {
		c.Traceback = true
	}
	c.Waiting = first(pf.waitingBase, len(waiting), func(i int) *Matcher { return &waiting[i].Matcher }) >= 0
	c.Listening = hits.has(pf.listenBit)
	// Kernel configs and notable warnings are mostly printed as warnings,
	// so they are read before a warning returns.
	if i := first(pf.kernelBase, len(kernelRules), func(i int) *Matcher { return &kernelRules[i].Matcher }); i >= 0 {
		r := &kernelRules[i]
		c.Kernel, c.KernelRule = r.kernelConfig(msg), r
	}
	// Traceback frames and source lines quote code, which may hold a
	// warning's or an error's text.
	quoted := strings.HasPrefix(msg, "  ") || strings.HasPrefix(msg, "\t")
	if !quoted {
		if i := first(pf.notableBase, len(pr.Notable), func(i int) *Matcher { return &pr.Notable[i].Matcher }); i >= 0 {
			c.Notable = &pr.Notable[i]
		} else if i := first(pf.commonNotableBase, len(commonNotable), func(i int) *Matcher { return &commonNotable[i].Matcher }); i >= 0 {
			c.Notable = &commonNotable[i]
		}
	}
	if c.Warning() {
		c.Benign = true
		return c
	}
	own := -1
	if c.Progress == nil && !quoted {
		own = first(pf.failBase, len(pr.Failures), func(i int) *Matcher { return &pr.Failures[i].Matcher })
	}
	// A benign phrase does not excuse the server's own fatal line (TGI's
	// "Error: ArgumentValidation(...)" quoting "... is deprecated ...").
	if (own < 0 || !pr.Failures[own].Fatal) && first(pf.benignBase, len(benign), func(i int) *Matcher { return &benign[i] }) >= 0 {
		c.Benign = true
		return c
	}
	if c.Progress != nil || quoted {
		return c
	}
	if own >= 0 {
		c.Failure, c.Notable = &pr.Failures[own], nil
		return c
	}
	if i := first(pf.commonBase, len(commonFailures), func(i int) *Matcher { return &commonFailures[i].Matcher }); i >= 0 {
		c.Failure, c.Notable = &commonFailures[i], nil
		return c
	}
	// exceptionRe needs one of its words and a name at the start.
	if hits.has(pf.exceptionBit) && msg != "" && isNameStart(msg[0]) && exceptionRe.Get().MatchString(msg) {
		c.Exception = true
	}
	return c
}

func isNameStart(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_'
}

// MaybeProgress is a cheap test that ParseProgress's pattern needs to pass:
// a digit, "%", optional spaces and "Completed", then "|". When it is false,
// ParseProgress(s) is certainly false.
func MaybeProgress(s string) bool {
	for {
		i := strings.IndexByte(s, '%')
		if i < 0 {
			return false
		}
		if i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
			rest := skipSpace(s[i+1:])
			if r, ok := strings.CutPrefix(rest, "Completed"); ok {
				rest = skipSpace(r)
			}
			if strings.HasPrefix(rest, "|") {
				return true
			}
		}
		s = s[i+1:]
	}
}

// skipSpace skips what regexp's \s matches.
func skipSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return s
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}
