package classify

import (
	"regexp"
	"testing"
)

// tqdmRe is the expression matchProgress is the hand-written form of.
var tqdmRe = regexp.MustCompile(`^(.*?):?\s*(\d{1,3})%\s*(?:Completed\s*)?\|[^|]*?\|?\s*(\d+)/(\d+)(?:\s*\[([^<\]]*)<([^,\]]*)(?:,\s*([\d.]+)\s*(it/s|s/it))?)?`)

// sameAsTqdmRe reports whether matchProgress(s) found what tqdmRe finds.
func sameAsTqdmRe(t *testing.T, s string) {
	t.Helper()
	g, ok := matchProgress(s)
	m := tqdmRe.FindStringSubmatch(s)
	if ok != (m != nil) {
		t.Fatalf("matchProgress(%q) ok = %v, tqdmRe matches: %v (%q)", s, ok, m != nil, m)
	}
	if !ok {
		return
	}
	for i := range g {
		if g[i] != m[i+1] {
			t.Fatalf("matchProgress(%q) group %d = %q, tqdmRe's %q\n got %q\nwant %q", s, i+1, g[i], m[i+1], g, m[1:])
		}
	}
}

var progressCases = []struct{ name, msg string }{
	{"tqdm", "Capturing batches (bs=1 avail_mem=23.56 GB): 100%|██████████| 52/52 [00:05<00:00, 10.36it/s]"},
	{"completed", "Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:02<00:06,  2.00s/it]"},
	{"no rate", "Loading: 50%|█████     | 2/4 [00:01<00:01]"},
	{"no times", "Loading: 50%|█████     | 2/4"},
	{"unknown eta", "Fetching 4 files:  25%|██▌       | 1/4 [00:01<?, ?it/s]"},
	{"colon in desc", "a: b: 7%| x | 1/20 [0:1<0:2, 3.5it/s]"},
	{"no desc", "42%|####| 22/52"},
	{"percent in desc", "100% done 5%|#| 1/20"},
	{"two bars", "x 5%|a|b| 1/2 y 6%| 3/4"},
	{"no second bar", "x 5% Completed| 1/2"},
	{"digits before slash in bar", "x 5%|12 3/4| 7/8"},
	{"fraction in bar", "x 5%| 3/4 | 7/8"},
	{"no fraction", "x 5%| 3 | 7"},
	{"four digit percent", "x 1000%| 1/2"},
	{"bad tail", "x 5%| 1/2 [00:01 00:02]"},
	{"tail without rate", "x 5%| 1/2 [00:01<00:02, fast]"},
	{"rate without unit", "x 5%| 1/2 [00:01<00:02, 3.5]"},
	{"rate spaced", "x 5%| 1/2 [00:01<00:02,   3.5  s/it]"},
	{"bracket in eta", "x 5%| 1/2 [00:01<00]:02, 3.5it/s]"},
	{"newline before bar", "desc\n 5%| 1/2"},
	{"newline in desc", "de\nsc 5%| 1/2"},
	{"newline in bar", "x 5%|a\nb| 1/2"},
	{"tabs", "x\t5%\t|\t1/2\t[\t<\t,\t1it/s]"},
	{"utf-8 desc", "Загрузка: 5%|██| 1/2"},
	{"invalid utf-8", "\xff\xfe5%|\xc3| 1/2 [\xe2<\x82, 1it/s]"},
	{"empty", ""},
	{"only percent", "%|/"},
}

// TestMatchProgress: the table's bars, parsed and not, as tqdmRe reads
// them.
func TestMatchProgress(t *testing.T) {
	for _, tt := range progressCases {
		t.Run(tt.name, func(t *testing.T) { sameAsTqdmRe(t, tt.msg) })
	}
}

// FuzzMatchProgress: matchProgress finds the match and the groups that
// tqdmRe finds, for any message.
func FuzzMatchProgress(f *testing.F) {
	for _, tt := range progressCases {
		f.Add(tt.msg)
	}
	for _, l := range edgeLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, msg string) { sameAsTqdmRe(t, msg) })
}

// BenchmarkParseProgress: the cost per message that may be a bar (those
// MaybeProgress lets through, from the real-shaped log), parsed by hand
// and by tqdmRe.
func BenchmarkParseProgress(b *testing.B) {
	var msgs []string
	for _, l := range realShapedLog(b, 4<<20) {
		if msg := ParseFast(l).Msg; MaybeProgress(msg) {
			msgs = append(msgs, msg)
		}
	}
	if len(msgs) == 0 {
		b.Skip("no bars in the log")
	}
	run := func(b *testing.B, match func(string) bool) {
		for b.Loop() {
			for _, m := range msgs {
				match(m)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(msgs)), "ns/msg")
	}
	b.Run("hand", func(b *testing.B) {
		run(b, func(m string) bool { _, ok := matchProgress(m); return ok })
	})
	b.Run("regexp", func(b *testing.B) {
		run(b, func(m string) bool { return tqdmRe.FindStringSubmatch(m) != nil })
	})
}
