package remote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vigil/internal/remote/sshtest"
)

// These tests go through the real ssh client and real sshd processes
// (sshtest's namespaces); they skip where those cannot be made.

func sshOptions(n *sshtest.Net, bin string) Options {
	return Options{SSH: n.SSH, Binary: bin, KeepAlive: time.Second}
}

func TestOverSSHOneConnectionPerHost(t *testing.T) {
	n := sshtest.New(t, sshtest.HostOptions{Name: "node0"})
	bin := fakeVigil(t, `echo "{\"event\":\"start\",\"t\":0,\"args\":\"$*\"}"; echo '{"event":"verdict","t":1,"verdict":"ready"}'; exit 0`)
	var pushed []bool
	for range 2 {
		c, err := Connect(testCtx(t), "node0", sshOptions(n, bin))
		if err != nil {
			t.Fatalf("Connect: %v\n%s", err, n.Host("node0").Log())
		}
		pushed = append(pushed, c.Pushed)
		for range 3 {
			var names []string
			res, err := c.Run(testCtx(t), Spec{Args: []string{"watch", "--log", "f"}}, func(e Event) { names = append(names, e.Name) })
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Code != 0 || strings.Join(names, ",") != "start,verdict" {
				t.Errorf("exit %d events %q", res.Code, names)
			}
		}
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if _, err := os.Stat(c.dir); !os.IsNotExist(err) {
			t.Errorf("control directory %s left (%v)", c.dir, err)
		}
	}
	if pushed[0] != true || pushed[1] != false {
		t.Errorf("pushed %v, want [true false]: the second Connect finds the binary by its hash", pushed)
	}
	// Two Connects, each with its prepare, push and three runs: one
	// login each.
	if got := n.Host("node0").Logins(); got != 2 {
		t.Errorf("%d ssh logins, want 2 (one multiplexed connection per Connect)", got)
	}
	want := filepath.Join(n.Host("node0").Home, ".cache", "vigil", sum(t, bin)[:16], "vigil")
	if _, err := os.Stat(want); err != nil {
		t.Errorf("binary not at %s: %v", want, err)
	}
}

func TestOverSSHConnectErrors(t *testing.T) {
	n := sshtest.New(t,
		sshtest.HostOptions{Name: "arm", FakeTools: map[string]string{"uname": "echo Linux aarch64"}},
		sshtest.HostOptions{Name: "down", NoSSHD: true})
	bin := fakeVigil(t, "exit 0")
	tests := []struct {
		host, goarch string
		kind         error
		want         string
	}{
		{host: "down", kind: ErrUnreachable, want: "Connection refused"},
		{host: "arm", goarch: "amd64", kind: ErrArch, want: "arm is linux/arm64"},
		{host: "nosuchhost.invalid", kind: ErrUnreachable, want: "nosuchhost.invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			o := sshOptions(n, bin)
			if tt.goarch != "" {
				o.GOOS, o.GOARCH = "linux", tt.goarch
			}
			c, err := Connect(testCtx(t), tt.host, o)
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded")
			}
			if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q (%T), want %v containing %q", err, err, tt.kind, tt.want)
			}
		})
	}
}

func TestOverSSHDroppedConnection(t *testing.T) {
	for _, how := range []string{"sshd killed", "link cut"} {
		t.Run(how, func(t *testing.T) {
			n := sshtest.New(t, sshtest.HostOptions{Name: "node0"})
			h := n.Host("node0")
			bin, gateFile := gate(t)
			c, err := Connect(testCtx(t), "node0", sshOptions(n, bin))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			started := make(chan struct{})
			s, err := c.Start(testCtx(t), Spec{Args: []string{"run"}, Detach: true}, func(e Event) {
				if e.Name == "start" {
					close(started)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			<-started
			if how == "sshd killed" {
				if h.DropSessions() == 0 {
					t.Fatal("no sshd session to kill")
				}
			} else {
				h.CutLink(t)
			}
			res, err := s.Wait()
			if !errors.Is(err, ErrDropped) {
				t.Fatalf("err %v, want ErrDropped", err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("pid %d", res.PID)) || !strings.Contains(err.Error(), "not a server failure") {
				t.Errorf("message %q", err)
			}
			if !alive(res.PID) {
				t.Fatalf("the remote vigil (pid %d) died with the connection", res.PID)
			}
			os.WriteFile(gateFile, nil, 0o644)
			rc := filepath.Join(res.Dir, "rc")
			waitFor(t, "the remote vigil to finish", func() bool { _, err := os.Stat(rc); return err == nil })
			if b, _ := os.ReadFile(rc); strings.TrimSpace(string(b)) != "1" {
				t.Errorf("remote vigil's status %q, want 1", b)
			}
		})
	}
}
