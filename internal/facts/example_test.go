package facts_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"vigil/internal/facts"
	"vigil/internal/launch"
	"vigil/internal/notify"
	"vigil/internal/probe"
	"vigil/internal/reaper"
	"vigil/internal/verdict"
)

// How a supervisor wires the pieces: the server is launched through the
// reaper (which, as PID 1, reaps everything else), signals are relayed to
// its group, and the notifier and the probe endpoints read one board that
// the monitor's events write.
func Example_supervise() {
	dir, _ := os.MkdirTemp("", "vigil-example")
	defer os.RemoveAll(dir)
	log, _ := os.Create(filepath.Join(dir, "server.log"))
	defer log.Close()

	var rp *reaper.Reaper // reaper.New() when reaper.IsInit()
	var proc *launch.Process
	err := rp.Start(func() (int, <-chan struct{}, error) {
		var err error
		proc, err = launch.Start(launch.Spec{
			Argv: []string{"sh", "-c", "trap 'exit 0' TERM; while :; do sleep 0.05; done"},
			Env:  notify.ScrubEnv(os.Environ()),
			Log:  log,
		})
		if err != nil {
			return 0, nil, err
		}
		return proc.Pid, proc.Done(), nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	board := facts.NewBoard(time.Now())
	fwd := reaper.NewForwarder(proc)
	fwd.OnSignal = func(sig syscall.Signal) {
		if sig == syscall.SIGTERM || sig == syscall.SIGINT || sig == syscall.SIGQUIT {
			board.StopRequested(int(sig))
		}
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")

	ctx, cancel := context.WithCancel(context.Background())
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return rp.Run(gctx) })
	g.Go(func() error { return fwd.Run(gctx) })
	g.Go(func() error {
		return notify.New(notify.Config{ExtendGrace: notify.GraceFor(5*time.Minute, 10*time.Second)}, notify.Systemd).Run(gctx, board)
	})
	g.Go(func() error { return probe.Serve(gctx, probe.Handler(board, time.Now), l) })

	// The monitor's events, as they would come.
	board.SetServer("sglang")
	board.Phase(verdict.Weights, time.Now())
	ok, _, _ := probe.Ask(ctx, probe.Target{Addr: l.Addr().String()}, "startup")
	fmt.Println("started:", ok)
	board.Health("ok", true, time.Now())
	board.Ready(time.Now())
	ok, _, _ = probe.Ask(ctx, probe.Target{Addr: l.Addr().String()}, "ready")
	fmt.Println("ready:", ok)

	// A SIGTERM reaches vigil; it is relayed to the server's group.
	_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	<-proc.Done()
	e := proc.Exit()
	board.Exited(facts.Exit{Code: e.Code, Signal: signalNumber(e.Signal)})
	cancel()
	if err := g.Wait(); err != nil {
		fmt.Println(err)
	}
	fmt.Println("exit status:", board.Snapshot().ExitStatus())
	// Output:
	// started: false
	// ready: true
	// exit status: 0
}

func signalNumber(name string) int {
	if name == "SIGTERM" {
		return int(syscall.SIGTERM)
	}
	return 0
}
