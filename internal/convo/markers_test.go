package convo

import (
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/strategy"
)

func TestMarkerVerb(t *testing.T) {
	for name, want := range map[string]string{
		"read_file": "read", "Read": "read", "view": "read", "edit_file": "edited", "MultiEdit": "edited",
		"str_replace_based_edit_tool": "edited", "write_file": "wrote", "create_file": "created", "delete-file": "deleted",
		"run_command": "run-command", "Bash": "shell", "exec_command": "shell", "shell": "shell", "NotebookEdit": "edited",
		"mcp__github__get_issue": "mcp-github-get-issue", "42": "tool",
	} {
		if got := MarkerVerb(name); got != want {
			t.Errorf("MarkerVerb(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestRenderVerbs: each agent's tools give the markers eval mines, with
// the outcome the session recorded and paths relative to the cwd.
func TestRenderVerbs(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: docs/a.md\n+x\n*** Update File: /w/src/b.rs\n*** Move to: src/c.rs\n@@\n*** Delete File: old.rs\n*** Update File: README.md\n*** End Patch"
	msgs := []strategy.Message{
		{ID: "u", Role: strategy.RoleUser, Content: "Go"},
		{ID: "a", Role: strategy.RoleAssistant, Content: "Working.", ToolCalls: []strategy.ToolCall{
			{ID: "c1", Name: "Read", Arguments: `{"file_path":"/w/src/a.ts"}`},
			{ID: "c2", Name: "Write", Arguments: `{"file_path":"/w/src/new.ts","content":"x"}`},
			{ID: "c3", Name: "Bash", Arguments: `{"command":"npm test\nmore","description":"Run tests"}`},
			{ID: "c4", Name: "shell", Arguments: `{"command":["bash","-lc","cargo test -p relay"],"workdir":"/w"}`},
			{ID: "c5", Name: "apply_patch", Arguments: patch},
			{ID: "c6", Name: "str_replace_editor", Arguments: `{"command":"view","path":"/w/x.py"}`},
			{ID: "c7", Name: "open", Arguments: `{"command":"open \"tests/t.py\""}`},
			{ID: "c8", Name: "Grep", Arguments: `{"pattern":"rate","path":"/w/src"}`},
		}},
		{ID: "t2", Role: strategy.RoleTool, ToolCallID: "c2", Content: "File created successfully at: /w/src/new.ts"},
		{ID: "t3", Role: strategy.RoleTool, ToolCallID: "c3", Content: "Exit code 1\nFAIL"},
		{ID: "t4", Role: strategy.RoleTool, ToolCallID: "c4", Content: "ok"},
	}
	one := 1
	outcomes := map[string]string{
		"c3": Outcome("Bash", "Exit code 1\nFAIL", true, &one),
		"c4": Outcome("shell", "ok", false, nil),
	}
	got := Render(msgs, RenderOptions{Verbs: true, Cwd: "/w/", Outcomes: outcomes})
	want := "<user>Go</user>\n<assistant>Working.\n[read: src/a.ts]\n[created: src/new.ts]\n[shell: npm test → exit 1]\n[shell: cargo test -p relay → ✓]\n" +
		"[created: docs/a.md]\n[moved: src/b.rs → src/c.rs]\n[deleted: old.rs]\n[edited: README.md]\n[read: x.py]\n[read: tests/t.py]\n[grep: rate in src]</assistant>"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var arts []string
	for _, p := range eval.Mine(got, eval.Options{}) {
		if p.Kind == eval.KindArtifact {
			arts = append(arts, p.Expected[0])
		}
	}
	if w := "src/a.ts src/new.ts docs/a.md src/b.rs src/c.rs old.rs README.md x.py tests/t.py"; strings.Join(arts, " ") != w {
		t.Errorf("artifacts %q, want %q", strings.Join(arts, " "), w)
	}
	// Without Verbs the markers are the tools' names, as before.
	if got := Render(msgs[:2], RenderOptions{}); !strings.Contains(got, "[Read: /w/src/a.ts]") {
		t.Errorf("plain rendering changed:\n%s", got)
	}
}

func TestOutcome(t *testing.T) {
	zero, two := 0, 2
	for _, c := range []struct {
		name, text string
		isErr      bool
		code       *int
		want       string
	}{
		{"Bash", "ok", false, nil, " → ✓"},
		{"Bash", "x", true, &two, " → exit 2"},
		{"exec_command", "done", false, &zero, " → ✓"},
		{"Read", "text", false, nil, ""},
		{"Edit", "<tool_use_error>String to replace not found in file.</tool_use_error>", true, nil, " ✗ String to replace not found in file."},
		{"Edit", "", true, nil, " ✗ error"},
		{"Bash", "Command timed out after 2m", true, nil, " → timed out"},
	} {
		if got := Outcome(c.name, c.text, c.isErr, c.code); got != c.want {
			t.Errorf("Outcome(%q, %q, %v) = %q, want %q", c.name, c.text, c.isErr, got, c.want)
		}
	}
}
