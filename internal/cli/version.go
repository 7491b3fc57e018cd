package cli

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"vigil/internal/buildinfo"
)

func newVersionCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print which build of vigil this is (version, commit, build date, Go, platform)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := buildinfo.Read()
			if asJSON {
				enc := json.NewEncoder(env.IO.Out)
				return enc.Encode(info)
			}
			_, err := env.IO.Out.Write([]byte(info.String() + "\n"))
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the build information as one JSON object")
	return cmd
}
