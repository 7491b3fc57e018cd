package classify

import (
	"sync"

	"vigil/internal/litset"
	v "vigil/internal/verdict"
)

// bindLits is the literals of every failure rule whose cause is a taken
// port, built on first use.
var bindLits = sync.OnceValue(func() *litset.Set {
	var lits []string
	add := func(rules []FailureRule) {
		for i := range rules {
			if rules[i].Cause == v.PortInUse {
				lits = append(lits, rules[i].lits...)
			}
		}
	}
	add(commonFailures)
	for _, pr := range builtins {
		add(pr.Failures)
	}
	return litset.New(lits...)
})

// MayFailBind is a cheap test that a line may say a port could not be
// bound: it holds a literal of a rule with that cause. Classify decides.
func MayFailBind(line string) bool {
	return bindLits().Scan(line) != 0
}
