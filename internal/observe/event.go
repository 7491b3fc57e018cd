package observe

import "time"

// Kind names an event; it is the "event" field of the NDJSON stream.
type Kind string

const (
	KindServer    Kind = "server"
	KindProgress  Kind = "progress"
	KindReadyLine Kind = "ready_line"
	KindFailing   Kind = "failing"
	KindPhase     Kind = "phase"
	KindETA       Kind = "eta"
	KindConfig    Kind = "config"
	KindWarning   Kind = "warning"
	KindHealth    Kind = "health"
	KindQuiet     Kind = "quiet"
	KindExit      Kind = "exit"
	KindSmoke     Kind = "smoke"
)

// Event is something worth telling while the startup runs. Data is one of
// the payload types below; its JSON fields are the event's NDJSON fields
// beside "event" and "t".
type Event struct {
	At   time.Time
	Data Payload
}

// Kind is the event's name.
func (e Event) Kind() Kind { return e.Data.Kind() }

// Payload is what an event says. Only this package's types implement it.
type Payload interface {
	Kind() Kind
	payload()
}

// ServerSeen: the server kind became known.
type ServerSeen struct {
	Server string `json:"server"`
}

// Progress is a progress bar's state.
type Progress struct {
	Desc    string  `json:"desc"`
	Done    int     `json:"done"`
	ETA     string  `json:"eta"`
	Percent int     `json:"percent"`
	Rate    float64 `json:"rate"`
	Total   int     `json:"total"`
}

// ReadyLine: the server printed that it is ready.
type ReadyLine struct {
	Line string `json:"line"`
}

// Failing: the server printed a fatal line; the verdict waits for the rest.
type Failing struct {
	Line string `json:"line"`
}

// PhaseChange: the startup entered Phase, coming from From.
type PhaseChange struct {
	From  string `json:"from"`
	Phase string `json:"phase"`
}

// ETA is what history expects of the phase just entered.
type ETA struct {
	Phase      string  `json:"phase"`
	PhaseLeftS float64 `json:"phase_left_s"`
	Samples    int     `json:"samples"`
	TotalLeftS float64 `json:"total_left_s"`
}

// ConfigSeen: the printed configuration's fingerprint changed.
type ConfigSeen struct {
	Fingerprint string            `json:"fingerprint"`
	Important   map[string]string `json:"important"`
}

// Warning is a message for the user; a slow phase names the phase.
type Warning struct {
	Message string `json:"message"`
	Phase   string `json:"phase,omitempty"`
	Slow    bool   `json:"slow,omitempty"`
}

// HealthChange: the health answer changed.
type HealthChange struct {
	Code  int         `json:"code"`
	State HealthState `json:"state"`
}

// Quiet: the log has been quiet for QuietS seconds but the process works.
type Quiet struct {
	Activity string  `json:"activity"`
	QuietS   float64 `json:"quiet_s"`
}

// ExitSeen: the server process ended.
type ExitSeen struct {
	Status string `json:"status"`
}

// Smoke is the smoke request's outcome.
type Smoke struct {
	Answer    string `json:"answer"`
	Endpoint  string `json:"endpoint"`
	LatencyMS int64  `json:"latency_ms"`
	OK        bool   `json:"ok"`
	Reason    string `json:"reason"`
}

func (ServerSeen) Kind() Kind   { return KindServer }
func (Progress) Kind() Kind     { return KindProgress }
func (ReadyLine) Kind() Kind    { return KindReadyLine }
func (Failing) Kind() Kind      { return KindFailing }
func (PhaseChange) Kind() Kind  { return KindPhase }
func (ETA) Kind() Kind          { return KindETA }
func (ConfigSeen) Kind() Kind   { return KindConfig }
func (Warning) Kind() Kind      { return KindWarning }
func (HealthChange) Kind() Kind { return KindHealth }
func (Quiet) Kind() Kind        { return KindQuiet }
func (ExitSeen) Kind() Kind     { return KindExit }
func (Smoke) Kind() Kind        { return KindSmoke }

func (ServerSeen) payload()   {}
func (Progress) payload()     {}
func (ReadyLine) payload()    {}
func (Failing) payload()      {}
func (PhaseChange) payload()  {}
func (ETA) payload()          {}
func (ConfigSeen) payload()   {}
func (Warning) payload()      {}
func (HealthChange) payload() {}
func (Quiet) payload()        {}
func (ExitSeen) payload()     {}
func (Smoke) payload()        {}
