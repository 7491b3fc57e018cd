package cli

import (
	"bytes"
	"compress/gzip"
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

// gzipMagic opens a gzip file (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// isGzip reads whether f, rewound, is gzip-compressed.
func isGzip(f *os.File) (bool, error) {
	magic := make([]byte, len(gzipMagic))
	n, err := io.ReadFull(f, magic)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	return bytes.Equal(magic[:n], gzipMagic), nil
}

// gunzip reads a gzip stream: the content, and an error for a stream cut
// short (gzip's io.ErrUnexpectedEOF, which would read as the log's end).
type gunzip struct{ zr *gzip.Reader }

var errCutShort = errors.New("the gzip stream ends early: the file is cut short")

func newGunzip(r io.Reader) (gunzip, error) {
	zr, err := gzip.NewReader(r)
	return gunzip{zr}, err
}

func (g gunzip) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = errCutShort
	}
	return n, err
}

// checkGzip reads the head of the gzip file f and rewinds it; one whose
// content is no text log is an error.
func checkGzip(f *os.File, name string) error {
	zr, err := newGunzip(f)
	if err != nil {
		return fmt.Errorf("cannot read %s: %v", name, err)
	}
	if _, _, err := sniffStream(zr, name+" (decompressed)"); err != nil {
		return err
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// sniffLogStream is sniffStream for a finished log (explain): a gzip
// stream (zcat's work, done here) is read decompressed.
func sniffLogStream(r io.Reader, name string) (io.Reader, []byte, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadAtLeast(r, head, 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("cannot read %s: %w", name, err)
	}
	r = io.MultiReader(bytes.NewReader(head[:n]), r)
	if bytes.HasPrefix(head[:n], gzipMagic) {
		zr, err := newGunzip(r)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read %s: %v", name, err)
		}
		return sniffStream(zr, name+" (decompressed)")
	}
	return sniffStream(r, name)
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
