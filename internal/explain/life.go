package explain

import (
	"bufio"
	"strconv"
	"time"

	"vigil/internal/classify"
	"vigil/internal/life"
	"vigil/internal/observe"
	"vigil/internal/stamp"
	v "vigil/internal/verdict"
)

// How a ready run's life after ready reads in the log.
const (
	// LifeServing: nothing after ready said the server died, and the log
	// ends with it.
	LifeServing = "serving"
	// LifeEnded: another start followed, and no line said why this one
	// ended.
	LifeEnded = "ended"
	// LifeDied: a line after ready said the server died or is stuck.
	LifeDied = life.Died
	// LifeHung: its health answers were failing where its lines end (a
	// few in a row, none good after them), and no line said why.
	LifeHung = life.Hung
	// LifeStopped: a line after ready said the server shuts down (it was
	// asked to, by a signal).
	LifeStopped = life.Stopped
)

// AfterReady is how a ready run's life went after its ready verdict.
type AfterReady struct {
	How   string
	Cause v.Cause
	// After is how long after ready the end came (or the log ends), when
	// the lines carry stamps (Timed).
	After    time.Duration
	Timed    bool
	Summary  string
	Evidence []string
}

// tailSize bounds the lines after ready kept for judging how the life
// ended: the words of a death come last, right before the log ends or the
// next start.
const tailSize = 128

// tailLine is one kept line after ready.
type tailLine struct {
	no   int64
	text string
	t    int64
}

// lifeTail keeps the last lines of a ready run.
type lifeTail struct {
	lines  [tailSize]tailLine
	n      int
	lastNo int64
}

func (lt *lifeTail) push(a *arena, no int64, text string, t int64) {
	if no <= lt.lastNo {
		return
	}
	lt.lastNo = no
	lt.lines[lt.n%tailSize] = tailLine{no: no, text: a.clone(text), t: t}
	lt.n++
}

// server names the server whose lines the tail holds, or "".
func (lt *lifeTail) server() string {
	if lt == nil {
		return ""
	}
	for i := max(0, lt.n-tailSize); i < lt.n; i++ {
		if k := classify.DetectLog(lt.lines[i%tailSize].text); k != "" {
			return k
		}
	}
	return ""
}

// keepTail keeps the last lines of [from, to) that came after st's ready
// verdict. An idle run's lines are only counted as they pass, so this is
// where the few that may tell its end are read.
func (c *chunk) keepTail(st *runState, from, to int, sp *stamp.Reader) {
	if st == nil || st.readyLine == 0 && !st.idle() {
		return
	}
	if st.tail == nil {
		st.tail = new(lifeTail)
	}
	for k := max(from, to-tailSize); k < to; k++ {
		l := &c.lines[k]
		if l.No <= st.readyLine || l.No <= st.tail.lastNo {
			continue
		}
		st.tail.push(st.text, l.No, l.Text, c.stamp(k, sp))
	}
}

// lifeAfterReady judges the kept lines of a ready run.
func (st *runState) lifeAfterReady(readyAt time.Time, timed bool) *AfterReady {
	lj := life.New(life.Config{Server: st.server, Memo: st.memo})
	lt := st.tail
	if lt == nil {
		lt = new(lifeTail)
	}
	// Only the answers after the last good one can tell a hang at the end
	// (a serving run's last answer is most often a 200): they are found
	// from the end.
	first := max(0, lt.n-tailSize)
	answersFrom := first
	for i := lt.n - 1; i >= first; i-- {
		if h, ok := accessAnswer(lt.lines[i%tailSize].text); ok && h.State == observe.HealthOK {
			answersFrom = i + 1
			break
		}
	}
	last := readyAt
	for i := first; i < lt.n; i++ {
		l := lt.lines[i%tailSize]
		at := last
		if l.t != 0 {
			at = time.Unix(0, l.t)
			last = at
		}
		lj.Line(l.text, at)
		if i < answersFrom {
			continue
		}
		if h, ok := accessAnswer(l.text); ok {
			h.Seen = clip(l.text, 300)
			lj.Health(h, at)
		}
	}
	a := &AfterReady{Timed: timed}
	end := lj.Offline()
	switch {
	case end != nil && end.How == life.Stopped:
		a.How, a.Summary, a.Evidence = LifeStopped, end.Summary, clone(end.Evidence)
		if timed {
			a.After = end.At.Sub(readyAt)
		}
	case end != nil && end.How == life.Hung:
		a.How, a.Cause, a.Summary, a.Evidence = LifeHung, end.Cause, end.Summary, clone(end.Evidence)
		if timed {
			a.After = end.At.Sub(readyAt)
		}
	case end != nil:
		a.How, a.Cause, a.Summary, a.Evidence = LifeDied, end.Cause, end.Summary, clone(end.Evidence)
		if timed {
			a.After = end.At.Sub(readyAt)
		}
		if a.Summary == "" {
			a.Summary = "the server died"
		}
	case st.atLogEnd:
		a.How = LifeServing
		a.Summary = "still serving at the end of the log"
		if timed {
			a.After = time.Unix(0, st.end).Sub(readyAt)
		}
	default:
		a.How = LifeEnded
		a.Summary = "ended without a word of why; the next start followed"
		if timed {
			a.After = time.Unix(0, st.end).Sub(readyAt)
		}
	}
	a.After = max(a.After, 0)
	return a
}

