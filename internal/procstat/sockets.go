package procstat

import (
	"cmp"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
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
	pfs, err := procfs.NewFS(fsys.root())
	if err != nil {
		return HolderUnknown
	}
	inodes := listenInodes(pfs, port)
	if len(inodes) == 0 {
		return HolderUnknown
	}
	complete := true
	for _, pid := range pids {
		held, ok := holds(pfs, pid, inodes)
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
	pfs, err := procfs.NewFS(fsys.root())
	if err != nil {
		return 0
	}
	inodes := listenInodes(pfs, port)
	if len(inodes) == 0 {
		return 0
	}
	procs, err := pfs.AllProcs()
	if err != nil {
		return 0
	}
	for _, p := range procs {
		if slices.Contains(skip, p.PID) {
			continue
		}
		if held, _ := holds(pfs, p.PID, inodes); held {
			return p.PID
		}
	}
	return 0
}

// Listeners returns the TCP addresses pids (a server's process tree) listen
// on, by port: how a server told to take any port is found when it does not
// print the port it got. None when the tree lives in another network
// namespace or nothing can be read.
func (fsys FS) Listeners(pids []int) []netip.AddrPort {
	if len(pids) == 0 || !fsys.sameNetNS(pids[0]) {
		return nil
	}
	pfs, err := procfs.NewFS(fsys.root())
	if err != nil {
		return nil
	}
	byInode := map[uint64]netip.AddrPort{}
	for _, table := range []func() (procfs.NetTCP, error){pfs.NetTCP, pfs.NetTCP6} {
		socks, err := table()
		if err != nil {
			continue
		}
		for _, s := range socks {
			addr, ok := netip.AddrFromSlice(s.LocalAddr)
			if s.St == tcpListen && s.Inode != 0 && ok {
				byInode[s.Inode] = netip.AddrPortFrom(addr.Unmap(), uint16(s.LocalPort))
			}
		}
	}
	var out []netip.AddrPort
	for _, pid := range pids {
		inodes, _ := socketInodes(pfs, pid)
		for _, ino := range inodes {
			if a, ok := byInode[ino]; ok && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	slices.SortFunc(out, func(a, b netip.AddrPort) int {
		return cmp.Or(cmp.Compare(a.Port(), b.Port()), a.Addr().Compare(b.Addr()))
	})
	return out
}

// sameNetNS reports whether pid lives in vigil's network namespace.
func (fsys FS) sameNetNS(pid int) bool {
	own, err1 := os.Readlink(fsys.root() + "/self/ns/net")
	theirs, err2 := os.Readlink(fsys.path(pid, "ns/net"))
	return err1 == nil && err2 == nil && own == theirs
}

// tcpListen is the TCP_LISTEN state of /proc/net/tcp's st column.
const tcpListen = 0x0A

// listenInodes returns the inodes of the sockets listening on port, from
// /proc/net/tcp and tcp6 as procfs reads them (a table it cannot read,
// tcp6 on a host without IPv6, adds none).
func listenInodes(pfs procfs.FS, port int) map[uint64]bool {
	out := map[uint64]bool{}
	for _, table := range []func() (procfs.NetTCP, error){pfs.NetTCP, pfs.NetTCP6} {
		socks, err := table()
		if err != nil {
			continue
		}
		for _, s := range socks {
			if s.St == tcpListen && s.LocalPort == uint64(port) && s.Inode != 0 {
				out[s.Inode] = true
			}
		}
	}
	return out
}

// holds reports whether pid has one of the socket inodes open; ok is false
// when its descriptors could not be read.
func holds(pfs procfs.FS, pid int, inodes map[uint64]bool) (held, ok bool) {
	open, ok := socketInodes(pfs, pid)
	for _, ino := range open {
		if inodes[ino] {
			return true, true
		}
	}
	return false, ok
}

// socketInodes returns the inodes of the sockets pid has open; ok is false
// when its descriptors could not be read.
func socketInodes(pfs procfs.FS, pid int) (inodes []uint64, ok bool) {
	proc, err := pfs.Proc(pid)
	var targets []string
	if err == nil {
		targets, err = proc.FileDescriptorTargets()
	}
	if err != nil {
		// A process that is gone holds nothing; one we may not read
		// might.
		return nil, vanished(err)
	}
	for _, t := range targets {
		rest, ok := strings.CutPrefix(t, "socket:[")
		if !ok {
			continue
		}
		if ino, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64); err == nil {
			inodes = append(inodes, ino)
		}
	}
	return inodes, true
}
