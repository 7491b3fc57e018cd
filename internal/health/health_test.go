package health

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
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

// scripted answers each probe with the next status of its script (the
// last one repeats) and notes when each probe came, on the bubble's clock.
type scripted struct {
	mu    sync.Mutex
	codes []int
	at    []time.Duration
	start time.Time
}

func (f *scripted) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.at = append(f.at, time.Since(f.start))
	code := f.codes[min(len(f.at), len(f.codes))-1]
	return &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

func (f *scripted) times() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.at)
}

func TestRunStopsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &scripted{codes: []int{503}, start: time.Now()}
		p := New("http://127.0.0.1:1", "/health")
		p.Client.Transport = f
		out := make(chan observe.Health, 100)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p.Run(ctx, out) // returns only when ctx ends: the bubble would deadlock otherwise
		if len(out) == 0 {
			t.Error("no probe results")
		}
	})
}

// The prober's schedule: every Interval; after a nudge at once and then
// every FastInterval until a 200 or FastFor has passed; the same after the
// first 503, and not again after later ones.
func TestRunNudgedSchedule(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	cases := []struct {
		name    string
		codes   []int
		nudgeAt time.Duration // 0: never
		until   time.Duration
		want    []time.Duration
	}{
		{"refused, no nudge: every 250 ms", []int{0}, 0, ms(800),
			[]time.Duration{0, ms(250), ms(500), ms(750)}},
		{"a nudge probes at once, then fast until a 200", []int{0, 0, 0, 503, 200}, ms(300), ms(800),
			[]time.Duration{0, ms(250), ms(300), ms(325), ms(350), ms(600)}},
		{"the first 503 probes fast, until a 200", []int{503, 503, 200}, 0, ms(600),
			[]time.Duration{0, ms(25), ms(50), ms(300), ms(550)}},
		{"fast for 2 s at most", []int{503}, 0, ms(2600),
			append(steps(0, ms(25), 80), ms(2000), ms(2250), ms(2500))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &scripted{codes: tc.codes, start: time.Now()}
				p := New("http://127.0.0.1:1", "/health")
				p.Client.Transport = refusing{f}
				nudge := make(chan struct{}, 1)
				ctx, cancel := context.WithTimeout(context.Background(), tc.until)
				defer cancel()
				if tc.nudgeAt > 0 {
					time.AfterFunc(tc.nudgeAt, func() { nudge <- struct{}{} })
				}
				p.RunNudged(ctx, make(chan observe.Health, 1000), nudge)
				if got := f.times(); !slices.Equal(got, tc.want) {
					t.Errorf("probes at\n%v\nwant\n%v", got, tc.want)
				}
			})
		})
	}
}

// steps is n times from start, every d.
func steps(start, d time.Duration, n int) []time.Duration {
	var out []time.Duration
	for i := range n {
		out = append(out, start+time.Duration(i)*d)
	}
	return out
}

// refusing turns a scripted 0 into a refused connection.
type refusing struct{ f *scripted }

func (r refusing) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, _ := r.f.RoundTrip(req)
	if resp.StatusCode == 0 {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return resp, nil
}

// TestProbeUnixSocket: a server on a Unix socket (llama-server --host
// x.sock, vLLM --uds) is probed there, from the start or once the prober
// is moved to it; a socket nobody listens on is refused.
func TestProbeUnixSocket(t *testing.T) {
	dir := t.TempDir()
	sock := dir + "/s.sock"
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) })
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	defer srv.Close()

	p := New("unix://"+sock, "/health")
	if got := p.Probe(context.Background()); got.State != observe.HealthOK {
		t.Errorf("probe over the socket: %+v, want ok", got)
	}
	if got := New("unix://"+dir+"/none.sock", "/health").Probe(context.Background()); got.State != observe.HealthRefused {
		t.Errorf("probe of a socket nobody listens on: %+v, want refused", got)
	}

	// A prober moved from a TCP guess to the socket, and back.
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + tcp.Addr().String()
	tcp.Close()
	p = New(closed, "/health")
	if got := p.Probe(context.Background()); got.State != observe.HealthRefused {
		t.Errorf("probe of the closed guess: %+v, want refused", got)
	}
	p.Retarget("unix://"+sock, "/health")
	if got := p.Probe(context.Background()); got.State != observe.HealthOK {
		t.Errorf("probe after the move to the socket: %+v, want ok", got)
	}
	p.Retarget(closed, "/health")
	if got := p.Probe(context.Background()); got.State != observe.HealthRefused {
		t.Errorf("probe after the move back: %+v, want refused", got)
	}
}
