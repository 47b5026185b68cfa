package convo

import (
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/strategy"
)

// TestFromSession: an agent's session as a generic history: every call
// answered on the branch, usage per step, the compactions placed on the
// branch, and a rendering whose paths eval mines as artifacts.
func TestFromSession(t *testing.T) {
	s, err := agents.ReadFile("../../testdata/agents/claude-code/synthetic-shop.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	h := FromSession(s)
	if h.Source != agents.ClaudeCode || h.Cwd != "/home/dev/shop" || h.Tree || len(h.Branch) != len(s.Messages) || len(h.Origin) != len(h.Branch) || len(h.Usage) != len(h.Branch) {
		t.Fatalf("history %+v", h)
	}
	calls := map[string]bool{}
	for i, m := range h.Branch {
		for _, c := range m.ToolCalls {
			calls[c.ID] = true
		}
		if m.Role == strategy.RoleTool && !calls[m.ToolCallID] {
			t.Errorf("message %d answers %s before its call", i, m.ToolCallID)
		}
		if (m.Role == strategy.RoleAssistant) != (h.Usage[i] > 0) {
			t.Errorf("message %d (%s): usage %d", i, m.Role, h.Usage[i])
		}
	}
	if !h.HasUsage || h.Usage[1] != 14503 {
		t.Errorf("usage %v", h.Usage)
	}
	if len(h.Recorded) != 2 || h.Recorded[0].Index != 18 || h.Recorded[1].Index != 28 || h.Recorded[0].PreTokens != 18305 || !h.Recorded[0].HasSummary {
		t.Errorf("recorded %+v", h.Recorded)
	}
	if h.Outcomes["toolu_bash1"] != " → exit 1" || h.Outcomes["toolu_bash2"] != " → ✓" || !strings.HasPrefix(h.Outcomes["toolu_edit1"], " ✗ File has not been read yet") || h.Outcomes["toolu_read1"] != "" {
		t.Errorf("outcomes %q", h.Outcomes)
	}
	got := Render(h.Branch[:h.Recorded[0].Index], RenderOptions{Verbs: true, Cwd: h.Cwd, Outcomes: h.Outcomes})
	for _, want := range []string{"[read: src/cart.ts]", "[created: src/cart.test.ts]", "[shell: npm test -- cart → exit 1]", "[shell: npm test -- cart → ✓]", "[image]"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	var arts []string
	fixed := false
	for _, p := range eval.Mine(got, eval.Options{}) {
		switch p.Kind {
		case eval.KindArtifact:
			arts = append(arts, p.Expected[0])
		case eval.KindRecall:
			if strings.Contains(p.Expected[0], "npm test -- cart") && strings.Contains(p.Expected[0], "fixed") {
				fixed = true
			}
		}
	}
	if strings.Join(arts, " ") != "src/cart.ts src/money.ts src/cart.test.ts" {
		t.Errorf("artifacts %q", arts)
	}
	if !fixed {
		t.Error("the failed test run and its fix are not a recall probe")
	}
}

// TestFromSessionDropsOrphanResults: a tool result whose call is not
// before it is left out with a problem, and the compactions after it stay
// on their messages.
func TestFromSessionDropsOrphanResults(t *testing.T) {
	s := &agents.Session{Agent: agents.Codex, Path: "r.jsonl", Messages: []agents.Message{
		{ID: "u", Role: agents.RoleUser, Text: "go", Line: 1},
		{ID: "t", Role: agents.RoleTool, ToolCallID: "x", Text: "?", Line: 2},
		{ID: "a", Role: agents.RoleAssistant, Text: "ok", Line: 3},
	}, Compactions: []agents.Compaction{{Index: 3, Summary: "s", HasSummary: true}}}
	h := FromSession(s)
	if len(h.Branch) != 2 || len(h.Problems) != 1 || h.Problems[0].Line != 2 || h.Recorded[0].Index != 2 || h.Origin[1] != 3 {
		t.Errorf("history %+v", h)
	}
}
