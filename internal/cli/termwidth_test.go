//go:build linux

package cli

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// The live view's width follows a resize at once: the terminal rewraps its
// lines when it is resized, before any SIGWINCH could be handled, so a width
// cached until the signal would clear too few rows. This pty is not vigil's
// controlling terminal, so no signal comes at all.
func TestTerminalWidthFollowsResize(t *testing.T) {
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptm.Close()
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pts.Close()
	resize := func(cols uint16) {
		t.Helper()
		if err := unix.IoctlSetWinsize(int(ptm.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: cols}); err != nil {
			t.Fatal(err)
		}
	}
	resize(140)
	width := terminalWidth(pts)
	if got := width(); got != 140 {
		t.Fatalf("width %d, want 140", got)
	}
	resize(70)
	if got := width(); got != 70 {
		t.Errorf("width %d right after the resize, want 70", got)
	}
}
