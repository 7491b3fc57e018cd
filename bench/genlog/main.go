// Command genlog writes a large, real-shaped LLM server log for
// benchmarking `vigil explain`, built from the scenarios' real line formats.
//
// By default it is what a long-lived server's log looks like: several runs
// (-runs, restarts appended to one file) taken from the scenarios so that
// all five servers, failures with tracebacks and progress bars redrawn with
// "\r" occur, and after each ready run the serving traffic the server
// prints (access log, throughput lines) until the file reaches -size.
//
// With -dense it is the worst case instead: startups back to back, every
// scenario in turn, each ready run followed by -serving lines of traffic,
// so that nearly every line is startup output.
//
//	go run ./bench/genlog -size 1G -o /tmp/big.log
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"vigil/internal/explain/scenlog"
	"vigil/internal/scenario"
	v "vigil/internal/verdict"
)

func main() {
	var (
		sizeStr = flag.String("size", "1G", "bytes to write (suffixes K, M, G)")
		out     = flag.String("o", "-", "output file (- for stdout)")
		dirs    = flag.String("scenarios", "testdata/scenarios,testdata/scenarios/shared", "comma-separated scenario directories")
		serving = flag.Int("serving", 40, "with -dense: serving-traffic lines after each ready run")
		runs    = flag.Int("runs", 12, "runs (restarts) in the log")
		dense   = flag.Bool("dense", false, "startups back to back (worst case) instead of several runs with serving traffic")
	)
	flag.Parse()
	size, err := parseSize(*sizeStr)
	if err != nil {
		fatal(err)
	}
	var scs []*scenario.Scenario
	for _, d := range strings.Split(*dirs, ",") {
		files, _ := filepath.Glob(filepath.Join(d, "*.json"))
		sort.Strings(files)
		for _, f := range files {
			sc, err := scenario.Load(f)
			if err != nil {
				fatal(err)
			}
			scs = append(scs, sc)
		}
	}
	if len(scs) == 0 {
		fatal(fmt.Errorf("no scenarios in %s", *dirs))
	}
	var w io.Writer = os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fatal(err)
		}
		defer f.Close()
		w = f
	}
	cw := &countWriter{w: bufio.NewWriterSize(w, 1<<20)}
	// Runs follow each other a minute apart, starting far enough back that
	// the year-less vLLM stamps stay in the past.
	start := time.Now().Add(-200 * 24 * time.Hour).Truncate(time.Second)
	if *dense {
		for i := 0; cw.n < size; i++ {
			sc := scs[i%len(scs)]
			end, err := scenlog.Write(cw, sc, start)
			if err != nil {
				fatal(err)
			}
			if sc.Expect.Verdict == v.Ready {
				end = writeServing(cw, sc.Server, end, *serving, i)
			}
			start = end.Add(time.Minute).Truncate(time.Second)
		}
	} else {
		picked := pick(scs, *runs)
		ready := 0
		for _, sc := range picked {
			if sc.Expect.Verdict == v.Ready {
				ready++
			}
		}
		for i, sc := range picked {
			end, err := scenlog.Write(cw, sc, start)
			if err != nil {
				fatal(err)
			}
			if sc.Expect.Verdict == v.Ready {
				// Each ready run serves an equal share of what is left.
				share := (size - cw.n) / int64(max(ready, 1))
				ready--
				target := cw.n + share
				for k := 0; cw.n < target; k++ {
					end = writeServing(cw, sc.Server, end, 1000, i*1000003+k)
				}
			}
			start = end.Add(time.Minute).Truncate(time.Second)
		}
	}
	if err := cw.w.(*bufio.Writer).Flush(); err != nil {
		fatal(err)
	}
}

