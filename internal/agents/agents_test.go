package agents

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testdata = "../../testdata/agents"

func read(t *testing.T, rel string) *Session {
	t.Helper()
	s, err := ReadFile(filepath.Join(testdata, rel), "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// line returns line n (1-based) of a testdata file, decoded.
func line(t *testing.T, rel string, n int) map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			var obj map[string]any
			if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
				t.Fatal(err)
			}
			return obj
		}
	}
	t.Fatalf("%s has no line %d", rel, n)
	return nil
}

func texts(s *Session) string {
	var out []string
	for _, m := range s.Messages {
		switch m.Role {
		case RoleTool:
			out = append(out, "tool:"+m.ToolCallID)
		default:
			out = append(out, m.Role+":"+m.Text)
		}
	}
	return strings.Join(out, "|")
}

// TestClaudeCodeCompactAfterRewind: a real public session file
// (claude-code-log's fixture): the branch abandoned by a rewind is left
// out, the halves are joined across the compaction through
// logicalParentUuid, and the summary is the recorded text byte for byte.
func TestClaudeCodeCompactAfterRewind(t *testing.T) {
	const f = "claude-code/dag_compact_after_rewind.jsonl"
	s := read(t, f)
	if s.Agent != ClaudeCode || s.ID != "s1" || s.Cwd != "/tmp" || s.Model != "claude-sonnet-4-20250514" {
		t.Errorf("session %+v", s)
	}
	want := "user:Start|assistant:Ready|user:Second attempt|assistant:Second answer|user:Keep going|assistant:Kept going|user:After compaction|assistant:Final answer"
	if got := texts(s); got != want {
		t.Errorf("messages\n%s\nwant\n%s", got, want)
	}
	if len(s.Compactions) != 1 {
		t.Fatalf("%d compactions", len(s.Compactions))
	}
	c := s.Compactions[0]
	summary := line(t, f, 10)["message"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if c.Index != 6 || c.Trigger != "auto" || c.PreTokens != 150000 || !c.HasSummary || c.Summary != summary || c.Line != 9 || c.SummaryLine != 10 {
		t.Errorf("compaction %+v", c)
	}
	if len(s.Problems) != 1 || !strings.Contains(s.Problems[0].Message, "2 records on other branches") {
		t.Errorf("problems %v", s.Problems)
	}
	for _, m := range s.Messages {
		if m.Role == RoleAssistant && (m.Usage == nil || m.Usage.Context() != 10 || m.Usage.Output != 5) {
			t.Errorf("usage of %s: %+v", m.ID, m.Usage)
		}
	}
}

// TestClaudeCodePreserved: the messages a compaction kept verbatim are on
// the thread once, and named by the compaction.
func TestClaudeCodePreserved(t *testing.T) {
	s := read(t, "claude-code/dag_compact_after_rewind_preserved.jsonl")
	want := "user:Start|assistant:Ready|user:Second attempt|assistant:Second answer|user:Keep going|assistant:Kept going|user:After compaction|assistant:Final answer"
	if got := texts(s); got != want {
		t.Errorf("messages\n%s\nwant\n%s", got, want)
	}
	c := s.Compactions[0]
	if c.Index != 5 || strings.Join(c.Preserved, ",") != "b2a,b2u2,b2a2" {
		t.Errorf("compaction %+v", c)
	}
}

// TestClaudeCodeSidechain: a real session cut from a longer one: the
// first record's parent is not in the file (said once), the side-chain
// records are not the thread, and the Task's result is kept.
func TestClaudeCodeSidechain(t *testing.T) {
	s := read(t, "claude-code/sidechain_integrated.jsonl")
	if got := texts(s); got != "assistant:|tool:toolu_01JA2mLseQCAW3MdwPE4qWEk|assistant:Excellent research! The sub-assistant has identifi..." {
		t.Errorf("messages %s", got)
	}
	if u := s.Messages[0].Usage; u == nil || u.CacheCreation != 141272 || u.Context() != 141275 {
		t.Errorf("usage %+v", u)
	}
	if u := s.Messages[2].Usage; u.CacheRead != 141272 || u.Context() != 144227 {
		t.Errorf("usage %+v", u)
	}
	if len(s.Problems) != 1 || s.Problems[0].Line != 1 {
		t.Errorf("problems %v", s.Problems)
	}
}

// TestClaudeCodeSubagentsAndParallelCalls: two calls of one response
// with their results chained, and the subagents' files beside the session.
func TestClaudeCodeSubagentsAndParallelCalls(t *testing.T) {
	s := read(t, "claude-code/minimal_showcase/55550000-0000-4000-8000-000000000001.jsonl")
	if len(s.Messages) != 11 || len(s.Messages[7].ToolCalls) != 2 || s.Messages[8].ToolCallID != "toolu_sc_showcol1" || s.Messages[9].ToolCallID != "toolu_sc_showcol2" {
		t.Errorf("messages %s", texts(s))
	}
	if len(s.Subagents) != 2 || s.Subagents[1].Messages[1].ToolCalls[0].Name != "Grep" || len(s.Subagents[1].Messages) != 4 {
		t.Fatalf("subagents %+v", s.Subagents)
	}
	if !strings.Contains(s.Messages[2].Text, `"repository": "example-app"`) {
		t.Errorf("tool result %q", s.Messages[2].Text)
	}
}

// TestClaudeCodeSynthetic: every field of the reader on a session written
// for it (testdata/agents/gen/claude_synthetic.py).
func TestClaudeCodeSynthetic(t *testing.T) {
	const f = "claude-code/synthetic-shop.jsonl"
	s := read(t, f)
	// One response split over four records is one message, with its
	// thinking, text and both calls; each parallel result hangs from its
	// own call's record and neither is dropped.
	a := s.Messages[1]
	if a.Role != RoleAssistant || a.Reasoning != "I should read the cart module first." || a.Text != "I'll read the cart module and its test." || len(a.ToolCalls) != 2 {
		t.Errorf("split response %+v", a)
	}
	if s.Messages[2].ToolCallID != "toolu_read1" || s.Messages[3].ToolCallID != "toolu_read2" {
		t.Errorf("parallel results %s", texts(s))
	}
	if u := a.Usage; u == nil || u.Input != 3 || u.CacheCreation != 14500 || u.Output != 95 {
		t.Errorf("usage %+v", a.Usage)
	}
	var results, calls int
	for _, m := range s.Messages {
		results += btoi(m.Role == RoleTool)
		calls += len(m.ToolCalls)
		if strings.Contains(m.Text, "Retrying") || strings.Contains(m.Text, "try again") || strings.Contains(m.Text, "side chain") || strings.Contains(m.Text, "Caveat") || strings.Contains(m.Text, "<command-name>") {
			t.Errorf("left-out record read: %q", m.Text)
		}
	}
	if results != 12 || calls != 12 {
		t.Errorf("%d results for %d calls", results, calls)
	}
	byCall := map[string]Message{}
	for _, m := range s.Messages {
		if m.Role == RoleTool {
			byCall[m.ToolCallID] = m
		}
	}
	if m := byCall["toolu_edit1"]; !m.IsError || m.ExitCode != nil {
		t.Errorf("edit error %+v", m)
	}
	if m := byCall["toolu_bash1"]; !m.IsError || m.ExitCode == nil || *m.ExitCode != 1 {
		t.Errorf("bash error %+v", m)
	}
	if m := byCall["toolu_bash2"]; m.IsError || m.ExitCode != nil {
		t.Errorf("bash success %+v", m)
	}
	if !strings.Contains(texts(s), "Here is the failing screen:\n"+ImagePlaceholder) {
		t.Errorf("no image placeholder: %s", texts(s))
	}
	if len(s.Compactions) != 2 {
		t.Fatalf("compactions %+v", s.Compactions)
	}
	// The first summary is a string, the second a list of text blocks:
	// both byte for byte.
	want1 := line(t, f, 27)["message"].(map[string]any)["content"].(string)
	want2 := line(t, f, 40)["message"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	c1, c2 := s.Compactions[0], s.Compactions[1]
	if c1.Summary != want1 || c1.Trigger != "auto" || c1.PreTokens != 18305 || c1.Index != 18 {
		t.Errorf("first compaction %+v", c1)
	}
	if c2.Summary != want2 || c2.Trigger != "manual" || c2.Index != 28 {
		t.Errorf("second compaction %+v", c2)
	}
	if s.Messages[c1.Index].Text != "Now round the tax to the nearest cent in src/tax.ts; the rate is 8.25%." {
		t.Errorf("after the first compaction: %q", s.Messages[c1.Index].Text)
	}
	if len(s.Subagents) != 1 || len(s.Subagents[0].Compactions) != 1 || s.Subagents[0].Compactions[0].Summary != "Summary: toCents is called from src/cart.ts and src/tax.ts." {
		t.Errorf("subagent %+v", s.Subagents)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestCodexSynthetic: a rollout with every field the reader handles
// (testdata/agents/gen/codex_synthetic.py): a local compaction read as
// ground truth, a remote one marked unauditable.
func TestCodexSynthetic(t *testing.T) {
	s := read(t, "codex/rollout-2026-03-04T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	if s.Agent != Codex || s.ID != "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" || s.Cwd != "/home/dev/relay" || s.Model != "gpt-5-codex" || s.ContextWindow != 272000 {
		t.Errorf("session %+v", s)
	}
	if len(s.Problems) != 0 {
		t.Errorf("problems %v", s.Problems)
	}
	if s.Messages[0].Role != RoleUser || strings.Contains(s.Messages[0].Text, "environment_context") {
		t.Errorf("first message %+v", s.Messages[0])
	}
	a := s.Messages[1]
	if a.Reasoning != "**Finding the size limit**" || len(a.ToolCalls) != 1 || a.ToolCalls[0].Name != "shell" || a.Usage == nil || a.Usage.Context() != 9100 || a.Usage.CacheRead != 2048 {
		t.Errorf("first step %+v", a)
	}
	exits := map[string]string{}
	for _, m := range s.Messages {
		if m.Role == RoleTool {
			e := "none"
			if m.ExitCode != nil {
				e = itoa(*m.ExitCode)
			}
			if m.IsError {
				e += "!"
			}
			exits[m.ToolCallID] = e
		}
	}
	want := map[string]string{"call_a1": "0", "call_a2": "0", "call_a3": "101!", "call_a4": "0", "call_a5": "0", "call_a6": "0", "call_b1": "0"}
	for k, v := range want {
		if exits[k] != v {
			t.Errorf("%s: exit %s, want %s", k, exits[k], v)
		}
	}
	if p := s.Messages[3].ToolCalls[0]; p.Name != "apply_patch" || !strings.HasPrefix(p.Input, "*** Begin Patch\n*** Update File: config/relay.toml") {
		t.Errorf("patch call %+v", p)
	}
	if len(s.Compactions) != 2 {
		t.Fatalf("compactions %+v", s.Compactions)
	}
	c1, c2 := s.Compactions[0], s.Compactions[1]
	if !c1.HasSummary || !strings.HasPrefix(c1.Summary, "Summary of the work so far:\n") || c1.Index != 16 || c1.PreTokens != 12400 || c1.Unauditable != "" {
		t.Errorf("local compaction %+v", c1)
	}
	if c2.HasSummary || !strings.Contains(c2.Unauditable, "encrypted") || c2.Index != 20 {
		t.Errorf("remote compaction %+v", c2)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestCodexPublicFixtures: claude-code-log's Codex fixtures: the current
// envelope, the older bare items, a malformed line.
func TestCodexPublicFixtures(t *testing.T) {
	s := read(t, "codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl")
	got := texts(s)
	want := "user:List the synthetic files.|assistant:|tool:call-structured-001|assistant:|tool:call-custom-001|assistant:|tool:call-mcp-001|assistant:The synthetic files are alpha.txt and beta.txt."
	if got != want {
		t.Errorf("messages\n%s\nwant\n%s", got, want)
	}
	if s.Messages[1].Reasoning != "I will inspect the synthetic directory." || s.Model != "synthetic-model" {
		t.Errorf("reasoning %q, model %q", s.Messages[1].Reasoning, s.Model)
	}
	if s.Messages[4].Text != "Done!" {
		t.Errorf("custom output %q", s.Messages[4].Text)
	}
	s = read(t, "codex/rollout-44444444-4444-4444-8444-444444444444.jsonl")
	if got := texts(s); got != "user:Open the synthetic legacy session.|assistant:The synthetic legacy session is open." || s.ID != "44444444-4444-4444-8444-444444444444" {
		t.Errorf("legacy: %s (%s)", got, s.ID)
	}
	s = read(t, "codex/rollout-66666666-6666-4666-8666-666666666666.jsonl")
	if got := texts(s); got != "user:Safe line before malformed input." || len(s.Problems) != 1 || s.Problems[0].Line != 3 {
		t.Errorf("malformed: %s %v", got, s.Problems)
	}
}

// TestSWEAgent: a function-calling trajectory and an older one whose
// actions are commands answered by observations.
func TestSWEAgent(t *testing.T) {
	s := read(t, "swe-agent/function_calling_simple.traj")
	if s.Agent != SWEAgent || len(s.Messages) != 12 || s.Messages[4].ToolCalls[0].Name != "open" || s.Messages[5].ToolCallID != s.Messages[4].ToolCalls[0].ID {
		t.Errorf("function calling: %s", texts(s))
	}
	s = read(t, "swe-agent/swe-agent__test-repo-i1.traj")
	if s.Cwd != "/klieret__swe-agent-test-repo" || s.Stats == nil || s.Stats.TokensSent != 52861 || s.Stats.APICalls != 5 {
		t.Errorf("session %+v", s)
	}
	m := s.Messages[5]
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].Name != "open" || m.ToolCalls[0].Input != `{"command":"open tests/missing_colon.py"}` || s.Messages[6].Role != RoleTool {
		t.Errorf("action %+v, then %+v", m, s.Messages[6].Role)
	}
	if s.Messages[1].Role != RoleUser {
		t.Errorf("the demonstration is %s", s.Messages[1].Role)
	}
}

func TestSniff(t *testing.T) {
	for rel, want := range map[string]string{
		"claude-code/synthetic-shop.jsonl":                                             ClaudeCode,
		"claude-code/sidechain_integrated.jsonl":                                       ClaudeCode,
		"codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl": Codex,
		"codex/rollout-44444444-4444-4444-8444-444444444444.jsonl":                     Codex,
		"swe-agent/function_calling_simple.traj":                                       SWEAgent,
		"../../examples/histories/linear.jsonl":                                        Generic,
	} {
		got, err := SniffFile(filepath.Join(testdata, rel))
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", rel, got, err, want)
		}
	}
	// A trajectory under another name, and a first line cut at the end of
	// the bytes read.
	traj, _ := os.ReadFile(filepath.Join(testdata, "swe-agent/swe-agent__test-repo-i1.traj"))
	if f, err := Sniff(traj[:4096], "x.json"); f != SWEAgent {
		t.Errorf("trajectory as x.json: %q %v", f, err)
	}
	long := `{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"` + strings.Repeat("x", 1000)
	if f, _ := Sniff([]byte(long), "cut.jsonl"); f != ClaudeCode {
		t.Errorf("cut line: %q", f)
	}
	for _, bad := range []string{"hello\nworld\n", "", `{"a":1}` + "\n", "[1,2]\n"} {
		_, err := Sniff([]byte(bad), "f.jsonl")
		var ue *UnknownFormatError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "tried claude-code, codex, swe-agent, OTLP JSON traces, opencode, gemini-cli and the generic JSONL") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestBadLines: a line that is not JSON, a record of the wrong shape and
// a tool result without its call are problems naming their line; the
// rest is read.
func TestBadLines(t *testing.T) {
	in := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}
not json
{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m","role":"assistant","content":5}}
{"type":"user","uuid":"r1","parentUuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"nope","content":"x"}]}}
{"type":"assistant","uuid":"a2","parentUuid":"r1","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"ok"}]}}
{"type":"user","parentUuid":"a2","message":{"role":"user","content":"no uuid"}}
`
	s, err := ReadClaudeCode(strings.NewReader(in), "bad.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, p := range s.Problems {
		lines = append(lines, p.Line)
	}
	if got := texts(s); got != "user:hi|assistant:ok" {
		t.Errorf("messages %s", got)
	}
	if len(lines) != 4 || lines[0] != 2 || lines[1] != 3 || lines[2] != 6 || lines[3] != 4 {
		t.Errorf("problems %v", s.Problems)
	}
}

func TestLineTooLong(t *testing.T) {
	r := strings.NewReader(`{"type":"user"}` + "\n")
	if _, err := ReadCodex(r, "ok"); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { maxLine = n }(maxLine)
	maxLine = 4 << 20
	big := &endless{}
	_, err := ReadClaudeCode(big, "endless")
	if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "endless: line 1") {
		t.Errorf("err %v", err)
	}
}

// endless is a reader of bytes without a newline, failing past maxLine.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n > maxLine+(1<<20) {
		return 0, errors.New("read past the limit")
	}
	for i := range p {
		p[i] = 'x'
	}
	e.n += len(p)
	return len(p), nil
}
