package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/history"
	"vigil/internal/scenario"
)

// flagValues are the values of every enumerated flag, by flag name, for
// shell completion.
func flagValues() map[string][]string {
	return map[string][]string{
		"server":      {"auto", "sglang", "vllm", "trtllm", "llamacpp", "tgi"},
		"preflight":   {"warn", "strict", "off"},
		"endpoint":    {"completions", "chat", "generate"},
		"scenario":    scenario.BuiltinNames(),
		"timeout":     {"auto"},
		"stall-after": {"auto"},
	}
}

// addCompletions registers value completion for the enumerated flags of
// every command under root, and startup IDs for history show and diff.
func addCompletions(root *cobra.Command, env *Env) {
	values := flagValues()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, vals := range values {
			if c.LocalFlags().Lookup(name) == nil {
				continue
			}
			if name == "server" && c.Name() == "smoke" {
				vals = vals[1:] // smoke takes a kind, not auto
			}
			_ = c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
		}
		switch c.CommandPath() {
		case "vigil history show":
			c.ValidArgsFunction = historyIDs(env, 1)
		case "vigil diff":
			c.ValidArgsFunction = historyIDs(env, 2)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// historyIDs completes startup IDs from the default history, newest
// first, each described by its verdict, model and time.
func historyIDs(env *Env, n int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= n {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		db, _ := cmd.Flags().GetString("db")
		store, _, err := openHistory(env, db, cmd.Name())
		if err != nil || store == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer store.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		list, err := store.List(ctx, history.Filter{Limit: 50})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, st := range list {
			desc := strings.TrimSpace(fmt.Sprintf("%s %s %s", st.Verdict, st.Model, st.StartedAt.Local().Format("2006-01-02 15:04")))
			out = append(out, cobra.CompletionWithDesc(fmt.Sprint(st.ID), desc))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
