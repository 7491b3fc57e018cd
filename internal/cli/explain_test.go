package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"vigil/internal/explain/scenlog"
	"vigil/internal/scenario"
)

// explainLog renders scenarios into one log file, one run after another,
// and returns its path.
func explainLog(t *testing.T, scenarios ...string) string {
	t.Helper()
	var buf bytes.Buffer
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.Local)
	for _, name := range scenarios {
		sc, err := scenario.Load(filepath.Join("..", "..", "testdata", "scenarios", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		end, err := scenlog.Write(&buf, sc, at)
		if err != nil {
			t.Fatal(err)
		}
		at = end.Add(time.Minute).Truncate(time.Second)
	}
	path := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runExplain runs `vigil explain args...` with stdin and returns the exit
// status and both outputs.
func runExplain(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{IO: &IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }}
	cmd := newExplainCmd(env)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	code := exitCode(cmd.ExecuteContext(context.Background()), &errOut)
	return code, out.String(), errOut.String()
}

func TestExplainExitStatus(t *testing.T) {
	ready := explainLog(t, "vllm-gpu-oom-no-cache-blocks-32b", "vllm-ready-llama31-8b-v021")
	failed := explainLog(t, "sglang-gpu-oom-cuda-graph-capture-4090")
	stalled := explainLog(t, "sglang-stalled-cuda-graph-capture-tp2")
	tests := []struct {
		name  string
		args  []string
		code  int
		wants []string
	}{
		{"last run ready", []string{ready}, 0, []string{"run 1", "failed: gpu_oom in phase kv_cache", "run 2", "verdict   ready"}},
		{"failed", []string{failed}, 1, []string{"failed: gpu_oom in phase cuda_graph", "hint"}},
		{"no verdict", []string{stalled}, 3, []string{"none: ended in phase cuda_graph"}},
		{"failed beats no verdict", []string{stalled, failed, ready}, 1, []string{"== " + stalled, "== " + failed}},
		{"no verdict beats ready", []string{ready, stalled}, 3, nil},
		{"unreadable file", []string{ready, filepath.Join(t.TempDir(), "nope.log")}, 2, nil},
		{"a directory", []string{t.TempDir()}, 2, nil},
		{"bad server", []string{"--server", "nginx", ready}, 2, nil},
		{"bad flag", []string{"--nope", ready}, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runExplain(t, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, errOut)
			}
			for _, w := range tt.wants {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if code == 2 && strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("a usage error is one line, got:\n%s", errOut)
			}
		})
	}
}

func TestExplainStdin(t *testing.T) {
	log, err := os.ReadFile(explainLog(t, "tgi-ready-mistral-7b"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"-"}} {
		code, out, errOut := runExplain(t, string(log), args...)
		if code != 0 || !strings.Contains(out, "tgi") {
			t.Errorf("explain %v < log: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	code, out, _ := runExplain(t, "")
	if code != 3 || !strings.Contains(out, "no lines") {
		t.Errorf("empty stdin: exit %d, stdout %q; want 3 and a word", code, out)
	}
}

// TestExplainBinaryStream: a compressed stream (gzip piped in, a FIFO fed
// a rotated log) is judged decompressed; a binary stream is refused before
// any output, as a binary file is, instead of being judged as one garbled
// line.
func TestExplainBinaryStream(t *testing.T) {
	text, err := os.ReadFile(explainLog(t, "tgi-ready-mistral-7b"))
	if err != nil {
		t.Fatal(err)
	}
	gz := gzipped(t, text)
	_, plain, _ := runExplain(t, string(text), "-")

	for _, tt := range []struct {
		name, stdin, stderr string
	}{
		{"NULs on standard input", "\x00\x00\x01 not text", "vigil: explain: standard input is binary data, not a log"},
		{"gzip of binary data on standard input", string(gzipped(t, []byte("\x00\x01\x02"))), "vigil: explain: standard input (decompressed) is binary data, not a log"},
		{"gzip that is none", "\x1f\x8b not gzip at all", "vigil: explain: cannot read standard input: gzip: invalid header"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runExplain(t, tt.stdin, "-")
			if code != 2 || out != "" || strings.TrimSpace(errOut) != tt.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, errOut, tt.stderr)
			}
		})
	}
	t.Run("gzip on standard input", func(t *testing.T) {
		code, out, errOut := runExplain(t, string(gz), "-")
		if code != 0 || out != plain {
			t.Errorf("exit %d, stdout %q, stderr %q; want 0 and the plain log's %q", code, out, errOut, plain)
		}
	})
	for _, tt := range []struct {
		name string
		feed []byte
	}{
		{"a FIFO fed gzip", gz},
		{"a FIFO fed text", text},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "server.log")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			fed := make(chan error, 1)
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // waits for explain to open it
				if err == nil {
					_, err = f.Write(tt.feed)
					f.Close()
				}
				fed <- err
			}()
			code, out, errOut := runExplain(t, "", fifo)
			if code != 0 || !strings.Contains(out, "verdict   ready") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0 and ready", code, out, errOut)
			}
			if err := <-fed; err != nil && !errors.Is(err, syscall.EPIPE) {
				t.Error(err)
			}
		})
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return gz.Bytes()
}

