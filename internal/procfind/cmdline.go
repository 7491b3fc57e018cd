package procfind

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Cmdline is the process's command line, or nil when it cannot be read.
func (p FS) Cmdline(pid int) []string {
	b, err := os.ReadFile(p.path(strconv.Itoa(pid), "cmdline"))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// CmdlineText is the command line for a message: joined, cut at 160 bytes.
func (p FS) CmdlineText(pid int) string {
	s := strings.Join(p.Cmdline(pid), " ")
	if s == "" {
		return "(command line not readable)"
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// ZombieStatus reads how a process that has died but not yet been reaped
// by its parent ended: /proc/PID/stat keeps its wait status (field 52)
// while it is a zombie. ok is false when the process is gone for good or
// still runs.
func (p FS) ZombieStatus(pid int) (ws syscall.WaitStatus, ok bool) {
	b, err := os.ReadFile(p.path(strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); field 52 is f[49].
	if len(f) < 50 || f[0] != "Z" {
		return 0, false
	}
	status, err := strconv.Atoi(f[49])
	if err != nil {
		return 0, false
	}
	return syscall.WaitStatus(status), true
}

// Cwd is the process's working directory, or "" when it cannot be read
// (another user's process, one that has ended).
func (p FS) Cwd(pid int) string {
	dir, err := os.Readlink(p.path(strconv.Itoa(pid), "cwd"))
	if err != nil {
		return ""
	}
	return dir
}

// Environ returns a lookup of the environment the process started with
// (/proc/PID/environ), or nil when it cannot be read (another user's
// process, an ended one). Its values may be secrets: callers look up the
// names they need and never show the rest.
func (p FS) Environ(pid int) func(string) string {
	b, err := os.ReadFile(p.path(strconv.Itoa(pid), "environ"))
	if err != nil || len(b) == 0 {
		return nil
	}
	vars := map[string]string{}
	for _, kv := range strings.Split(strings.TrimRight(string(b), "\x00"), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	return func(name string) string { return vars[name] }
}

// OutputFile returns the regular file the process's standard output is
// written to, else its standard error's: the log of a server started as
// "server > server.log 2>&1". When neither is a file that can be read, err
// says where its output goes instead (a pipe, a socket such as journald's,
// a terminal) or that its file was deleted.
func (p FS) OutputFile(pid int) (string, error) {
	var where []string
	for _, fd := range []string{"1", "2"} {
		link := p.path(strconv.Itoa(pid), "fd", fd)
		target, err := os.Readlink(link)
		if err != nil {
			return "", fmt.Errorf("its output cannot be read: %w", err)
		}
		if strings.HasSuffix(target, " (deleted)") {
			where = append(where, "a deleted file, "+strings.TrimSuffix(target, " (deleted)"))
			continue
		}
		fi, err := os.Stat(link)
		if err != nil || !fi.Mode().IsRegular() {
			where = append(where, target)
			continue
		}
		// The path is the process's: in another mount namespace (a
		// container) vigil's same path may be another file or none.
		if same, err := os.Stat(target); err != nil || !os.SameFile(fi, same) {
			where = append(where, "a file vigil sees elsewhere than at "+target)
			continue
		}
		return target, nil
	}
	return "", fmt.Errorf("its output goes to %s, not to a file", strings.Join(slices.Compact(where), " and "))
}
