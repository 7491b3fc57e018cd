package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/history"
	"vigil/internal/learn"
	"vigil/internal/srvconfig"
)

// testEnv is an Env with buffers for streams and XDG_STATE_HOME in a
// temporary directory.
func testEnv(t *testing.T) (*Env, *bytes.Buffer, *bytes.Buffer, string) {
	t.Helper()
	state := t.TempDir()
	var out, errOut bytes.Buffer
	env := &Env{
		IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return state
			}
			return ""
		},
	}
	return env, &out, &errOut, filepath.Join(state, "vigil", "history.db")
}

// run executes a command built directly (root.go registers it later) and
// returns the exit status vigil would give.
func run(t *testing.T, cmd *cobra.Command, errOut *bytes.Buffer, args ...string) int {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(errOut)
	cmd.SetErr(errOut)
	return exitCode(cmd.ExecuteContext(context.Background()), errOut)
}

var t0 = time.Date(2026, 7, 20, 10, 11, 12, 0, time.UTC)

func seed(t *testing.T, path string) {
	t.Helper()
	s, err := history.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg := srvconfig.Config{{Key: "model_path", Value: "Qwen/Qwen3-8B"}, {Key: "tp_size", Value: "1"},
		{Key: "mem_fraction_static", Value: "0.874"}, {Key: "cuda_graph_max_bs", Value: "8"}, {Key: "port", Value: "30000"}}
	startups := []history.Startup{
		{StartedAt: t0, Server: "sglang", Version: "0.5.6", Model: "Qwen/Qwen3-8B", Host: "gpu-01", GPUs: "1x H100",
			Config: cfg, Fingerprint: "aaaa", TotalSeconds: 41.7, Verdict: "ready", Phase: "ready",
			Summary: "ready in 41.7s", LogPath: "/logs/1.log",
			Phases: []learn.Phase{{Name: "launch", Seconds: 1.2}, {Name: "init", Seconds: 2}, {Name: "weights", Seconds: 20.1}, {Name: "kv_cache", Seconds: 3}, {Name: "cuda_graph", Seconds: 12.4}, {Name: "serving", Seconds: 3}}},
		{StartedAt: t0.Add(time.Hour), Server: "sglang", Version: "0.5.6", Model: "Qwen/Qwen3-8B", Host: "gpu-01",
			Config: srvconfig.Config{{Key: "model_path", Value: "Qwen/Qwen3-8B"}, {Key: "tp_size", Value: "1"},
				{Key: "mem_fraction_static", Value: "0.95"}, {Key: "port", Value: "30000"}, {Key: "enable_torch_compile", Value: "True"}},
			Fingerprint: "bbbb", TotalSeconds: 31, Verdict: "failed", Cause: "gpu_oom", Phase: "kv_cache",
			Summary: "rank 0 could not allocate the KV cache", LogPath: "/logs/2.log",
			Phases: []learn.Phase{{Name: "launch", Seconds: 1.2}, {Name: "init", Seconds: 2}, {Name: "weights", Seconds: 26.8}, {Name: "kv_cache", Seconds: 1}}},
		{StartedAt: t0.Add(2 * time.Hour), Server: "vllm", Version: "0.11.0", Model: "meta-llama/Llama-3.1-8B", Host: "gpu-01",
			TotalSeconds: 95, Verdict: "ready", Phase: "ready",
			Phases: []learn.Phase{{Name: "launch", Seconds: 5}, {Name: "weights", Seconds: 30}, {Name: "compile", Seconds: 60}}},
	}
	for _, st := range startups {
		if _, err := s.Record(context.Background(), st); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AttachResults(context.Background(), 1, "smoke", map[string]any{"ok": true}); err != nil {
		t.Fatal(err)
	}
}

func TestHistoryList(t *testing.T) {
	env, out, errOut, path := testEnv(t)
	seed(t, path)
	if code := run(t, newHistoryCmd(env), errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID ") {
		t.Fatalf("want a header and 3 rows, got:\n%s", out)
	}
	for i, want := range []string{"3 ", "2 ", "1 "} {
		if !strings.HasPrefix(lines[i+1], want) {
			t.Errorf("row %d = %q, want it to start with id %q (newest first)", i+1, lines[i+1], want)
		}
	}
	for _, want := range []string{
		"failed (gpu_oom)", "sglang 0.5.6", "41.7s", "1m35s",
		"launch 1.2s, init 2.0s, weights 20.1s, kv_cache 3.0s, cuda_graph 12.4s, serving 3.0s",
		t0.Local().Format("2006-01-02 15:04"),
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out.Reset()
	run(t, newHistoryCmd(env), errOut, "--model", "qwen3", "--limit", "1")
	if got := strings.Count(out.String(), "\n"); got != 2 || !strings.Contains(out.String(), "failed (gpu_oom)") {
		t.Errorf("--model qwen3 --limit 1: want the newest Qwen3 startup only, got:\n%s", out)
	}
}

func TestHistoryJSON(t *testing.T) {
	env, out, errOut, path := testEnv(t)
	seed(t, path)
	if code := run(t, newHistoryCmd(env), errOut, "--json"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	if len(got) != 3 {
		t.Fatalf("%d objects, want 3", len(got))
	}
	for _, k := range []string{"id", "started_at", "server", "model", "verdict", "cause", "total_s", "phases", "config"} {
		if _, ok := got[0][k]; !ok {
			t.Errorf("object lacks %q", k)
		}
	}
	failed := got[1]
	if failed["id"] != 2.0 || failed["cause"] != "gpu_oom" || failed["verdict"] != "failed" || failed["total_s"] != 31.0 {
		t.Errorf("second object = %v", failed)
	}
	if got[2]["cause"] != nil {
		t.Errorf("a ready startup's cause = %v, want null", got[2]["cause"])
	}
	if got[2]["started_at"] != "2026-07-20T10:11:12Z" {
		t.Errorf("started_at = %v", got[2]["started_at"])
	}
	if ph, _ := got[1]["phases"].(map[string]any); ph["weights"] != 26.8 {
		t.Errorf("phases = %v", got[1]["phases"])
	}
	if cfg, _ := got[1]["config"].(map[string]any); cfg["mem_fraction_static"] != "0.95" {
		t.Errorf("config = %v", got[1]["config"])
	}
	// Phases and config keep their order in the text.
	if !strings.Contains(out.String(), `"launch": 1.2,`+"\n      "+`"init": 2,`) {
		t.Errorf("phases not in order:\n%s", out)
	}
	if res, _ := got[2]["results"].(map[string]any); res["smoke"] == nil {
		t.Errorf("results = %v, want the attached smoke result", got[2]["results"])
	}
}

func TestHistoryEmpty(t *testing.T) {
	tests := []struct {
		name, want string
		args       []string
	}{
		{"table", "No startups recorded yet", nil},
		{"json", "[]\n", []string{"--json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, out, errOut, path := testEnv(t)
			if code := run(t, newHistoryCmd(env), errOut, tt.args...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(out.String(), tt.want) || strings.Count(out.String(), "\n") != 1 {
				t.Errorf("output = %q, want one line with %q", out, tt.want)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("listing an empty history created %s", path)
			}
		})
	}
}

func TestHistoryCorruptDatabase(t *testing.T) {
	env, out, errOut, path := testEnv(t)
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte("garbage, not a database"), 0o600)
	if code := run(t, newHistoryCmd(env), errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "vigil: warning: history database") || !strings.Contains(out.String(), "No startups") {
		t.Errorf("stdout %q, stderr %q; want a warning and an empty history", out, errOut)
	}
}

func TestHistoryDatabaseIsADirectory(t *testing.T) {
	env, out, errOut, _ := testEnv(t)
	dir := t.TempDir()
	code := run(t, newHistoryCmd(env), errOut, "--db", dir)
	want := "vigil: history: " + dir + " is a directory, not a history database"
	if code != 2 || out.Len() != 0 || strings.TrimSpace(errOut.String()) != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errOut, want)
	}
}

func TestHistoryShow(t *testing.T) {
	env, out, errOut, path := testEnv(t)
	seed(t, path)
	if code := run(t, newHistoryCmd(env), errOut, "show", "2"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `Startup 2: sglang 0.5.6, Qwen/Qwen3-8B
Started  ` + t0.Add(time.Hour).Local().Format("2006-01-02 15:04:05") + ` on gpu-01
Verdict  failed (gpu_oom) in kv_cache after 31.0s
Summary  rank 0 could not allocate the KV cache
Log      /logs/2.log

  launch    ##                                           1.2s
  init        ##                                         2.0s
  weights       ###################################     26.8s
  kv_cache                                         #     1.0s
  total                                                 31.0s

Config
`
	got := out.String()
	// The Config block's exact rows depend on srvconfig; check its start.
	if !strings.HasPrefix(got, want[:strings.Index(want, "Config")]) {
		t.Errorf("show 2 =\n%s\nwant it to start with\n%s", got, want[:strings.Index(want, "Config")])
	}
	for _, w := range []string{"  model ", "Qwen/Qwen3-8B", "mem_fraction", "0.95", "fingerprint", "bbbb"} {
		if !strings.Contains(got, w) {
			t.Errorf("show 2 lacks %q:\n%s", w, got)
		}
	}

	out.Reset()
	env.IO.IsStdoutTTY = true
	run(t, newHistoryCmd(env), errOut, "show", "#1")
	for _, w := range []string{"█", "Results", `smoke  {"ok":true}`, "Verdict  ready after 41.7s"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("show 1 lacks %q:\n%s", w, out)
		}
	}
}

func TestHistoryUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		cmd  func(*Env) *cobra.Command
		args []string
		want string
	}{
		{"unknown ID", newHistoryCmd, []string{"show", "99"}, "vigil: history show: no startup 99 in "},
		{"not an ID", newHistoryCmd, []string{"show", "abc"}, `vigil: history show: "abc" is not a startup ID`},
		{"no ID", newHistoryCmd, []string{"show"}, "accepts 1 arg"},
		{"stray argument", newHistoryCmd, []string{"bogus"}, `unknown command "bogus"`},
		{"negative limit", newHistoryCmd, []string{"--limit", "-1"}, "--limit"},
		{"diff unknown ID", newDiffCmd, []string{"1", "99"}, "vigil: diff: no startup 99 in "},
		{"diff one ID", newDiffCmd, []string{"1"}, "accepts 2 arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, out, errOut, path := testEnv(t)
			seed(t, path)
			code := run(t, tt.cmd(env), errOut, tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(errOut.String(), tt.want) || strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("stderr = %q, want one line containing %q", errOut, tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", out)
			}
		})
	}
}

func TestHistoryShowWithoutHistory(t *testing.T) {
	env, _, errOut, _ := testEnv(t)
	if code := run(t, newHistoryCmd(env), errOut, "show", "1"); code != 2 || !strings.Contains(errOut.String(), "no history yet") {
		t.Errorf("exit %d, stderr %q; want 2 and 'no history yet'", code, errOut)
	}
}

func TestHistoryDBFlag(t *testing.T) {
	env, out, errOut, _ := testEnv(t)
	other := filepath.Join(t.TempDir(), "elsewhere.db")
	seed(t, other)
	if code := run(t, newHistoryCmd(env), errOut, "show", "3", "--db", other); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "meta-llama/Llama-3.1-8B") {
		t.Errorf("--db not used:\n%s", out)
	}
}
