// Package notify tells systemd how a supervised server's startup goes, over
// the sd_notify protocol (a unit with Type=notify): STATUS= with the phase and
// progress as they change, READY=1 once the server is ready,
// EXTEND_TIMEOUT_USEC= while progress evidence keeps flowing, WATCHDOG=1 while
// the server is healthy, and STOPPING=1 on the way down.
//
// The extension is what lets a unit keep TimeoutStartSec short: each message
// moves systemd's deadline to ExtendGrace after the latest sign of progress,
// and none is sent once progress stops, so a stalled load is still killed.
//
// A [Notifier] reads a [facts.Source]; it never sees the monitor's events.
package notify

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"

	"vigil/internal/facts"
)

// Sender delivers one notification datagram (newline-separated assignments).
type Sender interface {
	Notify(state string) error
}

// SenderFunc adapts a function to [Sender].
type SenderFunc func(state string) error

// Notify calls f.
func (f SenderFunc) Notify(state string) error { return f(state) }

// Systemd sends to $NOTIFY_SOCKET with go-systemd, as sd_notify(3) does. With
// no NOTIFY_SOCKET it sends nothing and reports no error.
var Systemd Sender = SenderFunc(func(state string) error {
	_, err := daemon.SdNotify(false, state)
	return err
})

// Config tunes a [Notifier]. The zero value sends STATUS=, READY=1 and
// STOPPING=1 only.
type Config struct {
	// ExtendGrace is how long after the latest sign of progress systemd may
	// still wait for the startup; 0 sends no EXTEND_TIMEOUT_USEC=. Make it
	// longer than the supervisor's own stall window, so vigil names the
	// stall first and systemd's kill is the backstop.
	ExtendGrace time.Duration
	// Watchdog is the unit's WatchdogSec (from [WatchdogFromEnv]); 0 sends
	// no WATCHDOG=1.
	Watchdog time.Duration
	// StatusEvery is the least time between two progress-only STATUS=
	// changes (default 1s). A change of state (ready, failed, stopping) is
	// sent at once.
	StatusEvery time.Duration
	// Tick is how often the facts are read (default 250ms, and at most a
	// quarter of Watchdog).
	Tick time.Duration
}

// GraceSlack is what [GraceFor] adds beyond vigil's own stall window and
// stop: time for vigil to notice, collect its evidence and exit.
const GraceSlack = 30 * time.Second

// GraceFor is the ExtendGrace for a supervisor that calls a startup stalled
// after stallAfter without progress and then gives the server stopGrace to
// stop: vigil's own stall verdict (exit status 3, with evidence) comes first,
// and systemd's timeout is the backstop should vigil fail to give it.
func GraceFor(stallAfter, stopGrace time.Duration) time.Duration {
	return stallAfter + stopGrace + GraceSlack
}

// MaxStatus is the longest STATUS= text sent, in bytes; longer ones are cut.
const MaxStatus = 200

// Notifier turns facts into notifications. Step is its pure core; Run
// drives it on a ticker.
type Notifier struct {
	cfg  Config
	send Sender
	// Now is the clock Run reads (default time.Now).
	Now func() time.Time

	status      string
	statusClass string
	statusAt    time.Time
	ready       bool
	stopping    bool
	extendedTo  time.Time
	pingedAt    time.Time
}

// New returns a notifier that sends with send ([Systemd] in production).
func New(cfg Config, send Sender) *Notifier {
	if cfg.StatusEvery <= 0 {
		cfg.StatusEvery = time.Second
	}
	if cfg.Tick <= 0 {
		cfg.Tick = 250 * time.Millisecond
	}
	if cfg.Watchdog > 0 && cfg.Tick > cfg.Watchdog/4 {
		cfg.Tick = max(cfg.Watchdog/4, time.Millisecond)
	}
	return &Notifier{cfg: cfg, send: send, Now: time.Now}
}

// Enabled reports whether vigil runs under a service manager that listens
// for notifications ($NOTIFY_SOCKET is set).
func Enabled(getenv func(string) string) bool { return getenv("NOTIFY_SOCKET") != "" }

// WatchdogFromEnv is the unit's watchdog interval, 0 when it has none or
// when $WATCHDOG_PID names another process.
func WatchdogFromEnv() (time.Duration, error) {
	d, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		return 0, fmt.Errorf("watchdog settings: %w", err)
	}
	return d, nil
}

