package cli

import (
	"context"
	"os/exec"
	"time"

	"vigil/internal/oomkill"
)

var lookPath = exec.LookPath

// findOOMRecord looks for the kernel's OOM-killer record of pid, briefly:
// a kernel log that cannot be read is no record, never a delay.
func findOOMRecord(pid int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if r, ok := oomkill.Find(ctx, pid); ok {
		return r.Line
	}
	return ""
}
