package explain

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"vigil/internal/classify"
)

func TestServices(t *testing.T) {
	tests := []struct {
		name, head string
		want       []string
	}{
		{"two services", "a-1  | x\nb  | y\na-1  | z\nb  | w\n", []string{"a-1", "b"}},
		{"in order of first sight", "b  | y\na  | x\na  | z\nb  | w", []string{"b", "a"}},
		{"one line is no service", "a  | x\nb  | y\na  | z\n", nil},
		{"one service", "a  | x\na  | y\n", nil},
		{"no compose prefix", "INFO 05-01 10:00:00 x | y\n[2026-05-01 10:00:00] a | b\n", nil},
		{"empty", "", nil},
		// kubectl logs -l app=vllm --prefix of two replicas.
		{"two pods", "[pod/vllm-1/vllm] x\n[pod/vllm-2/vllm] y\n[pod/vllm-1/vllm] z\n[pod/vllm-2/vllm] w\n", []string{"pod/vllm-1/vllm", "pod/vllm-2/vllm"}},
		{"two containers of a pod", "[pod/p/a] x\n[pod/p/b] y\n[pod/p/a] z\n[pod/p/b] w\n", []string{"pod/p/a", "pod/p/b"}},
		{"one pod", "[pod/vllm-1/vllm] x\n[pod/vllm-1/vllm] y\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Services([]byte(tt.head)); !slices.Equal(got, tt.want) {
				t.Errorf("Services = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOnlyService: the filter keeps the service's lines byte for byte and
// turns every other line (another service's, or one without a prefix)
// into spaces of the same length, so that line numbers and offsets stay
// the log's; read a byte at a time, or with a line longer than its
// buffer, all the same.
func TestOnlyService(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	log := "a  | one\nb  | two\r\nLoading: 50%\rLoading: 100%\nb  | " + long + "\na  | three " + long + "\na  | four"
	want := "a  | one\n" + strings.Repeat(" ", 9) + "\n" + strings.Repeat(" ", 26) + "\n" +
		strings.Repeat(" ", 5+len(long)) + "\na  | three " + long + "\na  | four"
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"whole":          func(r io.Reader) io.Reader { return r },
		"byte by byte":   iotest.OneByteReader,
		"half at a time": iotest.HalfReader,
	} {
		t.Run(name, func(t *testing.T) {
			got, err := io.ReadAll(OnlyService(wrap(strings.NewReader(log)), "a"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, []byte(want)) {
				t.Errorf("filtered log differs (%d bytes, want %d)", len(got), len(want))
			}
		})
	}
}

// FuzzOnlyService: whatever the log, the filter keeps its length and its
// newlines where they were, passes the service's lines through unchanged
// and leaves nothing but spaces of any other line.
func FuzzOnlyService(f *testing.F) {
	f.Add("a  | one\nb  | two\r\nLoading: 50%\rLoading: 100%\na  | three", "a")
	f.Add("x | y\n\n a  | b\n", "x")
	f.Fuzz(func(t *testing.T, log, name string) {
		got, err := io.ReadAll(OnlyService(iotest.HalfReader(strings.NewReader(log)), name))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(log) {
			t.Fatalf("%d bytes out of %d", len(got), len(log))
		}
		in, out := strings.SplitAfter(log, "\n"), strings.SplitAfter(string(got), "\n")
		if len(in) != len(out) {
			t.Fatalf("%d lines out of %d", len(out), len(in))
		}
		for i, l := range in {
			svc, _ := classify.ComposeService(l)
			switch {
			case svc == name && out[i] != l:
				t.Errorf("line %d of the service changed: %q -> %q", i, l, out[i])
			case svc != name && strings.Trim(out[i], " \n") != "":
				t.Errorf("line %d of another stream kept: %q -> %q", i, l, out[i])
			}
		}
	})
}
