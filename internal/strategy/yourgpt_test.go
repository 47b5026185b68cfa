package strategy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// YourGPT's estimate: ceil(characters/3.5) + 4 per message. A 21-character
// message is 10 tokens, a 336-character one 100.

func TestSlidingWindowStart(t *testing.T) {
	ten := func(n int) []float64 {
		out := make([]float64, n)
		for k := range out {
			out[k] = 10
		}
		return out
	}
	tests := []struct {
		name      string
		msgs      []Message
		budget    float64
		recent    int
		start     int
		movedBack bool
	}{
		{"everything fits", []Message{usr("u0", ""), asst("a1", "")}, 20, 2, 0, false},
		// Recent [u3 a4] 20; 25 left: a2 (15 left), t1 (5 left), a1 does
		// not fit. The window would start at t1, cut from its call: moved
		// forward to a2.
		{"atomic: orphaned result dropped",
			[]Message{usr("u0", ""), asst("a1", "", call("c1", "f", "{}")), tool("t1", "c1", ""), asst("a2", ""), usr("u3", ""), asst("a4", "")},
			45, 2, 3, false},
		// 35 left: a2, t1, a1 fit, u0 does not. The start a1 has tool calls:
		// upstream moves on to the first user or tool-less assistant (a2),
		// dropping the pair whole.
		{"atomic: whole pair dropped",
			[]Message{usr("u0", ""), asst("a1", "", call("c1", "f", "{}")), tool("t1", "c1", ""), asst("a2", ""), usr("u3", ""), asst("a4", "")},
			55, 2, 3, false},
		// Recent [t1 t2 a3] fills the budget; a1 does not fit. Upstream moves
		// the start forward past t1 and t2 to a3, dropping two messages of
		// the recent buffer (the defect). Fixed: back to a1, the call.
		{"defect fixed: start moved back to the call",
			[]Message{usr("u0", ""), asst("a1", "", call("c1", "f", "{}"), call("c2", "g", "{}")), tool("t1", "c1", ""), tool("t2", "c2", ""), asst("a3", "")},
			30, 3, 1, true},
		// No safe message after the start: upstream keeps the orphaned t1.
		{"no safe start: back to the call",
			[]Message{usr("u0", ""), asst("a1", "", call("c1", "f", "{}")), tool("t1", "c1", "")},
			15, 1, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start, back := SlidingWindowStart(tc.msgs, ten(len(tc.msgs)), tc.budget, tc.recent)
			if start != tc.start || back != tc.movedBack {
				t.Errorf("start %d moved back %v, want %d %v", start, back, tc.start, tc.movedBack)
			}
		})
	}
}

