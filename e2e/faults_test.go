package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"vigil/internal/scenario"
)

// The tests here inject faults around a startup rather than in the log's
// words: a log flooded at tens of MB/s, vigil SIGKILLed while it waits on a
// ready server's health, health endpoints that hang, answer late or reset,
// an nvidia-smi that never returns, and a log on a full filesystem. Each
// checks that vigil still decides, on time, the verdict the server earned,
// and never harms (or leaks) a process. The servers are the shell scripts
// of testdata/servers; the faulty health endpoints are listeners of the
// test itself.

// An SGLang startup from its arguments to the end of the weight load.
const faultSGLangLoad = "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B-Instruct', tokenizer_path='Qwen/Qwen2.5-7B-Instruct', tp_size=1, host='127.0.0.1', port=30000, mem_fraction_static=0.874)\n" +
	"[2026-11-29 10:00:00 TP0] Attention backend not set. Use fa3 backend by default.\n" +
	"[2026-11-29 10:00:00 TP0] Init torch distributed begin.\n" +
	"[2026-11-29 10:00:01 TP0] Init torch distributed ends. mem usage=0.00 GB\n" +
	"[2026-11-29 10:00:01 TP0] Load weight begin. avail mem=78.58 GB\n" +
	"[2026-11-29 10:00:04 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=64.18 GB, mem usage=14.40 GB.\n"

// The rest of that startup, through SGLang's ready line.
const faultSGLangUp = "[2026-11-29 10:00:04 TP0] KV Cache is allocated. #tokens: 951104, K size: 25.40 GB, V size: 25.40 GB\n" +
	"[2026-11-29 10:00:04 TP0] Memory pool end. avail mem=12.86 GB\n" +
	"[2026-11-29 10:00:05 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=12.27 GB\n" +
	"[2026-11-29 10:00:07 TP0] Capture cuda graph end. Time elapsed: 2.61 s. mem usage=0.47 GB. avail mem=11.80 GB.\n" +
	"[2026-11-29 10:00:07 TP0] max_total_num_tokens=951104, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=4096, context_len=32768, available_gpu_mem=11.80 GB\n" +
	"[2026-11-29 10:00:08] INFO:     Started server process [31337]\n" +
	"[2026-11-29 10:00:08] INFO:     Waiting for application startup.\n" +
	"[2026-11-29 10:00:08] INFO:     Application startup complete.\n" +
	"[2026-11-29 10:00:08] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)\n" +
	"[2026-11-29 10:00:09] INFO:     127.0.0.1:52110 - \"GET /get_model_info HTTP/1.1\" 200 OK\n" +
	"[2026-11-29 10:00:09 TP0] Prefill batch. #new-seq: 1, #new-token: 6, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0\n" +
	"[2026-11-29 10:00:10] INFO:     127.0.0.1:52120 - \"POST /generate HTTP/1.1\" 200 OK\n" +
	"[2026-11-29 10:00:10] The server is fired up and ready to roll!\n"

// SGLang's scheduler failing to allocate its KV pool, and the parent
// noticing.
const faultSGLangKVOOM = "[2026-11-29 10:00:15 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
	"  File \"/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py\", line 2311, in run_scheduler_process\n" +
	"    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)\n" +
	"  File \"/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py\", line 268, in __init__\n" +
	"    self.tp_worker = TpModelWorker(\n" +
	"  File \"/usr/local/lib/python3.10/dist-packages/sglang/srt/model_executor/model_runner.py\", line 1157, in init_memory_pool\n" +
	"    raise RuntimeError(\n" +
	"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n" +
	"\n" +
	"[2026-11-29 10:00:15] Received sigquit from a child process. It usually means the child failed.\n"

// The line the flooding server repeats.
const faultFloodLine = "[2026-11-29 10:00:05 TP0] Decode batch. #running-req: 1, #token: 100, token usage: 0.00, gen throughput (token/s): 50.00, #queue-req: 0"

