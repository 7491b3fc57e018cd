//go:build !linux

package reaper

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// DefaultLinger is unused where vigil cannot reap.
const DefaultLinger = 2 * time.Second

// IsInit reports whether vigil is PID 1.
func IsInit() bool { return os.Getpid() == 1 }

// BecomeSubreaper is Linux only.
func BecomeSubreaper() error { return errors.New("become child subreaper: Linux only") }

// Reaper reaps nothing off Linux; Start just starts.
type Reaper struct {
	Linger time.Duration
	OnReap func(pid int, status syscall.WaitStatus)
	Proc   string
}

// New returns a reaper.
func New() *Reaper { return &Reaper{} }

// Start runs start.
func (r *Reaper) Start(start func() (pid int, waited <-chan struct{}, err error)) error {
	_, _, err := start()
	return err
}

// Run waits for ctx.
func (r *Reaper) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// Sweep does nothing.
func (r *Reaper) Sweep() (time.Time, error) { return time.Time{}, nil }
