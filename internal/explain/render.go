package explain

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"vigil/internal/judge"
)

// WriteText writes a run for people to read. Through a *bufio.Writer it
// writes straight into its buffer (a dense log has a run every few
// kilobytes).
func WriteText(w io.Writer, r *Run) error {
	b, ok := w.(*bufio.Writer)
	if !ok {
		b = bufio.NewWriter(w)
	}
	// (Written piece by piece, not with fmt: the stitcher writes every
	// run, and fmt's formatting was most of what it spent on a dense log.)
	b.WriteString("run ")
	writeInt(b, int64(r.Index))
	if r.Service != "" {
		b.WriteString("  service ")
		b.WriteString(r.Service)
	}
	server := r.Server
	if server == "" {
		server = "unknown server"
	}
	b.WriteString("  ")
	b.WriteString(server)
	if r.Relative {
		// No date: the times are the process's own clock.
		b.WriteString("  ")
		b.Write(appendDur(b.AvailableBuffer(), r.Start.Sub(time.Unix(0, 0))))
		b.WriteString(" -> ")
		b.Write(appendDur(b.AvailableBuffer(), r.End.Sub(time.Unix(0, 0))))
		b.WriteString(" of its process (")
		b.Write(appendDur(b.AvailableBuffer(), r.End.Sub(r.Start)))
		b.WriteString(")")
	} else if r.Timed {
		b.WriteString("  ")
		b.Write(r.Start.AppendFormat(b.AvailableBuffer(), "2006-01-02 15:04:05"))
		b.WriteString(" -> ")
		b.Write(r.End.AppendFormat(b.AvailableBuffer(), "15:04:05"))
		b.WriteString(" (")
		b.Write(appendDur(b.AvailableBuffer(), r.End.Sub(r.Start)))
		b.WriteString(")")
	}
	b.WriteString("  lines ")
	writeInt(b, r.FirstLine)
	b.WriteString("-")
	writeInt(b, r.FirstLine+r.Lines-1)
	b.WriteString("\n")
	switch r.Verdict {
	case "":
		b.WriteString("  verdict   none: ended in phase ")
		b.WriteString(string(r.Phase))
	case "failed":
		b.WriteString("  verdict   failed: ")
		b.WriteString(string(r.Cause))
		b.WriteString(" in phase ")
		b.WriteString(string(r.Phase))
	default:
		b.WriteString("  verdict   ")
		b.WriteString(string(r.Verdict))
	}
	b.WriteString("\n  summary   ")
	b.WriteString(r.Summary)
	b.WriteString("\n")
	lifeText(b, r.Life)
	if len(r.Phases) > 0 {
		b.WriteString("  phases    ")
		for i, p := range mergePhases(r.Phases) {
			if i > 0 {
				b.WriteString(" > ")
			}
			b.WriteString(string(p.Name))
			if p.Timed {
				b.WriteString(" ")
				b.Write(appendDur(b.AvailableBuffer(), time.Duration(p.Seconds*float64(time.Second))))
			}
		}
		b.WriteString("\n")
	}
	if len(r.Evidence) > 0 {
		b.WriteString("  evidence\n")
		for _, e := range r.Evidence {
			b.WriteString("    ")
			b.WriteString(e)
			b.WriteString("\n")
		}
	}
	if r.Hint != "" {
		b.WriteString("  hint      ")
		b.WriteString(r.Hint)
		b.WriteString("\n")
	}
	if len(r.Notable) > 0 {
		b.WriteString("  notable\n")
		for _, n := range r.Notable {
			b.WriteString("    ")
			b.WriteString(n.Effect)
			b.WriteString(": ")
			b.WriteString(n.Meaning)
			if n.Count > 1 {
				b.WriteString(" (")
				writeInt(b, int64(n.Count))
				b.WriteString(" times)")
			}
			b.WriteString("\n      ")
			b.WriteString(n.Line)
			b.WriteString("\n")
		}
	}
	if !ok {
		return b.Flush()
	}
	_, err := b.Write(nil) // the writer's first error, kept once it failed
	return err
}

func writeInt(b *bufio.Writer, n int64) {
	b.Write(strconv.AppendInt(b.AvailableBuffer(), n, 10))
}

// jsonRun is the --json form of a run: one object per line.
type jsonRun struct {
	File      string          `json:"file,omitempty"`
	Run       int             `json:"run"`
	Service   string          `json:"service,omitempty"`
	Server    *string         `json:"server"`
	Start     *string         `json:"start"`
	End       *string         `json:"end"`
	Lines     int64           `json:"lines"`
	FirstLine int64           `json:"first_line"`
	Offset    int64           `json:"offset"`
	Verdict   string          `json:"verdict"`
	Cause     *string         `json:"cause"`
	Phase     string          `json:"phase"`
	Summary   string          `json:"summary"`
	Hint      string          `json:"hint"`
	Evidence  []string        `json:"evidence"`
	Rule      string          `json:"rule,omitempty"`
	Phases    phaseList       `json:"phases"`
	Life      *jsonLife       `json:"after_ready,omitempty"`
	Notable   []judge.Notable `json:"notable,omitempty"`
}

// WriteJSON writes a run as one JSON object on one line. file names the
// log ("" leaves the field out).
func WriteJSON(w io.Writer, file string, r *Run) error {
	j := jsonRun{
		File: file, Run: r.Index, Service: r.Service, Lines: r.Lines, FirstLine: r.FirstLine, Offset: r.Offset,
		Verdict: string(r.Verdict), Phase: string(r.Phase), Summary: r.Summary, Hint: r.Hint,
		Evidence: r.Evidence, Rule: r.RuleID, Phases: mergePhases(r.Phases),
		Life: lifeJSON(r.Life), Notable: r.Notable,
	}
	if r.Server != "" {
		j.Server = &r.Server
	}
	if r.Timed && !r.Relative {
		s, e := r.Start.Format(time.RFC3339Nano), r.End.Format(time.RFC3339Nano)
		j.Start, j.End = &s, &e
	}
	if r.Verdict == "failed" {
		c := string(r.Cause)
		j.Cause = &c
	}
	if j.Evidence == nil {
		j.Evidence = []string{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// phaseList is an object of phase names to seconds, in the order the run
// went through them (null seconds when the log carries no stamps).
type phaseList []Phase

func (pl phaseList) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range pl {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(string(p.Name)))
		b.WriteByte(':')
		if p.Timed {
			b.WriteString(strconv.FormatFloat(p.Seconds, 'f', 3, 64))
		} else {
			b.WriteString("null")
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// mergePhases adds up the time of a phase the run entered twice
// (llama.cpp goes back to loading weights for its projector).
func mergePhases(ps []Phase) []Phase {
	// (A run has a dozen phases at most: a search of what is merged so
	// far costs less than a map per run.)
	if len(ps) == 0 {
		return nil
	}
	out := make([]Phase, 0, len(ps))
next:
	for _, p := range ps {
		for i := range out {
			if out[i].Name == p.Name {
				out[i].Seconds += p.Seconds
				continue next
			}
		}
		out = append(out, p)
	}
	return out
}
