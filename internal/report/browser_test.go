//go:build unix

package report

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vigil/internal/history"
)

var (
	screenshot = flag.String("screenshot", "", "also save a screenshot of the demo report to this `PNG` file (see docs/report-screenshot.sh)")
	shotHeight = flag.Int("screenshot-height", 2200, "the screenshot's height in `pixels` (its width is 1280)")
)

// chromium finds a headless-capable Chromium: $VIGIL_CHROMIUM, else the
// usual names on PATH.
func chromium() string {
	if p := os.Getenv("VIGIL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runChromium runs a headless Chromium on a file with extra arguments and
// returns its stdout and stderr. It is kept off the network: no proxy
// answers and no name resolves, so a page that tried to load anything
// would show it.
func runChromium(t *testing.T, bin, page string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	if os.Geteuid() == 0 {
		base = append(base, "--no-sandbox") // Chromium refuses to sandbox as root (CI containers)
	}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// Chromium forks helpers; give it a process group of its own so that
	// a timeout stops all of them, not just the first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, tail(errb.String(), 3000))
	}
	return out.String(), errb.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestBrowser renders a history of seven startups and loads the page in a
// real headless Chromium: the DOM it builds must hold every startup with
// its verdict, its row in the comparison and its timeline, and the page
// must load with no policy violation (its style allowed, nothing fetched).
func TestBrowser(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium on PATH (apt-get install chromium, or set VIGIL_CHROMIUM): the report is not checked in a browser")
	}
	list := demo()
	store := demoStore(t, list)
	in, err := Load(context.Background(), store, nil, history.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Startups) != len(list) {
		t.Fatalf("loaded %d startups, want %d", len(in.Startups), len(list))
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if err := WriteFile(page, in, Options{Now: demoT0.Add(52 * time.Hour)}); err != nil {
		t.Fatal(err)
	}

	dom, logs := runChromium(t, bin, page, "--dump-dom")
	for _, bad := range []string{"CONSOLE", "Content Security Policy", "violates", "Refused to", "ERR_", "Uncaught"} {
		if strings.Contains(logs, bad) {
			t.Errorf("chromium reported %q loading the page:\n%s", bad, tail(logs, 3000))
		}
	}
	articles := regexp.MustCompile(`<article class="startup [^"]*" id="startup-(\d+)" data-id="\d+" data-verdict="([a-z]+)">`).FindAllStringSubmatch(dom, -1)
	if len(articles) != len(list) {
		t.Fatalf("DOM has %d startup articles, want %d:\n%s", len(articles), len(list), tail(dom, 2000))
	}
	for i, st := range in.Startups {
		id := strconv.FormatInt(st.ID, 10)
		if articles[i][1] != id || articles[i][2] != st.Verdict {
			t.Errorf("article %d is startup %s (%s), want %s (%s)", i, articles[i][1], articles[i][2], id, st.Verdict)
		}
		if !strings.Contains(dom, `<g class="row" data-id="`+id+`">`) {
			t.Errorf("startup %s has no row in the comparison chart", id)
		}
		art := section(dom, `id="startup-`+id+`"`, "</article>")
		if h := headline(st); !strings.Contains(art, h) {
			t.Errorf("startup %s: its article lacks %q", id, h)
		}
		if got, want := strings.Count(art, "<rect class=\"ph-"), len(st.Phases); got != want {
			t.Errorf("startup %s: %d phase bars in its timeline, want %d", id, got, want)
		}
		if st.Verdict == "failed" && !strings.Contains(art, "fail\"") {
			t.Errorf("startup %s failed in %s but no bar is marked", id, st.Phase)
		}
	}
	for _, want := range []string{
		"fp4_gemm_runner_backend",                 // the dropped flag, in the configuration changes
		"flashinfer_cutlass",                      // its new value
		"DeepGEMM",                                // the notable warning
		"1 tuned kernel config loaded, 1 default", // kernel coverage
		"below",                              // the slower benchmark level
		"data is not within the file bounds", // llama.cpp's summary
		"the first recorded startup of this model on this host",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q", want)
		}
	}

	if *screenshot != "" {
		out, err := filepath.Abs(*screenshot)
		if err != nil {
			t.Fatal(err)
		}
		runChromium(t, bin, page, "--screenshot="+out, "--window-size=1280,"+strconv.Itoa(*shotHeight), "--hide-scrollbars", "--force-device-scale-factor=1")
		if fi, err := os.Stat(out); err != nil || fi.Size() < 10_000 {
			t.Fatalf("screenshot %s: %v, %v bytes", out, err, fi)
		}
		t.Logf("screenshot written to %s", out)
	}
}

// TestBrowserKeepsLogTextText loads a report whose every field holds markup
// and checks that the browser built no element from it.
func TestBrowserKeepsLogTextText(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium on PATH (apt-get install chromium, or set VIGIL_CHROMIUM): the report is not checked in a browser")
	}
	st := history.Startup{ID: 1, Server: hostile, Model: hostile, Verdict: "failed", Cause: hostile, Phase: hostile,
		Summary: hostile, LogPath: hostile, Host: hostile, Config: cfg(hostile, hostile),
		Phases: ph("weights", 3.0, hostile, 1.0), TotalSeconds: 4}
	page := filepath.Join(t.TempDir(), "report.html")
	if err := WriteFile(page, Input{Startups: []history.Startup{st}}, Options{}); err != nil {
		t.Fatal(err)
	}
	dom, _ := runChromium(t, bin, page, "--dump-dom")
	lower := strings.ToLower(dom)
	for _, el := range []string{"<script", "<img"} {
		if strings.Contains(lower, el) {
			t.Errorf("the browser built a %s> element from log text", el)
		}
	}
	if !strings.Contains(dom, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the log text is not shown as text:\n%s", tail(dom, 2000))
	}
}
