//go:build !linux

package procstat

import "os"

// reader is the portable fallback; /proc exists only on Linux, so on other
// systems every read fails with "not exist" and the package reports nothing.
type reader struct{}

func (r *reader) read(path string) ([]byte, error) { return os.ReadFile(path) }

func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
