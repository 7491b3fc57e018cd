package journal

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    Entry
		wantErr bool
	}{
		{
			name: "strings",
			line: `{"__CURSOR":"s=1;i=2","__REALTIME_TIMESTAMP":"1763000000123456","MESSAGE":"hello","_PID":"42","PRIORITY":"6","_COMM":"python3","_SYSTEMD_INVOCATION_ID":"abc"}`,
			want: Entry{Message: "hello", PID: 42, Priority: 6, Comm: "python3", InvocationID: "abc", Cursor: "s=1;i=2", Time: time.UnixMicro(1763000000123456)},
		},
		{
			name: "byte array with invalid UTF-8",
			line: `{"MESSAGE":[98,97,100,32,255,254,0,10,13]}`,
			want: Entry{Message: "bad \xff\xfe\x00\n\r", Priority: -1},
		},
		{
			name: "byte array with spaces",
			line: `{"MESSAGE":[ 104, 105 ]}`,
			want: Entry{Message: "hi", Priority: -1},
		},
		{
			name: "null message",
			line: `{"MESSAGE":null,"_PID":"7"}`,
			want: Entry{Message: TooLong, PID: 7, Priority: -1},
		},
		{
			name: "several values",
			line: `{"MESSAGE":["first","second"]}`,
			want: Entry{Message: "first", Priority: -1},
		},
		{
			name: "several byte-array values",
			line: `{"MESSAGE":[[255,1],[2]]}`,
			want: Entry{Message: "\xff\x01", Priority: -1},
		},
		{
			name: "empty array",
			line: `{"MESSAGE":[]}`,
			want: Entry{Priority: -1},
		},
		{
			name: "bare numbers",
			line: `{"MESSAGE":"m","_PID":42,"PRIORITY":3}`,
			want: Entry{Message: "m", PID: 42, Priority: 3},
		},
		{
			name: "systemd's own message",
			line: `{"MESSAGE":"x.service: Main process exited, code=killed, status=9/KILL","_PID":"1","_COMM":"systemd","INVOCATION_ID":"def"}`,
			want: Entry{Message: "x.service: Main process exited, code=killed, status=9/KILL", PID: 1, Comm: "systemd", InvocationID: "def", Priority: -1},
		},
		{
			name: "line break",
			line: `{"MESSAGE":"aaa","_LINE_BREAK":"line-max"}`,
			want: Entry{Message: "aaa", LineBreak: "line-max", Priority: -1},
		},
		{name: "not JSON", line: `-- No entries --`, wantErr: true},
		{name: "bad PID", line: `{"MESSAGE":"m","_PID":"x"}`, wantErr: true},
		{name: "bad timestamp", line: `{"MESSAGE":"m","__REALTIME_TIMESTAMP":"soon"}`, wantErr: true},
		{name: "byte out of range", line: `{"MESSAGE":[256]}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.line))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("got entry %+v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if !got.Time.Equal(tt.want.Time) {
				t.Errorf("got time %v, want %v", got.Time, tt.want.Time)
			}
			got.Time, tt.want.Time = time.Time{}, time.Time{}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// recorded returns the entries of testdata/sglang.json.
func recorded(t *testing.T, opts Options) []Entry {
	t.Helper()
	f, err := os.Open("testdata/sglang.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []Entry
	opts.Warn = func(err error) { t.Errorf("got warning %v, want none", err) }
	if err := ReadEntries(f, opts, func(e Entry) { got = append(got, e) }); err != nil {
		t.Fatal(err)
	}
	return got
}

const (
	oldRun     = "5d2a4e3b1c0f4a8e9d7c6b5a4f3e2d1c"
	currentRun = "9b8a7c6d5e4f40312a1b2c3d4e5f6a7b"
)

// currentMessages are the messages of the current activation in
// testdata/sglang.json, the split config line joined.
func currentMessages() []string {
	config := ("[2026-11-12 10:00:09] model config: {" + strings.Repeat(`"layer": 1, `, 5000))[:LineMax] + `"layer": 1}  (end of config)`
	return []string{
		"Started sglang.service - SGLang server.",
		"[2026-11-12 10:00:01] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B-Instruct', tp_size=1)",
		"Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]\r" +
			"Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:03<00:03,  1.52s/it]\r" +
			"Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:06<00:00,  1.49s/it]\r",
		"tokenizer warning: bad bytes \xff\xfe in vocab",
		TooLong,
		config,
		"\x1b[32mINFO\x1b[0m Capture cuda graph begin.",
		"Capture cuda graph end. Time elapsed: 4.21 s. mem usage=1.07 GB.",
		"The server is fired up and ready to roll!",
	}
}

func messages(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Message)
	}
	return out
}

func TestReadEntriesRecorded(t *testing.T) {
	t.Run("current activation", func(t *testing.T) {
		got := recorded(t, Options{InvocationID: currentRun})
		if want := currentMessages(); !slices.Equal(messages(got), want) {
			t.Fatalf("got messages %q, want %q", abbrev(messages(got)), abbrev(want))
		}
		for _, e := range got {
			if e.InvocationID != currentRun {
				t.Errorf("got invocation %q in %q, want %q", e.InvocationID, abbrev([]string{e.Message}), currentRun)
			}
			if e.Continued {
				t.Errorf("got Continued on %q, want false", abbrev([]string{e.Message}))
			}
		}
		joined := got[5]
		if joined.PID != 2000 || joined.Time != time.UnixMicro(1763000000009000) || !strings.Contains(joined.Cursor, "i=100a") {
			t.Errorf("got joined entry PID %d, time %v, cursor %q; want 2000, the first part's time, the last part's cursor",
				joined.PID, joined.Time.UnixMicro(), joined.Cursor)
		}
	})
	t.Run("all activations", func(t *testing.T) {
		got := recorded(t, Options{})
		if len(got) != 12 {
			t.Fatalf("got %d entries, want 12", len(got))
		}
		if got[0].InvocationID != oldRun || got[2].PID != 1 || got[2].InvocationID != oldRun {
			t.Errorf("got first entries %+v, want the old activation's", got[:3])
		}
	})
}

func abbrev(s []string) []string {
	var out []string
	for _, m := range s {
		if len(m) > 80 {
			m = m[:40] + "..." + m[len(m)-30:]
		}
		out = append(out, m)
	}
	return out
}

func TestJoin(t *testing.T) {
	long := strings.Repeat("a", LineMax)
	tests := []struct {
		name string
		in   []Entry
		want []Entry
	}{
		{
			name: "split pair",
			in:   []Entry{{Message: long, PID: 1}, {Message: "tail", PID: 1}},
			want: []Entry{{Message: long + "tail", PID: 1}},
		},
		{
			name: "three parts",
			in:   []Entry{{Message: long, PID: 1}, {Message: long, PID: 1}, {Message: "end", PID: 1}},
			want: []Entry{{Message: long + long + "end", PID: 1}},
		},
		{
			name: "line-max marked by journald",
			in:   []Entry{{Message: "short", PID: 1, LineBreak: "line-max"}, {Message: "+rest", PID: 1}},
			want: []Entry{{Message: "short+rest", PID: 1}},
		},
		{
			name: "exactly LineMax but ended by EOF",
			in:   []Entry{{Message: long, PID: 1, LineBreak: "eof"}, {Message: "next", PID: 1}},
			want: []Entry{{Message: long, PID: 1, LineBreak: "eof"}, {Message: "next", PID: 1}},
		},
		{
			name: "another PID in between",
			in:   []Entry{{Message: long, PID: 1}, {Message: "other", PID: 2}},
			want: []Entry{{Message: long, PID: 1}, {Message: "other", PID: 2}},
		},
		{
			name: "ordinary lines",
			in:   []Entry{{Message: "a", PID: 1}, {Message: "b", PID: 1}},
			want: []Entry{{Message: "a", PID: 1}, {Message: "b", PID: 1}},
		},
		{
			name: "last entry held",
			in:   []Entry{{Message: long, PID: 1}},
			want: []Entry{{Message: long, PID: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Entry
			j := joiner{lineMax: LineMax, emit: func(e Entry) { got = append(got, e) }}
			for _, e := range tt.in {
				j.add(e)
			}
			j.flush(false)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", abbrevEntries(got), abbrevEntries(tt.want))
			}
		})
	}
}

func TestJoinBounded(t *testing.T) {
	// A 10 MB line, split by journald into LineMax parts, comes out in
	// pieces of at most MaxMessage bytes, every byte kept.
	part := strings.Repeat("x", LineMax)
	const parts = 10 << 20 / LineMax
	var got []Entry
	j := joiner{lineMax: LineMax, emit: func(e Entry) { got = append(got, e) }}
	for range parts {
		j.add(Entry{Message: part, PID: 9})
	}
	j.add(Entry{Message: "end", PID: 9})
	j.flush(false)
	total := 0
	for i, e := range got {
		if len(e.Message) > MaxMessage {
			t.Errorf("got a piece of %d bytes, want at most %d", len(e.Message), MaxMessage)
		}
		if want := i < len(got)-1; e.Continued != want {
			t.Errorf("got Continued %v on piece %d of %d, want %v", e.Continued, i, len(got), want)
		}
		total += len(e.Message)
	}
	if want := parts*LineMax + 3; total != want {
		t.Errorf("got %d bytes in all, want %d", total, want)
	}
}

func abbrevEntries(es []Entry) []string {
	var out []string
	for _, e := range es {
		s := abbrev([]string{e.Message})[0]
		if e.Continued {
			s += " (continued)"
		}
		out = append(out, fmt.Sprintf("pid %d: %s", e.PID, s))
	}
	return out
}
