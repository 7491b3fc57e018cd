package scenario

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"vigil/internal/verdict"
)

// minimal is a valid scenario that the cases below break one way each.
const minimal = `{"id":"x","server":"sglang","source":"s","summary":"s","argv":["a"],
"timeline":[{"t":0.1,"err":"hi"}],"expect":{"verdict":"ready"}}`

// withTimeline is minimal with another timeline.
func withTimeline(events string) string {
	return strings.Replace(minimal, `[{"t":0.1,"err":"hi"}]`, events, 1)
}

func TestCheckProblems(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // one of the problems, exactly
	}{
		{"not json", `{"id":`, "not valid JSON: unexpected end of JSON input"},
		{"not an object", `[1,2]`, "top level must be a JSON object, is a list"},
		{"missing id", strings.Replace(minimal, `"id":"x",`, "", 1), "missing top-level 'id'"},
		{"missing expect", strings.Replace(minimal, `,"expect":{"verdict":"ready"}`, "", 1), "missing top-level 'expect'"},
		{"unknown server", strings.Replace(minimal, `"sglang"`, `"ollama"`, 1), "server must be one of ['llamacpp', 'sglang', 'tgi', 'trtllm', 'vllm']"},
		{"argv not strings", strings.Replace(minimal, `["a"]`, `["a",1]`, 1), "argv must be a list of strings"},
		{"id not a string", strings.Replace(minimal, `"id":"x"`, `"id":7`, 1), "id must be a string"},
		{"stale_log not strings", strings.Replace(minimal, `"argv"`, `"stale_log":"x","argv"`, 1), "stale_log must be a list of strings"},
		{"timeline not a list", withTimeline(`{}`), "timeline must be a list of events"},
		{"event not an object", withTimeline(`[3]`), "event 0 must be an object, is a number"},
		{"no t", withTimeline(`[{"err":"x"}]`), "event 0 has no numeric t"},
		{"string t", withTimeline(`[{"t":"1","err":"x"}]`), "event 0 has no numeric t"},
		{"t backwards", withTimeline(`[{"t":2,"err":"x"},{"t":1,"err":"y"}]`), "event 1: t goes backwards"},
		{"two kinds", withTimeline(`[{"t":1,"err":"x","out":"y"}]`), "event 0 must have exactly one of ['busy', 'download', 'err', 'exit', 'gen', 'hang', 'health', 'out', 'progress', 'signal'], has ['err', 'out']"},
		{"no kind", withTimeline(`[{"t":1,"say":"x"}]`), "event 0 must have exactly one of ['busy', 'download', 'err', 'exit', 'gen', 'hang', 'health', 'out', 'progress', 'signal'], has []"},
		{"err not text", withTimeline(`[{"t":1,"err":5}]`), "event 0: err must be a string or a list of strings"},
		{"progress without n", withTimeline(`[{"t":1,"progress":{"fmt":"x","dur":1}}]`), "event 0: progress needs 'n'"},
		{"progress n zero", withTimeline(`[{"t":1,"progress":{"fmt":"x","n":0,"dur":1}}]`), "event 0: progress n must be a whole number from 1 to 1000000"},
		{"progress unknown field", withTimeline(`[{"t":1,"progress":{"fmt":"{total}","n":3,"dur":1}}]`), `event 0: progress fmt: unknown field "total" (have pct, i, n, el, eta, rate)`},
		{"progress bad spec", withTimeline(`[{"t":1,"progress":{"fmt":"{el:d}","n":3,"dur":1}}]`), `event 0: progress fmt: field "el:d": unknown format code 'd' for a string`},
		{"progress stray brace", withTimeline(`[{"t":1,"progress":{"fmt":"a}b","n":3,"dur":1}}]`), "event 0: progress fmt: single '}' encountered in format string"},
		{"health odd status", withTimeline(`[{"t":1,"health":42}]`), "event 0: health must be 0 (not listening) or an HTTP status from 200 to 599"},
		{"health body not text", withTimeline(`[{"t":1,"health":200,"body":{}}]`), "event 0: body must be a string"},
		{"gen bad mode", withTimeline(`[{"t":1,"gen":{"mode":"fast"}}]`), "event 0: gen.mode must be ok|nan|empty|error"},
		{"gen not an object", withTimeline(`[{"t":1,"gen":"ok"}]`), "event 0: gen.mode must be ok|nan|empty|error"},
		{"gen negative speed", withTimeline(`[{"t":1,"gen":{"mode":"ok","tok_s":-1}}]`), "event 0: gen.tok_s must be a number, 0 or more"},
		{"busy not a number", withTimeline(`[{"t":1,"busy":"long"}]`), "event 0: busy must be a number of seconds"},
		{"download missing dur", withTimeline(`[{"t":1,"download":{"repo":"a/b","mb_s":1}}]`), "event 0: download needs repo, mb_s and dur"},
		{"download too fast", withTimeline(`[{"t":1,"download":{"repo":"a/b","mb_s":1e6,"dur":1}}]`), "event 0: download mb_s must be a number from 0 to 1024"},
		{"hang bad", withTimeline(`[{"t":1,"hang":"forever"}]`), "event 0: hang must be idle or busy"},
		{"exit fraction", withTimeline(`[{"t":1,"exit":1.5}]`), "event 0: exit must be a status from 0 to 255"},
		{"exit too big", withTimeline(`[{"t":1,"exit":300}]`), "event 0: exit must be a status from 0 to 255"},
		{"unknown signal", withTimeline(`[{"t":1,"signal":"SIGFOO"}]`), `event 0: unknown signal "SIGFOO"`},
		{"signal number", withTimeline(`[{"t":1,"signal":9}]`), "event 0: unknown signal a number"},
		{"bad verdict", strings.Replace(minimal, `"ready"`, `"ok"`, 1), "expect.verdict must be one of ['failed', 'ready', 'stalled', 'timeout']"},
		{"failed without cause", strings.Replace(minimal, `"ready"`, `"failed"`, 1), "expect.cause must be one of ['bad_output', 'config', 'crash', 'cuda', 'dependency', 'exception', 'gpu_oom', 'health', 'host_oom', 'kernel_build', 'model_load', 'nccl', 'port_in_use']"},
		{"bad phase", strings.Replace(minimal, `"ready"}`, `"ready","phase":"loading"}`, 1), "expect.phase must be one of ['compile', 'cuda_graph', 'distributed', 'init', 'kv_cache', 'launch', 'ready', 'serving', 'warmup', 'weights']"},
		{"expect not an object", strings.Replace(minimal, `{"verdict":"ready"}`, `[]`, 1), "expect must be an object"},
		{"decided_by text", strings.Replace(minimal, `"ready"}`, `"ready","decided_by":"soon"}`, 1), "expect.decided_by must be a number of seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check([]byte(tt.data))
			if !slices.Contains(got, tt.want) {
				t.Errorf("Check problems = %q, want one to be %q", got, tt.want)
			}
			if _, err := Parse([]byte(tt.data)); err == nil {
				t.Errorf("Parse error = nil, want one")
			}
		})
	}
}

