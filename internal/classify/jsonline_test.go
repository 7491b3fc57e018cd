package classify

import (
	"slices"
	"testing"
)

func TestSplitJSONRecord(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string // nil: not split
	}{
		{"a text line", `2026-01-08T10:00:08.000000Z ERROR text_generation_launcher: Error when initializing model`, nil},
		{"a one-line record", `{"timestamp":"2026-01-08T10:00:08.000000Z","level":"INFO","fields":{"message":"Starting shard"},"target":"text_generation_launcher"}`, nil},
		{"a record with a trailing newline only", `{"timestamp":"2026-01-08T10:00:08.000000Z","level":"INFO","fields":{"message":"Starting shard\n"}}`, nil},
		{"not JSON, an escaped newline in text", `INFO a line that says \n in it`, nil},
		// server/text_generation_server/server.py logger.exception, as
		// the launcher re-emits it under --json-output.
		{"a shard's traceback in one record",
			`{"timestamp":"2026-01-08T10:00:08.000000Z","level":"ERROR","fields":{"message":"Error when initializing model\nTraceback (most recent call last):\n  File \"/usr/src/server/text_generation_server/utils/weights.py\", line 1, in get_tensor\nRuntimeError: weight w does not exist\n"},"target":"text_generation_launcher","span":{"rank":0,"name":"shard-manager"}}`,
			[]string{
				`{"timestamp":"2026-01-08T10:00:08.000000Z","level":"error","fields":{"message":"Error when initializing model"},"span":{"rank":0}}`,
				`{"timestamp":"2026-01-08T10:00:08.000000Z","level":"error","fields":{"message":"Traceback (most recent call last):"},"span":{"rank":0}}`,
				`{"timestamp":"2026-01-08T10:00:08.000000Z","level":"error","fields":{"message":"  File \"/usr/src/server/text_generation_server/utils/weights.py\", line 1, in get_tensor"},"span":{"rank":0}}`,
				`{"timestamp":"2026-01-08T10:00:08.000000Z","level":"error","fields":{"message":"RuntimeError: weight w does not exist"},"span":{"rank":0}}`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SplitJSONRecord(tt.line)
			if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
				t.Fatalf("got %v %q, want %q", ok, got, tt.want)
			}
			for _, r := range got {
				msg, level, stamp, source, ok := CutJSON(r)
				if !ok || level != "error" || stamp == "" || source != "rank 0" || msg == "" {
					t.Errorf("part %s reads as %q %q %q %q %v", r, msg, level, stamp, source, ok)
				}
			}
		})
	}
}
