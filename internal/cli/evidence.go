package cli

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"vigil/internal/gpu"
	"vigil/internal/judge"
	"vigil/internal/procstat"
	v "vigil/internal/verdict"
)

// treeRSS is the server tree's resident memory at the last sample, kept for
// the OOM attribution when the server is killed.
type treeRSS struct{ bytes atomic.Int64 }

// sampleGPU reports GPU memory that moves as progress (weights being
// copied, the KV pool allocated), and says once if nvidia-smi hangs, which
// is itself a sign of a GPU in trouble. Without nvidia-smi it does nothing.
func (j *judging) sampleGPU(ctx context.Context) {
	client := &gpu.Client{Timeout: 5 * time.Second}
	prev := client.Snapshot(ctx)
	if !prev.Available && !prev.Hung {
		return
	}
	saidHung := false
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cur := client.Snapshot(ctx)
		if cur.Hung && !saidHung {
			saidHung = true
			select {
			case j.notes <- "nvidia-smi does not answer: a GPU may have fallen off the bus (check dmesg for Xid errors)":
			default:
			}
		}
		if cur.Available && prev.Available && cur.Progress(prev) {
			select {
			case j.activity <- judge.Activity{Busy: true, Detail: "GPU memory moving: " + cur.Summary()}:
			default:
			}
		}
		if cur.Available {
			prev = cur
		}
	}
}

// diagnoseStall adds where the server's processes wait to a stall verdict:
// idle processes and their wait channels, a Python stack dump when py-spy
// is installed, and the GPUs' state. It runs before vigil stops anything.
func diagnoseStall(res *judge.Result, pid int) {
	if res.Verdict != v.Stalled || pid <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	fs := procstat.FS{}
	pids, err := fs.Tree(pid)
	if err == nil && len(pids) > 0 {
		diags, err := fs.Diagnose(ctx, pids, 300*time.Millisecond)
		if err == nil {
			for i, d := range diags {
				if i == 8 {
					res.Evidence = append(res.Evidence, fmt.Sprintf("[vigil] ... and %d more processes", len(diags)-i))
					break
				}
				res.Evidence = append(res.Evidence, "[vigil] "+d.String())
			}
		}
	}
	if dump, err := procstat.PySpyDump(ctx, pid); err == nil && dump != "" {
		lines := strings.Split(strings.TrimSpace(dump), "\n")
		if len(lines) > 12 {
			lines = lines[:12]
		}
		for _, l := range lines {
			res.Evidence = append(res.Evidence, "[py-spy] "+l)
		}
	}
	if snap := gpu.Query(ctx); snap.Available || snap.Hung {
		res.Evidence = append(res.Evidence, "[vigil] GPUs: "+snap.Summary())
	}
}

// memoryPressure describes the tree's memory against the machine's just
// before a SIGKILL, for the host_oom evidence.
func memoryPressure(rss int64) string {
	mi, err := procstat.FS{}.MemInfo()
	if err != nil || mi.Total == 0 || rss == 0 {
		return ""
	}
	return fmt.Sprintf("just before, the server's processes used %s of the machine's %s (%s available)",
		procstat.FormatBytes(rss), procstat.FormatBytes(mi.Total), procstat.FormatBytes(mi.Available))
}
