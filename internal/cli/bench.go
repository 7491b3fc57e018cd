package cli

import "github.com/spf13/cobra"

// newBenchCmd is a placeholder until the command is built.
func newBenchCmd(env *Env) *cobra.Command {
	return &cobra.Command{Use: "bench", Hidden: true, RunE: func(*cobra.Command, []string) error { return Usagef("bench: not built yet") }}
}
