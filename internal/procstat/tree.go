package procstat

import (
	"slices"
)

// link is how one process hangs in the process tree.
type link struct {
	ppid, pgrp, sid int
}

// Tree returns root and all its live descendants (by parent PID), plus every
// process whose session or process group is root's PID, with their own
// descendants. vigil starts servers with setsid, so root leads a session and
// the session catches workers that were orphaned and reparented to init. A
// session or group ID is the leader's PID, and Linux does not hand out that PID
// again while the session lives, so this also works after root itself died.
//
// The PIDs come back sorted. Processes that vanish during the scan are left
// out. When neither root nor any member of its session is alive the error
// wraps fs.ErrNotExist.
func (fsys FS) Tree(root int) ([]int, error) {
	names, err := readDirNames(fsys.root())
	if err != nil {
		return nil, err
	}
	var r reader
	links := make(map[int]link, len(names))
	for _, name := range names {
		pid, ok := pidOf(name)
		if !ok {
			continue
		}
		if l, ok := fsys.readLink(&r, pid); ok {
			links[pid] = l
		}
	}
	return collect(root, links)
}

// readLink reads one process's parent, group and session; ok is false when
// the process vanished or its stat is unreadable.
func (fsys FS) readLink(r *reader, pid int) (link, bool) {
	b, err := r.read(fsys.path(pid, "stat"))
	if err != nil {
		return link{}, false
	}
	st, err := parseStat(b, false)
	if err != nil {
		return link{}, false
	}
	return link{ppid: st.ppid, pgrp: st.pgrp, sid: st.sid}, true
}

// collect walks links from root: root itself, its session and group, and all
// their descendants.
func collect(root int, links map[int]link) ([]int, error) {
	children := make(map[int][]int)
	var queue []int
	for pid, l := range links {
		children[l.ppid] = append(children[l.ppid], pid)
		if pid == root || l.sid == root || l.pgrp == root {
			queue = append(queue, pid)
		}
	}
	if len(queue) == 0 {
		return nil, errNoProcess(root)
	}
	seen := make(map[int]bool, len(queue))
	var out []int
	for len(queue) > 0 {
		pid := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		out = append(out, pid)
		queue = append(queue, children[pid]...)
	}
	slices.Sort(out)
	return out, nil
}
