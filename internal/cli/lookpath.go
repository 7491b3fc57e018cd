package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
)

var lookPath = exec.LookPath

// commandError says why COMMAND cannot be run, in the words of its real
// reason: missing, a directory, not executable, not readable.
func commandError(name string) error {
	if !strings.Contains(name, "/") {
		_, err := lookPath(name)
		if err == nil || errors.Is(err, exec.ErrNotFound) {
			return Usagef("%s: command not found in $PATH", name)
		}
		return Usagef("%s: %v", name, unwrapPath(err))
	}
	fi, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Usagef("%s: no such file", name)
	case err != nil:
		return Usagef("%s: %v", name, unwrapPath(err))
	case fi.IsDir():
		return Usagef("%s: is a directory, not a command", name)
	case fi.Mode()&0o111 == 0:
		return Usagef("%s: not executable (mode %04o; chmod +x it or run it through its interpreter)", name, fi.Mode().Perm())
	}
	return Usagef("%s: %v", name, fmt.Errorf("cannot be executed"))
}
