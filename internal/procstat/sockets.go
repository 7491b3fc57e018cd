package procstat

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// PortHolding is whose listening socket holds a TCP port.
type PortHolding int

const (
	// HolderUnknown: it cannot be told (the port is not found listening in
	// this network namespace, the tree lives in another one, or some of
	// its descriptors could not be read).
	HolderUnknown PortHolding = iota
	// HolderTree: a process of the tree holds the listening socket.
	HolderTree
	// HolderOther: the socket is held by a process outside the tree.
	HolderOther
)

// PortHolder tells whether the TCP port is listened on by one of pids (a
// server's process tree) or by another process. It reads /proc/net/tcp
// and tcp6 of vigil's own network namespace, so a tree in another
// namespace (a container with its own network) is HolderUnknown.
func (fsys FS) PortHolder(port int, pids []int) PortHolding {
	if len(pids) == 0 || !fsys.sameNetNS(pids[0]) {
		return HolderUnknown
	}
	inodes := fsys.listenInodes(port)
	if len(inodes) == 0 {
		return HolderUnknown
	}
	complete := true
	for _, pid := range pids {
		held, ok := fsys.holds(pid, inodes)
		if held {
			return HolderTree
		}
		complete = complete && ok
	}
	if !complete {
		return HolderUnknown
	}
	return HolderOther
}

// PortListener names a process, other than those in skip, that listens on
// the TCP port, or 0. It looks through every process's descriptors: call
// it once, to name the holder, not on every probe.
func (fsys FS) PortListener(port int, skip []int) int {
	inodes := fsys.listenInodes(port)
	if len(inodes) == 0 {
		return 0
	}
	return fsys.socketHolder(inodes, skip)
}

// sameNetNS reports whether pid lives in vigil's network namespace.
func (fsys FS) sameNetNS(pid int) bool {
	own, err1 := os.Readlink(fsys.root() + "/self/ns/net")
	theirs, err2 := os.Readlink(fsys.path(pid, "ns/net"))
	return err1 == nil && err2 == nil && own == theirs
}

// listenInodes returns the inodes of the sockets listening on port.
func (fsys FS) listenInodes(port int) map[uint64]bool {
	out := map[uint64]bool{}
	for _, name := range []string{"net/tcp", "net/tcp6"} {
		b, err := os.ReadFile(fsys.root() + "/" + name)
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(b, []byte("\n"))[1:] {
			if ino, ok := listenInode(string(line), port); ok {
				out[ino] = true
			}
		}
	}
	return out
}

// listenInode reads one line of /proc/net/tcp:
//
//	sl  local_address rem_address   st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
//	0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000 1000 0 123456 ...
//
// and returns its inode when it listens (state 0A) on port.
func listenInode(line string, port int) (uint64, bool) {
	f := strings.Fields(line)
	if len(f) < 10 || f[3] != "0A" {
		return 0, false
	}
	_, hexPort, ok := strings.Cut(f[1], ":")
	if !ok {
		return 0, false
	}
	p, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil || int(p) != port {
		return 0, false
	}
	ino, err := strconv.ParseUint(f[9], 10, 64)
	return ino, err == nil && ino != 0
}

// holds reports whether pid has one of the socket inodes open; ok is false
// when its descriptors could not be read.
func (fsys FS) holds(pid int, inodes map[uint64]bool) (held, ok bool) {
	dir := fsys.path(pid, "fd")
	names, err := readDirNames(dir)
	if err != nil {
		// A process that is gone holds nothing; one we may not read
		// might.
		return false, vanished(err)
	}
	for _, n := range names {
		link, err := os.Readlink(dir + "/" + n)
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		ino, err := strconv.ParseUint(strings.TrimSuffix(link[len("socket:["):], "]"), 10, 64)
		if err == nil && inodes[ino] {
			return true, true
		}
	}
	return false, true
}

// socketHolder finds a process, other than the ones in skip, that holds
// one of the inodes, or 0.
func (fsys FS) socketHolder(inodes map[uint64]bool, skip []int) int {
	names, err := readDirNames(fsys.root())
	if err != nil {
		return 0
	}
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || containsInt(skip, pid) {
			continue
		}
		if held, _ := fsys.holds(pid, inodes); held {
			return pid
		}
	}
	return 0
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
