package srvconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary lines to Parse and a Collector. Seeds: every
// line of the fixtures in testdata/config (and the corpus under
// testdata/fuzz/FuzzParse). The properties: no panic, no empty key, ok only
// with pairs, and Important/Fingerprint/Lookup cope with whatever came out.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*.log"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		kind, _, _ := strings.Cut(filepath.Base(file), "-")
		for _, line := range strings.Split(string(b), "\n") {
			f.Add(kind, line)
		}
	}
	f.Add("", "server_args=ServerArgs(a='\\")
	f.Add("tgi", "Args {\n  a: Some(\n")
	f.Fuzz(func(t *testing.T, kind, msg string) {
		c, ok := Parse(kind, msg)
		if ok != (len(c) > 0) {
			t.Fatalf("ok = %v with %d pairs", ok, len(c))
		}
		for _, kv := range c {
			if kv.Key == "" {
				t.Fatalf("empty key in %q", c)
			}
		}
		col := NewCollector(kind)
		for _, line := range strings.Split(msg, "\n") {
			col.Feed(line)
		}
		col.Flush()
		all := col.Config()
		_ = Important(kind, all)
		_ = Fingerprint(kind, all)
		_ = Check(kind, all, []Expect{{"tp", "1"}, {"model", msg}})
	})
}

// TestParseBoundedTime runs Parse and a Collector on pathological inputs of
// the largest size Parse looks at; each must finish quickly.
func TestParseBoundedTime(t *testing.T) {
	// A quadratic parser would not finish these within the test's
	// timeout; how fast they go is BenchmarkParseHostile's, not a clock's.
	for name, in := range hostileInputs() {
		t.Run(name, func(t *testing.T) { parseHostile(in) })
	}
}

func BenchmarkParseHostile(b *testing.B) {
	for name, in := range hostileInputs() {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				parseHostile(in)
			}
		})
	}
}

func parseHostile(in string) {
	Parse("", in)
	col := NewCollector("tgi")
	col.Feed("Args {")
	for i := 0; i < 3000; i++ {
		col.Feed("    }" + in[:100])
	}
	col.Feed(in)
	col.Flush()
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%d=%d, ", i, i)
	}
	return b.String()
}

// BenchmarkParseOrdinaryLine measures the cost Parse adds to every log line
// that is not configuration.
func BenchmarkParseOrdinaryLine(b *testing.B) {
	line := "(EngineCore_DP0 pid=4388) INFO 07-20 10:11:12 [gpu_model_runner.py:2653] Model loading took 15.2683 GiB and 4.118532 seconds"
	for b.Loop() {
		Parse("vllm", line)
	}
}

// hostileInputs are configuration lines shaped to make a careless parser
// quadratic.
func hostileInputs() map[string]string {
	const n = maxInput
	return map[string]string{
		"many pairs":         "server_args=ServerArgs(" + strings.Repeat("a=1, ", n/5),
		"many distinct keys": "Initializing a V1 LLM engine (v1) with config: " + manyKeys(n/12),
		"deep nesting":       "server_args=ServerArgs(a=" + strings.Repeat("([{", n/3),
		"many continuations": "non-default args: {'a': 1" + strings.Repeat(", x", n/3),
		"open quote":         "Args { a: \"" + strings.Repeat("\\\"", n/2),
		"dicts to flatten":   "non-default args: {" + strings.Repeat("'k': {'a': 1, 'b': 2}, ", n/24),
		"llama system_info":  "system_info: " + strings.Repeat("A : B = 1 | ", n/12),
	}
}
