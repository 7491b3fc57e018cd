package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	env, _, errOut, path := testEnv(t)
	seed(t, path)
	out := filepath.Join(t.TempDir(), "r.html")
	if code := run(t, newReportCmd(env), errOut, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ids := regexp.MustCompile(`<article class="startup [^"]*" id="startup-(\d+)"`).FindAllStringSubmatch(string(page), -1)
	if len(ids) != 3 || ids[0][1] != "3" || ids[2][1] != "1" {
		t.Errorf("articles %v, want startups 3, 2, 1", ids)
	}
	// Startup 2 is compared with startup 1, the one before it of the same
	// model on the same host.
	for _, want := range []string{"failed (gpu_oom) in kv_cache", "mem_fraction_static", "0.874", "enable_torch_compile"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr %q; want nothing when it is no terminal", errOut)
	}
}

func TestReportIDsToStdout(t *testing.T) {
	env, stdout, errOut, path := testEnv(t)
	seed(t, path)
	if code := run(t, newReportCmd(env), errOut, "#2", "1", "-o", "-"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ids := regexp.MustCompile(`id="startup-(\d+)" data-id`).FindAllStringSubmatch(stdout.String(), -1)
	if len(ids) != 2 || ids[0][1] != "2" || ids[1][1] != "1" {
		t.Errorf("articles %v, want startups 2 then 1", ids)
	}
}

func TestReportUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		seed bool
		want string
	}{
		{"bad ID", []string{"x1"}, true, `"x1" is not a startup ID`},
		{"unknown ID", []string{"42"}, true, "startup 42"},
		{"IDs and --model", []string{"1", "--model", "qwen"}, true, "not both"},
		{"negative limit", []string{"--limit", "-1"}, true, "--limit"},
		{"empty -o", []string{"-o", ""}, true, "-o needs"},
		{"no history", nil, false, "no startups recorded yet"},
		{"no matching model", []string{"--model", "mistral"}, true, `matching "mistral"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut, path := testEnv(t)
			if tc.seed {
				seed(t, path)
			}
			dir := t.TempDir()
			t.Chdir(dir) // the default -o lands here, not in the package
			if code := run(t, newReportCmd(env), errOut, tc.args...); code != 2 {
				t.Errorf("exit %d, want 2 (usage); stderr %q", code, errOut)
			}
			if !strings.Contains(errOut.String(), tc.want) || strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("stderr %q, want one line with %q", errOut, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a refused report left %d files", len(entries))
			}
		})
	}
}
