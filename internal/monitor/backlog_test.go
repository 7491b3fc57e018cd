package monitor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vigil/internal/logline"
)

// A log's stamped lines, read at attach, keep their spacing; the last one
// falls on the moment of attaching, whatever zone the stamps are in.
func TestBacklogTimesLinesByTheirStamps(t *testing.T) {
	lines := []string{
		"[2026-11-29 10:00:00] server_args=ServerArgs(model_path='x')",
		"[2026-11-29 10:00:02 TP0] Load weight begin. avail mem=70 GB",
		"  a continuation line without a stamp",
		"[2026-11-29 10:00:01 TP0] a stamp that goes back",
		"[2026-11-29 10:00:12 TP0] Load weight end. type=Qwen2",
	}
	path := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	attach := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	b := ReadBacklog(path, 0, attach)
	if b == nil {
		t.Fatal("got no backlog")
	}
	if got, want := b.Start(), attach.Add(-12*time.Second); !got.Equal(want) {
		t.Errorf("start %v, want %v", got, want)
	}
	later := attach.Add(3 * time.Second)
	want := []time.Duration{-12 * time.Second, -10 * time.Second, -10 * time.Second, -10 * time.Second, 0}
	var off int64
	for i, text := range lines {
		got := b.At(logline.Line{Text: text, Offset: off}, later)
		if d := got.Sub(attach); d != want[i] {
			t.Errorf("line %d at %v from the attach, want %v", i+1, d, want[i])
		}
		off += int64(len(text)) + 1
	}
	// A line written after the attach is judged when it is read.
	if got := b.At(logline.Line{Text: "[2026-11-29 10:00:13 TP0] KV Cache is allocated.", Offset: off}, later); !got.Equal(later) {
		t.Errorf("a new line at %v, want %v", got, later)
	}
}

func TestNoBacklog(t *testing.T) {
	dir := t.TempDir()
	unstamped := filepath.Join(dir, "plain.log")
	if err := os.WriteFile(unstamped, []byte("main: server is listening on http://127.0.0.1:8080\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for name, b := range map[string]*Backlog{
		"missing file":  ReadBacklog(filepath.Join(dir, "none.log"), 0, now),
		"no stamps":     ReadBacklog(unstamped, 0, now),
		"offset at end": ReadBacklog(unstamped, 52, now),
		"a directory":   ReadBacklog(dir, 0, now),
	} {
		if b != nil {
			t.Errorf("%s: got a backlog %+v", name, b)
		}
		// A nil Backlog times every line when it is read.
		if got := b.At(logline.Line{Text: "[2026-11-29 10:00:00] x"}, now); !got.Equal(now) || !b.Start().IsZero() {
			t.Errorf("%s: nil backlog gives %v, start %v", name, got, b.Start())
		}
	}
}
