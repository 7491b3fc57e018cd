//go:build !linux

package launch

import (
	"errors"
	"syscall"
	"time"

	"vigil/internal/observe"
)

// Without waitid WNOWAIT the leader is reaped at exit, and Signal stops
// signalling its group from then on: a PID that may be reused is never
// signalled, at the cost of not reaching workers that outlive the leader.
func waitExit(int) (observe.Exit, bool) { return observe.Exit{}, false }

func setSubreaper() error { return errors.New("not supported on this system") }

func closeInherited() {}

type procStat struct{ start uint64 }

func readStat(int) (procStat, error) { return procStat{}, errors.New("no /proc") }

func groupAlive(pgid int) bool { return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) }

func adopted(int, uint64) []member { return nil }

func signalDaemon(member, syscall.Signal) {}

func daemonAlive(member) bool { return false }

func awaitGone(member, time.Duration) {}

func reapIfZombie(member) {}

func reapOrphans() {}
