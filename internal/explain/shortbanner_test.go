package explain

import (
	"strings"
	"testing"
	"unsafe"

	"vigil/internal/classify"
	"vigil/internal/logline"
	"vigil/internal/stamp"
)

// TestLearnMarksBannersAsEachLine: a chunk's banners found with the short
// literals looked for in the whole chunk are those that the banner filter
// finds line by line, wherever the chunk is cut: also in a line begun in
// the chunk before (a copy, not in the chunk's buffer) and in a line cut
// at the longest a line may be.
func TestLearnMarksBannersAsEachLine(t *testing.T) {
	log := strings.Join([]string{
		"build: 4798 (1782cdfe) with cc (GCC) 12.2.0 for x86_64-linux-gnu",
		"main: build = 4798 (1782cdfe)",
		"2026-01-08T10:00:00.123456Z  INFO text_generation_launcher: Args {",
		"[TRT-LLM] Starting the executor",
		"[11/29/2026-10:00:00] [TRT-LLM] [I] iter = 1203, global_rank = 0",
		"slot launch_slot_: id  0 | task 1205 | processing task",
		"\x1b[1mbu\x1b[0mild: 12 (ab)",
		strings.Repeat("x", logline.MaxLen-3) + "Args {",
		"Args {",
		"[2026-05-24 00:52:39] server_args=ServerArgs(model_path='x')",
		"rebuild: 3 kernels",
	}, "\n") + "\n"
	for cut := 0; cut <= len(log); cut += 7 {
		cutter := logline.NewCutter()
		sp := stamp.NewReader(nil, now)
		memo := classify.NewMemo()
		var got, want []string
		for k, part := range []string{log[:cut], log[cut:]} {
			c := &chunk{buf: []byte(part), n: len(part)}
			if k == 1 {
				c.base = int64(cut)
			}
			if len(part) > 0 {
				c.lines = cutter.Split(unsafe.String(&c.buf[0], len(part)), nil)
			}
			if k == 1 {
				c.lines = cutter.Flush(c.lines)
			}
			c.learn(sp, memo)
			for i, l := range c.lines {
				if c.meta[i].flags&fBanner != 0 {
					got = append(got, l.Text)
				}
				if classify.MayBeBanner(l.Text) && classify.BannerServer(classify.ParseFast(l.Text).Msg) != "" {
					want = append(want, l.Text)
				}
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("cut at %d: banners %q, want %q", cut, got, want)
		}
		if len(want) < 5 {
			t.Fatalf("cut at %d: only %d banners: %q", cut, len(want), want)
		}
	}
}
