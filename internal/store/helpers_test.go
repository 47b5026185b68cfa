package store

import (
	"crypto/sha256"
	"database/sql"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	_ "modernc.org/sqlite"
)

// v9DDL is the fresh-install schema at version 9 (spec section 1).
var v9DDL = []string{
	`CREATE TABLE IF NOT EXISTS meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR)`,
	`CREATE TABLE IF NOT EXISTS agentInstances(id TEXT PRIMARY KEY, parent_agent_instance_id TEXT, type TEXT NOT NULL,
  instance_config TEXT, created_at INTEGER NOT NULL, last_message_at INTEGER NOT NULL,
  active_model_id TEXT NOT NULL, title TEXT NOT NULL, title_locked_by_user INTEGER,
  history TEXT NOT NULL DEFAULT '{"json":[]}', queued_messages TEXT NOT NULL, input_state TEXT NOT NULL,
  used_tokens INTEGER NOT NULL, mounted_workspaces TEXT, tool_approval_mode TEXT NOT NULL DEFAULT 'alwaysAsk')`,
	`CREATE INDEX IF NOT EXISTS agentInstances_created_at_index ON agentInstances(created_at)`,
	`CREATE INDEX IF NOT EXISTS agentInstances_last_message_at_index ON agentInstances(last_message_at)`,
	`CREATE TABLE IF NOT EXISTS agentMessages(agent_instance_id TEXT NOT NULL, seq INTEGER NOT NULL, message_id TEXT NOT NULL,
  role TEXT NOT NULL, parts TEXT NOT NULL, metadata TEXT, PRIMARY KEY (agent_instance_id, seq))`,
	`CREATE INDEX IF NOT EXISTS agent_messages_agent_id_index ON agentMessages(agent_instance_id)`,
}

// rwOpen opens (creating) a database for writing in a test.
func rwOpen(t testing.TB, path string) *sql.DB {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	u := url.URL{Path: abs}
	db, err := sql.Open("sqlite", "file:"+u.EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t testing.TB, db interface {
	Exec(string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func createV9(t testing.TB, path string) *sql.DB {
	t.Helper()
	db := rwOpen(t, path)
	for _, q := range v9DDL {
		mustExec(t, db, q)
	}
	mustExec(t, db, `INSERT INTO meta(key,value) VALUES('version','9')`)
	return db
}

// insertChat inserts an agentInstances row with the v9 columns.
func insertChat(t testing.TB, db *sql.DB, id, title string, lastMessageAt int64, history any) {
	t.Helper()
	mustExec(t, db, `INSERT INTO agentInstances(id,parent_agent_instance_id,type,instance_config,created_at,last_message_at,
		active_model_id,title,title_locked_by_user,history,queued_messages,input_state,used_tokens,mounted_workspaces,tool_approval_mode)
		VALUES(?,NULL,'chat',NULL,?,?,'claude-sonnet-4.6',?,NULL,coalesce(?, '{"json":[]}'),'{"json":[]}','{"json":""}',0,NULL,'alwaysAsk')`,
		id, lastMessageAt-3600, lastMessageAt, title, history)
}

func insertMsg(t testing.TB, db *sql.DB, chat string, seq int, role, parts string, meta any) {
	t.Helper()
	mustExec(t, db, `INSERT INTO agentMessages(agent_instance_id,seq,message_id,role,parts,metadata) VALUES(?,?,?,?,?,?)`,
		chat, seq, chat+"-m"+strconv.Itoa(seq), role, parts, meta)
}

func fileHash(t testing.TB, path string) [32]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
