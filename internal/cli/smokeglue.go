package cli

import (
	"context"

	"vigil/internal/judge"
)

// smokeCheck sends the smoke request for `run --smoke` / `watch --smoke`.
func smokeCheck(ctx context.Context, base, server, key string) judge.SmokeResult {
	return judge.SmokeResult{OK: false, Reason: "smoke test not available", Endpoint: base}
}