// TestSlidingWindowSteps: window 200, reserve 100: budget 100; recent 2;
// every message 21 characters = 10 tokens.
//
//	step a9 (10 messages): 100, fits
//	step a11 (12): 120 > 100: recent [u10 a11] 20, 80 left: a9..u2 fit,
//	  a1 does not; start u2 (a user message): u0 a1 dropped; after 100
//	step a13: view u2..a13 = 120: start u4; after 100
func TestSlidingWindowSteps(t *testing.T) {
	var h []Message
	for k := 0; k < 14; k += 2 {
		h = append(h, usr(fmt.Sprint("m", k), chars(21)), asst(fmt.Sprint("m", k+1), chars(21)))
	}
	s := mustNew(t, NameSlidingWindow, Config{ContextWindow: 200, Reserved: 100, RecentBuffer: 2})
	reps := stepAll(t, s, h, nil)
	type row struct {
		Ctx, After float64
		Fired      bool
		Boundary   int
		Kept       int
	}
	var got []row
	for _, r := range reps {
		got = append(got, row{r.ContextTokens, r.AfterTokens, r.Fired, r.Boundary, r.KeptVerbatim})
	}
	want := []row{
		{20, 20, false, -1, 2}, {40, 40, false, -1, 4}, {60, 60, false, -1, 6}, {80, 80, false, -1, 8},
		{100, 100, false, -1, 10}, {120, 100, true, 2, 10}, {120, 100, true, 4, 10},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if v := ids(s.View()); v[0] != "m4" || len(v) != 10 {
		t.Errorf("view = %v", v)
	}
}

// TestSlidingWindowInvariants runs histories full of tool calls and checks
// after every step that the recent buffer is whole and that no tool result
// is in the view without its call.
func TestSlidingWindowInvariants(t *testing.T) {
	var h []Message
	for k := 0; k < 60; k++ {
		id := fmt.Sprint(k)
		h = append(h, usr("u"+id, chars(21)))
		// Three calls in a row, then an answer: a recent buffer of 3 often
		// starts on a tool result.
		h = append(h, asst("a"+id, "", call("c"+id+"x", "f", "{}"), call("c"+id+"y", "g", "{}"), call("c"+id+"z", "g", "{}")))
		h = append(h, tool("tx"+id, "c"+id+"x", chars(70)), tool("ty"+id, "c"+id+"y", chars(70)), tool("tz"+id, "c"+id+"z", chars(70)))
		h = append(h, asst("b"+id, chars(21)))
	}
	s := mustNew(t, NameSlidingWindow, Config{ContextWindow: 200, Reserved: 100, RecentBuffer: 3})
	movedBack := 0
	for i := range h {
		if h[i].Role != RoleAssistant {
			continue
		}
		r, err := s.Step(context.Background(), h, i, nil)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.Note, "moved back") {
			movedBack++
		}
		v := s.View()
		inView := map[string]bool{}
		calls := map[string]bool{}
		for _, m := range v {
			inView[m.ID] = true
			for _, c := range m.ToolCalls {
				calls[c.ID] = true
			}
		}
		for k := max(0, i-2); k <= i; k++ {
			if !inView[h[k].ID] {
				t.Fatalf("step at %d: recent message %s dropped", i, h[k].ID)
			}
		}
		for _, m := range v {
			if m.Role == RoleTool && !calls[m.ToolCallID] {
				t.Fatalf("step at %d: tool result %s without its call", i, m.ID)
			}
		}
	}
	if movedBack == 0 {
		t.Error("the defect case never came up")
	}
}

func TestToolResultCap(t *testing.T) {
	long := chars(12000)
	want := chars(10000) + "\n[truncated — original 12000 chars, limit 10000]"
	if got := CapToolResult(long, 10000); got != want {
		t.Errorf("capped = ...%q", got[9990:])
	}
	if got := CapToolResult(chars(10000), 10000); got != chars(10000) {
		t.Error("a result at the cap was cut")
	}
	if got := CapToolResult(long, 0); got != long {
		t.Error("limit 0 must not cut")
	}
	// In every YourGPT strategy's view, and in what it counts:
	// ceil((10000 + 48)/3.5) + 4 = 2875 for the tool message.
	h := []Message{usr("u", chars(21)), asst("a", "", call("c", "f", "{}")), tool("t", "c", long), asst("b", chars(21))}
	for _, name := range []string{NameSlidingWindow, NameSelectivePrune, NameSummaryBuffer} {
		s := mustNew(t, name, Config{})
		reps := stepAll(t, s, h, nil)
		var got string
		for _, m := range s.View() {
			if m.ID == "t" {
				got = m.Content
			}
		}
		if got != want {
			t.Errorf("%s: tool message not capped", name)
		}
		// u 10 + a (JSON of the call, 69 chars: 20+4 = 24) + t 2875 + b 10.
		if reps[1].ContextTokens != 10+24+2875+10 {
			t.Errorf("%s: context %v, want %v", name, reps[1].ContextTokens, 10+24+2875+10)
		}
	}
	// Negative: no cap.
	s := mustNew(t, NameSlidingWindow, Config{ToolResultCap: -1})
	stepAll(t, s, h, nil)
	if s.View()[2].Content != long {
		t.Error("ToolResultCap -1 still capped")
	}
}

