//go:build linux

package reaper

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vigil/internal/launch"
)

// waitFile waits (bounded) until the file at path holds every one of want.
func waitFile(t *testing.T, path string, want ...string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		all := true
		for _, w := range want {
			all = all && strings.Contains(string(b), w)
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %q, want all of %q", path, b, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestForwardsToTheServersGroup(t *testing.T) {
	// Under nohup this process starts with SIGHUP ignored, and a shell
	// started with a signal ignored cannot trap it. Caught here, it is at
	// its default in the server: exec resets caught signals, not ignored
	// ones.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	dir := t.TempDir()
	got := filepath.Join(dir, "got")
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	// A leader and a worker in its group, each saying which signals reach
	// it; TERM ends both.
	script := `
worker() { trap 'echo worker USR1 >> ` + got + `' USR1; trap 'echo worker HUP >> ` + got + `' HUP; trap 'exit 0' TERM; echo worker up >> ` + got + `; while :; do sleep 0.05; done; }
worker &
trap 'echo leader USR1 >> ` + got + `' USR1
trap 'echo leader HUP >> ` + got + `' HUP
trap 'echo leader TERM >> ` + got + `; wait; exit 0' TERM
echo leader up >> ` + got + `
while :; do sleep 0.05; done`
	p, err := launch.Start(launch.Spec{Argv: []string{"sh", "-c", script}, Env: os.Environ(), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second, nil)
	waitFile(t, got, "leader up", "worker up")

	var mu sync.Mutex
	var relayed []syscall.Signal
	f := NewForwarder(p, syscall.SIGUSR1, syscall.SIGHUP, syscall.SIGTERM)
	f.OnSignal = func(s syscall.Signal) {
		mu.Lock()
		relayed = append(relayed, s)
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	self := os.Getpid()
	if err := syscall.Kill(self, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	waitFile(t, got, "leader USR1", "worker USR1")
	if err := syscall.Kill(self, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFile(t, got, "leader HUP", "worker HUP")
	if err := syscall.Kill(self, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("SIGTERM did not reach the server")
	}
	if e := p.Exit(); e.Code != 0 || e.Signal != "" {
		t.Errorf("the server ended %v, want exit 0 from its TERM trap", e)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []syscall.Signal{syscall.SIGUSR1, syscall.SIGHUP, syscall.SIGTERM}
	if len(relayed) != len(want) {
		t.Fatalf("relayed %v, want %v", relayed, want)
	}
	for i := range want {
		if relayed[i] != want[i] {
			t.Errorf("relayed %v, want %v", relayed, want)
		}
	}
}

type fakeGroup struct{ err error }

func (g fakeGroup) Signal(syscall.Signal) error { return g.err }

func TestForwardErrors(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		wantErr bool
	}{
		{"a group that is gone is no error", syscall.ESRCH, false},
		{"a refusal is", syscall.EPERM, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewForwarder(fakeGroup{tt.err}, syscall.SIGUSR2)
			seen := make(chan struct{})
			f.OnSignal = func(syscall.Signal) { close(seen) }
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- f.Run(ctx) }()
			if err := syscall.Kill(os.Getpid(), syscall.SIGUSR2); err != nil {
				t.Fatal(err)
			}
			<-seen
			cancel()
			if err := <-done; (err != nil) != tt.wantErr {
				t.Errorf("Run: %v, want error %v", err, tt.wantErr)
			}
		})
	}
}
