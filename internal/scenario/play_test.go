package scenario

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the player and the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func mustParse(t *testing.T, timeline string) *Scenario {
	t.Helper()
	data := strings.Replace(minimal, `"argv":["a"]`, `"argv":["vllm","serve","--model","org/m"]`, 1)
	data = strings.Replace(data, `[{"t":0.1,"err":"hi"}]`, timeline, 1)
	s, err := Parse([]byte(data))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

// started is a Play running in the background.
type started struct {
	port           int
	stdout, stderr *syncBuffer
	cancel         context.CancelFunc
	done           chan error
}

func start(t *testing.T, s *Scenario, opts PlayOptions) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &started{port: freePort(t), stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	opts.Port, opts.Stdout, opts.Stderr = p.port, p.stdout, p.stderr
	if opts.HFHome == "" {
		opts.HFHome = t.TempDir()
	}
	go func() { p.done <- Play(ctx, s, opts) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			t.Error("Play did not return after its context was cancelled")
		}
	})
	return p
}

func (p *started) url(path string) string { return fmt.Sprintf("http://127.0.0.1:%d%s", p.port, path) }

// status is the health endpoint's answer, 0 when the connection is refused.
func (p *started) status(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(p.url(path))
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func (p *started) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		return err
	case <-time.After(d):
		t.Fatalf("Play still running after %v", d)
		return nil
	}
}

// until polls cond every 20 ms for up to 3 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestPlayTimelineAndHealth(t *testing.T) {
	s := mustParse(t, `[
		{"t":0,"err":["[{ts}] first","second"]},
		{"t":0,"out":"to stdout"},
		{"t":0.05,"progress":{"fmt":"bar {i}/{n}","n":2,"dur":0.1,"cr":true}},
		{"t":0.2,"health":503},
		{"t":0.6,"health":200,"body":"{\"ok\":true}"},
		{"t":1.0,"health":0},
		{"t":1.3,"exit":3}]`)
	var exited []int
	var mu sync.Mutex
	// The player waits after each event until the endpoints have been
	// looked at, so the answers never depend on how late a probe runs.
	after, resume := make(chan int), make(chan struct{})
	p := start(t, s, PlayOptions{
		Exit:       func(code int) { mu.Lock(); exited = append(exited, code); mu.Unlock() },
		AfterEvent: func(i int) { after <- i; <-resume },
	})

	type probe struct {
		path string
		code int
		body string
	}
	// What the endpoints answer once the event at each index is done.
	want := map[int][]probe{
		2: {{"/health", 0, ""}},
		3: {{"/health", 503, "{}"}, {"/get_model_info", 503, "{}"}, {"/v1/models", 503, "{}"}},
		4: {{"/health", 200, `{"ok":true}`}, {"/health_generate", 200, `{"ok":true}`},
			{"/v1/models", 200, `{"object":"list","data":[{"id":"org/m","object":"model"}]}`}},
		5: {{"/health", 0, ""}},
	}
	for range 6 { // the exit event, the seventh, ends Play
		var i int
		select {
		case i = <-after:
		case <-time.After(time.Minute):
			t.Fatal("the player did not act out its timeline")
		}
		for _, pr := range want[i] {
			code, body := p.status(t, pr.path)
			if code != pr.code || body != pr.body {
				t.Errorf("after event %d GET %s = %d %q, want %d %q", i, pr.path, code, body, pr.code, pr.body)
			}
		}
		resume <- struct{}{}
	}
	err := p.wait(t, time.Minute)
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 3 || exit.Signal != 0 {
		t.Errorf("Play = %v, want an *ExitError with code 3", err)
	}
	mu.Lock()
	if len(exited) != 1 || exited[0] != 3 {
		t.Errorf("Exit hook calls = %v, want [3]", exited)
	}
	mu.Unlock()

	stamp := time.Now().Format("2006-01-02")
	if got := p.stderr.String(); !strings.HasPrefix(got, "["+stamp) ||
		!strings.HasSuffix(got, "] first\nsecond\nbar 0/2\rbar 1/2\rbar 2/2\n") {
		t.Errorf("stderr = %q, want the rendered lines then the bar", got)
	}
	if got, want := p.stdout.String(), "to stdout\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
}

