package bundle

import (
	"path/filepath"
	"testing"
)

func TestCompressionDirName(t *testing.T) {
	for n, want := range map[int]string{1: "compression-001", 42: "compression-042", 1000: "compression-1000"} {
		if got := CompressionDirName(n); got != want {
			t.Errorf("CompressionDirName(%d) = %q, want %q", n, got, want)
		}
		if got := CompressionOf(filepath.Join("x", want)); got != n {
			t.Errorf("CompressionOf(%q) = %d", want, got)
		}
	}
	if got := CompressionOf("compression-x"); got != 0 {
		t.Errorf("CompressionOf(compression-x) = %d", got)
	}
}

func TestPaths(t *testing.T) {
	for got, want := range map[string]string{
		OutputPath("b", "r"): "b/replays/r/output.md",
		RecordPath("b", "r"): "b/replays/r/replay.json",
		JudgePath("b", "r"):  "b/judge/r.json",
	} {
		if got != filepath.FromSlash(want) {
			t.Errorf("%s, want %s", got, want)
		}
	}
}
