package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestWithSuggestions(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one suggestion", "unknown command \"wacth\" for \"vigil\"\n\nDid you mean this?\n\twatch\n", `unknown command "wacth" for "vigil"; did you mean watch?`},
		{"two", "unknown command \"histor\" for \"vigil\"\n\nDid you mean this?\n\thistory\n\thistoryx\n", `unknown command "histor" for "vigil"; did you mean history or historyx?`},
		{"none", "unknown command \"zzz\" for \"vigil\"", `unknown command "zzz" for "vigil"`},
		{"other multi-line", "first\nsecond", "first\nsecond"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withSuggestions(tt.in); got != tt.want {
				t.Errorf("withSuggestions = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCompletions(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"run --server", []string{"__complete", "run", "--server", ""}, []string{"sglang", "vllm", "trtllm", "llamacpp", "tgi", "auto"}},
		{"watch --server", []string{"__complete", "watch", "--server", ""}, []string{"vllm", "auto"}},
		{"run --preflight", []string{"__complete", "run", "--preflight", ""}, []string{"warn", "strict", "off"}},
		{"bench --endpoint", []string{"__complete", "bench", "--endpoint", ""}, []string{"completions", "chat", "generate"}},
		{"demo --scenario", []string{"__complete", "demo", "--scenario", ""}, []string{"sglang-ready"}},
		{"run --timeout", []string{"__complete", "run", "--timeout", ""}, []string{"auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			env := &Env{IO: &IOStreams{Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }}
			Main(context.Background(), tt.args, env)
			got := strings.Fields(out.String())
			for _, w := range tt.want {
				found := false
				for _, g := range got {
					found = found || g == w
				}
				if !found {
					t.Errorf("completions %q lack %q", got, w)
				}
			}
		})
	}
}

// A word that is no command keeps cobra's suggestion on its one line.
func TestUnknownCommandSuggests(t *testing.T) {
	var out, errOut bytes.Buffer
	env := &Env{IO: &IOStreams{Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }}
	if code := Main(context.Background(), []string{"wacth"}, env); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if got := errOut.String(); got != "vigil: unknown command \"wacth\" for \"vigil\"; did you mean watch?\n" {
		t.Errorf("stderr %q", got)
	}
}
