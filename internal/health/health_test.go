package health

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"vigil/internal/observe"
)

func TestProbeStates(t *testing.T) {
	hang := make(chan struct{})
	mux := http.NewServeMux()
	for path, code := range map[string]int{"/ok": 200, "/starting": 503, "/broken": 500, "/missing": 404} {
		mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
	}
	mux.HandleFunc("/hang", func(http.ResponseWriter, *http.Request) { <-hang })
	mux.HandleFunc("/reset", func(w http.ResponseWriter, _ *http.Request) {
		conn, _, _ := http.NewResponseController(w).Hijack()
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
	})
	srv := httptest.NewServer(mux)
	// Release the hanging handler before closing, which waits for it.
	defer srv.Close()
	defer close(hang)

	// A port with nothing listening: bind one, then close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()

	tests := []struct {
		name, url string
		want      observe.HealthState
		code      int
	}{
		{"200 is ok", srv.URL + "/ok", observe.HealthOK, 200},
		{"503 is starting", srv.URL + "/starting", observe.HealthStarting, 503},
		{"500 is another status", srv.URL + "/broken", observe.HealthOther, 500},
		{"404 means no health endpoint", srv.URL + "/missing", observe.HealthNone, 404},
		{"nothing listening", closed + "/health", observe.HealthRefused, 0},
		{"no answer in time", srv.URL + "/hang", observe.HealthError, 0},
		{"connection reset", srv.URL + "/reset", observe.HealthError, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(tt.url, "")
			p.Timeout = 300 * time.Millisecond
			got := p.Probe(context.Background())
			if got.State != tt.want || got.Code != tt.code {
				t.Errorf("Probe = %+v, want %s %d", got, tt.want, tt.code)
			}
		})
	}
}

func TestRunStopsWithContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	p := New(srv.URL, "/health")
	p.Interval = 10 * time.Millisecond
	out := make(chan observe.Health, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() { p.Run(ctx, out); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if len(out) == 0 {
		t.Error("no probe results")
	}
}
