package cli

import "os/exec"

var lookPath = exec.LookPath

// findOOMRecord looks for the kernel's OOM-killer record of pid.
func findOOMRecord(pid int) string { return "" }