// ScrubEnv drops the service manager's notification variables from a
// server's environment: the server is not the unit's main process, and its
// own notifications would only confuse systemd.
func ScrubEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Step decides what to tell systemd about s at now and remembers it as
// sent. It returns one datagram of newline-separated assignments, or ""
// when there is nothing new.
func (n *Notifier) Step(now time.Time, s facts.Snapshot) string {
	var msg []string
	if s.Ready && !n.ready {
		n.ready = true
		msg = append(msg, daemon.SdNotifyReady)
	}
	if s.Stopping && !n.stopping {
		n.stopping = true
		msg = append(msg, daemon.SdNotifyStopping)
	}
	if st, class := Status(now, s); st != n.status &&
		(class != n.statusClass || now.Sub(n.statusAt) >= n.cfg.StatusEvery) {
		n.status, n.statusClass, n.statusAt = st, class, now
		msg = append(msg, "STATUS="+st)
	}
	if e := n.extend(now, s); e > 0 {
		msg = append(msg, fmt.Sprintf("EXTEND_TIMEOUT_USEC=%d", e.Microseconds()))
	}
	if n.cfg.Watchdog > 0 && n.ready && s.Healthy && !s.Failed() && !s.Stopping &&
		now.Sub(s.HealthAt) <= n.cfg.Watchdog && now.Sub(n.pingedAt) >= n.cfg.Watchdog/2 {
		n.pingedAt = now
		msg = append(msg, daemon.SdNotifyWatchdog)
	}
	return strings.Join(msg, "\n")
}

// extend is the extension to ask for now, 0 for none. The deadline it asks
// for is ExtendGrace after the latest progress; it is sent again only when
// that deadline moved by a tenth of the grace (at least a second), which
// keeps the messages few and the deadline within that much of exact.
func (n *Notifier) extend(now time.Time, s facts.Snapshot) time.Duration {
	if n.cfg.ExtendGrace <= 0 || s.Ready || s.Failed() || s.Stopping || s.LastProgress.IsZero() {
		return 0
	}
	deadline := s.LastProgress.Add(n.cfg.ExtendGrace)
	step := max(n.cfg.ExtendGrace/10, time.Second)
	if !deadline.After(now) || deadline.Sub(n.extendedTo) < step {
		return 0
	}
	n.extendedTo = deadline
	return deadline.Sub(now)
}

// Run notifies from src until ctx ends, then sends STOPPING=1 (and the
// stopping status) if it has not yet. It reads the facts every Tick and whenever src says they changed
// (a Source with a Changed() <-chan struct{} method, like [facts.Board]).
// A failing send never stops it: Run returns the first send error at the
// end, for the caller to mention.
func (n *Notifier) Run(ctx context.Context, src facts.Source) error {
	type changer interface{ Changed() <-chan struct{} }
	ch, _ := src.(changer)
	t := time.NewTicker(n.cfg.Tick)
	defer t.Stop()
	var firstErr error
	send := func(msg string) {
		if msg == "" {
			return
		}
		if err := n.send.Notify(msg); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("notify systemd: %w", err)
		}
	}
	for {
		var changed <-chan struct{}
		if ch != nil {
			changed = ch.Changed()
		}
		send(n.Step(n.Now(), src.Snapshot()))
		select {
		case <-ctx.Done():
			last := src.Snapshot()
			last.Stopping = true
			send(n.Step(n.Now(), last))
			return firstErr
		case <-t.C:
		case <-changed:
		}
	}
}

// Status is the STATUS= text for s, one line of at most [MaxStatus] bytes,
// and its class: the state it names, without the details that change while
// the state lasts.
func Status(now time.Time, s facts.Snapshot) (text, class string) {
	switch {
	case s.Stopping:
		text, class = "stopping", "stopping"
		if s.Failed() {
			text = "stopping: " + failure(s)
		}
	case s.StartupFailed() || s.Died || s.Hung:
		text, class = failure(s), "failed"
	case s.Ready:
		class = "ready"
		text = fmt.Sprintf("ready after %s", round(time.Duration(s.StartupSeconds(now)*float64(time.Second))))
		if s.Server != "" {
			text = s.Server + " " + text
		}
		if !s.Healthy && s.Health != "" {
			class = "unhealthy"
			text += "; unhealthy: health " + s.Health
		}
	default:
		class = "starting"
		text = "starting: " + string(s.Phase)
		if s.Progress != "" {
			text += ", " + s.Progress
		}
	}
	return clip(text), class
}

func failure(s facts.Snapshot) string {
	var what string
	switch {
	case s.Died:
		what = "died after ready"
	case s.Hung:
		what = "hung after ready"
	default:
		what = fmt.Sprintf("%s in %s", s.Verdict, s.Phase)
	}
	if s.Cause != "" {
		what += ": " + string(s.Cause)
	}
	if s.Summary != "" {
		what += ": " + s.Summary
	}
	return what
}

func round(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// clip makes t one line of at most MaxStatus bytes, cut on a rune boundary.
func clip(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	if len(t) <= MaxStatus {
		return t
	}
	cut := MaxStatus - len("...")
	for cut > 0 && !utf8Start(t[cut]) {
		cut--
	}
	return t[:cut] + "..."
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
