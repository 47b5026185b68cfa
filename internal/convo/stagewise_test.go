package convo

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/strategy"
)

// sampleDB copies the sample database to a temporary directory.
func sampleDB(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "stagewise", "instances.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "instances.sqlite")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const buttonChat = "ba8894fa-3be5-4747-8699-45dea82460da"

func TestReadStagewiseSampleDatabase(t *testing.T) {
	db := sampleDB(t)
	hs, problems, err := ReadStagewise(context.Background(), db, StagewiseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 0 || len(hs) != 6 {
		t.Fatalf("%d chats, problems %v", len(hs), problems)
	}
	var h *History
	for _, c := range hs {
		if c.Source != SourceStagewise || c.Tree {
			t.Errorf("chat %s: source %q tree %v", c.Name, c.Source, c.Tree)
		}
		if c.Name == buttonChat {
			h = c
		}
	}
	if h == nil {
		t.Fatal("the Button chat is missing")
	}
	if h.Title != "Fix Button color (v2)!" || h.Model != "claude-sonnet-4.6" || !h.HasUsedTokens || h.UsedTokens != 41230 {
		t.Errorf("details: %+v", h)
	}
	raw := h.RawOnly()
	if len(raw) != 16 {
		t.Fatalf("%d raw messages, want the chat's 16", len(raw))
	}
	for i, m := range raw {
		if h.Origin[indexOf(h.Branch, m.ID)] != i {
			t.Errorf("message %d (%s): origin %d", i, m.ID, h.Origin[indexOf(h.Branch, m.ID)])
		}
		if (m.StoredSummary != nil) != (i == 4) {
			t.Errorf("message %d: stored summary %v", i, m.StoredSummary != nil)
		}
	}
	if s := raw[4].StoredSummary; s == nil || !strings.HasPrefix(*s, "## Button colour fix") {
		t.Errorf("stored summary = %v", s)
	}
	u := raw[0]
	if u.Role != strategy.RoleUser || !strings.HasPrefix(u.Content, "The primary Button is red again") || u.CreatedAt.IsZero() {
		t.Errorf("first message: %+v", u)
	}
	if got := u.CreatedAt.Format("2006-01-02T15:04:05.000Z"); got != "2026-05-18T09:02:11.930Z" {
		t.Errorf("created at %s", got)
	}

	// The first assistant message: its text part, its tool calls, then one
	// synthetic tool message per tool part, in order.
	a := h.Branch[1]
	if a.Role != strategy.RoleAssistant || a.Raw == nil || !strings.HasPrefix(a.Content, "Let me look at the Button component and its styles.\nThe primary variant falls back") {
		t.Fatalf("assistant: role %q content %q", a.Role, a.Content)
	}
	if len(a.ToolCalls) == 0 || a.ToolCalls[0].Name != "read" || a.ToolCalls[0].ID != "toolu_01J3kTuIz4QM2ne9cQtlKQwJ" || a.ToolCalls[0].Arguments != `{"path":"w1a2/src/components/Button.tsx"}` {
		t.Fatalf("tool calls: %+v", a.ToolCalls)
	}
	for k, c := range a.ToolCalls {
		r := h.Branch[2+k]
		if r.Role != strategy.RoleTool || !r.Synthetic || r.Raw != nil || r.ToolCallID != c.ID || h.Origin[2+k] != 1 {
			t.Fatalf("result %d: %+v", k, r)
		}
		if !json.Valid([]byte(r.Content)) {
			t.Errorf("result %d: content is not JSON: %.80s", k, r.Content)
		}
	}
	if !strings.Contains(h.Branch[2].Content, `"message":"Successfully read file"`) {
		t.Errorf("first result = %.120s", h.Branch[2].Content)
	}

	// The shell result keeps its exit code, and a marker-style failure is
	// found in it.
	var sawExit bool
	for _, m := range h.Branch {
		if m.Role == strategy.RoleTool && strings.Contains(m.Content, `"exit_code":1`) {
			sawExit = ToolFailure(m.Content) == " → exit 1"
		}
	}
	if !sawExit {
		t.Error("no tool message with exit_code 1 read as a failure")
	}
}

func indexOf(msgs []strategy.Message, id string) int {
	for i, m := range msgs {
		if m.ID == id {
			return i
		}
	}
	return -1
}

func TestReadStagewiseChosenChats(t *testing.T) {
	db := sampleDB(t)
	hs, problems, err := ReadStagewise(context.Background(), db, StagewiseOptions{ChatIDs: []string{buttonChat}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].Name != buttonChat || len(problems) != 0 {
		t.Fatalf("chats: %d, problems %v", len(hs), problems)
	}
	// An id the database does not hold stops the read, naming it.
	_, _, err = ReadStagewise(context.Background(), db, StagewiseOptions{ChatIDs: []string{"nope", buttonChat, "gone"}})
	var me *MissingChatsError
	if !errors.As(err, &me) || err.Error() != "no such chats in "+db+": nope, gone" {
		t.Errorf("err = %v", err)
	}
}

func TestReadStagewiseNotADatabase(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.sqlite")
	if err := os.WriteFile(p, []byte("not sqlite"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadStagewise(context.Background(), p, StagewiseOptions{}); err == nil {
		t.Fatal("no error")
	}
}

func TestStagewiseToolStates(t *testing.T) {
	v, err := history.ParseJSON(`{"id":"m1","role":"assistant","parts":[
		{"type":"text","text":"a"},{"type":"reasoning","text":"hidden"},{"type":"text","text":"b"},
		{"type":"tool-executeShellCommand","toolCallId":"c1","state":"output-error","input":{"command":"make"},"errorText":"boom\nmore"},
		{"type":"tool-delete","toolCallId":"c2","state":"output-denied","input":{"path":"w1/x"}},
		{"type":"tool-read","state":"input-available","input":{"path":"w1/y"}},
		{"type":"dynamic-tool","toolName":"mcp_search","toolCallId":"c4","state":"output-available","input":{"q":"z"},"output":[1,2]}
	],"metadata":null}`)
	if err != nil {
		t.Fatal(err)
	}
	out, origin := StagewiseMessages([]history.Value{v})
	if len(out) != 5 || origin[4] != 0 {
		t.Fatalf("%d messages, origin %v", len(out), origin)
	}
	if out[0].Content != "a\nb" || len(out[0].ToolCalls) != 4 {
		t.Fatalf("assistant: %+v", out[0])
	}
	if c := out[0].ToolCalls[2]; c.ID != "m1:5" || c.Name != "read" {
		t.Errorf("a call without id: %+v", c)
	}
	if c := out[0].ToolCalls[3]; c.Name != "mcp_search" {
		t.Errorf("dynamic tool: %+v", c)
	}
	want := []string{`{"error":"boom\nmore"}`, `{"error":"denied"}`, `{"state":"input-available"}`, `[1,2]`}
	for k, w := range want {
		if out[1+k].Content != w {
			t.Errorf("result %d = %q, want %q", k, out[1+k].Content, w)
		}
	}
	if got := ToolFailure(out[1].Content); got != " ✗ boom" {
		t.Errorf("failure = %q", got)
	}
}

func TestCompactHistoryOfRawMessagesIsTheSerializer(t *testing.T) {
	db := sampleDB(t)
	hs, _, err := ReadStagewise(context.Background(), db, StagewiseOptions{ChatIDs: []string{buttonChat}})
	if err != nil {
		t.Fatal(err)
	}
	h := hs[0]
	raw := h.RawOnly()
	vals := make([]history.Value, 4)
	for i := range vals {
		vals[i] = *raw[i].Raw
	}
	want := serialize.Serialize(vals, serialize.Options{})
	// The branch with its synthetic tool messages renders the same.
	var upTo []strategy.Message
	for _, m := range h.Branch {
		if m.ID == raw[4].ID {
			break
		}
		upTo = append(upTo, m)
	}
	if got := CompactHistory(upTo, "", nil); got != want {
		t.Errorf("compact history differs from the serializer:\n got %.300s\nwant %.300s", got, want)
	}
	// The briefing stored on message 4 is not rendered.
	got := CompactHistory(raw[4:6], "", nil)
	if strings.Contains(got, "previous-chat-history") || !strings.HasPrefix(got, "<user>Now it&apos;s teal") {
		t.Errorf("boundary message rendered as %.200s", got)
	}
}

func TestCompactHistoryOfGenericMessages(t *testing.T) {
	msgs := []strategy.Message{
		{ID: "s", Role: strategy.RoleSystem, Content: "system prompt"},
		{ID: "u", Role: strategy.RoleUser, Content: "fix <b> & see w1/src/a.ts"},
		{ID: "a", Role: strategy.RoleAssistant, Content: "on it", ToolCalls: []strategy.ToolCall{
			{ID: "c1", Name: "run_command", Arguments: `{"command":"pnpm test"}`},
			{ID: "c2", Name: "read_file", Arguments: `{"path":"w1/src/a.ts"}`},
			{ID: "c3", Name: "fetch", Arguments: `not json`},
		}},
		{ID: "t1", Role: strategy.RoleTool, ToolCallID: "c1", Content: `{"exit_code":1,"output":"FAIL"}`},
		{ID: "t2", Role: strategy.RoleTool, ToolCallID: "c2", Content: "export {}"},
		{ID: "t3", Role: strategy.RoleTool, ToolCallID: "c3", Content: "Error: 404 Not Found\nbody"},
	}
	got := CompactHistory(msgs, "## Earlier\nbriefing", nil)
	want := "<previous-chat-history>## Earlier\nbriefing</previous-chat-history>" +
		"\n<user>fix &lt;b&gt; &amp; see w1/src/a.ts</user>" +
		"\n<assistant>on it\n[run_command: pnpm test → exit 1]\n[read_file: w1/src/a.ts]\n[fetch: not json ✗ Error: 404 Not Found]</assistant>"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestToolFailure(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"json exit code", `{"exit_code":2,"output":"x"}`, " → exit 2"},
		{"json exit code zero", `{"exit_code":0,"output":"error: none"}`, ""},
		{"json timed out", `{"timed_out":true}`, " → timed out"},
		{"json error", `{"error":"no such file\nstack"}`, " ✗ no such file"},
		{"json plain", `{"message":"ok"}`, ""},
		{"text exit", "make: *** [all] Error 2\nProcess exited with code 2", " → exit 2"},
		{"text exit status", "exit status 1", " → exit 1"},
		{"text exit zero", "exit code 0", ""},
		{"text timeout", "Command timed out after 30s", " → timed out"},
		{"text error", "Error: ENOENT: no such file", " ✗ Error: ENOENT: no such file"},
		{"text traceback", "Traceback (most recent call last):\n  File", " ✗ Traceback (most recent call last):"},
		{"text cross", "✗ 2 tests failed", " ✗ ✗ 2 tests failed"},
		{"text fine", "all good", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ToolFailure(tc.in); got != tc.want {
				t.Errorf("ToolFailure(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestMeasureRetention(t *testing.T) {
	compacted := []strategy.Message{
		{ID: "u", Role: strategy.RoleUser, Content: "Look at w1/src/a.ts and [the docs](https://example.com/docs)."},
		{ID: "a", Role: strategy.RoleAssistant, Content: "Checked [](path:w1/src/b.ts).", ToolCalls: []strategy.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"command":"pnpm test w1/src/a.test.ts"}`}}},
		{ID: "t", Role: strategy.RoleTool, ToolCallID: "c1", Content: `{"exit_code":1}`},
	}
	summary := "## Task\n\nYou fixed [](path:w1/src/a.ts) after reading the docs at https://example.com/docs. The test run of [](path:w1/src/a.test.ts) failed with exit 1."
	r := MeasureRetention(compacted, summary, nil)
	if r.Items != 5 {
		t.Fatalf("items = %d (%+v)", r.Items, r)
	}
	if r.ByKind["path"].Total != 3 || r.ByKind["link"].Total != 1 || r.ByKind["failure"].Total != 1 {
		t.Errorf("by kind: path %+v link %+v failure %+v", *r.ByKind["path"], *r.ByKind["link"], *r.ByKind["failure"])
	}
	// w1/src/b.ts is lost; a.ts, a.test.ts, the link and the failure kept.
	if r.Kept != 4 || len(r.Lost) != 1 || r.Lost[0].Value != "w1/src/b.ts" {
		t.Errorf("kept %d lost %+v", r.Kept, r.Lost)
	}
	if got := MeasureRetention(nil, summary, nil); got.Items != 0 || got.Ratio() != 1 {
		t.Errorf("empty: %+v", got)
	}
}
