//go:build unix

package respcache

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestNamedPipeEntryIsAMiss: a named pipe planted where an entry goes is a
// miss at once; opening it would block the run.
func TestNamedPipeEntryIsAMiss(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	k := Key([]byte("prompt"))
	p := c.path(k)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan bool, 1)
	go func() {
		_, ok := c.Get(k)
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Error("a named pipe read as an entry")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Get blocked on a named pipe")
	}
}
