//go:build unix

package scenario

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// signals are the names a signal event may use.
var signals = map[string]syscall.Signal{
	"SIGABRT": syscall.SIGABRT, "SIGALRM": syscall.SIGALRM, "SIGBUS": syscall.SIGBUS,
	"SIGCHLD": syscall.SIGCHLD, "SIGCONT": syscall.SIGCONT, "SIGFPE": syscall.SIGFPE,
	"SIGHUP": syscall.SIGHUP, "SIGILL": syscall.SIGILL, "SIGINT": syscall.SIGINT,
	"SIGIO": syscall.SIGIO, "SIGKILL": syscall.SIGKILL, "SIGPIPE": syscall.SIGPIPE,
	"SIGPROF": syscall.SIGPROF, "SIGQUIT": syscall.SIGQUIT, "SIGSEGV": syscall.SIGSEGV,
	"SIGSTOP": syscall.SIGSTOP, "SIGSYS": syscall.SIGSYS, "SIGTERM": syscall.SIGTERM,
	"SIGTRAP": syscall.SIGTRAP, "SIGTSTP": syscall.SIGTSTP, "SIGTTIN": syscall.SIGTTIN,
	"SIGTTOU": syscall.SIGTTOU, "SIGURG": syscall.SIGURG, "SIGUSR1": syscall.SIGUSR1,
	"SIGUSR2": syscall.SIGUSR2, "SIGVTALRM": syscall.SIGVTALRM, "SIGWINCH": syscall.SIGWINCH,
	"SIGXCPU": syscall.SIGXCPU, "SIGXFSZ": syscall.SIGXFSZ, "SIGIOT": syscall.SIGIOT,
}

// DieBySignal makes the calling process die by sig with the signal's
// default action, as a crashed server does (a shell sees 128+sig, a parent
// sees "signaled"): Go's own handling of the signal is undone first, since
// Go would otherwise turn SIGABRT or SIGQUIT into a stack dump and exit 2,
// and ignore a SIGSEGV sent by kill. It returns only if the signal did not
// end the process (SIGCHLD, SIGSTOP then SIGCONT, ...).
func DieBySignal(sig syscall.Signal) {
	signal.Reset(sig)
	setDefaultAction(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	// Delivery to this process is immediate, but give the kernel a moment.
	time.Sleep(100 * time.Millisecond)
}
