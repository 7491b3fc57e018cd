// Package statedir keeps vigil's files safe on a shared host: the state
// directory is 0700 and must belong to the user running vigil, new files
// are 0600, created exclusively under an unpredictable name without
// following links, and a log path that is a FIFO, socket or device is
// refused before anything blocks on it.
//
// A server prints its own arguments (keys included) into its log, and a
// planted symbolic link in a directory another user can write would make a
// root vigil append the server's output to any file: hence all of this.
package statedir

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrNoStateDir: neither XDG_STATE_HOME nor HOME names an absolute
// directory. vigil then keeps no state rather than writing under the
// current directory.
var ErrNoStateDir = errors.New("no state directory: set HOME or XDG_STATE_HOME to an absolute path")

// ErrUnsafe is wrapped by every refusal of a directory or file that
// another user could control.
var ErrUnsafe = errors.New("unsafe")

// ErrNotRegular is wrapped when a log path is a FIFO, socket, device or
// directory.
var ErrNotRegular = errors.New("not a regular file")

// Dir returns vigil's state directory: $XDG_STATE_HOME/vigil, else
// $HOME/.local/state/vigil. Relative values are ignored (the XDG spec says
// so, and a relative HOME would put state under the current directory).
func Dir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "vigil"), nil
	}
	if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "vigil"), nil
	}
	return "", ErrNoStateDir
}

// Ensure creates dir (and missing parents) with mode 0700 and checks that
// it is safe to keep files in: a real directory (not a link), owned by the
// effective user, writable by nobody else. A directory of ours that others
// may read (0755 from an older vigil) is tightened to 0700.
func Ensure(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state directory %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("state directory %s is a symbolic link: %w", dir, ErrUnsafe)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state directory %s is not a directory: %w", dir, ErrUnsafe)
	}
	if err := checkOwner(dir, fi); err != nil {
		return err
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("state directory %s is writable by other users (mode %04o); run chmod 700 %s: %w",
			dir, fi.Mode().Perm(), dir, ErrUnsafe)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("state directory %s: %w", dir, err)
		}
	}
	return nil
}

func checkOwner(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("%s belongs to uid %d, not to uid %d running vigil: %w", path, st.Uid, uid, ErrUnsafe)
	}
	return nil
}

// Sub returns the checked subdirectory name of the state directory,
// creating both: Sub(getenv, "logs").
func Sub(getenv func(string) string, name string) (string, error) {
	base, err := Dir(getenv)
	if err != nil {
		return "", err
	}
	if err := Ensure(base); err != nil {
		return "", err
	}
	dir := filepath.Join(base, name)
	if err := Ensure(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// CreateFile creates a new file in dir named prefix-YYYYMMDD-HHMMSS-<random>suffix,
// mode 0600, exclusively and without following a link: nobody can guess
// the name ahead or make vigil write through a planted one.
func CreateFile(dir, prefix, suffix string, now time.Time) (*os.File, error) {
	for range 10 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, fmt.Sprintf("%s-%s-%s%s", prefix, now.Format("20060102-150405"), hex.EncodeToString(b[:]), suffix))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		// The umask may have taken bits away, never added: 0600 stands.
		return f, nil
	}
	return nil, fmt.Errorf("%s: could not create a new file", dir)
}

// OpenAppend opens a log path the user named for appending, creating it
// 0600. A symbolic link, FIFO, socket, device or directory is refused at
// once: open(2) on a FIFO without a reader would block forever.
func OpenAppend(path string) (*os.File, error) {
	if err := checkKind(path, true); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link; give the file it points to: %w", path, ErrUnsafe)
		}
		return nil, err
	}
	if err := regularAfterOpen(f, path); err != nil {
		return nil, err
	}
	return f, nil
}

// OpenRead opens a log for reading (watch --log, explain) and refuses a
// FIFO, socket, device or directory at once instead of blocking in open(2).
// Links are followed: reading through one harms nothing.
func OpenRead(path string) (*os.File, error) {
	if err := checkKind(path, false); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := regularAfterOpen(f, path); err != nil {
		return nil, err
	}
	return f, nil
}

// CheckLog says whether path may be used as a log: nil when it does not
// exist yet or is a regular file.
func CheckLog(path string) error { return checkKind(path, false) }

func checkKind(path string, noLink bool) error {
	stat := os.Stat
	if noLink {
		stat = os.Lstat
	}
	fi, err := stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if noLink && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; give the file it points to: %w", path, ErrUnsafe)
	}
	return kindError(path, fi.Mode())
}

// regularAfterOpen closes the race between the stat and the open, and
// puts the descriptor back into blocking mode for a regular file.
func regularAfterOpen(f *os.File, path string) error {
	fi, err := f.Stat()
	if err == nil {
		err = kindError(path, fi.Mode())
	}
	if err == nil {
		err = setBlocking(f)
	}
	if err != nil {
		f.Close()
		return err
	}
	return nil
}

func kindError(path string, m fs.FileMode) error {
	var what string
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		what = "a device"
	default:
		what = "not a regular file"
		return fmt.Errorf("%s is %s: %w", path, what, ErrNotRegular)
	}
	return fmt.Errorf("%s is %s, not a log file: %w", path, what, ErrNotRegular)
}

// NewLog creates a new private log file for a server of kind ("" for
// "server") in the checked logs directory of the state directory.
func NewLog(getenv func(string) string, kind string, now time.Time) (*os.File, error) {
	dir, err := Sub(getenv, "logs")
	if err != nil {
		return nil, err
	}
	if kind == "" {
		kind = "server"
	}
	return CreateFile(dir, kind, ".log", now)
}
