package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"vigil/internal/history"
	"vigil/internal/srvconfig"
)

func TestTimeline(t *testing.T) {
	phases := ph("launch", 2.0, "weights", 6.0, "kv_cache", 2.0)
	tests := []struct {
		name       string
		st         history.Startup
		wantFail   string // the phase whose bar is marked, "" for none
		wantClass  string
		wantMark   string
		wantEmpty  bool
		wantLabels []string
	}{
		{
			name:      "ready",
			st:        history.Startup{Phases: phases, TotalSeconds: 10, Verdict: "ready", Phase: "ready"},
			wantClass: "v-ready", wantMark: "ready",
			wantLabels: []string{"launch 2.0s", "weights 6.0s", "kv_cache 2.0s"},
		},
		{
			name:      "failed in kv_cache",
			st:        history.Startup{Phases: phases, TotalSeconds: 10, Verdict: "failed", Cause: "gpu_oom", Phase: "kv_cache"},
			wantFail:  "kv_cache",
			wantClass: "v-failed", wantMark: "failed (gpu_oom) in kv_cache",
			wantLabels: []string{"launch 2.0s", "weights 6.0s", "kv_cache 2.0s"},
		},
		{
			name:      "stalled in weights",
			st:        history.Startup{Phases: phases[:2], TotalSeconds: 8, Verdict: "stalled", Phase: "weights"},
			wantFail:  "weights",
			wantClass: "v-slow", wantMark: "stalled in weights",
			wantLabels: []string{"launch 2.0s", "weights 6.0s"},
		},
		{
			name:      "no phases",
			st:        history.Startup{TotalSeconds: 3, Verdict: "failed", Cause: "crash", Phase: "launch"},
			wantEmpty: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tv := timeline(tc.st)
			if tc.wantEmpty {
				if tv.Empty == "" || len(tv.Bars) != 0 {
					t.Fatalf("got %d bars and no empty note, want the note %q", len(tv.Bars), tv.Empty)
				}
				return
			}
			if len(tv.Bars) != len(tc.st.Phases) {
				t.Fatalf("got %d bars, want %d", len(tv.Bars), len(tc.st.Phases))
			}
			// Bars follow each other and fill the width on the startup's
			// own scale.
			at := tlBarX
			for i, b := range tv.Bars {
				if math.Abs(b.X-at) > 0.11 {
					t.Errorf("bar %d at x=%v, want %v", i, b.X, at)
				}
				at += b.W
				if (b.Fail) != (tc.st.Phases[i].Name == tc.wantFail) {
					t.Errorf("bar %s: Fail=%v, want the mark on %q", tc.st.Phases[i].Name, b.Fail, tc.wantFail)
				}
			}
			if math.Abs(at-(tlBarX+tlBarW)) > 0.5 {
				t.Errorf("bars end at %v, want %v", at, tlBarX+tlBarW)
			}
			var labels []string
			for _, b := range tv.Bars {
				labels = append(labels, b.Label)
			}
			if !reflect.DeepEqual(labels, tc.wantLabels) {
				t.Errorf("labels %q, want %q", labels, tc.wantLabels)
			}
			if tv.Mark.Class != tc.wantClass || tv.Mark.Text != tc.wantMark {
				t.Errorf("mark %q (%s), want %q (%s)", tv.Mark.Text, tv.Mark.Class, tc.wantMark, tc.wantClass)
			}
		})
	}
}

func TestTimelineOfDamagedDurations(t *testing.T) {
	st := history.Startup{Phases: ph("launch", math.NaN(), "weights", 4.0, "kv_cache", math.Inf(1), "serving", -3.0),
		TotalSeconds: math.Inf(-1), Verdict: "ready"}
	tv := timeline(st)
	for _, b := range tv.Bars {
		for _, f := range []float64{b.X, b.W} {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				t.Fatalf("bar %+v has a coordinate that cannot be drawn", b)
			}
		}
	}
	if w := tv.Bars[1].W; math.Abs(w-tlBarW) > 0.1 {
		t.Errorf("the one sound phase is %v wide, want the whole %v", w, tlBarW)
	}
	var b bytes.Buffer
	if err := Write(&b, Input{Startups: []history.Startup{st}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`NaN|Inf|\d{6,}h`).FindString(b.String()); m != "" {
		t.Errorf("the page shows %q for a damaged duration", m)
	}
	if !strings.Contains(b.String(), "launch <b>?</b>") {
		t.Error("a NaN phase time is not shown as ?")
	}
}

