package statedir

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
		err  error
	}{
		{"xdg first", map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/vigil", nil},
		{"home", map[string]string{"HOME": "/h"}, "/h/.local/state/vigil", nil},
		{"relative xdg is ignored", map[string]string{"XDG_STATE_HOME": "rel", "HOME": "/h"}, "/h/.local/state/vigil", nil},
		{"nothing set: no state, not the current directory", map[string]string{}, "", ErrNoStateDir},
		{"relative home", map[string]string{"HOME": "."}, "", ErrNoStateDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Dir(env(tt.env))
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("Dir = %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestEnsure(t *testing.T) {
	root := t.TempDir()
	t.Run("creates 0700", func(t *testing.T) {
		d := filepath.Join(root, "a", "vigil")
		if err := Ensure(d); err != nil {
			t.Fatal(err)
		}
		if m := mode(t, d).Perm(); m != 0o700 {
			t.Errorf("mode %04o, want 0700", m)
		}
	})
	t.Run("tightens a readable one of ours", func(t *testing.T) {
		d := filepath.Join(root, "readable")
		os.Mkdir(d, 0o755)
		os.Chmod(d, 0o755)
		if err := Ensure(d); err != nil {
			t.Fatal(err)
		}
		if m := mode(t, d).Perm(); m != 0o700 {
			t.Errorf("mode %04o, want 0700", m)
		}
	})
	t.Run("refuses one writable by others", func(t *testing.T) {
		d := filepath.Join(root, "open")
		os.Mkdir(d, 0o777)
		os.Chmod(d, 0o777)
		err := Ensure(d)
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "writable by other users") {
			t.Errorf("err = %v, want writable by other users", err)
		}
	})
	t.Run("refuses a link", func(t *testing.T) {
		target := filepath.Join(root, "target")
		os.Mkdir(target, 0o700)
		link := filepath.Join(root, "link")
		os.Symlink(target, link)
		if err := Ensure(link); !errors.Is(err, ErrUnsafe) {
			t.Errorf("err = %v, want ErrUnsafe", err)
		}
	})
	t.Run("refuses one owned by another uid", func(t *testing.T) {
		d := otherUsersDir(t, root)
		err := Ensure(d)
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "belongs to uid") {
			t.Errorf("err = %v, want belongs to another uid", err)
		}
	})
}

// otherUsersDir returns a 0700 directory owned by a uid other than ours:
// made with chown when running as root, else an existing root-owned one.
func otherUsersDir(t *testing.T, root string) string {
	t.Helper()
	if os.Geteuid() == 0 {
		d := filepath.Join(root, "nobody")
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, 65534, 65534); err != nil {
			t.Skipf("cannot chown to another uid here: %v", err)
		}
		return d
	}
	var st syscall.Stat_t
	if err := syscall.Stat("/", &st); err != nil || int(st.Uid) == os.Geteuid() {
		t.Skip("no directory owned by another uid to test with")
	}
	return "/"
}

func TestCreateFile(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 1, 21, 0, 0, 0, time.UTC)
	a, err := CreateFile(dir, "vllm", ".log", now)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := CreateFile(dir, "vllm", ".log", now)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.Name() == b.Name() {
		t.Errorf("two files at the same second share the name %s", a.Name())
	}
	if !strings.HasPrefix(filepath.Base(a.Name()), "vllm-20261201-210000-") || !strings.HasSuffix(a.Name(), ".log") {
		t.Errorf("name %s", a.Name())
	}
	if m := mode(t, a.Name()).Perm(); m != 0o600 {
		t.Errorf("mode %04o, want 0600", m)
	}
}

func TestOpenAppend(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "victim")
	os.WriteFile(secret, []byte("keep\n"), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "planted.log")
	os.Symlink(secret, link)
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	tests := []struct {
		name, path string
		err        error
		says       string
	}{
		{"new file", filepath.Join(dir, "new.log"), nil, ""},
		{"planted link", link, ErrUnsafe, "symbolic link"},
		{"fifo without a reader fails at once", fifo, ErrNotRegular, "a FIFO"},
		{"socket", sock, ErrNotRegular, "a socket"},
		{"device", "/dev/null", ErrNotRegular, "a device"},
		{"directory", dir, ErrNotRegular, "a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := OpenAppend(tt.path)
			if tt.err == nil {
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if _, err := f.WriteString("x\n"); err != nil {
					t.Fatal(err)
				}
				if m := mode(t, tt.path).Perm(); m != 0o600 {
					t.Errorf("mode %04o, want 0600", m)
				}
				return
			}
			if f != nil {
				f.Close()
			}
			if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("err = %v, want %v saying %q", err, tt.err, tt.says)
			}
		})
	}
	if b, _ := os.ReadFile(secret); string(b) != "keep\n" {
		t.Errorf("the link's target was written: %q", b)
	}
}

func TestOpenRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRead(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("FIFO: err = %v, want ErrNotRegular", err)
	}
	if err := CheckLog(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("CheckLog(FIFO) = %v", err)
	}
	if err := CheckLog(filepath.Join(dir, "later.log")); err != nil {
		t.Errorf("CheckLog(missing) = %v, want nil", err)
	}
	log := filepath.Join(dir, "server.log")
	os.WriteFile(log, []byte("line\n"), 0o600)
	link := filepath.Join(dir, "link.log")
	os.Symlink(log, link)
	f, err := OpenRead(link)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 16)
	if n, _ := f.Read(b); string(b[:n]) != "line\n" {
		t.Errorf("read %q", b[:n])
	}
}

func TestNewLog(t *testing.T) {
	xdg := t.TempDir()
	f, err := NewLog(env(map[string]string{"XDG_STATE_HOME": xdg}), "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if dir := filepath.Dir(f.Name()); dir != filepath.Join(xdg, "vigil", "logs") {
		t.Errorf("log in %s", dir)
	}
	if !strings.HasPrefix(filepath.Base(f.Name()), "server-") {
		t.Errorf("name %s", f.Name())
	}
	for _, d := range []string{filepath.Join(xdg, "vigil"), filepath.Join(xdg, "vigil", "logs")} {
		if m := mode(t, d).Perm(); m != 0o700 {
			t.Errorf("%s: mode %04o, want 0700", d, m)
		}
	}
	if _, err := NewLog(env(nil), "vllm", time.Now()); !errors.Is(err, ErrNoStateDir) {
		t.Errorf("without HOME: %v, want ErrNoStateDir", err)
	}
}
