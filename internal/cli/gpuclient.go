package cli

import (
	"time"

	"vigil/internal/gpu"
)

// gpuClient is the one nvidia-smi client of a vigil process: it remembers a
// hung nvidia-smi and answers "hung" at once instead of starting another
// and waiting out its timeout again.
var gpuClient = &gpu.Client{Timeout: 3 * time.Second}
