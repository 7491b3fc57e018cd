// Command latency measures how long vigil takes from the decisive event
// of a startup to its verdict line. It plays scenarios with a traced player
// (this program itself, run as `latency play`), which notes the wall-clock
// time of every line it writes and of its exit or signal; vigil runs it
// with `vigil run --json`, and the time the verdict line arrives on vigil's
// stdout is compared with the decisive event's:
//
//   - ready: the later of the first health 200 and the ready line (when
//     the scenario prints one);
//   - fatal line: when vigil decided failed before the process ended, the
//     last line written before the verdict, which completed the evidence
//     of the first line a fatal catalogue rule matches (how long after
//     that first line it came is shown too);
//   - exit, signal: the process's end, when it came before the verdict
//     (how long before it the first fatal line came is shown too);
//   - stalled and timeout endings depend on windows and are left out.
//
// It prints each run's latency, then per kind of ending the median, the
// p99 and the maximum.
//
//	go build -o /tmp/vigil ./cmd/vigil
//	go run ./bench/latency -vigil /tmp/vigil testdata/scenarios/shared/*.json
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"vigil/internal/classify"
	"vigil/internal/scenario"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "play" {
		os.Exit(play(os.Args[2:]))
	}
	vigil := flag.String("vigil", "vigil", "the vigil binary")
	runs := flag.Int("n", 3, "runs per scenario")
	maxLen := flag.Float64("max-len", 30, "skip scenarios whose timeline is longer (seconds)")
	flag.Parse()
	if flag.NArg() == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: latency [-vigil PATH] [-n RUNS] [-max-len SECONDS] SCENARIO.json...")
		os.Exit(2)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "latency:", err)
		os.Exit(2)
	}
	byKind := map[string][]time.Duration{}
	for _, path := range flag.Args() {
		sc, err := scenario.Load(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "latency:", err)
			os.Exit(2)
		}
		if v := string(sc.Expect.Verdict); v == "stalled" || v == "timeout" {
			continue
		}
		if n := len(sc.Timeline); n > 0 && sc.Timeline[n-1].T > *maxLen {
			continue
		}
		for range *runs {
			r, err := measure(self, *vigil, path, sc)
			name := filepath.Base(path)
			if err != nil {
				fmt.Printf("%-58s %s\n", name, err)
				continue
			}
			fmt.Printf("%-58s %-10s %-8s %7.1f ms %s\n", name, r.kind, r.verdict, ms(r.latency), r.note)
			byKind[r.kind] = append(byKind[r.kind], r.latency)
		}
	}
	fmt.Println()
	var all []time.Duration
	for _, k := range []string{"ready", "fatal line", "exit", "signal"} {
		ls := byKind[k]
		if len(ls) == 0 {
			continue
		}
		all = append(all, ls...)
		fmt.Printf("%-10s n=%-3d median %7.1f ms  p99 %7.1f ms  max %7.1f ms\n", k, len(ls), ms(quantile(ls, 0.5)), ms(quantile(ls, 0.99)), ms(slices.Max(ls)))
	}
	if len(all) > 0 {
		fmt.Printf("%-10s n=%-3d median %7.1f ms  p99 %7.1f ms  max %7.1f ms\n", "all", len(all), ms(quantile(all, 0.5)), ms(quantile(all, 0.99)), ms(slices.Max(all)))
	}
}

type result struct {
	kind, verdict, note string
	latency             time.Duration
}

// trace is what the player noted.
type trace struct {
	start       time.Time
	lines       []tracedLine
	end         time.Time // exit or signal
	endKind     string
	healthyFrom time.Time // the first health 200, from the timeline
}

type tracedLine struct {
	at   time.Time
	text string
}

