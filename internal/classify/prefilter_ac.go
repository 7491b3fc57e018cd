package classify

// acAuto is an Aho-Corasick automaton over ASCII-case-folded bytes,
// compiled into a table of transitions, so that finding every occurrence
// of hundreds of literals costs one table lookup per byte of the text.
//
// Keys are folded to lower case when built and the text is folded as it is
// read, so a hit says "this key occurs here, ignoring ASCII case"; callers
// that need the exact case compare the text at the hit themselves.
type acAuto struct {
	// class maps a byte to its column in delta; bytes that occur in no key
	// share column 0, and upper-case ASCII letters share their lower-case
	// letter's column.
	class  [256]uint8
	nclass int32
	// delta[row+class] is the next state's row (state*nclass). A negative
	// entry ^row means the next state ends at least one key, so the hot
	// loop needs one load per byte and a sign test.
	delta []int32
	// outs[outStart[s]:outStart[s+1]] are the keys that end in state s,
	// including those of its suffix states.
	outStart []int32
	outs     []int32
	// keyLen is the length of each key.
	keyLen []int32
}

// foldByte lowers an ASCII upper-case letter and leaves every other byte.
func foldByte(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

func foldString(s string) string {
	b := []byte(s)
	for i := range b {
		b[i] = foldByte(b[i])
	}
	return string(b)
}

// newACAuto builds the automaton for keys, which must be folded already
// and non-empty. Key i is reported as i.
func newACAuto(keys []string) *acAuto {
	a := &acAuto{keyLen: make([]int32, len(keys))}
	// Columns: one per distinct byte of the keys, 0 for all others.
	var used [256]bool
	for _, k := range keys {
		for i := 0; i < len(k); i++ {
			used[k[i]] = true
		}
	}
	a.nclass = 1
	for b := 0; b < 256; b++ {
		if used[b] {
			a.class[b] = uint8(a.nclass)
			a.nclass++
		}
	}
	if a.nclass > 256 {
		panic("classify: too many byte classes") // cannot happen: 255 bytes + 1
	}
	for b := 'A'; b <= 'Z'; b++ {
		a.class[b] = a.class[b+'a'-'A']
	}

	// The trie, as a goto table sized for the most states the keys can
	// make; 0 is "no edge", as no edge leads back to the root (state 0).
	// Each state's children are also kept as a list (first, next, label),
	// and keys are distinct, so at most one ends in a state (own).
	nc := int(a.nclass)
	most := 1
	for _, k := range keys {
		most += len(k)
	}
	delta := make([]int32, most*nc)
	own := make([]int32, 1, most)
	own[0] = -1
	first := make([]int32, 1, most)
	next := make([]int32, 1, most)
	label := make([]uint8, 1, most)
	for id, k := range keys {
		a.keyLen[id] = int32(len(k))
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := a.class[k[i]]
			e := int(s)*nc + int(c)
			if delta[e] == 0 {
				t := int32(len(own))
				delta[e] = t
				own, label = append(own, -1), append(label, c)
				first, next = append(first, 0), append(next, first[s])
				first[s] = t
			}
			s = delta[e]
		}
		if own[s] >= 0 {
			panic("classify: duplicate automaton key " + k)
		}
		own[s] = int32(id)
	}
	n := len(own)
	delta = delta[:n*nc]

	// Breadth-first: failure links, and the full transitions in place of
	// the goto table: a state's row is its failure state's row (complete,
	// as it is shallower) with its own edges written over it. dict[s] is
	// the nearest state on s's failure chain where a key ends, or -1.
	// Rows are written encoded (code), since dict says whether a state
	// has output before any row leads to it.
	fail := make([]int32, n)
	dict := make([]int32, n)
	dict[0] = -1
	code := func(t int32) int32 {
		if own[t] >= 0 || dict[t] >= 0 {
			return ^(t * int32(nc))
		}
		return t * int32(nc)
	}
	state := func(v int32) int32 {
		if v < 0 {
			v = ^v
		}
		return v / int32(nc)
	}
	queue := make([]int32, 0, n)
	for t := first[0]; t != 0; t = next[t] {
		dict[t] = -1
		delta[label[t]] = code(t)
		queue = append(queue, t)
	}
	for head := 0; head < len(queue); head++ {
		s := queue[head]
		f := fail[s]
		row, frow := delta[int(s)*nc:int(s+1)*nc], delta[int(f)*nc:int(f+1)*nc]
		copy(row, frow)
		for t := first[s]; t != 0; t = next[t] {
			c := label[t]
			ft := state(frow[c])
			fail[t] = ft
			if own[ft] >= 0 {
				dict[t] = ft
			} else {
				dict[t] = dict[ft]
			}
			row[c] = code(t)
			queue = append(queue, t)
		}
	}
	a.delta = delta

	// A state's outputs are the key ending in it, then those of its
	// dictionary chain.
	a.outStart = make([]int32, n+1)
	for s := range n {
		for d := int32(s); d >= 0; d = dict[d] {
			if own[d] >= 0 {
				a.outs = append(a.outs, own[d])
			}
		}
		a.outStart[s+1] = int32(len(a.outs))
	}
	return a
}
