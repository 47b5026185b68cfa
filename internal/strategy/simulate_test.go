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

// TestGuardNoShrinkAndCap: stagewise, window 1000, 13-token messages (see
// TestStagewiseChained). The summarizer returns 3000 characters: the
// boundary message would carry ceil((36+3000)/4)+4 = 763 tokens, view
// 763 + 9×13 = 880 > 676: rejected, the view stays. Every later step fires
// again:
//
//	51: call, did not shrink   (streak 1)
//	53: call, did not shrink   (streak 2)
//	55: held by the cap        (streak 0)
//	57: call, did not shrink   (streak 1)
//	59: call, did not shrink   (streak 2)
func TestGuardNoShrinkAndCap(t *testing.T) {
	h := stagewiseHistory(60)
	sum := &fixed{text: chars(3000)}
	tl, err := Simulate(context.Background(), h, NameStagewise, Config{ContextWindow: 1000}, sum)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Index    int
		Ctx      float64
		After    float64
		Rejected string
		Boundary int
		Kept     int
	}
	var got []row
	for _, r := range tl.Steps {
		if r.Index >= 51 {
			got = append(got, row{r.Index, r.ContextTokens, r.AfterTokens, r.Rejected, r.Boundary, r.KeptVerbatim})
		}
	}
	want := []row{
		{51, 676, 676, RejectNoShrink, -1, 52},
		{53, 702, 702, RejectNoShrink, -1, 54},
		{55, 728, 728, RejectCap, -1, 56},
		{57, 754, 754, RejectNoShrink, -1, 58},
		{59, 780, 780, RejectNoShrink, -1, 60},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if tl.Rejected != 5 || tl.Compactions != 0 || tl.SummarizerCalls != 4 || len(sum.reqs) != 4 {
		t.Errorf("totals: rejected %d compactions %d calls %d requests %d", tl.Rejected, tl.Compactions, tl.SummarizerCalls, len(sum.reqs))
	}
	if !strings.Contains(tl.Steps[25].Note, "880") {
		t.Errorf("note = %q", tl.Steps[25].Note)
	}
}

// TestGuardCapKept: summary-buffer firing at every step (threshold
// 0.001), recent buffer 1, 100-token messages, a 7-character summary
// ("[Previous conversation summary]\n" + 7 = 39 chars: 16 tokens).
//
//	step 1: 200 → summarize u1, after 116          (streak 1)
//	step 2: 316 → summarize a1 u2, after 116       (streak 2)
//	step 3: 316 → held                             (streak 0)
//	step 4: 516 → summarize a2 u3 a3 u4, after 116 (streak 1)
//	step 5: 316 → kept                             (streak 2)
//	step 6: 316 → held
func TestGuardCapKept(t *testing.T) {
	var h []Message
	for k := 1; k <= 6; k++ {
		h = append(h, usr(fmt.Sprint("u", k), chars(336)), asst(fmt.Sprint("a", k), chars(336)))
	}
	cfg := Config{ContextWindow: 1000, Threshold: 0.001, RecentBuffer: 1}
	tl, err := Simulate(context.Background(), h, NameSummaryBuffer, cfg, &fixed{text: "summary"})
	if err != nil {
		t.Fatal(err)
	}
	var rej []string
	var ctx, after []float64
	for _, r := range tl.Steps {
		rej, ctx, after = append(rej, r.Rejected), append(ctx, r.ContextTokens), append(after, r.AfterTokens)
	}
	if !slices.Equal(rej, []string{"", "", RejectCap, "", "", RejectCap}) ||
		!slices.Equal(ctx, []float64{200, 316, 316, 516, 316, 316}) ||
		!slices.Equal(after, []float64{116, 116, 316, 116, 116, 316}) {
		t.Errorf("rejected %q context %v after %v", rej, ctx, after)
	}
	if tl.Compactions != 4 || tl.SummarizerCalls != 4 || tl.Rejected != 2 {
		t.Errorf("totals = %+v", tl)
	}
	// No cap: every step compacts.
	cfg.MaxConsecutive = -1
	tl, _ = Simulate(context.Background(), h, NameSummaryBuffer, cfg, &fixed{text: "summary"})
	if tl.Compactions != 6 || tl.Rejected != 0 {
		t.Errorf("uncapped: %d compactions %d rejected", tl.Compactions, tl.Rejected)
	}
}

