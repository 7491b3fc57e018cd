// Package e2e holds vigil's end-to-end tests. They build the real vigil
// binary once and drive it as a user would: against real processes (the
// hidden `vigil play` scenario player and small shell-script servers), real
// loopback sockets, real log files and real signals. Nothing is faked.
//
// The suite is sized for CI: two cores, no GPU, no Python. Scenario runs
// mostly sleep, so several run at once (see slots); a run's timing is
// checked with slack for a loaded machine. `go test -short` skips it.
package e2e
