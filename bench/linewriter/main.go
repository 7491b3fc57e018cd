// Command linewriter appends log lines to a file at a steady rate, in
// bursts, one write(2) per line as a Python logger does, for bench scripts
// that measure what following such a log costs. At the end it prints its
// own CPU time in milliseconds and the number of lines written.
//
//	go run ./bench/linewriter -o server.log -rate 1000 -burst 10 -for 10s
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "the file to append to (created if missing)")
	rate := flag.Int("rate", 1000, "lines per second")
	burst := flag.Int("burst", 10, "lines per burst, written back to back")
	dur := flag.Duration("for", 10*time.Second, "how long to write")
	flag.Parse()
	if *out == "" || *rate < 1 || *burst < 1 || *dur <= 0 {
		fmt.Fprintln(os.Stderr, "linewriter: need -o FILE, -rate >= 1, -burst >= 1 and -for > 0")
		os.Exit(2)
	}
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "linewriter:", err)
		os.Exit(2)
	}
	defer f.Close()
	// Bursts on an absolute schedule, so a late wake-up does not lower the
	// rate.
	every := time.Duration(float64(time.Second) * float64(*burst) / float64(*rate))
	start := time.Now()
	n := 0
	buf := make([]byte, 0, 256)
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * every)
		if at.Sub(start) >= *dur {
			break
		}
		time.Sleep(time.Until(at))
		for range *burst {
			buf = fmt.Appendf(buf[:0], "INFO 12-01 10:00:00 [loader.py:412] (Worker rank=%d) loading shard %d of the model weights\n", n%8, n)
			if _, err := f.Write(buf); err != nil {
				fmt.Fprintln(os.Stderr, "linewriter:", err)
				os.Exit(1)
			}
			n++
		}
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("%.1f %d\n", float64(cpu)/1e6, n)
}
