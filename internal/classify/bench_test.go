package classify

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vigil/internal/scenario"
)

// realShapedLog is the output of every scenario in testdata, repeated to
// about size bytes: real formats of all five servers, tracebacks included.
func realShapedLog(tb testing.TB, size int) []string {
	tb.Helper()
	files, _ := filepath.Glob("../../testdata/scenarios/*.json")
	shared, _ := filepath.Glob("../../testdata/scenarios/shared/*.json")
	files = append(files, shared...)
	if len(files) == 0 {
		tb.Skip("no scenarios in testdata")
	}
	now := time.Now()
	var base []string
	for _, f := range files {
		sc, err := scenario.Load(f)
		if err != nil {
			tb.Fatal(err)
		}
		for _, ev := range sc.Timeline {
			for _, l := range ev.Lines {
				base = append(base, scenario.Render(l, now))
			}
			if ev.Progress != nil {
				base = append(base, strings.NewReplacer("{pct:3d}", " 42", "{i}", "3", "{n}", "7", "{el}", "00:01", "{eta}", "00:02", "{rate:.2f}", "1.50").Replace(ev.Progress.Fmt))
			}
		}
	}
	var lines []string
	n := 0
	for n < size {
		for _, l := range base {
			lines = append(lines, l)
			n += len(l) + 1
		}
	}
	return lines
}

// BenchmarkClassify reports the classifier's throughput (MB/s) and cost
// per line on a real-shaped log.
func BenchmarkClassify(b *testing.B) {
	lines := realShapedLog(b, 8<<20)
	total := 0
	for _, l := range lines {
		total += len(l) + 1
	}
	profiles := []*Profile{sglang, vllm, tgi, llamacpp, trtllm}
	b.SetBytes(int64(total))
	b.ResetTimer()
	for b.Loop() {
		for i, l := range lines {
			profiles[i%len(profiles)].Classify(l)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(lines)), "ns/line")
}

// BenchmarkBuildPrefilter is what a profile's first line costs: building
// its automaton and guards (bench/firstline times the whole command).
func BenchmarkBuildPrefilter(b *testing.B) {
	for b.Loop() {
		buildPrefilter(vllm)
	}
}
