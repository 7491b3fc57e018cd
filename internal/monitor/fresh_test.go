package monitor

import (
	"context"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"vigil/internal/judge"
	v "vigil/internal/verdict"
)

// A log truncated or rotated while watch follows it holds a new run: the
// judge starts over at its first line, so the earlier run's phases are not
// this start's, and the start is timed from the new content.
func TestTruncatedOrRotatedLogIsANewRun(t *testing.T) {
	const (
		args  = "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')"
		load  = "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB"
		ready = "[2026-11-29 11:00:09] The server is fired up and ready to roll!"
	)
	tests := []struct {
		name    string
		replace func(t *testing.T, path, content string)
	}{
		{"truncate, then write", func(t *testing.T, path, content string) {
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
			// The follower polls between the two, as it would in life: a
			// file truncated and written past its old size in the same
			// instant looks like one that grew (tail -F cannot tell
			// either), and the test raced on which the follower saw.
			time.Sleep(time.Second)
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(content); err != nil {
				t.Fatal(err)
			}
		}},
		{"rename, then create", func(t *testing.T, path, content string) {
			if err := os.Rename(path, path+".1"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				log := writeLog(t, args, load)
				spec := Spec{
					Judge: judge.Config{Server: "sglang", StallAfter: time.Hour, Timeout: 2 * time.Hour, SplitRuns: true},
					Start: time.Now(), Log: log, URL: "http://127.0.0.1:30000",
				}
				go func() {
					time.Sleep(30 * time.Second)
					tt.replace(t, log, args+"\n"+ready+"\n")
				}()
				s := &sink{}
				out, err := Run(context.Background(), spec, deps(t.TempDir(), &fakeHealth{code: 200}), s)
				if err != nil {
					t.Fatal(err)
				}
				r := out.Result
				if r.Verdict != v.Ready {
					t.Fatalf("verdict %s (%s), want ready", r.Verdict, r.Summary)
				}
				for _, p := range r.Phases {
					if p.Phase == v.Weights {
						t.Errorf("phases %v hold the earlier run's weights", r.Phases)
					}
				}
				if took := r.At.Sub(r.Phases[0].Start); took > 2*time.Second {
					t.Errorf("ready %s after the run's start, want the start at the new content (%s)", took, r.Summary)
				}
				if !strings.Contains(strings.Join(s.notes, "\n"), "from the start") {
					t.Errorf("notes %q say nothing of the new content", s.notes)
				}
			})
		})
	}
}
