package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"vigil/internal/multinode"
)

// fakeMember is a member vigil that ends when it is interrupted, as a
// member vigil does on SIGTERM (exit 143, no verdict).
type fakeMember struct {
	i           int
	ends        chan memberEnd
	interrupted int
}

func (f *fakeMember) Interrupt() error {
	f.interrupted++
	if f.interrupted == 1 {
		f.ends <- memberEnd{i: f.i, code: 143}
	}
	return nil
}

func (f *fakeMember) Wait() (int, string, error) { return 0, "", nil }

// loop is a two-member run --hosts whose member vigils are fakes.
func loop(t *testing.T) (*hostsRun, []*fakeMember, chan memberEvent, chan memberEnd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{IO: &IOStreams{Out: &out, ErrOut: &errb}, Getenv: func(string) string { return "" }}
	launches, err := multinode.Plan("node0,node1", []string{"serve", "--node-rank", "{rank}"})
	if err != nil {
		t.Fatal(err)
	}
	events, ends := make(chan memberEvent, 64), make(chan memberEnd, 4)
	h := &hostsRun{env: env, mode: "run", start: time.Now(), now: time.Now}
	var fakes []*fakeMember
	for i, l := range launches {
		f := &fakeMember{i: i, ends: ends}
		fakes = append(fakes, f)
		h.members = append(h.members, &hostMember{launch: l, proc: f, lastEvent: h.start,
			m:    multinode.Member{Host: l.Host, Rank: l.Rank, Serving: l.Serving},
			show: remoteText{out: &errb, err: &errb, host: l.Host}})
	}
	return h, fakes, events, ends, &out, &errb
}

func send(events chan memberEvent, i int, lines ...string) {
	for _, l := range lines {
		events <- memberEvent{i, localEvent([]byte(l))}
	}
}

func TestHostsLoopFailureStopsTheOthers(t *testing.T) {
	h, fakes, events, ends, out, errb := loop(t)
	send(events, 1, `{"event":"phase","t":0.5,"phase":"distributed"}`)
	send(events, 0, `{"event":"phase","t":0.4,"phase":"weights"}`,
		`{"event":"verdict","t":1,"verdict":"failed","cause":"crash","phase":"weights","summary":"died of SIGSEGV","evidence":["Fatal Python error: Segmentation fault"],"log_file":"/l0"}`)
	ends <- memberEnd{i: 0, code: 1}
	h.drain(events, ends, make(chan os.Signal))
	if fakes[1].interrupted != 1 || fakes[0].interrupted != 0 {
		t.Errorf("interrupts: node0 %d, node1 %d; want node1 stopped once, node0 (decided) never", fakes[0].interrupted, fakes[1].interrupted)
	}
	err := h.finish()
	if ee, ok := err.(*ExitError); !ok || ee.Code != 1 {
		t.Errorf("finish: %v, want exit 1", err)
	}
	head, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(head, "FAILED (crash) in phase weights, 2 nodes") || !strings.Contains(head, "node0 (rank 0): died of SIGSEGV") {
		t.Errorf("whole verdict line %q", head)
	}
	if !strings.Contains(out.String(), "node1 (rank 1): starting in distributed") {
		t.Errorf("stdout %q: want node1 as an echo", out)
	}
	if !strings.Contains(errb.String(), "stopping the member on node1: the start failed on node0") {
		t.Errorf("stderr %q: want the stop said", errb)
	}
}

func TestHostsLoopReady(t *testing.T) {
	h, fakes, events, ends, out, _ := loop(t)
	h.asJSON = true
	ready := `{"event":"verdict","t":2,"verdict":"ready","cause":null,"phase":"ready","summary":"ready","evidence":["x"],"log_file":"/l"}`
	send(events, 0, ready)
	ends <- memberEnd{i: 0}
	// The serving member alone is no whole: node1 is judged too.
	send(events, 1, ready)
	ends <- memberEnd{i: 1}
	h.drain(events, ends, make(chan os.Signal))
	if fakes[0].interrupted+fakes[1].interrupted != 0 {
		t.Error("a ready start stopped a member")
	}
	if err := h.finish(); err != nil {
		t.Errorf("finish: %v, want exit 0", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last["event"] != "verdict" || last["verdict"] != "ready" || last["host"] != "node0" || last["nnodes"] != 2.0 {
		t.Errorf("last line %v: want the whole ready verdict served by node0", last)
	}
	if n := strings.Count(out.String(), `"event":"member_verdict"`); n != 2 {
		t.Errorf("%d member_verdict events, want 2:\n%s", n, out)
	}
}

// A member vigil that ends without a verdict (a usage error on its host)
// ends the start: the others are stopped and its status is the exit.
func TestHostsLoopBrokenMember(t *testing.T) {
	h, fakes, events, ends, _, errb := loop(t)
	ends <- memberEnd{i: 1, code: 2, stderr: "vigil: --timeout x: bad duration\n"}
	h.drain(events, ends, make(chan os.Signal))
	if fakes[0].interrupted != 1 {
		t.Errorf("node0 interrupted %d times, want once", fakes[0].interrupted)
	}
	if ee, ok := h.finish().(*ExitError); !ok || ee.Code != 2 {
		t.Errorf("finish: want exit 2")
	}
	if !strings.Contains(errb.String(), "node1: vigil: --timeout x: bad duration") {
		t.Errorf("stderr %q: want node1's usage error", errb)
	}
}

// Ctrl-C before the verdict stops every member and exits 130, as a local
// run would.
func TestHostsLoopInterrupted(t *testing.T) {
	h, fakes, events, ends, _, errb := loop(t)
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGINT
	h.drain(events, ends, sigs)
	if fakes[0].interrupted != 1 || fakes[1].interrupted != 1 {
		t.Errorf("interrupts %d, %d; want each member once", fakes[0].interrupted, fakes[1].interrupted)
	}
	if ee, ok := h.finish().(*ExitError); !ok || ee.Code != 130 {
		t.Errorf("finish: want exit 130")
	}
	if !strings.Contains(errb.String(), "SIGINT before the verdict") {
		t.Errorf("stderr %q", errb)
	}
}

// A member whose vigil has said nothing for multinode.ProgressWindow no longer
// counts as progressing: it waits, and another member's stall is the
// whole's. Before that the whole stays undecided.
func TestHostsLoopStallNeedsEveryMemberStill(t *testing.T) {
	h, _, _, _, _, _ := loop(t)
	now := h.start
	h.now = func() time.Time { return now }
	stalled := localEvent([]byte(`{"event":"verdict","t":40,"verdict":"stalled","cause":null,"phase":"weights","summary":"no progress","evidence":["[vigil] no log output"],"log_file":"/l"}`))
	stalled.Received = now.Add(40 * time.Second)
	h.event(memberEvent{0, stalled})
	phase := localEvent([]byte(`{"event":"phase","t":20,"phase":"distributed"}`))
	phase.Received = now.Add(20 * time.Second)
	h.event(memberEvent{1, phase})

	now = now.Add(40 * time.Second)
	h.judge()
	if h.decided {
		t.Fatalf("decided %+v while node1 spoke 20s ago", h.whole)
	}
	now = now.Add(30 * time.Second)
	h.judge()
	if !h.decided || h.whole.Verdict != "stalled" || h.whole.RootHost != "node0" {
		t.Fatalf("whole %+v, want stalled rooted in node0 once node1 is silent past the window", h.whole)
	}
	if e := h.whole.Echoes; len(e) != 1 || e[0].State != "waiting" || e[0].Phase != "distributed" {
		t.Errorf("echoes %+v, want node1 waiting in distributed", e)
	}
}
