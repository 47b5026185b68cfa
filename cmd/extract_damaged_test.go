package cmd

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/sample"
	"github.com/compactlab/compact/internal/store"
	"github.com/compactlab/compact/internal/testdb"
)

// Tests of a damaged database file (issue 14): a chat whose rows cannot be
// read is skipped with a warning, the other chats are extracted from the
// same snapshot, and a hint names sqlite3's .recover; a damaged header or
// schema, or a damaged chat list, still fails the run.

// xtDamagedSample writes a generated 20-chat database and returns its
// path and its chats in the extraction order.
func xtDamagedSample(t *testing.T) (string, []store.Chat) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	if err := sample.Write(path, sample.Options{Chats: 20, MessagesPerChat: 60, Seed: 14}); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := db.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	chats, err := snap.Chats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(chats) != 20 {
		t.Fatalf("%d chats, want 20", len(chats))
	}
	return path, chats
}

// TestExtractDamagedChatPage: one flipped byte in a leaf page of
// agentMessages that holds only one chat's rows costs that chat alone:
// exit 0, one warning naming it, the other chats' bundles byte for byte
// those of a clean extraction of the same chats, and one hint line.
func TestExtractDamagedChatPage(t *testing.T) {
	clean, chats := xtDamagedSample(t)
	victim := chats[7]
	damaged := testdb.DamagedCopy(t, clean)
	page, _ := testdb.ChatLeafPage(t, damaged, store.TableMessages, "agent_instance_id", victim.ID)
	testdb.FlipPageByte(t, damaged, page, testdb.BTreeHeader(page))

	var others []string
	for _, c := range chats {
		if c.ID != victim.ID {
			others = append(others, "--chat", c.ID)
		}
	}
	wantOut := xtOut(t)
	want := xtExtract(t, clean, wantOut, others...)
	if want.code != 0 {
		t.Fatalf("clean run: exit %d: %s", want.code, want.stderr)
	}

	for _, workers := range []string{"1", "2"} {
		t.Run("workers="+workers, func(t *testing.T) {
			out := xtOut(t)
			r := xtExtract(t, damaged, out, "--workers", workers)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			if got, w := xtTree(t, out), xtTree(t, wantOut); !slices.Equal(got, w) {
				t.Errorf("tree differs from a clean run of the other 19 chats:\n got %v\nwant %v", got, w)
			}
			if len(xtTree(t, out)) == 0 {
				t.Fatal("nothing extracted")
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			warn := fmt.Sprintf("compact extract: warning: chat %s %q: its rows cannot be read: the database file is damaged (SQLITE_CORRUPT); skipped", victim.ID, victim.Title)
			hint := "compact extract: 1 chat could not be read from a damaged database; sqlite3 " + damaged + " .recover > recovered.sql can save what is left"
			if !slices.Equal(lines, []string{warn, hint}) {
				t.Errorf("stderr:\n%s\nwant:\n%s\n%s", r.stderr, warn, hint)
			}
			// The summary counts the damaged chat among the skipped ones.
			wantLines := strings.Split(strings.TrimSuffix(want.stdout, "\n"), "\n")
			var n, b, s int
			if _, err := fmt.Sscanf(strings.ReplaceAll(wantLines[0], ",", ""), "%d chats %d bundles %d skipped", &n, &b, &s); err != nil {
				t.Fatalf("clean summary %q: %v", want.stdout, err)
			}
			if n != 19 {
				t.Errorf("%d chats extracted, want 19 (each generated chat has a briefing)", n)
			}
			if r.stdout != xtSummaryLine(n, b, s+1, out) {
				t.Errorf("stdout %q, want %q", r.stdout, xtSummaryLine(n, b, s+1, out))
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		out := xtOut(t)
		r := xtExtract(t, damaged, out, "--json")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for _, w := range []string{`"unreadable": 1`, `"skipped": "its rows cannot be read: the database file is damaged (SQLITE_CORRUPT)"`, `"chatTitle": `} {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("--json output lacks %s", w)
			}
		}
		if !strings.Contains(r.stderr, ".recover") {
			t.Errorf("stderr %q: no hint", r.stderr)
		}
	})

	t.Run("history source", func(t *testing.T) {
		// The legacy column of the sample is the stale {"json":[]}: every
		// chat is skipped, but the run reads them all.
		r := xtExtract(t, damaged, xtOut(t), "--source", "history")
		if r.code != 0 || strings.Contains(r.stderr, "damaged") {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	})
}

// TestExtractDamagedHeaderOrSchema: a damaged header, schema page or chat
// list fails the run with one clear line and writes nothing.
func TestExtractDamagedHeaderOrSchema(t *testing.T) {
	clean, chats := xtDamagedSample(t)
	instancesLeaf := func(t *testing.T, path string) (int, int) {
		page := testdb.LeafPageHolding(t, path, store.TableInstances, "id", chats[0].ID)
		return page, testdb.BTreeHeader(page)
	}
	for _, tt := range []struct {
		name  string
		where func(t *testing.T, path string) (page, off int)
		code  int // a file whose header is not SQLite's is not a database: exit 2
		wants []string
	}{
		{"header", func(*testing.T, string) (int, int) { return 1, 3 }, 2, []string{"not a stagewise agent database", "not an SQLite 3 file (bad header)"}},
		{"schema page", func(*testing.T, string) (int, int) { return 1, 100 }, 1, []string{"is damaged (SQLITE_CORRUPT", "sqlite3 ", " .recover > recovered.sql"}},
		{"chat list", instancesLeaf, 1, []string{"is damaged (SQLITE_CORRUPT", ".recover"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			damaged := testdb.DamagedCopy(t, clean)
			page, off := tt.where(t, damaged)
			testdb.FlipPageByte(t, damaged, page, off)
			out := xtOut(t)
			r := xtExtract(t, damaged, out)
			if r.code != tt.code {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			xtOneLineError(t, r, append([]string{damaged}, tt.wants...)...)
			if got := xtTree(t, out); got != nil {
				t.Errorf("written: %v", got)
			}
			xtNoStaging(t, filepath.Dir(out))
		})
	}
}
