//go:build unix

package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFilesAreRefusedWithoutOpening: a named pipe with no writer
// blocks open(2) forever; every reader refuses it from its stat, at once,
// naming the path and what it is.
func TestSpecialFilesAreRefusedWithoutOpening(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	want := fifo + " is a named pipe, not a regular file; give the file itself"
	for name, read := range map[string]func() error{
		"CheckInput":    func() error { _, err := CheckInput(fifo); return err },
		"OpenInput":     func() error { f, err := OpenInput(fifo); closeIf(f); return err },
		"OpenInputMax":  func() error { f, err := OpenInputMax(fifo, 10); closeIf(f); return err },
		"ReadFileLimit": func() error { _, err := ReadFileLimit(fifo, 10); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- read() }()
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.As(err, &nr) || err.Error() != want {
				t.Errorf("%s: %v, want %q", name, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s blocked on a named pipe", name)
		}
	}
}

// TestOpenInputDoesNotWaitOnAPipe: a regular file swapped for a named
// pipe between the stat and the open cannot block the open, which does
// not wait (O_NONBLOCK); the open file is then refused from its fstat.
func TestOpenInputDoesNotWaitOnAPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_RDONLY|openNoWait, 0)
		closeIf(f)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the open waited for a writer")
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}
