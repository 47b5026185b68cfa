package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cc builds Claude Code records for hand-built sessions of the shapes
// real files have (see the comment at the top of claudecode.go).
type cc struct{ lines []string }

func (b *cc) add(rec map[string]any) *cc {
	if _, ok := rec["sessionId"]; !ok {
		rec["sessionId"] = "s1"
	}
	if _, ok := rec["isSidechain"]; !ok {
		rec["isSidechain"] = false
	}
	data, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	b.lines = append(b.lines, string(data))
	return b
}

func parentOf(parent string) any {
	if parent == "" {
		return nil
	}
	return parent
}

func (b *cc) user(uuid, parent, text string) *cc {
	return b.add(map[string]any{"type": "user", "uuid": uuid, "parentUuid": parentOf(parent), "message": map[string]any{"role": "user", "content": text}})
}

func (b *cc) asst(uuid, parent, text string) *cc {
	return b.add(map[string]any{"type": "assistant", "uuid": uuid, "parentUuid": parentOf(parent), "message": map[string]any{"id": "msg_" + uuid, "role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}}})
}

func (b *cc) progress(uuid, parent string) *cc {
	return b.add(map[string]any{"type": "progress", "uuid": uuid, "parentUuid": parentOf(parent), "data": map[string]any{"type": "hook_progress"}})
}

func (b *cc) boundary(uuid, logicalParent, trigger string, pre int) *cc {
	return b.add(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": nil, "logicalParentUuid": logicalParent, "content": "Conversation compacted", "compactMetadata": map[string]any{"trigger": trigger, "preTokens": pre}})
}

func (b *cc) summary(uuid, parent, text string) *cc {
	return b.add(map[string]any{"type": "user", "uuid": uuid, "parentUuid": parent, "isCompactSummary": true, "isVisibleInTranscriptOnly": true, "message": map[string]any{"role": "user", "content": text}})
}

func (b *cc) read(t *testing.T) *Session {
	t.Helper()
	s, err := ReadClaudeCode(strings.NewReader(strings.Join(b.lines, "\n")+"\n"), "hand.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func problemsWith(s *Session, sub string) int {
	n := 0
	for _, p := range s.Problems {
		if strings.Contains(p.Message, sub) {
			n++
		}
	}
	return n
}

// TestClaudeCodeDetachedManualCompaction: a manual /compact of newer
// versions writes its boundary and summary as a side branch; the live
// thread goes on from the pre-compaction leaf through the command's
// records. The compaction is found where its logical parent stands, and
// the command renders as a command.
func TestClaudeCodeDetachedManualCompaction(t *testing.T) {
	b := &cc{}
	b.user("u1", "", "Add a --verbose flag to cmd/run.go").
		asst("a1", "u1", "Done.").
		progress("p1", "a1").
		user("u2", "p1", "Now write its test").
		asst("a2", "u2", "Test written.").
		boundary("b1", "a2", "manual", 52000).
		summary("s1", "b1", "Summary: flag added, test written.").
		user("c1", "a2", "<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args>keep the flag name</command-args>").
		user("c2", "c1", "<local-command-stdout>\x1b[2mCompacted (ctrl+o to see full summary)\x1b[22m</local-command-stdout>").
		user("u3", "c2", "Next: the docs").
		asst("a3", "u3", "Docs updated.")
	s := b.read(t)
	if len(s.Compactions) != 1 {
		t.Fatalf("compactions %+v", s.Compactions)
	}
	c := s.Compactions[0]
	if c.Index != 4 || c.Trigger != "manual" || c.PreTokens != 52000 || c.Summary != "Summary: flag added, test written." {
		t.Errorf("compaction %+v", c)
	}
	want := "user:Add a --verbose flag to cmd/run.go|assistant:Done.|user:Now write its test|assistant:Test written.|" +
		"user:[command: /compact keep the flag name]|user:[command output: Compacted (ctrl+o to see full summary)]|user:Next: the docs|assistant:Docs updated."
	if got := texts(s); got != want {
		t.Errorf("messages\n got %s\nwant %s", got, want)
	}
	if len(s.Problems) != 0 {
		t.Errorf("problems %v", s.Problems)
	}
}

// TestClaudeCodeReappendedRows: a second /compact in one process
// re-appends earlier rows with their original uuids; they are read once,
// said once, and both compactions keep their own histories.
func TestClaudeCodeReappendedRows(t *testing.T) {
	b := &cc{}
	b.user("u1", "", "one").asst("a1", "u1", "two").
		boundary("b1", "a1", "manual", 1000).summary("s1", "b1", "first summary").
		user("u2", "s1", "three").asst("a2", "u2", "four")
	// Re-appended: the first rows again, same uuids.
	b.user("u1", "", "one").asst("a1", "u1", "two").
		boundary("b2", "a2", "manual", 2000).summary("s2", "b2", "second summary").
		user("u3", "s2", "five").asst("a3", "u3", "six")
	s := b.read(t)
	if got := texts(s); got != "user:one|assistant:two|user:three|assistant:four|user:five|assistant:six" {
		t.Errorf("messages %s", got)
	}
	if len(s.Compactions) != 2 || s.Compactions[0].Index != 2 || s.Compactions[1].Index != 4 ||
		s.Compactions[0].Summary != "first summary" || s.Compactions[1].Summary != "second summary" {
		t.Errorf("compactions %+v", s.Compactions)
	}
	if n := problemsWith(s, "re-appended"); n != 1 {
		t.Errorf("re-appended rows said %d times: %v", n, s.Problems)
	}
}

// TestClaudeCodeUnwrittenLogicalParent: the boundary's logical parent and
// a progress record's parent were never written; the thread goes on at
// the nearest earlier record, said once, and nothing before is lost.
func TestClaudeCodeUnwrittenLogicalParent(t *testing.T) {
	b := &cc{}
	b.user("u1", "", "start").asst("a1", "u1", "working").
		progress("p1", "never-written-1").
		user("u2", "p1", "go on").asst("a2", "u2", "went on").
		boundary("b1", "never-written-2", "auto", 150000).summary("s1", "b1", "the summary").
		user("u3", "s1", "after").asst("a3", "u3", "done")
	s := b.read(t)
	if got := texts(s); got != "user:start|assistant:working|user:go on|assistant:went on|user:after|assistant:done" {
		t.Errorf("messages %s", got)
	}
	if len(s.Compactions) != 1 || s.Compactions[0].Index != 4 || s.Compactions[0].Summary != "the summary" {
		t.Errorf("compactions %+v", s.Compactions)
	}
	if n := problemsWith(s, "never written"); n != 1 || s.Partial != "" {
		t.Errorf("unwritten parents said %d times (partial %q): %v", n, s.Partial, s.Problems)
	}
}

// TestClaudeCodeTwoRecordsOnALine: a line holding two JSON records is two
// records.
func TestClaudeCodeTwoRecordsOnALine(t *testing.T) {
	b := &cc{}
	b.user("u1", "", "one").asst("a1", "u1", "two")
	b.lines[1] += `{"type":"summary","summary":"title","leafUuid":"a1"}`
	b.user("u2", "a1", "three")
	s := b.read(t)
	if got := texts(s); got != "user:one|assistant:two|user:three" || len(s.Problems) != 0 {
		t.Errorf("messages %s, problems %v", got, s.Problems)
	}
}

// TestClaudeCodeUUIDCycle: a parentUuid chain that loops is said, not
// followed for ever.
func TestClaudeCodeUUIDCycle(t *testing.T) {
	b := &cc{}
	b.user("x", "y", "x says").asst("y", "x", "y says").user("z", "y", "z says")
	s := b.read(t)
	if n := problemsWith(s, "loops back"); n != 1 {
		t.Errorf("cycle said %d times: %v", n, s.Problems)
	}
	if len(s.Messages) != 3 {
		t.Errorf("messages %s", texts(s))
	}
}

func TestCCCommand(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>", "[command: /clear]", true},
		{"<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>this branch\nplease</command-args>", "[command: /review this branch please]", true},
		{"<local-command-stdout>Bye!</local-command-stdout>", "[command output: Bye!]", true},
		{"<local-command-stdout></local-command-stdout>", "", true},
		{"<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>", "", true},
		{"Please run <command-name>/x</command-name>", "", false},
		{"<command-name>/x</command-name> and then more", "", false},
		{"<div>html</div>", "", false},
	} {
		got, ok := ccCommand(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ccCommand(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestClaudeCodeCompactionAgentFile: the compaction call's own file
// (subagents/agent-acompact-*.jsonl) is recognised: not a subagent, no
// warning.
func TestClaudeCodeCompactionAgentFile(t *testing.T) {
	dir := t.TempDir()
	b := &cc{}
	b.user("u1", "", "one").asst("a1", "u1", "two")
	main := filepath.Join(dir, "s1.jsonl")
	if err := os.WriteFile(main, []byte(strings.Join(b.lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "s1", "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &cc{}
	c.add(map[string]any{"type": "user", "uuid": "k1", "parentUuid": "a1", "isSidechain": true, "message": map[string]any{"role": "user", "content": "Your task is to create a detailed summary of the conversation so far"}})
	if err := os.WriteFile(filepath.Join(sub, "agent-acompact-1a2b.jsonl"), []byte(strings.Join(c.lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadClaudeCodeFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Subagents) != 0 || len(s.Problems) != 0 {
		t.Errorf("subagents %d, problems %v", len(s.Subagents), s.Problems)
	}
}

// TestCodexCompactionShapes: the pre-compaction size is the last non-zero
// token count (Codex can write one of zeros just before the compacted
// line); the token count after it is the compaction call's own usage,
// not a step's; the user messages replacement_history keeps are the kept
// tail; a context_compacted event with no compacted record is a
// compaction without a summary, named as such.
func TestCodexCompactionShapes(t *testing.T) {
	tok := func(in, cached, out int) string {
		return fmt.Sprintf(`{"timestamp":"2026-05-01T10:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d},"model_context_window":272000}}}`, in, cached, out)
	}
	user := func(text string) string {
		return `{"timestamp":"2026-05-01T10:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}}`
	}
	asst := func(text string) string {
		return `{"timestamp":"2026-05-01T10:00:00Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + text + `"}]}}`
	}
	lines := []string{
		`{"timestamp":"2026-05-01T10:00:00Z","type":"session_meta","payload":{"id":"cx1","cwd":"/w"}}`,
		user("Port the parser to Go"),
		asst("Ported."),
		tok(120000, 100000, 300),
		user("Now the lexer"),
		asst("Lexer ported."),
		tok(150000, 120000, 200),
		tok(0, 0, 0),
		`{"timestamp":"2026-05-01T10:00:00Z","type":"compacted","payload":{"message":"Summary: parser and lexer ported.","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Port the parser to Go"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"Now the lexer"}]}]}}`,
		`{"timestamp":"2026-05-01T10:00:00Z","type":"event_msg","payload":{"type":"context_compacted"}}`,
		tok(150500, 0, 2100),
		user("Then the tests"),
		asst("Tests written."),
		tok(9000, 0, 100),
		`{"timestamp":"2026-05-01T10:00:00Z","type":"event_msg","payload":{"type":"context_compacted"}}`,
		user("Ship it"),
	}
	s, err := ReadCodex(strings.NewReader(strings.Join(lines, "\n")), "rollout-x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Compactions) != 2 {
		t.Fatalf("compactions %+v", s.Compactions)
	}
	c := s.Compactions[0]
	if c.PreTokens != 150000 || c.Summary != "Summary: parser and lexer ported." || c.Index != 4 {
		t.Errorf("first compaction %+v", c)
	}
	if strings.Join(c.Preserved, ",") != "L2,L5" {
		t.Errorf("kept tail %v", c.Preserved)
	}
	if c.Usage == nil || c.Usage.Input != 150500 || c.Usage.Output != 2100 {
		t.Errorf("the compaction call's usage %+v", c.Usage)
	}
	if u := s.Messages[3].Usage; u == nil || u.Context() != 150000 {
		t.Errorf("the step before the compaction keeps its usage: %+v", u)
	}
	c2 := s.Compactions[1]
	if c2.HasSummary || !strings.Contains(c2.Unauditable, "context_compacted") || c2.Line != 15 || c2.Index != 6 || c2.PreTokens != 9000 {
		t.Errorf("second compaction %+v", c2)
	}
}
