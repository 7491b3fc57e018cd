package history

import (
	"context"
	"reflect"
	"testing"
	"time"

	"vigil/internal/learn"
)

func phases(launch, weights, cudaGraph float64) []learn.Phase {
	return []learn.Phase{{Name: "launch", Seconds: launch}, {Name: "weights", Seconds: weights}, {Name: "cuda_graph", Seconds: cudaGraph}}
}

func TestExpectationFromStore(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	base := sample("m", 0)
	key := KeyOf(base)
	if _, ok, err := s.Expectation(ctx, key); ok || err != nil {
		t.Fatalf("empty store: ok=%v err=%v, want no expectation", ok, err)
	}
	record := func(verdict, fp string, ph []learn.Phase, total float64) {
		st := base
		st.Verdict, st.Fingerprint, st.Phases, st.TotalSeconds = verdict, fp, ph, total
		if _, err := s.Record(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	record("ready", key.Fingerprint, phases(1, 10, 2), 13)
	record("ready", key.Fingerprint, phases(1, 20, 2), 23)
	record("failed", key.Fingerprint, phases(1, 99, 0), 100) // failures are not learnt from
	record("ready", "other", phases(1, 50, 2), 53)           // another configuration
	record("ready", key.Fingerprint, phases(3, 12, 4), 19)

	e, ok, err := s.Expectation(ctx, key)
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	want := learn.Expectation{
		Samples: 3,
		Phases: []learn.PhaseStat{
			{Name: "launch", Typical: time.Second, High: 3 * time.Second, Samples: 3},
			{Name: "weights", Typical: 12 * time.Second, High: 20 * time.Second, Samples: 3},
			{Name: "cuda_graph", Typical: 2 * time.Second, High: 4 * time.Second, Samples: 3},
		},
		TotalTypical: 19 * time.Second, TotalHigh: 23 * time.Second,
	}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("Expectation =\n%+v\nwant\n%+v", e, want)
	}
}

func TestExpectationUsesTheLastSamples(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	base := sample("m", 0)
	for i := 0; i < learn.SampleSize+5; i++ {
		st := base
		st.TotalSeconds = float64(1000 + i) // older runs were slow
		if i >= 5 {
			st.TotalSeconds = 10
		}
		s.Record(ctx, st)
	}
	e, _, _ := s.Expectation(ctx, KeyOf(base))
	if e.Samples != learn.SampleSize || e.TotalHigh != 10*time.Second {
		t.Errorf("Samples %d, TotalHigh %v; want %d, 10s", e.Samples, e.TotalHigh, learn.SampleSize)
	}
}