func TestPlayKeepsServingUntilCancelled(t *testing.T) {
	s := mustParse(t, `[{"t":0,"health":200}]`)
	p := start(t, s, PlayOptions{})
	until(t, "health 200", func() bool { c, _ := p.status(t, "/health"); return c == 200 })
	time.Sleep(100 * time.Millisecond)
	if c, _ := p.status(t, "/health"); c != 200 {
		t.Errorf("after the last event health = %d, want 200", c)
	}
	p.cancel()
	if err := p.wait(t, 2*time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("Play = %v, want context.Canceled", err)
	}
	if c, _ := p.status(t, "/health"); c != 0 {
		t.Errorf("after Play returned health = %d, want a refused connection", c)
	}
}

func TestPlaySignal(t *testing.T) {
	s := mustParse(t, `[{"t":0,"signal":"SIGTERM"}]`)
	var mu sync.Mutex
	var got []string
	p := start(t, s, PlayOptions{
		Signal:      func(sig syscall.Signal) { mu.Lock(); got = append(got, sig.String()); mu.Unlock() },
		Exit:        func(code int) { mu.Lock(); got = append(got, fmt.Sprint("exit ", code)); mu.Unlock() },
		SignalGrace: 10 * time.Millisecond,
	})
	err := p.wait(t, 2*time.Second)
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 1 || exit.Signal != syscall.SIGTERM {
		t.Errorf("Play = %v, want an *ExitError with SIGTERM then code 1", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{syscall.SIGTERM.String(), "exit 1"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("hooks = %q, want %q", got, want)
	}
}

func TestPlayBusyAndHang(t *testing.T) {
	tests := []struct {
		name     string
		timeline string
		min      time.Duration // Play must not end earlier (busy blocks)
		cancelAt time.Duration // 0: the scenario ends by itself
	}{
		{"busy blocks", `[{"t":0,"busy":0.3},{"t":0,"exit":0}]`, 300 * time.Millisecond, 0},
		{"hang idle", `[{"t":0,"hang":"idle"},{"t":0,"exit":0}]`, 200 * time.Millisecond, 200 * time.Millisecond},
		{"hang busy", `[{"t":0,"hang":"busy"},{"t":0,"exit":0}]`, 200 * time.Millisecond, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Now()
			p := start(t, mustParse(t, tt.timeline), PlayOptions{})
			if tt.cancelAt > 0 {
				time.Sleep(tt.cancelAt)
				p.cancel()
			}
			err := p.wait(t, 2*time.Second)
			if d := time.Since(t0); d < tt.min {
				t.Errorf("Play ended after %v, want at least %v", d, tt.min)
			}
			if tt.cancelAt > 0 && !errors.Is(err, context.Canceled) {
				t.Errorf("Play = %v, want context.Canceled", err)
			}
			var exit *ExitError
			if tt.cancelAt == 0 && (!errors.As(err, &exit) || exit.Code != 0) {
				t.Errorf("Play = %v, want an *ExitError with code 0", err)
			}
		})
	}
}

func TestPlayListenFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s := mustParse(t, `[{"t":0,"health":503}]`)
	err = Play(context.Background(), s, PlayOptions{Port: ln.Addr().(*net.TCPAddr).Port})
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("Play on a taken port = %v, want address already in use", err)
	}
}

