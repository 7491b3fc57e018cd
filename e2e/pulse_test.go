package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two SGLang starts of one model on this host: the verdict names the
// tuned and default kernel configs and the DeepGEMM accuracy warning, and
// the second start's names the backend flag that changed since the first.
func TestPulseKernelsWarningsAndDrift(t *testing.T) {
	t.Parallel()
	needVigil(t)
	takeSlot(t)
	sb := newSandbox(t)
	dir := filepath.Join(repoRoot(t), "e2e", "testdata", "scenarios")
	argv := []string{"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-0.6B"}
	var verdicts []string
	for _, name := range []string{"sglang-pulse-cudnn.json", "sglang-pulse-cutlass.json"} {
		port := freePort(t)
		p := startVigil(t, sb.env, playArgs(t, filepath.Join(dir, name), port, nil, argv...)...)
		if !p.wait(t, 60*time.Second) {
			t.Fatalf("%s did not finish:\n%s", name, p.excerpt())
		}
		_, verdict, problems := parseEvents(p.stdout.Bytes())
		if len(problems) > 0 || verdict.str("verdict") != "ready" {
			t.Fatalf("%s: verdict %q, problems %v\n%s", name, verdict.str("verdict"), problems, p.excerpt())
		}
		killGroup(int(verdict["pid"].(float64)))
		lines := strings.Split(strings.TrimSpace(p.stdout.String()), "\n")
		verdicts = append(verdicts, lines[len(lines)-1])
	}
	for i, v := range verdicts {
		for _, want := range []string{`"kernels"`, `"tuned"`, `N=576,K=7168`, `"default"`, `E=128,N=768`, `"notable"`, `deepgemm`} {
			if !strings.Contains(strings.ToLower(v), strings.ToLower(want)) {
				t.Errorf("start %d: the verdict lacks %s: %s", i+1, want, clip(v, 2000))
			}
		}
	}
	if strings.Contains(verdicts[0], `"config_changes"`) {
		t.Errorf("the first start has nothing to differ from: %s", clip(verdicts[0], 2000))
	}
	for _, want := range []string{`"config_changes"`, `fp4_gemm_runner_backend`, `flashinfer_cudnn`, `flashinfer_cutlass`} {
		if !strings.Contains(verdicts[1], want) {
			t.Errorf("the second start's verdict lacks %s: %s", want, clip(verdicts[1], 2000))
		}
	}
}
