// Command vigil watches LLM inference servers start up and judges the
// startup: ready, failed (with cause, evidence and a hint), stalled or
// timeout. See internal/cli for the commands.
package main

import (
	"context"
	"os"

	"golang.org/x/term"

	"vigil/internal/cli"
)

func main() {
	streams := &cli.IOStreams{
		In:          os.Stdin,
		Out:         os.Stdout,
		ErrOut:      os.Stderr,
		IsStdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		IsStderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.DefaultEnv(streams)))
}
