package cmd

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/testdb"
)

// Helpers of this file are prefixed xt, so that they do not collide with
// the other command tests of the package.

// ---------------------------------------------------------------------------
// Test databases, written with raw SQL.

// xtSchemaV9 is the fresh-install layout of schema version 9.
const xtSchemaV9 = testdb.SchemaV9

// xtSchemaV15 is an imagined future version: meta version 15, new columns
// in the middle and at the end of both tables.
const xtSchemaV15 = `
CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR);
CREATE TABLE agentInstances(id TEXT PRIMARY KEY, parent_agent_instance_id TEXT, side_chat_parent_id TEXT,
  workspace_group_id TEXT, type TEXT NOT NULL, instance_config TEXT, created_at INTEGER NOT NULL,
  last_message_at INTEGER NOT NULL, active_model_id TEXT NOT NULL, active_provider_instance_id TEXT,
  pinned INTEGER NOT NULL DEFAULT 0, title TEXT NOT NULL, title_locked_by_user INTEGER, unread INTEGER NOT NULL DEFAULT 0,
  history TEXT NOT NULL DEFAULT '{"json":[]}', queued_messages TEXT NOT NULL, input_state TEXT NOT NULL,
  used_tokens INTEGER NOT NULL, mounted_workspaces TEXT, tool_approval_mode TEXT NOT NULL DEFAULT 'alwaysAsk',
  archived_at INTEGER, color TEXT);
CREATE INDEX agentInstances_last_message_at_index ON agentInstances(last_message_at);
CREATE TABLE agentMessages(agent_instance_id TEXT NOT NULL, seq INTEGER NOT NULL, created_at INTEGER,
  message_id TEXT NOT NULL, role TEXT NOT NULL, token_count INTEGER, parts TEXT NOT NULL, metadata TEXT,
  edited_at INTEGER, PRIMARY KEY (agent_instance_id, seq));
INSERT INTO meta(key, value) VALUES('version', '15');
`

type xtChat struct {
	id, title string
	lastAt    int64
	history   string // raw column text; "" is the stale {"json":[]}
	rows      []xtRow
}

// xtRow is one agentMessages row; meta "" is SQL NULL.
type xtRow struct{ role, parts, meta string }

func xtQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func xtText(role, text string) xtRow {
	return xtRow{role, `{"json":[{"type":"text","text":` + xtQuote(text) + `}]}`, `{"json":{}}`}
}

// xtConvo returns n alternating user/assistant rows with a briefing on
// each index of points.
func xtConvo(n int, points ...int) []xtRow {
	rows := make([]xtRow, n)
	for i := range rows {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		rows[i] = xtText(role, fmt.Sprintf("%s turn %d", role, i))
	}
	for _, p := range points {
		rows[p].meta = `{"json":{"compressedHistory":` + xtQuote(fmt.Sprintf("## Briefing %d\n\nstate", p)) + `}}`
	}
	return rows
}

// xtHistory is the legacy column text holding rows as one message array.
func xtHistory(rows []xtRow) string {
	var b strings.Builder
	b.WriteString(`{"json":[`)
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		parts := strings.TrimSuffix(strings.TrimPrefix(r.parts, `{"json":`), `}`)
		meta := "null"
		if r.meta != "" {
			meta = strings.TrimSuffix(strings.TrimPrefix(r.meta, `{"json":`), `}`)
		}
		fmt.Fprintf(&b, `{"id":"m%d","role":%s,"parts":%s,"metadata":%s}`, i, xtQuote(r.role), parts, meta)
	}
	b.WriteString(`]}`)
	return b.String()
}

func xtOpenRW(t *testing.T, path string) *sql.DB { return testdb.OpenRW(t, path) }

type xtExecer = testdb.Execer

func xtInsert(t *testing.T, db xtExecer, chats ...xtChat) {
	t.Helper()
	for _, c := range chats {
		rows := make([]testdb.Row, len(c.rows))
		for i, r := range c.rows {
			rows[i] = testdb.Row{ID: fmt.Sprintf("m%d", i), Role: r.role, Parts: r.parts, Meta: r.meta}
		}
		testdb.InsertChat(t, db, c.id, c.title, c.lastAt, c.history, rows)
	}
}

// xtWriteDB writes a database of the given schema and returns its path.
func xtWriteDB(t *testing.T, schema string, chats ...xtChat) string {
	t.Helper()
	return testdb.Write(t, schema, func(db testdb.Execer) { xtInsert(t, db, chats...) })
}

