package strategy

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/boundary"
	"github.com/compactlab/compact/internal/estimate"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
)

// stagewiseHistory is n generic messages m0..m{n-1}, users at even
// indices, assistants at odd ones, each 36 characters: the generic
// stagewise estimate ceil(36/4) + 4 = 13 tokens.
func stagewiseHistory(n int) []Message {
	h := make([]Message, n)
	for k := range h {
		role := RoleUser
		if k%2 == 1 {
			role = RoleAssistant
		}
		h[k] = Message{ID: fmt.Sprint("m", k), Role: role, Content: chars(36)}
	}
	return h
}

// TestStagewiseChained: window 1000, base agent: trigger > 650 (0.65 ×
// 1000), kept budget min(floor(1000×0.2), 40000) = 200, floor max(5, 10)
// = 10. Messages 13 tokens; the briefing 120 characters, so the boundary
// message carrying it is ceil((36+120)/4)+4 = 43 tokens.
//
//	step at 49: 50 × 13 = 650, not above
//	step at 51: 52 × 13 = 676 fires. Walk over 52 × 13: ten messages
//	  (130) reach the floor first: boundary 42; m0..m41 summarized;
//	  view [m42+briefing, m43..m51]: 43 + 9×13 = 160
//	step at 87: 43 + 45×13 = 628, not above
//	step at 89: 43 + 47×13 = 654 fires. Walk over [43, 13×47]: floor at
//	  view index 38 = m80; m42..m79 summarized from the first briefing on;
//	  after 160 again.
func TestStagewiseChained(t *testing.T) {
	h := stagewiseHistory(90)
	brief := "B" + chars(119)
	sum := &fixed{text: brief}
	tl, err := Simulate(context.Background(), h, NameStagewise, Config{ContextWindow: 1000}, sum)
	if err != nil {
		t.Fatal(err)
	}
	byIndex := map[int]StepReport{}
	for _, r := range tl.Steps {
		byIndex[r.Index] = r
	}
	checks := []struct {
		index           int
		ctx, after      float64
		fired           bool
		boundary, compN int
	}{
		{49, 650, 650, false, -1, 0},
		{51, 676, 160, true, 42, 42},
		{87, 628, 628, false, -1, 0},
		{89, 654, 160, true, 80, 38},
	}
	for _, c := range checks {
		r := byIndex[c.index]
		if r.ContextTokens != c.ctx || r.AfterTokens != c.after || r.Fired != c.fired || r.Boundary != c.boundary || r.Compacted != c.compN {
			t.Errorf("step at %d: ctx %v after %v fired %v boundary %d compacted %d; want %v %v %v %d %d",
				c.index, r.ContextTokens, r.AfterTokens, r.Fired, r.Boundary, r.Compacted, c.ctx, c.after, c.fired, c.boundary, c.compN)
		}
	}
	if tl.Compactions != 2 || tl.SummarizerCalls != 2 || tl.Rejected != 0 || tl.KeptAtEnd != 10 || tl.PeakContext != 676 {
		t.Errorf("totals = %+v", tl)
	}

	// The walk's boundaries are boundary.Walk's on the same estimates.
	p, _ := boundary.AgentParams("e3e", "base")
	window := 1000
	first := make([]float64, 52)
	for k := range first {
		first[k] = 13
	}
	if w := boundary.Walk(first, &window, p); *w.BoundaryIndex != 42 {
		t.Errorf("first walk: %d", *w.BoundaryIndex)
	}
	second := append([]float64{43}, first[:47]...)
	if w := boundary.Walk(second, &window, p); 42+*w.BoundaryIndex != 80 {
		t.Errorf("second walk: %d", *w.BoundaryIndex)
	}

	// Requests: the first has no previous briefing; the second serializes
	// from the first briefing on and sizes its hint by it.
	pack, _ := prompt.Builtin("default")
	r1, r2 := sum.reqs[0], sum.reqs[1]
	if r1.BoundaryID != "m42" || r1.Previous != "" || len(r1.Compacted) != 42 || r1.System != pack.System() ||
		r1.User != pack.UserMessage(r1.CompactHistory, 0, "en-US") || r1.TargetChars != 30000 {
		t.Errorf("first request: boundary %s previous %q compacted %d", r1.BoundaryID, r1.Previous, len(r1.Compacted))
	}
	if !strings.HasPrefix(r1.CompactHistory, "<user>"+chars(36)+"</user>\n<assistant>") {
		t.Errorf("first compact history = %.60q", r1.CompactHistory)
	}
	wantPrefix := "<previous-chat-history>" + brief + "</previous-chat-history>\n<user>" + chars(36) + "</user>"
	if r2.BoundaryID != "m80" || r2.Previous != brief || len(r2.Compacted) != 38 || r2.Compacted[0].ID != "m42" ||
		!strings.HasPrefix(r2.CompactHistory, wantPrefix) {
		t.Errorf("second request: boundary %s previous %.10q compacted %d, compact %.80q", r2.BoundaryID, r2.Previous, len(r2.Compacted), r2.CompactHistory)
	}
	if r2.User != pack.UserMessage(r2.CompactHistory, 120, "en-US") || !strings.Contains(r2.User, "120") {
		t.Errorf("second request hint does not size by the previous briefing")
	}
}

