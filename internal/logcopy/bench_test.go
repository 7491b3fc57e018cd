package logcopy

import (
	"context"
	"testing"
)

// BenchmarkThroughCopier writes 4 KiB lines' worth of output through the
// copier into a file and syncs, as a server's burst would go; beside
// BenchmarkDirect, the same writes straight into the file as before the
// copier, it gives the copier's cost as a ratio.
func BenchmarkThroughCopier(b *testing.B) {
	_, log := newLog(b)
	c, err := Start(log)
	if err != nil {
		b.Fatal(err)
	}
	w := c.Writer()
	chunk := make([]byte, 4096)
	b.SetBytes(int64(len(chunk)))
	b.ResetTimer()
	for range b.N {
		if _, err := w.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
	c.Sync(context.Background())
	b.StopTimer()
	c.CloseWriter()
	c.Wait(0)
}

func BenchmarkDirect(b *testing.B) {
	_, log := newLog(b)
	chunk := make([]byte, 4096)
	b.SetBytes(int64(len(chunk)))
	for range b.N {
		if _, err := log.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
}