// faultServer is the absolute path of testdata/servers/NAME.
func faultServer(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "servers", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func faultWrite(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func fileSizeOf(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

func mtimeOf(t *testing.T, path string) time.Time {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%v (the server did not get that far)", err)
	}
	return fi.ModTime()
}

// floodChunk is the largest whole number of faultFloodLine lines that fits
// in n bytes, in bytes.
func floodChunk(n int) int {
	l := len(faultFloodLine) + 1
	return n / l * l
}

// TestFloodedLog: a server floods its log at ~50 MB/s for 10 s, then fails
// with SGLang's KV-pool OOM. vigil must keep up: the root cause named
// within ~3 s of the server's exit, the log byte-exact, its memory flat.
func TestFloodedLog(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	const (
		floodSeconds = 10
		floodRate    = 50 << 20 // bytes a second
	)
	sb := newSandbox(t)
	chunk := floodChunk(floodRate)
	head, tail := sb.path("head"), sb.path("tail")
	faultWrite(t, head, faultSGLangLoad, 0o644)
	faultWrite(t, tail, faultSGLangKVOOM, 0o644)
	logPath, pidfile := sb.path("server.log"), sb.path("server.pid")
	startFile, doneFile := sb.path("flood.start"), sb.path("flood.done")
	killPidfileGroupAtEnd(t, pidfile)
	env := sb.with("SERVER_PIDFILE="+pidfile, "HEAD_FILE="+head, "TAIL_FILE="+tail,
		"START_FILE="+startFile, "DONE_FILE="+doneFile, "FLOOD_LINE="+faultFloodLine,
		"FLOOD_SECONDS="+strconv.Itoa(floodSeconds), "FLOOD_CHUNK="+strconv.Itoa(chunk))
	// Nothing listens at the URL (refused), as before any server's HTTP
	// server starts. --stall-after is longer than the flood: the verdict
	// must come from the traceback, not from a stall rule. The verdict
	// waits for the whole log to be read, which on a loaded machine may
	// take much longer than the flood: --timeout and the wait leave room
	// for that, and how fast vigil reads is measured by
	// BenchmarkFloodedLog (internal/monitor), not here.
	url := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	v := startVigil(t, env, "run", "--json", "--url", url, "--log-file", logPath,
		"--stall-after", "20s", "--timeout", "5m", "--grace", "2s", "--", "sh", faultServer(t, "flood.sh"))
	if !v.wait(t, 4*time.Minute) {
		return
	}
	got := expectVerdict(t, v, "failed", "gpu_oom")
	if got != nil && !slices.ContainsFunc(evidence(got), func(l string) bool { return strings.Contains(l, "Not enough memory") }) {
		t.Errorf("no evidence line holds the RuntimeError: %q", evidence(got))
	}

	started, done := mtimeOf(t, startFile), mtimeOf(t, doneFile)
	floodBytes := int64(floodSeconds * chunk)
	rate := float64(floodBytes) / done.Sub(started).Seconds()
	decided := v.exited.Sub(done)
	t.Logf("flood: %d MB in %.1fs (%.1f MB/s); vigil exited %.2fs after the flood ended, %.1fs in all; peak RSS %.1f MiB; --json stdout %d bytes",
		floodBytes>>20, done.Sub(started).Seconds(), rate/(1<<20), decided.Seconds(), v.exited.Sub(v.started).Seconds(),
		float64(v.maxRSS)/(1<<20), len(v.stdout.Bytes()))
	if rate < 10<<20 {
		t.Logf("note: the machine only flooded at %.1f MB/s (aimed at %d MB/s)", rate/(1<<20), floodRate>>20)
	}
	want := int64(len(faultSGLangLoad)) + floodBytes + int64(len(faultSGLangKVOOM))
	if size := fileSizeOf(logPath); size != want {
		t.Errorf("the log is %d bytes; the server wrote %d", size, want)
	}
	if v.maxRSS > maxVigilRSS {
		t.Errorf("vigil's peak RSS was %d MiB over the flood, want under %d MiB", v.maxRSS>>20, maxVigilRSS>>20)
	}
	if v.maxRSS == 0 {
		t.Errorf("vigil's peak RSS was never read from /proc")
	}
}

// faultHealth is a health endpoint that misbehaves, served by the test on
// a loopback port of its own.
type faultHealth struct {
	url   string
	conns atomic.Int64 // connections accepted
}

// startFaultHealth listens on a free loopback port and treats every
// connection as mode says:
//
//	"hang"     accept, read, never answer
//	"slow200"  read the request, answer 200 {} after 3 s
//	"reset"    accept and reset at once (SO_LINGER 0, then close)
//
// Everything is closed when t ends.
func startFaultHealth(t *testing.T, mode string) *faultHealth {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &faultHealth{url: "http://" + l.Addr().String()}
	stop := make(chan struct{})
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	keep := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			h.conns.Add(1)
			switch mode {
			case "reset":
				_ = c.(*net.TCPConn).SetLinger(0)
				_ = c.Close()
			case "hang":
				keep(c)
				wg.Go(func() { _, _ = io.Copy(io.Discard, c) })
			case "slow200":
				keep(c)
				wg.Go(func() {
					if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
						return
					}
					select {
					case <-time.After(3 * time.Second):
					case <-stop:
						return
					}
					_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
					_ = c.Close()
				})
			default:
				panic("startFaultHealth: unknown mode " + mode)
			}
		}
	})
	t.Cleanup(func() {
		close(stop)
		_ = l.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return h
}

// TestVigilKilledDuringReadyWait: vigil SIGKILLed after the server's ready
// line, while it still waits on the health endpoint, leaves the server
// running and logging. (SIGKILL during the loading phases is
// TestVigilKilledLeavesServerRunning's.)
func TestVigilKilledDuringReadyWait(t *testing.T) {
	needVigil(t)
	t.Parallel()
	for _, c := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"health never answers", func(t *testing.T) string { return startFaultHealth(t, "hang").url }},
		{"nothing listens", func(t *testing.T) string { return fmt.Sprintf("http://127.0.0.1:%d", freePort(t)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			takeSlot(t)
			sb := newSandbox(t)
			head := sb.path("head")
			faultWrite(t, head, faultSGLangLoad+faultSGLangUp, 0o644)
			logPath, pidfile := sb.path("server.log"), sb.path("server.pid")
			killPidfileGroupAtEnd(t, pidfile)
			// A long --stall-after: vigil waits up to 10 s for the health
			// endpoint after the ready line before trusting the line alone,
			// and (with nothing listening at an explicit --url) until the
			// timeout.
			v := startVigil(t, sb.with("SERVER_PIDFILE="+pidfile, "HEAD_FILE="+head),
				"run", "--json", "--url", c.url(t), "--log-file", logPath,
				"--stall-after", "30s", "--timeout", "60s", "--", "sh", faultServer(t, "ticking.sh"))
			server := waitPid(t, pidfile, 10*time.Second)
			sawReady := waitUntil(15*time.Second, func() bool {
				return strings.Contains(v.stdout.String(), `"event":"ready_line"`) || v.finished()
			})
			if !sawReady || v.finished() {
				t.Fatalf("vigil never reported the ready line while waiting, or it already exited\n%s", v.excerpt())
			}
			if err := v.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			if !v.wait(t, 10*time.Second) {
				return
			}
			if v.signal != syscall.SIGKILL {
				t.Fatalf("vigil ended with exit %d before the SIGKILL landed\n%s", v.code, v.excerpt())
			}
			if _, verdict, _ := parseEvents(v.stdout.Bytes()); verdict != nil {
				t.Fatalf("vigil decided %s before it was killed: the test missed its window\n%s", verdict.str("verdict"), v.excerpt())
			}
			time.Sleep(time.Second - time.Since(killed))
			if !alive(server) {
				t.Fatalf("the server (pid %d) died within 1s of vigil's SIGKILL", server)
			}
			before := fileSizeOf(logPath)
			// The server writes a line every 0.1 s.
			if !waitUntil(3*time.Second, func() bool { return fileSizeOf(logPath) > before }) {
				t.Errorf("the server's log stopped growing at %d bytes after vigil was killed", before)
			}
			if !alive(server) {
				t.Errorf("the server (pid %d) died after vigil was killed", server)
			}
		})
	}
}

