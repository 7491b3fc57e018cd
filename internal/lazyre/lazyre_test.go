package lazyre

import "testing"

func TestGetCompilesOnce(t *testing.T) {
	r := &Regexp{src: `^a(\d+)$`}
	if r.re != nil {
		t.Fatal("compiled before Get")
	}
	first := r.Get()
	if m := first.FindStringSubmatch("a42"); len(m) != 2 || m[1] != "42" {
		t.Errorf("FindStringSubmatch = %q", m)
	}
	if r.Get() != first {
		t.Error("Get compiled again")
	}
}

func TestSources(t *testing.T) {
	n := len(Sources())
	New(`x+`)
	if got := Sources(); len(got) != n+1 || got[n] != `x+` {
		t.Errorf("Sources = %q, want it to end in the new expression", got)
	}
}

func TestGetPanicsOnABadExpression(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	(&Regexp{src: `(`}).Get()
}
