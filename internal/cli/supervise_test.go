package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Usage errors end supervise before anything is launched: the marker file
// the command would create never appears.
func TestSuperviseUsageErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := t.TempDir()
	marker := filepath.Join(dir, "launched")
	cmd := []string{"--", "sh", "-c", "touch " + marker}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no command", args: []string{}, want: "no COMMAND"},
		{name: "listen taken", args: append([]string{"--listen", taken.Addr().String()}, cmd...), want: "--listen"},
		{name: "listen not host:port", args: append([]string{"--listen", "9811"}, cmd...), want: "want HOST:PORT"},
		{name: "keep", args: append([]string{"--keep"}, cmd...), want: "--keep does not apply"},
		{name: "bench", args: append([]string{"--bench"}, cmd...), want: "--bench does not apply"},
		{name: "hang-after", args: append([]string{"--hang-after", "0s"}, cmd...), want: "--hang-after must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			env := &Env{
				IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
				Getenv: func(k string) string {
					if k == "XDG_STATE_HOME" || k == "HOME" {
						return dir
					}
					return ""
				},
			}
			code := Main(context.Background(), append([]string{"supervise"}, tc.args...), env)
			if code != 2 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), tc.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the server was launched")
			}
		})
	}
}