func measure(self, vigil, path string, sc *scenario.Scenario) (result, error) {
	dir, err := os.MkdirTemp("", "latency")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	port, err := freePort()
	if err != nil {
		return result{}, err
	}
	argv := slices.Clone(sc.Argv)
	if i := slices.Index(argv, "--port"); i >= 0 && i+1 < len(argv) {
		argv[i+1] = strconv.Itoa(port)
	}
	tracePath := filepath.Join(dir, "trace")
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	args := append([]string{"run", "--json", "--url", url, "--no-history"}, sc.VigilArgs...)
	pidfile := filepath.Join(dir, "server.pid")
	// A server judged ready keeps running after vigil exits: stop it.
	defer func() {
		if b, err := os.ReadFile(pidfile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
		}
	}()
	args = append(args, "--", self, "play", "--port", strconv.Itoa(port), "--pidfile", pidfile, "--trace", tracePath, path, "--")
	args = append(args, argv...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, vigil, args...)
	cmd.Env = append(os.Environ(), "HF_HOME="+filepath.Join(dir, "hf"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	var verdictAt time.Time
	verdict := ""
	sc2 := bufio.NewScanner(out)
	sc2.Buffer(make([]byte, 1<<20), 1<<20)
	for sc2.Scan() {
		at := time.Now()
		var ev struct {
			Event   string `json:"event"`
			Verdict string `json:"verdict"`
		}
		if json.Unmarshal(sc2.Bytes(), &ev) == nil && ev.Event == "verdict" && verdictAt.IsZero() {
			verdictAt, verdict = at, ev.Verdict
		}
	}
	cmd.Wait()
	if verdictAt.IsZero() {
		return result{}, errors.New("no verdict")
	}
	tr, err := readTrace(tracePath, sc)
	if err != nil {
		return result{}, err
	}
	prof := classify.Lookup(sc.Server)
	r := result{verdict: verdict}
	var decisive time.Time
	switch verdict {
	case "ready":
		r.kind, decisive = "ready", tr.healthyFrom
		for _, l := range tr.lines {
			if l.at.Before(verdictAt) && prof.Classify(l.text).Ready {
				if l.at.After(decisive) {
					decisive = l.at
				}
				break
			}
		}
	case "failed":
		var fatal time.Time
		for _, l := range tr.lines {
			if f := prof.Classify(l.text).Failure; f != nil && f.Fatal && l.at.Before(verdictAt) {
				fatal = l.at
				break
			}
		}
		switch {
		case !tr.end.IsZero() && tr.end.Before(verdictAt):
			// The process ended first: its end completed the evidence.
			r.kind, decisive = tr.endKind, tr.end
			if !fatal.IsZero() {
				r.note = fmt.Sprintf("(first fatal line %.1f ms before the end)", ms(tr.end.Sub(fatal)))
			}
		case !fatal.IsZero():
			// Decided while the process ran: the evidence was complete
			// with the last line written before the verdict (the first
			// fatal line, or the rest of its traceback or echoes).
			last := fatal
			for _, l := range tr.lines {
				if l.at.Before(verdictAt) && l.at.After(last) {
					last = l.at
				}
			}
			r.kind, decisive = "fatal line", last
			if last.After(fatal) {
				r.note = fmt.Sprintf("(first fatal line %.1f ms before the last line)", ms(last.Sub(fatal)))
			}
		}
	default:
		return result{}, fmt.Errorf("verdict %s: not measured", verdict)
	}
	if decisive.IsZero() || r.kind == "" {
		// Decided by something the trace does not show: the smoke
		// test's answer, or the health endpoint's.
		return result{}, fmt.Errorf("verdict %s without a fatal line or an end: not measured", verdict)
	}
	r.latency = verdictAt.Sub(decisive)
	return r, nil
}

func readTrace(path string, sc *scenario.Scenario) (*trace, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the player left no trace: %w", err)
	}
	tr := &trace{}
	for _, line := range strings.Split(string(b), "\n") {
		ns, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			continue
		}
		at := time.Unix(0, n)
		kind, text, _ := strings.Cut(rest, " ")
		switch kind {
		case "start":
			tr.start = at
		case "line":
			tr.lines = append(tr.lines, tracedLine{at, text})
		case "exit", "signal":
			tr.end, tr.endKind = at, kind
		}
	}
	if tr.start.IsZero() {
		return nil, errors.New("the trace has no start")
	}
	for _, ev := range sc.Timeline {
		if ev.Kind == scenario.KindHealth && ev.Health == 200 {
			tr.healthyFrom = tr.start.Add(time.Duration(ev.T * float64(time.Second)))
			break
		}
	}
	return tr, nil
}

// play is the traced player: `latency play --port P --trace FILE SCENARIO
// -- ARGV...`. The words after -- only show in its command line.
func play(args []string) int {
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	port := fs.Int("port", 30000, "port of the endpoints")
	tracePath := fs.String("trace", "", "the trace file")
	pidfile := fs.String("pidfile", "", "where to write this player's PID (the group vigil launched)")
	if err := fs.Parse(args); err != nil || fs.NArg() < 1 || *tracePath == "" {
		fmt.Fprintln(os.Stderr, "usage: latency play --port P --trace FILE SCENARIO [-- ARGV...]")
		return 2
	}
	sc, err := scenario.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "latency play:", err)
		return 2
	}
	f, err := os.OpenFile(*tracePath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "latency play:", err)
		return 2
	}
	if *pidfile != "" {
		if err := os.WriteFile(*pidfile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "latency play:", err)
			return 2
		}
	}
	t := &tracer{f: f}
	t.note("start", "")
	err = scenario.Play(context.Background(), sc, scenario.PlayOptions{
		Port:   *port,
		Stdout: &lineTracer{t: t, w: os.Stdout},
		Stderr: &lineTracer{t: t, w: os.Stderr},
		Exit: func(code int) {
			t.note("exit", strconv.Itoa(code))
			os.Exit(code)
		},
		Signal: func(sig syscall.Signal) {
			t.note("signal", strconv.Itoa(int(sig)))
			scenario.DieBySignal(sig)
		},
	})
	var exit *scenario.ExitError
	if errors.As(err, &exit) {
		return exit.Code
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "latency play:", err)
		return 1
	}
	return 0
}

// tracer writes "UNIX_NS KIND TEXT" lines, each with one write.
type tracer struct {
	mu sync.Mutex
	f  *os.File
}

func (t *tracer) note(kind, text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.f, "%d %s %s\n", time.Now().UnixNano(), kind, text)
}

// lineTracer passes output on and notes when each complete line was
// written (after the write, as that is when a reader can see it).
type lineTracer struct {
	t       *tracer
	w       *os.File
	pending []byte
}

func (l *lineTracer) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	l.pending = append(l.pending, p[:n]...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			break
		}
		l.t.note("line", strings.TrimRight(string(l.pending[:i]), "\r"))
		l.pending = l.pending[i+1:]
	}
	return n, err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// quantile is the nearest-rank q-quantile: with fewer than 100 runs the
// p99 is the maximum.
func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
