package gpu

import (
	"os"
	"path/filepath"
	"testing"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseGPUs(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		wantN     int
		wantFirst GPU
		wantUsed  int64
		wantBad   int
	}{
		{"8xH100", "h100x8-gpus.csv", 8,
			GPU{Index: 0, UUID: "GPU-3f8e2a4c-1b7d-9e05-62c4-7a1d3e9b0f21", Name: "NVIDIA H100 80GB HBM3", MemUsedMiB: 74613, MemTotalMiB: 81559, UtilPct: 100},
			596880, 0},
		{"1xRTX 4090", "rtx4090-gpus.csv", 1,
			GPU{Index: 0, UUID: "GPU-7b2e95d4-0c1f-8a36-e4d7-21f9c5b0a863", Name: "NVIDIA GeForce RTX 4090", MemUsedMiB: 18342, MemTotalMiB: 24564, UtilPct: 31},
			18342, 0},
		{"N/A, Not Supported, fallen off the bus", "odd-gpus.csv", 2,
			GPU{Index: 0, UUID: "GPU-a1b2c3d4-0000-1111-2222-333344445555", Name: "NVIDIA GH200 480GB", MemUsedMiB: 1, MemTotalMiB: 97871, UtilPct: Unknown},
			1, 1},
		{"no devices", "no-devices.txt", 0, GPU{}, 0, 1},
		{"empty", "", 0, GPU{}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out []byte
			if tt.file != "" {
				out = fixture(t, tt.file)
			}
			gpus, bad := ParseGPUs(out)
			if len(gpus) != tt.wantN {
				t.Fatalf("got %d GPUs, want %d", len(gpus), tt.wantN)
			}
			if len(bad) != tt.wantBad {
				t.Errorf("got bad lines %q, want %d", bad, tt.wantBad)
			}
			if tt.wantN == 0 {
				return
			}
			if gpus[0] != tt.wantFirst {
				t.Errorf("got %+v, want %+v", gpus[0], tt.wantFirst)
			}
			if got := (Snapshot{GPUs: gpus}).UsedMiB(); got != tt.wantUsed {
				t.Errorf("got %d MiB used, want %d", got, tt.wantUsed)
			}
		})
	}
}

func TestParseGPUsNotSupported(t *testing.T) {
	gpus, _ := ParseGPUs(fixture(t, "odd-gpus.csv"))
	want := GPU{Index: 1, UUID: "GPU-a1b2c3d4-0000-1111-2222-333344446666", Name: "NVIDIA A100-SXM4-40GB",
		MemUsedMiB: Unknown, MemTotalMiB: 40960, UtilPct: Unknown}
	if gpus[1] != want {
		t.Errorf("got %+v, want %+v", gpus[1], want)
	}
}

func TestParseApps(t *testing.T) {
	h100, _ := ParseGPUs(fixture(t, "h100x8-gpus.csv"))
	rtx, _ := ParseGPUs(fixture(t, "rtx4090-gpus.csv"))
	tests := []struct {
		name     string
		out      string
		gpus     []GPU
		wantN    int
		wantLast App
		wantBad  int
	}{
		{"8xH100, one rank per GPU", string(fixture(t, "h100x8-apps.csv")), h100, 8,
			App{PID: 51211, GPUUUID: "GPU-d5f71a08-4be3-c29d-7061-3c8e5b92a4d7", GPUIndex: 7, UsedMiB: 74060}, 0},
		{"RTX 4090 with N/A memory", string(fixture(t, "rtx4090-apps.csv")), rtx, 2,
			App{PID: 1733, GPUUUID: "GPU-7b2e95d4-0c1f-8a36-e4d7-21f9c5b0a863", GPUIndex: 0, UsedMiB: Unknown}, 0},
		{"unknown GPU", "12, GPU-ffff, 100\n", rtx, 1, App{PID: 12, GPUUUID: "GPU-ffff", GPUIndex: Unknown, UsedMiB: 100}, 0},
		{"no processes", "No running processes found\n", rtx, 0, App{}, 0},
		{"garbage", "pid, gpu_uuid\nx, GPU-1, 5\n", rtx, 0, App{}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, bad := ParseApps([]byte(tt.out), tt.gpus)
			if len(bad) != tt.wantBad {
				t.Errorf("got bad lines %q, want %d", bad, tt.wantBad)
			}
			if len(got) != tt.wantN {
				t.Fatalf("got %d apps, want %d", len(got), tt.wantN)
			}
			if tt.wantN > 0 && got[len(got)-1] != tt.wantLast {
				t.Errorf("got %+v, want %+v", got[len(got)-1], tt.wantLast)
			}
		})
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64
	}{
		{"plain", "74613", 74613},
		{"spaces", "  42 ", 42},
		{"unit kept", "71234 MiB", 71234},
		{"percent kept", "98 %", 98},
		{"decimal", "12.6", 13},
		{"N/A", "[N/A]", Unknown},
		{"bare N/A", "N/A", Unknown},
		{"not supported", "[Not Supported]", Unknown},
		{"unknown error", "[Unknown Error]", Unknown},
		{"negative", "-5", Unknown},
		{"empty", "", Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := number(tt.in); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestSnapshotProgress(t *testing.T) {
	snap := func(used ...int64) Snapshot {
		s := Snapshot{Available: len(used) > 0}
		for i, u := range used {
			s.GPUs = append(s.GPUs, GPU{Index: i, MemUsedMiB: u, MemTotalMiB: 81559, UtilPct: 100})
		}
		return s
	}
	tests := []struct {
		name      string
		prev, cur Snapshot
		want      bool
	}{
		{"weights arriving", snap(1000, 1000), snap(9000, 9000), true},
		{"flat at 100% utilisation (NCCL hang)", snap(74613, 74613), snap(74613, 74620), false},
		{"released", snap(70000), snap(500), true},
		{"just below", snap(100, 100), snap(131, 132), false},
		{"no GPU", snap(), snap(), false},
		{"unknown values ignored", snap(Unknown, 100), snap(Unknown, 100), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cur.Progress(tt.prev); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("process memory", func(t *testing.T) {
		apps, _ := ParseApps(fixture(t, "rtx4090-apps.csv"), nil)
		s := Snapshot{Apps: apps}
		if got, want := s.ProcessMiB([]int{2817, 1733, 99}), int64(17918); got != want {
			t.Errorf("got %d MiB, want %d", got, want)
		}
	})
}