// TestFaultyHealthEndpointNeverAnswered: a server that printed its ready
// line while the --url health endpoint hangs, answers only after the
// probe's timeout or resets every connection has a health endpoint that
// never answered: vigil neither hangs nor trusts the ready line alone
// (contract extension "Health probes"); the verdict is failed with cause
// health soon after the ready line's grace, and the server is stopped.
func TestFaultyHealthEndpointNeverAnswered(t *testing.T) {
	needVigil(t)
	t.Parallel()
	for _, mode := range []string{"hang", "slow200", "reset"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			takeSlot(t)
			h := startFaultHealth(t, mode)
			sb := newSandbox(t)
			chunks := sb.path("chunks")
			if err := os.Mkdir(chunks, 0o755); err != nil {
				t.Fatal(err)
			}
			faultWrite(t, filepath.Join(chunks, "0"), faultSGLangLoad, 0o644)
			faultWrite(t, filepath.Join(chunks, "1"), faultSGLangUp, 0o644)
			logPath, pidfile := sb.path("server.log"), sb.path("server.pid")
			killPidfileGroupAtEnd(t, pidfile)
			env := sb.with("SERVER_PIDFILE="+pidfile, "CHUNKS_DIR="+chunks, "CHUNK_DELAY=0.2", "EXIT_CODE=hang")
			v := startVigil(t, env, "run", "--json", "--url", h.url, "--log-file", logPath,
				"--stall-after", "3s", "--timeout", "40s", "--", "sh", faultServer(t, "emit.sh"))
			if !v.wait(t, 28*time.Second) {
				return
			}
			took := v.exited.Sub(v.started)
			if took > 15*time.Second {
				t.Errorf("vigil took %.1fs (--timeout 40s, --stall-after 3s): it waits on the faulty health endpoint", took.Seconds())
			}
			got := expectVerdict(t, v, "failed", "health")
			t.Logf("%s: %s in %.1fs after %d connections: %s", mode, got.str("verdict"), took.Seconds(), h.conns.Load(), got.str("summary"))
			if h.conns.Load() == 0 {
				t.Errorf("vigil never connected to --url %s", h.url)
			}
			if !strings.Contains(got.str("summary"), "never answered") {
				t.Errorf("summary %q does not say the health endpoint never answered", got.str("summary"))
			}
			if pid := readPid(pidfile); pid == 0 || len(deadWithin(5*time.Second, pid)) > 0 {
				t.Errorf("the server (pid %d) was not stopped\n%s", pid, v.excerpt())
			}
		})
	}
}