// post sends a generation request and returns the status and body.
func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestGeneration(t *testing.T) {
	const text = "Paris is the capital"
	tests := []struct {
		name   string
		gen    string // the gen event; "" for none (player.py's default)
		health int
		path   string
		req    string
		code   int
		want   string
	}{
		{"chat", `{"mode":"ok","tok_s":0,"text":"` + text + `"}`, 200, "/v1/chat/completions", `{"max_tokens":6}`, 200,
			`{"id":"x","object":"chat.completion","model":"org/m","choices":[{"index":0,"finish_reason":"length","message":{"role":"assistant","content":"Paris is the capital Paris is"}}],"usage":{"prompt_tokens":8,"completion_tokens":6,"total_tokens":14}}`},
		{"completion", `{"mode":"ok","tok_s":1000,"text":"` + text + `"}`, 200, "/v1/completions", `{"max_tokens":2}`, 200,
			`{"id":"x","object":"text_completion","model":"org/m","choices":[{"index":0,"finish_reason":"length","text":"Paris is"}],"usage":{"prompt_tokens":8,"completion_tokens":2,"total_tokens":10}}`},
		{"default gen", "", 200, "/v1/completions", `{}`, 200, ""},
		{"sglang generate", `{"mode":"ok","tok_s":0,"text":"` + text + `"}`, 200, "/generate", `{"text":"x","sampling_params":{"max_new_tokens":3}}`, 200,
			`{"text":"Paris is the","meta_info":{"completion_tokens":3}}`},
		{"nan", `{"mode":"nan","tok_s":0}`, 200, "/v1/completions", `{"max_tokens":2}`, 200,
			`{"id":"x","object":"text_completion","model":"org/m","choices":[{"index":0,"finish_reason":"length","text":"!!!!!!!! !!!!!!!!"}],"usage":{"prompt_tokens":8,"completion_tokens":2,"total_tokens":10}}`},
		{"empty", `{"mode":"empty"}`, 200, "/v1/chat/completions", `{"max_tokens":4}`, 200,
			`{"id":"x","object":"chat.completion","model":"org/m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":8,"completion_tokens":0,"total_tokens":8}}`},
		{"error", `{"mode":"error"}`, 200, "/v1/chat/completions", `{}`, 500, `{"error":"internal error"}`},
		{"not ready", "", 503, "/v1/chat/completions", `{}`, 503, `{"error":"not ready"}`},
		{"health_generate while not ready", `{"mode":"ok","tok_s":0,"text":"hi"}`, 503, "/health_generate", `{"max_tokens":1}`, 200,
			`{"id":"x","object":"text_completion","model":"org/m","choices":[{"index":0,"finish_reason":"length","text":"hi"}],"usage":{"prompt_tokens":8,"completion_tokens":1,"total_tokens":9}}`},
		{"garbage request", `{"mode":"ok","tok_s":0,"text":"a"}`, 200, "/v1/completions", `[1,2`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			timeline := fmt.Sprintf(`[{"t":0,"health":%d}]`, tt.health)
			if tt.gen != "" {
				timeline = fmt.Sprintf(`[{"t":0,"gen":%s},{"t":0,"health":%d}]`, tt.gen, tt.health)
			}
			p := start(t, mustParse(t, timeline), PlayOptions{})
			until(t, "the port", func() bool { c, _ := p.status(t, "/health"); return c == tt.health })
			code, body := post(t, p.url(tt.path), tt.req)
			if code != tt.code {
				t.Errorf("POST %s = %d, want %d (body %q)", tt.path, code, tt.code, body)
			}
			if tt.want != "" && body != tt.want {
				t.Errorf("POST %s body =\n%s\nwant\n%s", tt.path, body, tt.want)
			}
			if tt.want == "" && tt.code == 200 {
				var c struct {
					Choices []struct{ Text string } `json:"choices"`
				}
				if err := json.Unmarshal([]byte(body), &c); err != nil || len(c.Choices) != 1 || len(strings.Fields(c.Choices[0].Text)) != 32 {
					t.Errorf("POST %s body = %q, want 32 words (the default max_tokens)", tt.path, body)
				}
			}
		})
	}
}

