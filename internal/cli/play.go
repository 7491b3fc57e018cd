package cli

import "github.com/spf13/cobra"

// newPlayCmd is a placeholder until the command is built.
func newPlayCmd(env *Env) *cobra.Command {
	return &cobra.Command{Use: "play", Hidden: true, RunE: func(*cobra.Command, []string) error { return Usagef("play: not built yet") }}
}
