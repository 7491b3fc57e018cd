package monitor

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"vigil/internal/judge"
	"vigil/internal/logline"
	"vigil/internal/observe"
	v "vigil/internal/verdict"
)

// The session's own clock, ticker and channels decide a stall exactly
// --stall-after after the last sign of progress; synctest runs the minutes
// of fake time in microseconds.
func TestStallOnTheFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		j := judge.New(judge.Config{Server: "sglang", StallAfter: 5 * time.Minute, Timeout: time.Hour}, start)
		lines := make(chan []logline.Line, 16)
		activity := make(chan observe.Activity, 16)
		var events []string
		s := &Session{Judge: j, Now: time.Now, Lines: lines, Activity: activity,
			Sink: func(e observe.Event) { events = append(events, string(e.Kind())) }}
		go func() {
			lines <- []logline.Line{{Text: "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"}}
			// Busy for ten minutes without a line: still progressing.
			for range 20 {
				time.Sleep(30 * time.Second)
				activity <- observe.Activity{Busy: true, Detail: "cpu 2.0 cores"}
			}
			// Then nothing at all.
		}()
		r, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != v.Stalled || r.Phase != v.Weights {
			t.Fatalf("got %s in %s, want stalled in weights", r.Verdict, r.Phase)
		}
		took := r.At.Sub(start)
		want := 10*time.Minute + 5*time.Minute
		if took < want || took > want+100*time.Millisecond {
			t.Errorf("stalled after %s, want %s", took, want)
		}
	})
}

func TestExitWaitsForTheLinesBeforeIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		j := judge.New(judge.Config{Server: "vllm", StallAfter: time.Minute, Timeout: time.Hour}, start)
		lines := make(chan []logline.Line, 16)
		exit := make(chan observe.Exit, 1)
		// One read's batch: a traceback, judged line by line in order.
		tb := []string{
			"Traceback (most recent call last):",
			`  File "/x/vllm/__init__.py", line 3, in <module>`,
			"ImportError: /x/_C.abi3.so: undefined symbol: _ZN5torch",
		}
		var batch []logline.Line
		for _, l := range tb {
			batch = append(batch, logline.Line{Text: l})
		}
		lines <- batch
		exit <- observe.Exit{Code: 1}
		s := &Session{Judge: j, Now: time.Now, Lines: lines, Exit: exit}
		r, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if r.Cause != v.Dependency {
			t.Errorf("cause %s, want dependency: the exit was judged before the line that explains it", r.Cause)
		}
		if got := j.LastLine(); got != tb[len(tb)-1] {
			t.Errorf("last line judged %q, want the batch's last, %q", got, tb[len(tb)-1])
		}
	})
}

func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := judge.New(judge.Config{Server: "vllm", StallAfter: time.Hour, Timeout: time.Hour}, time.Now())
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(time.Second); cancel() }()
		s := &Session{Judge: j, Now: time.Now}
		if _, err := s.Run(ctx); err != context.Canceled {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

// A fatal line whose evidence is complete is decided the judge's short
// quiet after it, to within the session's fast tick once a startup is
// failing, not its regular 50 ms one.
func TestFatalLineDecidedSoonAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		j := judge.New(judge.Config{Server: "sglang", StallAfter: time.Minute, Timeout: time.Hour}, start)
		lines := make(chan []logline.Line, 16)
		s := &Session{Judge: j, Now: time.Now, Lines: lines}
		const at = 1234 * time.Millisecond
		go func() {
			lines <- []logline.Line{{Text: "[2026-11-29 10:00:01] INFO:     Application startup complete."}}
			time.Sleep(at)
			lines <- []logline.Line{{Text: "[2026-11-29 10:00:01] ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 10000): address already in use"}}
		}()
		r, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if r.Cause != v.PortInUse {
			t.Fatalf("cause %s (%s), want port_in_use", r.Cause, r.Summary)
		}
		took := r.At.Sub(start) - at
		if took < judge.SettleShort || took > judge.SettleShort+failingTick {
			t.Errorf("decided %s after the fatal line, want within %s of %s", took, failingTick, judge.SettleShort)
		}
	})
}

// A note queued before a batch of lines (a rotated log) is shown before
// the batch is judged, even when the batch decides: with the note and the
// lines both waiting, the loop's select alone would take either first.
func TestNoteBeforeTheLinesQueuedAfterIt(t *testing.T) {
	for range 20 { // a random select takes the note first half the time
		synctest.Test(t, func(t *testing.T) {
			j := judge.New(judge.Config{Server: "vllm", StallAfter: time.Minute, Timeout: time.Hour}, time.Now())
			lines := make(chan []logline.Line, 16)
			notes := make(chan string, 16)
			exit := make(chan observe.Exit, 1)
			notes <- "server.log now names a new file; reading it from the start"
			lines <- []logline.Line{
				{Text: "Traceback (most recent call last):"},
				{Text: "ImportError: /x/_C.abi3.so: undefined symbol: _ZN5torch"},
			}
			exit <- observe.Exit{Code: 1}
			var shown []string
			s := &Session{Judge: j, Now: time.Now, Lines: lines, Exit: exit, Notes: notes,
				OnNote: func(_ time.Time, n string) { shown = append(shown, n) }}
			r, err := s.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != v.Failed || len(shown) != 1 {
				t.Fatalf("verdict %s, notes shown %q: want failed, after the note", r.Verdict, shown)
			}
		})
	}
}
