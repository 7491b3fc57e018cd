package journal

import (
	"time"

	"vigil/internal/logline"
)

// Lines turns entries into [logline.Line]s, splitting each message on
// "\n", "\r\n" and "\r": journald only splits a stream on "\n", so a tqdm
// progress bar arrives as one message full of carriage-return redraws.
// An entry marked Continued leaves its line open for the next entry of
// the same PID. The zero value is ready to use.
type Lines struct {
	sp      logline.Splitter
	open    bool // the last entry was Continued
	openPID int
}

var newline = []byte{'\n'}

// Write calls emit for each line completed by e. A line's At is the
// entry's journal time (the read time when the entry has none), so that
// entries replayed from before vigil started keep their real times.
// Offsets count message bytes so far, plus one newline per entry.
func (l *Lines) Write(e Entry, emit func(logline.Line)) {
	at := e.Time
	if at.IsZero() {
		at = time.Now()
	}
	stamp := func(x logline.Line) {
		x.At = at
		emit(x)
	}
	if l.open && e.PID != l.openPID {
		// Another process logged before the split line went on: end it.
		l.sp.Flush(stamp)
	}
	l.sp.Write([]byte(e.Message), stamp)
	if e.Continued {
		l.open, l.openPID = true, e.PID
		return
	}
	l.open = false
	l.sp.Write(newline, stamp)
}

// Pending returns the unfinished line left by a Continued entry, as a
// Partial line, if there is one.
func (l *Lines) Pending() (logline.Line, bool) { return l.sp.Pending() }
