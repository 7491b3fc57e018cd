// Command followfloor is the least a Go follower of a growing log can do:
// fsnotify on the file's directory, a 3 ms coalescing window after the
// first change, one read to the end of the file, a 250 ms poll beside it,
// and nothing done with the lines but counting them. bench/follow_cpu.sh
// runs it beside vigil on the same writer, so vigil's CPU can be read
// against the floor of its design on the same machine in the same run.
//
//	go run ./bench/followfloor FILE
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: followfloor FILE")
		os.Exit(2)
	}
	if err := follow(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "followfloor:", err)
		os.Exit(1)
	}
}

func follow(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(path)); err != nil {
		return err
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	buf := make([]byte, 1<<16)
	lines := 0
	read := func() {
		for {
			n, _ := f.Read(buf)
			if n == 0 {
				return
			}
			lines += bytes.Count(buf[:n], []byte{'\n'})
		}
	}
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	settling := false
	poll := time.NewTicker(250 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-stop:
			read()
			fmt.Println(lines)
			return nil
		case <-w.Events:
			if !settling {
				settling = true
				settle.Reset(3 * time.Millisecond)
			}
		case err := <-w.Errors:
			return err
		case <-settle.C:
			settling = false
			read()
		case <-poll.C:
			read()
		}
	}
}
