// Package cli is vigil's command line: one file per command, a shared
// environment of injected streams, and one place that maps errors to exit
// statuses.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"vigil/internal/buildinfo"
	"vigil/internal/verdict"
)

// IOStreams are the standard streams a command writes to, with whether each
// is a terminal. Commands never touch os.Stdout directly.
type IOStreams struct {
	In          io.Reader
	Out         io.Writer
	ErrOut      io.Writer
	IsStdoutTTY bool
	IsStderrTTY bool
	// raw is the streams these wrap (see Env.secured, watchStops);
	// redacted says they mask secrets.
	raw      *IOStreams
	redacted bool
}

// Env is what every command gets: streams, the environment and the path of
// the running vigil binary (used to re-execute itself, e.g. for the demo).
type Env struct {
	IO      *IOStreams
	Getenv  func(string) string
	SelfExe string
	// SmallHeap, when set, is called by a command that will hold little
	// memory and end soon (explain of small files). The real process turns
	// the garbage collector off under a soft memory limit: in a run of
	// 30 ms a collection costs more CPU than the judging, and the limit
	// brings it back should the heap grow after all.
	SmallHeap func()
}

// UsageError is vigil being used wrongly: exit 2 with one line on stderr.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef builds a UsageError.
func Usagef(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// ExitError carries an exit status decided by a command (a verdict's status,
// a benchmark below its baseline). Its message, if any, is already printed.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// NewRootCmd builds the vigil command tree.
func NewRootCmd(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "vigil",
		Short: "Watch LLM inference servers start up and judge the startup",
		Long: `vigil launches an LLM inference server (SGLang, vLLM, TensorRT-LLM,
llama.cpp, TGI) or attaches to one, follows its startup phase by phase, and
ends with a verdict: ready, failed (with a cause, evidence and a hint),
stalled or timeout.

Exit status: 0 ready, 1 failed, 2 usage error, 3 stalled, 124 timeout.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Read().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(env.IO.Out)
	root.SetErr(env.IO.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &UsageError{Err: err}
	})
	root.AddCommand(
		newRunCmd(env),
		newWatchCmd(env),
		newDemoCmd(env),
		newPlayCmd(env),
		newSmokeCmd(env),
		newBenchCmd(env),
		newHistoryCmd(env),
		newDiffCmd(env),
		newExplainCmd(env),
		newVersionCmd(env),
		newReportCmd(env),
		newProbeCmd(env),
		newSuperviseCmd(env),
	)
	addSSHFlag(root)
	addHostsFlag(root)
	addCompletions(root, env)
	return root
}

// Main runs vigil with args and returns the process exit status.
func Main(ctx context.Context, args []string, env *Env) int {
	// --hosts spreads the start over several hosts, one member vigil
	// each, which parse and validate the rest of the arguments.
	if hosts, rest, ok, err := splitHosts(args); err != nil || ok {
		if err == nil {
			err = runHosts(ctx, env, hosts, rest)
		}
		return exitCode(err, env.IO.ErrOut)
	}
	// --ssh runs the command on another host: the remote vigil parses
	// and validates the rest of the arguments itself.
	if target, rest, ok, err := splitSSH(args); err != nil || ok {
		if err == nil {
			err = runRemote(ctx, env, target, rest)
		}
		return exitCode(err, env.IO.ErrOut)
	}
	root := NewRootCmd(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return exitCode(err, env.IO.ErrOut)
}

// exitCode is the one place where errors become exit statuses.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		return exit.Code
	}
	fmt.Fprintln(stderr, "vigil: "+oneLine(withSuggestions(err.Error())))
	var coded *codedError
	if errors.As(err, &coded) {
		return coded.code
	}
	var usage *UsageError
	if errors.As(err, &usage) || isCobraUsage(err) {
		return verdict.ExitUsage
	}
	return 1
}

// isCobraUsage reports errors cobra raises for bad arguments or commands.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// withSuggestions folds cobra's "Did you mean this?" list into the first
// line ("unknown command "wacth" for "vigil"; did you mean watch?"), so a
// usage error stays one line and keeps its suggestion.
func withSuggestions(msg string) string {
	first, rest, ok := strings.Cut(msg, "\n")
	if !ok {
		return msg
	}
	_, list, ok := strings.Cut(rest, "Did you mean this?")
	if !ok {
		return msg
	}
	names := strings.Fields(list)
	if len(names) == 0 {
		return msg
	}
	return first + "; did you mean " + strings.Join(names, " or ") + "?"
}

func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// DefaultEnv is the environment of the real process.
func DefaultEnv(io *IOStreams) *Env {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return &Env{IO: io, Getenv: os.Getenv, SelfExe: exe, SmallHeap: collectLate}
}

// smallHeapLimit is the soft memory limit under which a short command runs
// without the collector's pace; the heap of explain on a small log is a
// few megabytes of tables.
const smallHeapLimit = 64 << 20

// collectLate stops the collector's pace for a short, small run, unless
// GOGC or GOMEMLIMIT says how the user wants it.
func collectLate() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(smallHeapLimit)
}
