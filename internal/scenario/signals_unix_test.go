//go:build unix

package scenario

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestDieBySignal runs this test binary as a child that kills itself.
func TestDieBySignal(t *testing.T) {
	if name := os.Getenv("SCENARIO_TEST_DIE"); name != "" {
		_ = syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{})
		DieBySignal(signals[name])
		os.Exit(7) // not reached for a deadly signal
	}
	tests := []struct {
		sig  string
		want syscall.Signal // 0: the process survives the signal and exits 7
	}{
		{"SIGKILL", syscall.SIGKILL},
		{"SIGSEGV", syscall.SIGSEGV},
		{"SIGABRT", syscall.SIGABRT},
		{"SIGTERM", syscall.SIGTERM},
		{"SIGCHLD", 0},
	}
	for _, tt := range tests {
		t.Run(tt.sig, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestDieBySignal$")
			cmd.Env = append(os.Environ(), "SCENARIO_TEST_DIE="+tt.sig)
			cmd.Dir = t.TempDir() // where a core file would go
			err := cmd.Run()
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok {
				t.Fatalf("no wait status: %v", err)
			}
			switch {
			case tt.want != 0 && (!ws.Signaled() || ws.Signal() != tt.want):
				t.Errorf("child ended with %v, want death by %v", cmd.ProcessState, tt.want)
			case tt.want == 0 && ws.ExitStatus() != 7:
				t.Errorf("child ended with %v, want exit status 7", cmd.ProcessState)
			}
		})
	}
}
