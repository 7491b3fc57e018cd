package cli

import "github.com/spf13/cobra"

func newDemoCmd(env *Env) *cobra.Command {
	return &cobra.Command{Use: "demo", RunE: func(*cobra.Command, []string) error { return Usagef("demo: not built yet") }}
}