// fakeLeftovers lists the live processes that are the fake nvidia-smi
// (their command line names it) or in the process group of one it started
// (vigil runs nvidia-smi as a group leader), as "pid: cmdline".
func fakeLeftovers(fake string, leaders []int) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || !alive(pid) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		cmdline := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
		match := strings.Contains(cmdline, fake)
		if st, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && !match {
			s := string(st)
			if i := strings.LastIndex(s, ") "); i >= 0 {
				// state ppid pgrp ...
				if f := strings.Fields(s[i+2:]); len(f) > 2 {
					if pgrp, err := strconv.Atoi(f[2]); err == nil && slices.Contains(leaders, pgrp) {
						match = true
					}
				}
			}
		}
		if match {
			out = append(out, fmt.Sprintf("%d: %s", pid, cmdline))
		}
	}
	return out
}

// TestNvidiaSmiHangs: with an nvidia-smi that never answers (as one stuck
// in a wedged driver), a normal SGLang startup is still judged ready on
// time, and vigil leaves none of the nvidia-smi processes it started
// behind.
func TestNvidiaSmiHangs(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	path := filepath.Join(repoRoot(t), "testdata", "scenarios", "shared", "sglang-ready-qwen25-7b-single-gpu.json")
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Expect.DecidedBy == nil {
		t.Fatalf("%s has no decided_by", path)
	}
	sb := newSandbox(t)
	bin := sb.path("bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake, started := filepath.Join(bin, "nvidia-smi"), sb.path("nvidia-smi.pids")
	// Not exec: the shell stays (its command line names the fake) with a
	// child, so vigil must stop the whole group, not just its child.
	faultWrite(t, fake, "#!/bin/sh\n# An nvidia-smi stuck in the driver: it never answers.\n"+
		"echo $$ >> '"+started+"'\nsleep 1000\n", 0o755)
	var env []string
	for _, kv := range sb.env {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if p, err := exec.LookPath("nvidia-smi"); err == nil && p != fake {
		t.Logf("note: a real nvidia-smi is at %s; the fake comes first on vigil's PATH", p)
	}

	port := freePort(t)
	pidfile := sb.path("server.pid")
	killPidfileGroupAtEnd(t, pidfile)
	args := append([]string{"run", "--json", "--url", fmt.Sprintf("http://127.0.0.1:%d", port)}, sc.VigilArgs...)
	args = append(args, "--", vigilBin, "play", path, "--port", strconv.Itoa(port), "--pidfile", pidfile, "--")
	args = append(args, playerArgv(sc, port)...)
	t0 := time.Now()
	v := startVigil(t, env, args...)
	if !v.wait(t, 28*time.Second) {
		return
	}
	elapsed := v.exited.Sub(t0)
	expectVerdict(t, v, "ready", "")
	limit := time.Duration(*sc.Expect.DecidedBy*float64(time.Second)) + 3*time.Second
	if elapsed > limit {
		t.Errorf("ready at %.1fs with a hanging nvidia-smi, later than decided_by %.1fs + 3s\n%s",
			elapsed.Seconds(), *sc.Expect.DecidedBy, v.excerpt())
	}
	if pid := readPid(pidfile); pid == 0 || !alive(pid) {
		t.Errorf("the ready server (pid %d) did not survive vigil's exit", pid)
	}

	var leaders []int
	if b, err := os.ReadFile(started); err == nil {
		for f := range strings.FieldsSeq(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				leaders = append(leaders, n)
			}
		}
	}
	said := slices.ContainsFunc(strings.Split(v.stdout.String(), "\n"), func(l string) bool { return strings.Contains(l, "nvidia-smi") })
	t.Logf("ready in %.1fs (decided_by %.1fs); vigil started the fake nvidia-smi %d times; an event mentions nvidia-smi: %v",
		elapsed.Seconds(), *sc.Expect.DecidedBy, len(leaders), said)
	if len(leaders) == 0 {
		t.Errorf("vigil never ran the fake nvidia-smi on its PATH: this test checks nothing")
	}
	var left []string
	if !waitUntil(3*time.Second, func() bool { left = fakeLeftovers(fake, leaders); return len(left) == 0 }) {
		t.Errorf("3s after vigil exited, %d processes of the hanging nvidia-smi it started still run (vigil must stop what it starts):\n  %s",
			len(left), strings.Join(left, "\n  "))
		for _, l := range left {
			if pid, _, ok := strings.Cut(l, ":"); ok {
				if n, err := strconv.Atoi(pid); err == nil {
					_ = syscall.Kill(n, syscall.SIGKILL)
				}
			}
		}
	}
}

// diskFullWords is how a message says the log's filesystem is full. (The
// sandbox's path holds "TestDiskFull": no bare "full".)
var diskFullWords = regexp.MustCompile(`(?i)no space|filesystem is full|disk is full|disk full|enospc`)

// TestDiskFull: the server's log is on a filesystem that fills up (a 2 MB
// tmpfs); its writes fail with ENOSPC, so the error it prints last is lost,
// and it exits 1. vigil must neither crash nor hang, must call it failed,
// and must say the filesystem is full.
func TestDiskFull(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	sb := newSandbox(t)
	full := sb.path("full")
	if err := os.Mkdir(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", full).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a 2 MB tmpfs at %s: %v: %s", full, err, strings.TrimSpace(string(out)))
	}
	// Runs after the server is killed (cleanups run last registered first).
	t.Cleanup(func() {
		if out, err := exec.Command("umount", full).CombinedOutput(); err != nil {
			t.Logf("umount %s: %v: %s; detaching it lazily", full, err, strings.TrimSpace(string(out)))
			_ = exec.Command("umount", "-l", full).Run()
		}
	})
	head, tail := sb.path("head"), sb.path("tail")
	faultWrite(t, head, faultSGLangLoad, 0o644)
	faultWrite(t, tail, faultSGLangKVOOM, 0o644)
	logPath, pidfile := filepath.Join(full, "server.log"), sb.path("server.pid")
	doneFile := sb.path("server.done")
	killPidfileGroupAtEnd(t, pidfile)
	env := sb.with("SERVER_PIDFILE="+pidfile, "HEAD_FILE="+head, "TAIL_FILE="+tail,
		"START_FILE="+sb.path("server.start"), "DONE_FILE="+doneFile, "FLOOD_LINE="+faultFloodLine,
		"FLOOD_SECONDS=1", "FLOOD_CHUNK="+strconv.Itoa(floodChunk(3<<20)))
	url := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	v := startVigil(t, env, "run", "--json", "--url", url, "--log-file", logPath,
		"--stall-after", "10s", "--timeout", "40s", "--grace", "2s", "--", "sh", faultServer(t, "flood.sh"))
	if !v.wait(t, 25*time.Second) {
		return
	}
	if v.signal != 0 {
		t.Fatalf("vigil died of %v\n%s", v.signal, v.excerpt())
	}
	if _, err := os.Stat(doneFile); err != nil {
		t.Errorf("the server did not get through its flood: %v", err)
	}
	events, got, problems := parseEvents(v.stdout.Bytes())
	for _, p := range problems {
		t.Errorf("--json output: %s", p)
	}
	if got == nil {
		t.Fatalf("no verdict\n%s", v.excerpt())
	}
	if got.str("verdict") != "failed" || v.code != exitFor["failed"] {
		t.Errorf("verdict %s/%s exit %d, want failed (exit 1)\n%s", got.str("verdict"), orNull(got.str("cause")), v.code, v.excerpt())
	}
	for _, p := range verdictFieldProblems(got) {
		t.Errorf("verdict event: %s", p)
	}
	var mentions []string
	for _, e := range events {
		for k, x := range e {
			if s, ok := x.(string); ok && diskFullWords.MatchString(s) {
				mentions = append(mentions, e.str("event")+"."+k+": "+s)
			}
		}
	}
	for _, l := range evidence(got) {
		if diskFullWords.MatchString(l) {
			mentions = append(mentions, "evidence: "+l)
		}
	}
	t.Logf("log %d bytes on the 2 MB filesystem; %s/%s in %.1fs; mentions of the full disk: %q",
		fileSizeOf(logPath), got.str("verdict"), orNull(got.str("cause")), v.exited.Sub(v.started).Seconds(), mentions)
	if len(mentions) == 0 {
		t.Errorf("no event or evidence says the log's filesystem is full (no space left: the server's last %d bytes, its error, are lost)\n%s",
			len(faultSGLangKVOOM), v.excerpt())
	}
	// The note says where the log stops: its size when the filesystem
	// counted as full (under 64 KiB free), so at most that much below
	// the size it ends with.
	final := fileSizeOf(logPath)
	for _, m := range mentions {
		sm := logStopsAt.FindStringSubmatch(m)
		if sm == nil {
			t.Errorf("a mention of the full disk does not say where the log stops: %s", m)
			continue
		}
		at, _ := strconv.ParseInt(sm[1], 10, 64)
		if at > final || at < final-64<<10 {
			t.Errorf("the log stops at %d bytes, says %q; it ends with %d", at, m, final)
		}
	}
	// The server writes through vigil's copier, which counts what the
	// full log refuses: the verdict's evidence says exactly how much of
	// all the server wrote (its head, the flood, its tail) is lost.
	wrote := int64(len(faultSGLangLoad) + floodChunk(3<<20) + len(faultSGLangKVOOM))
	var counted bool
	for _, l := range evidence(got) {
		sm := outputLost.FindStringSubmatch(l)
		if sm == nil {
			continue
		}
		counted = true
		lost, _ := strconv.ParseInt(sm[1], 10, 64)
		if strings.Contains(l, "so far") {
			t.Errorf("the count is not final once the server is gone: %s", l)
		}
		if final+lost != wrote {
			t.Errorf("the log holds %d bytes and the evidence says %d were lost: %d in all, the server wrote %d\n%s", final, lost, final+lost, wrote, l)
		}
	}
	if !counted {
		t.Errorf("no evidence counts the bytes lost: %q", evidence(got))
	}
	// The error the full disk kept out of the log is in the evidence all
	// the same, marked as not in the log.
	var shown bool
	for _, l := range evidence(got) {
		if strings.HasPrefix(l, "[vigil: not in the log") && strings.Contains(l, "RuntimeError: Not enough memory") {
			shown = true
		}
	}
	if !shown {
		t.Errorf("the evidence lacks the server's last error, which the log refused: %q", evidence(got))
	}
}

