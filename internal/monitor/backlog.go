package monitor

import (
	"io"
	"os"
	"time"

	"vigil/internal/follow"
	"vigil/internal/logline"
	"vigil/internal/stamp"
)

// Backlog is the part of the current run that was already in the log when
// vigil attached. Read as it arrives, all of it would seem to happen at the
// moment of attaching, and every phase would last 0 s; so its lines are
// timed by their own stamps instead, shifted so that the last stamped one
// falls on the moment of attaching. Only differences between stamps count,
// so a server logging in another time zone is timed right too, and the
// quiet before a stall is measured from the attach, as without stamps.
type Backlog struct {
	// End is the log's size when vigil attached: lines that start before
	// it are the backlog.
	End int64

	shift  time.Duration // from a stamp to vigil's clock
	first  time.Time     // the first stamped line on vigil's clock (zero: none)
	stamps *stamp.Reader
	last   time.Time // the last line's time: times never go back
}

// ReadBacklog reads the log at path from offset to its current end and
// returns how to time those lines; now is the moment of attaching. It
// returns nil when there is nothing there, or nothing stamped.
func ReadBacklog(path string, offset int64, now time.Time) *Backlog {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= offset {
		return nil
	}
	end := fi.Size()
	sr := stamp.NewReader(time.Local, now)
	var first, last int64
	_ = follow.ReadAll(io.NewSectionReader(f, offset, end-offset), func(l logline.Line) {
		if t := sr.Of(l.Text); t != 0 {
			if first == 0 {
				first = t
			}
			last = max(last, t)
		}
	})
	if first == 0 {
		return nil
	}
	shift := now.Sub(time.Unix(0, last))
	return &Backlog{End: end, shift: shift, first: time.Unix(0, first).Add(shift), stamps: stamp.NewReader(time.Local, now)}
}

// Start is when the run began on vigil's clock, by its first stamp (zero
// for a nil Backlog).
func (b *Backlog) Start() time.Time {
	if b == nil {
		return time.Time{}
	}
	return b.first
}

// At is the time to judge line l at, now being the time it was read: its
// stamp's for a backlog line (the line before's when it has none), now for
// every later line.
func (b *Backlog) At(l logline.Line, now time.Time) time.Time {
	if b == nil || l.Offset >= b.End {
		return now
	}
	t := b.last
	if ts := b.stamps.Of(l.Text); ts != 0 {
		t = time.Unix(0, ts).Add(b.shift)
	}
	if t.Before(b.first) {
		t = b.first
	}
	if t.Before(b.last) {
		t = b.last
	}
	if t.After(now) {
		t = now
	}
	b.last = t
	return t
}
