package health

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vigil/internal/observe"
)

func TestRedirects(t *testing.T) {
	var otherHits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		otherHits.Add(1)
		w.WriteHeader(200)
	}))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/health", http.StatusFound)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		name, path string
		want       observe.HealthState
		code       int
		note       string
	}{
		{"same host is followed", "/moved", observe.HealthOK, 200, ""},
		{"another host is not followed", "/away", observe.HealthOther, 302, "not followed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := New(srv.URL, tt.path).Probe(t.Context())
			if got.State != tt.want || got.Code != tt.code || !strings.Contains(got.Err, tt.note) {
				t.Errorf("Probe = %+v, want %s %d noting %q", got, tt.want, tt.code, tt.note)
			}
		})
	}
	h := New(srv.URL, "/away").Probe(t.Context())
	if to, ok := RedirectedTo(h); !ok || to != other.URL {
		t.Errorf("RedirectedTo(%+v) = %q, %v; want %q", h, to, ok, other.URL)
	}
	if to, ok := RedirectedTo(New(srv.URL, "/moved").Probe(t.Context())); ok {
		t.Errorf("a same-host redirect reads as one to %q", to)
	}
	if n := otherHits.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}
}

// fakeRT answers every request with fn, without a network.
type fakeRT func(*http.Request) (*http.Response, error)

func (f fakeRT) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// countingBody counts what the probe read from an endless body.
type countingBody struct{ n atomic.Int64 }

func (b *countingBody) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	b.n.Add(int64(len(p)))
	return len(p), nil
}
func (b *countingBody) Close() error { return nil }

func TestReadsASmallBodyOnly(t *testing.T) {
	body := &countingBody{}
	p := New("http://server", "/health")
	p.Client = &http.Client{Transport: fakeRT(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: body, Header: http.Header{}}, nil
	})}
	if got := p.Probe(t.Context()); got.State != observe.HealthOK {
		t.Fatalf("Probe = %+v, want ok", got)
	}
	if n := body.n.Load(); n > MaxBody+32<<10 {
		t.Errorf("read %d bytes of an endless body, want about %d", n, MaxBody)
	}
}

func TestAuthIsItsOwnState(t *testing.T) {
	var sawAuth atomic.Value
	p := New("http://server", "/health")
	p.APIKey = "sk-probe-key-123"
	for _, code := range []int{401, 403} {
		p.Client = &http.Client{Transport: fakeRT(func(r *http.Request) (*http.Response, error) {
			sawAuth.Store(r.Header.Get("Authorization"))
			return &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader(`{"error":"Unauthorized"}`)), Header: http.Header{}}, nil
		})}
		got := p.Probe(t.Context())
		if got.State != StateAuth || got.Code != code {
			t.Errorf("%d: Probe = %+v, want %s", code, got, StateAuth)
		}
		if strings.Contains(got.Err, p.APIKey) {
			t.Errorf("the key is in %q", got.Err)
		}
	}
	if a := sawAuth.Load(); a != "Bearer sk-probe-key-123" {
		t.Errorf("Authorization = %v", a)
	}
}

// A probe with no answer before its timeout is a failure, never ready and
// never "nothing listens".
func TestTimeoutIsAFailure(t *testing.T) {
	p := New("http://server", "/health")
	p.Timeout = 20 * time.Millisecond
	p.Client = &http.Client{Transport: fakeRT(func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done()
		return nil, r.Context().Err()
	})}
	got := p.Probe(context.Background())
	if got.State != observe.HealthError || !strings.Contains(got.Err, "no answer within") {
		t.Errorf("Probe = %+v, want an error state saying no answer", got)
	}
}
