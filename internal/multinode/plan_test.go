package multinode

import (
	"reflect"
	"testing"
	"time"

	v "vigil/internal/verdict"
)

func TestHosts(t *testing.T) {
	ls, err := Hosts("root@node0, localhost ,node2")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 3 || ls[0].Target != "root@node0" || ls[0].Name() != "node0" || !ls[0].Serving ||
		!ls[1].Local || ls[1].Target != "" || ls[1].Serving || ls[2].Rank != 2 {
		t.Errorf("Hosts: %+v", ls)
	}
	if p := ls[2].Placeholders(3); p != (Placeholders{Rank: 2, Host: "node2", NNodes: 3}) {
		t.Errorf("placeholders %+v", p)
	}
	for _, bad := range []string{"", "a,,b", "-oProxyCommand=x", "a b", "a,a"} {
		if _, err := Hosts(bad); err == nil {
			t.Errorf("Hosts(%q): no error", bad)
		}
	}
}

func TestOutcomeOf(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		raw  string
		ok   bool
		want Outcome
	}{
		{"failed", `{"event":"verdict","t":3,"verdict":"failed","cause":"nccl","phase":"distributed","summary":"s","hint":"h","evidence":["e1","e2"],"log_file":"/l"}`,
			true, Outcome{Verdict: v.Failed, Cause: v.NCCL, Phase: v.Distributed, Summary: "s", Hint: "h", Evidence: []string{"e1", "e2"}, LogFile: "/l", At: at}},
		{"ready, cause null", `{"cause":null,"event":"verdict","verdict":"ready","phase":"ready"}`,
			true, Outcome{Verdict: v.Ready, Phase: v.PhaseReady, At: at}},
		{"another event", `{"event":"phase","phase":"weights"}`, false, Outcome{}},
		{"not JSON", `Traceback`, false, Outcome{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := OutcomeOf([]byte(tt.raw), at)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("OutcomeOf = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
