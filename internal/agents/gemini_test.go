package agents

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const geminiJSONL = "gemini-cli/session-2026-05-20T09-00-7c1e2a44.jsonl"

// TestReadGeminiCLI reads the chats of gen/gemini_synthetic.py: the
// v0.44+ log with its compression, rewind, rewritten messages and
// subagent, and a v0.38 record without compression.
func TestReadGeminiCLI(t *testing.T) {
	s, err := ReadGeminiCLIFile(filepath.Join(testdata, geminiJSONL))
	if err != nil {
		t.Fatal(err)
	}
	if s.Agent != GeminiCLI || s.ID != "7c1e2a44-5d6f-4a8b-9c0d-1e2f3a4b5c6d" || s.Cwd != "/home/dev/api" || s.Model != "gemini-3-pro-preview" || len(s.Problems) != 0 {
		t.Fatalf("session %+v", s)
	}
	var ids []string
	for _, m := range s.Messages {
		ids = append(ids, m.Role+":"+m.ID)
	}
	// The environment context, the rewound turn, the info and error
	// messages and the compression's copies are not the thread's; a
	// message written again keeps its first place.
	want := []string{"user:u1", "assistant:g1", "tool:r1/0", "tool:r1/1", "assistant:g2", "tool:r2/0", "user:u2", "assistant:g3", "tool:r3/0", "assistant:g4", "user:u3", "assistant:g5", "tool:r5/0", "assistant:g6"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("thread (-want +got):\n%s", diff)
	}
	g1 := s.Messages[1]
	if len(g1.ToolCalls) != 2 || g1.ToolCalls[1].Name != "run_shell_command" || g1.Usage == nil || g1.Usage.Input != 4104 || g1.Usage.CacheRead != 4096 || g1.Usage.Output != 306 || !strings.HasPrefix(g1.Reasoning, "Locating the handler") {
		t.Errorf("g1 (written three times): %+v", g1)
	}
	if r := s.Messages[3]; r.ExitCode == nil || *r.ExitCode != 1 || !r.IsError || r.ToolCallID != "run_shell_command-2" {
		t.Errorf("shell exit 1: %+v", r)
	}
	if r := s.Messages[12]; !r.IsError || !strings.HasPrefix(r.Text, "Failed to edit") {
		t.Errorf("error response: %+v", r)
	}
	if len(s.Compactions) != 1 {
		t.Fatalf("%d compactions", len(s.Compactions))
	}
	c := s.Compactions[0]
	if c.Index != 11 || c.Line != 20 || c.PreTokens != 9600 || !c.HasSummary || !strings.Contains(c.Summary, "<state_snapshot>") ||
		!strings.HasPrefix(c.Summary, "<scratchpad>") || len(c.Preserved) != 1 || c.Preserved[0] != "u3" || c.Trigger != "" {
		t.Errorf("compaction %+v", c)
	}
	if len(s.Subagents) != 1 || s.Subagents[0].ID != "sub-1" || len(s.Subagents[0].Messages) != 2 || s.Subagents[0].Cwd != "/home/dev/api" {
		t.Errorf("subagents %+v", s.Subagents)
	}

	old, err := ReadGeminiCLIFile(filepath.Join(testdata, "gemini-cli/session-2025-11-02T14-30-3f9a0b12.json"))
	if err != nil {
		t.Fatal(err)
	}
	ids = ids[:0]
	for _, m := range old.Messages {
		ids = append(ids, m.Role+":"+m.ID)
	}
	if diff := cmp.Diff([]string{"user:l-u1", "assistant:l-g1", "tool:l-g1/result0", "tool:l-g1/result1", "assistant:l-g2"}, ids); diff != "" {
		t.Errorf("v0.38 record (-want +got):\n%s", diff)
	}
	if len(old.Compactions) != 0 || old.Messages[3].Text != "Command was cancelled by user." || !old.Messages[3].IsError {
		t.Errorf("v0.38 record: %+v", old.Messages)
	}
}

// TestReadGeminiCLILines: each kind of bad line is a problem naming it;
// a rewind to a message the chat does not hold drops everything, as
// Gemini CLI does; a response to no call is left out.
func TestReadGeminiCLILines(t *testing.T) {
	in := strings.Join([]string{
		`{"sessionId":"s","projectHash":"h"}`,
		`{"id":"u1","type":"user","content":"hello"}`,
		`not json`,
		`{"foo":1}`,
		`{"id":"g1","type":"gemini","content":"hi","tokens":{"input":10,"output":2,"cached":0}}`,
		`{"id":"r1","type":"user","content":[{"functionResponse":{"id":"x","name":"ls","response":{"output":"a"}}}]}`,
		`{"$rewindTo":"nope"}`,
		`{"id":"u2","type":"user","content":[{"text":"again"}]}`,
	}, "\n")
	s, err := ReadGeminiCLI(strings.NewReader(in), "chat.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.Problems {
		got = append(got, p.String())
	}
	want := []string{
		"line 3: not JSON (invalid character 'o' in literal null (expecting 'u') at byte 2); left out",
		"line 4: a record that is no message, metadata, $set or $rewindTo; left out",
		"line 7: rewinds to message nope, which the chat does not hold: every message before it dropped, as Gemini CLI does",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(s.Messages) != 1 || s.Messages[0].ID != "u2" {
		t.Errorf("messages %+v", s.Messages)
	}
	if _, err := ReadGeminiCLI(strings.NewReader("{\n  \"title\": 1\n}"), "x.json"); err == nil || !strings.Contains(err.Error(), "x.json: not a Gemini CLI chat") {
		t.Errorf("not a chat: %v", err)
	}
}

// TestSniffNewAgents: the forms of OpenCode and Gemini CLI are told
// apart from the others by their first bytes.
func TestSniffNewAgents(t *testing.T) {
	for _, tc := range []struct{ rel, want string }{
		{"opencode/export.json", OpenCode},
		{"opencode/opencode.db", OpenCode},
		{"opencode/storage/session/4b0ea68d7af9a6031a7ffda7ad66e0cb83315750/ses_synthetic_main.json", OpenCode},
		{geminiJSONL, GeminiCLI},
		{"gemini-cli/session-2025-11-02T14-30-3f9a0b12.json", GeminiCLI},
		{"claude-code/synthetic-shop.jsonl", ClaudeCode},
		{"codex/rollout-2026-03-04T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl", Codex},
	} {
		got, err := SniffFile(filepath.Join(testdata, tc.rel))
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.rel, got, err, tc.want)
		}
	}
	if _, err := Sniff([]byte("SQLite format 3\x00CREATE TABLE agentInstances"), "instances.sqlite"); err == nil || !strings.Contains(err.Error(), "stagewise database is read with --db") {
		t.Errorf("a stagewise database: %v", err)
	}
}
