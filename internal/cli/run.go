package cli

import "github.com/spf13/cobra"

func newRunCmd(env *Env) *cobra.Command {
	return &cobra.Command{Use: "run", RunE: func(*cobra.Command, []string) error { return Usagef("run: not built yet") }}
}
