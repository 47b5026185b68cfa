package strategy

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

// Hand-built histories for the strategies the agents use since 2025. With
// the plain estimator (ceil(characters / 4) + 4), a text of 36 characters
// is 13 tokens and one of 396 is 103; ClearedPlaceholder is 14.

// text13 has 36 characters: 13 tokens.
const text13 = "abcdefghijklmnopqrstuvwxyz0123456789"

// out103 is a tool output of 396 characters in 3 lines (103 tokens).
var out103 = strings.Repeat("x", 131) + "\n" + strings.Repeat("y", 131) + "\n" + strings.Repeat("z", 132)

// rounds is u0, then per k: a_k (13 tokens, no call), t_k (103), and, when
// closing, b_k (13).
func rounds(n int, closing bool) []Message {
	h := []Message{usr("u0", text13)}
	for k := 0; k < n; k++ {
		id := fmt.Sprint(k)
		h = append(h, asst("a"+id, text13), tool("t"+id, "c"+id, out103))
		if closing {
			h = append(h, asst("b"+id, text13))
		}
	}
	return h
}

// turns is, per k: u_k (13), a_k, t_k (103), b_k (13): 142 tokens a turn
// when a_k makes no call (13 tokens; name nil), more with the JSON of a
// call to tool name(k).
func turns(n int, name func(k int) string) []Message {
	var h []Message
	for k := 0; k < n; k++ {
		id := fmt.Sprint(k)
		a := asst("a"+id, text13)
		if name != nil {
			a.ToolCalls = []ToolCall{call("c"+id, name(k), `{}`)}
		}
		h = append(h, usr("u"+id, text13), a, tool("t"+id, "c"+id, out103), asst("b"+id, text13))
	}
	return h
}

func byIndex(reps []StepReport) map[int]StepReport {
	out := map[int]StepReport{}
	for _, r := range reps {
		out[r.Index] = r
	}
	return out
}

func indexOf(h []Message, id string) int {
	for k := range h {
		if h[k].ID == id {
			return k
		}
	}
	panic(id)
}

func at(h []Message, ids ...string) []int {
	out := make([]int, len(ids))
	for k, id := range ids {
		out[k] = indexOf(h, id)
	}
	return out
}

func TestTokenFigures(t *testing.T) {
	m := tool("t", "c", out103)
	if got := plainTokens(nil, text13, &m); got != 13 {
		t.Errorf("36 characters: %v tokens", got)
	}
	if got := plainTokens(nil, out103, &m); got != 103 || countLines(out103) != 3 {
		t.Errorf("out103: %v tokens, %d lines", got, countLines(out103))
	}
	if got := plainText(nil, ClearedPlaceholder); got != 14 {
		t.Errorf("ClearedPlaceholder: %v tokens", got)
	}
	if MaskPlaceholder(out103) != "Old environment output: (3 lines omitted)" || MaskPlaceholder("a\nb\n") != "Old environment output: (2 lines omitted)" {
		t.Errorf("placeholder %q", MaskPlaceholder(out103))
	}
}

