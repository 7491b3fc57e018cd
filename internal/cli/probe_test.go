package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vigil/internal/facts"
	"vigil/internal/probe"
)

func TestProbeCommand(t *testing.T) {
	dir, err := os.MkdirTemp("", "vp") // short: a socket path has room for 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	state := filepath.Join(dir, "state")
	sock := filepath.Join(state, "vigil", probe.SocketName)
	unix, err := probe.ListenSocket(sock)
	if err != nil {
		t.Fatal(err)
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := facts.NewBoard(time.Now())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- probe.Serve(ctx, probe.Handler(b, time.Now), unix, tcp) }()
	t.Cleanup(func() { cancel(); <-done })

	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		env := &Env{
			IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
			Getenv: func(k string) string {
				if k == "XDG_STATE_HOME" {
					return state
				}
				return ""
			},
		}
		code := Main(context.Background(), append([]string{"probe"}, args...), env)
		return code, out.String(), errOut.String()
	}

	tests := []struct {
		name     string
		args     []string
		ready    bool
		want     int
		wantOut  string
		wantErrs string
	}{
		{"starting, over the state directory's socket", []string{"startup"}, false, 1, `"status":"starting"`, ""},
		{"alive while starting", []string{"live"}, false, 0, `"status":"alive"`, ""},
		{"starting, over HTTP", []string{"ready", "--listen", tcp.Addr().String()}, false, 1, `"status":"starting"`, ""},
		{"ready", []string{"ready", "--socket", sock}, true, 0, `"status":"ready"`, ""},
		{"no supervisor", []string{"live", "--socket", filepath.Join(dir, "none.sock")}, true, 1, "", "none.sock"},
		{"unknown probe", []string{"health"}, true, 2, "", `"health": want startup, ready or live`},
		{"both targets", []string{"live", "--socket", sock, "--listen", "127.0.0.1:1"}, true, 2, "", "not both"},
		{"bad address", []string{"live", "--listen", "nowhere"}, true, 2, "", "HOST:PORT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.ready {
				b.Health("ok", true, time.Now())
				b.Ready(time.Now())
			}
			code, out, errOut := run(tt.args...)
			if code != tt.want || !strings.Contains(out, tt.wantOut) || !strings.Contains(errOut, tt.wantErrs) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					code, out, errOut, tt.want, tt.wantOut, tt.wantErrs)
			}
		})
	}
}