func TestStagewiseBriefingOnBoundary(t *testing.T) {
	h := stagewiseHistory(52)
	s := mustNew(t, NameStagewise, Config{ContextWindow: 1000})
	brief := "B" + chars(119)
	stepAll(t, s, h, &fixed{text: brief})
	v := s.View()
	if len(v) != 10 || v[0].ID != "m42" || v[0].Content != "<memory><![CDATA["+brief+"]]></memory>\n\n"+chars(36) {
		t.Fatalf("view[0] = %+v (len %d)", v[0], len(v))
	}
	if h[42].Content != chars(36) {
		t.Error("the history was modified")
	}
	// The generic estimate counts the briefing the message carries.
	if got, _ := StagewiseEstimate(&h[42], brief, "", ""); got != 43 {
		t.Errorf("carrier estimate = %v, want 43", got)
	}
}

// rawMsg builds a stagewise message the way extract decodes one.
func rawMsg(t *testing.T, js string) Message {
	t.Helper()
	v, err := history.ParseJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	return FromStagewise([]history.Value{v}, false)[0]
}

func TestStagewiseRaw(t *testing.T) {
	// A stored briefing on a database message is ignored by the
	// simulation: the estimate is that of the message without it, plus
	// the briefing the simulation places.
	m := rawMsg(t, `{"id":"r1","role":"user","parts":[{"type":"text","text":"User turn 2"}],"metadata":{"partsMetadata":[],"compressedHistory":"OLD BRIEFING"}}`)
	if m.StoredSummary == nil || *m.StoredSummary != "OLD BRIEFING" || m.Content != "User turn 2" {
		t.Fatalf("message = %+v", m)
	}
	// Spec check: "User turn 2" is ceil(411/4) = 103 ...
	if got, err := StagewiseEstimate(&m, "", "", ""); err != nil || got != 103 {
		t.Errorf("estimate = %v, %v; want 103", got, err)
	}
	// ... and 126 with a 91-character summary.
	if got, _ := StagewiseEstimate(&m, chars(91), "", ""); got != 126 {
		t.Errorf("estimate with a 91-char briefing = %v, want 126", got)
	}
	raw, _ := history.ParseJSON(`{"id":"r1","role":"user","parts":[{"type":"text","text":"User turn 2"}],"metadata":null}`)
	if want, _ := estimate.MessageTokens(raw); want != 103 {
		t.Errorf("upstream estimate = %v", want)
	}
}

