package strategy

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Token figures below use the Onyx estimator: ceil(characters/4) per text
// and per tool-call arguments; a tool message costs the placeholder
// (66 characters: 17 tokens).

func TestOnyxShouldCompress(t *testing.T) {
	// Available = window - reserved; limit = int(available * 0.75).
	tests := []struct {
		name     string
		history  float64
		window   int
		reserved int
		want     bool
	}{
		{"1k of 10k with 2k reserved: limit 6000", 1000, 10000, 2000, false},
		{"7k fires", 7000, 10000, 2000, true},
		{"at the limit does not fire (strict)", 6000, 10000, 2000, false},
		{"one over fires", 6001, 10000, 2000, true},
		{"int() truncates: 8001*0.75 = 6000.75 -> 6000", 6000.5, 10001, 2000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := OnyxShouldCompress(tc.history, tc.window, tc.reserved, OnyxTriggerRatio); got != tc.want {
				t.Errorf("OnyxShouldCompress(%v, %d, %d) = %v, want %v", tc.history, tc.window, tc.reserved, got, tc.want)
			}
		})
	}
	// tokens_for_recent = int(7000 * 0.2) = 1400 > 0.
	if got := int(7000 * OnyxRecentRatio); got != 1400 {
		t.Errorf("recent budget at 7k = %d, want 1400", got)
	}
}

// TestOnyxStrategyTrigger: window 10000, reserved 2000, limit 6000.
//
//	u1 2000c=500  a1 2000c=500   step a1: 1000          no
//	u2 4000c=1000 a2 4000c=1000  step a2: 3000          no
//	u3 6000c=1500 a3 6000c=1500  step a3: 6000          no (not > 6000)
//	u4 2000c=500  a4 2000c=500   step a4: 7000          fires
//
// Split at a4: budget int(7000*0.2)=1400; back from a4: 500, +u4 1000,
// +a3 2500 > 1400 stop; recent [u4 a4] starts at USER; older u1..a3.
// Summary (400 chars = 100 tokens): parent u3 (last USER of older),
// cutoff a3; after = 100 + 1000 = 1100; boundary = index of u4 = 6.
func TestOnyxStrategyTrigger(t *testing.T) {
	h := []Message{
		usr("u1", chars(2000)), asst("a1", chars(2000)),
		usr("u2", chars(4000)), asst("a2", chars(4000)),
		usr("u3", chars(6000)), asst("a3", chars(6000)),
		usr("u4", chars(2000)), asst("a4", chars(2000)),
	}
	sum := &fixed{text: chars(400)}
	s := mustNew(t, NameOnyx, Config{ContextWindow: 10000, Reserved: 2000})
	reps := stepAll(t, s, h, sum)
	wantCtx := []float64{1000, 3000, 6000, 7000}
	for k, r := range reps {
		if r.ContextTokens != wantCtx[k] {
			t.Errorf("step %d: context %v, want %v", k+1, r.ContextTokens, wantCtx[k])
		}
		if r.Fired != (k == 3) {
			t.Errorf("step %d: fired %v", k+1, r.Fired)
		}
	}
	last := reps[3]
	if last.Boundary != 6 || last.BoundaryID != "u4" || last.Compacted != 6 || last.AfterTokens != 1100 || last.KeptVerbatim != 2 {
		t.Errorf("compaction: boundary %d %q compacted %d after %v kept %d; want 6 u4 6 1100 2",
			last.Boundary, last.BoundaryID, last.Compacted, last.AfterTokens, last.KeptVerbatim)
	}
	recs := s.(*onyx).Summaries()
	if len(recs) != 1 || recs[0].ParentID != "u3" || recs[0].LastSummarizedID != "a3" || recs[0].Tokens != 100 || recs[0].Summarized != 6 {
		t.Fatalf("records = %+v", recs)
	}
	if got := ids(s.View()); !slices.Equal(got, []string{"summary-1", "u4", "a4"}) {
		t.Errorf("view = %v", got)
	}
	if v := s.View()[0]; v.Role != RoleAssistant || v.Content != chars(400) {
		t.Errorf("summary message = %+v", v)
	}
	// The request summarized only older, and sent recent as context.
	req := sum.reqs[0]
	if got := ids(req.Compacted); !slices.Equal(got, []string{"u1", "a1", "u2", "a2", "u3", "a3"}) {
		t.Errorf("compacted = %v", got)
	}
}

