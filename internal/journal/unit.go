package journal

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ErrUnitNotFound is returned by [UnitInfo] for a unit systemd does not
// know (LoadState=not-found).
var ErrUnitNotFound = errors.New("unit not found")

// unitProps are the properties UnitInfo asks systemctl for.
var unitProps = []string{
	"Id", "LoadState", "ActiveState", "SubState", "MainPID", "InvocationID",
	"ControlGroup", "ActiveEnterTimestamp", "ActiveEnterTimestampMonotonic",
	"InactiveExitTimestamp", "InactiveExitTimestampMonotonic",
	"ExecMainStartTimestamp",
}

// Info is what systemd knows about a unit.
type Info struct {
	// ID is the unit's full name ("sglang.service").
	ID string
	// LoadState, ActiveState and SubState are systemd's states
	// ("loaded", "activating"/"active"/"failed", "start"/"running").
	LoadState, ActiveState, SubState string
	// MainPID is the unit's main process; 0 when it has none.
	MainPID int
	// InvocationID identifies the unit's current (or last) activation;
	// its log entries carry it.
	InvocationID string
	// ControlGroup is the unit's cgroup, holding all its processes.
	ControlGroup string
	// ActiveEnter is when the unit last became active, and
	// ActiveEnterMonotonic the same on the monotonic clock. Zero while
	// a unit of Type=notify is still starting.
	ActiveEnter          time.Time
	ActiveEnterMonotonic time.Duration
	// InactiveExit is when the unit last left the inactive state: the
	// start of its current activation.
	InactiveExit          time.Time
	InactiveExitMonotonic time.Duration
	// ExecMainStart is when the main process was started.
	ExecMainStart time.Time
}

// Start returns when the unit's current activation began, for reading its
// log from then on: InactiveExit, else ExecMainStart, else ActiveEnter
// (a unit still activating has no ActiveEnter yet, or an old one).
func (i Info) Start() time.Time {
	for _, t := range []time.Time{i.InactiveExit, i.ExecMainStart, i.ActiveEnter} {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// UnitInfo asks systemctl about unit. A unit systemd does not know is an
// error wrapping [ErrUnitNotFound].
func UnitInfo(ctx context.Context, unit string, opts Options) (Info, error) {
	if err := checkUnit(unit); err != nil {
		return Info{}, fmt.Errorf("systemctl: %w", err)
	}
	name := opts.Systemctl
	if name == "" {
		name = "systemctl"
	}
	var args []string
	if opts.User {
		args = append(args, "--user")
	}
	args = append(args, "show", "--no-pager")
	for _, p := range unitProps {
		args = append(args, "-p", p)
	}
	args = append(args, "--", unit)
	cmd := exec.CommandContext(ctx, name, args...)
	// Timestamps are printed in local time: make that UTC, so they parse
	// without guessing what a zone abbreviation means.
	cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C", "SYSTEMD_PAGER=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return Info{}, fmt.Errorf("systemctl show %s: %w: %s", unit, err, msg)
		}
		return Info{}, fmt.Errorf("systemctl show %s: %w", unit, err)
	}
	info, err := parseShow(out)
	if err != nil {
		return Info{}, fmt.Errorf("systemctl show %s: %w", unit, err)
	}
	if info.LoadState == "not-found" {
		return Info{}, fmt.Errorf("unit %s: %w", unit, ErrUnitNotFound)
	}
	return info, nil
}

// parseShow parses `systemctl show` output: one Key=Value a line.
func parseShow(out []byte) (Info, error) {
	var info Info
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		var err error
		switch key {
		case "Id":
			info.ID = value
		case "LoadState":
			info.LoadState = value
		case "ActiveState":
			info.ActiveState = value
		case "SubState":
			info.SubState = value
		case "InvocationID":
			info.InvocationID = value
		case "ControlGroup":
			info.ControlGroup = value
		case "MainPID":
			info.MainPID, err = strconv.Atoi(value)
		case "ActiveEnterTimestamp":
			info.ActiveEnter, err = parseTimestamp(value)
		case "ActiveEnterTimestampMonotonic":
			info.ActiveEnterMonotonic, err = parseMicros(value)
		case "InactiveExitTimestamp":
			info.InactiveExit, err = parseTimestamp(value)
		case "InactiveExitTimestampMonotonic":
			info.InactiveExitMonotonic, err = parseMicros(value)
		case "ExecMainStartTimestamp":
			info.ExecMainStart, err = parseTimestamp(value)
		}
		if err != nil {
			return Info{}, fmt.Errorf("%s: %w", key, err)
		}
	}
	if err := sc.Err(); err != nil {
		return Info{}, err
	}
	return info, nil
}

// parseTimestamp parses a systemctl timestamp: "Thu 2026-11-12 10:00:00
// UTC" (fractional seconds allowed), "@1700000000" (--timestamp=unix), or
// empty / "n/a" for never.
func parseTimestamp(s string) (time.Time, error) {
	if s == "" || s == "n/a" {
		return time.Time{}, nil
	}
	if rest, ok := strings.CutPrefix(s, "@"); ok {
		sec, err := strconv.ParseFloat(rest, 64)
		if err != nil {
			return time.Time{}, err
		}
		return time.UnixMicro(int64(sec * 1e6)), nil
	}
	return time.Parse("Mon 2006-01-02 15:04:05 MST", s)
}

// parseMicros parses a count of microseconds.
func parseMicros(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	us, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	return time.Duration(us) * time.Microsecond, nil
}