func TestBarLabelsOnlyWhereTheyFit(t *testing.T) {
	st := history.Startup{Phases: ph("launch", 0.5, "weights", 99.0, "serving", 0.5), TotalSeconds: 100, Verdict: "ready"}
	got := timeline(st).Bars
	if got[0].Label != "" || got[2].Label != "" || got[1].Label != "weights 1m39s" {
		t.Errorf("labels %q %q %q; want only the wide bar labelled", got[0].Label, got[1].Label, got[2].Label)
	}
	if got[0].W < 1.5 {
		t.Errorf("a short phase is %v units wide; want it visible", got[0].W)
	}
}

func TestCompareSharesOneAxis(t *testing.T) {
	long := history.Startup{ID: 1, Phases: ph("weights", 300.0), TotalSeconds: 300, Verdict: "ready"}
	short := history.Startup{ID: 2, Phases: ph("weights", 100.0), TotalSeconds: 100, Verdict: "failed", Cause: "cuda", Phase: "weights"}
	cv := compareChart([]history.Startup{long, short}, 300)
	if len(cv.Rows) != 2 {
		t.Fatalf("%d rows", len(cv.Rows))
	}
	w1, w2 := cv.Rows[0].Bars[0].W, cv.Rows[1].Bars[0].W
	if math.Abs(w1-cmpBarW) > 0.1 || math.Abs(w2-cmpBarW/3) > 0.1 {
		t.Errorf("widths %v and %v, want %v and %v: one scale for all", w1, w2, cmpBarW, cmpBarW/3)
	}
	if !cv.Rows[1].Bars[0].Fail || cv.Rows[1].Mark.Text != "failed (cuda) in weights, 1m40s" {
		t.Errorf("the failed row: Fail=%v, mark %q", cv.Rows[1].Bars[0].Fail, cv.Rows[1].Mark.Text)
	}
	var labels []string
	for _, tk := range cv.Ticks {
		labels = append(labels, tk.Label)
	}
	if want := []string{"0", "1m", "2m", "3m", "4m", "5m"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("ticks %q, want %q", labels, want)
	}
}