func TestGenerationStreaming(t *testing.T) {
	tests := []struct {
		name string
		path string
		req  string
		want []string // the data: payloads
	}{
		{"chat with usage", "/v1/chat/completions", `{"stream":true,"max_tokens":3,"stream_options":{"include_usage":true}}`, []string{
			`{"id":"x","object":"chat.completion.chunk","model":"org/m","choices":[{"index":0,"delta":{"content":"one"}}]}`,
			`{"id":"x","object":"chat.completion.chunk","model":"org/m","choices":[{"index":0,"delta":{"content":" two"}}]}`,
			`{"id":"x","object":"chat.completion.chunk","model":"org/m","choices":[{"index":0,"delta":{"content":" one"}}]}`,
			`{"id":"x","object":"chat.completion.chunk","model":"org/m","choices":[{"index":0,"finish_reason":"length","delta":{}}],"usage":{"prompt_tokens":8,"completion_tokens":3,"total_tokens":11}}`,
			`[DONE]`,
		}},
		{"completion without usage", "/v1/completions", `{"stream":1,"max_tokens":2}`, []string{
			`{"id":"x","object":"text_completion","model":"org/m","choices":[{"index":0,"text":"one"}]}`,
			`{"id":"x","object":"text_completion","model":"org/m","choices":[{"index":0,"text":" two"}]}`,
			`{"id":"x","object":"chat.completion.chunk","model":"org/m","choices":[{"index":0,"finish_reason":"length","delta":{}}]}`,
			`[DONE]`,
		}},
	}
	p := start(t, mustParse(t, `[{"t":0,"gen":{"mode":"ok","tok_s":100,"text":"one two"}},{"t":0,"health":200}]`), PlayOptions{})
	until(t, "health 200", func() bool { c, _ := p.status(t, "/health"); return c == 200 })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(p.url(tt.path), "application/json", strings.NewReader(tt.req))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type = %q, want text/event-stream", ct)
			}
			var got []string
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					got = append(got, line)
				} else if sc.Text() != "" {
					t.Errorf("unexpected line %q", sc.Text())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("events =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestDownload(t *testing.T) {
	tests := []struct {
		name string
		stop bool
	}{
		{"finishes", false},
		{"network gone", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hf := t.TempDir()
			s := mustParse(t, fmt.Sprintf(`[{"t":0,"download":{"repo":"Qwen/Qwen3-0.6B","mb_s":10,"dur":0.4,"stop":%v}},{"t":0,"out":"after"}]`, tt.stop))
			p := start(t, s, PlayOptions{HFHome: hf})
			blob := BlobPath(hf, "Qwen/Qwen3-0.6B")
			if want := filepath.Join(hf, "hub", "models--Qwen--Qwen3-0.6B", "blobs"); filepath.Dir(blob) != want || !strings.HasSuffix(blob, ".incomplete") {
				t.Fatalf("BlobPath = %q, want a *.incomplete in %q", blob, want)
			}
			var sizes []int64
			for range 3 {
				time.Sleep(100 * time.Millisecond)
				if fi, err := os.Stat(blob); err == nil {
					sizes = append(sizes, fi.Size())
				}
			}
			if len(sizes) < 2 || sizes[len(sizes)-1] <= sizes[0] {
				t.Errorf("blob sizes while downloading = %v, want growing", sizes)
			}
			final := strings.TrimSuffix(blob, ".incomplete")
			if tt.stop {
				time.Sleep(400 * time.Millisecond)
				if _, err := os.Stat(blob); err != nil {
					t.Errorf("stopped download: %v, want the .incomplete file kept", err)
				}
				if p.stdout.String() != "" {
					t.Errorf("stopped download went on to the next event")
				}
				return
			}
			until(t, "the renamed blob", func() bool { _, err := os.Stat(final); return err == nil })
			fi, err := os.Stat(final)
			if err != nil {
				t.Fatalf("finished download: %v", err)
			}
			// 10 MB/s in 100 ms chunks for 0.4 s: 4 or 5 chunks of 1 MiB.
			if mb := fi.Size() >> 20; mb < 3 || mb > 6 {
				t.Errorf("blob size = %d MiB, want about 4", mb)
			}
			until(t, "the next event", func() bool { return p.stdout.String() == "after\n" })
		})
	}
}
