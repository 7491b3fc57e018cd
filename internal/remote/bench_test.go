package remote

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"vigil/internal/remote/sshtest"
)

// emitter is a fake vigil printing 20 events, 20 ms apart, each stamped
// with the wall clock when it was written.
const emitter = `i=0; while [ $i -lt 20 ]; do echo "{\"event\":\"tick\",\"t\":0,\"ns\":$(date +%s%N)}"; sleep 0.02; i=$((i+1)); done`

// latency is the mean time from an event's stamp to its arrival.
type latency struct {
	sum time.Duration
	n   int
}

func (l *latency) add(e Event) {
	var v struct {
		NS int64 `json:"ns"`
	}
	if e.Name != "tick" || json.Unmarshal(e.Raw, &v) != nil || v.NS == 0 {
		return
	}
	l.sum += e.Received.Sub(time.Unix(0, v.NS))
	l.n++
}

func (l *latency) mean() time.Duration {
	if l.n == 0 {
		return 0
	}
	return l.sum / time.Duration(l.n)
}

// BenchmarkEventLatencyOverSSH compares how late events arrive from a
// vigil run over loopback ssh (through the session script's events file
// and tail) with the same program run locally and read from its pipe. It
// reports the added latency (issue 16 wants under 200 ms) and the ssh
// logins per host, which multiplexing keeps at 1.
//
//	go test -run '^$' -bench EventLatencyOverSSH ./internal/remote/
func BenchmarkEventLatencyOverSSH(b *testing.B) {
	n := sshtest.New(b, sshtest.HostOptions{Name: "node0"})
	bin := fakeVigil(b, emitter)
	ctx := context.Background()
	c, err := Connect(ctx, "node0", Options{SSH: n.SSH, Binary: bin})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var local, remote latency
	for b.Loop() {
		lw := &lineWriter{on: func(line []byte) { local.add(parseEvent(line, time.Now())) }}
		cmd := exec.Command(bin, "watch", "--json")
		cmd.Stdout = lw
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Run(ctx, Spec{Args: []string{"watch"}}, remote.add); err != nil {
			b.Fatal(err)
		}
	}
	if remote.n == 0 || local.n == 0 {
		b.Fatalf("no events measured (local %d, ssh %d)", local.n, remote.n)
	}
	b.ReportMetric(float64(local.mean().Microseconds())/1000, "local-ms/event")
	b.ReportMetric(float64(remote.mean().Microseconds())/1000, "ssh-ms/event")
	b.ReportMetric(float64((remote.mean()-local.mean()).Microseconds())/1000, "added-ms/event")
	b.ReportMetric(float64(n.Host("node0").Logins()), "ssh-logins/host")
}
