package monitor

import (
	"fmt"
	"io"
	"os"

	"vigil/internal/explain"
	"vigil/internal/procfind"
	"vigil/internal/runstart"
)

// FindRunStart decides where this run begins in the existing log at path,
// written by pid (0: unknown), and says what it skipped ("" when nothing).
// A log that is not there yet is all this run's.
func FindRunStart(procs procfind.FS, path, kind string, pid int) (int64, string) {
	f, err := os.Open(path)
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return 0, ""
	}
	in := runstart.Input{Kind: kind, ModTime: fi.ModTime(), Size: fi.Size()}
	if pid > 0 {
		if t, err := procs.StartTime(pid); err == nil {
			in.ProcStart = t
		}
	}
	found, err := runstart.Find(f, in)
	if err != nil || found.Offset == 0 {
		return 0, ""
	}
	note := fmt.Sprintf("ignored %d lines from an earlier run", found.StaleLines)
	if !found.StaleEnd.IsZero() {
		note += " that ended " + found.StaleEnd.Format("15:04:05")
	}
	// How the earlier run ended is what explain says of it.
	var last *explain.Run
	_ = explain.Read(io.NewSectionReader(f, 0, found.Offset), explain.Options{Server: kind, Workers: 1}, func(r *explain.Run) { last = r })
	switch {
	case last == nil:
	case last.Verdict == "failed":
		note += " with " + string(last.Cause)
	case last.Verdict == "ready":
		note += " ready"
	case last.Phase != "":
		note += " in phase " + string(last.Phase)
	}
	note += " (" + found.How + ")"
	return found.Offset, note
}
