package cmd

import (
	"os"
	"testing"
)

// TestMain removes what tests share across the package (shardShared)
// once they are all done.
func TestMain(m *testing.M) {
	code := m.Run()
	if shardShared.dir != "" {
		os.RemoveAll(shardShared.dir)
	}
	os.Exit(code)
}
