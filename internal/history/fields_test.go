package history

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The command line, mode, evidence and hint are stored and read back,
// with secrets masked on the way in.
func TestArgvModeEvidenceHint(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	id, err := s.Record(ctx, Startup{
		Server: "vllm", Model: "m", Verdict: "failed", Cause: "gpu_oom",
		Argv:     []string{"vllm", "serve", "m", "--api-key", "sk-secret-value-1234"},
		Mode:     "run",
		Evidence: []string{"torch.OutOfMemoryError: CUDA out of memory", "HF_TOKEN=hf_abcdefghijklmnop"},
		Hint:     "lower --gpu-memory-utilization",
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Mode != "run" || got.Hint != "lower --gpu-memory-utilization" {
		t.Errorf("mode %q hint %q", got.Mode, got.Hint)
	}
	if want := []string{"vllm", "serve", "m", "--api-key", "***"}; !slices.Equal(got.Argv, want) {
		t.Errorf("argv %q, want %q", got.Argv, want)
	}
	if len(got.Evidence) != 2 || got.Evidence[0] != "torch.OutOfMemoryError: CUDA out of memory" {
		t.Errorf("evidence %q", got.Evidence)
	}
	if all := strings.Join(append(got.Argv, got.Evidence...), " "); strings.Contains(all, "sk-secret") || strings.Contains(all, "hf_abcdef") {
		t.Errorf("a secret was stored: %q", all)
	}
}
