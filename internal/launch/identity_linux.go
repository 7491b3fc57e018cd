package launch

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"vigil/internal/observe"
)

// si_code values of SIGCHLD (asm-generic/siginfo.h).
const (
	cldExited = 1
	cldKilled = 2
	cldDumped = 3
)

// waitExit waits for pid to exit without reaping it (waitid WNOWAIT): the
// zombie keeps the PID and the group id ours until Release.
func waitExit(pid int) (observe.Exit, bool) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			return observe.Exit{}, false
		}
	}
	code, status := sigchld(&info)
	switch code {
	case cldExited:
		return observe.Exit{Code: status}, true
	case cldKilled, cldDumped:
		return observe.Exit{Signal: SignalName(syscall.Signal(status))}, true
	}
	return observe.Exit{}, false
}

// sigchld reads si_code and si_status of a SIGCHLD siginfo. After three
// ints the union starts at pointer alignment: si_pid, si_uid, si_status.
func sigchld(info *unix.Siginfo) (code, status int) {
	base := unsafe.Pointer(info)
	off := uintptr(12)
	if unsafe.Sizeof(uintptr(0)) == 8 {
		off = 16
	}
	status = int(*(*int32)(unsafe.Add(base, off+8)))
	return int(info.Code), status
}

func setSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// closeInherited marks every descriptor above 2 close-on-exec. Go opens
// its own that way; the others were inherited from whoever started vigil.
func closeInherited() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
	}
}

// procStat is what launch needs of /proc/PID/stat.
type procStat struct {
	pid, ppid, pgrp, sid int
	state                byte
	start                uint64
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

var errStat = errors.New("malformed /proc stat")

func parseStat(b []byte) (procStat, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procStat{}, errStat
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return procStat{}, errStat
	}
	// From field 3 (state): ppid pgrp session ... starttime is field 22.
	f := bytes.Fields(b[end+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, errStat
	}
	st := procStat{pid: pid, state: f[0][0]}
	var e1, e2, e3, e4 error
	st.ppid, e1 = strconv.Atoi(string(f[1]))
	st.pgrp, e2 = strconv.Atoi(string(f[2]))
	st.sid, e3 = strconv.Atoi(string(f[3]))
	st.start, e4 = strconv.ParseUint(string(f[19]), 10, 64)
	if err := errors.Join(e1, e2, e3, e4); err != nil {
		return procStat{}, errStat
	}
	return st, nil
}

func allStats() []procStat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]procStat, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(pid); err == nil {
			out = append(out, st)
		}
	}
	return out
}

func zombie(s byte) bool { return s == 'Z' || s == 'X' || s == 'x' }

// groupAlive reports whether a process other than a zombie is in group
// pgid. kill(-pgid, 0) cannot tell: the unreaped leader answers it.
func groupAlive(pgid int) bool {
	for _, st := range allStats() {
		if st.pgrp == pgid && !zombie(st.state) {
			return true
		}
	}
	return false
}

// adopted lists vigil's children, handed over as their subreaper, that
// came from the server: in a session other than vigil's (vigil starts
// nothing else in a session of its own but servers), not a server leader,
// started no earlier than the server, alive. The earliest started comes
// first.
func adopted(leader int, since uint64) []member {
	self := os.Getpid()
	ownSid, _ := unix.Getsid(0)
	leaders.Lock()
	known := make(map[int]bool, len(leaders.pids))
	for pid := range leaders.pids {
		known[pid] = true
	}
	leaders.Unlock()
	var out []member
	for _, st := range allStats() {
		if st.ppid != self || st.pid == leader || known[st.pid] || st.sid == ownSid || zombie(st.state) || st.start < since {
			continue
		}
		out = append(out, member{pid: st.pid, start: st.start})
	}
	slices.SortFunc(out, func(a, b member) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		return cmp.Compare(a.pid, b.pid)
	})
	return out
}

// signalDaemon signals a daemon, and its process group with it, but only
// while it is the process seen (same start time). A daemon that is vigil's
// child, its zombie unreaped, holds its PID and its place in its group, so
// the group id cannot name a newcomer's group either; one that is not
// (reaped by someone else) is signalled alone, and only while it leads no
// group but its own.
func signalDaemon(d member, sig syscall.Signal) {
	st, err := readStat(d.pid)
	if err != nil || st.start != d.start {
		return // gone, or the PID is someone else's now: never signal it
	}
	ownPgrp := unix.Getpgrp()
	switch {
	case st.ppid == os.Getpid() && st.pgrp != ownPgrp:
		_ = syscall.Kill(-st.pgrp, sig)
	case st.pgrp == d.pid && !zombie(st.state):
		_ = syscall.Kill(-d.pid, sig)
	case !zombie(st.state):
		_ = syscall.Kill(d.pid, sig)
	}
}

// daemonAlive reports whether the daemon, or another member of its group,
// still runs.
func daemonAlive(d member) bool {
	st, err := readStat(d.pid)
	if err != nil || st.start != d.start {
		return false
	}
	return !zombie(st.state) || st.pgrp != unix.Getpgrp() && groupAlive(st.pgrp)
}

// awaitGone returns once the process d is no more: no such PID, another
// process's start time under it, or a zombie. It polls: a process that is
// not vigil's child cannot be waited for.
func awaitGone(d member, every time.Duration) {
	for {
		st, err := readStat(d.pid)
		if err != nil || st.start != d.start || zombie(st.state) {
			return
		}
		time.Sleep(every)
	}
}

func reapIfZombie(d member) {
	st, err := readStat(d.pid)
	if err != nil || st.start != d.start || st.ppid != os.Getpid() {
		return
	}
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(d.pid, &ws, syscall.WNOHANG, nil)
}

// reapOrphans reaps zombies handed to vigil as subreaper that come from a
// server (see adopted), never a launched leader, a daemon followed as the
// server, nor a child vigil started in its own session (those have their
// own waiters).
func reapOrphans() {
	self := os.Getpid()
	ownSid, _ := unix.Getsid(0)
	leaders.Lock()
	defer leaders.Unlock()
	for _, st := range allStats() {
		if st.ppid == self && zombie(st.state) && st.sid != ownSid && !leaders.pids[st.pid] && !leaders.kept[st.pid] {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(st.pid, &ws, syscall.WNOHANG, nil)
		}
	}
}
