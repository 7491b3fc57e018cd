package explain

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v "vigil/internal/verdict"
)

// sglangServing is an SGLang start that becomes ready at 08:00:12 and then
// serves requests once a minute for the given time, then the lines in end.
func sglangServing(serve time.Duration, end ...string) string {
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	ts := func(d time.Duration) string { return t0.Add(d).Format("2006-01-02 15:04:05") }
	var b strings.Builder
	for _, l := range []struct {
		at   time.Duration
		text string
	}{
		{0, "[%s] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B-Instruct', tp_size=1, port=30000)"},
		{time.Second, "[%s TP0] Init torch distributed begin."},
		{2 * time.Second, "[%s TP0] Load weight begin. avail mem=78.58 GB"},
		{6 * time.Second, "[%s TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=64.18 GB, mem usage=14.40 GB."},
		{8 * time.Second, "[%s TP0] KV Cache is allocated. #tokens: 951104, K size: 25.40 GB, V size: 25.40 GB"},
		{10 * time.Second, "[%s] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)"},
		{11 * time.Second, `[%s] INFO:     127.0.0.1:52120 - "POST /generate HTTP/1.1" 200 OK`},
		{12 * time.Second, "[%s] The server is fired up and ready to roll!"},
	} {
		fmt.Fprintf(&b, l.text+"\n", ts(l.at))
	}
	last := 12 * time.Second
	for d := time.Minute; d <= serve; d += time.Minute {
		last = 12*time.Second + d
		fmt.Fprintf(&b, "[%s] INFO:     10.0.0.7:40000 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n", ts(last))
	}
	for _, l := range end {
		fmt.Fprintf(&b, l+"\n", ts(last+time.Second))
	}
	return b.String()
}

const health503 = `[%s] INFO:     127.0.0.1:5000 - "GET /health HTTP/1.1" 503 Service Unavailable`

func TestAfterReady(t *testing.T) {
	cases := []struct {
		name  string
		log   string
		how   string
		cause v.Cause
		after time.Duration
		text  string
	}{
		{name: "died of a CUDA fault hours after ready",
			log: sglangServing(10*time.Hour+54*time.Minute,
				"[%s TP0] Scheduler hit an exception: Traceback (most recent call last):",
				"RuntimeError: CUDA error: an illegal memory access was encountered",
				"[%s] Received sigquit from a child process. It usually means the child failed."),
			how: LifeDied, cause: v.CUDA, after: 10*time.Hour + 54*time.Minute + time.Second,
			text: "died after 10h54m: cuda"},
		{name: "still serving", log: sglangServing(3 * time.Hour),
			how: LifeServing, after: 3 * time.Hour, text: "still serving at the end of the log, 3h0m after ready"},
		{name: "the scheduler's watchdog", log: sglangServing(2*time.Hour, "[%s TP0] Watchdog timeout (self.watchdog_timeout=300)"),
			how: LifeDied, cause: v.Crash, after: 2*time.Hour + time.Second, text: "SGLang's scheduler watchdog"},
		// What uvicorn prints for SGLang's /health when the scheduler
		// does not answer its health request (http_server.py).
		{name: "health failing to the end of the log",
			log: sglangServing(time.Hour, health503, health503, health503),
			how: LifeHung, cause: v.Health, after: time.Hour + time.Second,
			text: "hung after 1h0m: health: the health endpoint kept failing to the run's last line: 3 answers in a row, the last HTTP 503"},
		{name: "one failing answer is a hiccup", log: sglangServing(time.Hour, health503),
			how: LifeServing, after: time.Hour + time.Second, text: "still serving"},
		{name: "health recovered", log: sglangServing(time.Hour, health503, health503, `[%s] INFO:     127.0.0.1:5000 - "GET /health HTTP/1.1" 200 OK`),
			how: LifeServing, after: time.Hour + time.Second, text: "still serving"},
		{name: "failing again after a recovery", log: sglangServing(time.Hour, health503, `[%s] INFO:     127.0.0.1:5000 - "GET /health HTTP/1.1" 200 OK`, health503, health503),
			how: LifeHung, cause: v.Health, after: time.Hour + time.Second, text: "2 answers in a row, the last HTTP 503"},
		{name: "a death line says more than the answers after it",
			log: sglangServing(time.Hour, "[%s TP0] Watchdog timeout (self.watchdog_timeout=300)", health503, health503),
			how: LifeDied, cause: v.Crash, after: time.Hour + time.Second, text: "SGLang's scheduler watchdog"},
		{name: "a start failure before ready is no death after it",
			log: strings.Replace(sglangServing(time.Hour), "Load weight end.", "RuntimeError: CUDA error: an illegal memory access was encountered\n[2026-03-01 08:00:06 TP0] Load weight end.", 1),
			how: "failed-or-ready"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var runs []*Run
			if err := Read(strings.NewReader(tc.log), Options{Loc: time.UTC, Now: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}, func(r *Run) { runs = append(runs, r) }); err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 {
				t.Fatalf("%d runs, want 1", len(runs))
			}
			r := runs[0]

			if tc.how == "failed-or-ready" {
				if r.Life != nil && r.Life.How == LifeDied {
					t.Fatalf("a line before ready read as a death after it: %+v", r.Life)
				}
				return
			}
			if r.Verdict != v.Ready || r.Life == nil {
				t.Fatalf("verdict %s, life %+v; want ready with an after-ready account", r.Verdict, r.Life)
			}
			a := r.Life
			if tc.how == LifeHung && (len(a.Evidence) == 0 || !strings.Contains(a.Evidence[0], `"GET /health HTTP/1.1" 503`)) {
				t.Errorf("evidence %q, want the failing answers", a.Evidence)
			}
			if a.How != tc.how || a.Cause != tc.cause || a.After != tc.after {
				t.Errorf("after ready: %s/%s after %s, want %s/%s after %s", a.How, a.Cause, a.After, tc.how, tc.cause, tc.after)
			}
			var b strings.Builder
			if err := WriteText(&b, r); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.text) {
				t.Errorf("text lacks %q:\n%s", tc.text, b.String())
			}
		})
	}
}
