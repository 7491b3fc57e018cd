package classify

import "slices"

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

	// The trie, as a goto table; -1 is "no edge".
	nc := int(a.nclass)
	goTo := make([]int32, nc) // state 0 is the root
	for i := range goTo {
		goTo[i] = -1
	}
	own := [][]int32{nil}
	for id, k := range keys {
		a.keyLen[id] = int32(len(k))
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := int32(a.class[k[i]])
			next := goTo[int(s)*nc+int(c)]
			if next < 0 {
				next = int32(len(own))
				own = append(own, nil)
				for range nc {
					goTo = append(goTo, -1)
				}
				goTo[int(s)*nc+int(c)] = next
			}
			s = next
		}
		own[s] = append(own[s], int32(id))
	}
	n := len(own)

	// Breadth-first: failure links, full transitions and output lists.
	fail := make([]int32, n)
	delta := make([]int32, n*nc) // state numbers for now
	outs := make([][]int32, n)
	queue := make([]int32, 0, n)
	for c := range nc {
		t := goTo[c]
		if t < 0 {
			delta[c] = 0
			continue
		}
		delta[c] = t
		fail[t] = 0
		queue = append(queue, t)
	}
	outs[0] = own[0]
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		outs[s] = append(slices.Clone(own[s]), outs[fail[s]]...)
		for c := range nc {
			t := goTo[int(s)*nc+c]
			if t < 0 {
				delta[int(s)*nc+c] = delta[int(fail[s])*nc+c]
				continue
			}
			delta[int(s)*nc+c] = t
			fail[t] = delta[int(fail[s])*nc+c]
			queue = append(queue, t)
		}
	}

	// Encode: rows instead of state numbers, negative when the target
	// state has output.
	a.delta = make([]int32, n*nc)
	for i, t := range delta {
		row := t * int32(nc)
		if len(outs[t]) > 0 {
			row = ^row
		}
		a.delta[i] = row
	}
	a.outStart = make([]int32, n+1)
	for s := range n {
		a.outStart[s+1] = a.outStart[s] + int32(len(outs[s]))
		a.outs = append(a.outs, outs[s]...)
	}
	return a
}
