package sample

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/fsutil"
)

func entryNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".compact-lock-") { // live locks, on Windows
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// TestCleanLeftovers: what killed writes of the database left beside it
// goes — a temporary directory with a half-written database, and an
// earlier version's temporary file and journal — unless a live write
// holds it; what belongs to another database or to the user stays.
func TestCleanLeftovers(t *testing.T) {
	if !fsutil.Locking {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "db.sqlite")
	stale := []string{".db.sqlite.partial-41/db.sqlite", ".db.sqlite.9876543210.tmp", ".db.sqlite.9876543210.tmp-journal", ".db.sqlite.1.tmp"}
	kept := []string{"db.sqlite", ".db.sqlite.bak", ".db.sqlite.tmp", ".db.sqlite.12a.tmp", ".db.sqlite.5.tmp.old", ".other.sqlite.partial-3/other.sqlite", ".other.sqlite.7.tmp"}
	for _, name := range append(stale, kept...) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("SQLite format 3\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	live, err := fsutil.MkdirTemp(dir, fsutil.PartialPrefix(path), "")
	if err != nil {
		t.Fatal(err)
	}
	defer fsutil.Release(live)
	n, err := CleanLeftovers(path)
	if err != nil || n != len(stale) {
		t.Errorf("removed %d, %v; want %d", n, err, len(stale))
	}
	want := []string{filepath.Base(live)}
	for _, k := range kept {
		want = append(want, strings.Split(k, "/")[0])
	}
	sort.Strings(want)
	if got := entryNames(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("left %v, want %v", got, want)
	}
	if n, err := CleanLeftovers(filepath.Join(dir, "missing", "x.sqlite")); n != 0 || err != nil {
		t.Errorf("a missing directory: %d %v", n, err)
	}
}

// TestWriteStagesInAHeldDirectory: the database is written in a
// temporary directory beside the output, which a concurrent
// CleanLeftovers leaves alone, and which is gone after the write, failed
// or not.
func TestWriteStagesInAHeldDirectory(t *testing.T) {
	if !fsutil.Locking {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "db.sqlite")
	var during []string
	var cleaned int
	stagedHook = func(stage string) {
		during = entryNames(t, dir)
		cleaned, _ = CleanLeftovers(path)
	}
	defer func() { stagedHook = nil }()
	if err := Write(path, Options{}); err != nil {
		t.Fatal(err)
	}
	if len(during) != 1 || !strings.HasPrefix(during[0], ".db.sqlite.partial-") || cleaned != 0 {
		t.Errorf("while writing: %v, and a cleaner removed %d", during, cleaned)
	}
	if got := entryNames(t, dir); len(got) != 1 || got[0] != "db.sqlite" {
		t.Errorf("after: %v", got)
	}
	// A write that fails once the database is written (the output is a
	// directory) leaves nothing either.
	stagedHook = nil
	out := filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(out, "x"), 0o755)
	if err := Write(out, Options{}); err == nil {
		t.Fatal("replaced a directory")
	}
	if got := entryNames(t, dir); strings.Join(got, " ") != "db.sqlite out" {
		t.Errorf("after a failed write: %v", got)
	}
}
