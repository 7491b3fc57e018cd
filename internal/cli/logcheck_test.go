package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
