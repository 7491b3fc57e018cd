//go:build unix

package gpu

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeSMI puts an executable "nvidia-smi" shell script first on PATH and
// returns its directory. An empty script means no nvidia-smi on PATH at all.
func fakeSMI(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	if script == "" {
		t.Setenv("PATH", dir)
		return dir
	}
	if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// TestExecFakeNvidiaSMI runs the real Exec runner against shell scripts that
// stand in for nvidia-smi.
func TestExecFakeNvidiaSMI(t *testing.T) {
	abs := func(name string) string {
		p, err := filepath.Abs(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	recorded := `case "$1" in
--query-gpu=index,uuid,name,memory.used,memory.total,utilization.gpu) cat '` + abs("h100x8-gpus.csv") + `' ;;
--query-compute-apps=pid,gpu_uuid,used_memory) cat '` + abs("h100x8-apps.csv") + `' ;;
*) echo "unexpected arguments: $*" >&2; exit 2 ;;
esac
[ "$2" = "--format=csv,noheader,nounits" ] || exit 2
`
	tests := []struct {
		name          string
		script        string
		wantAvailable bool
		wantHung      bool
		wantGPUs      int
		wantApps      int
		wantErr       string
		// hangs: the script records its PIDs in DIR/pids; all must be gone.
		// Those cases get a 1s timeout, the others 10s, so that a loaded
		// machine starting sh slowly does not make a prompt fake "hang".
		hangs bool
	}{
		{name: "recorded 8xH100", script: recorded, wantAvailable: true, wantGPUs: 8, wantApps: 8},
		{name: "not on PATH", script: ""},
		{name: "exits 9", script: "cat '" + abs("no-driver.txt") + "'\nexit 9\n",
			wantErr: "nvidia-smi exit status 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."},
		{name: "sleeps forever", script: "echo $$ >> \"$(dirname \"$0\")/pids\"\nexec sleep 1000\n",
			wantHung: true, wantErr: "nvidia-smi did not answer within 1s", hangs: true},
		{name: "sleeps forever in a grandchild holding stdout",
			script:   "sleep 1000 &\necho $! >> \"$(dirname \"$0\")/pids\"\necho $$ >> \"$(dirname \"$0\")/pids\"\nwait\n",
			wantHung: true, wantErr: "nvidia-smi did not answer within 1s", hangs: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fakeSMI(t, tt.script)
			c := &Client{Timeout: 10 * time.Second}
			if tt.hangs {
				c.Timeout = time.Second
			}
			start := time.Now()
			s := c.Snapshot(t.Context())
			if took := time.Since(start); tt.hangs && took > 3*time.Second {
				t.Errorf("got %v for a hung snapshot, want about 1s", took)
			}
			if s.Available != tt.wantAvailable || s.Hung != tt.wantHung {
				t.Errorf("got available %v, hung %v, want %v, %v (error %q)", s.Available, s.Hung, tt.wantAvailable, tt.wantHung, s.Err)
			}
			if len(s.GPUs) != tt.wantGPUs || len(s.Apps) != tt.wantApps {
				t.Errorf("got %d GPUs and %d apps, want %d and %d", len(s.GPUs), len(s.Apps), tt.wantGPUs, tt.wantApps)
			}
			if s.Err != tt.wantErr {
				t.Errorf("got error %q, want %q", s.Err, tt.wantErr)
			}
			if tt.hangs {
				checkGone(t, filepath.Join(dir, "pids"))
			}
		})
	}
}

// checkGone fails unless every PID listed in file has exited.
func checkGone(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the fake never recorded its PID: %v", err)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(2 * time.Second)
		for {
			err := syscall.Kill(pid, 0)
			if errors.Is(err, syscall.ESRCH) || zombie(pid) {
				break
			}
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("fake nvidia-smi process %d still alive", pid)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// zombie reports whether pid has exited but not been reaped by its parent
// (an orphaned grandchild waits for init to reap it).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}
