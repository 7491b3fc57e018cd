package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/history"
	"vigil/internal/report"
)

func newReportCmd(env *Env) *cobra.Command {
	var (
		out, model, dbPath string
		limit              int
	)
	cmd := &cobra.Command{
		Use:   "report [ID...] [-o FILE]",
		Short: "Write past startups as one self-contained HTML page",
		Long: `vigil report writes startups from 'vigil history' as one HTML file that
opens in any browser without a network: a timeline per startup (phases as
bars, the phase a startup failed in marked with its cause), all of them on
one time axis, benchmark figures against their baselines, the configuration
keys that changed since the startup before it of the same model on the same
host, and the notable warnings recorded with it.

With IDs it shows those startups, in that order; without, the newest
--limit startups (of a model matching --model), newest first.

-o - writes the page to stdout. The file is replaced only once the whole
page is written.

Exit status: 0 written, 1 the history could not be read or the file not
written, 2 usage error, no such startup or no startups at all.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			ids := make([]int64, 0, len(args))
			for _, a := range args {
				id, err := strconv.ParseInt(strings.TrimPrefix(a, "#"), 10, 64)
				if err != nil || id <= 0 {
					return Usagef("report: %q is not a startup ID (see 'vigil history')", a)
				}
				ids = append(ids, id)
			}
			switch {
			case out == "":
				return Usagef("report: -o needs a file name (or - for stdout)")
			case limit < 0:
				return Usagef("report: --limit must be 0 (no limit) or more")
			case len(ids) > 0 && (model != "" || cmd.Flags().Changed("limit")):
				return Usagef("report: give startup IDs or --model/--limit, not both")
			}
			path := dbPath
			if path == "" {
				path = history.DefaultPath(env.Getenv)
			}
			if path == "" {
				return Usagef("report: no history database: set HOME or XDG_STATE_HOME, or give --db")
			}
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				return Usagef("report: no startups recorded yet (%s); 'vigil run' and 'vigil watch' add one per startup", path)
			}
			store, err := history.Open(path)
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			defer store.Close()
			for _, w := range store.Warnings() {
				fmt.Fprintln(env.IO.ErrOut, "vigil: warning: "+w)
			}
			in, err := report.Load(cmd.Context(), store, ids, history.Filter{Model: model, Limit: limit})
			if errors.Is(err, history.ErrNotFound) {
				return Usagef("report: %v in %s (see 'vigil history')", err, path)
			}
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			if len(in.Startups) == 0 {
				if model != "" {
					return Usagef("report: no startups of a model matching %q in %s", model, path)
				}
				return Usagef("report: no startups recorded yet (%s)", path)
			}
			opts := report.Options{Now: time.Now(), Location: time.Local}
			if out == "-" {
				return report.Write(env.IO.Out, in, opts)
			}
			if err := report.WriteFile(out, in, opts); err != nil {
				return err
			}
			if env.IO.IsStderrTTY {
				fmt.Fprintf(env.IO.ErrOut, "vigil: wrote %s (%d startups)\n", out, len(in.Startups))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "report.html", "write the page to `FILE` (- for stdout)")
	cmd.Flags().StringVar(&model, "model", "", "without IDs: only startups whose model contains `M` (any case)")
	cmd.Flags().IntVar(&limit, "limit", 20, "without IDs: at most `N` startups (0: all)")
	cmd.Flags().StringVar(&dbPath, "db", "", "history database `PATH` (default $XDG_STATE_HOME/vigil/history.db)")
	return cmd
}
