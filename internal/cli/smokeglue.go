package cli

import (
	"context"
	"time"

	"vigil/internal/observe"
	"vigil/internal/smoke"
)

// smokeTimeout bounds the smoke request of `run --smoke` / `watch --smoke`.
const smokeTimeout = 30 * time.Second

// smokeCheck sends the smoke request once the server is ready; pooling is
// what its command line says about a model that generates no text
// (classify.PoolingOf).
func smokeCheck(ctx context.Context, base, server, key, pooling string) observe.SmokeResult {
	r := smoke.Check(ctx, smoke.Options{BaseURL: base, Server: server, Timeout: smokeTimeout, APIKey: key, Pooling: pooling})
	return observe.SmokeResult{OK: r.OK, Auth: r.Auth, NoModel: r.NoModel, Unchecked: r.Unchecked, Reason: r.Reason, Answer: r.Answer, Endpoint: r.Endpoint, Latency: r.Latency}
}
