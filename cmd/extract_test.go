package cmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ---------------------------------------------------------------------------
// Exit status.

func TestExtractExitStatus(t *testing.T) {
	dir := t.TempDir()
	good := xtWriteDB(t, xtSchemaV9, xtChat{id: "c1", title: "Chat", lastAt: 1, rows: xtConvo(8, 4)})
	warned := xtWriteDB(t, xtSchemaV9,
		xtChat{id: "bad", title: "Bad", lastAt: 2, rows: append(xtConvo(7, 3), xtRow{"user", `{"json":[`, `{"json":{}}`})},
		xtChat{id: "c1", title: "Chat", lastAt: 1, rows: xtConvo(8, 4)})
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notSQLite := write("notes.txt", []byte("this is not a database\n"))
	empty := write("empty.sqlite", nil)
	garbageHeader := write("garbage.sqlite", append([]byte("SQLite format 3\x00"), make([]byte, 200)...))
	sqlFile := func(name, ddl string) string {
		p := filepath.Join(dir, name)
		db := xtOpenRW(t, p)
		if _, err := db.Exec(ddl); err != nil {
			t.Fatal(err)
		}
		db.Close()
		return p
	}
	noTables := sqlFile("no-tables.sqlite", `PRAGMA user_version=1`)
	otherTables := sqlFile("other.sqlite", `CREATE TABLE notes(x TEXT)`)
	v6 := sqlFile("v6.sqlite", `CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES('version','6');
		CREATE TABLE agentInstances(id TEXT PRIMARY KEY, title TEXT NOT NULL, last_message_at INTEGER NOT NULL, history TEXT)`)

	tests := []struct {
		name  string
		args  []string
		code  int
		wants []string // in stderr
	}{
		{"success", []string{"--db", good}, 0, nil},
		{"warnings only", []string{"--db", warned}, 0, []string{"warning: chat bad"}},
		{"no chat at all", []string{"--db", sqlFile("schema-only.sqlite", xtSchemaV9)}, 0, nil},
		{"bad channel is a usage error", []string{"--db", good, "--channel", "beta"}, 2, []string{"--channel", "beta", "nightly"}},
		{"non-numeric min-messages is a usage error", []string{"--db", good, "--min-messages", "abc"}, 2, []string{"--min-messages", "abc"}},
		{"unknown source is a usage error", []string{"--db", good, "--source", "xyz"}, 2, []string{"--source", "xyz"}},
		{"unknown profile is a usage error", []string{"--db", good, "--profile", "v2"}, 2, []string{"--profile", "v2"}},
		{"missing pack is a usage error", []string{"--db", good, "--pack", filepath.Join(dir, "no-pack")}, 2, []string{"--pack"}},
		{"unknown flag is a usage error", []string{"--db", good, "--frobnicate"}, 2, []string{"frobnicate"}},
		{"positional argument is a usage error", []string{"--db", good, "extra"}, 2, []string{"extra"}},
		{"usage error wins over a missing database", []string{"--db", filepath.Join(dir, "nope.sqlite"), "--source", "xyz"}, 2, []string{"--source"}},
		{"no database", []string{"--db", filepath.Join(dir, "nope.sqlite")}, 2, []string{"database not found: " + filepath.Join(dir, "nope.sqlite") + " (check the path)"}},
		{"not an SQLite file", []string{"--db", notSQLite}, 2, []string{"not a stagewise agent database", "notes.txt"}},
		{"empty file", []string{"--db", empty}, 2, []string{"empty"}},
		{"garbage after the header", []string{"--db", garbageHeader}, 2, []string{"garbage.sqlite"}},
		{"no tables", []string{"--db", noTables}, 2, []string{"no tables"}},
		{"no agentInstances table", []string{"--db", otherTables}, 2, []string{"agentInstances"}},
		{"a directory", []string{"--db", dir}, 2, []string{"directory"}},
		{"messages source before schema v7", []string{"--db", v6}, 1, []string{"agentMessages", "version 6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := xtOut(t)
			r := xtRun(t, map[string]string{"HOME": t.TempDir()}, append([]string{"extract", "--out", out}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			for _, w := range tt.wants {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not mention %q", r.stderr, w)
				}
			}
			if tt.code == 0 {
				if !strings.HasSuffix(r.stdout, " -> "+out+"\n") {
					t.Errorf("stdout %q, want the summary line", r.stdout)
				}
				return
			}
			xtOneLineError(t, r)
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a failed run created %s", out)
			}
			xtNoStaging(t, filepath.Dir(out))
		})
	}
}

// ---------------------------------------------------------------------------
// Where the upstream script crashes.

