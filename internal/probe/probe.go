// Package probe serves a supervisor's own endpoints for Kubernetes probes
// and Prometheus, from a [facts.Source]:
//
//	/startupz  200 once the server is ready, 503 while it starts, 500 with
//	           the cause once the startup failed
//	/readyz    200 while the server is ready and its health answers are good
//	/livez     200 unless the server hangs or died after ready
//	/metrics   the facts in Prometheus' text format, from a registry of its own
//
// Each probe answers a short JSON object. [Ask] is the client side, behind
// `vigil probe`, for pods that cannot reach a port.
package probe

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"vigil/internal/facts"
	"vigil/internal/verdict"
)

// Kinds are the probes, by the name `vigil probe` takes.
var Kinds = map[string]string{
	"startup": "/startupz",
	"ready":   "/readyz",
	"live":    "/livez",
}

// Answer is the JSON body of a probe.
type Answer struct {
	Status string `json:"status"`
	Phase  string `json:"phase,omitempty"`
	// Progress is the latest progress report, while starting.
	Progress       string   `json:"progress,omitempty"`
	StartupSeconds *float64 `json:"startup_s,omitempty"`
	SinceProgress  *float64 `json:"since_progress_s,omitempty"`
	Verdict        string   `json:"verdict,omitempty"`
	Cause          string   `json:"cause,omitempty"`
	Health         string   `json:"health,omitempty"`
	Summary        string   `json:"summary,omitempty"`
}

// Handler serves the probes and /metrics from src, reading time from now.
func Handler(src facts.Source, now func() time.Time) http.Handler {
	mux := http.NewServeMux()
	answer := func(f func(facts.Snapshot, time.Time) (int, Answer)) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			code, a := f(src.Snapshot(), now())
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(code)
			_ = json.NewEncoder(w).Encode(a)
		}
	}
	mux.Handle("GET /startupz", answer(Startup))
	mux.Handle("GET /readyz", answer(Ready))
	mux.Handle("GET /livez", answer(Live))
	mux.Handle("GET /metrics", promhttp.HandlerFor(NewRegistry(src, now), promhttp.HandlerOpts{}))
	return mux
}

// Startup is the /startupz answer for s.
func Startup(s facts.Snapshot, now time.Time) (int, Answer) {
	a := Answer{Phase: string(s.Phase)}
	total := round1(s.StartupSeconds(now))
	a.StartupSeconds = &total
	switch {
	case s.Ready:
		a.Status = "ready"
		return http.StatusOK, a
	case s.StartupFailed():
		a.Status, a.Verdict, a.Cause, a.Summary = "failed", string(s.Verdict), string(s.Cause), s.Summary
		return http.StatusInternalServerError, a
	}
	a.Status, a.Progress = "starting", s.Progress
	since := round1(s.SinceProgress(now).Seconds())
	a.SinceProgress = &since
	return http.StatusServiceUnavailable, a
}

// Ready is the /readyz answer for s.
func Ready(s facts.Snapshot, _ time.Time) (int, Answer) {
	a := Answer{Phase: string(s.Phase), Health: s.Health}
	switch {
	case s.Stopping:
		a.Status = "stopping"
	case s.Failed():
		a.Status, a.Cause, a.Summary = failedStatus(s), string(s.Cause), s.Summary
	case !s.Ready:
		a.Status = "starting"
	case !s.Healthy:
		a.Status = "unhealthy"
	default:
		a.Status = "ready"
		return http.StatusOK, a
	}
	return http.StatusServiceUnavailable, a
}

// Live is the /livez answer for s. A server still starting is alive: the
// startup probe, not the liveness probe, judges a startup.
func Live(s facts.Snapshot, _ time.Time) (int, Answer) {
	if s.Hung || s.Died || s.StartupFailed() {
		return http.StatusInternalServerError, Answer{Status: failedStatus(s), Phase: string(s.Phase), Verdict: string(s.Verdict), Cause: string(s.Cause), Summary: s.Summary}
	}
	return http.StatusOK, Answer{Status: "alive", Phase: string(s.Phase)}
}

