package bench

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	ms := func(vs ...float64) []time.Duration {
		var out []time.Duration
		for _, v := range vs {
			out = append(out, time.Duration(v*float64(time.Millisecond)))
		}
		return out
	}
	tests := []struct {
		name string
		in   []time.Duration
		want Dist
	}{
		{name: "empty", in: nil, want: Dist{}},
		{name: "one", in: ms(7), want: Dist{Mean: 7, P50: 7, P90: 7, P99: 7}},
		// numpy.percentile([1,2,3,4,5,6,7,8,9,10], [50,90,99]) = 5.5, 9.1, 9.91
		{name: "one to ten, unsorted", in: ms(10, 1, 9, 2, 8, 3, 7, 4, 6, 5), want: Dist{Mean: 5.5, P50: 5.5, P90: 9.1, P99: 9.91}},
		{name: "two", in: ms(1, 3), want: Dist{Mean: 2, P50: 2, P90: 2.8, P99: 2.98}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summarize(tt.in); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