func TestStubSummary(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"message":"file saved","x":1}`, "file saved"},
		{`{"error":"boom","code":2}`, "Error: boom"},
		{`[1,2,3]`, "Array result — 3 items"},
		{`{"a":1,"b":2,"c":3,"d":4}`, "Object result — keys: a, b, c"},
		{`{"message":"","a":1}`, "Object result — keys: message, a"},
		{"plain text " + chars(200), ("plain text " + chars(200))[:120]},
		{`null`, "null"},
	}
	for _, tc := range tests {
		if got := StubSummary(tc.in); got != tc.want {
			t.Errorf("StubSummary(%.30q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSelectivePruneStub: recent buffer 2. At step a2 (4 messages) the
// cutoff is 2: t1 (index 2) is recent. At step a4 (6 messages) the cutoff
// is 4: t1 is older and over 500 characters: stubbed.
func TestSelectivePruneStub(t *testing.T) {
	content := `{"message":"file saved","data":"` + chars(566) + `"}` // 600 characters
	h := []Message{
		usr("u0", "save it"),
		asst("a1", "", call("c1", "write", `{ "path" : "a.txt" }`)),
		tool("t1", "c1", content),
		asst("a2", "saved"),
		usr("u3", "ok"),
		asst("a4", "done"),
	}
	s := mustNew(t, NameSelectivePrune, Config{RecentBuffer: 2})
	reps := stepAll(t, s, h, nil)
	if reps[1].Fired || !reps[2].Fired || reps[2].Compacted != 1 {
		t.Fatalf("reports = %+v", reps)
	}
	want := `{"type":"compacted-tool-result","toolName":"write","toolCallId":"c1","args":{"path":"a.txt"},` +
		`"status":"success","originalSize":600,"summary":"file saved",` +
		`"extract":"{\"message\":\"file saved\",\"data\":\"` + chars(168) + `"}`
	if got := s.View()[2].Content; got != want {
		t.Errorf("stub =\n%s\nwant\n%s", got, want)
	}
	if reps[2].AfterTokens >= reps[2].ContextTokens {
		t.Error("the stub did not shrink the view")
	}
	// Status and executedAt.
	m := tool("t9", "c9", `{"status":"error","detail":"`+chars(600)+`"}`)
	m.CreatedAt = time.UnixMilli(1767225600000)
	st := ToolResultStub(&m, nil, 200)
	if st.Status != "error" || st.ToolName != "tool" || string(st.Args) != "{}" || st.ExecutedAt == nil || *st.ExecutedAt != 1767225600000 {
		t.Errorf("stub = %+v", st)
	}
	// The SDK tests for "error" with its quotes.
	m.Content = "Error: disk full " + chars(600)
	if st := ToolResultStub(&m, nil, 200); st.Status != "success" {
		t.Errorf("status = %q", st.Status)
	}
}

func TestSelectivePruneDedup(t *testing.T) {
	skill := "You follow the deploy skill. " + chars(100)
	h := []Message{
		sysm("s0", skill+" version one"),
		usr("u1", "hi"), asst("a2", "hello"),
		sysm("s3", skill+" version two"), // same first 100 characters
		sysm("s4", "Something else entirely."),
		usr("u5", "go"), asst("a6", "done"),
	}
	s := mustNew(t, NameSelectivePrune, Config{}) // recent buffer 10: everything is recent
	reps := stepAll(t, s, h, nil)
	if !reps[1].Fired || reps[1].Compacted != 1 {
		t.Fatalf("report = %+v", reps[1])
	}
	v := s.View()
	if v[0].Content != skill+" version one" || v[3].Content != YourGPTDedupPlaceholder || v[4].Content != "Something else entirely." {
		t.Errorf("view = %q / %q / %q", v[0].Content, v[3].Content, v[4].Content)
	}
}

// TestSummaryBufferSteps: window 1000, threshold 0.75 (fires at >= 750),
// recent buffer 2, messages of 336 characters = 100 tokens, the summary
// 63 characters: "[Previous conversation summary]\n" + 63 = 95 chars,
// ceil(95/3.5)+4 = 32 tokens.
//
//	steps 1-3: 200, 400, 600
//	step 4: 800 fires: 8 messages, the last 2 stay: u1..a3 summarized;
//	  after = 32 + 200 = 232
//	steps 5-6: 432, 632
//	step 7: 832 fires: after the cursor u4..a7 (8); u4..a6 summarized (not
//	  u1..a3 again); after 232
func TestSummaryBufferSteps(t *testing.T) {
	var h []Message
	for k := 1; k <= 7; k++ {
		h = append(h, usr(fmt.Sprint("u", k), chars(336)), asst(fmt.Sprint("a", k), chars(336)))
	}
	sum := &fixed{text: chars(63)}
	s := mustNew(t, NameSummaryBuffer, Config{ContextWindow: 1000, RecentBuffer: 2})
	reps := stepAll(t, s, h, sum)
	var ctx, after []float64
	for _, r := range reps {
		ctx, after = append(ctx, r.ContextTokens), append(after, r.AfterTokens)
	}
	if !slices.Equal(ctx, []float64{200, 400, 600, 800, 432, 632, 832}) || after[3] != 232 || after[6] != 232 {
		t.Errorf("context %v after %v", ctx, after)
	}
	if len(sum.reqs) != 2 {
		t.Fatalf("%d compactions, want 2 (auto-compaction fires again)", len(sum.reqs))
	}
	if got := ids(sum.reqs[0].Compacted); !slices.Equal(got, []string{"u1", "a1", "u2", "a2", "u3", "a3"}) {
		t.Errorf("first compaction = %v", got)
	}
	if got := ids(sum.reqs[1].Compacted); !slices.Equal(got, []string{"u4", "a4", "u5", "a5", "u6", "a6"}) {
		t.Errorf("second compaction = %v (summarized messages must not be re-sent)", got)
	}
	if sum.reqs[1].Previous != chars(63) {
		t.Error("the second request does not carry the rolling summary")
	}
	if got := ids(s.View()); !slices.Equal(got, []string{"summary", "u7", "a7"}) {
		t.Errorf("view = %v", got)
	}
}

func TestSummaryBufferWorkingMemoryFirst(t *testing.T) {
	h := []Message{sysm("s0", "You are a deploy bot."), usr("u1", "remember: deploy on Fridays"), asst("a1", "noted")}
	for k := 2; k <= 6; k++ {
		h = append(h, usr(fmt.Sprint("u", k), chars(336)), asst(fmt.Sprint("a", k), chars(336)))
	}
	s := mustNew(t, NameSummaryBuffer, Config{ContextWindow: 1000, RecentBuffer: 2, WorkingMemory: []string{"The user prefers Go."}})
	sum := &fixed{text: "the summary"}
	stepAll(t, s, h, sum)
	if len(sum.reqs) == 0 {
		t.Fatal("no compaction")
	}
	v := s.View()
	if v[0].Role != RoleSystem || v[0].Content != WorkingMemoryHeading+"\nThe user prefers Go.\ndeploy on Fridays" {
		t.Errorf("first message = %+v", v[0])
	}
	if v[1].Content != SummaryHeading+"\nthe summary" || v[2].ID != "s0" {
		t.Errorf("view = %v", ids(v))
	}
	if !slices.Equal(sum.reqs[0].WorkingMemory, []string{"The user prefers Go.", "deploy on Fridays"}) ||
		!strings.HasPrefix(sum.reqs[0].User, "Working memory (always preserve these facts):\nThe user prefers Go.") {
		t.Errorf("request = %+v", sum.reqs[0])
	}
	if f, ok := RememberFact("  Remember:  x "); !ok || f != "x" {
		t.Errorf("RememberFact = %q %v", f, ok)
	}
}

func TestSummaryBufferFallback(t *testing.T) {
	var h []Message
	for k := 1; k <= 4; k++ {
		h = append(h, usr(fmt.Sprint("u", k), chars(336)), asst(fmt.Sprint("a", k), chars(336)))
	}
	s := mustNew(t, NameSummaryBuffer, Config{ContextWindow: 1000, RecentBuffer: 2})
	reps := stepAll(t, s, h, &fixed{err: errDown})
	r := reps[3]
	line := chars(200)
	want := strings.Join([]string{"user: " + line, "assistant: " + line, "user: " + line, "assistant: " + line, "user: " + line, "assistant: " + line}, "\n")
	if r.Summary != want || !strings.Contains(r.Note, "fallback") {
		t.Errorf("summary %q note %q", r.Summary, r.Note)
	}
	if got := FallbackSummary("OLD", []Message{usr("u", "hi"), tool("t", "c", "x")}); got != "OLD\n\n[Additional context]\nuser: hi" {
		t.Errorf("FallbackSummary = %q", got)
	}
}
