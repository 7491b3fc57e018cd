// Package observe holds the types every stage of a startup's data path
// shares: what was observed (health answers, liveness samples, the exit),
// the events the judge tells while a startup runs, and its result. It has
// no behaviour of its own, so sources, the judge and the renderers can all
// import it without importing each other.
package observe

import (
	"fmt"
	"time"

	"vigil/internal/srvconfig"
	v "vigil/internal/verdict"
)

// HealthState is the outcome of one health probe.
type HealthState string

const (
	HealthRefused  HealthState = "refused"  // nothing listens
	HealthStarting HealthState = "starting" // 503: up, not ready
	HealthOK       HealthState = "ok"       // 200
	HealthOther    HealthState = "status"   // any other status
	HealthNone     HealthState = "no_endpoint"
	HealthError    HealthState = "error" // timeout, reset, ...
	// HealthForeign is a 200 from a process that is not the server (an
	// earlier server still holding the port): no sign of this server.
	HealthForeign HealthState = "foreign"
)

// Health is one probe result.
type Health struct {
	State HealthState
	Code  int
	Err   string
	// Seen is the log line the answer was read from when it was not
	// vigil's own probe (an access log read offline); evidence quotes it.
	Seen string
}

// Activity is one liveness sample of the server's process tree.
type Activity struct {
	// Busy is true when the tree used CPU, moved disk bytes, grew the
	// download cache or otherwise showed that it works.
	Busy bool
	// Detail says what moved, for the live view ("CPU 390% over 8 procs").
	Detail string
	// Waited is how long, since the last sample, the tree was ready to
	// run but got no CPU: a crowded machine's time, not the server's.
	Waited time.Duration
}

// Exit is how the server's main process ended.
type Exit struct {
	Code   int    // exit status, when it exited
	Signal string // "SIGKILL", ... when a signal killed it
	// Gone is set in watch mode, where only the disappearance is known.
	Gone bool
	// OOMRecord is the kernel's OOM-killer line for the process, if found.
	OOMRecord string
	// KernelLogRead is true when the kernel's log was read, reaches back
	// to the process's start and holds no OOM kill since: a SIGKILL then
	// came from outside, not from the OOM killer.
	KernelLogRead bool
	// Memory describes the tree's memory use just before the end.
	Memory string
}

func (e Exit) String() string {
	switch {
	case e.Signal != "":
		return "killed by " + e.Signal
	case e.Gone:
		return "exited"
	default:
		return fmt.Sprintf("exited with status %d", e.Code)
	}
}

// SmokeResult is the outcome of the generation request sent once the
// server is ready.
type SmokeResult struct {
	OK bool
	// Auth: the server refused the API key (401/403), which says nothing
	// about its answers.
	Auth bool
	// NoModel: the server lists no model to ask.
	NoModel bool
	// Unchecked: the model generates no text and serves no API whose
	// answers can be judged (a classification or reward model).
	Unchecked bool
	Reason    string
	Answer    string
	Endpoint  string
	Latency   time.Duration
}

// PhaseSpan is one phase and when it started.
type PhaseSpan struct {
	Phase v.Phase
	Start time.Time
}

// Result is a verdict with its explanation.
type Result struct {
	Verdict  v.Verdict
	Cause    v.Cause
	Phase    v.Phase
	Summary  string
	Hint     string
	Evidence []string
	Server   string
	At       time.Time
	Phases   []PhaseSpan
	// RuleID names the catalogue entry behind a failure, if any.
	RuleID string
	// Config is everything the server printed of its configuration;
	// Important the operationally important part under canonical names.
	Config      srvconfig.Config
	Important   []srvconfig.KV
	Fingerprint string
	// Extras are results attached by name (kernels, notable,
	// config_changes): shown in the JSON verdict and stored with the
	// startup in the history (docs/contract.md).
	Extras map[string]any
}

// SetExtra attaches a named result.
func (r *Result) SetExtra(name string, x any) {
	if r.Extras == nil {
		r.Extras = map[string]any{}
	}
	r.Extras[name] = x
}