// TestObservationMasking: the newest 10 tool results stay whole, every
// older one is masked at the first step that sees it old; a result
// shorter than its placeholder stays.
//
// At the step of a_k the view holds t_0..t_{k-1}: a_11 masks t_0, a_12
// t_1, a_13 would mask t_2 but it is "ok" (shorter than the placeholder),
// so nothing happens, and the last step (b, after t_13) masks t_3.
func TestObservationMasking(t *testing.T) {
	h := rounds(14, false)
	h[indexOf(h, "t2")].Content = "ok"
	h = append(h, asst("b", text13))
	tl, err := Simulate(context.Background(), h, NameObservationMasking, Config{SystemOverhead: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tl.Steps {
		if s.Compacted > 0 {
			got = append(got, fmt.Sprintf("%s:%v", s.ID, idsAt(h, s.Replaced)))
		}
	}
	if want := []string{"a11:[t0]", "a12:[t1]", "b:[t3]"}; !slices.Equal(got, want) {
		t.Errorf("compactions %v, want %v", got, want)
	}
	st := byIndex(tl.Steps)[indexOf(h, "a11")]
	// Before t_0: the overhead, u0 and a_0.
	if st.KeptPrefix != 100+13+13 || st.ContextTokens-st.AfterTokens != 103-plainText(nil, MaskPlaceholder(out103)) {
		t.Errorf("a11: kept prefix %v, context %v after %v", st.KeptPrefix, st.ContextTokens, st.AfterTokens)
	}
	last := tl.Steps[len(tl.Steps)-1]
	if last.RawTokens != 100+13*16+103*13+plainText(nil, "ok") || tl.TokensRaw <= tl.TokensSent {
		t.Errorf("raw %v (sent %v, raw total %v)", last.RawTokens, tl.TokensSent, tl.TokensRaw)
	}
	// Kept: every message, three of them masked.
	if last.KeptVerbatim != len(h) {
		t.Errorf("kept %d of %d", last.KeptVerbatim, len(h))
	}
}

// TestToolClearing: trigger 600, keep 3. The context at a_k (u0, then
// a_j t_j for j < k, then a_k) is 26 + 116k: a_5 (606) fires and clears
// t_0, t_1 (89 tokens each: 428 left); a_6 544 no; a_7 660 clears t_2,
// t_3; a_8 598 no; a_9 714 clears t_4, t_5; a_10 652 clears t_6.
func TestToolClearing(t *testing.T) {
	h := rounds(11, false)
	cfg := Config{Extra: map[string]float64{"trigger_tokens": 600}}
	tl, err := Simulate(context.Background(), h, NameToolClearing, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tl.Steps {
		if s.Fired {
			got = append(got, fmt.Sprintf("%s %v→%v %v", s.ID, s.ContextTokens, s.AfterTokens, idsAt(h, s.Replaced)))
		}
	}
	want := []string{"a5 606→428 [t0 t1]", "a7 660→482 [t2 t3]", "a9 714→536 [t4 t5]", "a10 652→563 [t6]"}
	if !slices.Equal(got, want) {
		t.Errorf("fired\n%q\nwant\n%q", got, want)
	}
	if st := byIndex(tl.Steps)[indexOf(h, "a7")]; st.KeptPrefix != 13+13+14+13+14+13 {
		t.Errorf("a7: kept prefix %v (u0 a0 [t0] a1 [t1] a2)", st.KeptPrefix)
	}
	// clear_at_least 200: a_5 would free 178, so a_6 (722) clears t_0..t_2.
	cfg.Extra["clear_at_least"] = 200
	tl, _ = Simulate(context.Background(), h, NameToolClearing, cfg, nil)
	st := byIndex(tl.Steps)
	if a5, a6 := st[indexOf(h, "a5")], st[indexOf(h, "a6")]; !a5.Fired || a5.Compacted != 0 || !strings.Contains(a5.Note, "178") ||
		!slices.Equal(idsAt(h, a6.Replaced), []string{"t0", "t1", "t2"}) {
		t.Errorf("clear_at_least: a5 %+v\na6 %+v", a5, a6)
	}
	// Claude Code's microcompact keeps 5: at a_5 nothing is old enough.
	cfg.Extra = map[string]float64{"trigger_tokens": 600, "keep_results": 5}
	tl, _ = Simulate(context.Background(), h, NameToolClearing, cfg, nil)
	st = byIndex(tl.Steps)
	if a5, a6 := st[indexOf(h, "a5")], st[indexOf(h, "a6")]; a5.Compacted != 0 || !slices.Equal(idsAt(h, a6.Replaced), []string{"t0"}) {
		t.Errorf("keep 5: a5 %+v\na6 %+v", a5, a6)
	}
	// The default trigger is 100,000, or half a smaller window.
	s := mustNew(t, NameToolClearing, Config{ContextWindow: 6000}).(*toolClearing)
	if s.trigger != 3000 || mustNew(t, NameToolClearing, Config{}).(*toolClearing).trigger != 64000 ||
		mustNew(t, NameToolClearing, Config{ContextWindow: 1000000}).(*toolClearing).trigger != 100000 {
		t.Errorf("default triggers")
	}
}

// TestPruneSummarizePrunes: protect 250, minimum 150; each tool output is
// 103 tokens. The last two user turns are never pruned: at turn m the
// walk sees t_0..t_{m-2}. Turn 4: t_0..t_2 (309): t_0 alone would go,
// 103 is not over 150. Turn 5 (a_5): t_3, t_2 stay (206), t_1 and t_0 go
// (206 > 150). Turn 6: t_4, t_3 stay, t_2 alone. Turn 7 (a_7): t_2, t_3
// go. With t_1 a skill's output (never pruned, not counted), turn 6
// (a_6) prunes t_2 and t_0.
func TestPruneSummarizePrunes(t *testing.T) {
	cfg := Config{Extra: map[string]float64{"prune_protect": 250, "prune_minimum": 150}}
	prunes := func(h []Message) []string {
		t.Helper()
		tl, err := Simulate(context.Background(), h, NamePruneSummarize, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range tl.Steps {
			if s.Compacted > 0 {
				got = append(got, fmt.Sprintf("%s %v", s.ID, idsAt(h, s.Replaced)))
				if s.SummarizerCalled {
					t.Errorf("%s: summarized", s.ID)
				}
			}
		}
		return got
	}
	read := func(int) string { return "read" }
	h := turns(8, read)
	if got, want := prunes(h), []string{"a5 [t0 t1]", "a7 [t2 t3]"}; !slices.Equal(got, want) {
		t.Errorf("pruned %q, want %q", got, want)
	}
	skill := func(k int) string {
		if k == 1 {
			return "skill"
		}
		return "read"
	}
	if got, want := prunes(turns(8, skill)), []string{"a6 [t0 t2]"}; !slices.Equal(got, want) {
		t.Errorf("with a skill: pruned %q, want %q", got, want)
	}
	s := mustNew(t, NamePruneSummarize, Config{ContextWindow: 200000}).(*pruneSummarize)
	if s.usable != 148000 || s.protect != 40000 || s.minimum != 20000 || s.tail != 15000 {
		t.Errorf("defaults at 200,000: usable %v protect %v minimum %v tail %v", s.usable, s.protect, s.minimum, s.tail)
	}
}

// TestPruneSummarizeSummarizes: window 1000, reserved 200 (usable 800),
// tail 300, no pruning. A turn (u, a, t, b) is 142 tokens; b_5 (852)
// reaches 800. The tail: turn 5 (142) and turn 4 (284) fit; turn 3 does
// not, and inside it only b_3 (13) fits the 16 left. So u_0..t_3 are
// summarized and the view is the summary, b_3, turns 4 and 5.
func TestPruneSummarizeSummarizes(t *testing.T) {
	h := turns(6, nil)
	cfg := Config{ContextWindow: 1000, Reserved: 200, Extra: map[string]float64{"tail_tokens": 300, "prune_protect": 1e9}}
	sum := &fixed{text: text13}
	s := mustNew(t, NamePruneSummarize, cfg)
	reps := stepAll(t, s, h, sum)
	var fired []StepReport
	for _, r := range reps {
		if r.Fired {
			fired = append(fired, r)
		}
	}
	if len(fired) != 1 || fired[0].Index != indexOf(h, "b5") || fired[0].ContextTokens != 852 {
		t.Fatalf("fired %+v", fired)
	}
	r := fired[0]
	if r.Compacted != 15 || r.BoundaryID != "b3" || r.AfterTokens != 13+13+142*2 || r.KeptPrefix != 0 || r.Summary != text13 {
		t.Errorf("compaction %+v", r)
	}
	if got := ids(s.View()); !slices.Equal(got, []string{SummaryMessageID, "b3", "u4", "a4", "t4", "b4", "u5", "a5", "t5", "b5"}) {
		t.Errorf("view %v", got)
	}
	req := sum.reqs[0]
	if len(req.Compacted) != 15 || req.Compacted[14].ID != "t3" || !strings.Contains(req.User, "[Tool result]: "+out103) || req.System != PruneSummarizeSystemPrompt {
		t.Errorf("request: %d compacted, user %q", len(req.Compacted), req.User[:80])
	}
}

// TestMaskThenSummarize: summary_turns 4, keep_turns 2, keep_results 1.
// a_2 masks t_0 (t_1 is the newest result). a_3 is the fourth turn in view: u0, a0, t0, a1, t1 (before a_2, the
// second newest turn) are summarized, t_2 is the newest result. a_4
// masks t_2. a_5 (turns a2..a5) summarizes a2, t2, a3, t3, the earlier
// summary with them.
func TestMaskThenSummarize(t *testing.T) {
	h := rounds(7, false)
	cfg := Config{Extra: map[string]float64{"summary_turns": 4, "keep_turns": 2, "keep_results": 1}}
	sum := &fixed{text: "S"}
	tl, err := Simulate(context.Background(), h, NameMaskThenSummarize, cfg, sum)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tl.Steps {
		if s.Compacted > 0 {
			got = append(got, fmt.Sprintf("%s %d %v %s", s.ID, s.Compacted, idsAt(h, s.Replaced), s.BoundaryID))
		}
	}
	want := []string{"a2 1 [t0] ", "a3 5 [] a2", "a4 1 [t2] ", "a5 4 [] a4", "a6 1 [t4] "}
	if !slices.Equal(got, want) {
		t.Errorf("compactions\n%q\nwant\n%q", got, want)
	}
	if len(sum.reqs) != 2 || !slices.Equal(ids(sum.reqs[0].Compacted), []string{"u0", "a0", "t0", "a1", "t1"}) ||
		!slices.Equal(ids(sum.reqs[1].Compacted), []string{"a2", "t2", "a3", "t3"}) || sum.reqs[1].Previous != "S" ||
		sum.reqs[1].Compacted[1].Content != out103 {
		t.Errorf("requests %+v", sum.reqs)
	}
	if st := byIndex(tl.Steps)[indexOf(h, "a5")]; st.KeptPrefix != 0 || st.Summary != "S" {
		t.Errorf("a5 %+v", st)
	}
}

// TestCodexUserRetention: window 1000, threshold 0.9; a turn is 142
// tokens, so b_6 (994) compacts: everything is summarized, and the user
// messages kept newest first within 20 tokens (9 each by characters / 4):
// u_6, u_5, and u_4 cut to 2 tokens. The second compaction keeps u_4's
// part no longer: the newest user messages win.
func TestCodexUserRetention(t *testing.T) {
	h := turns(14, nil)
	cfg := Config{ContextWindow: 1000, Extra: map[string]float64{"user_budget": 20}}
	sum := &fixed{text: "summary of the work"}
	s := mustNew(t, NameCodexUserRetention, cfg)
	b6 := indexOf(h, "b6")
	reps := stepAll(t, s, h[:b6+1], sum)
	var compacted []StepReport
	for _, r := range reps {
		if r.Compacted > 0 {
			compacted = append(compacted, r)
		}
	}
	if len(compacted) != 1 || compacted[0].Index != b6 || compacted[0].ContextTokens != 994 || compacted[0].Compacted != 28 {
		t.Fatalf("compactions %+v", compacted)
	}
	first := compacted[0]
	cut := text13[:8] + "\n…[7 tokens truncated]"
	if !strings.HasPrefix(first.Briefing, cut+"\n\n"+text13+"\n\n"+text13+"\n\n") || !strings.HasSuffix(first.Briefing, "summary of the work") ||
		first.KeptVerbatim != 3 || first.KeptPrefix != 0 || first.Summary != "summary of the work" {
		t.Errorf("briefing %q, kept %d, prefix %v", first.Briefing, first.KeptVerbatim, first.KeptPrefix)
	}
	if req := sum.reqs[0]; len(req.Compacted) != 28 || req.System != CodexSystemPrompt || req.Previous != "" {
		t.Errorf("request: %d compacted, previous %q", len(req.Compacted), req.Previous)
	}
	view := s.View()
	if got := ids(view); !slices.Equal(got, []string{"u4", "u5", "u6", SummaryMessageID}) || view[0].Content != cut {
		t.Errorf("view %v, first %q", got, view[0].Content)
	}
	if v := view[3]; v.Content != CodexSummaryPrefix+"\n\nsummary of the work" || v.Role != RoleUser {
		t.Errorf("summary message %+v", v)
	}
	// Later compactions carry the user messages kept and the summary,
	// then the new messages; the newest user messages win the budget.
	reps = stepAll(t, s, h, sum)
	if len(sum.reqs) < 2 || !strings.Contains(sum.reqs[1].User, "[Previous summary]: "+CodexSummaryPrefix+"\n\nsummary of the work") ||
		!strings.Contains(sum.reqs[1].User, "[User]: "+cut) || sum.reqs[1].Previous != "summary of the work" {
		t.Errorf("second request %+v", sum.reqs[1])
	}
	for _, m := range s.View() {
		if m.ID == "u4" {
			t.Errorf("u4 still kept: %v", ids(s.View()))
		}
	}
}

func TestCodexRetained(t *testing.T) {
	users := []Message{usr("1", strings.Repeat("a", 40)), usr("2", strings.Repeat("b", 40)), usr("3", strings.Repeat("c", 40))}
	got := CodexRetained(users, 25)
	if len(got) != 3 || got[0].Content != "aaaaaaaaaaaaaaaaaaaa\n…[5 tokens truncated]" || got[1].ID != "2" || got[2].ID != "3" || users[0].Content != strings.Repeat("a", 40) {
		t.Errorf("retained %+v", got)
	}
	if got := CodexRetained(users, 20); len(got) != 2 || got[0].ID != "2" {
		t.Errorf("exact fit %+v", got)
	}
	if got := CodexRetained(users, 0); len(got) != 0 {
		t.Errorf("no budget %+v", got)
	}
}

// TestViewMatchesTokens: for every strategy built on rview, at every step
// of a long history with a small window, what View() sends, counted with
// the estimator, is AfterTokens; RawTokens is at least the context; and a
// compaction's kept prefix is the head of the view it left, at least the
// overhead and at most what is sent after it.
func TestViewMatchesTokens(t *testing.T) {
	h := benchHistory(600)
	h = append([]Message{sysm("s", "You are a coding agent.")}, h...)
	for _, name := range []string{NameObservationMasking, NameToolClearing, NamePruneSummarize, NameMaskThenSummarize, NameCodexUserRetention} {
		t.Run(name, func(t *testing.T) {
			cfg := Config{ContextWindow: 9000, SystemOverhead: 50, Extra: map[string]float64{"summary_turns": 20}}
			s := mustNew(t, name, cfg)
			compactions := 0
			for i := range h {
				if h[i].Role != RoleAssistant {
					continue
				}
				restore := s.(Guarded).Checkpoint()
				r, err := s.Step(context.Background(), h, i, Builtin{})
				if err != nil {
					t.Fatal(err)
				}
				if i%7 == 0 && r.Compacted > 0 {
					// Undo a compaction now and then, as the guardrail does.
					restore()
					_, _, after := s.(Guarded).State()
					if after != r.ContextTokens {
						t.Fatalf("step %d: undone to %v, was %v", i, after, r.ContextTokens)
					}
					r.AfterTokens, r.Compacted = after, 0
				}
				got := 50.0
				for _, m := range s.View() {
					got += plainTokens(nil, m.Content, &m)
				}
				if got != r.AfterTokens {
					t.Fatalf("step %d: view %v tokens, after %v", i, got, r.AfterTokens)
				}
				if raw := s.(rawCounter).rawTokens(); raw < r.ContextTokens {
					t.Fatalf("step %d: raw %v < context %v", i, raw, r.ContextTokens)
				}
				if r.Compacted > 0 {
					compactions++
					if r.KeptPrefix < 50 || r.KeptPrefix > r.AfterTokens {
						t.Fatalf("step %d: kept prefix %v, after %v", i, r.KeptPrefix, r.AfterTokens)
					}
				}
			}
			if compactions == 0 {
				t.Errorf("no compaction")
			}
		})
	}
}

// TestEveryStrategyReportsCacheAndRaw: for every strategy, the driver's
// timeline has the raw tokens, a kept prefix on every compaction kept
// (between the overhead and what is sent after it) and none elsewhere,
// and never sends more than the raw history.
func TestEveryStrategyReportsCacheAndRaw(t *testing.T) {
	h := append([]Message{sysm("s", "You are a coding agent.")}, benchHistory(400)...)
	for _, name := range Names() {
		tl, err := Simulate(context.Background(), h, name, Config{ContextWindow: 6000, SystemOverhead: 30}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tl.TokensRaw < tl.TokensSent || tl.Compactions == 0 {
			t.Errorf("%s: raw %v, sent %v, %d compactions", name, tl.TokensRaw, tl.TokensSent, tl.Compactions)
		}
		for _, s := range tl.Steps {
			kept := s.Compacted > 0 && s.Rejected == ""
			if s.RawTokens < s.ContextTokens || kept != (s.KeptPrefix > 0) || kept && (s.KeptPrefix < 30 || s.KeptPrefix > s.AfterTokens) {
				t.Errorf("%s: step %d: raw %v context %v after %v kept prefix %v (compacted %d, rejected %q)",
					name, s.Step, s.RawTokens, s.ContextTokens, s.AfterTokens, s.KeptPrefix, s.Compacted, s.Rejected)
				break
			}
		}
	}
}

func TestFenwick(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var f fenwick
	var naive []float64
	prefix := func(i int) float64 {
		s := 0.0
		for _, x := range naive[:i] {
			s += x
		}
		return s
	}
	for step := 0; step < 2000; step++ {
		if len(naive) == 0 || rng.Intn(3) > 0 {
			x := float64(rng.Intn(50))
			f.push(x)
			naive = append(naive, x)
		} else {
			i, x := rng.Intn(len(naive)), float64(rng.Intn(50))
			f.set(i, x)
			naive[i] = x
		}
		i := rng.Intn(len(naive) + 1)
		if f.prefix(i) != prefix(i) {
			t.Fatalf("step %d: prefix(%d) = %v, want %v", step, i, f.prefix(i), prefix(i))
		}
		target := float64(rng.Intn(int(prefix(len(naive))) + 10))
		want := len(naive)
		for j := 0; j <= len(naive); j++ {
			if prefix(j) >= target {
				want = j
				break
			}
		}
		if got := f.search(target); got != want {
			t.Fatalf("step %d: search(%v) = %d, want %d", step, target, got, want)
		}
	}
}

// TestToolCallsLen16 holds the measured length of a call's JSON to the
// JSON written: every kind of character the encoder escapes, invalid
// UTF-8, runes beyond the BMP, and random strings of them.
func TestToolCallsLen16(t *testing.T) {
	pieces := []string{"a", "\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "<", ">", "&",
		"é", "€", "😀", "\u2028", "\u2029", "\xff", "\xe2\x82", "\ufffd", " ", "{}", `{"path":"a.go"}`}
	rng := rand.New(rand.NewSource(2))
	for k := 0; k < 3000; k++ {
		var parts [3]string
		for p := range parts {
			var b strings.Builder
			for range rng.Intn(12) {
				b.WriteString(pieces[rng.Intn(len(pieces))])
			}
			parts[p] = b.String()
		}
		m := Message{ToolCalls: []ToolCall{{ID: parts[0], Name: parts[1], Arguments: parts[2]}, {ID: "c", Name: "read", Arguments: parts[2] + parts[0]}}}
		want := 0
		for _, tc := range m.ToolCalls {
			want += history.Len16(toolCallJSON(tc))
		}
		if got := toolCallsLen16(&m); got != want {
			t.Fatalf("%q: measured %d, written %d", parts, got, want)
		}
	}
}