func TestCheckValid(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"minimal", minimal},
		{"every kind", withTimeline(`[{"t":0,"err":["a","b"]},{"t":0,"out":"c"},
			{"t":0.1,"progress":{"fmt":"{pct:3d}% {i}/{n} [{el}<{eta}, {rate:.2f}it/s]","n":4,"to":2,"dur":1,"cr":true}},
			{"t":1,"health":503,"body":""},{"t":1,"gen":{"mode":"nan"}},{"t":1,"busy":0.5},
			{"t":2,"download":{"repo":"Qwen/Qwen3-8B","mb_s":2,"dur":1,"stop":true}},{"t":3,"hang":"idle"},
			{"t":3,"exit":137},{"t":3,"signal":"SIGSEGV"}]`)},
		{"extra keys are ignored", strings.Replace(minimal, `"argv"`, `"notes":"x","argv"`, 1)},
		{"ready with null cause", strings.Replace(minimal, `"ready"}`, `"ready","cause":null}`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Check([]byte(tt.data)); got != nil {
				t.Errorf("Check problems = %q, want none", got)
			}
		})
	}
}

func TestParseFields(t *testing.T) {
	data := `{"id":"demo","server":"vllm","source":"src","summary":"sum",
	"argv":["vllm","serve","Qwen/Qwen3-8B","--served-model-name","qwen"],
	"stale_log":["old"],"vigil_args":["--timeout","30s"],
	"timeline":[{"t":0.5,"out":"hello"},{"t":1,"progress":{"fmt":"{i}","n":8.0,"dur":2}},
	{"t":2,"gen":{"mode":"ok"}},{"t":3,"health":200},{"t":4,"exit":3}],
	"expect":{"verdict":"failed","cause":"crash","phase":"serving","decided_by":5.5,"not_before":4}}`
	s, err := Parse([]byte(data))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if s.ID != "demo" || s.Server != "vllm" || s.Source != "src" || s.Summary != "sum" {
		t.Errorf("header = %q %q %q %q", s.ID, s.Server, s.Source, s.Summary)
	}
	if got, want := s.ModelName(), "qwen"; got != want {
		t.Errorf("ModelName() = %q, want %q", got, want)
	}
	if !reflect.DeepEqual(s.StaleLog, []string{"old"}) || !reflect.DeepEqual(s.VigilArgs, []string{"--timeout", "30s"}) {
		t.Errorf("stale_log, vigil_args = %q, %q", s.StaleLog, s.VigilArgs)
	}
	wantKinds := []Kind{KindOut, KindProgress, KindGen, KindHealth, KindExit}
	var kinds []Kind
	for _, e := range s.Timeline {
		kinds = append(kinds, e.Kind)
	}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Fatalf("kinds = %v, want %v", kinds, wantKinds)
	}
	if got, want := *s.Timeline[1].Progress, (Progress{Fmt: "{i}", N: 8, To: 8, Dur: 2}); got != want {
		t.Errorf("progress = %+v, want %+v (to defaults to n)", got, want)
	}
	if got, want := *s.Timeline[2].Gen, (Gen{Mode: "ok", TokS: 200, Text: "ok"}); got != want {
		t.Errorf("gen = %+v, want %+v (player.py's defaults)", got, want)
	}
	if s.Timeline[3].Health != 200 || s.Timeline[3].Body != nil || s.Timeline[4].Exit != 3 {
		t.Errorf("health, body, exit = %d, %v, %d", s.Timeline[3].Health, s.Timeline[3].Body, s.Timeline[4].Exit)
	}
	x := s.Expect
	if x.Verdict != verdict.Failed || x.Cause != verdict.Crash || x.Phase != verdict.Serving ||
		x.DecidedBy == nil || *x.DecidedBy != 5.5 || x.NotBefore == nil || *x.NotBefore != 4 {
		t.Errorf("expect = %+v", x)
	}
}

