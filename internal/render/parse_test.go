package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"vigil/internal/observe"
	"vigil/internal/srvconfig"
	v "vigil/internal/verdict"
)

// A session written as NDJSON and read back shows as the same text: how a
// startup judged on another host looks here.
func TestParsedStreamShowsAsTheOriginal(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	info := Info{Mode: "run", PID: 42, LogFile: "/var/log/s.log", URL: "http://127.0.0.1:30000", Argv: []string{"python3", "-m", "sglang.launch_server"},
		Start: t0, Budget: &Budget{Timeout: 40 * time.Second, TimeoutFrom: "flag", StallAfter: 160 * time.Second, StallFrom: "learned", Samples: 3}}
	spans := []observe.PhaseSpan{{Phase: v.Launch, Start: t0}, {Phase: v.Weights, Start: t0.Add(1500 * time.Millisecond)}, {Phase: v.KVCache, Start: t0.Add(4 * time.Second)}}
	res := &observe.Result{Verdict: v.Failed, Cause: v.GPUOOM, Phase: v.KVCache, Server: "sglang", RuleID: "sglang.kv_pool_oom",
		Summary: "the KV cache does not fit", Hint: "lower --mem-fraction-static", Evidence: []string{"RuntimeError: Not enough memory."},
		At: t0.Add(6200 * time.Millisecond), Phases: spans, Fingerprint: "fa49b849d1881ea2",
		Config:    srvconfig.Config{{Key: "tp_size", Value: "2"}, {Key: "model_path", Value: "Qwen/Qwen3-8B"}},
		Important: []srvconfig.KV{{Key: "model", Value: "Qwen/Qwen3-8B"}, {Key: "tp", Value: "2"}}}
	st := Status{HistoryID: 7, Extras: map[string]any{"smoke": map[string]any{"ok": false}}}

	var stream bytes.Buffer
	j := &JSON{W: &stream}
	j.Begin(info)
	j.End(res, st)
	lines := strings.Split(strings.TrimSpace(stream.String()), "\n")

	later := t0.Add(time.Hour) // another clock: only differences count
	gotInfo, err := ParseStart([]byte(lines[0]), later)
	if err != nil {
		t.Fatal(err)
	}
	gotSpans := make([]observe.PhaseSpan, len(spans))
	for i, s := range spans {
		gotSpans[i] = observe.PhaseSpan{Phase: s.Phase, Start: s.Start.Add(time.Hour)}
	}
	for name, sp := range map[string][]observe.PhaseSpan{"with the phase events": gotSpans, "from the durations alone": nil} {
		gotRes, gotSt, err := ParseVerdict([]byte(lines[1]), later, sp)
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		for _, c := range []struct {
			w    *bytes.Buffer
			info Info
			r    *observe.Result
			st   Status
		}{{&want, info, res, st}, {&got, gotInfo, gotRes, gotSt}} {
			p := &Plain{W: c.w}
			p.Begin(c.info)
			p.End(c.r, c.st)
		}
		if got.String() != want.String() {
			t.Errorf("%s: read back it shows\n%s\nwant\n%s", name, got.String(), want.String())
		}
		if gotSt.HistoryID != 7 || gotSt.Extras["smoke"] == nil || gotRes.RuleID != res.RuleID || gotRes.Cause != v.GPUOOM {
			t.Errorf("%s: lost fields: %+v %+v", name, gotSt, gotRes)
		}
	}
}
