package batch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRootIsWhatThePathsShare: the one path as given, or the deepest
// directory every path lies in; a path that is a prefix of another's name
// is not its directory.
func TestRootIsWhatThePathsShare(t *testing.T) {
	tmp := t.TempDir()
	j := func(p ...string) string { return filepath.Join(append([]string{tmp}, p...)...) }
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{nil, "def"},
		{[]string{j("a", "b") + string(filepath.Separator)}, j("a", "b")},
		{[]string{j("a", "b", "c"), j("a", "b", "d", "e")}, j("a", "b")},
		{[]string{j("a", "b"), j("a", "b", "c")}, j("a", "b")},
		{[]string{j("a", "b"), j("a", "bc")}, j("a")},
	} {
		if got := Root(tc.paths, "def"); got != tc.want {
			t.Errorf("Root(%q) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}

func TestFindRun(t *testing.T) {
	root := t.TempDir()
	if _, err := FindRun(root, ""); err == nil || err.Error() != "no batch run under "+root+"; start one with compact replay --batch (with the same PATH or --channel)" {
		t.Errorf("none: %v", err)
	}
	for _, run := range []string{"r1", "r2"} {
		if err := os.MkdirAll(Dir(root, run), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(Dir(root, run), FileState), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if run == "r1" {
			if got, err := FindRun(root, ""); got != "r1" || err != nil {
				t.Errorf("the only run: %q, %v", got, err)
			}
		}
	}
	if _, err := FindRun(root, ""); err == nil || err.Error() != "2 batch runs under "+root+" (r1, r2); name one with --run" {
		t.Errorf("two: %v", err)
	}
	if _, err := FindRun(root, "../x"); err == nil || err.Error()[:6] != "--run:" {
		t.Errorf("a path as --run: %v", err)
	}
}
