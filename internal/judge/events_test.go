package judge

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"vigil/internal/classify"
	"vigil/internal/logline"
	"vigil/internal/observe"
)

// TestNoProgressEvents: a judge told its caller reads no Progress events
// makes none, still knows the latest bar, and emits the rest as before.
func TestNoProgressEvents(t *testing.T) {
	start := time.Date(2026, 5, 19, 10, 0, 0, 0, time.UTC)
	lines := []string{
		"[2026-05-19 10:00:00] server_args=ServerArgs(model_path='x')",
		"[2026-05-19 10:00:01] Load weight begin. avail mem=78.50 GB",
		"Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01,  1.00it/s]",
	}
	kinds := func(cfg Config) (map[string]int, *classify.Progress) {
		j := New(cfg, start)
		for i, l := range lines {
			j.Line(logline.Line{Text: l}, start.Add(time.Duration(i)*time.Second))
		}
		n := map[string]int{}
		for _, e := range j.Events() {
			n[fmt.Sprintf("%T", e.Data)]++
		}
		return n, j.Progress()
	}
	all, p1 := kinds(Config{Server: "sglang"})
	quiet, p2 := kinds(Config{Server: "sglang", NoProgressEvents: true})
	if all["observe.Progress"] == 0 {
		t.Fatalf("the bar made no Progress event: %v", all)
	}
	if quiet["observe.Progress"] != 0 {
		t.Errorf("NoProgressEvents: %d Progress events", quiet["observe.Progress"])
	}
	delete(all, "observe.Progress")
	if !reflect.DeepEqual(all, quiet) {
		t.Errorf("other events: %v, want %v", quiet, all)
	}
	if p1 == nil || p2 == nil || *p1 != *p2 {
		t.Errorf("latest bar: %v, want %v", p2, p1)
	}
}

// TestDrainEvents: DrainEvents hands over the events Events would return,
// in order, and forgets them.
func TestDrainEvents(t *testing.T) {
	start := time.Date(2026, 5, 19, 10, 0, 0, 0, time.UTC)
	feed := func(j *Judge, from int) {
		for i := from; i < from+3; i++ {
			j.Line(logline.Line{Text: fmt.Sprintf("[2026-05-19 10:00:0%d] Load weight begin. avail mem=78.50 GB", i)}, start.Add(time.Duration(i)*time.Second))
		}
		j.Line(logline.Line{Text: "[2026-05-19 10:00:09] KV Cache is allocated. #tokens: 1000"}, start.Add(9*time.Second))
	}
	a, b := New(Config{Server: "sglang"}, start), New(Config{Server: "sglang"}, start)
	for round := range 2 {
		feed(a, round)
		feed(b, round)
		want := a.Events()
		if round == 0 && len(want) == 0 {
			t.Fatal("the lines made no events: the test proves nothing")
		}
		var got []observe.Event
		b.DrainEvents(func(e observe.Event) { got = append(got, e) })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: drained %v, want %v", round, got, want)
		}
		if n := len(b.Events()); n != 0 {
			t.Fatalf("round %d: %d events left after draining", round, n)
		}
	}
}