func TestFromStagewise(t *testing.T) {
	v, err := history.ParseJSON(`{"id":"a1","role":"assistant","parts":[
		{"type":"step-start"},
		{"type":"text","text":"Reading it."},
		{"type":"tool-read","toolCallId":"c1","state":"output-available","input":{"path":"src/a.ts"},"output":{"content":"x"}},
		{"type":"tool-grepSearch","toolCallId":"c2","state":"output-error","input":{"query":"foo"},"errorText":"bad regex"},
		{"type":"tool-glob","toolCallId":"c3","state":"input-streaming"},
		{"type":"text","text":"Done."}],"metadata":null}`)
	if err != nil {
		t.Fatal(err)
	}
	got := FromStagewise([]history.Value{v}, true)
	if len(got) != 3 {
		t.Fatalf("got %d messages", len(got))
	}
	a := got[0]
	if a.Content != "Reading it.\nDone." || len(a.ToolCalls) != 2 || a.ToolCalls[0] != (ToolCall{ID: "c1", Name: "read", Arguments: `{"path":"src/a.ts"}`}) {
		t.Errorf("assistant = %+v", a)
	}
	if got[1].ID != "a1#c1" || got[1].Content != `{"content":"x"}` || !got[1].Synthetic || got[1].ToolCallID != "c1" {
		t.Errorf("first result = %+v", got[1])
	}
	if got[2].Content != "Error: bad regex" {
		t.Errorf("second result = %+v", got[2])
	}
	// Stagewise skips the synthetic messages: same timeline as without.
	h := stagewiseHistory(60)
	var withTools []Message
	for k := range h {
		withTools = append(withTools, h[k])
		if h[k].Role == RoleAssistant {
			withTools = append(withTools, Message{ID: h[k].ID + "#t", Role: RoleTool, Content: chars(5000), Synthetic: true})
		}
	}
	a1, _ := Simulate(context.Background(), h, NameStagewise, Config{ContextWindow: 1000}, &fixed{text: chars(120)})
	a2, _ := Simulate(context.Background(), withTools, NameStagewise, Config{ContextWindow: 1000}, &fixed{text: chars(120)})
	if a1.TokensSent != a2.TokensSent || a1.Compactions != a2.Compactions {
		t.Errorf("synthetic messages changed the stagewise run: %v/%v vs %v/%v", a1.TokensSent, a1.Compactions, a2.TokensSent, a2.Compactions)
	}
}

// TestRecorded: the boundary at m42 carries a stored briefing (120
// characters, so the figures are TestStagewiseChained's): the recorded
// summarizer uses it; the second boundary (m80) has none: a 2000-character
// placeholder.
func TestRecorded(t *testing.T) {
	h := stagewiseHistory(90)
	stored := "R" + chars(119)
	h[42].StoredSummary = &stored
	tl, err := Simulate(context.Background(), h, NameStagewise, Config{ContextWindow: 1000}, Recorded{})
	if err != nil {
		t.Fatal(err)
	}
	var sums []string
	for _, r := range tl.Steps {
		if r.Summary != "" {
			sums = append(sums, r.Summary)
		}
	}
	if len(sums) != 2 || sums[0] != stored || sums[1] != Placeholder(38) {
		t.Fatalf("summaries = %.30q", sums)
	}
	if n := len(Placeholder(38)); n != PlaceholderChars || !strings.HasPrefix(Placeholder(38), "[placeholder summary of 38 messages]") {
		t.Errorf("placeholder length %d", n)
	}
}

func TestStagewiseBuiltin(t *testing.T) {
	// The builtin summarizer writes a real briefing through
	// internal/briefing; chained compactions carry it on.
	h := stagewiseHistory(200)
	for k := range h {
		if k%2 == 0 {
			h[k].Content = fmt.Sprintf("Please change [](path:src/f%d.ts) so the button is blue.", k)
		} else {
			h[k].Content = "I changed it."
			h[k].ToolCalls = []ToolCall{{ID: fmt.Sprint("c", k), Name: "read", Arguments: fmt.Sprintf(`{"path":"src/f%d.ts"}`, k-1)}}
		}
	}
	tl, err := Simulate(context.Background(), h, NameStagewise, Config{ContextWindow: 1500, TargetChars: 2000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Compactions < 2 || tl.FinalSummary == "" || !strings.Contains(tl.FinalSummary, "##") {
		t.Errorf("compactions %d, final summary %.80q", tl.Compactions, tl.FinalSummary)
	}
	for _, r := range tl.Steps {
		if math.IsNaN(r.ContextTokens) {
			t.Fatal("NaN")
		}
	}
}
