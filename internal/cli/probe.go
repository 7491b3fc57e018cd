package cli

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/probe"
)

func newProbeCmd(env *Env) *cobra.Command {
	var (
		listen, socket string
		timeout        time.Duration
	)
	cmd := &cobra.Command{
		Use:   "probe startup|ready|live [--listen ADDR | --socket PATH]",
		Short: "Ask a running `vigil supervise` one probe (Kubernetes exec probes)",
		Long: `vigil probe asks the vigil supervise of this container or host one question
and exits 0 when the answer is yes: startup (the server is ready), ready (ready
and healthy now) or live (not hung, not dead). It prints the supervisor's JSON
answer on stdout.

It asks over the supervisor's unix socket in the state directory
($XDG_STATE_HOME/vigil/supervise.sock, else ~/.local/state/vigil/supervise.sock)
unless --socket or --listen (the supervisor's HTTP address) says otherwise.

Exit status: 0 yes, 1 no (or no supervisor answered within --timeout), 2 usage error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind := args[0]
			if _, ok := probe.Kinds[kind]; !ok {
				return Usagef("probe: %q: want startup, ready or live", kind)
			}
			if listen != "" && socket != "" {
				return Usagef("probe: give --listen or --socket, not both")
			}
			if timeout <= 0 {
				return Usagef("probe: --timeout must be positive")
			}
			target := probe.Target{Addr: listen, Socket: socket}
			if listen != "" {
				if _, _, err := net.SplitHostPort(listen); err != nil {
					return Usagef("probe: --listen %q: want HOST:PORT", listen)
				}
			} else if socket == "" {
				target.Socket = probe.DefaultSocket(env.Getenv)
				if target.Socket == "" {
					return Usagef("probe: no state directory: set HOME or XDG_STATE_HOME, or give --socket or --listen")
				}
			}
			return runProbe(cmd.Context(), env, target, kind, timeout)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "the supervisor's HTTP `ADDR` (host:port), instead of its socket")
	cmd.Flags().StringVar(&socket, "socket", "", "the supervisor's unix socket `PATH`")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Second, "how long to wait for the answer")
	return cmd
}

func runProbe(ctx context.Context, env *Env, target probe.Target, kind string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, body, err := probe.Ask(ctx, target, kind)
	if err != nil {
		fmt.Fprintln(env.IO.ErrOut, "vigil: "+oneLine(err.Error()))
		return &ExitError{Code: 1}
	}
	fmt.Fprintln(env.IO.Out, body)
	if !ok {
		return &ExitError{Code: 1}
	}
	return nil
}