// logStopsAt reads the log's size from a full-disk note, outputLost the
// count of what the log refused.
var (
	logStopsAt = regexp.MustCompile(`log stops at [^(]*\((\d+) bytes\)`)
	outputLost = regexp.MustCompile(`(\d+) bytes \([^)]*\) of the server's output were lost`)
)

// TestEarlierServerOnThePort: an earlier TensorRT-LLM server still answers
// 200 on the port while a new one starts; TensorRT-LLM binds last, so the
// new one loads and then fails to bind. The 200s are not the new server's
// readiness: vigil names the earlier server and reports the bind failure.
func TestEarlierServerOnThePort(t *testing.T) {
	needVigil(t)
	t.Parallel()
	takeSlot(t)
	root := repoRoot(t)
	sb := newSandbox(t)
	port := freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)

	oldPidfile := sb.path("old.pid")
	killPidfileGroupAtEnd(t, oldPidfile)
	old := exec.Command(vigilBin, "play", filepath.Join(root, "testdata/scenarios/trtllm-ready-llama31-8b-pytorch.json"),
		"--port", strconv.Itoa(port), "--pidfile", oldPidfile, "--", "trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct")
	old.Env = sb.env
	old.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	oldEnd := make(chan struct{})
	go func() { _ = old.Wait(); close(oldEnd) }()
	t.Cleanup(func() { killGroup(old.Process.Pid); <-oldEnd })
	up := waitUntil(30*time.Second, func() bool {
		resp, err := http.Get(url + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if !up {
		t.Fatal("the earlier server never answered 200")
	}

	newPidfile := sb.path("new.pid")
	killPidfileGroupAtEnd(t, newPidfile)
	v := startVigil(t, sb.env, "run", "--json", "--url", url, "--stall-after", "5s", "--timeout", "30s", "--",
		vigilBin, "play", filepath.Join(root, "testdata/scenarios/trtllm-port-in-use-bind-failed.json"),
		"--port", strconv.Itoa(freePort(t)), "--pidfile", newPidfile, "--", "trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct")
	if !v.wait(t, 60*time.Second) {
		t.Fatalf("vigil did not finish\n%s", v.excerpt())
	}
	_, verdict, _ := parseEvents(v.stdout.Bytes())
	if verdict == nil || verdict.str("verdict") != "failed" || verdict.str("cause") != "port_in_use" {
		t.Fatalf("want failed/port_in_use, not the earlier server's readiness\n%s", v.excerpt())
	}
	if want := fmt.Sprintf("held by another server, pid %d", old.Process.Pid); !strings.Contains(v.stdout.String(), want) {
		t.Errorf("no note %q naming the earlier server\n%s", want, v.excerpt())
	}
	if !alive(old.Process.Pid) {
		t.Errorf("the earlier server (pid %d) died: vigil must not touch it", old.Process.Pid)
	}
}
