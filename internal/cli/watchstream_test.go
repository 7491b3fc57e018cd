package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"strings"
	"testing"
)

// A compressed log piped into `watch --log -` is refused at once, before
// any output, as a binary --log file is, instead of being judged as
// garbled lines until the timeout.
func TestWatchRefusesABinaryStream(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat("[2026-11-12 10:00:01] Load weight begin. avail mem=70 GB\n", 50)))
	zw.Close()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	env := &Env{IO: &IOStreams{In: &gz, Out: &out, ErrOut: &errOut}, Getenv: func(k string) string {
		if k == "XDG_STATE_HOME" || k == "HOME" {
			return dir
		}
		return os.Getenv(k)
	}}
	code := Main(context.Background(), []string{"watch", "--no-history", "--log", "-", "--url", "http://127.0.0.1:1", "--stall-after", "2s", "--timeout", "5s"}, env)
	want := "vigil: --log -: standard input is binary data, not a log"
	if code != 2 || out.Len() != 0 || strings.TrimSpace(errOut.String()) != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing and %q", code, out.String(), errOut.String(), want)
	}
}
