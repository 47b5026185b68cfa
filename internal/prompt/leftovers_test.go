package prompt

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/fsutil"
)

// TestCleanLeftovers: the temporary files killed Saves left in a pack
// directory go, unless a live Save holds them; a Save leaves none of its
// own; what is not a Save's stays.
func TestCleanLeftovers(t *testing.T) {
	if !fsutil.Locking {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	stale := []string{".system-prompt.md.tmp-123", ".pack.json.tmp-4567"}
	kept := []string{"README.md", ".pack.json.bak", ".notes.md.tmp-1"}
	for _, name := range append(stale, kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	live, err := fsutil.CreateTemp(dir, tmpPrefix(PackFile), "")
	if err != nil {
		t.Fatal(err)
	}
	live.Close()
	defer fsutil.Release(live.Name())
	n, err := CleanLeftovers(dir)
	if n != 2 || err != nil {
		t.Errorf("removed %d, %v; want 2", n, err)
	}
	p, err := Resolve(DefaultPackName)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Save(dir); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".compact-lock-") { // live locks, on Windows
			got = append(got, e.Name())
		}
	}
	want := append([]string{filepath.Base(live.Name()), PackFile, SystemPromptFile}, kept...)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("left %v, want %v", got, want)
	}
	if n, err := CleanLeftovers(filepath.Join(dir, "missing")); n != 0 || err != nil {
		t.Errorf("a missing directory: %d %v", n, err)
	}
}