func TestSimulateTree(t *testing.T) {
	m := func(id, parent, role string) Message {
		return Message{ID: id, ParentID: parent, Role: role, Content: id}
	}
	tree := lookupTree()
	br, err := SimulatedBranch(tree)
	if err != nil || !slices.Equal(ids(br), []string{"u1", "a1", "u2", "a2b", "u3b", "a3b"}) {
		t.Errorf("branch = %v, %v", ids(br), err)
	}
	if got := Leaves(tree); !slices.Equal(got, []string{"a3", "a3b"}) {
		t.Errorf("leaves = %v", got)
	}
	tl, err := Simulate(context.Background(), tree, NameOnyx, Config{}, nil)
	if err != nil || len(tl.Steps) != 3 || tl.Steps[1].ID != "a2b" || tl.Steps[1].Index != 3 {
		t.Errorf("timeline = %+v, %v", tl, err)
	}
	bad := []struct {
		name string
		tree []Message
		want string
	}{
		{"dangling parent", []Message{m("u1", "", RoleUser), m("a1", "zz", RoleAssistant)}, `message "a1": parent_id "zz" names no message`},
		{"cycle", []Message{m("u1", "a1", RoleUser), m("a1", "u1", RoleAssistant)}, `parent_id cycle`},
		{"duplicate", []Message{m("u1", "", RoleUser), m("u1", "u1", RoleAssistant)}, `duplicate id`},
	}
	for _, tc := range bad {
		if _, err := Simulate(context.Background(), tc.tree, NameOnyx, Config{}, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}

func TestSimulateErrors(t *testing.T) {
	if _, err := Simulate(context.Background(), nil, "nope", Config{}, nil); err == nil || !strings.Contains(err.Error(), "onyx") {
		t.Errorf("unknown strategy: %v", err)
	}
	if _, err := Simulate(context.Background(), nil, NameOnyx, Config{Tokenizer: "gpt2"}, nil); err == nil {
		t.Error("unknown tokenizer accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Simulate(ctx, stagewiseHistory(10), NameOnyx, Config{}, nil); err == nil {
		t.Error("cancelled context ignored")
	}
	tl, err := Simulate(context.Background(), nil, NameStagewise, Config{}, nil)
	if err != nil || tl.Steps == nil || len(tl.Steps) != 0 {
		t.Errorf("empty history: %+v %v", tl, err)
	}
}

func TestTokenizer(t *testing.T) {
	h := []Message{usr("u", "hello world"), asst("a", "hello world")}
	// o200k: "hello world" is 2 tokens; YourGPT adds 4 per message.
	tl, err := Simulate(context.Background(), h, NameSlidingWindow, Config{Tokenizer: "o200k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Steps[0].ContextTokens != 12 {
		t.Errorf("o200k context = %v, want 12", tl.Steps[0].ContextTokens)
	}
	// Onyx keeps its no-overhead rule.
	tl, _ = Simulate(context.Background(), h, NameOnyx, Config{Tokenizer: "cl100k"}, nil)
	if tl.Steps[0].ContextTokens != 4 {
		t.Errorf("cl100k onyx context = %v, want 4", tl.Steps[0].ContextTokens)
	}
	// Every strategy runs with it.
	for _, name := range Names() {
		if _, err := Simulate(context.Background(), benchHistory(200), name, Config{Tokenizer: "o200k", ContextWindow: 8000}, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRuleSummary(t *testing.T) {
	msgs := []Message{
		usr("u1", "Please   fix\nthe login bug."),
		asst("a1", "Looking.", call("c1", "grep", `{"q":"login"}`)),
		tool("t1", "c1", `{"error":"permission denied"}`),
		asst("a2", "I checked.\nThe bug is in auth.ts."),
	}
	got := RuleSummary("Earlier: set up the repo.", msgs, 0)
	want := "Earlier: set up the repo.\n\n" +
		"The user asked: Please fix the login bug.\n" +
		"The assistant concluded: Looking.\n" +
		"The assistant used tools: grep.\n" +
		"Tool grep reported an error: {\"error\":\"permission denied\"}\n" +
		"The assistant concluded: The bug is in auth.ts."
	if got != want {
		t.Errorf("RuleSummary =\n%s\nwant\n%s", got, want)
	}
	// Bounded: the oldest lines go first.
	small := RuleSummary("Earlier: set up the repo.", msgs, 120)
	if len(small) > 120 || !strings.HasPrefix(small, "[") || !strings.HasSuffix(small, "auth.ts.") {
		t.Errorf("bounded = %q", small)
	}
	if RuleSummary("", msgs, 0) != RuleSummary("", msgs, 0) {
		t.Error("not deterministic")
	}
}

// benchHistory is a coding-agent history of n messages: a user request,
// an assistant tool call, its result (2 KB), an assistant answer.
func benchHistory(n int) []Message {
	out := make([]Message, 0, n)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for k := 0; len(out) < n; k++ {
		id := fmt.Sprint(k)
		at := t0.Add(time.Duration(k) * time.Minute)
		out = append(out,
			Message{ID: "u" + id, Role: RoleUser, Content: fmt.Sprintf("Step %d: please update src/module%d.ts so the totals are right. ", k, k) + strings.Repeat("Some context about the task. ", 8), CreatedAt: at},
			Message{ID: "a" + id, Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c" + id, Name: "read", Arguments: fmt.Sprintf(`{"path":"src/module%d.ts"}`, k)}}, CreatedAt: at},
			Message{ID: "t" + id, Role: RoleTool, ToolCallID: "c" + id, Content: strings.Repeat(fmt.Sprintf("export const total%d = compute(items);\n", k), 50), CreatedAt: at},
			Message{ID: "b" + id, Role: RoleAssistant, Content: fmt.Sprintf("I updated src/module%d.ts; the totals are now computed from the items.\n", k) + strings.Repeat("Details of the change. ", 10), CreatedAt: at},
		)
	}
	return out[:n]
}

func TestSimulate2000(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	h := benchHistory(2000)
	for _, name := range Names() {
		start := time.Now()
		tl, err := Simulate(context.Background(), h, name, Config{ContextWindow: 64000}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-16s %v: %d steps, %d compactions, %d rejected, peak %.0f, sent %.0f",
			name, time.Since(start).Round(time.Millisecond), len(tl.Steps), tl.Compactions, tl.Rejected, tl.PeakContext, tl.TokensSent)
	}
}

func BenchmarkSimulate2000(b *testing.B) {
	h := benchHistory(2000)
	for _, tok := range []string{"", "o200k"} {
		for _, name := range Names() {
			b.Run(name+"/"+tok, func(b *testing.B) {
				for b.Loop() {
					if _, err := Simulate(context.Background(), h, name, Config{ContextWindow: 64000, Tokenizer: tok}, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
