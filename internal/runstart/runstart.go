// Package runstart finds where the current run of a server starts in a log
// file that also holds earlier runs (a nohup log appended to, a unit's
// journal), so that a stale "ready" line or a stale traceback never decides
// this run's verdict.
//
// It uses, in order of trust: the process's start time against the
// timestamps that SGLang, vLLM, TGI and TensorRT-LLM lines carry; the start
// banners each server prints; and the file's modification time (a file not
// written since the process started holds nothing of this run yet).
package runstart

import (
	"io"
	"time"

	"vigil/internal/classify"
	"vigil/internal/follow"
	"vigil/internal/logline"
	"vigil/internal/stamp"
)

// Input describes the file and the process.
type Input struct {
	// Kind is the server kind, or "".
	Kind string
	// ProcStart is when the server process started; zero when unknown.
	ProcStart time.Time
	// ModTime is the file's modification time when vigil attached.
	ModTime time.Time
	// Size is the file's size when vigil attached.
	Size int64
	// Loc is the zone of the servers' local timestamps (time.Local).
	Loc *time.Location
}

// Finding says where this run starts and what came before it.
type Finding struct {
	// Offset is where this run's first line starts.
	Offset int64
	// StaleLines counts the lines before Offset.
	StaleLines int
	// StaleEnd is the last timestamp seen before Offset, if any.
	StaleEnd time.Time
	// How says which evidence decided ("start time", "banner", ...).
	How string
}

// startSlack absorbs the coarseness of process start and file times.
const startSlack = 50 * time.Millisecond

// skew is how far a line's timestamp may precede the process's start time
// and still belong to it (second-resolution stamps, clock rounding).
const skew = 2 * time.Second

func isBanner(msg string) bool { return classify.BannerServer(msg) != "" }

// Find reads the existing content r (up to in.Size bytes) and decides.
func Find(r io.Reader, in Input) (Finding, error) {
	if in.Loc == nil {
		in.Loc = time.Local
	}
	// Nothing written since the process started: this run has printed
	// nothing yet, everything in the file is stale.
	// Both times are coarse (the start time to the 10 ms clock tick, the
	// boot time to /proc/uptime's hundredths), so allow a little: no
	// server prints its first line within 50 ms of starting, while taking
	// an earlier run's lines for this run's would judge the wrong run.
	nothingNew := !in.ProcStart.IsZero() && !in.ModTime.IsZero() && in.ModTime.Before(in.ProcStart.Add(startSlack))

	// One pass, keeping only what is needed: the start of the last banner
	// block, and the first line stamped at or after the process start.
	var (
		prevBanner, prevPre bool
		lastBlock           int64 = -1 // start of the last banner block
		preStart            int64 = -1 // start of a run of pre-banner lines
		firstNew            int64 = -1 // first line stamped >= ProcStart-skew
		blockBeforeNew      int64 = -1 // banner block start preceding firstNew with no old stamp between
		lastOld             time.Time
		oldSinceBlock       bool
		lastStamp           time.Time // any line's
		endBeforeBlock      time.Time // lastStamp when the last banner block began
	)

	now := time.Now()
	err := follow.ReadAll(io.LimitReader(r, in.Size), func(l logline.Line) {
		if l.CR {
			return
		}
		p := classify.ParseFast(l.Text)
		var at time.Time
		if ns, ok := stamp.Parse(p.Stamp, stamp.KindOf(p.StampKind), in.Loc, now); ok {
			at = time.Unix(0, ns).In(in.Loc)
		}
		banner := isBanner(p.Msg)
		pre := !banner && classify.IsPreBanner(l.Text)
		if pre && !prevPre {
			preStart = l.Offset
		}
		if banner && !prevBanner {
			start := l.Offset
			if prevPre && preStart >= 0 {
				start = preStart
			}
			lastBlock = start
			oldSinceBlock = false
			endBeforeBlock = lastStamp
		}
		prevBanner, prevPre = banner, pre
		if !at.IsZero() {
			lastStamp = at
		}
		if !at.IsZero() && !in.ProcStart.IsZero() && firstNew < 0 {
			if at.Before(in.ProcStart.Add(-skew)) {
				lastOld = at
				oldSinceBlock = true
			} else {
				firstNew = l.Offset
				if lastBlock >= 0 && !oldSinceBlock {
					blockBeforeNew = lastBlock
				}
			}
		} else if !at.IsZero() && firstNew < 0 {
			lastOld = at
		}
	})
	if err != nil {
		return Finding{}, err
	}
	f := Finding{Offset: 0, How: "no earlier run found"}
	switch {
	case nothingNew:
		f.Offset, f.How = in.Size, "the log was last written before the process started"
	case firstNew >= 0 && blockBeforeNew >= 0:
		f.Offset, f.How = blockBeforeNew, "process start time and start banner"
	case firstNew >= 0:
		f.Offset, f.How = firstNew, "process start time"
	case !in.ProcStart.IsZero() && !lastOld.IsZero():
		// Stamped lines, all older than the process: none is this run's,
		// unless a start banner follows the last of them.
		f.Offset, f.How = in.Size, "process start time"
		if lastBlock >= 0 && !oldSinceBlock {
			f.Offset, f.How = lastBlock, "process start time and start banner"
		}
	case lastBlock >= 0:
		// Without the process's start time every stamp counts as old,
		// this run's too: the earlier run ended before its banner.
		f.Offset, f.How = lastBlock, "start banner"
		lastOld = endBeforeBlock
	}
	if f.Offset > 0 {
		f.StaleEnd = lastOld
		f.StaleLines = countLines(r, f.Offset)
	}
	return f, nil
}

// countLines counts the stale part's lines, for the "ignored N lines from
// an earlier run" note.
func countLines(r io.Reader, end int64) int {
	rs, ok := r.(io.ReadSeeker)
	if !ok {
		return 0
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return 0
	}
	n := 0
	_ = follow.ReadAll(io.LimitReader(rs, end), func(l logline.Line) {
		if !l.CR {
			n++
		}
	})
	return n
}
