package testdb

import (
	"testing"
)

// SetChatText stores raw, byte for byte, as the TEXT value of column
// (title, id, history, ...) of the agentInstances row id, bypassing any
// UTF-8 handling of the driver: it binds a BLOB and casts it to TEXT, so a
// test can hold invalid UTF-8 in a text column as a broken database would.
// Setting the id moves the chat's agentMessages rows along.
func SetChatText(t testing.TB, db Execer, id, column string, raw []byte) {
	t.Helper()
	switch column {
	case "id":
		if _, err := db.Exec(`UPDATE agentMessages SET agent_instance_id = CAST(? AS TEXT) WHERE agent_instance_id = ?`, raw, id); err != nil {
			t.Fatal(err)
		}
	case "title", "history", "type", "active_model_id", "instance_config", "mounted_workspaces":
	default:
		t.Fatalf("SetChatText: unexpected column %q", column)
	}
	if _, err := db.Exec(`UPDATE agentInstances SET `+column+` = CAST(? AS TEXT) WHERE id = ?`, raw, id); err != nil {
		t.Fatal(err)
	}
}
