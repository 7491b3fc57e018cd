//go:build !unix

package scenario

import (
	"os"
	"syscall"
)

// signals are the names a signal event may use.
var signals = map[string]syscall.Signal{
	"SIGABRT": syscall.SIGABRT, "SIGINT": syscall.SIGINT, "SIGKILL": syscall.SIGKILL,
	"SIGSEGV": syscall.SIGSEGV, "SIGTERM": syscall.SIGTERM,
}

// DieBySignal ends the process; without Unix signals it can only kill it.
func DieBySignal(syscall.Signal) {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
}