// costs maps message ids to mocked token counts (as Onyx's unit tests do).
func costs(m map[string]float64) func(*Message) float64 {
	return func(msg *Message) float64 { return m[msg.ID] }
}

func TestOnyxSplit(t *testing.T) {
	// 3 is an empty user message: filtered before the split.
	eight := []Message{
		usr("1", "q1"), asst("2", "r2"), usr("3", "  "), asst("4", "r4"),
		usr("5", "q5"), asst("6", "r6"), usr("7", "q7"), asst("8", "r8"),
	}
	eightCost := costs(map[string]float64{"1": 100, "2": 100, "3": 100, "4": 100, "5": 100, "6": 100, "7": 50, "8": 50})
	four := []Message{usr("1", "q"), asst("2", "r"), usr("3", "q"), asst("4", "r")}
	fourCost := costs(map[string]float64{"1": 50, "2": 50, "3": 50, "4": 50})
	tests := []struct {
		name          string
		msgs          []Message
		cutoff        string
		budget        float64
		cost          func(*Message) float64
		older, recent []string
	}{
		// Back from 8: 50, 100, 200, 300 (5 fits: not > 300), 4 -> 400
		// stops. Recent already starts at USER 5.
		{"budget 300: recent starts at USER 5", eight, "", 300, eightCost,
			[]string{"1", "2", "4"}, []string{"5", "6", "7", "8"}},
		// Back from 8: 50, 100, 200; 5 -> 300 > 250 stops. Recent starts at
		// assistant 6: moved forward to USER 7.
		{"budget 250: cut moved forward to USER 7", eight, "", 250, eightCost,
			[]string{"1", "2", "4", "5", "6"}, []string{"7", "8"}},
		// Only the messages after cutoff 2 are considered (3 empty).
		{"only post-cutoff messages", eight, "2", 300, eightCost,
			[]string{"4"}, []string{"5", "6", "7", "8"}},
		// 8 alone (newest, kept even over budget); 7 overflows to older.
		// Recent [8] has no USER: keep from the last USER (7) on.
		{"budget 10: newest kept, last user exchange kept", eight, "", 10, eightCost,
			[]string{"1", "2", "4", "5", "6"}, []string{"7", "8"}},
		// Back from 4: 50; 3 -> 100 > 60 stops. Recent [4] has no USER:
		// keep from the last USER (3) on.
		{"budget 60: no USER in recent tail keeps the last user exchange", four, "", 60, fourCost,
			[]string{"1", "2"}, []string{"3", "4"}},
		{"no USER at all: older empty", []Message{asst("1", "a"), asst("2", "b"), tool("3", "c", "out")}, "", 60,
			costs(map[string]float64{"1": 50, "2": 50, "3": 50}), []string{}, []string{"1", "2", "3"}},
		// 3 is the newest: kept though it is over budget; 2 overflows.
		{"newest over budget", []Message{usr("1", "q"), asst("2", "r"), usr("3", "big")}, "", 100,
			costs(map[string]float64{"1": 50, "2": 50, "3": 500}), []string{"1", "2"}, []string{"3"}},
		{"empty assistant dropped, assistant with tool calls kept",
			[]Message{usr("1", "q"), asst("2", ""), asst("3", "", call("c", "search", "{}")), tool("4", "c", "r"), usr("5", "q"), asst("6", "r")},
			"", 20, costs(map[string]float64{"1": 10, "2": 10, "3": 10, "4": 10, "5": 10, "6": 10}),
			[]string{"1", "3", "4"}, []string{"5", "6"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			older, recent := OnyxSplit(tc.msgs, tc.cutoff, tc.budget, tc.cost)
			got := [2][]string{idsAt(tc.msgs, older), idsAt(tc.msgs, recent)}
			want := [2][]string{tc.older, tc.recent}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("older/recent (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOnyxHistoryTokens(t *testing.T) {
	// u1 400 chars = 100; a1 200 chars = 50 plus two calls whose arguments
	// are 120 chars = 30 each: 100 + 50 + 2*30 = 210.
	args := `{"q":"` + chars(112) + `"}`
	if len(args) != 120 {
		t.Fatal(len(args))
	}
	msgs := []Message{
		usr("u0", chars(4000)),
		usr("u1", chars(400)),
		asst("a1", chars(200), call("c1", "search", args), call("c2", "search", args)),
	}
	if got := OnyxHistoryTokens(msgs[1:], nil, OnyxCost); got != 210 {
		t.Errorf("history = %v, want 210", got)
	}
	// With a summary of 40 tokens whose cutoff is u0: 40 + 210.
	sum := &SummaryRecord{LastSummarizedID: "u0", Tokens: 40}
	if got := OnyxHistoryTokens(msgs, sum, OnyxCost); got != 250 {
		t.Errorf("history with summary = %v, want 250", got)
	}
	// A tool response costs the placeholder: ceil(66/4) = 17.
	msgs = append(msgs, tool("t1", "c1", chars(9000)))
	if got := OnyxHistoryTokens(msgs, sum, OnyxCost); got != 267 {
		t.Errorf("history with a tool response = %v, want 267", got)
	}
}

func TestOnyxSummaryParent(t *testing.T) {
	if got := OnyxSummaryParent([]Message{usr("u1", "q"), asst("a1", "r"), usr("u2", "q"), asst("a2", "r")}, "tail"); got != "u2" {
		t.Errorf("parent = %q, want u2 (the last USER)", got)
	}
	if got := OnyxSummaryParent([]Message{asst("a1", "r"), asst("a2", "r")}, "a9"); got != "a9" {
		t.Errorf("parent = %q, want the tail a9", got)
	}
	// Through the strategy: window 10000, reserved 2000, limit 6000.
	//   a0 20000c=5000   step a0: 5000  no
	//   a1 4000c=1000    step a1: 6000  no
	//   u2 400c=100, a3 4000c=1000: step a3: 7100 fires
	// Budget int(7100*0.2) = 1420: a3 1000, +u2 1100, +a1 2100 stops;
	// recent [u2 a3]; older [a0 a1] has no USER: parent = the tail a3.
	h := []Message{asst("a0", chars(20000)), asst("a1", chars(4000)), usr("u2", chars(400)), asst("a3", chars(4000))}
	s := mustNew(t, NameOnyx, Config{ContextWindow: 10000, Reserved: 2000})
	stepAll(t, s, h, &fixed{text: "a summary of the greeting"})
	recs := s.(*onyx).Summaries()
	if len(recs) != 1 || recs[0].ParentID != "a3" || recs[0].LastSummarizedID != "a1" {
		t.Fatalf("records = %+v, want parent a3 cutoff a1", recs)
	}
}

// The tree of the lookup tests:
//
//	u1 - a1 - u2 - a2  - u3  - a3    branch A (leaf a3)
//	            \- a2b - u3b - a3b   branch B: the answer a2 regenerated
func lookupTree() []Message {
	m := func(id, parent, role string) Message {
		return Message{ID: id, ParentID: parent, Role: role, Content: id}
	}
	return []Message{
		m("u1", "", RoleUser), m("a1", "u1", RoleAssistant), m("u2", "a1", RoleUser),
		m("a2", "u2", RoleAssistant), m("u3", "a2", RoleUser), m("a3", "u3", RoleAssistant),
		m("a2b", "u2", RoleAssistant), m("u3b", "a2b", RoleUser), m("a3b", "u3b", RoleAssistant),
	}
}

func TestFindSummaryForBranch(t *testing.T) {
	recs := []SummaryRecord{
		{ID: "S1", ParentID: "u2", LastSummarizedID: "a1", Seq: 1},   // both branches
		{ID: "S2", ParentID: "u3", LastSummarizedID: "a2", Seq: 2},   // A only
		{ID: "S3", ParentID: "u3b", LastSummarizedID: "a2b", Seq: 3}, // B only, newest
	}
	branchA := []string{"u1", "a1", "u2", "a2", "u3", "a3"}
	branchB := []string{"u1", "a1", "u2", "a2b", "u3b", "a3b"}
	name := func(r *SummaryRecord) string {
		if r == nil {
			return ""
		}
		return r.ID
	}
	tests := []struct {
		name             string
		branch           []string
		byParent, byCuto string
	}{
		{"A takes S2, ignores B's newer S3", branchA, "S2", "S2"},
		{"B takes S3", branchB, "S3", "S3"},
		// S1's parent u2 is not on [u1 a1]; its cutoff a1 is.
		{"before u2: none by parent, S1 by cutoff", []string{"u1", "a1"}, "", "S1"},
		{"other branch only", []string{"x"}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := name(FindSummaryForBranch(recs, tc.branch)); got != tc.byParent {
				t.Errorf("by parent = %q, want %q", got, tc.byParent)
			}
			if got := name(FindSummaryByCutoff(recs, tc.branch)); got != tc.byCuto {
				t.Errorf("by cutoff = %q, want %q", got, tc.byCuto)
			}
		})
	}
	// Newest is by time first, then Seq.
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	timed := []SummaryRecord{
		{ID: "late", ParentID: "u2", CreatedAt: t0.Add(time.Hour), Seq: 1},
		{ID: "early", ParentID: "u2", CreatedAt: t0, Seq: 2},
	}
	if got := name(FindSummaryForBranch(timed, branchA)); got != "late" {
		t.Errorf("newest by time = %q, want late", got)
	}
}

func TestBranchLookupDiffs(t *testing.T) {
	// S4 was written on branch A: last USER u2 (parent), cutoff a2. On B
	// (a2 regenerated as a2b) its parent u2 is still there, so the parent
	// lookup takes it although it covers a2, which B does not have; the
	// cutoff lookup takes S3. On A both take S4.
	recs := []SummaryRecord{
		{ID: "S1", ParentID: "u2", LastSummarizedID: "a1", Seq: 1},
		{ID: "S2", ParentID: "u3", LastSummarizedID: "a2", Seq: 2},
		{ID: "S3", ParentID: "u3b", LastSummarizedID: "a2b", Seq: 3},
		{ID: "S4", ParentID: "u2", LastSummarizedID: "a2", Seq: 4},
	}
	diffs, err := BranchLookupDiffs(lookupTree(), recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != 1 || diffs[0].Leaf != "a3b" || diffs[0].ByParent.ID != "S4" || diffs[0].ByCutoff.ID != "S3" {
		t.Fatalf("diffs = %+v, want one on a3b: S4 by parent, S3 by cutoff", diffs)
	}
}

// TestOnyxTree runs a session with two regenerated answers. Window 1000,
// reserved 0: limit 750. Creation order = tree order.
//
//	u1 2800c=700, a1 200c=50     step a1:  750, no
//	u2 40c=10, a2 400c=100       step a2:  860, fires
//	  budget int(860*0.2)=172: a2 100, +u2 110, +a1 160, +u1 860 stops;
//	  recent starts at a1: moved to u2. older [u1 a1]: summary-1, parent
//	  u1, cutoff a1 (80 chars = 20 tokens).
//	a2b 400c=100 (child of u2)   both lookups find summary-1 (u1 and a1 are
//	  on the branch): 20 + u2 10 + a2b 100 = 130
//	a1b 400c=100 (child of u1)   by parent: summary-1 (u1 is on the
//	  branch) although it covers a1, which this branch does not have:
//	  20 + a1b 100 = 120. By cutoff: none (a1 is not on the branch): u1
//	  700 + a1b 100 = 800 fires; budget 160: a1b, then u1 overflows;
//	  recent [a1b] has no USER: recent from u1 on, older empty: skipped.
func TestOnyxTree(t *testing.T) {
	m := func(id, parent, role string, n int) Message {
		return Message{ID: id, ParentID: parent, Role: role, Content: chars(n)}
	}
	tree := []Message{
		m("u1", "", RoleUser, 2800), m("a1", "u1", RoleAssistant, 200),
		m("u2", "a1", RoleUser, 40), m("a2", "u2", RoleAssistant, 400),
		m("a2b", "u2", RoleAssistant, 400),
		m("a1b", "u1", RoleAssistant, 400),
	}
	common := []OnyxTreeStep{
		{ID: "a1", Depth: 2, HistoryTokens: 750},
		{ID: "a2", Depth: 4, HistoryTokens: 860, Fired: true, Written: "summary-1", Summarized: 2},
		{ID: "a2b", Depth: 4, Active: "summary-1", HistoryTokens: 130},
	}
	lastStep := map[bool]OnyxTreeStep{
		false: {ID: "a1b", Depth: 2, Active: "summary-1", HistoryTokens: 120},
		true:  {ID: "a1b", Depth: 2, HistoryTokens: 800, Fired: true, Note: "everything after the cutoff is recent: nothing to summarize"},
	}
	for _, byCutoff := range []bool{false, true} {
		run, err := OnyxTree(context.Background(), tree, Config{ContextWindow: 1000}, &fixed{text: chars(80)}, byCutoff)
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Summaries) != 1 || run.Summaries[0].ParentID != "u1" || run.Summaries[0].LastSummarizedID != "a1" {
			t.Fatalf("summaries = %+v", run.Summaries)
		}
		want := append(slices.Clone(common), lastStep[byCutoff])
		if diff := cmp.Diff(want, run.Steps); diff != "" {
			t.Errorf("byCutoff=%v steps (-want +got):\n%s", byCutoff, diff)
		}
		d, err := BranchLookupDiffs(tree, run.Summaries)
		if err != nil || len(d) != 1 || d[0].Leaf != "a1b" || d[0].ByParent == nil || d[0].ByParent.ID != "summary-1" || d[0].ByCutoff != nil {
			t.Errorf("diffs = %+v, %v", d, err)
		}
	}
}

func TestOnyxConvert(t *testing.T) {
	tests := []struct {
		msg  Message
		want *Turn
	}{
		{usr("u", "hello"), &Turn{RoleUser, "hello"}},
		{asst("a", "an answer"), &Turn{RoleAssistant, "an answer"}},
		{asst("a", "text dropped", call("c", "search", "{}")), &Turn{RoleAssistant, "[Used tools: search]"}},
		{asst("a", "", call("c", "search", "{}"), call("d", "read", "{}")), &Turn{RoleAssistant, "[Used tools: search, read]"}},
		{tool("t", "c", "results"), nil},
		{usr("u", "   "), nil},
		{asst("a", ""), nil},
		{sysm("s", "system"), nil},
	}
	for _, tc := range tests {
		got, ok := OnyxConvert(&tc.msg)
		if (tc.want == nil) == ok || (ok && got != *tc.want) {
			t.Errorf("OnyxConvert(%+v) = %+v, %v; want %+v", tc.msg, got, ok, tc.want)
		}
	}
}

func TestOnyxTurnsLayout(t *testing.T) {
	older := []Message{usr("u1", "hi"), asst("a1", "", call("c1", "search", `{"q":"x"}`)), tool("t1", "c1", "found"), asst("a2", "")}
	recent := []Message{usr("u2", "next"), asst("a3", "answer")}
	want := []Turn{
		{RoleSystem, OnyxSystemPrompt},
		{RoleUser, "hi"},
		{RoleAssistant, "[Used tools: search]"},
		{RoleUser, OnyxCutoffMarker}, // the marker is its own turn
		{RoleUser, "next"},
		{RoleAssistant, "answer"},
		{RoleUser, OnyxReminder}, // the reminder is last
	}
	if diff := cmp.Diff(want, OnyxTurns(older, recent, "")); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	got := OnyxTurns(older, recent, "EARLIER SUMMARY")
	if sys := got[0].Content; sys != OnyxSystemPrompt+OnyxProgressiveHeader+"EARLIER SUMMARY"+OnyxProgressiveFooter {
		t.Errorf("progressive system prompt = %q", sys)
	}
	if got[len(got)-1].Content != OnyxProgressiveReminder || len(got) != len(want) {
		t.Errorf("progressive turns = %+v", got)
	}
}

// TestOnyxViewAndProgressive: window 1000, reserved 0, limit 750.
//
//	u1 2804c=701, a1 40c=10                        step a1: 711
//	u2 40c=10, a2 (search, args 9c=3, no text)      step a2: 724
//	t2 4000c (placeholder 17), a3 40c=10            step a3: 751 fires
//
// Budget int(751*0.2)=150: a3 10, t2 27, a2 30, u2 40, a1 50, u1 751 stops;
// recent starts at a1: moved forward to u2. Older [u1 a1]: parent u1,
// cutoff a1. Summary 40c = 10: after = 10 + 40 = 50. The view replays t2
// as the placeholder.
func TestOnyxViewAndProgressive(t *testing.T) {
	h := []Message{
		usr("u1", chars(2804)), asst("a1", chars(40)),
		usr("u2", chars(40)), asst("a2", "", call("c2", "search", `{"q":"a"}`)),
		tool("t2", "c2", chars(4000)), asst("a3", chars(40)),
	}
	sum := &fixed{text: chars(40)}
	s := mustNew(t, NameOnyx, Config{ContextWindow: 1000})
	reps := stepAll(t, s, h, sum)
	got := []float64{reps[0].ContextTokens, reps[1].ContextTokens, reps[2].ContextTokens, reps[2].AfterTokens}
	if !slices.Equal(got, []float64{711, 724, 751, 50}) {
		t.Errorf("context figures = %v, want [711 724 751 50]", got)
	}
	v := s.View()
	if !slices.Equal(ids(v), []string{"summary-1", "u2", "a2", "t2", "a3"}) || v[3].Content != OnyxToolPlaceholder {
		t.Errorf("view = %+v", v)
	}
	if h[4].Content != chars(4000) {
		t.Error("the history was modified")
	}
	// The first request is not progressive; its User is the joined turns.
	req := sum.reqs[0]
	turns := OnyxTurns(h[:2], h[2:6], "")
	if req.System != OnyxSystemPrompt || req.User != JoinTurns(turns[1:]) {
		t.Errorf("request = %q / %q", req.System, req.User)
	}
	// Grow the history until it fires again: the second request carries
	// the first summary in the system prompt.
	for k := 0; k < 20 && len(sum.reqs) < 2; k++ {
		h = append(h, usr("x"+string(rune('a'+k)), chars(400)), asst("y"+string(rune('a'+k)), chars(400)))
		if _, err := s.Step(context.Background(), h, len(h)-1, sum); err != nil {
			t.Fatal(err)
		}
	}
	if len(sum.reqs) < 2 {
		t.Fatal("no second compaction")
	}
	if r := sum.reqs[1]; !strings.HasSuffix(r.System, OnyxProgressiveHeader+chars(40)+OnyxProgressiveFooter) || r.Previous != chars(40) {
		t.Errorf("second request system = %q", r.System)
	}
	// Only messages after the first cutoff were summarized again.
	for _, m := range sum.reqs[1].Compacted {
		if m.ID == "u1" || m.ID == "a1" {
			t.Errorf("message %s summarized twice", m.ID)
		}
	}
}
