// Package litset tells which of a fixed list of literals occur in a text,
// in one pass over it: an Aho-Corasick automaton whose states carry the
// set of literals they end, as a bit mask. It replaces a run of
// strings.Contains calls, one pass per literal, on text that mostly holds
// none of them.
package litset

import "fmt"

// Set is an immutable set of at most 64 non-empty literals; it is safe for
// concurrent use.
type Set struct {
	// class maps a byte to its column in next; bytes in no literal share
	// column 0.
	class [256]uint8
	nc    int
	// next[row+class] is the row (state*nc) of the state after reading a
	// byte in the state of that row; it is negative, ^row, when that state
	// ends a literal, so the loop needs one load and a sign test per byte.
	next []int32
	// ends[s] has bit i set when state s ends literal i (or a suffix of it
	// does).
	ends []uint64
	// stay[b] is set when byte b leaves the root where it is: it starts
	// no literal.
	stay [256]bool
}

// New builds the set; literal i is reported as bit i. It panics on an
// empty literal or more than 64: the lists are the program's own.
func New(lits ...string) *Set {
	if len(lits) > 64 {
		panic(fmt.Sprintf("litset: %d literals, at most 64", len(lits)))
	}
	s := &Set{nc: 1}
	var used [256]bool
	states := 1
	for _, l := range lits {
		if l == "" {
			panic("litset: an empty literal")
		}
		states += len(l)
		for i := 0; i < len(l); i++ {
			used[l[i]] = true
		}
	}
	for b := range 256 {
		if used[b] {
			s.class[b] = uint8(s.nc)
			s.nc++
		}
	}
	if states > 1<<16 {
		panic("litset: literals too long")
	}
	// The trie; 0 is "no edge", as no edge leads back to the root.
	next := make([]uint16, states*s.nc)
	ends := make([]uint64, 1, states)
	for id, l := range lits {
		st := 0
		for i := 0; i < len(l); i++ {
			e := st*s.nc + int(s.class[l[i]])
			if next[e] == 0 {
				next[e] = uint16(len(ends))
				ends = append(ends, 0)
			}
			st = int(next[e])
		}
		ends[st] |= 1 << id
	}
	n := len(ends)
	next = next[:n*s.nc]
	// Breadth-first: a missing edge takes the failure state's transition
	// (complete, as that state is shallower), and a state ends what its
	// failure state ends.
	fail := make([]uint16, n)
	queue := make([]uint16, 0, n)
	for c := range s.nc {
		if t := next[c]; t != 0 {
			queue = append(queue, t)
		}
	}
	for head := 0; head < len(queue); head++ {
		st := int(queue[head])
		f := int(fail[st])
		ends[st] |= ends[f]
		row, frow := next[st*s.nc:(st+1)*s.nc], next[f*s.nc:(f+1)*s.nc]
		for c, t := range row {
			if t == 0 {
				row[c] = frow[c]
				continue
			}
			fail[t] = frow[c]
			queue = append(queue, t)
		}
	}
	s.next, s.ends = make([]int32, len(next)), ends
	for i, t := range next {
		row := int32(t) * int32(s.nc)
		if ends[t] != 0 {
			row = ^row
		}
		s.next[i] = row
	}
	for b := range 256 {
		s.stay[b] = s.next[s.class[b]] == 0
	}
	return s
}

// NewGroups builds the set of all the groups' literals and, for group i,
// the mask of its literals' bits: Scan(text)&masks[i] != 0 when text
// holds one of group i's.
func NewGroups(groups ...[]string) (s *Set, masks []uint64) {
	var lits []string
	masks = make([]uint64, len(groups))
	for i, g := range groups {
		for _, l := range g {
			masks[i] |= 1 << len(lits)
			lits = append(lits, l)
		}
	}
	return New(lits...), masks
}

// Scan returns the literals that occur in text: bit i for literal i.
func (s *Set) Scan(text string) uint64 {
	var found uint64
	row, next, class, stay := int32(0), s.next, &s.class, &s.stay
	for i := 0; i < len(text); i++ {
		if row == 0 {
			// At the root, the bytes that start no literal are passed
			// over without the table's chain of dependent loads: in log
			// text that is most of them.
			for i+4 <= len(text) && stay[text[i]] && stay[text[i+1]] && stay[text[i+2]] && stay[text[i+3]] {
				i += 4
			}
			for i < len(text) && stay[text[i]] {
				i++
			}
			if i == len(text) {
				return found
			}
		}
		row = next[row+int32(class[text[i]])]
		if row < 0 {
			row = ^row
			found |= s.ends[row/int32(s.nc)]
		}
	}
	return found
}