// accessAnswer is the health answer an access-log line holds, if any.
func accessAnswer(text string) (observe.Health, bool) {
	if !classify.MayBeAccess(text) {
		return observe.Health{}, false
	}
	return classify.AccessHealth(text)
}

// lifeText is the text form's after-ready lines.
func lifeText(b *bufio.Writer, a *AfterReady) {
	if a == nil {
		return
	}
	after := func() {
		if a.Timed {
			b.WriteString(" after ")
			b.Write(appendLifeDur(b.AvailableBuffer(), a.After))
		}
	}
	switch a.How {
	case LifeDied, LifeHung:
		b.WriteString("  after ready  ")
		b.WriteString(a.How)
		after()
		b.WriteString(": ")
		b.WriteString(string(a.Cause))
		b.WriteString(": ")
		b.WriteString(a.Summary)
		b.WriteString("\n")
		for _, e := range a.Evidence {
			b.WriteString("    ")
			b.WriteString(e)
			b.WriteString("\n")
		}
	case LifeStopped:
		b.WriteString("  after ready  stopped")
		after()
		b.WriteString(": the server shut down\n")
		for _, e := range a.Evidence {
			b.WriteString("    ")
			b.WriteString(e)
			b.WriteString("\n")
		}
	case LifeServing:
		if a.Timed {
			b.WriteString("  after ready  still serving at the end of the log, ")
			b.Write(appendLifeDur(b.AvailableBuffer(), a.After))
			b.WriteString(" after ready\n")
		} else {
			b.WriteString("  after ready  still serving at the end of the log\n")
		}
	default:
		b.WriteString("  after ready  ended")
		after()
		b.WriteString(" without a word of why; the next start followed\n")
	}
}

// appendLifeDur appends a life's length: to the minute once it is hours
// long.
func appendLifeDur(b []byte, d time.Duration) []byte {
	if d < time.Hour {
		return appendDur(b, d)
	}
	m := int64(d / time.Minute)
	b = strconv.AppendInt(b, m/60, 10)
	b = append(b, 'h')
	b = strconv.AppendInt(b, m%60, 10)
	return append(b, 'm')
}

// jsonLife is the --json form of AfterReady.
type jsonLife struct {
	How      string   `json:"how"`
	Cause    *string  `json:"cause"`
	AfterS   *float64 `json:"after_s"`
	Summary  string   `json:"summary"`
	Evidence []string `json:"evidence"`
}

func lifeJSON(a *AfterReady) *jsonLife {
	if a == nil {
		return nil
	}
	j := &jsonLife{How: a.How, Summary: a.Summary, Evidence: a.Evidence}
	if a.How == LifeDied || a.How == LifeHung {
		c := string(a.Cause)
		j.Cause = &c
	}
	if a.Timed {
		s := a.After.Seconds()
		j.AfterS = &s
	}
	if j.Evidence == nil {
		j.Evidence = []string{}
	}
	return j
}
