// Package scenario reads, checks and plays startup scenarios: JSON files
// that script a fake LLM inference server's startup (what it prints and when,
// how its HTTP endpoints answer, how the process ends). The format is
// shared/spec/scenario-format.md; the player here behaves like the reference
// player shared/tools/player.py, so that vigil can be judged against real
// processes without a GPU.
package scenario

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"vigil/internal/verdict"
)

// Kind names what a timeline event does. Every event has exactly one.
type Kind string

// The event kinds of the format.
const (
	KindErr      Kind = "err"      // lines to stderr
	KindOut      Kind = "out"      // lines to stdout
	KindProgress Kind = "progress" // a tqdm-style bar on stderr (blocking)
	KindHealth   Kind = "health"   // the health endpoints' status from now on
	KindGen      Kind = "gen"      // how generation endpoints answer from now on
	KindBusy     Kind = "busy"     // burn CPU silently for a while (blocking)
	KindDownload Kind = "download" // grow a Hugging Face cache blob (blocking)
	KindHang     Kind = "hang"     // never go on: idle or spinning
	KindExit     Kind = "exit"     // exit with a status
	KindSignal   Kind = "signal"   // die by a signal
)

// Kinds lists every event kind in sorted order (as player.py prints them).
var Kinds = []Kind{KindBusy, KindDownload, KindErr, KindExit, KindGen, KindHang, KindHealth, KindOut, KindProgress, KindSignal}

// Scenario is one scripted startup.
type Scenario struct {
	ID      string `json:"id"`
	Server  string `json:"server"`
	Source  string `json:"source"`
	Summary string `json:"summary"`
	// Argv is the command line the real user ran; the player only shows it.
	Argv []string `json:"argv"`
	// StaleLog holds lines of a previous run already in the log file.
	StaleLog []string `json:"stale_log,omitempty"`
	Timeline []Event  `json:"timeline"`
	// VigilArgs are extra flags handed to vigil for this scenario.
	VigilArgs []string `json:"vigil_args,omitempty"`
	Expect    Expect   `json:"expect"`
}

// Event is one step of the timeline. T is seconds since the player started;
// Kind says which of the other fields is meaningful.
type Event struct {
	T    float64
	Kind Kind

	Lines    []string  // err, out: lines written with a newline each
	Progress *Progress // progress
	Health   int       // health: HTTP status, 0 = nothing listening
	Body     *string   // health: body of the health answers (nil: the default)
	Gen      *Gen      // gen
	Busy     float64   // busy: seconds of CPU burning
	Download *Download // download
	Hang     string    // hang: "idle" or "busy"
	Exit     int       // exit: the exit status
	Signal   string    // signal: a name such as "SIGKILL"
}

// Progress is a tqdm-style bar. Fmt is a Python format string with the
// fields pct, i, n, el, eta and rate; the bar writes i = 0..To over Dur
// seconds.
type Progress struct {
	Fmt string  `json:"fmt"`
	N   int     `json:"n"`
	To  int     `json:"to"`
	Dur float64 `json:"dur"`
	CR  bool    `json:"cr,omitempty"`
}

// Gen says how the generation endpoints answer: Mode is ok, nan, empty or
// error; TokS is words per second (0: no delay) and Text the words of an ok
// answer.
type Gen struct {
	Mode string  `json:"mode"`
	TokS float64 `json:"tok_s"`
	Text string  `json:"text"`
}

// Gen modes.
const (
	GenOK    = "ok"
	GenNaN   = "nan"
	GenEmpty = "empty"
	GenError = "error"
)

// DefaultGen is how generation answers before any gen event.
var DefaultGen = Gen{Mode: GenOK, TokS: 200, Text: "The capital of France is Paris."}

// Download is a silent weight download into the Hugging Face cache.
type Download struct {
	Repo string  `json:"repo"`
	MBs  float64 `json:"mb_s"`
	Dur  float64 `json:"dur"`
	// Stop: after Dur the file stops growing and the process idles forever.
	Stop bool `json:"stop,omitempty"`
}

