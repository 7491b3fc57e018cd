package procstat

import "testing"

func TestListenInode(t *testing.T) {
	tests := []struct {
		name string
		line string
		port int
		ino  uint64
		ok   bool
	}{
		{"listening v4", "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 100 0 0 10 0", 8080, 123456, true},
		{"listening v6", "   1: 00000000000000000000000000000000:7530 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 100 0 0 10 0", 30000, 777, true},
		{"another port", "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1", 8000, 0, false},
		{"established, not listening", "   2: 0100007F:1F90 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 999 1", 8080, 0, false},
		{"header", "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode", 8080, 0, false},
		{"cut short", "   0: 0100007F:1F90 00000000:0000 0A", 8080, 0, false},
		{"inode 0", "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 0 1", 8080, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ino, ok := listenInode(tt.line, tt.port)
			if ino != tt.ino || ok != tt.ok {
				t.Errorf("listenInode = %d, %v; want %d, %v", ino, ok, tt.ino, tt.ok)
			}
		})
	}
}