func failedStatus(s facts.Snapshot) string {
	switch {
	case s.Died:
		return "died"
	case s.Hung:
		return "hung"
	}
	return "failed"
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// Metric names, as Prometheus sees them.
const (
	MetricPhase          = "vigil_phase"
	MetricPhaseSeconds   = "vigil_phase_seconds"
	MetricStartupSeconds = "vigil_startup_seconds"
	MetricVerdict        = "vigil_startup_verdict"
	MetricReady          = "vigil_server_ready"
	MetricHealthy        = "vigil_server_healthy"
	MetricHealthState    = "vigil_health_state"
	MetricSinceProgress  = "vigil_seconds_since_progress"
	MetricRestarts       = "vigil_server_restarts_total"
	MetricEnded          = "vigil_server_ended"
	MetricInfo           = "vigil_server_info"
)

var (
	descPhase = prometheus.NewDesc(MetricPhase,
		"1 for the phase the server is in, 0 for the others.", []string{"phase"}, nil)
	descPhaseSeconds = prometheus.NewDesc(MetricPhaseSeconds,
		"Seconds the server spent in each phase it entered (the current one so far).", []string{"phase"}, nil)
	descStartupSeconds = prometheus.NewDesc(MetricStartupSeconds,
		"Seconds the startup took: to ready, to its failure, or so far.", nil, nil)
	descVerdict = prometheus.NewDesc(MetricVerdict,
		"1 once the startup has a verdict, labelled with it and its cause (empty unless failed).", []string{"verdict", "cause"}, nil)
	descReady = prometheus.NewDesc(MetricReady,
		"1 once the startup's verdict is ready.", nil, nil)
	descHealthy = prometheus.NewDesc(MetricHealthy,
		"1 while the server's latest health answer was a 200.", nil, nil)
	descHealthState = prometheus.NewDesc(MetricHealthState,
		"1 for the state of the server's latest health answer.", []string{"state"}, nil)
	descSinceProgress = prometheus.NewDesc(MetricSinceProgress,
		"Seconds since the latest sign of progress (log, CPU, disk, GPU memory).", nil, nil)
	descRestarts = prometheus.NewDesc(MetricRestarts,
		"Server restarts seen in its log during this supervision.", nil, nil)
	descEnded = prometheus.NewDesc(MetricEnded,
		"1 once the server died or hangs after ready, labelled with how and why.", []string{"how", "cause"}, nil)
	descInfo = prometheus.NewDesc(MetricInfo,
		"The supervised server's kind.", []string{"server"}, nil)
)

// collector reads the facts at each scrape, so time-based values (seconds
// so far, since progress) are current without any ticking.
type collector struct {
	src facts.Source
	now func() time.Time
}

// NewRegistry returns a registry of its own (never the global one) that
// holds the facts' metrics.
func NewRegistry(src facts.Source, now func() time.Time) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{src: src, now: now})
	return reg
}

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPhase, descPhaseSeconds, descStartupSeconds, descVerdict,
		descReady, descHealthy, descHealthState, descSinceProgress, descRestarts, descEnded, descInfo} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s, now := c.src.Snapshot(), c.now()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, ph := range verdict.Phases {
		gauge(descPhase, bool01(ph == s.Phase), string(ph))
	}
	for ph, sec := range s.PhaseSeconds(now) {
		gauge(descPhaseSeconds, sec, string(ph))
	}
	gauge(descStartupSeconds, s.StartupSeconds(now))
	if s.Verdict != "" {
		gauge(descVerdict, 1, string(s.Verdict), string(s.Cause))
	}
	gauge(descReady, bool01(s.Ready))
	gauge(descHealthy, bool01(s.Healthy))
	if s.Health != "" {
		gauge(descHealthState, 1, s.Health)
	}
	gauge(descSinceProgress, s.SinceProgress(now).Seconds())
	ch <- prometheus.MustNewConstMetric(descRestarts, prometheus.CounterValue, float64(s.Restarts))
	if s.Died || s.Hung {
		gauge(descEnded, 1, failedStatus(s), string(s.Cause))
	}
	if s.Server != "" {
		gauge(descInfo, 1, s.Server)
	}
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