// Expect is what vigil must decide for the scenario.
type Expect struct {
	Verdict verdict.Verdict `json:"verdict"`
	Cause   verdict.Cause   `json:"cause,omitempty"`
	Phase   verdict.Phase   `json:"phase,omitempty"`
	// DecidedBy: vigil must have exited by this many seconds after start.
	DecidedBy *float64 `json:"decided_by,omitempty"`
	// NotBefore: vigil must not decide before this.
	NotBefore *float64 `json:"not_before,omitempty"`
}

// ModelName is the model the server would serve, taken from the argv flags
// the way player.py does (--served-model-name over --model over
// --model-path), or "model".
func (s *Scenario) ModelName() string {
	model := "model"
	for _, flag := range []string{"--model-path", "--model", "--served-model-name"} {
		for i, a := range s.Argv {
			if a == flag {
				if i+1 < len(s.Argv) {
					model = s.Argv[i+1]
				}
				break
			}
		}
	}
	return model
}

// Error is a scenario that cannot be used: every problem found, each one
// line. File is empty when the data did not come from a file.
type Error struct {
	File     string
	Problems []string
}

func (e *Error) Error() string {
	prefix := "scenario"
	if e.File != "" {
		prefix = e.File
	}
	switch len(e.Problems) {
	case 0:
		return prefix + ": invalid scenario"
	case 1:
		return prefix + ": " + e.Problems[0]
	}
	return fmt.Sprintf("%s: %s (and %d more problems)", prefix, e.Problems[0], len(e.Problems)-1)
}

// Check returns the problems of one scenario file's contents, nil when it
// is valid. It finds what player.py's check() finds, with the same wording,
// and more: everything that would make the player fail or misbehave.
func Check(data []byte) []string {
	_, problems := parse(data)
	return problems
}

// Parse reads and validates a scenario. It is a pure function of data and
// never panics; an invalid scenario gives an *Error listing every problem.
func Parse(data []byte) (*Scenario, error) {
	s, problems := parse(data)
	if len(problems) > 0 {
		return nil, &Error{Problems: problems}
	}
	return s, nil
}

// Load reads and validates the scenario file at path.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Problems: []string{"cannot read: " + errText(err)}}
	}
	s, err := Parse(data)
	if err != nil {
		err.(*Error).File = path
		return nil, err
	}
	return s, nil
}

// BuiltinPrefix marks a reference to a built-in scenario: "builtin:NAME".
const BuiltinPrefix = "builtin:"

// ReadRef returns the contents of a scenario reference: a file path, or
// builtin:NAME for a built-in scenario. Its error is an *Error naming ref.
func ReadRef(ref string) ([]byte, error) {
	if name, ok := strings.CutPrefix(ref, BuiltinPrefix); ok {
		data, err := builtinData(name)
		if err != nil {
			return nil, &Error{File: ref, Problems: []string{err.Error()}}
		}
		return data, nil
	}
	data, err := os.ReadFile(ref)
	if err != nil {
		return nil, &Error{File: ref, Problems: []string{"cannot read: " + errText(err)}}
	}
	return data, nil
}

// Open reads and validates a scenario reference (see ReadRef).
func Open(ref string) (*Scenario, error) {
	data, err := ReadRef(ref)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		err.(*Error).File = ref
		return nil, err
	}
	return s, nil
}

// errText is an error's message without the path os errors repeat.
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// MarshalJSON writes the event in the scenario format.
func (e Event) MarshalJSON() ([]byte, error) {
	m := map[string]any{"t": e.T}
	switch e.Kind {
	case KindErr, KindOut:
		if len(e.Lines) == 1 {
			m[string(e.Kind)] = e.Lines[0]
		} else {
			lines := e.Lines
			if lines == nil {
				lines = []string{}
			}
			m[string(e.Kind)] = lines
		}
	case KindProgress:
		m["progress"] = e.Progress
	case KindHealth:
		m["health"] = e.Health
		if e.Body != nil {
			m["body"] = *e.Body
		}
	case KindGen:
		m["gen"] = e.Gen
	case KindBusy:
		m["busy"] = e.Busy
	case KindDownload:
		m["download"] = e.Download
	case KindHang:
		m["hang"] = e.Hang
	case KindExit:
		m["exit"] = e.Exit
	case KindSignal:
		m["signal"] = e.Signal
	default:
		return nil, fmt.Errorf("event of unknown kind %q", e.Kind)
	}
	return json.Marshal(m)
}
