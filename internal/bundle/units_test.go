package bundle

import (
	"os"
	"path/filepath"
	"testing"
)

// ChatUnits: a chain's bundles share one unit, keyed by the chat id of
// its first bundle that has one, else the chat directory's name; the
// strata come from the metadata, leniently.
func TestChatUnits(t *testing.T) {
	root := t.TempDir()
	write := func(rel, md string) string {
		dir := filepath.Join(root, rel)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if md != "" {
			if err := os.WriteFile(filepath.Join(dir, FileMetadata), []byte(md), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	dirs := []string{
		write("002-b/compression-002", `{"chatId": "chat-b", "totalChatMessages": 90, "totalCompressions": 2}`),
		write("002-b/compression-001", `{"chatId": "chat-b", "totalChatMessages": 40}`),
		write("001-a/compression-001", `{"agent": "codex", "totalChatMessages": "many", "totalCompressions": 1}`),
		write("001-a/compression-002", `{"chatId": "session-a", "agent": "codex"}`),
		write("003-c/compression-001", `not json`),
		write("004-d/compression-001", ``),
		write("004-d/compression-002", ``),
		write("004-d/compression-003", ``),
	}
	keys := ChatUnits(dirs, false)
	units := ChatUnits(dirs, true)
	for i, want := range []struct {
		key, agent          string
		length, compactions int
	}{
		{"chat-b", AgentStagewise, 90, 2},
		{"chat-b", AgentStagewise, 90, 2},
		{"session-a", "codex", 0, 2},
		{"session-a", "codex", 0, 2},
		{"003-c", AgentStagewise, 0, 1},
		{"004-d", AgentStagewise, 0, 3},
		{"004-d", AgentStagewise, 0, 3},
		{"004-d", AgentStagewise, 0, 3},
	} {
		u := units[i]
		if u.Key != want.key || u.Agent != want.agent || u.Length != want.length || u.Compactions != want.compactions {
			t.Errorf("%s: %+v, want %+v", dirs[i], u, want)
		}
		if keys[i].Key != want.key {
			t.Errorf("%s: key without strata %q, want %q", dirs[i], keys[i].Key, want.key)
		}
	}
}
