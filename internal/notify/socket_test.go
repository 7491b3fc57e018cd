package notify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"vigil/internal/facts"
	"vigil/internal/verdict"
)

// unit plays the part of systemd for one Type=notify service with
// NotifyAccess=main: it reads the notify socket the way the manager does
// (recvmsg with SO_PASSCRED, the sender's pid checked against the main pid,
// one datagram of newline-separated assignments) and keeps the start
// deadline as service_extend_timeout does: TimeoutStartSec from the start,
// moved later (never earlier) by each EXTEND_TIMEOUT_USEC= from the time the
// message arrives.
type unit struct {
	t        *testing.T
	fd       int
	start    time.Time
	deadline time.Time
	watchdog time.Duration

	ready    time.Time
	stopping bool
	status   []string
	extends  []time.Time // when each extension arrived
	pings    []time.Time
	timedOut time.Time // when the start timeout would have fired, zero if never
	dogFired time.Time // when the watchdog would have fired, zero if never
}

func newUnit(t *testing.T) *unit {
	dir, err := os.MkdirTemp("", "sd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "notify")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_PASSCRED, 1); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NOTIFY_SOCKET", path)
	return &unit{t: t, fd: fd}
}

// begin starts the unit's clocks at now.
func (u *unit) begin(timeoutStart, watchdog time.Duration) {
	u.start = time.Now()
	u.deadline = u.start.Add(timeoutStart)
	u.watchdog = watchdog
}

// drain reads every datagram waiting, as arrived now, then checks the
// timers at now.
func (u *unit) drain() {
	now := time.Now()
	for {
		buf := make([]byte, 4096) // NOTIFY_BUFFER_MAX
		oob := make([]byte, syscall.CmsgSpace(syscall.SizeofUcred))
		n, oobn, flags, _, err := syscall.Recvmsg(u.fd, buf, oob, syscall.MSG_DONTWAIT)
		if errors.Is(err, syscall.EAGAIN) {
			break
		}
		if err != nil {
			u.t.Fatalf("recvmsg: %v", err)
		}
		if flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0 {
			u.t.Fatalf("notification truncated")
		}
		cmsgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(cmsgs) != 1 {
			u.t.Fatalf("no credentials with the notification: %v", err)
		}
		cred, err := syscall.ParseUnixCredentials(&cmsgs[0])
		if err != nil {
			u.t.Fatal(err)
		}
		if int(cred.Pid) != os.Getpid() {
			u.t.Fatalf("notification from pid %d, main pid is %d: NotifyAccess=main drops it", cred.Pid, os.Getpid())
		}
		for line := range strings.SplitSeq(string(buf[:n]), "\n") {
			u.assign(now, line)
		}
	}
	if u.ready.IsZero() && u.timedOut.IsZero() && !u.deadline.IsZero() && now.After(u.deadline) {
		u.timedOut = u.deadline
	}
	if !u.ready.IsZero() && u.watchdog > 0 && u.dogFired.IsZero() && !u.stopping {
		last := u.ready
		if len(u.pings) > 0 {
			last = u.pings[len(u.pings)-1]
		}
		if now.Sub(last) > u.watchdog {
			u.dogFired = last.Add(u.watchdog)
		}
	}
}

func (u *unit) assign(now time.Time, line string) {
	key, val, ok := strings.Cut(line, "=")
	if !ok {
		u.t.Fatalf("not an assignment: %q", line)
	}
	switch key {
	case "READY":
		if val != "1" || !u.ready.IsZero() {
			u.t.Fatalf("READY=%s (ready before: %v)", val, !u.ready.IsZero())
		}
		u.ready = now
	case "STOPPING":
		u.stopping = true
	case "STATUS":
		u.status = append(u.status, val)
	case "WATCHDOG":
		if val != "1" {
			u.t.Fatalf("WATCHDOG=%s", val)
		}
		u.pings = append(u.pings, now)
	case "EXTEND_TIMEOUT_USEC":
		us, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			u.t.Fatalf("EXTEND_TIMEOUT_USEC=%s: %v", val, err)
		}
		if d := now.Add(time.Duration(us) * time.Microsecond); d.After(u.deadline) {
			u.deadline = d
		}
		u.extends = append(u.extends, now)
	default:
		u.t.Fatalf("unknown assignment %q", line)
	}
}

// supervised runs a notifier over a board inside a synctest bubble, with a
// unit reading its socket; script acts out the server, calling wait to let
// fake time pass.
func supervised(t *testing.T, cfg Config, timeoutStart time.Duration, script func(b *facts.Board, wait func(time.Duration))) *unit {
	u := newUnit(t)
	synctest.Test(t, func(t *testing.T) {
		b := facts.NewBoard(time.Now())
		u.begin(timeoutStart, cfg.Watchdog)
		ctx, cancel := context.WithCancel(t.Context())
		n := New(cfg, Systemd)
		done := make(chan error, 1)
		go func() { done <- n.Run(ctx, b) }()
		wait := func(d time.Duration) {
			// Read the socket every 100ms, as often as systemd would
			// need to for these timings.
			for end := time.Now().Add(d); time.Now().Before(end); {
				time.Sleep(min(100*time.Millisecond, time.Until(end)))
				synctest.Wait()
				u.drain()
			}
		}
		script(b, wait)
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		u.drain()
	})
	return u
}

