package classify

import (
	"slices"
	"sync"
	"testing"
)

// TestACAutoFillsRowsConcurrently: goroutines that scan one fresh
// automaton at once, each filling rows as it goes, all see the hits one
// scan alone sees (run under -race, it also checks the table's accesses).
func TestACAutoFillsRowsConcurrently(t *testing.T) {
	lines := corpus(t)
	pf := buildPrefilter(vllm)
	want := make([]hitSet, len(lines))
	for i, l := range lines {
		want[i] = make(hitSet, pf.words)
		pf.scan(l, want[i])
	}
	fresh := buildPrefilter(vllm)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for j := range lines {
				i := (j + g*len(lines)/4) % len(lines)
				got := make(hitSet, fresh.words)
				fresh.scan(lines[i], got)
				if !slices.Equal(got, want[i]) {
					t.Errorf("goroutine %d, line %q: hits %v, want %v", g, lines[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
