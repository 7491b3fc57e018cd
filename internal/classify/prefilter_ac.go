package classify

import (
	"sync"
	"sync/atomic"
)

// acAuto is an Aho-Corasick automaton over ASCII-case-folded bytes,
// compiled into a table of transitions, so that finding every occurrence
// of hundreds of literals costs one table lookup per byte of the text.
//
// Keys are folded to lower case when built and the text is folded as it is
// read, so a hit says "this key occurs here, ignoring ASCII case"; callers
// that need the exact case compare the text at the hit themselves.
//
// A state's row of the table is filled the first time the text reaches
// the state: a log meets a fraction of a profile's 4,000 states, and
// filling all of them (a megabyte of table) was most of what explain on a
// one-line log spent after start-up.
type acAuto struct {
	// class maps a byte to its column in delta; bytes that occur in no key
	// share column 0, and upper-case ASCII letters share their lower-case
	// letter's column.
	class  [256]uint8
	nclass int32
	// delta[row+class] is the next state's row (state*nclass). A negative
	// entry ^row means the next state ends at least one key, so the hot
	// loop needs one load per byte and a sign test; 0 means the row is not
	// filled yet (state 0 is unused, the root is state 1). Entries are
	// read and written atomically, as rows are filled while other
	// goroutines scan.
	delta []int32
	// root is the root's row.
	root int32
	// The trie: each state's children as a list (first child, next
	// sibling, the class of the edge into the state), its failure state,
	// and whether a key ends in it or in a state on its failure chain.
	first, next []int32
	label       []uint8
	fail        []int32
	output      []bool
	// rootChild is the root's children by class, as the root has many.
	rootChild [256]int32
	// mu serialises filling rows.
	mu sync.Mutex
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

// newACAuto builds the automaton for keys, which must be folded already,
// distinct and non-empty. Key i is reported as i.
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

	// The trie. own[s] is the key that ends in s, or -1.
	most := 2
	for _, k := range keys {
		most += len(k)
	}
	const root = 1
	own := make([]int32, 2, most)
	own[0], own[1] = -1, -1
	a.first = make([]int32, 2, most)
	a.next = make([]int32, 2, most)
	a.label = make([]uint8, 2, most)
	for id, k := range keys {
		a.keyLen[id] = int32(len(k))
		s := int32(root)
		for i := 0; i < len(k); i++ {
			c := a.class[k[i]]
			t := a.child(s, c)
			if t == 0 {
				t = int32(len(own))
				own, a.label = append(own, -1), append(a.label, c)
				a.first, a.next = append(a.first, 0), append(a.next, a.first[s])
				a.first[s] = t
				if s == root {
					a.rootChild[c] = t
				}
			}
			s = t
		}
		if own[s] >= 0 {
			panic("classify: duplicate automaton key " + k)
		}
		own[s] = int32(id)
	}
	n := len(own)

	// Breadth-first: failure links, and dict[s], the nearest state on s's
	// failure chain where a key ends (or -1).
	a.fail = make([]int32, n)
	dict := make([]int32, n)
	dict[0], dict[root] = -1, -1
	queue := make([]int32, 0, n)
	for t := a.first[root]; t != 0; t = a.next[t] {
		a.fail[t], dict[t] = root, -1
		queue = append(queue, t)
	}
	for head := 0; head < len(queue); head++ {
		s := queue[head]
		for t := a.first[s]; t != 0; t = a.next[t] {
			c := a.label[t]
			f := a.fail[s]
			for f != root && a.child(f, c) == 0 {
				f = a.fail[f]
			}
			if g := a.child(f, c); g != 0 {
				f = g
			}
			a.fail[t] = f
			if own[f] >= 0 {
				dict[t] = f
			} else {
				dict[t] = dict[f]
			}
			queue = append(queue, t)
		}
	}

	// A state's outputs are the key ending in it, then those of its
	// dictionary chain.
	a.output = make([]bool, n)
	a.outStart = make([]int32, n+1)
	for s := range n {
		for d := int32(s); d >= 0; d = dict[d] {
			if own[d] >= 0 {
				a.outs = append(a.outs, own[d])
			}
		}
		a.outStart[s+1] = int32(len(a.outs))
		a.output[s] = a.outStart[s+1] > a.outStart[s]
	}
	a.root = root * a.nclass
	a.delta = make([]int32, n*int(a.nclass))
	return a
}

// child is s's trie child along class c, or 0.
func (a *acAuto) child(s int32, c uint8) int32 {
	if s == a.root/a.nclass {
		return a.rootChild[c]
	}
	for t := a.first[s]; t != 0; t = a.next[t] {
		if a.label[t] == c {
			return t
		}
	}
	return 0
}

// step is delta[row+c], filling the row first when it is not filled yet.
func (a *acAuto) step(row int32, c uint8) int32 {
	if v := atomic.LoadInt32(&a.delta[row+int32(c)]); v != 0 {
		return v
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fill(row / a.nclass)
	return atomic.LoadInt32(&a.delta[row+int32(c)])
}

// fill fills state s's row, and first those of its failure chain, whose
// rows it copies: a state goes where its failure state goes, except along
// its own edges. a.mu is held.
func (a *acAuto) fill(s int32) {
	nc := a.nclass
	row := a.delta[s*nc : (s+1)*nc]
	if atomic.LoadInt32(&row[0]) != 0 {
		return // column 0 is never a key's byte, so it is set in every filled row
	}
	code := func(t int32) int32 {
		if a.output[t] {
			return ^(t * nc)
		}
		return t * nc
	}
	var frow []int32
	if s != a.root/nc {
		f := a.fail[s]
		a.fill(f)
		frow = a.delta[f*nc : (f+1)*nc]
	}
	// Column 0 last, as it marks the row filled.
	for c := nc - 1; c >= 0; c-- {
		v := int32(0)
		if t := a.child(s, uint8(c)); t != 0 {
			v = code(t)
		} else if frow != nil {
			v = atomic.LoadInt32(&frow[c])
		} else {
			v = a.root
		}
		atomic.StoreInt32(&row[c], v)
	}
}
