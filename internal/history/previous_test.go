package history

import (
	"context"
	"testing"
	"time"
)

func TestPrevious(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	at := func(sec int64) time.Time { return time.UnixMilli(1_780_000_000_000 + sec*1000) }
	rec := func(model, host, verdict string, sec int64) Startup {
		st := sample(model, 0)
		st.Host, st.Verdict, st.StartedAt = host, verdict, at(sec)
		id, err := s.Record(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		st.ID = id
		return st
	}
	good := rec("llama", "gpu-01", "ready", 10)
	failed := rec("llama", "gpu-01", "failed", 20)
	rec("llama", "gpu-02", "ready", 25) // another host
	rec("qwen", "gpu-01", "ready", 26)  // another model
	// Same start time as the next one: the ID orders them.
	sameTime := rec("llama", "gpu-01", "ready", 30)
	last := rec("llama", "gpu-01", "failed", 30)

	tests := []struct {
		name      string
		of        Startup
		readyOnly bool
		want      int64 // 0: none
	}{
		{"the one before", failed, false, good.ID},
		{"skips other hosts and models", last, false, sameTime.ID},
		{"same start time: the lower ID", last, false, sameTime.ID},
		{"ready only skips failures", sameTime, true, good.ID},
		{"the first has none", good, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := s.Previous(ctx, tc.of, tc.readyOnly)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == 0 {
				if ok {
					t.Fatalf("got startup %d, want none", got.ID)
				}
				return
			}
			if !ok || got.ID != tc.want {
				t.Fatalf("got %d (ok %v), want %d", got.ID, ok, tc.want)
			}
		})
	}
}
