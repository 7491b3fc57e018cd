package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vigil/internal/scenario"
)

// Timing slack over a scenario's expect bounds. decided_by is generous: CI
// machines are loaded and vigil's exit includes stopping the server.
const (
	decidedBySlack = 2500 * time.Millisecond
	notBeforeSlack = 300 * time.Millisecond
	// scenarioLimit is the most one session may take before it is killed.
	scenarioLimit = 90 * time.Second
)

// loadFactor is how many times over its cores the machine is loaded (the
// 1-minute load average per core, at least 1). A machine twenty runnable
// jobs deep plays a scenario late, player and all: the lateness allowed
// grows with it, and on a machine with room to spare it is the plain slack.
func loadFactor() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 1
	}
	load, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 1
	}
	return max(1, load/float64(runtime.NumCPU()))
}

// scenarioCase is one scenario in one mode.
type scenarioCase struct {
	path   string
	sc     *scenario.Scenario
	mode   string  // "run" or "watch"
	weight float64 // expected seconds, for scheduling the longest first
}

// scenarioResult is one case's checks, named as evaluate.py names them:
// an empty string is a check that holds.
type scenarioResult struct {
	id, mode string
	checks   map[string]string
}

// TestScenarios plays every scenario of testdata/scenarios (ours),
// testdata/scenarios/shared (the incident scenarios) and
// testdata/scenarios/real (recorded from real servers) as a real fake server
// and judges vigil the way shared/tools/evaluate.py does: in run mode
// (vigil launches the player) unless the scenario has a stale log, and in
// watch mode (vigil attaches to a running player through its log and pid).
//
// Cases run concurrently, at most len(slots) at once, longest first so the
// whole suite takes about (total time / slots). The subtests are started
// from goroutines rather than with t.Parallel, so that a -parallel given on
// the command line (say, the core count) does not cap them: the cases
// mostly sleep.
func TestScenarios(t *testing.T) {
	needVigil(t)
	t.Parallel()
	root := repoRoot(t)
	var files []string
	for _, dir := range []string{"testdata/scenarios", "testdata/scenarios/shared", "testdata/scenarios/real"} {
		m, err := filepath.Glob(filepath.Join(root, dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatalf("no scenarios under %s/testdata/scenarios", root)
	}
	var cases []scenarioCase
	for _, f := range files {
		sc, err := scenario.Load(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		modes := []string{"run", "watch"}
		if len(sc.StaleLog) > 0 {
			modes = []string{"watch"} // as evaluate.py: stale lines only exist in an attached log
		}
		for _, m := range modes {
			cases = append(cases, scenarioCase{path: f, sc: sc, mode: m, weight: expectedSeconds(sc)})
		}
	}
	slices.SortStableFunc(cases, func(a, b scenarioCase) int {
		if a.weight != b.weight {
			if a.weight > b.weight {
				return -1
			}
			return 1
		}
		return strings.Compare(a.sc.ID+a.mode, b.sc.ID+b.mode)
	})

	var (
		mu      sync.Mutex
		results []scenarioResult
		wg      sync.WaitGroup
	)
	start := time.Now()
	for _, c := range cases {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			t.Run(c.sc.ID+"/"+c.mode, func(t *testing.T) {
				runScenario(t, c, func(r scenarioResult) {
					mu.Lock()
					results = append(results, r)
					mu.Unlock()
				})
			})
		})
	}
	wg.Wait()
	if len(results) > 0 {
		t.Logf("%s (%d sessions in %.0fs)", score(results), len(results), time.Since(start).Seconds())
	}
}

// expectedSeconds is how long a scenario should take to judge.
func expectedSeconds(sc *scenario.Scenario) float64 {
	if sc.Expect.DecidedBy != nil {
		return *sc.Expect.DecidedBy
	}
	last := 0.0
	for _, e := range sc.Timeline {
		last = max(last, e.T)
	}
	return last + 5
}

// playerArgv is the argv the player shows: the scenario's, with its
// --port value replaced by ours (as evaluate.py does).
func playerArgv(sc *scenario.Scenario, port int) []string {
	argv := slices.Clone(sc.Argv)
	if i := slices.Index(argv, "--port"); i >= 0 && i+1 < len(argv) {
		argv[i+1] = strconv.Itoa(port)
	}
	return argv
}

// scriptedEnd reports whether the scenario ends its own process (an exit
// or signal event).
func scriptedEnd(sc *scenario.Scenario) bool {
	for _, e := range sc.Timeline {
		if e.Kind == scenario.KindExit || e.Kind == scenario.KindSignal {
			return true
		}
	}
	return false
}

// runScenario plays one case, hands its checks to record and reports the
// failed ones.
func runScenario(t *testing.T, c scenarioCase, record func(scenarioResult)) {
	sb := newSandbox(t)
	sc := c.sc
	port := freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	pidfile := sb.path("server.pid")
	killPidfileGroupAtEnd(t, pidfile)
	play := []string{vigilBin, "play", c.path, "--port", strconv.Itoa(port), "--pidfile", pidfile}

	var (
		v         *vigilProc
		t0        time.Time
		logPath   string
		playerEnd chan struct{} // watch mode: closed when the player exits
		reap      func()        // watch mode: starts waiting for the player
	)
	if c.mode == "run" {
		args := append([]string{"run", "--json", "--url", url}, sc.VigilArgs...)
		args = append(append(append(args, "--"), play...), "--")
		args = append(args, playerArgv(sc, port)...)
		t0 = time.Now()
		v = startVigil(t, sb.env, args...)
	} else {
		logPath = sb.path("server.log")
		var stale strings.Builder
		now := time.Now()
		for _, line := range sc.StaleLog {
			stale.WriteString(scenario.Render(line, now) + "\n")
		}
		if err := os.WriteFile(logPath, []byte(stale.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append(append(play, "--log", logPath, "--"), playerArgv(sc, port)...)
		player := exec.Command(args[0], args[1:]...)
		player.Env = sb.env // stdin, stdout and stderr: /dev/null
		player.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := player.Start(); err != nil {
			t.Fatalf("start the player: %v", err)
		}
		// The player is reaped once vigil has exited, as evaluate.py's is:
		// one that ends before vigil attaches (a start that fails in 0.2
		// s, on a busy machine) stays a zombie, which vigil finds and
		// reads the exit status of, rather than no process at all.
		playerEnd = make(chan struct{})
		reap = sync.OnceFunc(func() { go func() { _ = player.Wait(); close(playerEnd) }() })
		t.Cleanup(func() { killGroup(player.Process.Pid); reap(); <-playerEnd })
		t0 = time.Now()
		vargs := append([]string{"watch", "--json", "--url", url, "--log", logPath,
			"--pid", strconv.Itoa(player.Process.Pid)}, sc.VigilArgs...)
		v = startVigil(t, sb.env, vargs...)
	}
	exited := v.wait(t, scenarioLimit)
	elapsed := v.exited.Sub(t0).Seconds()
	if reap != nil {
		reap()
	}

	res := scenarioResult{id: sc.ID, mode: c.mode, checks: map[string]string{"verdict": ""}}
	fail := func(check, format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		if res.checks[check] != "" {
			res.checks[check] += "; "
		}
		res.checks[check] += msg
	}
	exp := sc.Expect
	_, got, problems := parseEvents(v.stdout.Bytes())
	if !exited {
		fail("verdict", "vigil did not exit within %s", scenarioLimit)
	}
	for _, p := range problems {
		fail("json", "%s", p)
	}

	if got == nil {
		fail("verdict", "no verdict")
	} else {
		if gv := got.str("verdict"); gv != string(exp.Verdict) {
			fail("verdict", "verdict %s, expected %s", gv, exp.Verdict)
		}
		if exp.Verdict == "failed" {
			res.checks["cause"] = ""
			if gc := got.str("cause"); gc != string(exp.Cause) {
				fail("cause", "cause %s, expected %s", orNull(gc), exp.Cause)
			}
		}
		if exp.Phase != "" {
			res.checks["phase"] = ""
			if gp := got.str("phase"); gp != string(exp.Phase) {
				fail("phase", "phase %s, expected %s", gp, exp.Phase)
			}
		}
		if want, ok := exitFor[got.str("verdict")]; ok && exited && v.code != want {
			fail("exit", "exit status %d does not match verdict %s (%d)", v.code, got.str("verdict"), want)
		}
		for _, p := range verdictFieldProblems(got) {
			fail("fields", "%s", p)
		}
		switch lf := got.str("log_file"); {
		case c.mode == "watch" && lf != logPath:
			fail("fields", "log_file %q, want the watched %q", lf, logPath)
		case c.mode == "run" && lf != "":
			if fi, err := os.Stat(lf); err != nil || fi.Size() == 0 {
				fail("fields", "log_file %s is missing or empty", lf)
			}
		}
	}

	res.checks["timing"] = ""
	if slack := decidedBySlack.Seconds() * loadFactor(); exp.DecidedBy != nil && elapsed > *exp.DecidedBy+slack {
		fail("timing", "decided at %.1fs, later than %.1fs (+%.1fs slack)", elapsed, *exp.DecidedBy, slack)
	}
	if exp.NotBefore != nil && elapsed < *exp.NotBefore-notBeforeSlack.Seconds() {
		fail("timing", "decided at %.1fs, before %.1fs (-%.1fs slack)", elapsed, *exp.NotBefore, notBeforeSlack.Seconds())
	}

	// The log this startup left is judged offline as well: its last run
	// must tell what the scenario expects, as far as a log can (see
	// explainChecks).
	explainLog := logPath
	if c.mode == "run" && got != nil {
		explainLog = got.str("log_file")
	}
	if explainLog != "" {
		res.checks["explain"] = ""
		for _, p := range explainChecks(t, explainLog, exp) {
			fail("explain", "%s", p)
		}
	}

	res.checks["lifecycle"] = ""
	pid := readPid(pidfile)
	switch {
	case pid == 0:
		fail("lifecycle", "the player never wrote its pid file")
	case c.mode == "run" && got != nil && got.str("verdict") == "ready":
		if !alive(pid) {
			fail("lifecycle", "the ready server (pid %d) did not survive vigil's exit", pid)
		}
	case c.mode == "run" && got != nil:
		if left := deadWithin(3*time.Second, pid); len(left) > 0 {
			fail("lifecycle", "vigil left the %s server (pid %d) running", got.str("verdict"), pid)
		}
	case c.mode == "watch" && !scriptedEnd(sc):
		select {
		case <-playerEnd:
			fail("lifecycle", "vigil watch killed a server it only watched (pid %d; the scenario never ends it)", pid)
		default:
			if !alive(pid) {
				fail("lifecycle", "vigil watch killed a server it only watched (pid %d)", pid)
			}
		}
	}

	record(res)
	var bad []string
	for _, name := range checkNames {
		if msg, ok := res.checks[name]; ok && msg != "" {
			bad = append(bad, name+": "+msg)
		}
	}
	verdictText := "none"
	if got != nil {
		verdictText = got.str("verdict")
		if cs := got.str("cause"); cs != "" {
			verdictText += "/" + cs
		}
	}
	if len(bad) > 0 {
		if bug, ok := knownScenarioBugs[sc.ID+"/"+c.mode]; ok {
			knownBug(t, "%s\n  %s\n%s", bug, strings.Join(bad, "\n  "), v.excerpt())
		}
		t.Errorf("%s %s (expect %s): %.1fs\n  %s\n%s", c.mode, sc.ID, expectText(exp), elapsed,
			strings.Join(bad, "\n  "), v.excerpt())
	} else {
		t.Logf("%s %s: %s in %.1fs (expect %s)", c.mode, sc.ID, verdictText, elapsed, expectText(exp))
	}
}

// explainChecks runs `vigil explain --json` on a scenario's log and
// compares its last run with what the log can show of the expectation:
// stalls and timeouts are runs without a verdict, ended in the expected
// phase; whether a ready server answers sanely (bad_output) cannot be
// told; and a health failure shows in the log only if the server logged
// enough bad answers before vigil, which probes it, stopped watching.
func explainChecks(t *testing.T, log string, exp scenario.Expect) []string {
	t.Helper()
	out, err := exec.Command(vigilBin, "explain", "--json", log).Output()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		return []string{fmt.Sprintf("vigil explain: %v", err)}
	}
	var last event
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if err := json.Unmarshal(line, &last); err != nil {
			return []string{fmt.Sprintf("vigil explain printed a line that is not JSON: %s", clip(string(line), 200))}
		}
	}
	if last == nil {
		return []string{"vigil explain found no run in the log"}
	}
	verdict, cause, phase := string(exp.Verdict), string(exp.Cause), string(exp.Phase)
	switch {
	case exp.Verdict == "stalled" || exp.Verdict == "timeout":
		verdict, cause = "", ""
	case exp.Cause == "bad_output":
		verdict, cause, phase = "ready", "", "ready"
	}
	var bad []string
	gv, gc := last.str("verdict"), last.str("cause")
	if exp.Cause == "health" && (gv == "" || gv == "ready") {
		verdict, cause, phase = gv, "", "" // the log ended before it showed bad answers
	}
	if gv != verdict || gc != cause {
		bad = append(bad, fmt.Sprintf("explain says %q/%q, want %q/%q (%s)", gv, gc, verdict, cause, last.str("summary")))
	}
	if gp := last.str("phase"); phase != "" && gp != phase {
		bad = append(bad, fmt.Sprintf("explain says phase %s, want %s", gp, phase))
	}
	return bad
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

func expectText(e scenario.Expect) string {
	s := string(e.Verdict)
	if e.Cause != "" {
		s += "/" + string(e.Cause)
	}
	if e.Phase != "" {
		s += " in " + string(e.Phase)
	}
	if e.NotBefore != nil {
		s += fmt.Sprintf(" after %.1fs", *e.NotBefore)
	}
	if e.DecidedBy != nil {
		s += fmt.Sprintf(" by %.1fs", *e.DecidedBy)
	}
	return s
}

// knownScenarioBugs are scenario cases that fail because of a known vigil
// bug, by case name, with its description; none are known now.
var knownScenarioBugs = map[string]string{}

// checkNames orders the checks as evaluate.py's summary does.
var checkNames = []string{"verdict", "cause", "phase", "timing", "lifecycle", "explain", "exit", "fields", "json"}

// score is evaluate.py's summary line: per check, how many results hold it
// of those it applies to; exit, fields and json only count failures.
func score(results []scenarioResult) string {
	var parts []string
	for _, n := range checkNames {
		applicable, ok := 0, 0
		for _, r := range results {
			if msg, has := r.checks[n]; has {
				applicable++
				if msg == "" {
					ok++
				}
			}
		}
		switch n {
		case "exit", "fields", "json":
			if applicable > ok {
				parts = append(parts, fmt.Sprintf("%s wrong %d", n, applicable-ok))
			}
		default:
			parts = append(parts, fmt.Sprintf("%s %d/%d", n, ok, applicable))
		}
	}
	both, passed := 0, 0
	for _, r := range results {
		if msg, has := r.checks["verdict"]; has && msg == "" && r.checks["cause"] == "" {
			both++
		}
		clean := true
		for _, msg := range r.checks {
			clean = clean && msg == ""
		}
		if clean {
			passed++
		}
	}
	return fmt.Sprintf("score: verdict+cause %d/%d; %s; %d passed, %d failed",
		both, len(results), strings.Join(parts, ", "), passed, len(results)-passed)
}
