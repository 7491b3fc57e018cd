//go:build unix && !linux

package scenario

import "syscall"

// setDefaultAction relies on signal.Reset outside Linux.
func setDefaultAction(syscall.Signal) {}
