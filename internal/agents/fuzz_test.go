package agents

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadSessions: any input reads without a panic through every reader
// and Sniff; every problem names a line of the input, and there are not
// more of them than the cap; a tool result answers a call made before it;
// the compactions are in order, within the messages, and each has a
// summary or says why not.
func FuzzReadSessions(f *testing.F) {
	for _, rel := range []string{
		"claude-code/dag_compact_after_rewind_preserved.jsonl",
		"claude-code/synthetic-shop.jsonl",
		"codex/rollout-2026-03-04T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl",
		"codex/rollout-44444444-4444-4444-8444-444444444444.jsonl",
	} {
		data, err := os.ReadFile(filepath.Join(testdata, rel))
		if err != nil {
			f.Fatal(err)
		}
		// Seeds stay small: the first lines.
		lines := bytes.SplitAfter(data, []byte("\n"))
		if len(lines) > 14 {
			lines = lines[:14]
		}
		f.Add(bytes.Join(lines, nil))
	}
	f.Add([]byte(`{"history":[{"role":"assistant","content":"x","action":"open a.py"},{"role":"user","content":"ok"}],"trajectory":[{"state":"{\"working_dir\":\"/r\"}"}]}`))
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"b"}` + "\n" + `{"type":"user","uuid":"u","parentUuid":"u","isCompactSummary":true,"message":{"role":"user","content":[1]}}`))
	f.Add([]byte(`{"type":"compacted","payload":{"message":"","replacement_history":[{"type":"compaction","encrypted_content":"x"}]}}` + "\n" + `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"content":"x","success":false}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nlines := bytes.Count(data, []byte("\n")) + 1
		_, _ = Sniff(data, "fuzz.jsonl")
		for _, read := range []func() (*Session, error){
			func() (*Session, error) { return ReadClaudeCode(bytes.NewReader(data), "fuzz") },
			func() (*Session, error) { return ReadCodex(bytes.NewReader(data), "fuzz") },
			func() (*Session, error) { return ReadSWEAgent(bytes.NewReader(data), "fuzz") },
		} {
			s, err := read()
			if err != nil {
				continue
			}
			checkFuzzSession(t, s, nlines)
		}
	})
}

// checkFuzzSession fails t unless s keeps the readers' promises: its
// problems are capped and on lines of the input (nlines), a tool result
// answers a call made before it (SWE-agent's observations aside), every
// role is one of the model's, the compactions are in order and within
// the messages, each with a summary or a reason why not.
func checkFuzzSession(t *testing.T, s *Session, nlines int) {
	t.Helper()
	if len(s.Problems) > maxProblemLines+1 {
		t.Fatalf("%d problems", len(s.Problems))
	}
	for _, p := range s.Problems {
		if p.Line < 0 || p.Line > nlines {
			t.Fatalf("problem on line %d of %d: %v", p.Line, nlines, p)
		}
	}
	calls := map[string]bool{}
	for i, m := range s.Messages {
		for _, c := range m.ToolCalls {
			calls[c.ID] = true
		}
		if m.Role == RoleTool && !calls[m.ToolCallID] && s.Agent != SWEAgent {
			t.Fatalf("message %d answers %q before its call", i, m.ToolCallID)
		}
		if !strings.Contains("system user assistant tool", m.Role) || m.Role == "" {
			t.Fatalf("role %q", m.Role)
		}
		if s.NoContent != "" && (m.Text != "" || len(m.ToolCalls) > 0) {
			t.Fatalf("a session without content has %+v", m)
		}
	}
	prev := 0
	for _, c := range s.Compactions {
		if c.Index < prev || c.Index > len(s.Messages) {
			t.Fatalf("compaction at %d after %d, of %d messages", c.Index, prev, len(s.Messages))
		}
		prev = c.Index
		if c.HasSummary == (c.Unauditable != "") {
			t.Fatalf("compaction %+v: a summary and a reason, or neither", c)
		}
	}
}
