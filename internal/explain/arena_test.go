package explain

import (
	"strings"
	"testing"
)

func TestArena(t *testing.T) {
	var a arena
	src := []byte("first line")
	kept := a.clone(string(src))
	copy(src, "XXXXXXXXXX")
	var all []string
	for i := range 3000 {
		s := strings.Repeat(string(rune('a'+i%26)), i%40)
		all = append(all, a.clone(s))
	}
	long := strings.Repeat("z", arenaOwnLine)
	if got := a.clone(long); got != long {
		t.Fatalf("long line: got %d bytes", len(got))
	}
	if kept != "first line" {
		t.Fatalf("kept = %q, want %q", kept, "first line")
	}
	for i, s := range all {
		if want := strings.Repeat(string(rune('a'+i%26)), i%40); s != want {
			t.Fatalf("line %d = %q, want %q", i, s, want)
		}
	}
	if a.clone("") != "" {
		t.Fatal("empty line")
	}
}