// TestExplainGzipFile: a rotated, compressed log (logrotate's "compress")
// reads as the log itself, each compose service on its own too; one cut
// short is judged up to its cut, then the cut is an error.
func TestExplainGzipFile(t *testing.T) {
	logPath := explainLog(t, "vllm-gpu-oom-no-cache-blocks-32b", "vllm-ready-llama31-8b-v021")
	composePath, _ := composeLog(t, func(name string) string { return fmt.Sprintf("%-12s| ", name) },
		[][2]string{{"llama", "vllm-gpu-oom-no-cache-blocks-32b"}, {"mistral", "tgi-ready-mistral-7b"}})
	for _, path := range []string{logPath, composePath} {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		gzPath := path + ".1.gz"
		if err := os.WriteFile(gzPath, gzipped(t, text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{nil, {"--json"}} {
			code, out, errOut := runExplain(t, "", append(args, path)...)
			gzCode, gzOut, gzErr := runExplain(t, "", append(args, gzPath)...)
			out = strings.ReplaceAll(out, path, gzPath) // (--json names the file)
			if gzCode != code || gzOut != out || gzErr != errOut {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q; want the plain file's %d, %q, %q", filepath.Base(path), args, gzCode, gzOut, gzErr, code, out, errOut)
			}
		}
	}

	text, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzipped(t, text)
	cut := filepath.Join(t.TempDir(), "server.log.2.gz")
	if err := os.WriteFile(cut, gz[:len(gz)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runExplain(t, "", cut)
	if code != 2 || !strings.Contains(out, "verdict   failed: gpu_oom") || !strings.Contains(errOut, "the gzip stream ends early: the file is cut short") {
		t.Errorf("cut short: exit %d, stdout %q, stderr %q; want 2, the first run's failure, and the cut named", code, out, errOut)
	}
}

func TestExplainJSON(t *testing.T) {
	path := explainLog(t, "vllm-gpu-oom-no-cache-blocks-32b", "vllm-ready-llama31-8b-v021")
	code, out, errOut := runExplain(t, "", "--json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want one object per run:\n%s", len(lines), out)
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v", i+1, err)
		}
		for _, k := range []string{"run", "server", "start", "end", "lines", "verdict", "cause", "phase", "summary", "hint", "evidence", "phases"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %q: %s", i+1, k, l)
			}
		}
	}
	var first, second struct {
		Run     int                `json:"run"`
		Verdict string             `json:"verdict"`
		Cause   *string            `json:"cause"`
		Phases  map[string]float64 `json:"phases"`
	}
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first.Run != 1 || first.Verdict != "failed" || first.Cause == nil || *first.Cause != "gpu_oom" {
		t.Errorf("first run: %+v", first)
	}
	if second.Run != 2 || second.Verdict != "ready" || second.Cause != nil {
		t.Errorf("second run: %+v", second)
	}
	if second.Phases["weights"] <= 0 {
		t.Errorf("second run's phases %v: want a weights time", second.Phases)
	}
	if !strings.HasPrefix(lines[1], `{"file":`) || !strings.Contains(lines[1], `"phases":{"launch":`) {
		t.Errorf("phases should be in the run's order: %s", lines[1])
	}
}

// composeLog renders each scenario as one compose service's output
// ("name  | line", or what prefix puts before it), interleaves the
// services line by line as `docker compose logs` does, and returns the
// log's path and text.
func composeLog(t *testing.T, prefix func(name string) string, services [][2]string) (string, []byte) {
	t.Helper()
	var streams [][]string
	for _, s := range services {
		sc, err := scenario.Load(filepath.Join("..", "..", "testdata", "scenarios", s[1]+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := scenlog.Write(&buf, sc, time.Date(2026, 5, 1, 10, 0, 0, 0, time.Local)); err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.SplitAfter(buf.String(), "\n") {
			if l != "" {
				lines = append(lines, prefix(s[0])+l)
			}
		}
		streams = append(streams, lines)
	}
	var log bytes.Buffer
	for i := 0; ; i++ {
		more := false
		for _, lines := range streams {
			if i < len(lines) {
				log.WriteString(lines[i])
				more = true
			}
		}
		if !more {
			break
		}
	}
	path := filepath.Join(t.TempDir(), "compose.log")
	if err := os.WriteFile(path, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, log.Bytes()
}

// TestExplainComposeServices: a `docker compose logs` file of two servers
// is judged once per service (one's failure is not the other's death);
// given as a stream, it cannot be read twice, and vigil says so.
func TestExplainComposeServices(t *testing.T) {
	path, text := composeLog(t, func(name string) string { return fmt.Sprintf("%-12s| ", name) },
		[][2]string{{"llama", "vllm-gpu-oom-no-cache-blocks-32b"}, {"mistral", "tgi-ready-mistral-7b"}})
	code, out, errOut := runExplain(t, "", "--json", path)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a service's last run failed); stderr %s", code, errOut)
	}
	var runs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		runs = append(runs, r)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want one per service:\n%s", len(runs), out)
	}
	want := [][3]string{{"llama", "vllm", "failed"}, {"mistral", "tgi", "ready"}}
	for i, w := range want {
		r := runs[i]
		if r["service"] != w[0] || r["server"] != w[1] || r["verdict"] != w[2] || r["run"] != 1.0 {
			t.Errorf("run %d: service %v server %v verdict %v run %v, want %v", i, r["service"], r["server"], r["verdict"], r["run"], w)
		}
	}
	if runs[0]["cause"] != "gpu_oom" || runs[1]["after_ready"] == nil {
		t.Errorf("llama: cause %v; mistral: after ready %v", runs[0]["cause"], runs[1]["after_ready"])
	}
	_, textOut, _ := runExplain(t, "", path)
	if !strings.Contains(textOut, "run 1  service llama  vllm") || !strings.Contains(textOut, "run 1  service mistral  tgi") {
		t.Errorf("text output lacks the services:\n%s", textOut)
	}
	_, _, errOut = runExplain(t, string(text))
	if !strings.Contains(errOut, "standard input interleaves the lines of compose services llama, mistral") {
		t.Errorf("stdin: stderr %q, want the note that the services are judged as one", errOut)
	}
}

// TestExplainKubectlPods: kubectl logs -l app=... --prefix interleaves
// the pods' lines after "[pod/POD/CONTAINER] ": each pod is judged on its
// own, as a compose service is.
func TestExplainKubectlPods(t *testing.T) {
	path, _ := composeLog(t, func(name string) string { return "[pod/" + name + "/server] " },
		[][2]string{{"vllm-7d9f8-a", "vllm-gpu-oom-no-cache-blocks-32b"}, {"vllm-7d9f8-b", "vllm-ready-benign-triton-kernels-import-error"}})
	code, out, errOut := runExplain(t, "", path)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a pod's last run failed); stderr %s", code, errOut)
	}
	for _, want := range []string{"run 1  service pod/vllm-7d9f8-a/server  vllm", "failed: gpu_oom", "run 1  service pod/vllm-7d9f8-b/server  vllm", "verdict   ready"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestExplainSmallHeap: explain asks for the small-heap pace only when it
// knows that all its input is small: regular, uncompressed files of at
// most smallLogSize bytes together.
func TestExplainSmallHeap(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	line := []byte("main: server is listening on http://127.0.0.1:8080 - starting the main loop\n")
	small := write("small.log", line)
	empty := write("empty.log", nil)
	half := write("half.log", bytes.Repeat(line, smallLogSize/2/len(line)+1))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(line)
	zw.Close()
	packed := write("small.log.gz", gz.Bytes())
	tests := []struct {
		name  string
		stdin string
		args  []string
		small bool
	}{
		{"one small file", "", []string{small}, true},
		{"an empty file", "", []string{empty}, true},
		{"small files", "", []string{small, empty, small}, true},
		{"one file over half the size", "", []string{half}, true},
		{"two files over the size together", "", []string{half, half}, false},
		{"standard input", string(line), nil, false},
		{"a small file and standard input", string(line), []string{small, "-"}, false},
		{"a compressed file", "", []string{packed}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			calls := 0
			env := &Env{
				IO:        &IOStreams{In: strings.NewReader(tt.stdin), Out: &out, ErrOut: &errOut},
				Getenv:    func(string) string { return "" },
				SmallHeap: func() { calls++ },
			}
			cmd := newExplainCmd(env)
			cmd.SetArgs(tt.args)
			if err := cmd.ExecuteContext(context.Background()); err != nil {
				var exit *ExitError
				if !errors.As(err, &exit) {
					t.Fatal(err)
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tt.small]; calls != want {
				t.Errorf("SmallHeap called %d times, want %d", calls, want)
			}
		})
	}
}
