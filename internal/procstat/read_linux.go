//go:build linux

package procstat

import (
	"io/fs"
	"os"
	"syscall"
)

// reader reads small /proc files into one reused buffer with plain system
// calls: no *os.File, no poller registration, no allocation per file once the
// buffer has grown. One reader belongs to one goroutine.
type reader struct {
	buf []byte
}

// read returns the whole file at path. The slice is valid until the next call.
func (r *reader) read(path string) ([]byte, error) {
	if r.buf == nil {
		r.buf = make([]byte, 4096)
	}
	fd, err := open(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := syscall.Read(fd, r.buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m <= 0 {
			return r.buf[:n], nil
		}
		n += m
	}
}

func open(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// readDirNames lists a directory's entries, unsorted.
func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
