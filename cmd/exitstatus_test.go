package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingPathsAreUsageErrors: one rule for the paths a command reads
// (issue 29): a path given that does not exist, or is not what the command
// needs, is exit 2, whether it is a database, a bundle directory or an
// input file.
func TestMissingPathsAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte("not a database\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope")
	env := map[string]string{"HOME": t.TempDir()}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"extract", "--db", missing + ".sqlite", "--out", filepath.Join(dir, "o1")}, "database not found: " + missing + ".sqlite"},
		{[]string{"extract", "--out", filepath.Join(dir, "o2")}, "database not found for channel prerelease"},
		{[]string{"extract", "--db", dir, "--out", filepath.Join(dir, "o3")}, "is a directory, not a stagewise agent database"},
		{[]string{"extract", "--db", notDB, "--out", filepath.Join(dir, "o4")}, "is not a stagewise agent database"},
		{[]string{"compress", "--db", missing + ".sqlite", "--chat", "x", "--no-model"}, "database not found: " + missing + ".sqlite"},
		{[]string{"replay", "--model", "builtin", missing}, "no bundles: " + missing + " does not exist"},
		{[]string{"diff", missing}, "no bundles: " + missing + " does not exist"},
		{[]string{"eval", missing}, "no bundles: " + missing + " does not exist"},
		{[]string{"serialize", missing + ".json"}, "no such file or directory"},
	} {
		code, _, errOut := runIn(t, env, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestSampleDBWritesANewFile: without flags sample-db writes
// ./instances.sqlite, never the shipped sample, and an existing file is
// replaced only with --force (issue 29).
func TestSampleDBWritesANewFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errOut := runIn(t, nil, "sample-db")
	if code != 0 || !strings.HasPrefix(out, "wrote instances.sqlite: schema v9, 6 chats") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "instances.sqlite")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "examples")); err == nil {
		t.Error("sample-db wrote under examples/")
	}
	// Again: refused, the file left as it was.
	mine := filepath.Join(dir, "mine.sqlite")
	if err := os.WriteFile(mine, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"sample-db"}, {"sample-db", "--out", mine}} {
		code, out, errOut = runIn(t, nil, args...)
		if code != 1 || out != "" || !strings.Contains(errOut, "exists; pass --force to replace it, or --out another path") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q over an existing file: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	if b, _ := os.ReadFile(mine); string(b) != "keep" {
		t.Errorf("the existing file was replaced without --force: %q", b)
	}
	if code, _, errOut := runIn(t, nil, "sample-db", "--out", mine, "--force"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(mine); !strings.HasPrefix(string(b), "SQLite format 3") {
		t.Error("--force did not replace the file")
	}
}

// TestOneBundleIsSingular: counts printed with a noun use the plural
// helper: "1 bundle evaluated", not "1 bundles" (issue 29).
func TestOneBundleIsSingular(t *testing.T) {
	dir := extractSample(t)
	var one string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && one == "" && d.Name() == "metadata.json" {
			one = filepath.Dir(p)
		}
		return nil
	})
	for _, args := range [][]string{{"eval", one}, {"eval", "--format", "markdown", one}} {
		code, out, errOut := runIn(t, nil, args...)
		if code != 0 || !strings.Contains(out, "1 bundle") || strings.Contains(out, "1 bundles") {
			t.Errorf("%q: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}
