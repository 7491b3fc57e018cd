package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"vigil/internal/statedir"
)

// sniffLen is how much of a log is read to tell text from binary.
const sniffLen = 8 << 10

// isBinary reports whether head (a file's first bytes) is not a text log:
// a NUL byte, which no server's text output holds, or a compressed file.
func isBinary(head []byte) bool {
	return bytes.IndexByte(head, 0) >= 0 || bytes.HasPrefix(head, []byte{0x1f, 0x8b})
}

// checkBinary reads the head of f and rewinds it; a binary file is an error.
func checkBinary(f *os.File, name string) error {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if isBinary(head[:n]) {
		return fmt.Errorf("%s is a binary file, not a log", name)
	}
	return nil
}

// sniffStream reads the first bytes a stream has (waiting for its first
// write, not for sniffLen bytes) and returns a reader that gives them again,
// then the rest; a binary stream (gzip piped in, a device of NULs) is an
// error, as a binary file is.
func sniffStream(r io.Reader, name string) (io.Reader, []byte, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadAtLeast(r, head, 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("cannot read %s: %w", name, err)
	}
	if isBinary(head[:n]) {
		return nil, nil, fmt.Errorf("%s is binary data, not a log", name)
	}
	if n == 0 {
		return bytes.NewReader(nil), nil, nil
	}
	return io.MultiReader(bytes.NewReader(head[:n]), r), head[:n], nil
}

// checkWatchLog tells at once what makes a --log path unusable: a
// directory, socket or device, a FIFO nobody writes, a file vigil cannot
// read, a binary file. A path that does not exist yet is fine (the server
// may not have created it). It returns whether the file exists.
func checkWatchLog(path string) (exists bool, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if fi.Mode()&fs.ModeNamedPipe != 0 {
		// A FIFO is judged as a stream: openStreamLog opens it without
		// blocking and gives up at once when no writer comes (a writer
		// waiting in its own open() holds no descriptor yet to look for).
		return true, nil
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return true, fmt.Errorf("%s is a directory, not a log file", path)
	case m&fs.ModeSocket != 0:
		return true, fmt.Errorf("%s is a socket, not a log file", path)
	case m&fs.ModeDevice != 0:
		return true, fmt.Errorf("%s is a device, not a log file", path)
	}
	f, err := statedir.OpenRead(path)
	if err != nil {
		return true, unwrapPath(err)
	}
	defer f.Close()
	return true, checkBinary(f, path)
}
