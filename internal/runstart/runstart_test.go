package runstart

import (
	"strings"
	"testing"
	"time"
)

func TestFind(t *testing.T) {
	loc := time.UTC
	procStart := time.Date(2026, 11, 29, 12, 0, 0, 0, loc)
	old := procStart.Add(-2 * time.Hour)
	sg := func(t time.Time, rank, msg string) string {
		p := "[" + t.Format("2006-01-02 15:04:05")
		if rank != "" {
			p += " " + rank
		}
		return p + "] " + msg
	}
	vl := func(t time.Time, msg string) string { return "INFO " + t.Format("01-02 15:04:05") + " [x.py:1] " + msg }
	staleSGLang := []string{
		sg(old, "", "server_args=ServerArgs(model_path='x')"),
		sg(old, "TP0", "Scheduler hit an exception: Traceback (most recent call last):"),
		"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
		sg(old, "", "Received sigquit from a child process. It usually means the child failed."),
	}
	tests := []struct {
		name     string
		kind     string
		lines    []string
		in       Input
		wantLine int // index of the first line of this run; len(lines) = nothing yet
	}{
		{
			name: "stamps: the stale run failed, this run began", kind: "sglang",
			lines:    append(append([]string(nil), staleSGLang...), sg(procStart.Add(time.Second), "", "server_args=ServerArgs(model_path='x')"), sg(procStart.Add(2*time.Second), "TP0", "Load weight begin.")),
			in:       Input{ProcStart: procStart, ModTime: procStart.Add(3 * time.Second)},
			wantLine: 4,
		},
		{
			name: "stamps: this run printed nothing yet", kind: "sglang",
			lines:    staleSGLang,
			in:       Input{ProcStart: procStart, ModTime: procStart.Add(time.Second)},
			wantLine: 4,
		},
		{
			name: "mtime: not written since the process started", kind: "llamacpp",
			lines:    []string{"main: loading model", "llama_model_load: error loading model: x", "main: exiting due to model loading error"},
			in:       Input{ProcStart: procStart, ModTime: old},
			wantLine: 3,
		},
		{
			name: "vllm stamps without a year, and the platform line before the banner", kind: "vllm",
			lines: []string{
				vl(old, "vLLM API server version 0.11.0"), vl(old, "Application startup complete."),
				"INFO " + procStart.Format("01-02 15:04:05") + " [__init__.py:216] Automatically detected platform cuda.",
				vl(procStart.Add(time.Second), "vLLM API server version 0.11.0"),
			},
			in:       Input{ProcStart: procStart, ModTime: procStart.Add(2 * time.Second)},
			wantLine: 2,
		},
		{
			name: "no process known: the last start banner", kind: "tgi",
			lines:    []string{"2026-11-29T10:00:00.000000Z  INFO text_generation_launcher: Args { model_id: \"a\" }", "Error: ShardCannotStart", "2026-11-29T11:00:00.000000Z  INFO text_generation_launcher: Args { model_id: \"a\" }", "2026-11-29T11:00:01.000000Z  INFO text_generation_launcher: Starting shard rank=0"},
			in:       Input{},
			wantLine: 2,
		},
		{
			name: "a fresh log is all this run's", kind: "sglang",
			lines:    []string{sg(procStart.Add(time.Second), "", "server_args=ServerArgs(model_path='x')")},
			in:       Input{ProcStart: procStart, ModTime: procStart.Add(time.Second)},
			wantLine: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Join(tt.lines, "\n") + "\n"
			in := tt.in
			in.Kind, in.Size, in.Loc = tt.kind, int64(len(text)), loc
			f, err := Find(strings.NewReader(text), in)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(0)
			for _, l := range tt.lines[:tt.wantLine] {
				want += int64(len(l)) + 1
			}
			if f.Offset != want {
				t.Fatalf("Offset = %d (%s), want %d (line %d)", f.Offset, f.How, want, tt.wantLine)
			}
			if f.Offset > 0 && f.StaleLines != tt.wantLine {
				t.Errorf("StaleLines = %d, want %d", f.StaleLines, tt.wantLine)
			}
		})
	}
}
