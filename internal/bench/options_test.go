package bench

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseConcurrency(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{in: "1", want: []int{1}},
		{in: "1,8,32", want: []int{1, 8, 32}},
		{in: " 4 , 2 ", want: []int{4, 2}},
		{in: "", wantErr: true},
		{in: "0", wantErr: true},
		{in: "1,x", wantErr: true},
		{in: "1,1", wantErr: true},
		{in: "-3", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseConcurrency(tt.in)
			if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
				t.Errorf("got %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseTolerance(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr bool
	}{
		{in: "10%", want: 0.10},
		{in: "10", want: 0.10},
		{in: "2.5%", want: 0.025},
		{in: "0", want: 0},
		{in: "100%", wantErr: true},
		{in: "-1", wantErr: true},
		{in: "ten", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTolerance(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseSLO(t *testing.T) {
	tests := []struct {
		in      string
		want    SLO
		wantErr bool
	}{
		{in: "ttft=200ms,tpot=50ms", want: SLO{TTFT: 200 * time.Millisecond, TPOT: 50 * time.Millisecond}},
		{in: "ttft=1.5s", want: SLO{TTFT: 1500 * time.Millisecond}},
		{in: "tpot=40", want: SLO{TPOT: 40 * time.Millisecond}},
		{in: "e2e=10s,TTFT=300", want: SLO{E2E: 10 * time.Second, TTFT: 300 * time.Millisecond}},
		{in: "itl=5ms", wantErr: true},
		{in: "ttft", wantErr: true},
		{in: "ttft=-5ms", wantErr: true},
		{in: "ttft=soon", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSLO(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestSLOMeets(t *testing.T) {
	slo := SLO{TTFT: 100 * time.Millisecond, TPOT: 20 * time.Millisecond}
	tests := []struct {
		name            string
		ttft, tpot, e2e time.Duration
		want            bool
	}{
		{name: "within both", ttft: 100 * time.Millisecond, tpot: 20 * time.Millisecond, e2e: time.Hour, want: true},
		{name: "slow first token", ttft: 101 * time.Millisecond, tpot: 5 * time.Millisecond},
		{name: "slow decode", ttft: time.Millisecond, tpot: 21 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := slo.Meets(tt.ttft, tt.tpot, tt.e2e); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseSpec(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		check   func(Options) bool
		wantErr string
	}{
		{name: "empty is the defaults", spec: "", check: func(o Options) bool {
			d := DefaultOptions()
			return slices.Equal(o.Concurrency, d.Concurrency) && o.OutputLen == d.OutputLen && o.Tolerance == d.Tolerance
		}},
		{name: "everything", spec: "c=1,8; n=50; in=512; out=128; warmup=2; endpoint=chat; model=m; slo=ttft=500ms,tpot=50ms; tolerance=5%; baseline=c=1:67.76,c=8:400; ignore-eos=false; seed=7; timeout=1m; stall-timeout=5s",
			check: func(o Options) bool {
				return slices.Equal(o.Concurrency, []int{1, 8}) && o.Requests == 50 && o.InputLen == 512 && o.OutputLen == 128 &&
					o.Warmup == 2 && o.Endpoint == "chat" && o.Model == "m" && o.SLO.TTFT == 500*time.Millisecond &&
					o.SLO.TPOT == 50*time.Millisecond && o.Tolerance == 0.05 && o.Baseline == "c=1:67.76,c=8:400" &&
					!o.IgnoreEOS && o.Seed == 7 && o.Timeout == time.Minute && o.StallTimeout == 5*time.Second
			}},
		{name: "duration", spec: "d=30s", check: func(o Options) bool { return o.Duration == 30*time.Second }},
		{name: "unknown key", spec: "x=1", wantErr: `unknown key "x"`},
		{name: "not key=value", spec: "c", wantErr: "is not key=value"},
		{name: "bad number", spec: "n=many", wantErr: "n=many"},
		{name: "requests and duration", spec: "n=5;d=1s", wantErr: "exclude each other"},
		{name: "bad endpoint", spec: "endpoint=rpc", wantErr: "unknown endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSpec(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(got) {
				t.Errorf("got %+v", got)
			}
		})
	}
}
