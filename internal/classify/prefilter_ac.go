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
	nc := int(a.nclass)
	most := 1
	for _, k := range keys {
		most += len(k)
	}
	delta := make([]int32, most*nc)
	own := make([][]int32, 1, most)
	for id, k := range keys {
		a.keyLen[id] = int32(len(k))
		s := int32(0)
		for i := 0; i < len(k); i++ {
			e := int(s)*nc + int(a.class[k[i]])
			if delta[e] == 0 {
				delta[e] = int32(len(own))
				own = append(own, nil)
			}
			s = delta[e]
		}
		own[s] = append(own[s], int32(id))
	}
	n := len(own)
	delta = delta[:n*nc]

	// Breadth-first: failure links, output lists, and the full transitions
	// in place of the goto table (a missing edge takes the failure state's
	// transition, whose row is complete as it is shallower).
	fail := make([]int32, n)
	outs := make([][]int32, n)
	queue := make([]int32, 0, n)
	for c := range nc {
		if t := delta[c]; t != 0 {
			queue = append(queue, t)
		}
	}
	outs[0] = own[0]
	for head := 0; head < len(queue); head++ {
		s := queue[head]
		f := fail[s]
		if len(own[s])+len(outs[f]) > 0 {
			outs[s] = append(append(make([]int32, 0, len(own[s])+len(outs[f])), own[s]...), outs[f]...)
		}
		row, frow := delta[int(s)*nc:int(s+1)*nc], delta[int(f)*nc:int(f+1)*nc]
		for c, t := range row {
			if t == 0 {
				row[c] = frow[c]
				continue
			}
			fail[t] = frow[c]
			queue = append(queue, t)
		}
	}

	// Encode: rows instead of state numbers, negative when the target
	// state has output.
	for i, t := range delta {
		row := t * int32(nc)
		if len(outs[t]) > 0 {
			row = ^row
		}
		delta[i] = row
	}
	a.delta = delta
	a.outStart = make([]int32, n+1)
	for s := range n {
		a.outStart[s+1] = a.outStart[s] + int32(len(outs[s]))
		a.outs = append(a.outs, outs[s]...)
	}
	return a
}
