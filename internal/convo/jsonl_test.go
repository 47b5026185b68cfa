package convo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/strategy"
)

// ids lists the ids of msgs.
func ids(msgs []strategy.Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return strings.Join(out, " ")
}

func problemLines(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func TestReadJSONLBadLinesAreReportedAndTheRestIsRead(t *testing.T) {
	tests := []struct {
		name   string
		lines  []string
		leaf   string
		branch string // ids of the branch
		// problems: one substring per expected problem, prefixed "line N: "
		problems []string
	}{
		{
			name: "a clean list",
			lines: []string{
				`{"id":"s","role":"system","content":"You are a coding agent."}`,
				`{"id":"u1","role":"user","content":"hi"}`,
				`{"id":"a1","role":"assistant","content":"hello"}`,
			},
			branch: "s u1 a1",
		},
		{
			name: "a line that is not JSON",
			lines: []string{
				`{"id":"u1","role":"user","content":"hi"}`,
				`{"id":"a1","role":"assistant","content":"hel`,
				`{"id":"u2","role":"user","content":"again"}`,
				`{"id":"a2","role":"assistant","content":"yes"}`,
			},
			branch:   "u1 u2 a2",
			problems: []string{"line 2: not JSON: unexpected end of JSON input; left out"},
		},
		{
			name: "a JSON value that is not an object",
			lines: []string{
				`[1,2]`,
				`{"id":"u1","role":"user","content":"hi"}`,
				`"text"`,
				`null`,
			},
			branch: "u1",
			problems: []string{
				"line 1: not a JSON object but an array; left out",
				"line 3: not a JSON object but a string; left out",
				"line 4: not a JSON object but null; left out",
			},
		},
		{
			name: "an unknown role and a missing one",
			lines: []string{
				`{"id":"u1","role":"user","content":"hi"}`,
				`{"id":"x","role":"robot","content":"beep"}`,
				`{"id":"y","content":"who"}`,
				`{"id":"a1","role":"assistant","content":"hello"}`,
			},
			branch: "u1 a1",
			problems: []string{
				`line 2: unknown role "robot" (want system, user, assistant or tool); left out`,
				"line 3: no role (want system, user, assistant or tool); left out",
			},
		},
		{
			name: "members of the wrong type, a bad time, no id",
			lines: []string{
				`{"id":7,"role":"user","content":"hi"}`,
				`{"id":"u1","role":"user","content":42}`,
				`{"id":"u2","role":"user","content":"ok","created_at":"yesterday"}`,
				`{"role":"user","content":"anonymous"}`,
				`{"id":"u3","role":"user","content":[{"type":"text","text":"part one"},{"type":"image_url"},"part two"],"created_at":"2026-05-18T09:02:11.93Z"}`,
			},
			branch: "u3",
			problems: []string{
				"line 1: id is a number, want a string; left out",
				"line 2: content is a number, want a string or an array of parts; left out",
				`line 3: created_at "yesterday" is not an RFC 3339 time; left out`,
				"line 4: no id; left out",
			},
		},
		{
			name: "duplicate ids: the later line is left out",
			lines: []string{
				`{"id":"u1","role":"user","content":"hi"}`,
				`{"id":"u1","role":"user","content":"hi again"}`,
				`{"id":"a1","role":"assistant","content":"hello"}`,
			},
			branch:   "u1 a1",
			problems: []string{`line 2: duplicate id "u1" (first on line 1); left out`},
		},
		{
			name: "a tool message without its call",
			lines: []string{
				`{"id":"u1","role":"user","content":"read it"}`,
				`{"id":"t0","role":"tool","tool_call_id":"call_9","content":"early"}`,
				`{"id":"a1","role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"w1/a.ts\"}"}}]}`,
				`{"id":"t1","role":"tool","tool_call_id":"call_1","content":"export {}"}`,
				`{"id":"t2","role":"tool","tool_call_id":"call_2","content":"lost"}`,
				`{"id":"t3","role":"tool","content":"no id"}`,
				`{"id":"a2","role":"assistant","content":"done"}`,
			},
			branch: "u1 a1 t1 a2",
			problems: []string{
				`line 2: tool message without its call: tool_call_id "call_9" is not among the tool_calls of the assistant messages before it; left out`,
				`line 5: tool message without its call: tool_call_id "call_2"`,
				"line 6: tool message without tool_call_id; left out",
			},
		},
		{
			name: "bad tool_calls",
			lines: []string{
				`{"id":"u1","role":"user","content":"go"}`,
				`{"id":"a1","role":"assistant","tool_calls":[{"id":"c1","type":"retrieval","function":{"name":"x"}}]}`,
				`{"id":"a2","role":"assistant","tool_calls":[{"type":"function","function":{"name":"x"}}]}`,
				`{"id":"a3","role":"assistant","tool_calls":{"id":"c1"}}`,
				`{"id":"a4","role":"assistant","tool_calls":[{"id":"c4","function":{"name":"grep","arguments":{"pattern":"TODO"}}}]}`,
			},
			branch: "u1 a4",
			problems: []string{
				`line 2: tool_calls[0] has type "retrieval", want "function"; left out`,
				"line 3: tool_calls[0] has no id; left out",
				"line 4: tool_calls is an object, want an array",
			},
		},
		{
			name: "a parent_id that points nowhere takes its subtree with it",
			lines: []string{
				`{"id":"u1","role":"user","content":"hi"}`,
				`{"id":"a1","parent_id":"u1","role":"assistant","content":"hello"}`,
				`{"id":"u2","parent_id":"ghost","role":"user","content":"orphan"}`,
				`{"id":"a2","parent_id":"u2","role":"assistant","content":"orphan answer"}`,
				`{"id":"u3","parent_id":"a1","role":"user","content":"next"}`,
			},
			branch: "u1 a1 u3",
			problems: []string{
				`line 3: parent_id "ghost" points nowhere: no line has that id; left out with everything below it`,
				`line 4: below line 3, whose parent_id "ghost" points nowhere; left out`,
			},
		},
		{
			name: "a dangling parent names the unreadable lines",
			lines: []string{
				`{"id":"u1","role":"user","content":"hi"}`,
				`{"id":"a1","parent_id":"u1","role":"assistant","content":"hel`,
				`{"id":"u2","parent_id":"a1","role":"user","content":"next"}`,
			},
			branch: "u1",
			problems: []string{
				"line 2: not JSON",
				`line 3: parent_id "a1" points nowhere: no line has that id (unreadable: line 2); left out with everything below it`,
			},
		},
		{
			name: "a cycle in parents is an error for its whole branch",
			lines: []string{
				`{"id":"u1","role":"user","content":"root"}`,
				`{"id":"a1","parent_id":"u1","role":"assistant","content":"fine"}`,
				`{"id":"x","parent_id":"y","role":"user","content":"x"}`,
				`{"id":"y","parent_id":"x","role":"assistant","content":"y"}`,
				`{"id":"z","parent_id":"y","role":"user","content":"below the cycle"}`,
				`{"id":"s","parent_id":"s","role":"user","content":"self"}`,
			},
			branch: "u1 a1",
			problems: []string{
				`line 3: parent cycle of 2 messages: "x" (line 3) → "y" (line 4) → "x": no root above it; the cycle and everything below it are left out`,
				`line 5: below the parent cycle reported on line 3; left out`,
				`line 6: parent cycle of 1 message: "s" (line 6) → "s"`,
			},
		},
		{
			name: "a bad line in a tree is spliced out: its children hang from its parent",
			lines: []string{
				`{"id":"u1","role":"user","content":"root"}`,
				`{"id":"a1","parent_id":"u1","role":"narrator","content":"bad role"}`,
				`{"id":"u2","parent_id":"a1","role":"user","content":"child of the bad line"}`,
				`{"id":"a2","parent_id":"u2","role":"assistant","content":"ok"}`,
			},
			branch:   "u1 u2 a2",
			problems: []string{`line 2: unknown role "narrator"`},
		},
		{
			name: "a tool result whose call is on another branch",
			lines: []string{
				`{"id":"u1","role":"user","content":"root"}`,
				`{"id":"a1","parent_id":"u1","role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{}"}}]}`,
				`{"id":"t1","parent_id":"a1","role":"tool","tool_call_id":"c1","content":"ok"}`,
				`{"id":"a2","parent_id":"u1","role":"assistant","content":"other branch"}`,
				`{"id":"t2","parent_id":"a2","role":"tool","tool_call_id":"c1","content":"stray"}`,
				`{"id":"u3","parent_id":"t2","role":"user","content":"after the stray result"}`,
			},
			branch:   "u1 a2 u3",
			problems: []string{`line 5: tool message without its call: tool_call_id "c1"`},
		},
		{
			name: "blank lines, CRLF and a byte order mark",
			lines: []string{
				"\ufeff" + `{"id":"u1","role":"user","content":"hi"}` + "\r",
				"",
				"   ",
				`{"id":"a1","role":"assistant","content":"hello"}` + "\r",
			},
			branch: "u1 a1",
		},
		{
			name: "nothing usable",
			lines: []string{
				`not json`,
				`{"id":"x","role":"robot"}`,
			},
			branch: "",
			problems: []string{
				"line 1: not JSON: invalid character 'o' in literal null (expecting 'u'); left out",
				`line 2: unknown role "robot"`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ReadJSONL(strings.NewReader(strings.Join(tc.lines, "\n")+"\n"), "test.jsonl", JSONLOptions{Leaf: tc.leaf})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(h.Branch); got != tc.branch {
				t.Errorf("branch = %q, want %q", got, tc.branch)
			}
			got := problemLines(h.Problems)
			if len(got) != len(tc.problems) {
				t.Fatalf("problems:\n%s\nwant %d:\n%s", strings.Join(got, "\n"), len(tc.problems), strings.Join(tc.problems, "\n"))
			}
			for i, want := range tc.problems {
				if !strings.HasPrefix(got[i], want) && !strings.Contains(got[i], want) {
					t.Errorf("problem %d = %q, want it to hold %q", i, got[i], want)
				}
				if !strings.HasPrefix(got[i], "line ") {
					t.Errorf("problem %d = %q does not name its line", i, got[i])
				}
			}
		})
	}
}

func TestReadJSONLFields(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"u1","role":"user","content":[{"type":"text","text":"part one"},"part two"],"created_at":"2026-05-18T09:02:11.930Z","extra":true}`,
		`{"id":"a1","role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"grep","arguments":{"pattern": "TODO"}}},{"id":"c2","function":{"name":"read","arguments":"{\"path\":\"w1/a.ts\"}"}}]}`,
		`{"id":"t1","role":"tool","tool_call_id":"c1","content":"none"}`,
	}, "\n")
	h, err := ReadJSONL(strings.NewReader(in), "x", JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Tree || h.Leaf != "t1" || len(h.Problems) != 0 {
		t.Fatalf("tree=%v leaf=%q problems=%v", h.Tree, h.Leaf, h.Problems)
	}
	u := h.Branch[0]
	if u.Content != "part one\npart two" {
		t.Errorf("content = %q", u.Content)
	}
	if want := time.Date(2026, 5, 18, 9, 2, 11, 930e6, time.UTC); !u.CreatedAt.Equal(want) {
		t.Errorf("created_at = %v", u.CreatedAt)
	}
	a := h.Branch[1]
	want := []strategy.ToolCall{{ID: "c1", Name: "grep", Arguments: `{"pattern":"TODO"}`}, {ID: "c2", Name: "read", Arguments: `{"path":"w1/a.ts"}`}}
	if len(a.ToolCalls) != 2 || a.ToolCalls[0] != want[0] || a.ToolCalls[1] != want[1] {
		t.Errorf("tool calls = %+v", a.ToolCalls)
	}
	if h.Branch[2].ToolCallID != "c1" || h.Origin[2] != 3 {
		t.Errorf("tool message = %+v origin %v", h.Branch[2], h.Origin)
	}
}

const treeJSONL = `{"id":"u1","role":"user","content":"root"}
{"id":"a1","parent_id":"u1","role":"assistant","content":"first answer"}
{"id":"u2","parent_id":"a1","role":"user","content":"branch A"}
{"id":"a2","parent_id":"u2","role":"assistant","content":"A answer"}
{"id":"u3","parent_id":"a1","role":"user","content":"branch B (edited)"}
{"id":"a3","parent_id":"u3","role":"assistant","content":"B answer"}
{"id":"u4","parent_id":"a2","role":"user","content":"back on A, older leaf by file order"}
`

func TestReadJSONLTreeBranchChoice(t *testing.T) {
	tests := []struct {
		name, leaf, branch string
		origin             []int
	}{
		{"the newest leaf by file order", "", "u1 a1 u2 a2 u4", []int{1, 2, 3, 4, 7}},
		{"a chosen leaf", "a3", "u1 a1 u3 a3", []int{1, 2, 5, 6}},
		{"a chosen inner message ends the branch there", "u2", "u1 a1 u2", []int{1, 2, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ReadJSONL(strings.NewReader(treeJSONL), "tree", JSONLOptions{Leaf: tc.leaf})
			if err != nil {
				t.Fatal(err)
			}
			if !h.Tree || len(h.Messages) != 7 {
				t.Fatalf("tree=%v messages=%d", h.Tree, len(h.Messages))
			}
			if got := ids(h.Branch); got != tc.branch {
				t.Errorf("branch = %q, want %q", got, tc.branch)
			}
			for i := range tc.origin {
				if h.Origin[i] != tc.origin[i] {
					t.Errorf("origin = %v, want %v", h.Origin, tc.origin)
					break
				}
			}
			for i, m := range h.Branch {
				want := ""
				if i > 0 {
					want = h.Branch[i-1].ID
				}
				if m.ParentID != want {
					t.Errorf("%s: parent %q, want %q", m.ID, m.ParentID, want)
				}
			}
		})
	}
}

func TestReadJSONLLeafErrors(t *testing.T) {
	cyc := treeJSONL + `{"id":"x","parent_id":"y","role":"user","content":"x"}
{"id":"y","parent_id":"x","role":"assistant","content":"y"}
{"id":"z","parent_id":"y","role":"user","content":"z"}
`
	tests := []struct{ name, in, leaf, want string }{
		{"an unknown leaf", treeJSONL, "nope", `--leaf "nope": no message has that id`},
		{"a leaf below a cycle", cyc, "z", `--leaf "z": line 10 was left out`},
		{"a leaf on a cycle", cyc, "x", `--leaf "x": line 8 was left out`},
		{"a leaf in a file without usable lines", "garbage\n", "u1", `has no usable message`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSONL(strings.NewReader(tc.in), "f", JSONLOptions{Leaf: tc.leaf})
			if err == nil || !errors.Is(err, ErrLeaf) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrLeaf holding %q", err, tc.want)
			}
		})
	}
	// Without --leaf the cycle's branch is skipped, the rest simulated.
	h, err := ReadJSONL(strings.NewReader(cyc), "f", JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(h.Branch); got != "u1 a1 u2 a2 u4" {
		t.Errorf("branch = %q", got)
	}
	if len(h.Problems) != 2 {
		t.Errorf("problems = %v", problemLines(h.Problems))
	}
}

func TestReadJSONLListLeaf(t *testing.T) {
	in := `{"id":"u1","role":"user","content":"a"}
{"id":"a1","role":"assistant","content":"b"}
{"id":"u2","role":"user","content":"c"}
`
	h, err := ReadJSONL(strings.NewReader(in), "f", JSONLOptions{Leaf: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(h.Branch); got != "u1 a1" || h.Tree {
		t.Errorf("branch = %q tree=%v", got, h.Tree)
	}
	if len(h.Messages) != 3 {
		t.Errorf("messages = %d", len(h.Messages))
	}
}

func TestReadJSONLFileErrors(t *testing.T) {
	if _, err := ReadJSONLFile(filepath.Join(t.TempDir(), "missing.jsonl"), JSONLOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
	p := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := ReadJSONLFile(p, JSONLOptions{})
	if err != nil || len(h.Branch) != 0 || len(h.Problems) != 0 {
		t.Fatalf("h=%+v err=%v", h, err)
	}
}

func TestExampleHistories(t *testing.T) {
	for _, tc := range []struct {
		file     string
		tree     bool
		min      int
		leafLast bool
	}{
		{"linear.jsonl", false, 12, true},
		{"branching.jsonl", true, 12, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			h, err := ReadJSONLFile(filepath.Join("..", "..", "examples", "histories", tc.file), JSONLOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Problems) != 0 {
				t.Fatalf("problems: %v", problemLines(h.Problems))
			}
			if h.Tree != tc.tree || len(h.Branch) < tc.min {
				t.Fatalf("tree=%v branch=%d", h.Tree, len(h.Branch))
			}
			calls, results := 0, 0
			for _, m := range h.Branch {
				calls += len(m.ToolCalls)
				if m.Role == strategy.RoleTool {
					results++
				}
			}
			if calls == 0 || results == 0 {
				t.Errorf("calls=%d results=%d: the example should show tool use", calls, results)
			}
			if tc.tree && len(h.Messages) == len(h.Branch) {
				t.Errorf("the branching example has no second branch")
			}
		})
	}
}
