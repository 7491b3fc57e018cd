package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"vigil/internal/learn"
	"vigil/internal/srvconfig"
)

// TestMain doubles as the child process of the multi-process tests: with
// VIGIL_HISTORY_CHILD set it records startups instead of running tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("VIGIL_HISTORY_CHILD"); mode != "" {
		os.Exit(child(mode, os.Getenv("VIGIL_HISTORY_DB")))
	}
	os.Exit(m.Run())
}

// child records startups: "record:N:TAG" records N, "loop" records until
// killed.
func child(mode, path string) int {
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	defer s.Close()
	ctx := context.Background()
	if mode == "loop" {
		// Big rows, so that a kill is likely to land in the middle of
		// writing pages.
		st := sample("loop", 1)
		st.Summary = strings.Repeat("x", 64<<10)
		for i := 0; ; i++ {
			if _, err := s.Record(ctx, st); err != nil {
				fmt.Fprintln(os.Stderr, "child:", err)
				return 1
			}
		}
	}
	var n int
	var tag string
	if _, err := fmt.Sscanf(mode, "record:%d:%s", &n, &tag); err != nil {
		fmt.Fprintln(os.Stderr, "child: bad mode", mode)
		return 2
	}
	for i := 0; i < n; i++ {
		if _, err := s.Record(ctx, sample(tag, i)); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			return 1
		}
	}
	return 0
}

func sample(model string, i int) Startup {
	return Startup{
		StartedAt: time.UnixMilli(1_780_000_000_000 + int64(i)*1000),
		Server:    "sglang", Version: "0.5.6", Model: model, Host: "gpu-01", GPUs: "1x NVIDIA H100 80GB HBM3",
		Config:       srvconfig.Config{{Key: "model_path", Value: model}, {Key: "tp_size", Value: "1"}},
		Fingerprint:  "fp1",
		Phases:       []learn.Phase{{Name: "launch", Seconds: 1}, {Name: "init", Seconds: 2}, {Name: "weights", Seconds: 10 + float64(i%3)}, {Name: "serving", Seconds: 0.5}},
		TotalSeconds: 13.5 + float64(i%3), Verdict: "ready", Phase: "ready",
		Summary: fmt.Sprintf("ready #%d", i), LogPath: "/tmp/server.log",
	}
}

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "vigil", "history.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func TestDefaultPath(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}, "/x/state/vigil/history.db"},
		{"relative XDG_STATE_HOME is ignored", map[string]string{"XDG_STATE_HOME": "state", "HOME": "/home/u"}, "/home/u/.local/state/vigil/history.db"},
		{"HOME", map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/vigil/history.db"},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultPath(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOpenMigratesOnce(t *testing.T) {
	s, path := openTemp(t)
	ctx := context.Background()
	var v int
	var mode string
	s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
	if v != schemaVersion || mode != "wal" {
		t.Errorf("user_version %d, journal_mode %q; want %d, wal", v, mode, schemaVersion)
	}
	if _, err := s.Record(ctx, sample("m", 0)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got, _ := s2.List(ctx, Filter{}); len(got) != 1 || len(s2.Warnings()) != 0 {
		t.Errorf("reopened: %d startups, warnings %v; want 1, none", len(got), s2.Warnings())
	}
}

func TestOpenNewerSchema(t *testing.T) {
	s, path := openTemp(t)
	s.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", schemaVersion+1))
	s.Close()
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("err = %v, want a newer-schema error", err)
	}
}

func TestRecordGetList(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	want := sample("Qwen/Qwen2.5-7B-Instruct", 0)
	want.Config = srvconfig.Config{{Key: "z_first", Value: "1"}, {Key: "a_second", Value: "it's \"quoted\""}}
	want.Verdict, want.Cause, want.Phase = "failed", "gpu_oom", "kv_cache"
	id, err := s.Record(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want.ID = id
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get =\n%+v\nwant\n%+v", got, want)
	}

	for i, m := range []string{"Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B", "Qwen/Qwen3-32B"} {
		st := sample(m, i+1)
		if _, err := s.Record(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		f    Filter
		want []string
	}{
		{"all, newest first", Filter{}, []string{"Qwen/Qwen3-32B", "meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B", "Qwen/Qwen2.5-7B-Instruct"}},
		{"model substring, any case", Filter{Model: "qwen3"}, []string{"Qwen/Qwen3-32B", "Qwen/Qwen3-8B"}},
		{"limit", Filter{Limit: 2}, []string{"Qwen/Qwen3-32B", "meta-llama/Llama-3.1-8B"}},
		{"server", Filter{Server: "vllm"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := s.List(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var models []string
			for _, st := range list {
				models = append(models, st.Model)
			}
			if !reflect.DeepEqual(models, tt.want) {
				t.Errorf("got %v, want %v", models, tt.want)
			}
		})
	}

	if _, err := s.Get(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(999) err = %v, want ErrNotFound", err)
	}
}

func TestAttachResults(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	id, _ := s.Record(ctx, sample("m", 0))
	if err := s.AttachResults(ctx, id, "smoke", map[string]any{"ok": true, "latency_ms": 41.5}); err != nil {
		t.Fatal(err)
	}
	if err := s.AttachResults(ctx, id, "bench", []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.AttachResults(ctx, id, "smoke", map[string]any{"ok": false}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Get(ctx, id)
	want := map[string]json.RawMessage{"smoke": json.RawMessage(`{"ok":false}`), "bench": json.RawMessage(`[1,2]`)}
	if !reflect.DeepEqual(got.Extra, want) {
		t.Errorf("Extra = %s, want %s", got.Extra, want)
	}
	if err := s.AttachResults(ctx, 999, "smoke", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: err = %v, want ErrNotFound", err)
	}
}

func TestCorruptFileIsMovedAside(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(t *testing.T, path string)
	}{
		{"not a database", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("this is not SQLite, it is a text file\n"), 0o600)
		}},
		{"damaged pages", func(t *testing.T, path string) {
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 100; i++ {
				st := sample("m", i)
				st.Summary = strings.Repeat("y", 2000)
				s.Record(context.Background(), st)
			}
			s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
			s.Close()
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			// Overwrite pages 2.. (page 1 holds the header and schema).
			junk := []byte(strings.Repeat("\xde\xad\xbe\xef", 4096))
			f.WriteAt(junk, 4096)
			f.Close()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "history.db")
			tt.corrupt(t, path)
			s, err := Open(path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], "moved it to") {
				t.Errorf("warnings = %q, want one about moving the file aside", w)
			}
			aside, _ := filepath.Glob(path + ".corrupt-*")
			if len(aside) == 0 {
				t.Errorf("no %s.corrupt-* file", path)
			}
			if _, err := s.Record(context.Background(), sample("m", 0)); err != nil {
				t.Errorf("Record on the fresh database: %v", err)
			}
		})
	}
}

func TestLockedDatabase(t *testing.T) {
	old := busyTimeout
	busyTimeout = 200 * time.Millisecond
	t.Cleanup(func() { busyTimeout = old })

	s, path := openTemp(t)
	ctx := context.Background()
	// Another "process" holds the write lock.
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")

	start := time.Now()
	_, err = s.Record(ctx, sample("m", 0))
	if !errors.Is(err, ErrLocked) {
		t.Errorf("Record err = %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Record waited %v, want about the busy timeout", d)
	}
	// Readers are not blocked by a writer in WAL mode.
	if _, err := s.List(ctx, Filter{}); err != nil {
		t.Errorf("List while locked: %v", err)
	}
}
