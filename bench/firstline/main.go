// Command firstline times `vigil explain` on tiny logs: an empty file and a
// one-line file of each server, where the cost is vigil's own start (init,
// the classifier's tables) rather than reading. It runs each case -n
// times and prints the median and minimum wall time and the median CPU
// time (user + system) of the child process.
//
// Each -floor program is timed the same way, run without arguments: an
// empty Go program, or one that links vigil's libraries and does nothing
// (bench/firstline_floor.sh builds both), shows how much of the time is
// not vigil's to save.
//
//	go run ./bench/firstline -vigil /path/to/vigil [-floor BIN]...
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// cases are one-line logs; the empty one measures the floor.
var cases = []struct{ name, text string }{
	{"empty", ""},
	{"one line, unknown server", "hello\n"},
	{"one line, vLLM", "INFO 11-29 10:00:00 [api_server.py:1000] vLLM API server version 0.11.0\n"},
	{"one line, SGLang", "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B-Instruct')\n"},
	{"one line, llama.cpp", "main: server is listening on http://127.0.0.1:8080 - starting the main loop\n"},
}

func main() {
	vigil := flag.String("vigil", "vigil", "the vigil binary")
	n := flag.Int("n", 30, "runs per case")
	limit := flag.Duration("limit", 15*time.Millisecond, "the median wall time each one-line case must stay under")
	var floors []string
	flag.Func("floor", "a program to time as a floor, run without arguments (repeatable)", func(s string) error {
		floors = append(floors, s)
		return nil
	})
	flag.Parse()
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "firstline: -n must be at least 1")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "firstline")
	if err != nil {
		fmt.Fprintln(os.Stderr, "firstline:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(dir)
	fail := false
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("case%d.log", i))
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "firstline:", err)
			os.Exit(2)
		}
		walls, cpus := timeRuns(*n, *vigil, "explain", path)
		med := walls[len(walls)/2]
		verdict := ""
		if c.text != "" && med >= *limit {
			verdict, fail = "  OVER "+limit.String(), true
		}
		fmt.Printf("%-26s wall median %5.1f ms, min %5.1f ms; CPU median %5.1f ms%s\n", c.name,
			ms(med), ms(walls[0]), ms(cpus[len(cpus)/2]), verdict)
	}
	for _, bin := range floors {
		walls, cpus := timeRuns(*n, bin)
		fmt.Printf("%-26s wall median %5.1f ms, min %5.1f ms; CPU median %5.1f ms\n", "floor: "+strings.TrimSuffix(filepath.Base(bin), ".exe"),
			ms(walls[len(walls)/2]), ms(walls[0]), ms(cpus[len(cpus)/2]))
	}
	if fail {
		os.Exit(1)
	}
}

// timeRuns runs argv n times and returns the wall and CPU times, sorted.
func timeRuns(n int, argv ...string) (walls, cpus []time.Duration) {
	for range n {
		cmd := exec.Command(argv[0], argv[1:]...)
		t0 := time.Now()
		// explain exits non-zero on a log that did not end ready: only a
		// failure to start counts.
		if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
			fmt.Fprintln(os.Stderr, "firstline:", err)
			os.Exit(2)
		}
		walls = append(walls, time.Since(t0))
		cpus = append(cpus, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	return walls, cpus
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
