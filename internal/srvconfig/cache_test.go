package srvconfig

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixtureLines returns every line of the fixtures, with the server kind
// each file is named after.
func fixtureLines(t *testing.T) (kinds, lines []string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(fixtures, "*.log"))
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		kind, _, _ := strings.Cut(filepath.Base(file), "-")
		for _, l := range strings.Split(string(b), "\n") {
			kinds, lines = append(kinds, kind), append(lines, l)
		}
	}
	return kinds, lines
}

// TestParseLiteralPrefilter checks that the one-pass literal test gives
// what trying every recogniser with strings.Contains gives.
func TestParseLiteralPrefilter(t *testing.T) {
	ref := func(kind, msg string) (Config, bool) {
		msg = cleanLine(msg)
		if msg == "" {
			return nil, false
		}
		for _, r := range recognisers {
			if r.kinds != nil && !kindIn(kind, r.kinds) {
				continue
			}
			if r.lit != "" && !strings.Contains(msg, r.lit) {
				continue
			}
			if items, matched := r.fn(msg); matched {
				c := Config(nil).Merge(items)
				return c, len(c) > 0
			}
		}
		return nil, false
	}
	recogniserLits() // sets the masks
	for _, r := range recognisers {
		if r.mask == 0 {
			t.Errorf("recogniser %q has no literal: the prefilter never lets a line through", r.name)
		}
	}
	kinds, lines := fixtureLines(t)
	for i, l := range lines {
		for _, kind := range []string{kinds[i], ""} {
			got, gotOK := Parse(kind, l)
			want, wantOK := ref(kind, l)
			if gotOK != wantOK || !slices.Equal(got, want) {
				t.Errorf("Parse(%q, %q) = %v, %v; want %v, %v", kind, l, got, gotOK, want, wantOK)
			}
		}
	}
}

// TestCollectorCache checks, after every line of the fixtures, that the
// Collector's kept fingerprint and important settings are those computed
// afresh, for the file's kind and for an unknown one.
func TestCollectorCache(t *testing.T) {
	kinds, lines := fixtureLines(t)
	var c *Collector
	for i, l := range lines {
		if i == 0 || kinds[i] != kinds[i-1] {
			c = NewCollector(kinds[i])
		}
		c.Feed(l)
		for _, kind := range []string{kinds[i], ""} {
			if got, want := c.Fingerprint(kind), Fingerprint(kind, c.Config()); got != want {
				t.Fatalf("after %q (kind %q): got fingerprint %q, want %q", l, kind, got, want)
			}
			if got, want := c.Important(kind), Important(kind, c.Config()); !slices.Equal(got, want) {
				t.Fatalf("after %q (kind %q): got important %v, want %v", l, kind, got, want)
			}
		}
	}
}

func TestCollectorCacheKept(t *testing.T) {
	c := NewCollector("vllm")
	c.Feed("non-default args: {'model': 'Qwen/Qwen3-8B', 'tensor_parallel_size': 2}")
	fp := c.Fingerprint("vllm")
	tests := []struct {
		name string
		line string
		kept bool
	}{
		{name: "an unimportant key", line: "non-default args: {'seed': 7}", kept: true},
		{name: "an important key, same value", line: "non-default args: {'tensor_parallel_size': 2}", kept: true},
		{name: "an important key, new value", line: "non-default args: {'tensor_parallel_size': 4}", kept: false},
		{name: "an important key not seen before", line: "non-default args: {'dtype': 'bfloat16'}", kept: false},
		{name: "a key a derived setting reads", line: "non-default args: {'enforce_eager': True}", kept: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Fingerprint("vllm")
			c.Feed(tt.line)
			if c.fpOK != tt.kept {
				t.Errorf("fingerprint kept: got %v, want %v", c.fpOK, tt.kept)
			}
			if got, want := c.Fingerprint("vllm"), Fingerprint("vllm", c.Config()); got != want {
				t.Errorf("got fingerprint %q, want %q", got, want)
			}
		})
	}
	if c.Fingerprint("vllm") == fp {
		t.Errorf("the fingerprint did not change with tp and dtype")
	}
}

// TestCollectorGeneration: the generation moves exactly when the merged
// configuration does, so a caller may skip what it derives from it.
func TestCollectorGeneration(t *testing.T) {
	c := NewCollector("vllm")
	tests := []struct {
		name  string
		line  string
		moves bool
	}{
		{name: "the first print", line: "non-default args: {'model': 'Qwen/Qwen3-8B', 'tensor_parallel_size': 2}", moves: true},
		{name: "the same print again", line: "non-default args: {'model': 'Qwen/Qwen3-8B', 'tensor_parallel_size': 2}", moves: false},
		{name: "a new key", line: "non-default args: {'seed': 7}", moves: true},
		{name: "a new value", line: "non-default args: {'seed': 8}", moves: true},
		{name: "no configuration", line: "Starting to load model Qwen/Qwen3-8B...", moves: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(c.Config())
			gen := c.Generation()
			c.Feed(tt.line)
			if moved := c.Generation() != gen; moved != tt.moves {
				t.Errorf("generation moved: got %v, want %v", moved, tt.moves)
			}
			if !tt.moves && !slices.Equal(before, c.Config()) {
				t.Errorf("the configuration changed, the generation did not: %v -> %v", before, c.Config())
			}
		})
	}
}
