package logcopy

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func setPipeSize(w *os.File) {
	// Best effort: an unprivileged process may not pass pipe-max-size.
	_, _ = unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, pipeSize)
}

// newTailFile makes the memory file through which the copier hands vigil
// the last output the log refused: no disk needed, read at any time.
func newTailFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("vigil-refused-tail", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "vigil-refused-tail"), nil
}

// The copier's descriptors: the server's output (stdin), the log
// (stdout), the reports to vigil, vigil's sync requests and the refused
// tail's memory file (the extra files).
const (
	fdIn     = 0
	fdLog    = 1
	fdReport = 3
	fdSync   = 4
	fdTail   = 5
)

// copier is the copier process's state.
type copier struct {
	buf       []byte
	loss      Loss
	reporting bool
	// refused holds the last tailMax bytes the log refused; dirty: not yet
	// in the tail file.
	refused []byte
	dirty   bool
}

// keepRefused keeps b as the latest refused output.
func (c *copier) keepRefused(b []byte) {
	c.refused = append(c.refused, b...)
	if over := len(c.refused) - tailMax; over > 0 {
		c.refused = append(c.refused[:0], c.refused[over:]...)
	}
	c.dirty = true
}

// saveTail writes the refused tail into the memory file, framed so that
// vigil can tell a whole one from one caught mid-write.
func (c *copier) saveTail() {
	if !c.dirty {
		return
	}
	c.dirty = false
	b := frameTail(c.refused)
	if _, err := unix.Pwrite(fdTail, b, 0); err == nil {
		_ = unix.Ftruncate(fdTail, int64(len(b)))
	}
}

// copyMain is the copier: it copies its stdin into the log until every
// writer has closed the pipe, counting what the log refuses, answers
// vigil's sync requests once all that the pipe held is copied, and exits
// 0.
func copyMain() int {
	// The stop signals are for the server: the copier ends with its
	// output. SIGPIPE: vigil gone, its reports are not read any more.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE, syscall.SIGUSR1, syscall.SIGUSR2)
	if name, err := unix.BytePtrFromString(copierName); err == nil {
		_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(name)), 0, 0, 0)
	}
	c := &copier{buf: make([]byte, 256<<10), reporting: unix.SetNonblock(fdReport, true) == nil}
	fds := []unix.PollFd{{Fd: fdIn, Events: unix.POLLIN}, {Fd: fdSync, Events: unix.POLLIN}}
	if unix.SetNonblock(fdSync, true) != nil {
		fds[1].Fd = -1
	}
	for {
		if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
			break
		}
		if fds[1].Revents != 0 {
			asked := c.syncRequests()
			if asked < 0 {
				fds[1].Fd = -1 // vigil is gone
			}
			if asked > 0 {
				c.drain()
				c.saveTail()
				for range asked {
					c.send(report(c.loss, "sync"), true)
				}
			}
		}
		if fds[0].Revents != 0 && !c.copyOnce() {
			break
		}
	}
	c.saveTail()
	c.send(report(c.loss, "end"), true)
	return 0
}

// syncRequests reads vigil's pending sync requests, a byte each: their
// number, or -1 once vigil has closed its end.
func (c *copier) syncRequests() int {
	var b [64]byte
	asked := 0
	for {
		n, err := unix.Read(fdSync, b[:])
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case n > 0:
			asked += n
			continue
		case n == 0 && err == nil:
			if asked == 0 {
				return -1
			}
		}
		return asked
	}
}

// drain copies all that the pipe holds now: everything written to it
// before a sync request.
func (c *copier) drain() {
	for {
		n, err := unix.IoctlGetInt(fdIn, unix.TIOCINQ) // FIONREAD
		if err != nil || n == 0 || !c.copyOnce() {
			return
		}
	}
}

// copyOnce reads once and writes what it read to the log, counting what
// the log refuses. It returns false at the end of the output.
func (c *copier) copyOnce() bool {
	n, err := unix.Read(fdIn, c.buf)
	if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
		return true
	}
	if n <= 0 {
		return false // the end of the output (or a read error: nothing more comes)
	}
	written, werr := writeAll(fdLog, c.buf[:n])
	c.loss.Copied += int64(written)
	if werr != nil {
		c.loss.Lost += int64(n - written)
		c.keepRefused(c.buf[written:n])
		if c.loss.Err == "" {
			c.loss.Err = werr.Error()
		}
		c.send(report(c.loss, ""), false)
	}
	return true
}

// writeAll writes b in full unless the log refuses it.
func writeAll(fd int, b []byte) (int, error) {
	done := 0
	for done < len(b) {
		n, err := unix.Write(fd, b[done:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, unix.EIO
		}
		done += n
	}
	return done, nil
}

// send writes a report without blocking. A running count that does not
// fit is dropped (the next carries the totals); one vigil waits for
// (must) is retried for a second. Once vigil is gone nothing more is sent.
func (c *copier) send(b []byte, must bool) {
	for try := 0; c.reporting; try++ {
		_, err := unix.Write(fdReport, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if !errors.Is(err, unix.EAGAIN) {
			c.reporting = err == nil
			return
		}
		if !must || try == 100 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
