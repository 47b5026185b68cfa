package pipeline

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/compactlab/compact/internal/fsutil"
)

// TestWriteBundleRemovesLeftoversOfKilledRuns: what a killed compress left
// beside its output (.<dir>.partial-N, .<dir>.partial-N.old) goes before
// the bundle is written, and is counted; what a live run holds, and what
// is not of this output, stays.
func TestWriteBundleRemovesLeftoversOfKilledRuns(t *testing.T) {
	if !fsutil.Locking {
		t.Skip("no locks here")
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "bundle")
	for _, d := range []string{".bundle.partial-1/x", ".bundle.partial-2.old/y", ".bundlex.partial-3", "bundle"} {
		if err := os.MkdirAll(filepath.Join(parent, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	live, err := fsutil.MkdirTemp(parent, ".bundle.partial-", "")
	if err != nil {
		t.Fatal(err)
	}
	defer fsutil.Release(live)
	removed, err := writeBundle(dir, map[string][]byte{"a.md": []byte("A")}, true)
	if err != nil {
		t.Fatal(err)
	}
	if removed != 2 {
		t.Errorf("removed %d, want 2", removed)
	}
	ents, _ := os.ReadDir(parent)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	want := []string{".bundlex.partial-3", filepath.Base(live), "bundle"}
	sort.Strings(want)
	if len(got) != len(want) {
		t.Fatalf("left %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("left %v, want %v", got, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.md")); err != nil || string(b) != "A" {
		t.Errorf("the bundle: %q %v", b, err)
	}
	// Without --force an existing bundle is refused, and nothing removed.
	if _, err := writeBundle(dir, nil, false); err == nil {
		t.Error("replaced without force")
	}
}
