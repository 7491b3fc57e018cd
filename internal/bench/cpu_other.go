//go:build !unix

package bench

import "time"

// cpuTime is unknown here; client CPU figures are then left out.
func cpuTime() time.Duration { return 0 }
