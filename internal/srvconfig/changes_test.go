package srvconfig

import (
	"reflect"
	"testing"
)

func cfg(kv ...string) Config {
	var c Config
	for i := 0; i+1 < len(kv); i += 2 {
		c = append(c, KV{Key: kv[i], Value: kv[i+1]})
	}
	return c
}

func TestChanges(t *testing.T) {
	tests := []struct {
		name     string
		old, cur Config
		want     []Change
	}{
		{"same", cfg("a", "1", "b", "2"), cfg("a", "1", "b", "2"), nil},
		{
			name: "a dropped flag back to its default",
			old:  cfg("tp_size", "8", "fp4_gemm_runner_backend", "flashinfer_cudnn"),
			cur:  cfg("tp_size", "8", "fp4_gemm_runner_backend", "flashinfer_cutlass"),
			want: []Change{{Key: "fp4_gemm_runner_backend", Kind: "changed", Old: "flashinfer_cudnn", New: "flashinfer_cutlass"}},
		},
		{
			name: "added, changed in print order, then removed",
			old:  cfg("a", "1", "gone", "x", "b", "2"),
			cur:  cfg("new", "y", "b", "3", "a", "1"),
			want: []Change{{Key: "new", Kind: "added", New: "y"}, {Key: "b", Kind: "changed", Old: "2", New: "3"}, {Key: "gone", Kind: "removed", Old: "x"}},
		},
		{
			name: "a repeated key counts once, with its last value",
			old:  cfg("a", "1"),
			cur:  cfg("a", "1", "a", "2"),
			want: []Change{{Key: "a", Kind: "changed", Old: "1", New: "2"}},
		},
		{"both empty", nil, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Changes(tc.old, tc.cur); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
