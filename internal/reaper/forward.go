//go:build unix

package reaper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Signaler is what signals reach: the server's process group
// (launch.Process satisfies it).
type Signaler interface {
	Signal(sig syscall.Signal) error
}

// Forwarded are the signals a supervisor relays to the server's group.
var Forwarded = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP,
	syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

// Forwarder relays the signals vigil receives to a process group. It starts
// catching them when made, so none is lost between then and Run, and none
// of them kills vigil while it is in place.
type Forwarder struct {
	to Signaler
	ch chan os.Signal
	// OnSignal, if set, is told of every signal after it was relayed (the
	// supervisor learns that a stop was asked for).
	OnSignal func(sig syscall.Signal)
}

// NewForwarder catches sigs ([Forwarded] if none) for to.
func NewForwarder(to Signaler, sigs ...os.Signal) *Forwarder {
	if len(sigs) == 0 {
		sigs = Forwarded
	}
	f := &Forwarder{to: to, ch: make(chan os.Signal, 8)}
	signal.Notify(f.ch, sigs...)
	return f
}

// Run relays until ctx ends, then stops catching. It returns the first
// error relaying (a group that is gone is no error).
func (f *Forwarder) Run(ctx context.Context) error {
	defer signal.Stop(f.ch)
	var first error
	for {
		select {
		case <-ctx.Done():
			return first
		case s := <-f.ch:
			sig, ok := s.(syscall.Signal)
			if !ok {
				continue
			}
			if err := f.to.Signal(sig); err != nil && !errors.Is(err, syscall.ESRCH) && first == nil {
				first = fmt.Errorf("relay %v: %w", sig, err)
			}
			if f.OnSignal != nil {
				f.OnSignal(sig)
			}
		}
	}
}