// ---------------------------------------------------------------------------
// Running the command.

type xtResult struct {
	code           int
	stdout, stderr string
}

// xtRun runs compact in-process with env as its whole environment.
func xtRun(t *testing.T, env map[string]string, args ...string) xtResult {
	t.Helper()
	return xtRunIO(t, nil, env, args...)
}

func xtRunIO(t *testing.T, setup func(*iostreams.IO), env map[string]string, args ...string) xtResult {
	t.Helper()
	io, _, stdout, stderr := iostreams.Test()
	if setup != nil {
		setup(io)
	}
	code := RunEnv(io, args, func(k string) string { return env[k] })
	return xtResult{code, stdout.String(), stderr.String()}
}

// xtExtract runs `compact extract --db db --out out args...`.
func xtExtract(t *testing.T, db, out string, args ...string) xtResult {
	t.Helper()
	return xtRun(t, map[string]string{"HOME": t.TempDir()}, append([]string{"extract", "--db", db, "--out", out}, args...)...)
}

func xtOut(t *testing.T) string {
	return filepath.Join(t.TempDir(), "experiments-data", "history-compression", "prerelease")
}

// xtTree lists every directory (trailing slash) and file under root with
// the sha256 of each file, sorted; nil when root does not exist.
func xtTree(t *testing.T, root string) []string {
	t.Helper()
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			out = append(out, rel+"/")
			return nil
		}
		out = append(out, rel+" "+xtSHA(t, p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// xtDirs lists the directories of a tree.
func xtDirs(tree []string) []string {
	var out []string
	for _, l := range tree {
		if strings.HasSuffix(l, "/") {
			out = append(out, l)
		}
	}
	return out
}

func xtSHA(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// xtNoStaging fails when dir holds a staging directory of a run.
func xtNoStaging(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".partial-") {
			t.Errorf("stray staging directory %s in %s", e.Name(), dir)
		}
	}
}

// xtOneLineError checks that a failed run printed exactly one line,
// "compact extract: …", on stderr.
func xtOneLineError(t *testing.T, r xtResult, wants ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "compact extract: ") || strings.HasPrefix(lines[0], "compact extract: extract:") {
		t.Errorf("stderr is not one compact extract: line: %q", r.stderr)
	}
	for _, w := range wants {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr %q does not mention %q", r.stderr, w)
		}
	}
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
}

func xtSummaryLine(extracted, bundles, skipped int, out string) string {
	return fmt.Sprintf("%s, %s, %d skipped -> %s\n", plural(extracted, "chat"), plural(bundles, "bundle"), skipped, out)
}

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

// TestExtractWALWriter: the desktop app has the database open in WAL mode
// with committed rows not yet checkpointed, and even holds an open write
// transaction. The extraction sees the committed rows and nothing else,
// never blocks the writer, and leaves the main database file's bytes as
// they were.
func TestExtractWALWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	w := xtOpenRW(t, path)
	for _, q := range []string{xtSchemaV9, `PRAGMA journal_mode=WAL`, `PRAGMA wal_autocheckpoint=0`, `PRAGMA busy_timeout=0`} {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	xtInsert(t, w, xtChat{id: "main", title: "In the main file", lastAt: 10, rows: xtConvo(8, 4)})
	if _, err := w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	// Committed, in the WAL only.
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	xtInsert(t, tx, xtChat{id: "wal", title: "Only in the WAL", lastAt: 20, rows: xtConvo(8, 4)})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("want a non-empty WAL: %v", err)
	}
	mainHash := xtSHA(t, path)

	// An open write transaction with an uncommitted chat.
	open, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	xtInsert(t, open, xtChat{id: "pending", title: "Uncommitted", lastAt: 30, rows: xtConvo(8, 4)})

	out := xtOut(t)
	r := xtExtract(t, path, out)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	want := []string{"001-only-in-the-wal/", "001-only-in-the-wal/compression-001/", "002-in-the-main-file/", "002-in-the-main-file/compression-001/"}
	if got := xtDirs(xtTree(t, out)); !slices.Equal(got, want) {
		t.Errorf("directories %v, want %v (the WAL rows, not the uncommitted ones)", got, want)
	}
	if err := open.Commit(); err != nil {
		t.Fatalf("the writer cannot commit after the extraction: %v", err)
	}

	// Commits while an extraction runs are never blocked (busy_timeout=0
	// fails at once on a lock).
	done := make(chan xtResult, 1)
	out2 := xtOut(t)
	go func() {
		io, _, stdout, stderr := iostreams.Test()
		code := RunEnv(io, []string{"extract", "--db", path, "--out", out2}, func(string) string { return "" })
		done <- xtResult{code, stdout.String(), stderr.String()}
	}()
	commits := 0
	deadline := time.After(60 * time.Second)
