package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"vigil/internal/srvconfig"
	"vigil/internal/statedir"
)

// The database and its WAL files are 0600 in a 0700 directory: the stored
// configuration comes from a log that prints the server's arguments.
func TestDatabaseFilesArePrivate(t *testing.T) {
	s, path := openTemp(t)
	if _, err := s.Record(context.Background(), sample("m", 0)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", filepath.Base(p), m)
		}
	}
	fi, _ := os.Stat(filepath.Dir(path))
	if m := fi.Mode().Perm(); m != 0o700 {
		t.Errorf("directory mode %04o, want 0700", m)
	}
}

func TestOpenRefusesALinkedDatabase(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	os.WriteFile(target, nil, 0o600)
	link := filepath.Join(dir, "history.db")
	os.Symlink(target, link)
	if _, err := Open(link); !errors.Is(err, statedir.ErrUnsafe) {
		t.Errorf("Open(link) = %v, want ErrUnsafe", err)
	}
}

func TestOpenDefault(t *testing.T) {
	t.Run("no HOME, no XDG_STATE_HOME: no history, not the current directory", func(t *testing.T) {
		_, err := OpenDefault(func(string) string { return "" })
		if !errors.Is(err, statedir.ErrNoStateDir) {
			t.Errorf("err = %v, want ErrNoStateDir", err)
		}
	})
	t.Run("a state directory writable by others is refused", func(t *testing.T) {
		xdg := t.TempDir()
		os.Mkdir(filepath.Join(xdg, "vigil"), 0o777)
		os.Chmod(filepath.Join(xdg, "vigil"), 0o777)
		_, err := OpenDefault(func(k string) string { return map[string]string{"XDG_STATE_HOME": xdg}[k] })
		if !errors.Is(err, statedir.ErrUnsafe) {
			t.Errorf("err = %v, want ErrUnsafe", err)
		}
	})
	t.Run("opens under XDG_STATE_HOME", func(t *testing.T) {
		xdg := t.TempDir()
		s, err := OpenDefault(func(k string) string { return map[string]string{"XDG_STATE_HOME": xdg}[k] })
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if want := filepath.Join(xdg, "vigil", "history.db"); s.Path() != want {
			t.Errorf("path %s, want %s", s.Path(), want)
		}
	})
}

// A key in the configuration, the summary or attached results never
// reaches the database file.
func TestRecordRedactsSecrets(t *testing.T) {
	const key = "sk-planted-9f8e7d6c5b4a"
	s, path := openTemp(t)
	ctx := context.Background()
	st := sample("m", 0)
	st.Config = append(st.Config, srvconfig.KV{Key: "api_key", Value: "'" + key + "'"},
		srvconfig.KV{Key: "hf_token", Value: "None"})
	st.Summary = "failed: HTTP 401 Incorrect API key " + key
	st.Extra = map[string]json.RawMessage{"smoke": json.RawMessage(`{"reason":"Bearer ` + key + `","n":12345678901234567}`)}
	id, err := s.Record(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AttachResults(ctx, id, "bench", map[string]any{"url": "http://u:" + key + "@h/", "api_key": key}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := got.Config.Get("api_key"); v != "***" {
		t.Errorf("api_key stored as %q", v)
	}
	if v, _ := got.Config.Get("hf_token"); v != "None" {
		t.Errorf("hf_token None stored as %q, want None kept", v)
	}
	if !bytes.Contains(got.Extra["smoke"], []byte("12345678901234567")) {
		t.Errorf("a number was changed: %s", got.Extra["smoke"])
	}
	s.Close()
	for _, p := range []string{path, path + "-wal"} {
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(key)) || bytes.Contains(b, []byte(key[3:])) {
			t.Errorf("%s holds the key", filepath.Base(p))
		}
	}
}
