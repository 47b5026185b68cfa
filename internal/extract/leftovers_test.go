//go:build unix

package extract

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/fsutil"
)

// TestCleanStaleStaging: a killed run's staging directory and the output
// a killed --force run had renamed aside go; a live run's staging, the
// output, and another output's staging stay.
func TestCleanStaleStaging(t *testing.T) {
	if !fsutil.Locking {
		t.Skip("no locks here")
	}
	parent := t.TempDir()
	out := filepath.Join(parent, "prerelease")
	for _, d := range []string{".prerelease.partial-12/001-chat/compression-001", ".prerelease.partial-12.old/001-chat", "prerelease/001-chat", ".release.partial-4"} {
		if err := os.MkdirAll(filepath.Join(parent, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	live, err := makeStaging(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fsutil.Release(live)
	n, err := CleanStaleStaging(out)
	if err != nil || n != 2 {
		t.Errorf("removed %d, %v; want 2", n, err)
	}
	for _, d := range []string{live, out, filepath.Join(parent, ".release.partial-4")} {
		if _, err := os.Stat(d); err != nil {
			t.Error(err)
		}
	}
	for _, d := range []string{".prerelease.partial-12", ".prerelease.partial-12.old"} {
		if _, err := os.Stat(filepath.Join(parent, d)); !os.IsNotExist(err) {
			t.Errorf("%s stays: %v", d, err)
		}
	}
	if n, err := CleanStaleStaging(filepath.Join(parent, "missing", "out")); n != 0 || err != nil {
		t.Errorf("a missing parent: %d %v", n, err)
	}
}

// TestRemoveInterruptible: a removal after the run was interrupted goes
// on until the next interrupt, which stops it without an error; without
// interrupts it removes everything.
func TestRemoveInterruptible(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, ".out.partial-1.old")
	for i := range 50 {
		os.MkdirAll(filepath.Join(old, string(rune('a'+i%26))+string(rune('a'+i/26))), 0o755)
	}
	// A removal long enough to be interrupted: it waits for the stop.
	removeAllCtx = func(ctx context.Context, path string) error {
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
		return fsutil.RemoveAllCtx(ctx, path)
	}
	defer func() { removeAllCtx = fsutil.RemoveAllCtx }()
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	go func() {
		time.Sleep(50 * time.Millisecond)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	stopped, err := removeInterruptible(interrupted, old, nil)
	if err != nil || !stopped {
		t.Errorf("stopped %v, %v", stopped, err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("removed anyway: %v", err)
	}
	removeAllCtx = fsutil.RemoveAllCtx
	stopped, err = removeInterruptible(context.Background(), old, nil)
	if err != nil || stopped {
		t.Errorf("stopped %v, %v", stopped, err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("left: %v", err)
	}
}
