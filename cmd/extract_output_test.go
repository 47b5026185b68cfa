package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExtractTitlesStayInside: titles that look like paths or hold only
// symbols give directories directly inside the output directory.
func TestExtractTitlesStayInside(t *testing.T) {
	db := xtWriteDB(t, xtSchemaV9,
		xtChat{id: "a", title: "../../etc", lastAt: 5, rows: xtConvo(8, 4)},
		xtChat{id: "b", title: "!!! → ✓ ???", lastAt: 4, rows: xtConvo(8, 4)},
		xtChat{id: "c", title: "###", lastAt: 3, rows: xtConvo(8, 4)},
		xtChat{id: "d", title: `..\..\Windows\System32`, lastAt: 2, rows: xtConvo(8, 4)},
		xtChat{id: "e", title: "/abs/path", lastAt: 1, rows: xtConvo(8, 4)},
	)
	root := t.TempDir()
	out := filepath.Join(root, "a", "b", "prerelease")
	r := xtExtract(t, db, out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"001-etc", "002--", "003-", "004-windowssystem32", "005-abspath"}; !slices.Equal(names, want) {
		t.Errorf("chat directories %v, want %v", names, want)
	}
	// Nothing escaped: the root holds only the output's parents.
	if got := xtDirs(xtTree(t, root)); len(got) != 2+1+2*len(names) {
		t.Errorf("tree under the test root %v", got)
	}
}

// ---------------------------------------------------------------------------
// Output handling.

