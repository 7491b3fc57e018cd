package cli

import "os/exec"

var lookPath = exec.LookPath
