package journal

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeSystemctl records its arguments in $FAKE_ARGS and prints
// $FAKE_SHOW with $TZ substituted, as systemctl prints timestamps in the
// zone TZ names; "fail" makes it fail like systemctl without a bus.
const fakeSystemctl = `#!/bin/sh
printf '%s\n' "$@" > "$FAKE_ARGS"
if [ "$FAKE_SHOW" = fail ]; then
	echo "Failed to connect to bus: No such file or directory" >&2
	exit 1
fi
sed "s/ZONE/$TZ/" "$FAKE_SHOW"
`

const activeUnit = `Id=sglang.service
LoadState=loaded
ActiveState=active
SubState=running
MainPID=4242
InvocationID=9b8a7c6d5e4f40312a1b2c3d4e5f6a7b
ControlGroup=/system.slice/sglang.service
ActiveEnterTimestamp=Thu 2026-11-12 10:00:05 ZONE
ActiveEnterTimestampMonotonic=123456789
InactiveExitTimestamp=Thu 2026-11-12 10:00:01.250000 ZONE
InactiveExitTimestampMonotonic=119706789
ExecMainStartTimestamp=Thu 2026-11-12 10:00:01 ZONE
`

const activatingUnit = `Id=sglang.service
LoadState=loaded
ActiveState=activating
SubState=start
MainPID=4242
InvocationID=9b8a7c6d5e4f40312a1b2c3d4e5f6a7b
ActiveEnterTimestamp=n/a
ActiveEnterTimestampMonotonic=0
InactiveExitTimestamp=@1762941601
InactiveExitTimestampMonotonic=119706789
ExecMainStartTimestamp=
`

const missingUnit = `Id=nosuch.service
LoadState=not-found
ActiveState=inactive
SubState=dead
MainPID=0
InvocationID=
ActiveEnterTimestamp=
ActiveEnterTimestampMonotonic=0
InactiveExitTimestamp=
InactiveExitTimestampMonotonic=0
`

func TestUnitInfo(t *testing.T) {
	tests := []struct {
		name      string
		show      string
		user      bool
		want      Info
		wantStart time.Time
		wantErr   error
	}{
		{
			name: "active",
			show: activeUnit,
			want: Info{
				ID: "sglang.service", LoadState: "loaded", ActiveState: "active", SubState: "running",
				MainPID: 4242, InvocationID: currentRun, ControlGroup: "/system.slice/sglang.service",
				ActiveEnter:           time.Date(2026, 11, 12, 10, 0, 5, 0, time.UTC),
				ActiveEnterMonotonic:  123456789 * time.Microsecond,
				InactiveExit:          time.Date(2026, 11, 12, 10, 0, 1, 250_000_000, time.UTC),
				InactiveExitMonotonic: 119706789 * time.Microsecond,
				ExecMainStart:         time.Date(2026, 11, 12, 10, 0, 1, 0, time.UTC),
			},
			wantStart: time.Date(2026, 11, 12, 10, 0, 1, 250_000_000, time.UTC),
		},
		{
			name: "still activating",
			show: activatingUnit,
			user: true,
			want: Info{
				ID: "sglang.service", LoadState: "loaded", ActiveState: "activating", SubState: "start",
				MainPID: 4242, InvocationID: currentRun,
				InactiveExit:          time.Unix(1762941601, 0),
				InactiveExitMonotonic: 119706789 * time.Microsecond,
			},
			wantStart: time.Unix(1762941601, 0),
		},
		{name: "not found", show: missingUnit, wantErr: ErrUnitNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake(t, "systemctl", fakeSystemctl)
			dir := t.TempDir()
			show := filepath.Join(dir, "show")
			os.WriteFile(show, []byte(tt.show), 0o644)
			t.Setenv("FAKE_SHOW", show)
			t.Setenv("FAKE_ARGS", filepath.Join(dir, "args"))

			got, err := UnitInfo(t.Context(), "sglang.service", Options{User: tt.user})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got error %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if !infoEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !got.Start().Equal(tt.wantStart) {
				t.Errorf("got start %v, want %v", got.Start(), tt.wantStart)
			}
			b, _ := os.ReadFile(filepath.Join(dir, "args"))
			args := strings.Fields(string(b))
			if tt.user && args[0] != "--user" {
				t.Errorf("got args %q, want --user first", args)
			}
			if !slices.Contains(args, "InvocationID") || args[len(args)-1] != "sglang.service" {
				t.Errorf("got args %q, want -p InvocationID ... and the unit last", args)
			}
		})
	}
}

func infoEqual(a, b Info) bool {
	times := [][2]time.Time{{a.ActiveEnter, b.ActiveEnter}, {a.InactiveExit, b.InactiveExit}, {a.ExecMainStart, b.ExecMainStart}}
	for _, p := range times {
		if !p[0].Equal(p[1]) {
			return false
		}
	}
	a.ActiveEnter, a.InactiveExit, a.ExecMainStart = time.Time{}, time.Time{}, time.Time{}
	b.ActiveEnter, b.InactiveExit, b.ExecMainStart = time.Time{}, time.Time{}, time.Time{}
	return a == b
}

func TestUnitInfoErrors(t *testing.T) {
	t.Run("systemctl fails", func(t *testing.T) {
		fake(t, "systemctl", fakeSystemctl)
		t.Setenv("FAKE_SHOW", "fail")
		t.Setenv("FAKE_ARGS", filepath.Join(t.TempDir(), "args"))
		_, err := UnitInfo(t.Context(), "sglang.service", Options{})
		if err == nil || !strings.Contains(err.Error(), "Failed to connect to bus") {
			t.Errorf("got error %v, want one with systemctl's message", err)
		}
	})
	t.Run("unit looks like a flag", func(t *testing.T) {
		if _, err := UnitInfo(t.Context(), "-H", Options{Systemctl: "false"}); err == nil {
			t.Error("got nil error, want one")
		}
	})
	t.Run("bad MainPID", func(t *testing.T) {
		if _, err := parseShow([]byte("MainPID=many\n")); err == nil {
			t.Error("got nil error, want one")
		}
	})
}
