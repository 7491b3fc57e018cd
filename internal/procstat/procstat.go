// Package procstat reads the evidence vigil needs to tell a slow startup from
// a stuck one: CPU time, I/O, memory and thread states of a server's whole
// process tree, read straight from Linux's /proc (no cgo; who holds a
// listening port is read through prometheus/procfs).
//
// The /proc root is a field of [FS], so tests run against recorded trees
// under testdata/ and a container can point it at a host /proc mount.
//
// A [Sampler] turns successive samples into a [Delta]: CPU cores in use,
// bytes per second read and written, processes that appeared or died, RSS.
// [Delta.Busy] says whether the tree is doing anything; [FS.Diagnose] says
// where each idle process waits. [HFCache] watches the Hugging Face cache for
// silent downloads, and [FS.MemInfo] gives the machine's memory for host OOM
// evidence.
//
// Processes come and go while /proc is read. A process that vanishes
// mid-read is left out silently; it is never an error.
package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"time"
)

// ClockTicks is USER_HZ, the unit of the CPU times in /proc/PID/stat. Linux
// fixes it at 100 for user space on every architecture Go supports.
const ClockTicks = 100

// DefaultRoot is where /proc is normally mounted.
const DefaultRoot = "/proc"

// FS is a /proc file system. The zero value reads the real /proc.
type FS struct {
	// Root is the /proc mount point; "" means DefaultRoot.
	Root string
	// PageSize converts the RSS field of /proc/PID/stat (in pages) to
	// bytes; 0 means this machine's page size.
	PageSize int
}

func (fsys FS) root() string {
	if fsys.Root == "" {
		return DefaultRoot
	}
	return fsys.Root
}

func (fsys FS) pageSize() int64 {
	if fsys.PageSize > 0 {
		return int64(fsys.PageSize)
	}
	return int64(os.Getpagesize())
}

func (fsys FS) path(pid int, name string) string {
	return fsys.root() + "/" + strconv.Itoa(pid) + "/" + name
}

// ticks converts clock ticks to a duration.
func ticks(n uint64) time.Duration {
	return time.Duration(n) * (time.Second / ClockTicks)
}

// vanished reports whether err means the process is gone: its /proc
// directory disappeared (ENOENT) or it died between open and read (ESRCH).
func vanished(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// stat holds the fields of /proc/PID/stat that vigil uses.
type stat struct {
	pid, ppid, pgrp, sid int
	comm                 string
	state                byte
	majflt               uint64
	utime, stime         uint64
	threads              int
	start                uint64 // clock ticks after boot
	rssPages             int64
}

var errBadStat = errors.New("malformed stat line")

// StatLine is what a /proc/PID/stat line says of a process's identity.
type StatLine struct {
	PID, PPID int
	Comm      string
	State     byte
	// Start is the start time in clock ticks after boot.
	Start uint64
}

// ParseStat parses a /proc/PID/stat line: the one parser of it, which
// procfind uses too.
func ParseStat(b []byte) (StatLine, error) {
	st, err := parseStat(b, true)
	if err != nil {
		return StatLine{}, err
	}
	return StatLine{PID: st.pid, PPID: st.ppid, Comm: st.comm, State: st.state, Start: st.start}, nil
}

// parseStat parses a /proc/PID/stat (or task/TID/stat) line. The command
// name may hold spaces and parentheses, so it runs from the first '(' to the
// last ')'. The comm string is only allocated when withComm is set.
func parseStat(b []byte, withComm bool) (stat, error) {
	var st stat
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open || end+2 >= len(b) {
		return st, errBadStat
	}
	pid, ok := atoi(bytes.TrimSpace(b[:open]))
	if !ok {
		return st, errBadStat
	}
	st.pid = int(pid)
	if withComm {
		st.comm = string(b[open+1 : end])
	}
	rest := b[end+2:]
	// Field i counts from 0 at the state, field 3 in proc(5).
	i := 0
	for ; i <= 21 && len(rest) > 0; i++ {
		f := rest
		if j := bytes.IndexByte(rest, ' '); j >= 0 {
			f, rest = rest[:j], rest[j+1:]
		} else {
			rest = nil
		}
		var n int64
		switch i {
		case 0:
			if len(f) != 1 {
				return st, errBadStat
			}
			st.state = f[0]
			continue
		case 1, 2, 3, 9, 11, 12, 17, 19, 21:
			n, ok = atoi(f)
			if !ok {
				return st, errBadStat
			}
		default:
			continue
		}
		switch i {
		case 1:
			st.ppid = int(n)
		case 2:
			st.pgrp = int(n)
		case 3:
			st.sid = int(n)
		case 9:
			st.majflt = uint64(n)
		case 11:
			st.utime = uint64(n)
		case 12:
			st.stime = uint64(n)
		case 17:
			st.threads = int(n)
		case 19:
			st.start = uint64(n)
		case 21:
			st.rssPages = n
		}
	}
	if i <= 21 {
		return st, errBadStat
	}
	return st, nil
}

// atoi parses a decimal integer, optionally negative, without allocating.
func atoi(b []byte) (int64, bool) {
	b = bytes.TrimRight(b, "\n")
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// pidOf parses a /proc directory entry name; ok is false for "self", "net"...
func pidOf(name string) (int, bool) {
	if name == "" || name[0] < '0' || name[0] > '9' {
		return 0, false
	}
	n, err := strconv.Atoi(name)
	return n, err == nil && n > 0
}

// errNoProcess wraps fs.ErrNotExist, so callers test with errors.Is.
func errNoProcess(pid int) error {
	return fmt.Errorf("procstat: no process %d or its session: %w", pid, fs.ErrNotExist)
}
