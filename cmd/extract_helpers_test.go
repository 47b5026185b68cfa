package cmd

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/testdb"
)

// Helpers of the extract tests (extract*_test.go) are prefixed xt, so that
// they do not collide with the other command tests of the package.

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
