package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want Info
		line string
	}{
		{
			name: "no build info",
			want: Info{Version: "devel"},
			line: "vigil devel (commit unknown)",
		},
		{
			name: "checkout build",
			ok:   true,
			bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "3dd0532a1b2c3d4e5f60718293a4b5c6d7e8f901"},
				{Key: "vcs.time", Value: "2026-12-01T21:00:00Z"},
				{Key: "vcs.modified", Value: "true"},
			}},
			want: Info{Version: "devel", Commit: "3dd0532a1b2c3d4e5f60718293a4b5c6d7e8f901", Date: "2026-12-01T21:00:00Z", Modified: true, GoVersion: "go1.26.8"},
			line: "vigil devel (commit 3dd0532a1b2c, modified, built from a tree of 2026-12-01T21:00:00Z) go1.26.8",
		},
		{
			name: "module version",
			ok:   true,
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			want: Info{Version: "v1.2.3", GoVersion: "go1.26.8"},
			line: "vigil v1.2.3 (commit unknown) go1.26.8",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fromBuildInfo(tc.bi, tc.ok)
			if got.Platform == "" {
				t.Fatal("platform missing")
			}
			want := tc.want
			want.Platform = got.Platform
			if want.GoVersion == "" {
				want.GoVersion = got.GoVersion
			}
			if got != want {
				t.Fatalf("got %+v, want %+v", got, want)
			}
			if !strings.HasPrefix(got.String(), tc.line) || !strings.HasSuffix(got.String(), got.Platform) {
				t.Fatalf("line %q, want prefix %q", got.String(), tc.line)
			}
		})
	}
}
