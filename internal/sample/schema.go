package sample

import (
	"fmt"
	"strings"
)

// Supported schema versions. agentMessages exists from v7; this package
// writes fresh-install layouts (migrated databases order columns
// differently, see spec section 1).
const (
	MinSchemaVersion     = 7
	MaxSchemaVersion     = 14
	DefaultSchemaVersion = 9
)

// instanceColumn is one agentInstances column of the fresh-install schema,
// in v14 declaration order, with the version that introduced it.
type instanceColumn struct {
	name, decl string
	since      int
	until      int // last version with this name (0: still current)
}

var instanceColumns = []instanceColumn{
	{name: "id", decl: "TEXT PRIMARY KEY"},
	{name: "parent_agent_instance_id", decl: "TEXT"},
	{name: "side_chat_parent_id", decl: "TEXT", since: 11},
	{name: "type", decl: "TEXT NOT NULL"},
	{name: "instance_config", decl: "TEXT"},
	{name: "created_at", decl: "INTEGER NOT NULL"},
	{name: "last_message_at", decl: "INTEGER NOT NULL"},
	{name: "active_model_id", decl: "TEXT NOT NULL"},
	{name: "active_provider_instance_id", decl: "TEXT", since: 10},
	{name: "title", decl: "TEXT NOT NULL"},
	{name: "title_locked_by_user", decl: "INTEGER", since: 8},
	{name: "marked_unread", decl: "INTEGER NOT NULL DEFAULT 0", since: 12, until: 12},
	{name: "unread", decl: "INTEGER NOT NULL DEFAULT 0", since: 13},
	{name: "history", decl: `TEXT NOT NULL DEFAULT '{"json":[]}'`},
	{name: "queued_messages", decl: "TEXT NOT NULL"},
	{name: "input_state", decl: "TEXT NOT NULL"},
	{name: "used_tokens", decl: "INTEGER NOT NULL"},
	{name: "mounted_workspaces", decl: "TEXT"},
	{name: "tool_approval_mode", decl: "TEXT NOT NULL DEFAULT 'alwaysAsk'", since: 9},
	{name: "archived_at", decl: "INTEGER", since: 14},
}

// columnsFor returns the agentInstances columns of a fresh install at version v.
func columnsFor(v int) []instanceColumn {
	var out []instanceColumn
	for _, c := range instanceColumns {
		if v < c.since || (c.until != 0 && v > c.until) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// schemaDDL returns the statements of a fresh install at version v, the
// way schema.sql creates it (the text is what sqlite_master keeps).
func schemaDDL(v int) []string {
	var cols []string
	for _, c := range columnsFor(v) {
		cols = append(cols, c.name+" "+c.decl)
	}
	return []string{
		`CREATE TABLE IF NOT EXISTS meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR)`,
		"CREATE TABLE IF NOT EXISTS agentInstances(" + strings.Join(cols, ", ") + ")",
		`CREATE INDEX IF NOT EXISTS agentInstances_created_at_index ON agentInstances(created_at)`,
		`CREATE INDEX IF NOT EXISTS agentInstances_last_message_at_index ON agentInstances(last_message_at)`,
		`CREATE TABLE IF NOT EXISTS agentMessages(agent_instance_id TEXT NOT NULL, seq INTEGER NOT NULL, message_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL, metadata TEXT, PRIMARY KEY (agent_instance_id, seq))`,
		`CREATE INDEX IF NOT EXISTS agent_messages_agent_id_index ON agentMessages(agent_instance_id)`,
	}
}

func checkVersion(v int) error {
	if v < MinSchemaVersion || v > MaxSchemaVersion {
		return fmt.Errorf("sample: schema version %d not supported (want %d..%d)", v, MinSchemaVersion, MaxSchemaVersion)
	}
	return nil
}
