// Package report writes startups from the history as one self-contained
// HTML file: a timeline per startup (phases as bars, the failure marked
// with its cause), all of them compared on one time axis, benchmark figures
// against their baselines, the configuration keys that changed since the
// startup before it of the same model on the same host, and the notable
// warnings and kernel configs recorded with it.
//
// The file needs nothing but a browser: the CSS and the SVG are inline, no
// script runs, and its Content-Security-Policy forbids loading anything
// (default-src 'none', the style allowed by its hash). Everything that came
// from a server's log is escaped by html/template.
//
// # Results it reads
//
// Besides the startup's own columns, a startup's attached results (the
// history's Extra) are shown by name:
//
//   - "bench": a vigil bench result (bench.Result), with its baseline
//     comparison when one was made;
//   - "smoke": the smoke test's {ok, reason, endpoint, answer, latency_ms};
//   - "notable": the notable warnings seen, a JSON array whose items are
//     strings or objects (text from "meaning", "title", "message", "text",
//     "summary" or "id"; detail from "line", "evidence", "example" or
//     "file"; "count");
//   - "kernels": the kernel tuning configs, {"tuned": [...], "default":
//     [...]}, items strings or objects (text from "file", "config",
//     "name", "shape", "kernel" or "line");
//
// any other result is listed with its JSON, shortened.
package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"vigil/internal/history"
)

// Store is what a report reads of the history; *history.Store is one.
type Store interface {
	Get(ctx context.Context, id int64) (history.Startup, error)
	List(ctx context.Context, f history.Filter) ([]history.Startup, error)
	Previous(ctx context.Context, st history.Startup, readyOnly bool) (history.Startup, bool, error)
}

// Input is what a report shows: the startups, in the order shown, and for
// each (by ID) the startup before it of the same server and model on the
// same host, when there is one.
type Input struct {
	Startups []history.Startup
	Previous map[int64]history.Startup
}

// Load reads the startups with ids, in that order (repeats dropped), or,
// without ids, those f selects, newest first; and the startup before each.
// An unknown ID gives an error wrapping history.ErrNotFound.
func Load(ctx context.Context, s Store, ids []int64, f history.Filter) (Input, error) {
	in := Input{Previous: map[int64]history.Startup{}}
	if len(ids) == 0 {
		list, err := s.List(ctx, f)
		if err != nil {
			return Input{}, err
		}
		in.Startups = list
	} else {
		seen := map[int64]bool{}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			st, err := s.Get(ctx, id)
			if err != nil {
				return Input{}, err
			}
			in.Startups = append(in.Startups, st)
		}
	}
	for _, st := range in.Startups {
		prev, ok, err := s.Previous(ctx, st, false)
		if err != nil {
			return Input{}, err
		}
		if ok {
			in.Previous[st.ID] = prev
		}
	}
	return in, nil
}

// Options are the report's surroundings.
type Options struct {
	// Now is when the report is made, shown at its foot.
	Now time.Time
	// Location is the time zone times are shown in; nil means UTC.
	Location *time.Location
}

// Write writes the report of in as one HTML document.
func Write(w io.Writer, in Input, o Options) error {
	var b bytes.Buffer
	if err := page().Execute(&b, build(in, o)); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteFile writes the report to path, replacing it only once the whole
// report is written, so a failure never leaves half a file.
func WriteFile(path string, in Input, o Options) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("report: cannot write %s: it is a directory", path)
	}
	var b bytes.Buffer
	if err := Write(&b, in, o); err != nil {
		return err
	}
	if err := replaceFile(path, b.Bytes()); err != nil {
		// The temporary file's name means nothing to the user; the
		// reason does.
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe):
			err = pe.Err
		case errors.As(err, &le):
			err = le.Err
		}
		return fmt.Errorf("report: cannot write %s: %w", path, err)
	}
	return nil
}

// replaceFile writes data to a temporary file beside path and renames it
// over path.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename this finds nothing
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