func TestSlowButProgressingStartOutlivesTimeoutStartSec(t *testing.T) {
	cfg := Config{ExtendGrace: 20 * time.Second}
	u := supervised(t, cfg, 10*time.Second, func(b *facts.Board, wait func(time.Duration)) {
		b.SetServer("sglang")
		b.Phase(verdict.Weights, time.Now())
		// A 2-minute load that reports a shard every 5 seconds.
		for i := 1; i <= 24; i++ {
			wait(5 * time.Second)
			b.Progress("shards "+strconv.Itoa(i)+"/24", time.Now())
		}
		b.Phase(verdict.Serving, time.Now())
		wait(time.Second)
		b.Health("ok", true, time.Now())
		b.Ready(time.Now())
		wait(time.Second)
	})
	if !u.timedOut.IsZero() {
		t.Fatalf("systemd would have killed the start at %v", u.timedOut.Sub(u.start))
	}
	if got := u.ready.Sub(u.start); got < 121*time.Second || got > 122*time.Second {
		t.Errorf("READY=1 after %v, want about 2m1s", got)
	}
	if len(u.extends) == 0 || len(u.extends) > 30 {
		t.Errorf("%d extensions, want a few (one per shard at most)", len(u.extends))
	}
	for _, e := range u.extends {
		if e.After(u.ready) {
			t.Errorf("extension after ready, at %v", e.Sub(u.start))
		}
	}
	if !u.stopping {
		t.Error("no STOPPING=1 on the way down")
	}
	if first, last := u.status[0], u.status[len(u.status)-1]; !strings.HasPrefix(first, "starting: ") || last != "stopping" {
		t.Errorf("status went from %q to %q", first, last)
	}
	if !contains(u.status, "starting: weights, shards 23/24") || !contains(u.status, "sglang ready after 2m1s") {
		t.Errorf("statuses: %q", u.status)
	}
}

func TestStallIsStillKilled(t *testing.T) {
	cfg := Config{ExtendGrace: 20 * time.Second}
	u := supervised(t, cfg, 10*time.Second, func(b *facts.Board, wait func(time.Duration)) {
		b.Phase(verdict.Weights, time.Now())
		for i := 1; i <= 6; i++ {
			wait(5 * time.Second)
			b.Progress("shards "+strconv.Itoa(i)+"/24", time.Now())
		}
		// Progress stops at 30s; nothing else happens for two minutes.
		wait(2 * time.Minute)
	})
	if u.timedOut.IsZero() {
		t.Fatal("a stalled start was never timed out")
	}
	// The last progress came at 30s: systemd must fire within a tenth of
	// the grace (the resend step) of 30s+20s, and not before.
	got := u.timedOut.Sub(u.start)
	// (The unit reads every 100ms, so an arrival is late by up to that.)
	if got < 48*time.Second || got > 50200*time.Millisecond {
		t.Errorf("timed out after %v, want 48s..50.2s (last progress at 30s + 20s grace)", got)
	}
	for _, e := range u.extends {
		if e.Sub(u.start) > 31*time.Second {
			t.Errorf("extension at %v, after progress stopped", e.Sub(u.start))
		}
	}
}

func TestWatchdogWhileHealthyOnly(t *testing.T) {
	cfg := Config{Watchdog: 4 * time.Second}
	var stoppedAnswering time.Duration
	u := supervised(t, cfg, time.Minute, func(b *facts.Board, wait func(time.Duration)) {
		start := time.Now()
		b.Health("ok", true, time.Now())
		b.Ready(time.Now())
		// Healthy for 30s, answering every second.
		for range 30 {
			wait(time.Second)
			b.Health("ok", true, time.Now())
		}
		// Then no answer at all: the health poller is stuck.
		stoppedAnswering = time.Since(start)
		wait(20 * time.Second)
	})
	if u.dogFired.IsZero() {
		t.Fatal("the watchdog never fired although health answers stopped")
	}
	got := u.dogFired.Sub(u.start)
	// Pings stop once the last answer is older than the interval (4s), so
	// the watchdog fires at most 4s+4s after the answers stopped.
	if got < stoppedAnswering || got > stoppedAnswering+8*time.Second {
		t.Errorf("watchdog fired at %v, answers stopped at %v", got, stoppedAnswering)
	}
	for i := 1; i < len(u.pings); i++ {
		// Half the interval, give or take a tick and the unit's reading.
		if gap := u.pings[i].Sub(u.pings[i-1]); gap > 3*time.Second || gap < 1800*time.Millisecond {
			t.Errorf("pings %v apart, want about 2s", gap)
		}
	}
}

func contains(list []string, suffix string) bool {
	for _, s := range list {
		if strings.HasSuffix(s, suffix) {
			return true
		}
	}
	return false
}
