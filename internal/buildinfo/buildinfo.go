// Package buildinfo says which build of vigil is running, from what the Go
// toolchain stamped into the binary, so a bug report can name the build that
// judged a startup.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info identifies a build.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Date      string `json:"date,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go"`
	Platform  string `json:"platform"`
}

// Release builds may stamp these with -ldflags "-X vigil/internal/buildinfo.version=v1.0.0
// -X vigil/internal/buildinfo.commit=... -X vigil/internal/buildinfo.date=...";
// a build without them (or with -buildvcs=false) still says what it knows.
var version, commit, date string

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	info := fromBuildInfo(bi, ok)
	if version != "" {
		info.Version = version
	}
	if commit != "" {
		info.Commit = commit
	}
	if date != "" {
		info.Date = date
	}
	return info
}

func fromBuildInfo(bi *debug.BuildInfo, ok bool) Info {
	info := Info{Version: "devel", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if !ok || bi == nil {
		return info
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		info.Version = v
	}
	if bi.GoVersion != "" {
		info.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.time":
			info.Date = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// ShortCommit is the commit's first 12 hex digits, "unknown" when the build
// carries none (go run, or a build outside a checkout).
func (i Info) ShortCommit() string {
	if i.Commit == "" {
		return "unknown"
	}
	if len(i.Commit) > 12 {
		return i.Commit[:12]
	}
	return i.Commit
}

// String is the one line `vigil --version` prints.
func (i Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vigil %s (commit %s", i.Version, i.ShortCommit())
	if i.Modified {
		b.WriteString(", modified")
	}
	if i.Date != "" {
		fmt.Fprintf(&b, ", built from a tree of %s", i.Date)
	}
	fmt.Fprintf(&b, ") %s %s", i.GoVersion, i.Platform)
	return b.String()
}
