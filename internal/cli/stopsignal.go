package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// stopSignals end a judging session before its verdict: Ctrl-C, a
// service manager's SIGTERM, a closed terminal or dropped ssh (SIGHUP), a
// reader that went away (SIGPIPE: `vigil run ... | head -3`). Under run each
// stops the server's group, so no hung server is left behind; watch never
// signals the server.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE}

// stopper turns the first stop signal, or the first failed write to
// stdout or stderr (counted as SIGPIPE), into a cancelled context; a
// second SIGINT, SIGTERM or SIGHUP asks to kill at once.
type stopper struct {
	sig     atomic.Value // syscall.Signal
	killNow chan struct{}
	broken  chan struct{}
	once    sync.Once
}

// watchStops starts the stopper; the returned env writes through writers
// that report a failed write; stop ends the watching.
func watchStops(ctx context.Context, env *Env) (context.Context, *stopper, *Env, func()) {
	s := &stopper{killNow: make(chan struct{}), broken: make(chan struct{})}
	sigs := make(chan os.Signal, 4)
	// With SIGPIPE notified, a write to a closed stdout returns EPIPE
	// instead of killing vigil, and the server can be stopped.
	signal.Notify(sigs, stopSignals...)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var first os.Signal
		for first == nil {
			select {
			case sig := <-sigs:
				// The kernel also raises SIGPIPE for a write to a socket
				// the peer reset (a health probe, a smoke request): that
				// write fails on its own. Only stdout or stderr gone stops.
				if sig != syscall.SIGPIPE || outputGone() {
					first = sig
				}
			case <-s.broken:
				first = syscall.SIGPIPE
			case <-done:
				return
			}
		}
		s.sig.Store(first.(syscall.Signal))
		cancel()
		for {
			select {
			case again := <-sigs:
				if again != syscall.SIGPIPE {
					close(s.killNow)
					return
				}
			case <-done:
				return
			}
		}
	})
	c := *env
	io := *env.IO
	io.raw = env.IO
	io.Out = &breakWriter{w: env.IO.Out, broke: s.outputBroken}
	io.ErrOut = &breakWriter{w: env.IO.ErrOut, broke: s.outputBroken}
	c.IO = &io
	stop := func() {
		signal.Stop(sigs)
		close(done)
		wg.Wait()
		cancel()
	}
	return ctx, s, &c, stop
}

func (s *stopper) outputBroken() { s.once.Do(func() { close(s.broken) }) }

// signal is the stop signal received, if any.
func (s *stopper) signal() (syscall.Signal, bool) {
	v, ok := s.sig.Load().(syscall.Signal)
	return v, ok
}

// exitCode is the shell's convention for a stop by signal: 128+N.
func (s *stopper) exitCode() int {
	sig, _ := s.signal()
	return 128 + int(sig)
}

// killWait is the channel a second stop signal closes; proc.Stop kills at
// once when it is closed.
func (s *stopper) killWait() <-chan struct{} { return s.killNow }

// breakWriter reports the first failed write: stdout or stderr gone means
// nobody reads the verdict, so the startup is stopped as for SIGPIPE.
type breakWriter struct {
	w     io.Writer
	broke func()
}

func (b *breakWriter) Write(p []byte) (int, error) {
	n, err := b.w.Write(p)
	if err != nil {
		b.broke()
	}
	return n, err
}

// outputGone reports whether vigil's stdout or stderr is a pipe or socket
// whose reader went away.
func outputGone() bool {
	fds := []unix.PollFd{{Fd: 1, Events: unix.POLLOUT}, {Fd: 2, Events: unix.POLLOUT}}
	if _, err := unix.Poll(fds, 0); err != nil {
		return false
	}
	for _, f := range fds {
		if f.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}
