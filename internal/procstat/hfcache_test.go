package procstat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHFCache(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]int // path under HF_HOME → size
		want  CacheSample
	}{
		{name: "no cache yet", files: nil, want: CacheSample{}},
		{name: "empty hub", files: map[string]int{"hub/version.txt": 1}, want: CacheSample{}},
		{
			name: "finished model and one download in progress",
			files: map[string]int{
				"hub/models--meta-llama--Llama-3.1-8B-Instruct/blobs/0d3f1c":                1000,
				"hub/models--meta-llama--Llama-3.1-8B-Instruct/blobs/8a9e44":                24000,
				"hub/models--meta-llama--Llama-3.1-8B-Instruct/refs/main":                   40,
				"hub/models--Qwen--Qwen2.5-72B-Instruct/blobs/ab12cd":                       5000,
				"hub/models--Qwen--Qwen2.5-72B-Instruct/blobs/ef34ab.incomplete":            3000,
				"hub/.locks/models--Qwen--Qwen2.5-72B-Instruct/ef34ab.lock":                 0,
				"hub/datasets--openai--gsm8k/blobs/77aa00":                                  10,
				"xet/https___cas.xethub.hf.co/chunk-cache/aa/bb":                            99999,
				"hub/models--Qwen--Qwen2.5-72B-Instruct/snapshots/deadbeef/config.json.txt": 7,
			},
			want: CacheSample{Repos: 3, Blobs: 4, BlobBytes: 30010, Incomplete: 1, IncompleteBytes: 3000},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			for p, n := range tt.files {
				mustWrite(t, filepath.Join(home, p), strings.Repeat("x", n))
			}
			got, err := HFCache(home)
			if err != nil {
				t.Fatal(err)
			}
			got.At = time.Time{}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestHFCacheSkipsSymlinks(t *testing.T) {
	home := t.TempDir()
	blobs := filepath.Join(home, "hub", "models--a--b", "blobs")
	mustWrite(t, filepath.Join(blobs, "real"), "12345")
	if err := os.Symlink(filepath.Join(blobs, "real"), filepath.Join(blobs, "link")); err != nil {
		t.Fatal(err)
	}
	got, err := HFCache(home)
	if err != nil {
		t.Fatal(err)
	}
	if got.Blobs != 1 || got.BlobBytes != 5 {
		t.Errorf("got %d blobs of %d bytes, want 1 of 5", got.Blobs, got.BlobBytes)
	}
}

func TestCacheGrowth(t *testing.T) {
	prev := CacheSample{At: t0, Blobs: 3, BlobBytes: 3 << 30, Incomplete: 1, IncompleteBytes: 100 << 20}
	tests := []struct {
		name        string
		cur         CacheSample
		wantGrowth  float64
		wantLoading bool
	}{
		{"no change", CacheSample{At: t0.Add(2 * time.Second), Blobs: 3, BlobBytes: 3 << 30, Incomplete: 1, IncompleteBytes: 100 << 20}, 0, false},
		{"incomplete grows", CacheSample{At: t0.Add(2 * time.Second), Blobs: 3, BlobBytes: 3 << 30, Incomplete: 1, IncompleteBytes: 300 << 20}, 100 << 20, true},
		{"file finished", CacheSample{At: t0.Add(2 * time.Second), Blobs: 4, BlobBytes: 3<<30 + 100<<20}, 0, true},
		{"same instant", CacheSample{At: t0, BlobBytes: 9 << 30}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cur.Growth(prev); got != tt.wantGrowth {
				t.Errorf("got growth %v, want %v", got, tt.wantGrowth)
			}
			if got := tt.cur.Downloading(prev); got != tt.wantLoading {
				t.Errorf("got downloading %v, want %v", got, tt.wantLoading)
			}
		})
	}
}

func TestDefaultHFHome(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantHF  string
		wantHub string
	}{
		{"home only", map[string]string{"HOME": "/home/ada"}, "/home/ada/.cache/huggingface", "/home/ada/.cache/huggingface/hub"},
		{"HF_HOME", map[string]string{"HOME": "/home/ada", "HF_HOME": "/data/hf"}, "/data/hf", "/data/hf/hub"},
		{"HF_HOME with tilde", map[string]string{"HOME": "/home/ada", "HF_HOME": "~/hf"}, "/home/ada/hf", "/home/ada/hf/hub"},
		{"XDG_CACHE_HOME", map[string]string{"HOME": "/home/ada", "XDG_CACHE_HOME": "/cache"}, "/cache/huggingface", "/cache/huggingface/hub"},
		{"HF_HUB_CACHE wins for the hub", map[string]string{"HOME": "/root", "HF_HOME": "/data/hf", "HF_HUB_CACHE": "/nvme/hub"}, "/data/hf", "/nvme/hub"},
		{"legacy HUGGINGFACE_HUB_CACHE", map[string]string{"HOME": "/root", "HUGGINGFACE_HUB_CACHE": "/old/hub"}, "/root/.cache/huggingface", "/old/hub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := DefaultHFHome(getenv); got != tt.wantHF {
				t.Errorf("got HF home %q, want %q", got, tt.wantHF)
			}
			if got := DefaultHubCache(getenv); got != tt.wantHub {
				t.Errorf("got hub cache %q, want %q", got, tt.wantHub)
			}
		})
	}
}
