package agents

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The OpenCode session of testdata/agents/opencode, in its three forms
// (gen/opencode_synthetic.py): the same messages and compactions from
// each.
func TestReadOpenCodeForms(t *testing.T) {
	dir := filepath.Join(testdata, "opencode")
	var first *Session
	for _, tc := range []struct {
		name, path string
		subagents  int
	}{
		{"export", filepath.Join(dir, "export.json"), 0},
		{"database", filepath.Join(dir, "opencode.db"), 1},
		{"storage", filepath.Join(dir, "storage"), 1},
		{"storage session file", filepath.Join(dir, "storage", "session", "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750", "ses_synthetic_main.json"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all, err := ReadOpenCodeAll(context.Background(), tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 1 {
				t.Fatalf("%d sessions, want the main one (its subagent under it)", len(all))
			}
			s := all[0]
			if s.Agent != OpenCode || s.ID != "ses_synthetic_main" || s.Cwd != "/home/dev/shop" || s.Model != "claude-sonnet-4-5" || len(s.Subagents) != tc.subagents {
				t.Fatalf("session %s %s %s %s, %d subagents", s.Agent, s.ID, s.Cwd, s.Model, len(s.Subagents))
			}
			if len(s.Messages) != 25 || len(s.Compactions) != 2 {
				t.Fatalf("%d messages, %d compactions", len(s.Messages), len(s.Compactions))
			}
			c1, c2 := s.Compactions[0], s.Compactions[1]
			if c1.Trigger != "auto" || c1.Index != 15 || !strings.HasPrefix(c1.Summary, "## Goal\n\nAdd 19% VAT") || c1.PreTokens != 15800 ||
				c1.Usage == nil || c1.Usage.Input != 16000 || len(c1.Preserved) != 4 || c1.Preserved[0] != s.Messages[11].ID {
				t.Errorf("first compaction %+v", c1)
			}
			if c2.Trigger != "manual" || c2.Index != 23 || len(c2.Preserved) != 0 || !strings.Contains(c2.Summary, "src/receipt.ts") {
				t.Errorf("second compaction %+v", c2)
			}
			if len(s.Problems) != 1 || !strings.Contains(s.Problems[0].Message, "the compaction failed (ContextOverflowError: prompt is too long)") {
				t.Errorf("problems %v", s.Problems)
			}
			// Two steps of one message are two model steps; the step's
			// tokens are its usage; results follow their calls.
			a := s.Messages[1]
			if a.Role != RoleAssistant || a.Reasoning == "" || len(a.ToolCalls) != 1 || a.ToolCalls[0].Name != "read" ||
				a.Usage == nil || a.Usage.Input != 1200 || a.Usage.CacheRead != 11000 || a.Usage.CacheCreation != 2400 {
				t.Errorf("first step %+v", a)
			}
			if r := s.Messages[2]; r.Role != RoleTool || r.ToolCallID != "toolu_read_cart" || r.ClearedAt.IsZero() || !strings.Contains(r.Text, "items.reduce") {
				t.Errorf("the pruned read keeps its output and says when it was cleared: %+v", r)
			}
			if r := s.Messages[7]; r.ExitCode == nil || *r.ExitCode != 1 || !r.IsError {
				t.Errorf("bash exit 1: %+v", r)
			}
			if r := s.Messages[9]; !r.IsError || r.Text != "oldString not found in content" {
				t.Errorf("failed edit: %+v", r)
			}
			if r := s.Messages[22]; r.Text != "[Tool execution was interrupted]" || !r.IsError {
				t.Errorf("running tool: %+v", r)
			}
			if m := s.Messages[0]; m.Role != RoleUser || !strings.HasSuffix(m.Text, "\n"+ImagePlaceholder) {
				t.Errorf("user with an image: %+v", m)
			}
			if first == nil {
				first = s
				return
			}
			// The same session in every form (the tool inputs compacted).
			if diff := cmp.Diff(first.Messages, s.Messages); diff != "" {
				t.Errorf("messages differ from the export's (-export +%s):\n%s", tc.name, diff)
			}
			if diff := cmp.Diff(first.Compactions, s.Compactions); diff != "" {
				t.Errorf("compactions differ (-export +%s):\n%s", tc.name, diff)
			}
		})
	}
}

// TestFindOpenCode: in a data directory holding both, the database alone
// (OpenCode migrated the storage into it); a storage alone is found; a
// file is itself.
func TestFindOpenCode(t *testing.T) {
	dir := filepath.Join(testdata, "opencode")
	got, err := FindOpenCode(dir)
	if err != nil || len(got) != 1 || filepath.Base(got[0]) != "opencode.db" {
		t.Errorf("both: %v %v", got, err)
	}
	got, err = FindOpenCode(filepath.Join(dir, "storage"))
	if err != nil || len(got) != 1 || got[0] != filepath.Join(dir, "storage") {
		t.Errorf("storage: %v %v", got, err)
	}
	got, err = FindOpenCode(filepath.Join(dir, "export.json"))
	if err != nil || len(got) != 1 {
		t.Errorf("file: %v %v", got, err)
	}
}

// TestReadOpenCodeBad: what is not OpenCode's, or damaged, is an error
// naming the file or a problem naming the message.
func TestReadOpenCodeBad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, body, want string
	}{
		{"notes.json", `{"title": "x"}`, "not an OpenCode session, storage or database"},
		{"bad-export.json", `{"info": {"id": "ses_1"}, "messages": [`, "not an OpenCode export: not JSON"},
		{"fake.db", "SQLite format 3\x00" + strings.Repeat("\x00", 200), "opencode"},
	} {
		_, err := ReadOpenCodeFile(write(tc.name, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.name) || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// A message that is not JSON, a part with a bad field, a role
	// compact does not know: problems, the rest read.
	s, err := ReadOpenCodeExport(strings.NewReader(`{"info": {"id": "ses_1", "directory": "/r"}, "messages": [
		{"info": {"id": "m1", "role": "user"}, "parts": [{"type": "text", "text": "hi"}, {"type": "tool", "state": 7}]},
		"oops",
		{"info": {"id": "m2", "role": "system"}, "parts": []},
		{"info": {"id": "m3", "role": "user"}, "parts": [{"type": "compaction", "auto": true}]}
	]}`), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.Problems {
		got = append(got, p.String())
	}
	want := []string{
		"messages[1]: not a JSON object but a string; left out",
		"message 1 (m1): part 1: state is a number, want agents.ocState; left out",
		`message 2 (m2): role "system"; left out`,
		"message 3 (m3) asks for a compaction, but no summary follows it (interrupted?); not counted",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(s.Messages) != 1 || s.Messages[0].Text != "hi" || len(s.Compactions) != 0 {
		t.Errorf("messages %+v", s.Messages)
	}
}
