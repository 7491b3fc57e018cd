package facts

import "vigil/internal/verdict"

// Exit statuses of a supervisor beyond the startup verdicts'
// ([verdict.Verdict.ExitCode]: 0 ready, 1 failed, 3 stalled, 124 timeout).
const (
	// ExitDied: the server died after ready without being asked to.
	ExitDied = 4
	// ExitHung: the server hung after ready and vigil stopped it.
	ExitHung = 5
	// ExitSignalBase plus N: a stop asked for by signal N, after which the
	// server did not end cleanly.
	ExitSignalBase = 128
)

// ExitStatus is the status a supervisor exits with once the server is gone
// and s is final; it is the one place that decides it.
//
// A startup that failed keeps its verdict's status. A stop that was asked
// for ends with 0 when the server then ended by itself (status 0, or the
// signal it was sent, or the 128 plus that signal a shell wrapper exits
// with for it), else 128 plus the signal. Otherwise a hang is 5, and
// any other end after ready 4.
func (s Snapshot) ExitStatus() int {
	switch {
	case s.StartupFailed():
		return s.Verdict.ExitCode()
	case s.StopSignal != 0:
		if e := s.Exit; e != nil && !e.Forced && cleanStop(*e, s.StopSignal) {
			return 0
		}
		return ExitSignalBase + s.StopSignal
	case s.Hung:
		return ExitHung
	case s.Ready:
		return ExitDied
	}
	// The server ended during the startup with no verdict: the monitor
	// judges every such end, so this is a failed startup all the same.
	return verdict.Failed.ExitCode()
}

func cleanStop(e Exit, sig int) bool {
	if e.Signal != 0 {
		return e.Signal == sig
	}
	return e.Code == 0 || e.Code == ExitSignalBase+sig
}