loop:
	for {
		select {
		case r := <-done:
			if r.code != 0 {
				t.Fatalf("extraction during commits: exit %d\n%s", r.code, r.stderr)
			}
			break loop
		case <-deadline:
			t.Fatal("extraction hung")
		default:
		}
		tx, err := w.BeginTx(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		xtInsert(t, tx, xtChat{id: fmt.Sprintf("during-%d", commits), title: "During", lastAt: 1, rows: xtConvo(2)})
		if err := tx.Commit(); err != nil {
			t.Fatalf("commit %d blocked by the extraction: %v", commits, err)
		}
		commits++
	}
	if commits == 0 {
		t.Log("the extraction finished before the first commit")
	}
	if got := xtSHA(t, path); got != mainHash {
		t.Errorf("the main database file changed (sha256 %s, was %s)", got, mainHash)
	}
}

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

// TestExtractJSONSummary: --json prints one machine-readable summary on
// stdout, with each chat's id, title, directory, bundles and warnings.
func TestExtractJSONSummary(t *testing.T) {
	nullPoint := xtConvo(10, 3, 7)
	nullPoint[7].meta = `{"json":{"compressedHistory":null}}`
	db := xtWriteDB(t, xtSchemaV9,
		xtChat{id: "a", title: "Alpha <&>", lastAt: 3, rows: nullPoint},
		xtChat{id: "b", title: "Short", lastAt: 2, rows: xtConvo(4, 2)},
		xtChat{id: "c", title: "Gamma", lastAt: 1, rows: xtConvo(8, 4)})
	out := xtOut(t)
	r := xtExtract(t, db, out, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var sum struct {
		OutDir    string `json:"outDir"`
		Chats     int    `json:"chats"`
		Extracted int    `json:"extracted"`
		Skipped   int    `json:"skipped"`
		Bundles   int    `json:"bundles"`
		PerChat   []struct {
			ID        string `json:"id"`
			Title     string `json:"title"`
			Directory string `json:"directory"`
			Bundles   int    `json:"bundles"`
			Skipped   string `json:"skipped"`
			Warnings  []struct {
				ChatID  string `json:"chatId"`
				Message int    `json:"message"`
				Text    string `json:"text"`
			} `json:"warnings"`
		} `json:"perChat"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if strings.Contains(r.stdout, "chats, ") {
		t.Errorf("the text summary line is printed with --json")
	}
	if sum.OutDir != out || sum.Chats != 3 || sum.Extracted != 2 || sum.Skipped != 1 || sum.Bundles != 2 || len(sum.PerChat) != 3 {
		t.Fatalf("summary %+v", sum)
	}
	a, b, c := sum.PerChat[0], sum.PerChat[1], sum.PerChat[2]
	if a.ID != "a" || a.Title != "Alpha <&>" || a.Directory != "001-alpha-" || a.Bundles != 1 ||
		len(a.Warnings) != 1 || a.Warnings[0].ChatID != "a" || a.Warnings[0].Message != 7 {
		t.Errorf("chat a %+v", a)
	}
	if b.ID != "b" || b.Directory != "" || b.Bundles != 0 || b.Skipped == "" {
		t.Errorf("chat b %+v", b)
	}
	if c.ID != "c" || c.Directory != "002-gamma" || c.Bundles != 1 || len(c.Warnings) != 0 {
		t.Errorf("chat c %+v", c)
	}
	if !strings.Contains(r.stderr, "warning: chat a message 7") {
		t.Errorf("warnings are not on stderr with --json: %q", r.stderr)
	}
}

// TestExtractProgressAndWarningsOnStderr: progress is drawn on stderr only
// when it is a terminal and never with --quiet; warnings always go to
// stderr; stdout holds only the summary line.
func TestExtractProgressAndWarningsOnStderr(t *testing.T) {
	rows := xtConvo(8, 4)
	rows[4].meta = `{"json":{"compressedHistory":null}}`
	db := xtWriteDB(t, xtSchemaV9,
		xtChat{id: "w", title: "Warns", lastAt: 2, rows: rows},
		xtChat{id: "ok", title: "Fine", lastAt: 1, rows: xtConvo(8, 4)})
	const progressMark = "\r\x1b[K"
	tests := []struct {
		name     string
		tty      bool
		quiet    bool
		progress bool
	}{
		{"terminal shows progress", true, false, true},
		{"pipe shows no progress", false, false, false},
		{"quiet terminal shows no progress", true, true, false},
		{"quiet pipe shows no progress", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := xtOut(t)
			args := []string{"extract", "--db", db, "--out", out}
			if tt.quiet {
				args = append(args, "--quiet")
			}
			r := xtRunIO(t, func(io *iostreams.IO) { io.SetStderrTTY(tt.tty) }, nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if r.stdout != xtSummaryLine(2, 1, 0, out) {
				t.Errorf("stdout %q", r.stdout)
			}
			hasProgress := strings.Contains(r.stderr, progressMark) || strings.Contains(strings.ReplaceAll(r.stderr, "compact extract: ", ""), "extract: ")
			if hasProgress != tt.progress {
				t.Errorf("progress on stderr %v, want %v: %q", hasProgress, tt.progress, r.stderr)
			}
			warning := "compact extract: warning: chat w message 4: "
			if !strings.Contains(r.stderr, warning) {
				t.Errorf("stderr %q lacks the warning", r.stderr)
			}
			if !tt.progress && !strings.HasPrefix(r.stderr, warning) {
				t.Errorf("stderr %q holds more than the warning", r.stderr)
			}
			if tt.progress && !strings.HasSuffix(r.stderr, progressMark) && !strings.HasSuffix(r.stderr, "\n") {
				t.Errorf("the progress line is not cleared at the end: %q", r.stderr)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Database discovery.

func TestExtractDatabaseDiscovery(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the default paths under test are the Linux ones")
	}
	src := xtWriteDB(t, xtSchemaV9, xtChat{id: "a", title: "Found", lastAt: 1, rows: xtConvo(8, 4)})
	place := func(t *testing.T, dir string) {
		t.Helper()
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dbAt := func(root, base string) string {
		return filepath.Join(root, base, "stagewise", "agents", "instances.sqlite")
	}
	tests := []struct {
		name    string
		args    []string
		place   func(home, xdg string) string // where the database goes ("" none)
		xdg     string                        // "abs" sets XDG_CONFIG_HOME to an absolute dir, "rel" to a relative one
		code    int
		wantErr string
	}{
		{"prerelease is the default", nil, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-prerelease") }, "", 0, ""},
		{"release channel", []string{"--channel", "release"}, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise") }, "", 0, ""},
		{"dev channel", []string{"--channel", "dev"}, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-dev") }, "", 0, ""},
		{"nightly is a valid channel", []string{"--channel", "nightly"}, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-nightly") }, "", 0, ""},
		{"absolute XDG_CONFIG_HOME honoured", nil, func(_, x string) string { return dbAt(x, "stagewise-prerelease") }, "abs", 0, ""},
		{"relative XDG_CONFIG_HOME ignored", nil, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-prerelease") }, "rel", 0, ""},
		{"XDG_CONFIG_HOME wins over HOME", nil, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-prerelease") }, "abs", 2, "database not found"},
		{"database of another channel is not used", []string{"--channel", "release"}, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-prerelease") }, "", 2, "stagewise/stagewise/agents/instances.sqlite"},
		{"missing default names the path and --db", nil, func(string, string) string { return "" }, "", 2, "--db PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			env := map[string]string{"HOME": home}
			xdg := ""
			switch tt.xdg {
			case "abs":
				xdg = t.TempDir()
				env["XDG_CONFIG_HOME"] = xdg
			case "rel":
				env["XDG_CONFIG_HOME"] = "relative/config"
			}
			if p := tt.place(home, xdg); p != "" {
				place(t, p)
			}
			out := xtOut(t)
			r := xtRun(t, env, append([]string{"extract", "--out", out}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, tt.code, r.stderr)
			}
			if tt.code == 0 {
				if r.stdout != xtSummaryLine(1, 1, 0, out) {
					t.Errorf("stdout %q", r.stdout)
				}
				return
			}
			xtOneLineError(t, r, tt.wantErr)
		})
	}
	t.Run("--db overrides the channel path", func(t *testing.T) {
		home := t.TempDir()
		other := xtWriteDB(t, xtSchemaV9) // an empty database at the default path
		place(t, dbAt(filepath.Join(home, ".config"), "stagewise-nightly"))
		if err := os.Rename(other, dbAt(filepath.Join(home, ".config"), "stagewise-nightly")); err != nil {
			t.Fatal(err)
		}
		out := xtOut(t)
		r := xtRun(t, map[string]string{"HOME": home}, "extract", "--channel", "nightly", "--db", src, "--out", out)
		if r.code != 0 || r.stdout != xtSummaryLine(1, 1, 0, out) {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("--db without HOME", func(t *testing.T) {
		out := xtOut(t)
		r := xtRun(t, map[string]string{}, "extract", "--db", src, "--out", out)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	})
}

// ---------------------------------------------------------------------------
// The shipped sample database.

const xtShippedDB = "../examples/stagewise/instances.sqlite"

func TestExtractShippedSample(t *testing.T) {
	src := xtShippedDB
	before := xtSHA(t, src)
	db := filepath.Join(t.TempDir(), "instances.sqlite")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		source  string
		summary [3]int // extracted, bundles, skipped
		dirs    map[string]int
	}{
		{"messages", [3]int{3, 7, 3}, map[string]int{
			"001-paginate-the-recipe-list-server-side": 2,
			"002-add-dark-mode-with-a-header-toggle":   4,
			"003-fix-button-color-v2":                  1,
		}},
		// The paginate chat has the stale {"json":[]} legacy column.
		{"history", [3]int{2, 5, 4}, map[string]int{
			"001-add-dark-mode-with-a-header-toggle": 4,
			"002-fix-button-color-v2":                1,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			out1, out2 := xtOut(t), xtOut(t)
			r1 := xtExtract(t, db, out1, "--source", tt.source)
			r2 := xtExtract(t, db, out2, "--source", tt.source, "--workers", "1")
			for _, r := range []xtResult{r1, r2} {
				if r.code != 0 || r.stderr != "" {
					t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
				}
			}
			if r1.stdout != xtSummaryLine(tt.summary[0], tt.summary[1], tt.summary[2], out1) {
				t.Errorf("stdout %q", r1.stdout)
			}
			entries, err := os.ReadDir(out1)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, e := range entries {
				sub, err := os.ReadDir(filepath.Join(out1, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				got[e.Name()] = len(sub)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.dirs) {
				t.Errorf("chat directories %v, want %v", got, tt.dirs)
			}
			t1, t2 := xtTree(t, out1), xtTree(t, out2)
			if !slices.Equal(t1, t2) {
				t.Errorf("two runs differ:\n%v\n%v", t1, t2)
			}
			if n := len(t1) - len(xtDirs(t1)); n != 5*tt.summary[1] {
				t.Errorf("%d files, want %d", n, 5*tt.summary[1])
			}
		})
	}
	if xtSHA(t, db) != before {
		t.Errorf("extraction changed the database file")
	}
}

// TestExtractManyWarningsInChatOrder: with parallel workers and progress on
// a terminal, every warning is one intact line on stderr, in chat order
// (the hooks are never called concurrently; run with -race).
func TestExtractManyWarningsInChatOrder(t *testing.T) {
	var chats []xtChat
	var want []string
	for i := 0; i < 24; i++ {
		rows := xtConvo(8, 2, 6)
		rows[6].meta = `{"json":{"compressedHistory":null}}`
		id := fmt.Sprintf("chat-%02d", i)
		chats = append(chats, xtChat{id: id, title: "T", lastAt: int64(100 - i), rows: rows})
		want = append(want, "compact extract: warning: chat "+id+" message 6: compressedHistory is null, neither a string nor a typed array: the upstream script crashes on it (ERR_INVALID_ARG_TYPE) and writes nothing more; skipped compression-002")
	}
	db := xtWriteDB(t, xtSchemaV9, chats...)
	out := xtOut(t)
	r := xtRunIO(t, func(io *iostreams.IO) { io.SetStderrTTY(true) }, nil, "extract", "--db", db, "--out", out, "--workers", "6")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if i := strings.LastIndex(l, "\r\x1b[K"); i >= 0 {
			l = l[i+len("\r\x1b[K"):]
		}
		if strings.HasPrefix(l, "compact extract: warning: ") {
			got = append(got, l)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings on stderr:\n%s\nwant, in chat order:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.stdout != xtSummaryLine(24, 24, 0, out) {
		t.Errorf("stdout %q", r.stdout)
	}
}

// TestExtractInterruptLeavesNothing: an interrupt (Ctrl-C) in the middle of
// a run stops it with exit status 1 and removes its staging directory; no
// partial output is left.
func TestExtractInterruptLeavesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a process cannot send itself an interrupt on Windows")
	}
	// 200 chats of 24 messages with 2 briefings each, generated inside
	// SQLite (row-by-row inserts are slow under -race).
	db := xtWriteDB(t, xtSchemaV9)
	w := xtOpenRW(t, db)
	for _, q := range []string{
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 199)
		INSERT INTO agentInstances(id, type, created_at, last_message_at, active_model_id, title, queued_messages, input_state, used_tokens)
		SELECT printf('c%03d', i), 'chat', 1, 1000-i, 'claude-sonnet-4.6', printf('Chat %d', i), '{"json":[]}', '{"json":""}', 0 FROM n`,
		`WITH RECURSIVE s(j) AS (SELECT 0 UNION ALL SELECT j+1 FROM s WHERE j < 23)
		INSERT INTO agentMessages(agent_instance_id, seq, message_id, role, parts, metadata)
		SELECT a.id, s.j, 'm' || s.j, CASE WHEN s.j % 2 = 0 THEN 'user' ELSE 'assistant' END,
			'{"json":[{"type":"text","text":"turn ' || s.j || '"}]}',
			CASE WHEN s.j IN (8, 16) THEN '{"json":{"compressedHistory":"## Briefing"}}' ELSE '{"json":{}}' END
		FROM agentInstances a, s`,
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The test's own registration keeps the test process alive whatever
	// the command does with the signal.
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)

	out := xtOut(t)
	parent := filepath.Dir(out)
	done := make(chan xtResult, 1)
	go func() {
		io, _, stdout, stderr := iostreams.Test()
		code := RunEnv(io, []string{"extract", "--db", db, "--out", out, "--workers", "1"}, func(string) string { return "" })
		done <- xtResult{code, stdout.String(), stderr.String()}
	}()
	staging := func() bool {
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".partial-") {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(30 * time.Second)
	for !staging() {
		select {
		case r := <-done:
			t.Skipf("the run finished (exit %d) before it could be interrupted", r.code)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no staging directory appeared")
		}
		time.Sleep(200 * time.Microsecond)
	}
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := self.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var r xtResult
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the interrupted run did not stop")
	}
	if r.code != 130 {
		t.Fatalf("exit %d after an interrupt, want 130\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	xtOneLineError(t, r, "interrupted")
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("output directory exists after an interrupted run")
	}
	xtNoStaging(t, parent)
}

// TestExtractWALWithoutWriter: a WAL-mode database whose app is gone, either
// closed cleanly or killed with committed rows left in the -wal file: the
// extraction sees every committed row and leaves the main file as it was.
func TestExtractWALWithoutWriter(t *testing.T) {
	for _, crashed := range []bool{false, true} {
		t.Run(map[bool]string{false: "closed", true: "crashed"}[crashed], func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "instances.sqlite")
			w := xtOpenRW(t, path)
			for _, q := range []string{xtSchemaV9, `PRAGMA journal_mode=WAL`, `PRAGMA wal_autocheckpoint=0`} {
				if _, err := w.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			xtInsert(t, w, xtChat{id: "a", title: "Checkpointed", lastAt: 1, rows: xtConvo(8, 4)})
			if _, err := w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
			xtInsert(t, w, xtChat{id: "b", title: "In the WAL", lastAt: 2, rows: xtConvo(8, 4)})
			db := path
			if crashed {
				// The files as a killed app leaves them: main, -wal, -shm.
				crash := t.TempDir()
				for _, suffix := range []string{"", "-wal", "-shm"} {
					data, err := os.ReadFile(path + suffix)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(crash, "instances.sqlite"+suffix), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				db = filepath.Join(crash, "instances.sqlite")
			} else if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			before := xtSHA(t, db)
			out := xtOut(t)
			r := xtExtract(t, db, out)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if r.stdout != xtSummaryLine(2, 2, 0, out) {
				t.Errorf("stdout %q, want both chats", r.stdout)
			}
			if xtSHA(t, db) != before {
				t.Errorf("the main database file changed")
			}
		})
	}
}
