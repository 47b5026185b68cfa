package sample

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWriteGenerated measures the big-database generator (about
// 1.1 MB per chat of 200 messages).
func BenchmarkWriteGenerated(b *testing.B) {
	dir := b.TempDir()
	var size int64
	for b.Loop() {
		p := filepath.Join(dir, "bench.sqlite")
		if err := Write(p, Options{Chats: 20, MessagesPerChat: 200, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		fi, _ := os.Stat(p)
		size = fi.Size()
	}
	b.SetBytes(size)
}
