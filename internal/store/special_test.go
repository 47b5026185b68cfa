//go:build unix

package store

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesSpecialFiles: a named pipe given as the database used to
// block extract forever in open(2), deaf to SIGTERM; a device was read as
// a file. Both are refused at once with what they are.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "instances.sqlite")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	for path, kind := range map[string]string{fifo: "a named pipe", "/dev/null": "a character device"} {
		done := make(chan error, 1)
		go func() { _, err := Open(path); done <- err }()
		select {
		case err := <-done:
			var nd *NotAgentDBError
			if !errors.As(err, &nd) || !strings.Contains(err.Error(), kind) {
				t.Errorf("%s: %v, want a NotAgentDBError naming %s", path, err, kind)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Open still blocked after 10 s", path)
		}
	}
}
