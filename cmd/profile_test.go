package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/testdb"
	"github.com/compactlab/compact/internal/upstream"
)

// profileDB writes one chat of n short messages, alternating user and
// assistant, with ids m0… except where ids says otherwise; its active model
// and provider instance are model and instance.
func profileDB(t *testing.T, n int, ids map[int]string, model, instance string) string {
	t.Helper()
	return testdb.Write(t, testdb.SchemaV9, func(db testdb.Execer) {
		var rows []testdb.Row
		for i := 0; i < n; i++ {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			id, ok := ids[i]
			if !ok {
				id = "m" + string(rune('a'+i))
			}
			rows = append(rows, testdb.Row{ID: id, Role: role, Parts: `{"json":[{"type":"text","text":"turn"}]}`})
		}
		testdb.InsertChat(t, db, "c1", "Chat", 1, "", rows)
		if _, err := db.Exec(`ALTER TABLE agentInstances ADD COLUMN active_provider_instance_id TEXT`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`UPDATE agentInstances SET active_model_id = ?, active_provider_instance_id = ?`, model, instance); err != nil {
			t.Fatal(err)
		}
	})
}

// TestCompressBoundaryWithoutID: the v1.29.0 walk gives up when the
// boundary message's id is empty (`if (!boundaryMessageId) return`); e3e
// compresses there.
func TestCompressBoundaryWithoutID(t *testing.T) {
	// 20 messages, floor 10: the boundary is message 10.
	db := profileDB(t, 20, map[int]string{10: ""}, "claude-sonnet-4.6", "")
	for _, tt := range []struct {
		profile, kind, release string
		written                bool
	}{{"e3e", "compress", "", true}, {"head", "skip-boundary-no-id", "v1.29.0", false}, {"v1.29.0-nohost", "skip-boundary-no-id", "v1.29.0-nohost", false}} {
		out := filepath.Join(t.TempDir(), "b")
		code, stdout, errOut := runIn(t, nil, "compress", "--db", db, "--chat", "c1", "--no-model", "--profile", tt.profile, "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.profile, code, errOut)
		}
		_, err := os.Stat(out)
		if (err == nil) != tt.written {
			t.Errorf("%s: bundle written %v, want %v\n%s", tt.profile, err == nil, tt.written, stdout)
		}
		if !tt.written && !strings.Contains(stdout, "walk: the boundary, message 10, has no id, and "+tt.release+" gives up there; nothing written") {
			t.Errorf("%s: %s", tt.profile, stdout)
		}
		code, js, _ := runIn(t, nil, "--json", "compress", "--db", db, "--chat", "c1", "--no-model", "--profile", tt.profile, "--out", filepath.Join(t.TempDir(), "j"))
		var res struct {
			Walk struct {
				Kind     string `json:"result"`
				Boundary *int   `json:"boundaryIndex"`
			} `json:"walk"`
		}
		if err := json.Unmarshal([]byte(js), &res); code != 0 || err != nil || res.Walk.Kind != tt.kind || res.Walk.Boundary == nil || *res.Walk.Boundary != 10 {
			t.Errorf("%s: exit %d, %v, %+v", tt.profile, code, err, res.Walk)
		}
	}
}

// TestCompressWindowPerProfileAndInstance: the context window is the
// profile's catalogue's (gpt-5.6-luna is in v1.29.0's, not e3e's), and a
// MODEL@INSTANCE entry of context_windows wins for a chat on that provider
// instance.
func TestCompressWindowPerProfileAndInstance(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("context_windows:\n  qwen3@my-ollama: 32768\n  qwen3: 65536\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	window := func(db, profile string) any {
		t.Helper()
		code, js, errOut := runIn(t, nil, "--config", cfg, "--json", "compress", "--db", db, "--chat", "c1", "--no-model", "--profile", profile, "--out", filepath.Join(t.TempDir(), "b"))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var res struct {
			Trigger struct {
				ContextWindow any `json:"contextWindow"`
			} `json:"trigger"`
		}
		if err := json.Unmarshal([]byte(js), &res); err != nil {
			t.Fatal(err)
		}
		return res.Trigger.ContextWindow
	}
	luna := profileDB(t, 12, nil, "gpt-5.6-luna", "openai-byok")
	if got := window(luna, "e3e"); got != nil {
		t.Errorf("e3e: gpt-5.6-luna has window %v, want a failed lookup", got)
	}
	if got := window(luna, "head"); got != float64(1050000) {
		t.Errorf("head: gpt-5.6-luna has window %v, want 1050000", got)
	}
	if got := window(profileDB(t, 12, nil, "qwen3", "my-ollama"), "head"); got != float64(32768) {
		t.Errorf("qwen3 on my-ollama: %v, want 32768", got)
	}
	if got := window(profileDB(t, 12, nil, "qwen3", "other"), "head"); got != float64(65536) {
		t.Errorf("qwen3 on another instance: %v, want 65536", got)
	}
}

// TestPromptImportHash: compact prompt import prints the pack's hash and
// the profiles it is the prompt of. The fixture is compact's own (no
// profile's). With COMPACT_UPSTREAM_GIT naming a clone of
// stagewise-io/stagewise (stagewise is AGPL-3.0: its prompt.ts files are
// not copied into this repository), each profile's prompt.ts, taken from
// its recorded commit, imports to its recorded hash.
func TestPromptImportHash(t *testing.T) {
	importJSON := func(path string) promptImportResult {
		t.Helper()
		code, js, errOut := runIn(t, nil, "--json", "prompt", "import", path, "--out", filepath.Join(t.TempDir(), "pack"))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var r promptImportResult
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	fixture := "../testdata/conformance/prompt-fixture/prompt.ts"
	if r := importJSON(fixture); r.Hash != "3a9f17548873354f06a7ac783c9d41566b9e1caf5102df5e96e18822bfb15aea" || len(r.Profiles) != 0 {
		t.Errorf("fixture: %+v", r)
	}
	code, _, errOut := runIn(t, nil, "prompt", "import", fixture, "--out", filepath.Join(t.TempDir(), "pack"))
	if code != 0 || !strings.Contains(errOut, "prompt hash 3a9f17548873354f06a7ac783c9d41566b9e1caf5102df5e96e18822bfb15aea: no profile's prompt") {
		t.Errorf("exit %d: %s", code, errOut)
	}

	git := os.Getenv("COMPACT_UPSTREAM_GIT")
	if git == "" {
		t.Skip("COMPACT_UPSTREAM_GIT not set: the profiles' prompt.ts files are not checked (set it to a clone of stagewise-io/stagewise)")
	}
	for _, rel := range upstream.Releases {
		src, err := exec.Command("git", "--git-dir", git, "show", rel.Commit+":"+rel.PromptPath).Output()
		if err != nil {
			t.Fatalf("%s: git show %s:%s: %v", rel.Name, rel.ShortCommit(), rel.PromptPath, err)
		}
		path := filepath.Join(t.TempDir(), "prompt.ts")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		r := importJSON(path)
		if r.Hash != rel.PromptHash || !slices.Contains(r.Profiles, rel.Name) {
			t.Errorf("%s: hash %s (profiles %v), recorded %s", rel.Name, r.Hash, r.Profiles, rel.PromptHash)
		}
	}
}
