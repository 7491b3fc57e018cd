//go:build linux

// Package reaper does what an init process owes its container (tini's
// duties) when vigil runs as PID 1, or as a child subreaper
// (PR_SET_CHILD_SUBREAPER) under a service manager: it reaps every zombie
// that is left to vigil, and it relays the signals vigil receives to the
// server's process group.
//
// Reaping must not steal a wait status that someone else is waiting for:
// the launcher waits for the server's leader (its exit status is the
// verdict's evidence), and vigil's own helpers (nvidia-smi, journalctl) are
// waited for by os/exec. So the leader is registered with [Reaper.Start]
// while reaping is paused, and never reaped here; any other zombie child is
// reaped once it has stayed a zombie for [Reaper.Linger]: os/exec reaps its
// own children as soon as they exit, so a zombie that lingers is an orphan
// nobody else will wait for.
package reaper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"vigil/internal/launch"
)

// DefaultLinger is how long a zombie that is not the leader stays before it
// is reaped: far longer than os/exec takes to reap its own children, and
// short enough that orphans never pile up.
const DefaultLinger = 2 * time.Second

// IsInit reports whether vigil is PID 1 (of the host or its PID namespace),
// where orphans are its to reap.
func IsInit() bool { return os.Getpid() == 1 }

// BecomeSubreaper makes vigil the reaper of orphans among its descendants,
// as PID 1 is for a whole namespace: a server's workers that outlive their
// parent come to vigil instead of to init.
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("become child subreaper: %w", err)
	}
	return nil
}

// Reaper reaps zombie children. A nil *Reaper reaps nothing, and its Start
// just starts: code that launches the server need not care whether vigil is
// PID 1.
type Reaper struct {
	// Linger is how long a zombie that is not an owned leader stays before
	// it is reaped: 0 means [DefaultLinger], a negative value not at all.
	Linger time.Duration
	// OnReap, if set, is told of every zombie reaped, with its status.
	OnReap func(pid int, status syscall.WaitStatus)
	// Proc is where the process table is read (default "/proc").
	Proc string

	// mu is held while a sweep runs and while a leader is being started
	// and registered, so the leader cannot be reaped before it is known.
	mu    sync.Mutex
	owned map[int]<-chan struct{}
	seen  map[zombie]time.Time
}

// New returns a reaper with the defaults.
func New() *Reaper { return &Reaper{} }

// Start runs start, which launches a process and returns its pid and a
// channel closed once its launcher has waited for it, and leaves that
// process to its launcher: the reaper never waits for it.
func (r *Reaper) Start(start func() (pid int, waited <-chan struct{}, err error)) error {
	if r == nil {
		_, _, err := start()
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, waited, err := start()
	if err != nil {
		return err
	}
	if r.owned == nil {
		r.owned = map[int]<-chan struct{}{}
	}
	r.owned[pid] = waited
	return nil
}

// Run reaps until ctx ends: at once, at every SIGCHLD, and when a
// lingering zombie is due.
func (r *Reaper) Run(ctx context.Context) error {
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	defer signal.Stop(chld)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		due, err := r.Sweep()
		if err != nil {
			return err
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		if !due.IsZero() {
			timer.Reset(max(time.Until(due), time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-chld:
		case <-timer.C:
		}
	}
}

// zombie names one process: a pid and its start time, so a reused pid is
// a new zombie.
type zombie struct {
	pid   int
	start uint64
}

// Sweep reaps every zombie child that is due, once, and returns when the
// next lingering one will be (zero if none lingers).
func (r *Reaper) Sweep() (next time.Time, err error) {
	if r == nil {
		return time.Time{}, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for pid := range r.owned {
		r.isOwned(pid) // forgets those waited for
	}
	for pid := range r.owned {
		r.isOwned(pid) // forgets those waited for
	}
	zs, err := r.zombies()
	if err != nil {
		return time.Time{}, err
	}
	linger := r.Linger
	if linger == 0 {
		linger = DefaultLinger
	}
	now := time.Now()
	seen := make(map[zombie]time.Time, len(zs))
	for _, z := range zs {
		if r.isOwned(z.pid) {
			continue
		}
		first, ok := r.seen[z]
		if !ok {
			first = now
		}
		if due := first.Add(linger); linger > 0 && now.Before(due) {
			seen[z] = first
			if next.IsZero() || due.Before(next) {
				next = due
			}
			continue
		}
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(z.pid, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.ECHILD) {
			continue // reaped meanwhile by whoever started it
		}
		if err != nil || got != z.pid {
			// Not reaped for another reason: try again a little later
			// rather than wait for a SIGCHLD that may never come.
			seen[z] = first
			if retry := now.Add(max(linger, 10*time.Millisecond)); next.IsZero() || retry.Before(next) {
				next = retry
			}
			continue
		}
		if r.OnReap != nil {
			r.OnReap(z.pid, ws)
		}
	}
	r.seen = seen
	return next, nil
}

// isOwned reports whether pid is a leader whose launcher has not yet
// waited for it; a leader once waited for is forgotten, its pid free for
// reuse.
func (r *Reaper) isOwned(pid int) bool {
	// launch keeps a leader's zombie until its group has been signalled,
	// so that its PID cannot be reused meanwhile: that zombie is launch's.
	if launch.Owned(pid) {
		return true
	}
	waited, ok := r.owned[pid]
	if !ok {
		return false
	}
	select {
	case <-waited:
		delete(r.owned, pid)
		return false
	default:
		return true
	}
}

// zombies lists vigil's children that are zombies, from the process table.
func (r *Reaper) zombies() ([]zombie, error) {
	proc := r.Proc
	if proc == "" {
		proc = "/proc"
	}
	ents, err := os.ReadDir(proc)
	if err != nil {
		return nil, fmt.Errorf("read process table: %w", err)
	}
	self := os.Getpid()
	var out []zombie
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(proc, e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		st, ok := parseStat(string(b))
		if ok && st.state == 'Z' && st.ppid == self {
			out = append(out, zombie{pid: pid, start: st.start})
		}
	}
	return out, nil
}

type stat struct {
	state byte
	ppid  int
	start uint64
}

// parseStat reads the fields of /proc/PID/stat that matter here. The
// command name is in parentheses and may itself hold ") ", so the fields
// are counted from the last ')'.
func parseStat(s string) (stat, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), f[1] field 4 (ppid), f[19] field 22 (starttime).
	if len(f) < 20 || len(f[0]) != 1 {
		return stat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return stat{}, false
	}
	return stat{state: f[0][0], ppid: ppid, start: start}, true
}
