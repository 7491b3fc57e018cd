package scenario

import (
	"syscall"
	"unsafe"
)

func init() {
	for name, sig := range map[string]syscall.Signal{"SIGPWR": syscall.SIGPWR,
		"SIGSTKFLT": syscall.SIGSTKFLT, "SIGPOLL": syscall.SIGPOLL, "SIGCLD": syscall.SIGCLD} {
		signals[name] = sig
	}
}

// setDefaultAction sets sig's disposition to SIG_DFL with rt_sigaction,
// under the Go runtime's feet: the runtime keeps its handler for signals it
// uses itself (SIGSEGV, SIGABRT, ...) even after signal.Reset. An all-zero
// kernel sigaction is SIG_DFL with no flags and an empty mask on every
// architecture.
func setDefaultAction(sig syscall.Signal) {
	if sig == syscall.SIGKILL || sig == syscall.SIGSTOP {
		return // their action cannot be changed, and is the default
	}
	var act [8]uint64
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig),
		uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
}
