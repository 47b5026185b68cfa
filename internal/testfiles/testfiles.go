// Package testfiles is test support only: reading the real files tests
// keep gzipped under testdata (the Claude Code sessions of
// testdata/agents/claude-code/entire, for one), and Race, whether the
// race detector is on.
package testfiles

import (
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// Gunzip reads the gzipped file at path whole, failing t on any error.
func Gunzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
