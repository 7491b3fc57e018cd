package cli

import "github.com/spf13/cobra"

// newSmokeCmd is a placeholder until the command is built.
func newSmokeCmd(env *Env) *cobra.Command {
	return &cobra.Command{Use: "smoke", Hidden: true, RunE: func(*cobra.Command, []string) error { return Usagef("smoke: not built yet") }}
}
