//go:build race

package explain

// raceEnabled shrinks the big inputs of tests under the race detector.
const raceEnabled = true
