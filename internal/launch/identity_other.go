//go:build !linux

package launch

import (
	"errors"
	"syscall"

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

func adopted(int, uint64) []int { return nil }

func signalDaemon(int, syscall.Signal) {}

func daemonAlive(int) bool { return false }

func reapIfZombie(int) {}

func reapOrphans() {}