// TestExtractUpstreamCrashesWarnAndGoOn runs the three upstream crashes of
// the conformance README ("Crashes and warnings") through the command: each
// is one warning on stderr, the rest is extracted, and the exit status is 0.
func TestExtractUpstreamCrashesWarnAndGoOn(t *testing.T) {
	nullPoint := xtConvo(12, 3, 9)
	nullPoint[6].meta = `{"json":{"compressedHistory":null}}`
	numberText := xtConvo(12, 3, 9)
	numberText[6] = xtRow{"user", `{"json":[{"type":"text","text":42}]}`, `{"json":{}}`}
	after := xtConvo(8, 4)

	tests := []struct {
		name    string
		chats   []xtChat
		args    []string
		tree    []string // directories
		summary string   // "N chats, M bundles, K skipped" (1 chat, 1 bundle)
		warns   []string // each must appear in one warning line
	}{
		{
			name:    "null compressedHistory keeps upstream numbering",
			chats:   []xtChat{{id: "chat-n", title: "Null point", lastAt: 2, rows: nullPoint}, {id: "chat-a", title: "After", lastAt: 1, rows: after}},
			tree:    []string{"001-null-point/", "001-null-point/compression-001/", "001-null-point/compression-003/", "002-after/", "002-after/compression-001/"},
			summary: "2 chats, 3 bundles, 0 skipped",
			warns:   []string{"chat chat-n message 6", "null"},
		},
		{
			name: "history column holding null skips the chat",
			chats: []xtChat{{id: "chat-h", title: "Null history", lastAt: 2, history: `{"json":null}`},
				{id: "chat-a", title: "After", lastAt: 1, history: xtHistory(after)}},
			args:    []string{"--source", "history"},
			tree:    []string{"001-after/", "001-after/compression-001/"},
			summary: "1 chat, 1 bundle, 1 skipped",
			warns:   []string{"chat chat-h", "null"},
		},
		{
			name:    "number as user text skips the points after it",
			chats:   []xtChat{{id: "chat-t", title: "Number text", lastAt: 2, rows: numberText}, {id: "chat-a", title: "After", lastAt: 1, rows: after}},
			tree:    []string{"001-number-text/", "001-number-text/compression-001/", "002-after/", "002-after/compression-001/"},
			summary: "2 chats, 2 bundles, 0 skipped",
			warns:   []string{"chat chat-t message 6", "number 42", "compression-002"},
		},
		{
			name: "undecodable row skips the chat",
			chats: []xtChat{{id: "chat-j", title: "Bad JSON", lastAt: 2, rows: append(xtConvo(7, 3), xtRow{"user", `{"json":[{"type"`, `{"json":{}}`})},
				{id: "chat-a", title: "After", lastAt: 1, rows: after}},
			tree:    []string{"001-after/", "001-after/compression-001/"},
			summary: "1 chat, 1 bundle, 1 skipped",
			warns:   []string{"chat chat-j", "row seq 7", "parts"},
		},
		{
			name: "unknown superjson annotation skips the chat",
			chats: []xtChat{{id: "chat-s", title: "Bad superjson", lastAt: 2,
				rows: append(xtConvo(7, 3), xtRow{"user", `{"json":[]}`, `{"json":{"x":1},"meta":{"values":{"x":["wat"]},"v":1}}`})},
				{id: "chat-a", title: "After", lastAt: 1, rows: after}},
			tree:    []string{"001-after/", "001-after/compression-001/"},
			summary: "1 chat, 1 bundle, 1 skipped",
			warns:   []string{"chat chat-s", "row seq 7", "metadata"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := xtWriteDB(t, xtSchemaV9, tt.chats...)
			out := xtOut(t)
			r := xtExtract(t, db, out, tt.args...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\nstderr: %s", r.code, r.stderr)
			}
			if got := xtDirs(xtTree(t, out)); !slices.Equal(got, tt.tree) {
				t.Errorf("directories %v, want %v", got, tt.tree)
			}
			if r.stdout != tt.summary+" -> "+out+"\n" {
				t.Errorf("stdout %q, want %q", r.stdout, tt.summary)
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			for _, l := range lines {
				if !strings.HasPrefix(l, "compact extract: warning: ") {
					t.Errorf("stderr line %q is not a warning", l)
				}
			}
			for _, w := range tt.warns {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not mention %q", r.stderr, w)
				}
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Bad input that must work.

// TestExtractFutureSchema: a database of a newer schema version with extra
// columns in both tables gives the same bundles as the same chats at v9.
func TestExtractFutureSchema(t *testing.T) {
	rows := xtConvo(14, 4, 10)
	chats := []xtChat{
		{id: "f1", title: "Future one", lastAt: 20, history: xtHistory(rows), rows: rows},
		{id: "f2", title: "Future two", lastAt: 10, history: xtHistory(xtConvo(8, 5)), rows: xtConvo(8, 5)},
	}
	v9 := xtWriteDB(t, xtSchemaV9, chats...)
	v15 := xtWriteDB(t, xtSchemaV15, chats...)
	for _, source := range []string{"messages", "history"} {
		t.Run(source, func(t *testing.T) {
			out9, out15 := xtOut(t), xtOut(t)
			r9 := xtExtract(t, v9, out9, "--source", source)
			r15 := xtExtract(t, v15, out15, "--source", source)
			if r15.code != 0 || r9.code != 0 {
				t.Fatalf("exit v9 %d, v15 %d\nstderr: %s%s", r9.code, r15.code, r9.stderr, r15.stderr)
			}
			if r15.stderr != "" {
				t.Errorf("stderr %q", r15.stderr)
			}
			if r15.stdout != xtSummaryLine(2, 3, 0, out15) {
				t.Errorf("stdout %q", r15.stdout)
			}
			if a, b := xtTree(t, out9), xtTree(t, out15); !slices.Equal(a, b) || len(a) == 0 {
				t.Errorf("v15 tree differs from v9:\n%v\n%v", a, b)
			}
		})
	}
}