func TestExtractOutputDirectory(t *testing.T) {
	db := xtWriteDB(t, xtSchemaV9,
		xtChat{id: "a", title: "Alpha", lastAt: 2, rows: xtConvo(8, 4)},
		xtChat{id: "b", title: "Beta", lastAt: 1, rows: xtConvo(8, 2, 6)})
	seed := func(t *testing.T, out string) {
		t.Helper()
		for _, f := range []string{"007-old/compression-001/metadata.json", "001-alpha/compression-009/actual-output.md", "notes.txt"} {
			p := filepath.Join(out, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	fresh := xtOut(t)
	if r := xtExtract(t, db, fresh); r.code != 0 {
		t.Fatalf("fresh run: %d %s", r.code, r.stderr)
	}
	wantTree := xtTree(t, fresh)

	t.Run("rerun into a non-empty directory refuses", func(t *testing.T) {
		out := xtOut(t)
		seed(t, out)
		before := xtTree(t, out)
		r := xtExtract(t, db, out)
		if r.code != 1 {
			t.Fatalf("exit %d, want 1", r.code)
		}
		xtOneLineError(t, r, out, "--force")
		if got := xtTree(t, out); !slices.Equal(got, before) {
			t.Errorf("refused run changed the directory: %v", got)
		}
		xtNoStaging(t, filepath.Dir(out))
	})
	t.Run("rerun of a finished run refuses", func(t *testing.T) {
		out := xtOut(t)
		if r := xtExtract(t, db, out); r.code != 0 {
			t.Fatal(r.stderr)
		}
		r := xtExtract(t, db, out)
		if r.code != 1 {
			t.Fatalf("exit %d, want 1", r.code)
		}
		xtOneLineError(t, r, out, "--force")
	})
	t.Run("force replaces the directory as a whole", func(t *testing.T) {
		out := xtOut(t)
		seed(t, out)
		r := xtExtract(t, db, out, "--force")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if got := xtTree(t, out); !slices.Equal(got, wantTree) {
			t.Errorf("after --force:\n%v\nwant exactly the fresh tree:\n%v", got, wantTree)
		}
		xtNoStaging(t, filepath.Dir(out))
	})
	t.Run("force into an empty or missing directory", func(t *testing.T) {
		out := xtOut(t)
		if r := xtExtract(t, db, out, "--force"); r.code != 0 || !slices.Equal(xtTree(t, out), wantTree) {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	})
	t.Run("output path is a regular file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "prerelease")
		if err := os.WriteFile(file, []byte("keep me"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{nil, {"--force"}} {
			r := xtExtract(t, db, file, args...)
			if r.code != 1 {
				t.Fatalf("%v: exit %d, want 1", args, r.code)
			}
			xtOneLineError(t, r, file)
			if data, _ := os.ReadFile(file); string(data) != "keep me" {
				t.Errorf("%v: the file was replaced", args)
			}
			xtNoStaging(t, filepath.Dir(file))
		}
	})
	t.Run("output under a regular file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{filepath.Join(file, "x"), filepath.Join(file, "x", "prerelease")} {
			r := xtExtract(t, db, out)
			if r.code != 1 {
				t.Fatalf("%s: exit %d, want 1", out, r.code)
			}
			xtOneLineError(t, r, file)
			xtNoStaging(t, filepath.Dir(file))
			if got := xtTree(t, filepath.Dir(file)); len(got) != 1 {
				t.Errorf("something was written: %v", got)
			}
		}
	})
	t.Run("output parent not writable", func(t *testing.T) {
		parent := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(parent, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(parent, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(parent, 0o755) })
		if f, err := os.Create(filepath.Join(parent, "probe")); err == nil {
			f.Close()
			t.Skip("chmod 0555 does not stop writes here (running as root or with CAP_DAC_OVERRIDE); " +
				"the regular-file cases above cover an unwritable output")
		}
		out := filepath.Join(parent, "prerelease")
		r := xtExtract(t, db, out)
		if r.code != 1 {
			t.Fatalf("exit %d, want 1", r.code)
		}
		xtOneLineError(t, r, parent)
		if entries, _ := os.ReadDir(parent); len(entries) != 0 {
			t.Errorf("something was written: %v", entries)
		}
	})
}

// xtCorruptTail overwrites the last n pages of a database file, where the
// overflow pages of the last inserted big row sit.
func xtCorruptTail(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	junk := make([]byte, n*page)
	for i := range junk {
		junk[i] = 0xff
	}
	if _, err := f.WriteAt(junk, st.Size()-int64(len(junk))); err != nil {
		t.Fatal(err)
	}
}

// TestExtractDamagedOverflowPages: a chat whose rows cannot be read (its
// overflow pages are damaged) no longer fails the run (issue 14): it is
// skipped with a warning, the readable chat is extracted, and with --force
// the old output is replaced as a whole. (A run that fails half-way leaves
// nothing: TestExtractInterruptLeavesNothing here, TestFailureReportedByItsCause
// and TestCancelledRunLeavesNothing in internal/extract.)
func TestExtractDamagedOverflowPages(t *testing.T) {
	big := xtConvo(8, 4)
	big[7] = xtText("assistant", strings.Repeat("x", 300_000))
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	db := xtOpenRW(t, path)
	if _, err := db.Exec(`PRAGMA page_size=4096`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(xtSchemaV9); err != nil {
		t.Fatal(err)
	}
	xtInsert(t, db, xtChat{id: "ok", title: "Readable", lastAt: 2, rows: xtConvo(8, 4)},
		xtChat{id: "damaged", title: "Damaged", lastAt: 1, rows: big})
	db.Close()
	xtCorruptTail(t, path, 8)

	for _, force := range []bool{false, true} {
		t.Run(fmt.Sprintf("force=%v", force), func(t *testing.T) {
			out := xtOut(t)
			var args []string
			if force {
				if err := os.MkdirAll(filepath.Join(out, "001-old"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(out, "001-old", "x.md"), []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
				args = []string{"--force"}
			}
			r := xtExtract(t, path, out, append(args, "--workers", "1")...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			if r.stdout != xtSummaryLine(1, 1, 1, out) {
				t.Errorf("stdout %q", r.stdout)
			}
			if !strings.HasPrefix(r.stderr, `compact extract: warning: chat damaged "Damaged": its rows cannot be read: the database file is damaged (SQLITE_CORRUPT); skipped`+"\n") ||
				!strings.Contains(r.stderr, "compact extract: 1 chat could not be read from a damaged database; sqlite3 "+path+" .recover > recovered.sql") {
				t.Errorf("stderr %q", r.stderr)
			}
			if got := xtDirs(xtTree(t, out)); !slices.Equal(got, []string{"001-readable/", "001-readable/compression-001/"}) {
				t.Errorf("output %v, want the readable chat alone", got)
			}
			xtNoStaging(t, filepath.Dir(out))
		})
	}
}

// TestExtractChatFilter: --chat limits the run to the given ids, numbered
// among themselves (ids not in the database: TestExtractUnknownChat).
func TestExtractChatFilter(t *testing.T) {
	db := xtWriteDB(t, xtSchemaV9,
		xtChat{id: "id-a", title: "A", lastAt: 3, rows: xtConvo(8, 4)},
		xtChat{id: "id-b", title: "B", lastAt: 2, rows: xtConvo(8, 4)},
		xtChat{id: "id-c", title: "C", lastAt: 1, rows: xtConvo(8, 4)})
	out := xtOut(t)
	r := xtExtract(t, db, out, "--chat", "id-c", "--chat", "id-a")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got, want := xtDirs(xtTree(t, out)), []string{"001-a/", "001-a/compression-001/", "002-c/", "002-c/compression-001/"}; !slices.Equal(got, want) {
		t.Errorf("directories %v, want %v", got, want)
	}
	if r.stderr != "" {
		t.Errorf("stderr %q", r.stderr)
	}
	if r.stdout != xtSummaryLine(2, 2, 0, out) {
		t.Errorf("stdout %q", r.stdout)
	}
}
