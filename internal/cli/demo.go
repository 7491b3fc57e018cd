package cli

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vigil/internal/scenario"
)

func newDemoCmd(env *Env) *cobra.Command {
	var name string
	var asJSON, smoke, noHistory bool
	timeout, stallAfter := window{auto: true}, window{auto: true}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run and judge a built-in emulated server startup (no GPU needed)",
		Long: `Run and judge a built-in emulated server startup: vigil starts a fake
SGLang server that prints a real startup log (weights, KV cache, CUDA
graphs, warmup) and serves /health, then judges it exactly as "vigil run"
judges a real one. Unlike a real server, the emulated one is stopped once
it has been judged. A demo is never recorded in the startup history, nor
does it read it: an emulated start says nothing about real ones.

Built-in scenarios: ` + strings.Join(scenario.BuiltinNames(), ", ") + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, _, err := scenario.Builtin(name)
			if err != nil {
				return Usagef("--scenario %q: want one of %s", name, strings.Join(scenario.BuiltinNames(), ", "))
			}
			port, err := freePort()
			if err != nil {
				return fmt.Errorf("demo: no free port: %w", err)
			}
			argv := withPort(sc.Argv, port)
			opts := &runOptions{}
			fs := pflag.NewFlagSet("demo", pflag.ContinueOnError)
			opts.registerRun(fs)
			if err := fs.Parse(sc.VigilArgs); err != nil {
				return fmt.Errorf("demo: scenario %s: %w", name, err)
			}
			opts.json = asJSON
			opts.smoke = opts.smoke || smoke
			opts.noHistory = true
			if f := cmd.Flags(); f.Changed("timeout") {
				opts.timeout = timeout
			}
			if f := cmd.Flags(); f.Changed("stall-after") {
				opts.stallAfter = stallAfter
			}
			opts.url = fmt.Sprintf("http://127.0.0.1:%d", port)
			opts.stopWhenDone = true
			player := append([]string{env.SelfExe, "play", scenario.BuiltinPrefix + name, "--port", strconv.Itoa(port), "--"}, argv...)
			return runRun(cmd.Context(), env, opts, player)
		},
	}
	cmd.Flags().StringVar(&name, "scenario", "sglang-ready", "which built-in startup to act out")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print NDJSON events on stdout")
	cmd.Flags().BoolVar(&smoke, "smoke", false, "send a generation request once ready")
	cmd.Flags().Var(&timeout, "timeout", "the whole startup's budget (default: the scenario's, else 60m)")
	cmd.Flags().Var(&stallAfter, "stall-after", "how long without any sign of progress counts as stalled (default: the scenario's, else 5m)")
	cmd.Flags().BoolVar(&noHistory, "no-history", true, "neither read nor record the startup history (always so for the demo)")
	return cmd
}

// withPort replaces the value of --port in argv, so the emulated command
// line shows the port the demo really uses.
func withPort(argv []string, port int) []string {
	out := append([]string(nil), argv...)
	for i := range out {
		if out[i] == "--port" && i+1 < len(out) {
			out[i+1] = strconv.Itoa(port)
		}
	}
	return out
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
