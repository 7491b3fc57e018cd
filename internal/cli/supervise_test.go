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

// TestPreflightOfLaunches: run and supervise look at the port before the
// launch alike. Strict mode refuses (exit 1, nothing launched), warn mode
// tells and launches; a mode that is none of the three is a usage error.
func TestPreflightOfLaunches(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	url := "http://" + taken.Addr().String()
	for _, command := range []string{"run", "supervise"} {
		tests := []struct {
			name     string
			mode     string
			code     int
			launched bool
			want     string
		}{
			{name: "strict", mode: "strict", code: 1, want: "not launched: the preflight check found a problem"},
			{name: "warn", mode: "warn", code: 1, launched: true, want: "preflight: something already listens on " + taken.Addr().String()},
			{name: "off", mode: "off", code: 1, launched: true},
			{name: "unknown mode", mode: "sometimes", code: 2, want: `--preflight "sometimes": want warn, strict or off`},
		}
		for _, tc := range tests {
			t.Run(command+"/"+tc.name, func(t *testing.T) {
				marker := filepath.Join(t.TempDir(), "launched")
				env, out, errOut, _ := testEnv(t)
				args := []string{command, "--preflight", tc.mode, "--url", url, "--grace", "1s", "--no-history"}
				if command == "supervise" {
					args = append(args, "--listen", "127.0.0.1:0")
				}
				args = append(args, "--", "sh", "-c", "touch "+marker)
				code := Main(context.Background(), args, env)
				all := out.String() + errOut.String()
				if code != tc.code || !strings.Contains(all, tc.want) {
					t.Errorf("exit %d, output %q; want %d and %q", code, all, tc.code, tc.want)
				}
				if tc.mode == "off" && strings.Contains(all, "preflight") {
					t.Errorf("--preflight off told %q", all)
				}
				if _, err := os.Stat(marker); (err == nil) != tc.launched {
					t.Errorf("launched: %v, want %v", err == nil, tc.launched)
				}
			})
		}
	}
}

// TestPreflightReadsAShellScript: a server launched through a shell's -c
// script (a virtualenv activated first) has its port read from the
// script: the port taken there is refused under --preflight=strict.
func TestPreflightReadsAShellScript(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, port, _ := net.SplitHostPort(taken.Addr().String())
	marker := filepath.Join(t.TempDir(), "launched")
	env, out, errOut, _ := testEnv(t)
	code := Main(context.Background(), []string{"run", "--preflight", "strict", "--no-history", "--",
		"sh", "-c", "cd / && touch " + marker + " --port " + port}, env)
	all := out.String() + errOut.String()
	if want := "something already listens on 127.0.0.1:" + port; code != 1 || !strings.Contains(all, want) {
		t.Errorf("exit %d, output %q; want 1 and %q", code, all, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("launched onto the taken port")
	}
}
