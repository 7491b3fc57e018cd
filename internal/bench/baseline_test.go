package bench

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseBaseline(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte(`{"levels":[{"concurrency":1,"completed":0}]}`), 0o644)
	notJSON := filepath.Join(dir, "x.json")
	os.WriteFile(notJSON, []byte(`tok/s: 70`), 0o644)
	tests := []struct {
		name       string
		arg        string
		want       map[int]float64
		wantModel  string
		wantSource string
		wantErr    string
	}{
		{name: "one figure", arg: "c=1:67.76", want: map[int]float64{1: 67.76}, wantSource: "reference figures c=1:67.76"},
		{name: "several, c= optional", arg: "c=1:67.76,8:410.5, c=32:1200", want: map[int]float64{1: 67.76, 8: 410.5, 32: 1200}},
		{name: "unit suffix", arg: "c=1:67.76tok/s", want: map[int]float64{1: 67.76}},
		{name: "earlier result file", arg: "../../testdata/bench/baseline-qwen25-7b.json",
			want: map[int]float64{1: 67.76, 8: 402.3}, wantModel: "Qwen/Qwen2.5-7B-Instruct",
			wantSource: "file ../../testdata/bench/baseline-qwen25-7b.json"},
		{name: "bad figure", arg: "c=1:fast", wantErr: "want c=CONCURRENCY:TOKENS_PER_S"},
		{name: "zero concurrency", arg: "c=0:10", wantErr: "want c=CONCURRENCY:TOKENS_PER_S"},
		{name: "twice", arg: "c=1:10,c=1:20", wantErr: "given twice"},
		{name: "missing file", arg: filepath.Join(dir, "nope.json"), wantErr: "no such file"},
		{name: "not a result", arg: notJSON, wantErr: "not a vigil bench --json result"},
		{name: "no completed level", arg: empty, wantErr: "no level with completed requests"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBaseline(tt.arg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got.TokS, tt.want) || got.Model != tt.wantModel {
				t.Errorf("got %v model %q, want %v model %q", got.TokS, got.Model, tt.want, tt.wantModel)
			}
			if tt.wantSource != "" && got.Source != tt.wantSource {
				t.Errorf("got source %q, want %q", got.Source, tt.wantSource)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	run := &Result{Model: "m", Endpoint: "/v1/completions", InputLen: 1024, OutputLen: 256, Levels: []Level{
		{Concurrency: 1, Completed: 10, OutputTokS: 73},
		{Concurrency: 8, Completed: 10, OutputTokS: 350},
		{Concurrency: 32, Completed: 10, OutputTokS: 900},
	}}
	tests := []struct {
		name      string
		base      *Baseline
		tolerance float64
		wantOK    bool
		wantBelow []int
		wantWarn  string
	}{
		{name: "faster than the reference", base: &Baseline{TokS: map[int]float64{1: 67.76}}, tolerance: 0.10, wantOK: true},
		{name: "within tolerance", base: &Baseline{TokS: map[int]float64{8: 380}}, tolerance: 0.10, wantOK: true},
		{name: "below tolerance", base: &Baseline{TokS: map[int]float64{1: 70, 8: 400}}, tolerance: 0.10, wantBelow: []int{8}},
		{name: "zero tolerance", base: &Baseline{TokS: map[int]float64{8: 351}}, tolerance: 0, wantBelow: []int{8}},
		{name: "baseline level not run", base: &Baseline{TokS: map[int]float64{1: 70, 64: 2000}}, tolerance: 0.1, wantOK: true,
			wantWarn: "not run, so not compared: c=64"},
		{name: "different settings", base: &Baseline{TokS: map[int]float64{1: 70}, Model: "other", OutputLen: 128}, tolerance: 0.1, wantOK: true,
			wantWarn: "baseline model was other, now m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(run, tt.base, tt.tolerance)
			if got.OK != tt.wantOK {
				t.Errorf("got OK %v, want %v", got.OK, tt.wantOK)
			}
			var below []int
			for _, lc := range got.Levels {
				if lc.Below {
					below = append(below, lc.Concurrency)
				}
			}
			if len(below) != len(tt.wantBelow) || (len(below) > 0 && below[0] != tt.wantBelow[0]) {
				t.Errorf("got below %v, want %v", below, tt.wantBelow)
			}
			if tt.wantWarn != "" && !strings.Contains(strings.Join(got.Warnings, "\n"), tt.wantWarn) {
				t.Errorf("got warnings %q, want one containing %q", got.Warnings, tt.wantWarn)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	run := &Result{OK: true, Levels: []Level{{Concurrency: 1, Completed: 3, OutputTokS: 50}}}
	b, _ := ParseBaseline("c=1:67.76")
	if err := run.Judge(context.Background(), b, 0.10); err != nil {
		t.Fatal(err)
	}
	if run.OK || run.Baseline == nil {
		t.Fatalf("got OK %v, want a failed comparison", run.OK)
	}
	want := "c=1: 50.00 tok/s is 26.2% below the baseline's 67.76 (tolerance 10%)"
	if got := run.Problems(); len(got) != 1 || got[0] != want {
		t.Errorf("got problems %q, want %q", got, want)
	}
	// No source: nothing to hold the run against.
	run2 := &Result{OK: true}
	if err := run2.Judge(context.Background(), nil, 0.1); err != nil || !run2.OK || run2.Baseline != nil {
		t.Errorf("got %v OK %v baseline %v", err, run2.OK, run2.Baseline)
	}
}