// servingLines are what each server prints while it serves requests; %d
// varies per line.
var servingLines = map[string][]string{
	"sglang": {
		`[{ts}] Decode batch. #running-req: 12, #token: 4300, token usage: 0.02, cuda graph: True, gen throughput (token/s): 8%d.33, #queue-req: 0, `,
		`[{ts}] INFO:     127.0.0.1:%d - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
		`[{ts}] Prefill batch. #new-seq: 1, #new-token: %d, #cached-token: 31, token usage: 0.02, #running-req: 11, #queue-req: 0, `,
		`[{ts}] INFO:     127.0.0.1:%d - "GET /health HTTP/1.1" 200 OK`,
	},
	"vllm": {
		`(APIServer pid=2817) INFO {vts} [loggers.py:123] Engine 000: Avg prompt throughput: 512.3 tokens/s, Avg generation throughput: 812.0 tokens/s, Running: 12 reqs, Waiting: 0 reqs, GPU KV cache usage: 3.2%, Prefix cache hit rate: 45.1%`,
		`(APIServer pid=2817) INFO:     127.0.0.1:%d - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
	},
	"trtllm": {
		`INFO:     127.0.0.1:%d - "POST /v1/completions HTTP/1.1" 200 OK`,
		`[{ts}] [TRT-LLM] [I] iter = 1203, global_rank = 0, rank = 0, currank_total_requests = 0/3, elapsed_time = 0.021s, timestamp = 2026-11-29 10:00:00, num_scheduled_requests: 3`,
	},
	"llamacpp": {
		`slot launch_slot_: id  0 | task %d | processing task`,
		`slot update_slots: id  0 | task 1205 | new prompt, n_ctx_slot = 16384, n_keep = 0, n_prompt_tokens = 212`,
		`srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200`,
		`slot      release: id  0 | task 1205 | stop processing: n_past = 480, truncated = 0`,
	},
	"tgi": {
		`{iso}  INFO chat_completions{total_time="1.20s" validation_time="1.2ms" queue_time="80us" inference_time="1.19s" time_per_token="9.3ms" seed="None"}: text_generation_router::server: router/src/server.rs:%d: Success`,
	},
}

// writeServing appends n lines of serving traffic, 50 ms apart.
func writeServing(w io.Writer, server string, at time.Time, n, seed int) time.Time {
	lines := servingLines[server]
	if len(lines) == 0 {
		return at
	}
	for k := range n {
		l := lines[k%len(lines)]
		if strings.Contains(l, "%d") {
			l = fmt.Sprintf(l, 40000+(seed*131+k*17)%20000)
		}
		io.WriteString(w, scenario.Render(l, at)+"\n")
		at = at.Add(50 * time.Millisecond)
	}
	return at
}

// pick chooses n scenarios, taking each server in turn and, for each,
// alternating failed and ready startups, so that a few runs show every
// server, tracebacks and progress bars; the last run is a ready one.
func pick(scs []*scenario.Scenario, n int) []*scenario.Scenario {
	byServer := map[string][]*scenario.Scenario{}
	for _, sc := range scs {
		byServer[sc.Server] = append(byServer[sc.Server], sc)
	}
	for _, list := range byServer {
		sort.SliceStable(list, func(i, j int) bool {
			return list[i].Expect.Verdict != v.Ready && list[j].Expect.Verdict == v.Ready
		})
	}
	servers := []string{"sglang", "vllm", "trtllm", "llamacpp", "tgi"}
	var out []*scenario.Scenario
	next := map[string]int{}
	for i := 0; len(out) < n; i++ {
		s := servers[i%len(servers)]
		list := byServer[s]
		if len(list) == 0 {
			continue
		}
		// Alternate: a failure, then a ready start, from each end.
		k := next[s]
		next[s]++
		if k%2 == 0 {
			out = append(out, list[(k/2)%len(list)])
		} else {
			out = append(out, list[len(list)-1-(k/2)%len(list)])
		}
	}
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Expect.Verdict == v.Ready {
			out = append(out, out[i])
			break
		}
	}
	return out
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad -size %q", s)
	}
	return n * mult, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "genlog:", err)
	os.Exit(2)
}