func TestModelName(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"none", []string{"llama-server", "-m", "x.gguf"}, "model"},
		{"model path", []string{"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"}, "Qwen/Qwen3-8B"},
		{"served name wins", []string{"--served-model-name", "q", "--model", "Qwen/Qwen3-8B"}, "q"},
		{"flag at the end", []string{"--model"}, "model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (&Scenario{Argv: tt.argv}).ModelName(); got != tt.want {
				t.Errorf("ModelName() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(withTimeline(`[{"t":1,"hang":"x"},{"t":0,"exit":1}]`)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want string
	}{
		{"problems", bad, bad + ": event 0: hang must be idle or busy (and 1 more problems)"},
		{"missing file", filepath.Join(dir, "none.json"), filepath.Join(dir, "none.json") + ": cannot read: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.path)
			var serr *Error
			if !errors.As(err, &serr) {
				t.Fatalf("Load error = %v, want an *Error", err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("Load error = %q, want %q", got, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has several lines: %q", err.Error())
			}
		})
	}
}

func TestRender(t *testing.T) {
	now := time.Date(2026, 5, 24, 0, 52, 40, 123456789, time.UTC)
	local := func(d time.Duration, layout string) string { return now.Add(d).Local().Format(layout) }
	tests := []struct {
		name string
		line string
		want string
	}{
		{"plain", "no placeholders {here}", "no placeholders {here}"},
		{"ts", "[{ts} TP0] Load weight begin.", "[" + local(0, "2006-01-02 15:04:05") + " TP0] Load weight begin."},
		{"vts", "INFO {vts} [core.py:77] x", "INFO " + local(0, "01-02 15:04:05") + " [core.py:77] x"},
		{"iso", "{iso}  INFO text_generation_launcher: Starting shard", "2026-05-24T00:52:40.123456Z  INFO text_generation_launcher: Starting shard"},
		{"epoch", "t={epoch}", "t=1779583960.123"},
		{"negative offset", "[{ts:-3600}]", "[" + local(-time.Hour, "2006-01-02 15:04:05") + "]"},
		{"fractional offset", "{iso:+1.5}", "2026-05-24T00:52:41.623456Z"},
		{"several", "{epoch:-1} {epoch}", "1779583959.123 1779583960.123"},
		{"not a placeholder", "{ts:abc} {tss} {{ts}}", "{ts:abc} {tss} {" + local(0, "2006-01-02 15:04:05") + "}"},
		{"huge offset is bounded", "{epoch:-99999999999999999999}", "-7220416039.877"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Render(tt.line, now); got != tt.want {
				t.Errorf("Render(%q) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func TestPyFormat(t *testing.T) {
	// The wants are what Python's str.format prints.
	tests := []struct {
		format string
		arg    pyArg
		want   string
	}{
		{"{pct:3d}", pyArg{kind: 'i', i: 5}, "  5"},
		{"{pct:3d}", pyArg{kind: 'i', i: 100}, "100"},
		{"{rate:.2f}", pyArg{kind: 'f', f: 2.617}, "2.62"},
		{"{rate}", pyArg{kind: 'f', f: 0}, "0.0"},
		{"{rate}", pyArg{kind: 'f', f: 2.5}, "2.5"},
		{"{rate}", pyArg{kind: 'f', f: 1e16}, "1e+16"},
		{"{rate}", pyArg{kind: 'f', f: 1.5e-05}, "1.5e-05"},
		{"{i:>5}", pyArg{kind: 'i', i: 7}, "    7"},
		{"{i:<4}|", pyArg{kind: 'i', i: 7}, "7   |"},
		{"{i:^7}", pyArg{kind: 'i', i: 42}, "  42   "},
		{"{i:05d}", pyArg{kind: 'i', i: -3}, "-0003"},
		{"{i:,}", pyArg{kind: 'i', i: 1234567}, "1,234,567"},
		{"{i:x}", pyArg{kind: 'i', i: 255}, "ff"},
		{"{i:#X}", pyArg{kind: 'i', i: 255}, "0XFF"},
		{"{i:.2f}", pyArg{kind: 'i', i: 5}, "5.00"},
		{"{rate:8.3f}", pyArg{kind: 'f', f: 3.14159}, "   3.142"},
		{"{rate:e}", pyArg{kind: 'f', f: 12345.678}, "1.234568e+04"},
		{"{rate:.3g}", pyArg{kind: 'f', f: 0.0001234}, "0.000123"},
		{"{rate:g}", pyArg{kind: 'f', f: 1e6}, "1e+06"},
		{"{rate:.1%}", pyArg{kind: 'f', f: 0.256}, "25.6%"},
		{"{rate:+.1f}", pyArg{kind: 'f', f: 2.25}, "+2.2"},
		{"{rate:.3}", pyArg{kind: 'f', f: 100}, "1e+02"},
		{"{rate:*^9.1f}", pyArg{kind: 'f', f: 2.5}, "***2.5***"},
		{"{el:>7}", pyArg{kind: 's', s: "00:03"}, "  00:03"},
		{"{el:.2}", pyArg{kind: 's', s: "00:03"}, "00"},
		{"{{literal}} {el}", pyArg{kind: 's', s: "x"}, "{literal} x"},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			field := tt.format[strings.LastIndex(tt.format, "{")+1:]
			name := field[:strings.IndexAny(field, ":}")]
			got, err := pyFormat(tt.format, map[string]pyArg{name: tt.arg})
			if err != nil {
				t.Fatalf("pyFormat(%q): %v", tt.format, err)
			}
			if got != tt.want {
				t.Errorf("pyFormat(%q) = %q, want %q", tt.format, got, tt.want)
			}
		})
	}
}

func TestProgressLine(t *testing.T) {
	p := &Progress{Fmt: "Loading safetensors checkpoint shards: {pct:3d}% Completed | {i}/{n} [{el}<{eta}, {rate:.2f}it/s]", N: 8, To: 8, Dur: 4}
	tests := []struct {
		name string
		i    int
		el   float64
		want string
	}{
		{"start", 0, 0, "Loading safetensors checkpoint shards:   0% Completed | 0/8 [00:00<00:00, 0.00it/s]"},
		{"half", 4, 2.5, "Loading safetensors checkpoint shards:  50% Completed | 4/8 [00:02<00:02, 1.60it/s]"},
		{"slow", 1, 125, "Loading safetensors checkpoint shards:  12% Completed | 1/8 [02:05<14:35, 0.01it/s]"},
		{"past n", 10, 5, "Loading safetensors checkpoint shards: 125% Completed | 10/8 [00:05<-1:59, 2.00it/s]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ProgressLine(p, tt.i, tt.el)
			if err != nil || got != tt.want {
				t.Errorf("ProgressLine(%d, %v) = %q, %v; want %q", tt.i, tt.el, got, err, tt.want)
			}
		})
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	s, err := Parse([]byte(withTimeline(`[{"t":0,"err":["a","b"]},{"t":0,"out":"c"},{"t":0,"out":[]},
		{"t":0.1,"progress":{"fmt":"{i}","n":4,"to":2,"dur":1,"cr":true}},
		{"t":1,"health":503,"body":""},{"t":1,"gen":{"mode":"nan","tok_s":0}},{"t":1,"busy":0.5},
		{"t":2,"download":{"repo":"Qwen/Qwen3-8B","mb_s":2,"dur":1,"stop":true}},{"t":3,"hang":"busy"},
		{"t":3,"exit":137},{"t":3,"signal":"SIGSEGV"}]`)))
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	again, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(Marshal(s)): %v\n%s", err, data)
	}
	if !reflect.DeepEqual(s, again) {
		t.Errorf("round trip changed the scenario:\n got %+v\nwant %+v", again, s)
	}
}

// FuzzParse: Parse never panics, and what it accepts survives a round trip.
func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte(withTimeline(`[{"t":0,"progress":{"fmt":"{pct:3d}% {rate:.2f}","n":4,"dur":1}},{"t":1,"health":200}]`)))
	f.Add([]byte(`{"timeline":[{"t":1e308,"exit":1e308}],"expect":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal of a parsed scenario: %v", err)
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("Parse(Marshal(Parse(data))): %v", err)
		}
	})
}

func TestBuiltins(t *testing.T) {
	names := BuiltinNames()
	for _, want := range []string{"sglang-ready", "sglang-gpu-oom"} {
		if !slices.Contains(names, want) {
			t.Errorf("BuiltinNames() = %q, want it to have %q", names, want)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			s, data, err := Builtin(name)
			if err != nil {
				t.Fatalf("Builtin(%q): %v", name, err)
			}
			if s.ID != name {
				t.Errorf("id = %q, want the name %q", s.ID, name)
			}
			if len(data) == 0 {
				t.Errorf("Builtin(%q) gave no data", name)
			}
			if _, err := Open(BuiltinPrefix + name); err != nil {
				t.Errorf("Open(builtin:%s): %v", name, err)
			}
		})
	}
	for _, bad := range []string{"nope", "", "../builtin/sglang-ready", "builtin/sglang-ready"} {
		if _, _, err := Builtin(bad); err == nil {
			t.Errorf("Builtin(%q) error = nil, want one", bad)
		}
	}
}

// TestTestdataScenarios: every scenario of ours is valid, has the file's
// name as id, and each expected verdict is possible.
func TestTestdataScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/scenarios/*.json")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			s, err := Load(file)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if want := strings.TrimSuffix(filepath.Base(file), ".json"); s.ID != want {
				t.Errorf("id = %q, want the file's name %q", s.ID, want)
			}
			if s.Expect.DecidedBy != nil && s.Expect.NotBefore != nil && *s.Expect.NotBefore >= *s.Expect.DecidedBy {
				t.Errorf("not_before %v is not before decided_by %v", *s.Expect.NotBefore, *s.Expect.DecidedBy)
			}
		})
	}
}
