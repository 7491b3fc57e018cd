package monitor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vigil/internal/procfind"
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
			off, note := FindRunStart(procfind.FS{}, path, "sglang", 0)
			if want := int64(strings.LastIndex(text, "[2026-11-29 11")); off != want {
				t.Errorf("offset %d, want %d", off, want)
			}
			if note != tt.want {
				t.Errorf("note %q\nwant %q", note, tt.want)
			}
		})
	}
}
