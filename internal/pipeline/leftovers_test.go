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

// TestWriteBundleKeepsThePreviousOneWhenTheSwapFails: when the new bundle
// cannot be renamed into place, the previous one is put back; before, the
// deferred removal deleted it and left no bundle at all.
func TestWriteBundleKeepsThePreviousOneWhenTheSwapFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bundle")
	if _, err := writeBundle(dir, map[string][]byte{"a.md": []byte("old")}, false); err != nil {
		t.Fatal(err)
	}
	calls := 0
	rename = func(from, to string) error {
		calls++
		if calls == 2 { // the new bundle into place
			return os.ErrPermission
		}
		return os.Rename(from, to)
	}
	defer func() { rename = os.Rename }()
	if _, err := writeBundle(dir, map[string][]byte{"a.md": []byte("new")}, true); err == nil {
		t.Fatal("no error from a failed swap")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.md")); err != nil || string(b) != "old" {
		t.Errorf("after a failed swap the bundle holds %q (%v), want the previous one", b, err)
	}
	ents, _ := os.ReadDir(filepath.Dir(dir))
	if len(ents) != 1 {
		t.Errorf("left %d entries beside the bundle, want none", len(ents)-1)
	}
}
