package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"vigil/internal/scenario"
)

// newPlayCmd is the scenario player: it acts out a startup scenario as a
// real process (what it prints, how its port answers, how it dies), the Go
// twin of shared/tools/player.py. Hidden: it is a test and demo tool.
func newPlayCmd(env *Env) *cobra.Command {
	var (
		port    int
		logPath string
		pidfile string
		check   bool
	)
	cmd := &cobra.Command{
		Use:   "play SCENARIO --port P [--log FILE] [--pidfile F] [-- ARGV...]\n  vigil play --check FILE...",
		Short: "Act out a startup scenario as a fake inference server",
		Long: `play acts out a startup scenario (shared/spec/scenario-format.md) as a real
process: it prints the scripted lines on stdout/stderr at their times, serves
the health and generation endpoints on 127.0.0.1:PORT as scripted, and exits
or dies by a signal as scripted. SCENARIO is a file or builtin:NAME. The words
after -- are ignored; they only show in the process's command line, where a
watchdog looks for the server's kind and flags.

--check validates scenario files and prints "N ok, M with problems".`,
		Hidden: true,
		Args:   cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if check {
				return runPlayCheck(env, args)
			}
			if pidfile != "" {
				if err := os.WriteFile(pidfile, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
					return Usagef("play: cannot write the pid file: %v", err)
				}
			}
			refs := args
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				refs = args[:dash]
			}
			if len(refs) != 1 {
				return Usagef("play: want one SCENARIO (a file or builtin:NAME) before --, got %d", len(refs))
			}
			if port < 0 || port > 65535 {
				return Usagef("play: --port %d is not a port", port)
			}
			sc, err := scenario.Open(refs[0])
			if err != nil {
				return &UsageError{Err: err}
			}
			stdout, stderr := env.IO.Out, env.IO.ErrOut
			if logPath != "" {
				f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
				if err != nil {
					return Usagef("play: cannot open the log: %v", err)
				}
				defer f.Close()
				stdout, stderr = f, f
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			err = scenario.Play(ctx, sc, scenario.PlayOptions{
				Port:   port,
				Stdout: stdout,
				Stderr: stderr,
				HFHome: scenario.DefaultHFHome(env.Getenv),
				Exit:   func(code int) { os.Exit(code) },
				Signal: scenario.DieBySignal,
			})
			var exit *scenario.ExitError
			switch {
			case err == nil:
				return nil
			case errors.As(err, &exit):
				return &ExitError{Code: exit.Code}
			case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
				return &ExitError{Code: 128 + int(syscall.SIGINT)} // as player.py on Ctrl-C
			}
			return fmt.Errorf("play: %w", err)
		},
	}
	f := cmd.Flags()
	f.IntVar(&port, "port", 30000, "port of the endpoints, on 127.0.0.1")
	f.StringVar(&logPath, "log", "", "append stdout and stderr to this file")
	f.StringVar(&pidfile, "pidfile", "", "write the process id to this file first")
	f.BoolVar(&check, "check", false, "validate the scenario files given and report problems")
	return cmd
}

// runPlayCheck validates scenario files like player.py --check: each
// problem as "FILE: problem", then "N ok, M with problems"; exit 1 when
// any file has a problem.
func runPlayCheck(env *Env, refs []string) error {
	if len(refs) == 0 {
		return Usagef("play --check: give the scenario files to check")
	}
	bad := 0
	for _, ref := range refs {
		var problems []string
		var serr *scenario.Error
		if data, err := scenario.ReadRef(ref); errors.As(err, &serr) {
			problems = serr.Problems
		} else if err != nil {
			problems = []string{err.Error()}
		} else {
			problems = scenario.Check(data)
		}
		for _, p := range problems {
			fmt.Fprintf(env.IO.Out, "%s: %s\n", ref, p)
		}
		if len(problems) > 0 {
			bad++
		}
	}
	fmt.Fprintf(env.IO.Out, "%d ok, %d with problems\n", len(refs)-bad, bad)
	if bad > 0 {
		return &ExitError{Code: 1}
	}
	return nil
}
