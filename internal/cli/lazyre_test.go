package cli

import (
	"regexp"
	"testing"

	"vigil/internal/lazyre"
)

// TestEveryLazyExpressionCompiles compiles every expression that the
// packages linked into vigil compile on first use: a broken one would
// otherwise only panic when a line first needed it.
func TestEveryLazyExpressionCompiles(t *testing.T) {
	srcs := lazyre.Sources()
	if len(srcs) < 40 {
		t.Fatalf("only %d expressions registered; srvconfig alone has more", len(srcs))
	}
	for _, src := range srcs {
		if _, err := regexp.Compile(src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}