func TestTicks(t *testing.T) {
	tests := []struct {
		total float64
		want  []string
	}{
		{2.1, []string{"0", "1s", "2s"}},
		{41.7, []string{"0", "10s", "20s", "30s", "40s"}},
		{208, []string{"0", "30s", "1m", "1m30s", "2m", "2m30s", "3m"}},
		{5400, []string{"0", "15m", "30m", "45m", "1h", "1h15m", "1h30m"}},
		{4 * 3600, []string{"0", "30m", "1h", "1h30m", "2h", "2h30m", "3h", "3h30m", "4h"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.total), func(t *testing.T) {
			var got []string
			for _, tk := range ticks(tc.total, 0, 1000/tc.total, 1000) {
				got = append(got, tk.Label)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDriftFoldsLongLists(t *testing.T) {
	var old, cur srvconfig.Config
	for i := range 20 {
		old = append(old, srvconfig.KV{Key: fmt.Sprintf("k%02d", i), Value: "0"})
		cur = append(cur, srvconfig.KV{Key: fmt.Sprintf("k%02d", i), Value: "1"})
	}
	d := driftOf(history.Startup{ID: 1, Config: old}, history.Startup{ID: 2, Config: cur}, time.UTC)
	if len(d.Lines) != driftShown || len(d.More) != 20-driftShown || d.Summary != "20 changed" {
		t.Errorf("%d shown, %d folded, %q", len(d.Lines), len(d.More), d.Summary)
	}
}

func TestResults(t *testing.T) {
	list := demo()
	slow := list[6].extra
	extra := map[string]json.RawMessage{}
	for k, v := range slow {
		extra[k] = mustJSON(t, v)
	}
	extra["future"] = json.RawMessage(`{"some":"thing"}`)
	extra["notable-but-odd"] = json.RawMessage(`[1,2]`)
	bv, sm, notes, kv, other := results(extra)

	if bv == nil || bv.OK || len(bv.Levels) != 3 {
		t.Fatalf("bench %+v; want 3 levels, not ok", bv)
	}
	var status []string
	for _, l := range bv.Levels {
		status = append(status, l.Status+" "+l.Change)
	}
	if want := []string{"ok -8.2%", "below -25.7%", "below -26.7%"}; !reflect.DeepEqual(status, want) {
		t.Errorf("bench levels %q, want %q", status, want)
	}
	if len(bv.Problems) != 2 || !strings.Contains(bv.Problems[0], "c=8") {
		t.Errorf("bench problems %q", bv.Problems)
	}
	if !bv.Chart.Rows[1].HasBase || bv.Chart.Rows[1].Class != "bar-below" || bv.Chart.Rows[1].BaseX <= benchLabelW+bv.Chart.Rows[1].W {
		t.Errorf("c=8 chart row %+v: want a below bar ending before its baseline mark", bv.Chart.Rows[1])
	}
	if sm == nil || !sm.OK || sm.LatencyMS != "388 ms" {
		t.Errorf("smoke %+v", sm)
	}
	if len(notes) != 1 || !strings.Contains(notes[0].Text, "DeepGEMM") || notes[0].Count != 8 || !strings.Contains(notes[0].Detail, "ue8m0") {
		t.Errorf("notable %+v", notes)
	}
	if kv == nil || len(kv.Tuned) != 1 || len(kv.Default) != 1 || !strings.Contains(kv.Default[0], "N=128") {
		t.Errorf("kernels %+v", kv)
	}
	var names []string
	for _, o := range other {
		names = append(names, o.Name)
	}
	if want := []string{"future", "notable-but-odd"}; !reflect.DeepEqual(names, want) {
		t.Errorf("other results %q, want %q", names, want)
	}
}

func TestNotesOf(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []noteView
	}{
		{"strings", `["CUDA graphs disabled","",null]`, []noteView{{Text: "CUDA graphs disabled"}}},
		{"title and evidence", `[{"title":"overlap scheduler off","evidence":"disable_overlap_schedule=True"}]`,
			[]noteView{{Text: "overlap scheduler off", Detail: "disable_overlap_schedule=True"}}},
		{"only a line", `[{"line":"Using default MoE config."}]`, []noteView{{Text: "Using default MoE config."}}},
		{"detail equal to text is dropped", `[{"message":"x","line":"x"}]`, []noteView{{Text: "x"}}},
		{"empty list", `[]`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := notesOf(json.RawMessage(tc.raw))
			if !ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v (ok %v), want %+v", got, ok, tc.want)
			}
		})
	}
	if _, ok := notesOf(json.RawMessage(`{"not":"a list"}`)); ok {
		t.Error("an object read as a notable list")
	}
}

// fakeStore serves startups from memory and records what was asked.
type fakeStore struct {
	byID []history.Startup
	err  error
}

func (f *fakeStore) Get(_ context.Context, id int64) (history.Startup, error) {
	for _, st := range f.byID {
		if st.ID == id {
			return st, nil
		}
	}
	return history.Startup{}, fmt.Errorf("startup %d: %w", id, history.ErrNotFound)
}

func (f *fakeStore) List(_ context.Context, flt history.Filter) ([]history.Startup, error) {
	var out []history.Startup
	for i := len(f.byID) - 1; i >= 0 && (flt.Limit == 0 || len(out) < flt.Limit); i-- {
		out = append(out, f.byID[i])
	}
	return out, f.err
}

func (f *fakeStore) Previous(_ context.Context, st history.Startup, _ bool) (history.Startup, bool, error) {
	for i := len(f.byID) - 1; i >= 0; i-- {
		if p := f.byID[i]; p.ID < st.ID && p.Model == st.Model {
			return p, true, nil
		}
	}
	return history.Startup{}, false, nil
}

func TestLoad(t *testing.T) {
	fs := &fakeStore{byID: []history.Startup{{ID: 1, Model: "a"}, {ID: 2, Model: "b"}, {ID: 3, Model: "a"}}}
	ctx := context.Background()
	ids := func(in Input) []int64 {
		var out []int64
		for _, st := range in.Startups {
			out = append(out, st.ID)
		}
		return out
	}

	in, err := Load(ctx, fs, []int64{3, 1, 3}, history.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(in); !reflect.DeepEqual(got, []int64{3, 1}) {
		t.Errorf("given IDs: got %v, want [3 1] (their order, repeats dropped)", got)
	}
	if p, ok := in.Previous[3]; !ok || p.ID != 1 {
		t.Errorf("previous of 3: %v %v, want 1", p.ID, ok)
	}
	if _, ok := in.Previous[1]; ok {
		t.Error("startup 1 has a previous one")
	}

	in, err = Load(ctx, fs, nil, history.Filter{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(in); !reflect.DeepEqual(got, []int64{3, 2}) {
		t.Errorf("no IDs, limit 2: got %v, want [3 2]", got)
	}

	if _, err := Load(ctx, fs, []int64{9}, history.Filter{}); !errors.Is(err, history.ErrNotFound) {
		t.Errorf("unknown ID: %v, want ErrNotFound", err)
	}
	fs.err = errors.New("disk on fire")
	if _, err := Load(ctx, fs, nil, history.Filter{}); err == nil {
		t.Error("a failing List gave no error")
	}
}

// hostile is text a log could hold that must stay text.
const hostile = `</title><script>alert(1)</script><img src=x onerror=alert(2)>"'&`

func TestWriteEscapesLogText(t *testing.T) {
	st := history.Startup{ID: 7, Server: "sglang", Model: hostile, Verdict: "failed", Cause: "exception", Phase: "weights",
		Summary: hostile, LogPath: hostile, Host: hostile,
		Config: cfg(hostile, hostile), Phases: ph("weights", 3.0, hostile, 1.0), TotalSeconds: 4,
		Extra: map[string]json.RawMessage{"notable": mustJSON(t, []string{hostile}), hostile: mustJSON(t, hostile)}}
	prev := st
	prev.ID, prev.Config = 6, cfg(hostile, "old")
	var b bytes.Buffer
	if err := Write(&b, Input{Startups: []history.Startup{st}, Previous: map[int64]history.Startup{7: prev}}, Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(strings.ToLower(out), "<script"); n != 0 {
		t.Errorf("%d <script elements in the output", n)
	}
	if n := strings.Count(strings.ToLower(out), "<img"); n != 0 {
		t.Errorf("%d <img elements in the output", n)
	}
	if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile text is not shown escaped")
	}
	if o, c := strings.Count(out, "<title>"), strings.Count(out, "</title>"); o != c {
		t.Errorf("%d <title> but %d </title>: the hostile text closed one", o, c)
	}
}

func TestWriteIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	list := demo()
	in := Input{Previous: map[int64]history.Startup{}}
	for i, d := range list {
		st := d.st
		st.ID = int64(i + 1)
		st.Extra = map[string]json.RawMessage{}
		for k, v := range d.extra {
			st.Extra[k] = mustJSON(t, v)
		}
		in.Startups = append(in.Startups, st)
	}
	if err := Write(&b, in, Options{Now: demoT0}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// Nothing that makes a browser fetch: no src, no link, no import, no
	// url() but the page's own pattern.
	for _, re := range []string{`(?i)\ssrc=`, `(?i)<link`, `(?i)@import`, `(?i)url\((?:[^#)]|$)`, `(?i)https?://`} {
		if m := regexp.MustCompile(re).FindString(out); m != "" {
			t.Errorf("output matches %s: %q", re, m)
		}
	}
	// The policy's hash is the hash of the style element's text, so the
	// browser applies the style and nothing else.
	style := section(out, "<style>", "</style>")
	style = strings.TrimPrefix(style, "<style>")
	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(out)
	if meta == nil {
		t.Fatal("no Content-Security-Policy meta element")
	}
	policy := html.UnescapeString(meta[1])
	m := regexp.MustCompile(`style-src 'sha256-([^']+)'`).FindStringSubmatch(policy)
	if m == nil || m[1] != hash(style) {
		t.Errorf("CSP style hash %v does not match the style element (%s)", m, hash(style))
	}
	if !strings.Contains(policy, "default-src 'none'") {
		t.Error("no default-src 'none' in the policy")
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := Input{Startups: []history.Startup{{ID: 1, Verdict: "ready", Phases: ph("launch", 1.0), TotalSeconds: 1}}}
	if err := WriteFile(path, in, Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(got, []byte("<!DOCTYPE html>")) {
		t.Fatalf("file holds %.40q, %v", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files left in the directory, want only the report", len(entries))
	}
	for _, bad := range []string{filepath.Join(dir, "no", "such", "dir.html"), dir} {
		err := WriteFile(bad, in, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "report: cannot write "+bad+": ") || strings.Contains(err.Error(), ".report.html.") {
			t.Errorf("WriteFile(%s): %v; want one clear error naming it", bad, err)
		}
	}
}

func TestDriftSummary(t *testing.T) {
	prev := history.Startup{ID: 4, Version: "0.5.5", Verdict: "ready", Config: cfg("a", "1", "b", "2")}
	cur := history.Startup{ID: 5, Version: "0.5.6", Verdict: "failed", Cause: "cuda", Phase: "cuda_graph", Config: cfg("a", "9")}
	d := driftOf(prev, cur, time.UTC)
	if d.Summary != "1 changed, 1 removed" || d.Version != "0.5.5 → 0.5.6" || d.Verdict != "ready → failed (cuda) in cuda_graph" {
		t.Errorf("summary %q, version %q, verdict %q", d.Summary, d.Version, d.Verdict)
	}
	if len(d.Lines) != 2 || d.Lines[0].Sign != "~" || d.Lines[1].Sign != "−" || d.Lines[1].Old != "2" {
		t.Errorf("lines %+v", d.Lines)
	}
	if same := driftOf(prev, prev, time.UTC); same.Summary != "same configuration" || same.Version != "" || same.Verdict != "" {
		t.Errorf("against itself: %+v", same)
	}
}

func TestHideSecret(t *testing.T) {
	tests := []struct{ key, value, want string }{
		{"api_key", "sk-it's-a-secret", hidden},
		{"admin_api_key", "letmein", hidden},
		{"hf_token", "hf_abcdefghijklmnop", hidden},
		{"ssl_keyfile_password", "pw", hidden},
		{"api-key", "x", hidden},
		{"api_key", "None", "None"},
		{"api_key", "", ""},
		{"some_header", "'sk-proj-0123456789abcdef'", hidden},
		{"max_total_num_tokens", "951104", "951104"},
		{"max_tokens", "256", "256"},
		{"skip_tokenizer_init", "False", "False"},
		{"ssl_keyfile", "/etc/tls/key.pem", "/etc/tls/key.pem"},
		{"tp_size", "8", "8"},
	}
	for _, tc := range tests {
		if got := hideSecret(tc.key, tc.value); got != tc.want {
			t.Errorf("hideSecret(%q, %q) = %q, want %q", tc.key, tc.value, got, tc.want)
		}
	}
}

func TestDriftHidesSecrets(t *testing.T) {
	prev := history.Startup{ID: 1, Config: cfg("api_key", "sk-old-0123456789", "tp_size", "8")}
	cur := history.Startup{ID: 2, Config: cfg("api_key", "sk-new-0123456789", "tp_size", "8")}
	var b bytes.Buffer
	if err := Write(&b, Input{Startups: []history.Startup{cur}, Previous: map[int64]history.Startup{2: prev}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "0123456789") {
		t.Error("the report shows an API key")
	}
	if !strings.Contains(b.String(), "api_key") || !strings.Contains(b.String(), "1 changed") {
		t.Error("the report does not say the API key changed")
	}
	b.Reset()
	leaky := history.Startup{ID: 3, Summary: "401 for key sk-proj-abcdefghijklmnop0123",
		Extra: map[string]json.RawMessage{"notable": mustJSON(t, []string{"token hf_abcdefghijklmnopqrstu refused"})}}
	if err := Write(&b, Input{Startups: []history.Startup{leaky}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "abcdefghijklmnop") || !strings.Contains(b.String(), "401 for key (hidden)") {
		t.Error("a token in a summary or warning is shown")
	}
}

// section returns s from the first from to the next to after it.
func section(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}
