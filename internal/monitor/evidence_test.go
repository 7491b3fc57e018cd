package monitor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vigil/internal/logcopy"
	"vigil/internal/observe"
	"vigil/internal/oomkill"
	"vigil/internal/procstat"
)

// The exit says the kernel log cleared the OOM killer only when the log
// was read back to the server's start, as the monitor noted it.
func TestAttributeKill(t *testing.T) {
	log := "[   10.000000] boot\n[   30.000000] something else\n"
	oom := log + "[   31.000000] Out of memory: Killed process 7 (llama-server) total-vm:1kB, anon-rss:1kB\n"
	tests := []struct {
		name       string
		log        string
		start      time.Duration // the server's start as noted (0: never sampled)
		wantRecord bool
		wantRead   bool
	}{
		{"readable, reaches back, no record", log, 20 * time.Second, false, true},
		{"the log starts after the server", log, 5 * time.Second, false, false},
		{"start never noted", log, 0, false, false},
		{"an OOM record", oom, 20 * time.Second, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := oomkill.SourceFunc(func(context.Context) ([]byte, error) { return []byte(tt.log), nil })
			m := &monitor{spec: Spec{PID: 7}, deps: Deps{OOMRecord: func(ctx context.Context, p oomkill.Proc) oomkill.Result {
				return oomkill.Finder{Sources: []oomkill.Source{src}}.Search(ctx, p)
			}}}
			if tt.start > 0 {
				m.seen.add([]procstat.Proc{{PID: 7, Start: tt.start}})
			}
			e := observe.Exit{Signal: "SIGKILL"}
			m.attributeKill(t.Context(), &e)
			if (e.OOMRecord != "") != tt.wantRecord || e.KernelLogRead != tt.wantRead {
				t.Errorf("got record %q, read %v; want record %v, read %v", e.OOMRecord, e.KernelLogRead, tt.wantRecord, tt.wantRead)
			}
		})
	}
}

// What the copier counted reaches the full-disk message: the exact count
// once it is final, "so far" while the server writes on, and a killed
// copier named.
func TestLogLossMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(path, make([]byte, 1234), 0o600); err != nil {
		t.Fatal(err)
	}
	enospc := "no space left on device"
	tests := []struct {
		name     string
		loss     *logcopy.State
		want     bool
		contains []string
		lacks    []string
	}{
		{name: "not counted, room left", loss: nil, want: false},
		{name: "counted, nothing lost", loss: &logcopy.State{Loss: logcopy.Loss{Copied: 1234}, Final: true}, want: false},
		{name: "final count", loss: &logcopy.State{Loss: logcopy.Loss{Copied: 1234, Lost: 5678, Err: enospc}, Final: true}, want: true,
			contains: []string{"refused some of the server's output (" + enospc + ")", "its log stops at 1.2 KiB (1234 bytes)", "5678 bytes (5.5 KiB) of the server's output were lost"},
			lacks:    []string{"so far", "killed"}},
		{name: "running count", loss: &logcopy.State{Loss: logcopy.Loss{Lost: 10, Err: enospc}}, want: true,
			contains: []string{"so far 10 bytes", "writes on without errors"}},
		{name: "copier killed", loss: &logcopy.State{Loss: logcopy.Loss{Lost: 10, Err: enospc}, Died: true}, want: true,
			contains: []string{"10 bytes", "copier of its output was killed"}, lacks: []string{"so far"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			full, msg := logDiskFull(path, tc.loss)
			if full != tc.want {
				t.Fatalf("logDiskFull = %v, %q; want %v", full, msg, tc.want)
			}
			for _, s := range tc.contains {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q lacks %q", msg, s)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(msg, s) {
					t.Errorf("message %q has %q", msg, s)
				}
			}
		})
	}
}

// The end of what the log refused becomes evidence, marked as not in
// the log: whole lines only, blank ones left out, a redrawn bar's last
// state, at most refusedLines of them.
func TestRefusedEvidence(t *testing.T) {
	many := ""
	for i := range 20 {
		many += fmt.Sprintf("line %d\n", i)
	}
	tests := []struct {
		name string
		loss *logcopy.State
		want []string
	}{
		{name: "not counted", loss: nil, want: nil},
		{name: "nothing refused", loss: &logcopy.State{}, want: nil},
		{name: "all of it kept", loss: &logcopy.State{Loss: logcopy.Loss{Lost: 43}, Refused: []byte("Traceback:\n\n\x1b[31mRuntimeError: no memory\x1b[0m\n")},
			want: []string{refusedPrefix + "Traceback:", refusedPrefix + "RuntimeError: no memory"}},
		{name: "kept from inside a line", loss: &logcopy.State{Loss: logcopy.Loss{Lost: 1 << 20}, Refused: []byte("f of a line\nwhole line\nunended")},
			want: []string{refusedPrefix + "whole line", refusedPrefix + "unended"}},
		{name: "a long line cut", loss: &logcopy.State{Loss: logcopy.Loss{Lost: 602}, Refused: []byte(strings.Repeat("é", 301))},
			want: []string{refusedPrefix + strings.Repeat("é", 150) + "…"}},
		{name: "a redrawn bar", loss: &logcopy.State{Loss: logcopy.Loss{Lost: 13}, Refused: []byte("10%\r50%\r100%\n")},
			want: []string{refusedPrefix + "100%"}},
		{name: "the last lines", loss: &logcopy.State{Loss: logcopy.Loss{Lost: int64(len(many))}, Refused: []byte(many)},
			want: func() []string {
				var w []string
				for i := 20 - refusedLines; i < 20; i++ {
					w = append(w, fmt.Sprintf("%sline %d", refusedPrefix, i))
				}
				return w
			}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedEvidence(tc.loss); !slices.Equal(got, tc.want) {
				t.Errorf("refusedEvidence = %q, want %q", got, tc.want)
			}
		})
	}
}
