package litset

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// contains is what Scan must equal: one strings.Contains per literal.
func contains(lits []string, text string) uint64 {
	var m uint64
	for i, l := range lits {
		if strings.Contains(text, l) {
			m |= 1 << i
		}
	}
	return m
}

func TestScan(t *testing.T) {
	lits := []string{"ServerArgs(", "max_total_num_tokens=", " backend", "backend by default", "=", "n_slots = ", "aa", "aab", "ab"}
	s := New(lits...)
	tests := []struct {
		name, text string
	}{
		{"empty", ""},
		{"none", "INFO: 127.0.0.1 - \"GET /health HTTP/1.1\" 200 OK"},
		{"one", "server_args=ServerArgs(model_path='x')"},
		{"overlapping", "using the flashinfer backend by default"},
		{"suffix of another", "aaab"},
		{"at the end", "llama: n_slots = "},
		{"at the start", "ServerArgs("},
		{"high bytes", "\xff\xfe backend \x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := s.Scan(tt.text), contains(lits, tt.text); got != want {
				t.Errorf("Scan(%q) = %b, want %b", tt.text, got, want)
			}
		})
	}
}

// TestScanRandom compares Scan with strings.Contains on random texts over
// a small alphabet, where literals overlap often.
func TestScanRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc "[rng.IntN(4)]
		}
		return string(b)
	}
	for range 200 {
		lits := make([]string, 1+rng.IntN(64))
		for i := range lits {
			lits[i] = word(1 + rng.IntN(5))
		}
		s := New(lits...)
		for range 50 {
			text := word(rng.IntN(40))
			if got, want := s.Scan(text), contains(lits, text); got != want {
				t.Fatalf("literals %q, text %q: got %b, want %b", lits, text, got, want)
			}
		}
	}
}

func TestNewRejects(t *testing.T) {
	for name, lits := range map[string][]string{
		"empty literal": {"a", ""},
		"65 literals":   strings.Split(strings.Repeat("x,", 64)+"x", ","),
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%q) did not panic", lits)
				}
			}()
			New(lits...)
		})
	}
}

func BenchmarkScan(b *testing.B) {
	s := New("ServerArgs(", "max_total_num_tokens=", "Load weight end. ", "backend by default", "LLM engine (",
		"non-default args: {", "args: Namespace(", "server version ", " backend", "Args {", "TensorRT-LLM", "[TRT-LLM]")
	line := `INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK [2026-11-29 10:00:00] Decode batch. #running-req: 12`
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		s.Scan(line)
	}
}

func BenchmarkContains(b *testing.B) {
	lits := []string{"ServerArgs(", "max_total_num_tokens=", "Load weight end. ", "backend by default", "LLM engine (",
		"non-default args: {", "args: Namespace(", "server version ", " backend", "Args {", "TensorRT-LLM", "[TRT-LLM]"}
	line := `INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK [2026-11-29 10:00:00] Decode batch. #running-req: 12`
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		contains(lits, line)
	}
}

func TestNewGroups(t *testing.T) {
	s, masks := NewGroups([]string{"ab", "cd"}, nil, []string{"ef"})
	tests := []struct {
		text string
		want []bool // per group
	}{
		{"xx", []bool{false, false, false}},
		{"xcdx", []bool{true, false, false}},
		{"ab ef", []bool{true, false, true}},
		{"ef", []bool{false, false, true}},
	}
	for _, tt := range tests {
		found := s.Scan(tt.text)
		for i, w := range tt.want {
			if got := found&masks[i] != 0; got != w {
				t.Errorf("%q, group %d: %v, want %v", tt.text, i, got, w)
			}
		}
	}
}

// FuzzScan compares Scan with strings.Contains, on literals that start
// with bytes common and rare in log text (Scan passes over the bytes
// that start none without the table).
func FuzzScan(f *testing.F) {
	lits := []string{"atchdog timeout (", "EngineDeadError", "Engine loop has died", "Shard ", "aab", "ab", "b", " x", "\xff\x00"}
	s := New(lits...)
	for _, text := range []string{"", "a", "Shard 1 crashed", "xxaabx", "Watchdog timeout (", "EngineDeadErro", "\xff\x00", "abc x"} {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := s.Scan(text), contains(lits, text); got != want {
			t.Fatalf("Scan(%q) = %b, want %b", text, got, want)
		}
	})
}
