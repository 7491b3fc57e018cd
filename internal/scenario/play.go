package scenario

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// PlayOptions configure Play.
type PlayOptions struct {
	// Port is where the HTTP endpoints listen, on 127.0.0.1.
	Port int
	// Stdout and Stderr receive the scenario's out and err lines (nil:
	// discarded). They may be the same writer (a log file).
	Stdout, Stderr io.Writer
	// HFHome is the Hugging Face home a download grows its blob in (empty:
	// $HF_HOME, else ~/.cache/huggingface).
	HFHome string
	// Exit is called for an exit event, and with 1 when a signal event's
	// signal did not end the process. The real player exits there; if Exit
	// returns (or is nil), Play returns an *ExitError.
	Exit func(code int)
	// Signal is called for a signal event. The real player sends the signal
	// to itself (see DieBySignal). If it returns, Play waits SignalGrace and
	// then exits with status 1, as player.py does.
	Signal func(sig syscall.Signal)
	// SignalGrace is how long to wait after Signal returns (0: 5 s).
	SignalGrace time.Duration
	// AfterEvent, when set, is called after timeline event i has been
	// acted out and before the wait for the next: a test holds the player
	// there to look at its endpoints without racing the clock.
	AfterEvent func(i int)
}

// ExitError is how Play reports that the scenario ended the process: with
// exit status Code, after Signal when the ending was a signal event.
type ExitError struct {
	Code   int
	Signal syscall.Signal
}

func (e *ExitError) Error() string {
	if e.Signal != 0 {
		return fmt.Sprintf("scenario died by signal %d (then exited with status %d)", int(e.Signal), e.Code)
	}
	return fmt.Sprintf("scenario exited with status %d", e.Code)
}

// Play acts out sc: it sleeps until each event's time (seconds since Play
// started) and performs it, serving the HTTP endpoints on 127.0.0.1:Port
// while health is not 0. It returns when the scenario ends the process (an
// *ExitError, after the Exit hook), when ctx is done (ctx.Err(), also during
// a hang), or with an error if the port cannot be listened on. A scenario
// that ends otherwise keeps serving until ctx is done, as a healthy server
// keeps running.
func Play(ctx context.Context, sc *Scenario, opts PlayOptions) error {
	p := &player{
		opts:  opts,
		model: sc.ModelName(),
		port:  opts.Port,
		out:   orDiscard(opts.Stdout),
		err:   orDiscard(opts.Stderr),
	}
	p.state.gen = DefaultGen
	if p.opts.HFHome == "" {
		p.opts.HFHome = DefaultHFHome(os.Getenv)
	}
	defer p.setListening(false)

	start := time.Now()
	for i, ev := range sc.Timeline {
		if err := sleepUntil(ctx, start.Add(secs(ev.T))); err != nil {
			return err
		}
		if err := p.do(ctx, ev); err != nil {
			return err
		}
		if p.opts.AfterEvent != nil {
			p.opts.AfterEvent(i)
		}
	}
	<-ctx.Done()
	return ctx.Err()
}

// DefaultHFHome is where Hugging Face keeps its cache: $HF_HOME, else
// ~/.cache/huggingface. getenv is os.Getenv or a stand-in.
func DefaultHFHome(getenv func(string) string) string {
	if h := getenv("HF_HOME"); h != "" {
		return h
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".cache", "huggingface")
}

// BlobPath is the *.incomplete file a download event of repo grows under
// hfHome; without ".incomplete" it is the finished blob.
func BlobPath(hfHome, repo string) string {
	sum := sha1.Sum([]byte(repo))
	return filepath.Join(hfHome, "hub", "models--"+strings.ReplaceAll(repo, "/", "--"),
		"blobs", hex.EncodeToString(sum[:])+".incomplete")
}

type player struct {
	opts     PlayOptions
	model    string
	port     int
	out, err io.Writer

	server // the HTTP side, with the state it answers from
}

