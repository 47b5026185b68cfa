package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModesOfANewOutput: a temporary directory or file gets the mode any
// new one gets (compared with a plain Mkdir and Create under the same
// umask), not the private mode of os.MkdirTemp and os.CreateTemp.
func TestModesOfANewOutput(t *testing.T) {
	dir := t.TempDir()
	probeDir := filepath.Join(dir, "probe-dir")
	if err := os.Mkdir(probeDir, 0o777); err != nil {
		t.Fatal(err)
	}
	probeFile := filepath.Join(dir, "probe-file")
	pf, err := os.Create(probeFile)
	if err != nil {
		t.Fatal(err)
	}
	pf.Close()
	wantDir, _ := os.Stat(probeDir)
	wantFile, _ := os.Stat(probeFile)

	d, err := MkdirTemp(dir, ".out.partial-", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(d), ".out.partial-") {
		t.Errorf("name %s", d)
	}
	f, err := CreateTemp(dir, ".db.", ".tmp")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !strings.HasSuffix(f.Name(), ".tmp") {
		t.Errorf("name %s", f.Name())
	}
	gotDir, _ := os.Stat(d)
	gotFile, _ := os.Stat(f.Name())
	if gotDir.Mode().Perm() != wantDir.Mode().Perm() {
		t.Errorf("directory mode %v, want %v", gotDir.Mode().Perm(), wantDir.Mode().Perm())
	}
	if gotFile.Mode().Perm() != wantFile.Mode().Perm() {
		t.Errorf("file mode %v, want %v", gotFile.Mode().Perm(), wantFile.Mode().Perm())
	}
	// Names do not collide.
	seen := map[string]bool{}
	for range 50 {
		d, err := MkdirTemp(dir, "x", "")
		if err != nil || seen[d] {
			t.Fatalf("%s %v", d, err)
		}
		seen[d] = true
	}
	if _, err := MkdirTemp(filepath.Join(dir, "missing"), "x", ""); err == nil {
		t.Error("a directory in a missing parent")
	}
}
