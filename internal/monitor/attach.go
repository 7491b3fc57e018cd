package monitor

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"vigil/internal/explain"
	"vigil/internal/follow"
	"vigil/internal/logline"
	"vigil/internal/stamp"
)

// startSlack absorbs the coarseness of process start and file times: the
// start time is to the 10 ms clock tick, the boot time to /proc/uptime's
// hundredths. Only llama-server prints within 50 ms of starting, and its
// lines carry their own clock, which findRunStart reads instead.
const startSlack = 50 * time.Millisecond

// skew is how far a line's timestamp may precede the process's start time
// and still belong to it (second-resolution stamps, clock rounding).
const skew = 2 * time.Second

// pastRun is what attaching needs to know of a run already in the log.
type pastRun struct {
	offset, firstLine, lines int64
	start, end               time.Time
	timed                    bool
	// relEnd is the last reading of llama.cpp's clock of time since its
	// process started, when the run's lines carry it (relative).
	relEnd   time.Duration
	relative bool
	ended    string // "with CAUSE", "ready", "in phase P"
}

// FindRunStart decides where this run begins in the existing log at path,
// written by a process that started at procStart (zero: unknown), and says
// what it skipped ("" when nothing).
// A log that is not there yet is all this run's.
//
// The runs are those explain finds in the file (start banners, crash
// blocks, restarts after a failure), so that watch and explain cut a file
// the same way. The writer's start time then picks the current one: a log
// not written since the process started holds nothing of this run yet; the
// first run stamped at or after the start is this one (from its first line
// so stamped, when an older run runs into it without a banner); a run
// without stamps after the last old stamp is this one. Without a start
// time the last run is this one.
func FindRunStart(path, kind string, procStart time.Time) (int64, string) {
	return findRunStart(path, kind, procStart, false)
}

// FindStreamRunStart is FindRunStart for what a stream held when vigil
// attached (`kubectl logs -f` writes the earlier output in one burst): a
// last run there that already failed is an earlier run, and this one has
// not printed yet.
func FindStreamRunStart(path, kind string) (int64, string) {
	return findRunStart(path, kind, time.Time{}, true)
}

func findRunStart(path, kind string, procStart time.Time, stream bool) (int64, string) {
	f, err := os.Open(path)
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return 0, ""
	}
	size := fi.Size()
	var runs []pastRun
	_ = explain.Read(io.NewSectionReader(f, 0, size), explain.Options{Server: kind, Workers: 1}, func(r *explain.Run) {
		runs = append(runs, pastRunOf(r))
	})
	if len(runs) == 0 {
		return 0, ""
	}

	cur, how := len(runs)-1, "start banner" // the run this one is, len(runs): none yet
	offset := runs[cur].offset
	switch {
	case !procStart.IsZero() && fi.ModTime().Before(procStart.Add(startSlack)):
		cur, offset, how = len(runs), size, "the log was last written before the process started"
		// llama-server prints its first lines within milliseconds, inside
		// the slack; its clock counts from its process's start, so the
		// last write less that reading is when the run's process started.
		if last := runs[len(runs)-1]; last.relative && near(fi.ModTime().Add(-last.relEnd), procStart, startSlack) {
			cur, offset, how = len(runs)-1, last.offset, "process start time against the run's own clock"
		}
	case !procStart.IsZero():
		cur, offset, how = byStartTime(f, runs, procStart, size)
	case stream && strings.HasPrefix(runs[cur].ended, "with "):
		cur, offset, how = len(runs), size, "the stream's earlier output ends in a failure"
	}
	if offset == 0 || cur == 0 {
		return 0, ""
	}
	prev := runs[cur-1]
	if atRun := cur < len(runs) && offset == runs[cur].offset; !atRun && offset != size {
		// This run began inside one explain found, with no banner
		// between: the earlier run is what comes before it.
		prev = pastRun{}
		_ = explain.Read(io.NewSectionReader(f, 0, offset), explain.Options{Server: kind, Workers: 1}, func(r *explain.Run) {
			prev = pastRunOf(r)
		})
	}
	note := fmt.Sprintf("ignored %d lines from an earlier run", prev.firstLine+prev.lines-1)
	if prev.timed {
		note += " that ended " + prev.end.Format("15:04:05")
	}
	if prev.ended != "" {
		note += " " + prev.ended
	}
	return offset, note + " (" + how + ")"
}

// byStartTime picks the run the process that started at procStart writes:
// its index (len(runs) when it has printed nothing yet), where it starts
// and why.
func byStartTime(f io.ReaderAt, runs []pastRun, procStart time.Time, size int64) (int, int64, string) {
	since := procStart.Add(-skew)
	lastTimed := -1
	for i, r := range runs {
		if !r.timed {
			continue
		}
		lastTimed = i
		if r.end.Before(since) {
			continue
		}
		if !r.start.Before(since) {
			how := "process start time"
			if i > 0 && runs[i-1].timed && runs[i-1].end.Before(since) {
				how = "process start time and start banner"
			}
			return i, r.offset, how
		}
		// An older run runs into this one without a banner between: this
		// one starts at its first line stamped since the start.
		if off, ok := firstStampedSince(f, r.offset, size, since); ok {
			if i+1 < len(runs) && off >= runs[i+1].offset {
				return i + 1, runs[i+1].offset, "process start time"
			}
			return i + 1, off, "process start time"
		}
	}
	// Every stamped line is older than the process: none is this run's,
	// unless a run without stamps follows the last of them.
	if lastTimed >= 0 && lastTimed+1 < len(runs) {
		return lastTimed + 1, runs[lastTimed+1].offset, "process start time and start banner"
	}
	if lastTimed < 0 {
		// No stamps at all: the start time cannot tell; the banners can.
		return len(runs) - 1, runs[len(runs)-1].offset, "start banner"
	}
	return len(runs), size, "process start time"
}

// firstStampedSince finds the first line from offset on stamped at or
// after since.
func firstStampedSince(f io.ReaderAt, from, size int64, since time.Time) (int64, bool) {
	sr := stamp.NewReader(time.Local, time.Now())
	found := int64(-1)
	_ = follow.ReadAll(io.NewSectionReader(f, from, size-from), func(l logline.Line) {
		if found >= 0 || l.CR {
			return
		}
		if t := sr.Of(l.Text); t != 0 && !time.Unix(0, t).Before(since) {
			found = from + l.Offset
		}
	})
	return found, found >= 0
}

func pastRunOf(r *explain.Run) pastRun {
	p := pastRun{offset: r.Offset, firstLine: r.FirstLine, lines: r.Lines, start: r.Start, end: r.End, timed: r.Timed && !r.Relative}
	if r.Timed && r.Relative {
		p.relative, p.relEnd = true, r.End.Sub(time.Unix(0, 0)) // stamped from the Unix epoch
	}
	switch {
	case r.Verdict == "failed":
		p.ended = "with " + string(r.Cause)
	case r.Verdict == "ready":
		p.ended = "ready"
	case r.Phase != "":
		p.ended = "in phase " + string(r.Phase)
	}
	return p
}

// near reports whether a and b are at most d apart.
func near(a, b time.Time, d time.Duration) bool {
	return a.Sub(b).Abs() <= d
}