func (p *player) do(ctx context.Context, ev Event) error {
	switch ev.Kind {
	case KindErr:
		writeLines(p.err, ev.Lines)
	case KindOut:
		writeLines(p.out, ev.Lines)
	case KindProgress:
		return p.progress(ctx, ev.Progress)
	case KindHealth:
		body := "{}"
		if ev.Health == 200 {
			body = `{"status":"ok"}`
		}
		if ev.Body != nil {
			body = *ev.Body
		}
		p.mu.Lock()
		p.state.health, p.state.body = ev.Health, body
		p.mu.Unlock()
		return p.setListening(ev.Health != 0)
	case KindGen:
		p.mu.Lock()
		p.state.gen = *ev.Gen
		p.mu.Unlock()
	case KindBusy:
		spin(ctx, secs(ev.Busy))
		return ctx.Err()
	case KindDownload:
		return download(ctx, p.opts.HFHome, ev.Download)
	case KindHang:
		if ev.Hang == "busy" {
			spin(ctx, -1)
		}
		<-ctx.Done()
		return ctx.Err()
	case KindExit:
		if p.opts.Exit != nil {
			p.opts.Exit(ev.Exit)
		}
		return &ExitError{Code: ev.Exit}
	case KindSignal:
		sig := signals[ev.Signal]
		if p.opts.Signal != nil {
			p.opts.Signal(sig)
		}
		grace := p.opts.SignalGrace
		if grace <= 0 {
			grace = 5 * time.Second
		}
		if err := sleepFor(ctx, grace); err != nil {
			return err
		}
		if p.opts.Exit != nil {
			p.opts.Exit(1)
		}
		return &ExitError{Code: 1, Signal: sig}
	}
	return nil
}

// writeLines writes the rendered lines, each with a newline, in one write
// (one append to a log file).
func writeLines(w io.Writer, lines []string) {
	var b strings.Builder
	now := time.Now()
	for _, l := range lines {
		b.WriteString(Render(l, now))
		b.WriteByte('\n')
	}
	_, _ = io.WriteString(w, b.String())
}

// progress draws a tqdm-style bar on stderr: the line for i = 0..To spread
// evenly over Dur, separated by "\r" (cr) or "\n", with a final newline.
func (p *player) progress(ctx context.Context, pr *Progress) error {
	sep := "\n"
	if pr.CR {
		sep = "\r"
	}
	t0 := time.Now()
	for i := 0; i <= pr.To; i++ {
		target := t0
		if pr.To > 0 {
			target = t0.Add(secs(pr.Dur * float64(i) / float64(pr.To)))
		}
		if err := sleepUntil(ctx, target); err != nil {
			return err
		}
		line, err := ProgressLine(pr, i, time.Since(t0).Seconds())
		if err != nil { // checked by Parse; a hand-built scenario prints fmt as is
			line = pr.Fmt
		}
		end := sep
		if i == pr.To {
			end = "\n"
		}
		_, _ = io.WriteString(p.err, Render(line, time.Now())+end)
	}
	return nil
}

// download grows the repo's blob at MBs for Dur seconds, writing a tenth of
// a second's worth every 100 ms (little CPU), then renames it to its final
// name; with Stop it idles until ctx is done instead.
func download(ctx context.Context, hfHome string, d *Download) error {
	path := BlobPath(hfHome, d.Repo)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("download: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	chunk := int64(d.MBs * 1024 * 1024 / 10)
	zeros := make([]byte, min(chunk, 1<<20))
	end := time.Now().Add(secs(d.Dur))
	for time.Now().Before(end) {
		for left := chunk; left > 0; left -= int64(len(zeros)) {
			if _, err := f.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
				f.Close()
				return fmt.Errorf("download: %w", err)
			}
		}
		if err := sleepFor(ctx, 100*time.Millisecond); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("download: %w", err)
	}
	if d.Stop {
		<-ctx.Done()
		return ctx.Err()
	}
	if err := os.Rename(path, strings.TrimSuffix(path, ".incomplete")); err != nil {
		return fmt.Errorf("download: %w", err)
	}
	return nil
}

// spin burns CPU for d (forever if d < 0) or until ctx is done.
func spin(ctx context.Context, d time.Duration) {
	end := time.Now().Add(d)
	x := 0
	for d < 0 || time.Now().Before(end) {
		for j := 0; j < 20000; j++ {
			x += j
		}
		if ctx.Err() != nil {
			return
		}
	}
	_ = x
}

func secs(s float64) time.Duration {
	return time.Duration(clamp(s, -maxSecond, maxSecond) * float64(time.Second))
}

func sleepUntil(ctx context.Context, t time.Time) error {
	return sleepFor(ctx, time.Until(t))
}

func sleepFor(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
