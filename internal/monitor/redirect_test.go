package monitor

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"vigil/internal/judge"
)

// redirectHealth answers every probe with a redirect to another host.
type redirectHealth struct{ to string }

func (f redirectHealth) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusFound, Header: http.Header{"Location": {f.to}},
		Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

// A health endpoint that redirects to another host is not followed, and
// the note says so once however many probes get the redirect.
func TestRedirectToAnotherHostIsNotedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pid = 4800
		proc := procTree(t, pid, "S", 0)
		log := writeLog(t, "[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=70 GB")
		spec := Spec{
			Judge: judge.Config{Server: "sglang", StallAfter: time.Hour, Timeout: 10 * time.Second},
			Start: time.Now(), PID: pid, Log: log, URL: "http://127.0.0.1:30000",
		}
		s := &sink{}
		if _, err := Run(context.Background(), spec, deps(proc, redirectHealth{to: "http://user:pw@elsewhere.example:9/health"}), s); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range s.notes {
			if strings.Contains(n, "redirect") {
				got = append(got, n)
			}
		}
		want := "health redirects to http://elsewhere.example:9; not followed" // no userinfo
		if len(got) != 1 || got[0] != want {
			t.Errorf("redirect notes %q, want once %q", got, want)
		}
	})
}
