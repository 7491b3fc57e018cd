package monitor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFindRunStartSaysHowTheEarlierRunEnded(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{
			name: "failed", lines: []string{
				"[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')",
				"[2026-11-29 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):",
				"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
				"[2026-11-29 10:00:02] Received sigquit from a child process. It usually means the child failed.",
				"[2026-11-29 11:00:00] server_args=ServerArgs(model_path='x')",
			},
			want: "ignored 4 lines from an earlier run that ended 10:00:02 with gpu_oom (start banner)",
		},
		{
			name: "ready", lines: []string{
				"[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')",
				"[2026-11-29 10:00:09] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
				"[2026-11-29 10:00:09] The server is fired up and ready to roll!",
				"[2026-11-29 11:00:00] server_args=ServerArgs(model_path='x')",
			},
			want: "ignored 3 lines from an earlier run that ended 10:00:09 ready (start banner)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "server.log")
			text := strings.Join(tt.lines, "\n") + "\n"
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			off, note := FindRunStart(path, "sglang", time.Time{})
			if want := int64(strings.LastIndex(text, "[2026-11-29 11")); off != want {
				t.Errorf("offset %d, want %d", off, want)
			}
			if note != tt.want {
				t.Errorf("note %q\nwant %q", note, tt.want)
			}
		})
	}
}

// The writer's start time picks the current run among those explain finds.
func TestFindRunStartByStartTime(t *testing.T) {
	loc := time.Local
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
		name      string
		kind      string
		lines     []string
		procStart time.Time
		modTime   time.Time
		wantLine  int // index of the first line of this run; len(lines) = nothing yet
		wantNote  string
	}{
		{
			name: "stamps: the stale run failed, this run began", kind: "sglang",
			lines:     append(append([]string(nil), staleSGLang...), sg(procStart.Add(time.Second), "", "server_args=ServerArgs(model_path='x')"), sg(procStart.Add(2*time.Second), "TP0", "Load weight begin.")),
			procStart: procStart, modTime: procStart.Add(3 * time.Second),
			wantLine: 4, wantNote: "ignored 4 lines from an earlier run that ended 10:00:00 with gpu_oom (process start time and start banner)",
		},
		{
			name: "stamps: this run printed nothing yet", kind: "sglang",
			lines:     staleSGLang,
			procStart: procStart, modTime: procStart.Add(time.Second),
			wantLine: 4, wantNote: "ignored 4 lines from an earlier run that ended 10:00:00 with gpu_oom (process start time)",
		},
		{
			name: "mtime: not written since the process started", kind: "llamacpp",
			lines:     []string{"main: loading model", "llama_model_load: error loading model: x", "main: exiting due to model loading error"},
			procStart: procStart, modTime: old,
			wantLine: 3, wantNote: "ignored 3 lines from an earlier run with model_load (the log was last written before the process started)",
		},
		{
			// llama-server's first lines come within milliseconds of its
			// start, before the slack ends: its own clock says they are
			// this process's.
			name: "llama.cpp's clock: this run wrote within the slack", kind: "llamacpp",
			lines: []string{
				"0.00.011.447 E gguf_init_from_file: failed to open GGUF file 'missing.gguf' (No such file or directory)",
				"0.00.149.786 E srv  llama_server: exiting due to model loading error",
				"0.00.000.521 I build_info: b10587-3f545bec",
				"0.00.011.101 I srv    load_model: loading model 'tiny.gguf'",
			},
			procStart: procStart, modTime: procStart.Add(15 * time.Millisecond),
			wantLine: 2, wantNote: "ignored 2 lines from an earlier run with model_load (process start time against the run's own clock)",
		},
		{
			// The earlier run's clock ran 2.5 s: it started long before.
			name: "llama.cpp's clock: an earlier run written just before", kind: "llamacpp",
			lines: []string{
				"0.00.000.521 I build_info: b10587-3f545bec",
				"0.02.500.101 I srv    load_model: loading model 'big.gguf'",
				"0.02.500.835 E srv  llama_server: exiting due to model loading error",
			},
			procStart: procStart, modTime: procStart.Add(-10 * time.Millisecond),
			wantLine: 3, wantNote: "ignored 3 lines from an earlier run with model_load (the log was last written before the process started)",
		},
		{
			name: "vllm stamps without a year, and the platform line before the banner", kind: "vllm",
			lines: []string{
				vl(old, "vLLM API server version 0.11.0"), vl(old, "Application startup complete."),
				"INFO " + procStart.Format("01-02 15:04:05") + " [__init__.py:216] Automatically detected platform cuda.",
				vl(procStart.Add(time.Second), "vLLM API server version 0.11.0"),
			},
			procStart: procStart, modTime: procStart.Add(2 * time.Second),
			wantLine: 2,
		},
		{
			name: "no process known: the last start banner", kind: "tgi",
			lines:    []string{"2026-11-29T10:00:00.000000Z  INFO text_generation_launcher: Args { model_id: \"a\" }", "Error: ShardCannotStart", "2026-11-29T11:00:00.000000Z  INFO text_generation_launcher: Args { model_id: \"a\" }", "2026-11-29T11:00:01.000000Z  INFO text_generation_launcher: Starting shard rank=0"},
			wantLine: 2,
		},
		{
			name: "an older run runs into this one without a banner", kind: "sglang",
			lines:     []string{sg(old, "", "server_args=ServerArgs(model_path='x')"), sg(old, "TP0", "Load weight begin."), sg(procStart.Add(time.Second), "TP0", "Load weight begin.")},
			procStart: procStart, modTime: procStart.Add(2 * time.Second),
			wantLine: 2, wantNote: "ignored 2 lines from an earlier run that ended 10:00:00 in phase weights (process start time)",
		},
		{
			name: "a fresh log is all this run's", kind: "sglang",
			lines:     []string{sg(procStart.Add(time.Second), "", "server_args=ServerArgs(model_path='x')")},
			procStart: procStart, modTime: procStart.Add(time.Second),
			wantLine: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "server.log")
			text := strings.Join(tt.lines, "\n") + "\n"
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			if !tt.modTime.IsZero() {
				if err := os.Chtimes(path, tt.modTime, tt.modTime); err != nil {
					t.Fatal(err)
				}
			}
			off, note := FindRunStart(path, tt.kind, tt.procStart)
			want := int64(0)
			for _, l := range tt.lines[:tt.wantLine] {
				want += int64(len(l)) + 1
			}
			if off != want {
				t.Errorf("offset %d (%s), want %d (line %d)", off, note, want, tt.wantLine)
			}
			if tt.wantNote != "" && note != tt.wantNote {
				t.Errorf("note %q\nwant %q", note, tt.wantNote)
			}
		})
	}
}
