// Package testdb writes small stagewise agent databases with raw SQL for
// tests: the v9 schema, a writable connection, and chats with their message
// rows; and it picks the database benchmarks read (BenchDB). Only tests
// import it.
package testdb

import (
	"database/sql"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// SchemaV9 is a fresh-install schema at version 9.
const SchemaV9 = `CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR);
CREATE TABLE agentInstances(id TEXT PRIMARY KEY, parent_agent_instance_id TEXT, type TEXT NOT NULL,
  instance_config TEXT, created_at INTEGER NOT NULL, last_message_at INTEGER NOT NULL,
  active_model_id TEXT NOT NULL, title TEXT NOT NULL, title_locked_by_user INTEGER,
  history TEXT NOT NULL DEFAULT '{"json":[]}', queued_messages TEXT NOT NULL, input_state TEXT NOT NULL,
  used_tokens INTEGER NOT NULL, mounted_workspaces TEXT, tool_approval_mode TEXT NOT NULL DEFAULT 'alwaysAsk');
CREATE INDEX agentInstances_created_at_index ON agentInstances(created_at);
CREATE INDEX agentInstances_last_message_at_index ON agentInstances(last_message_at);
CREATE TABLE agentMessages(agent_instance_id TEXT NOT NULL, seq INTEGER NOT NULL, message_id TEXT NOT NULL,
  role TEXT NOT NULL, parts TEXT NOT NULL, metadata TEXT, PRIMARY KEY (agent_instance_id, seq));
CREATE INDEX agent_messages_agent_id_index ON agentMessages(agent_instance_id);
INSERT INTO meta(key, value) VALUES('version', '9');
`

// OpenRW opens path for writing (tests build their databases with it),
// closed when the test ends.
func OpenRW(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// Execer is a *sql.DB or a *sql.Tx.
type Execer interface {
	Exec(query string, args ...any) (sql.Result, error)
}

// Row is one agentMessages row; Meta "" is SQL NULL.
type Row struct{ ID, Role, Parts, Meta string }

// InsertChat adds one chat (history "" is the stale {"json":[]}) and its
// rows, seq 0 to n-1.
func InsertChat(t testing.TB, db Execer, id, title string, lastAt int64, history string, rows []Row) {
	t.Helper()
	if history == "" {
		history = `{"json":[]}`
	}
	if _, err := db.Exec(`INSERT INTO agentInstances(id, type, created_at, last_message_at, active_model_id, title, history, queued_messages, input_state, used_tokens)
		VALUES(?, 'chat', 1, ?, 'claude-sonnet-4.6', ?, ?, '{"json":[]}', '{"json":""}', 0)`, id, lastAt, title, history); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		var meta any
		if r.Meta != "" {
			meta = r.Meta
		}
		if _, err := db.Exec(`INSERT INTO agentMessages(agent_instance_id, seq, message_id, role, parts, metadata) VALUES(?, ?, ?, ?, ?, ?)`,
			id, i, r.ID, r.Role, r.Parts, meta); err != nil {
			t.Fatal(err)
		}
	}
}

// Write creates a database with schema in a temporary directory, lets fill
// add rows in one transaction, and returns its path.
func Write(t testing.TB, schema string, fill func(Execer)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	db := OpenRW(t, path)
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	fill(tx)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
