// Command faultcost measures what one page fault costs on this machine:
// it touches each page of fresh anonymous memory once and prints the time
// per page. A process's start-up is largely page faults (the binary's
// pages, its heap's, its stacks'), so this figure, times the faults that
// `perf stat -e page-faults` counts, is how much of a short run's time
// the machine's memory management takes.
//
//	go run ./bench/faultcost            # 4096 pages, 5 rounds
//	go run ./bench/faultcost -pages 16384 -rounds 3
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"
)

func main() {
	pages := flag.Int("pages", 4096, "pages to touch in each round")
	rounds := flag.Int("rounds", 5, "rounds, each on fresh memory")
	flag.Parse()
	if *pages < 1 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "faultcost: -pages and -rounds must be positive")
		os.Exit(2)
	}
	size := os.Getpagesize()
	var per []float64
	for range *rounds {
		mem, err := syscall.Mmap(-1, 0, *pages*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			fmt.Fprintln(os.Stderr, "faultcost:", err)
			os.Exit(1)
		}
		start := time.Now()
		for i := 0; i < len(mem); i += size {
			mem[i] = 1
		}
		per = append(per, float64(time.Since(start).Nanoseconds())/float64(*pages)/1000)
		_ = syscall.Munmap(mem)
	}
	slices.Sort(per)
	fmt.Printf("%d pages of %d bytes, %d rounds: %.2f us a fault (median; best %.2f, worst %.2f)\n",
		*pages, size, *rounds, per[len(per)/2], per[0], per[len(per)-1])
}
