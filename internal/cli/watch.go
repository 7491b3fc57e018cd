package cli

import "github.com/spf13/cobra"

func newWatchCmd(env *Env) *cobra.Command {
	return &cobra.Command{Use: "watch", RunE: func(*cobra.Command, []string) error { return Usagef("watch: not built yet") }}
}
