package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

func TestIsBinary(t *testing.T) {
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"a log line", "[2026-01-01 00:00:00] Load weight begin.\n", false},
		{"empty", "", false},
		{"utf-8 and escapes", "\x1b[32mINFO\x1b[0m  ✓ ready\n", false},
		{"an ELF binary", "\x7fELF\x02\x01\x01\x00", true},
		{"gzip", "\x1f\x8b\x08\x00", true},
		{"a NUL in text", "loading\x00weights", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isBinary([]byte(tt.head)); got != tt.want {
				t.Errorf("isBinary(%q) = %v, want %v", tt.head, got, tt.want)
			}
		})
	}
}

func TestCheckWatchLog(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		exists  bool
		errWant string
	}{
		{"a log", write("ok.log", "INFO ready\n"), true, ""},
		{"not there yet", filepath.Join(dir, "later.log"), false, ""},
		{"a directory", dir, true, "is a directory"},
		{"a FIFO is a stream, opened later", fifo, true, ""},
		{"a binary", write("bin", "\x7fELF\x00\x00"), true, "binary file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exists, err := checkWatchLog(tt.path)
			if exists != tt.exists {
				t.Errorf("exists = %v, want %v", exists, tt.exists)
			}
			if tt.errWant == "" && err != nil || tt.errWant != "" && (err == nil || !strings.Contains(err.Error(), tt.errWant)) {
				t.Errorf("err = %v, want one saying %q", err, tt.errWant)
			}
		})
	}
}

func TestCommandError(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("x"), 0o644)
	tests := []struct {
		name, cmd, want string
	}{
		{"a directory", dir, "is a directory"},
		{"no execute bit", plain, "not executable (mode 0644"},
		{"missing path", filepath.Join(dir, "nope"), "no such file"},
		{"not on PATH", "no-such-command-xyz", "command not found in $PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := commandError(tt.cmd)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("commandError(%q) = %v, want %q", tt.cmd, err, tt.want)
			}
			if _, ok := err.(*UsageError); !ok {
				t.Errorf("not a usage error: %T", err)
			}
		})
	}
}

func TestLooksLikeBenchSpec(t *testing.T) {
	for arg, want := range map[string]bool{
		"c=1;n=3":      true,
		"c=1,8;n=50":   true,
		"python3":      false,
		"./server":     false,
		"FOO=bar":      false,
		"/usr/bin/env": false,
	} {
		if got := looksLikeBenchSpec(arg); got != want {
			t.Errorf("looksLikeBenchSpec(%q) = %v, want %v", arg, got, want)
		}
	}
}

// firstWriteReader gives one write, then fails the test if it is read
// again before release: a stream's sniff must not wait for more.
type firstWriteReader struct {
	t        *testing.T
	first    string
	rest     *strings.Reader
	released bool
	reads    int
}

func (r *firstWriteReader) Read(p []byte) (int, error) {
	r.reads++
	if r.reads == 1 {
		return copy(p, r.first), nil
	}
	if !r.released {
		r.t.Error("the sniff read past the stream's first write")
		return 0, io.EOF
	}
	return r.rest.Read(p)
}

func TestSniffStream(t *testing.T) {
	tests := []struct {
		name    string
		in      io.Reader
		want    string
		errWant string
	}{
		{"a log", strings.NewReader("INFO a\nINFO b\n"), "INFO a\nINFO b\n", ""},
		{"empty", strings.NewReader(""), "", ""},
		{"longer than the sniff", strings.NewReader(strings.Repeat("INFO line\n", sniffLen/5)), strings.Repeat("INFO line\n", sniffLen/5), ""},
		{"gzip piped in", strings.NewReader("\x1f\x8b\x08\x00rest"), "", "pipe is binary data, not a log"},
		{"NUL bytes", strings.NewReader("\x00\x00\x00\x00"), "", "pipe is binary data, not a log"},
		{"a read error", iotest.ErrReader(errors.New("input/output error")), "", "cannot read pipe: input/output error"},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader("INFO a\n")), "INFO a\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, err := sniffStream(tt.in, "pipe")
			if tt.errWant != "" {
				if err == nil || err.Error() != tt.errWant {
					t.Fatalf("err = %v, want %q", err, tt.errWant)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil || string(got) != tt.want {
				t.Errorf("read back %q, %v; want %q", got, err, tt.want)
			}
		})
	}

	t.Run("a slow writer", func(t *testing.T) {
		in := &firstWriteReader{t: t, first: "INFO loading\n", rest: strings.NewReader("INFO ready\n")}
		r, _, err := sniffStream(in, "pipe")
		if err != nil {
			t.Fatal(err)
		}
		in.released = true
		got, _ := io.ReadAll(r)
		if string(got) != "INFO loading\nINFO ready\n" {
			t.Errorf("read back %q", got)
		}
	})
}
