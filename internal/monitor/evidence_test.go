package monitor

import (
	"context"
	"testing"
	"time"

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
