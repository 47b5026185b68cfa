package testdb

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/compactlab/compact/internal/sample"
)

// BenchDB returns the database a benchmark reads: $COMPACT_BENCH_DB when
// set (e.g. bench/out/bench-450.sqlite from bench/extract.sh, or a 2 GB file
// made with `compact sample-db --chats 1800`), else a ~25 MB generated one
// (24 chats of 200 messages).
func BenchDB(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("COMPACT_BENCH_DB"); p != "" {
		return p
	}
	p := filepath.Join(tb.TempDir(), "bench.sqlite")
	if err := sample.Write(p, sample.Options{Chats: 24, MessagesPerChat: 200, Seed: 3}); err != nil {
		tb.Fatal(err)
	}
	return p
}
