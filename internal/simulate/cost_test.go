package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/strategy"
)

// TestCostOfATimeline: four steps at $10 and $20 per million tokens in and
// out, cache writes 1.25×, reads 0.1×. Step 2 compacts: 60 tokens after
// it, 20 of them a kept prefix.
//
//	step  context  cached  written  raw  raw cached  raw written
//	1     100      0       100      100  0           100
//	2     150      100     50       150  100         50
//	3     90       20      70       180  150         30
//	4     120      90      30       210  180         30
//
// Context: (210 × 0.1 + 250 × 1.25) × $10/M = $0.003335; cache rewrites
// 40 × 1.25 × $10/M = $0.0005; no compaction (430 × 0.1 + 210 × 1.25) ×
// $10/M = $0.003055; one summary of 1,000 tokens in and 200 out: $0.014.
func TestCostOfATimeline(t *testing.T) {
	tl := &strategy.Timeline{TokensRaw: 640, Steps: []strategy.StepReport{
		{ContextTokens: 100, AfterTokens: 100, RawTokens: 100},
		{ContextTokens: 150, AfterTokens: 60, RawTokens: 150, Compacted: 3, KeptPrefix: 20},
		{ContextTokens: 90, AfterTokens: 90, RawTokens: 180},
		{ContextTokens: 120, AfterTokens: 60, RawTokens: 210, Compacted: 2, KeptPrefix: 10, Rejected: strategy.RejectNoShrink},
	}}
	p := Prices{Model: "m", InPerMTok: 10, OutPerMTok: 20, CacheWrite: 1.25, CacheRead: 0.1}
	c := costOf(tl, []callTokens{{in: 1000, out: 200}}, p, p)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if c.CachedTokens != 210 || c.WrittenTokens != 250 || c.RewrittenTokens != 40 || c.RawTokens != 640 ||
		!near(c.ContextUSD, 0.003335) || !near(c.CacheUSD, 0.0005) || !near(c.RawUSD, 0.003055) ||
		!near(c.SummaryUSD, 0.014) || !near(c.TotalUSD, 0.017335) || c.SummarizerCalls != 1 {
		t.Errorf("cost %+v", c)
	}
	for v, want := range map[float64]string{0: "$0", 0.017335: "$0.0173", 12.345: "$12.35", 1234567.8: "$1,234,567.80", -0.5: "-$0.5000"} {
		if got := fmtUSD(v); got != want {
			t.Errorf("fmtUSD(%v) = %q, want %q", v, got, want)
		}
	}
}

func testModels() cascade.Models {
	return cascade.Models{
		{ID: "gemini-3.1-pro", Provider: "gemini", APIModel: "gemini-3.1-pro", PriceInPerMTok: 2, PriceOutPerMTok: 12},
		{ID: "gpt-5.4", Provider: "openai", APIModel: "gpt-5.4", PriceInPerMTok: 2.5, PriceOutPerMTok: 15},
		{ID: "claude-sonnet-4.6", Provider: "anthropic", APIModel: "claude-sonnet-4-6", PriceInPerMTok: 3, PriceOutPerMTok: 15},
		{ID: "claude-opus-4.6", Provider: "anthropic", APIModel: "claude-opus-4-6", PriceInPerMTok: 5, PriceOutPerMTok: 25},
		{ID: "local", Provider: "mine", APIModel: "qwen", PriceInPerMTok: 0, PriceOutPerMTok: 0},
	}
}

func TestPricingResolve(t *testing.T) {
	p := Pricing{Models: testModels()}
	for _, tc := range []struct{ history, model, from string }{
		{"claude-sonnet-4.6", "claude-sonnet-4.6", "history"},
		{"claude-sonnet-4-6", "claude-sonnet-4.6", "history"},          // the API name
		{"claude-sonnet-4-6-20260215", "claude-sonnet-4.6", "history"}, // dated
		{"claude-opus-4-5-20251101", "claude-opus-4.6", "nearest"},     // the family
		{"gpt-5.2-codex", "gpt-5.4", "nearest"},
		{"gemini-2.5-pro", "claude-sonnet-4.6", "default"}, // "gemini-" is no family
		{"", "claude-sonnet-4.6", "default"},
	} {
		ctx, sum := p.resolve(tc.history)
		if ctx.Model != tc.model || ctx.From != tc.from || sum != ctx {
			t.Errorf("%q: %+v (summaries %+v), want %s from %s", tc.history, ctx, sum, tc.model, tc.from)
		}
	}
	ctx, _ := p.resolve("claude-opus-4.6")
	if ctx.CacheWrite != 1.25 || ctx.CacheRead != 0.1 || ctx.InPerMTok != 5 || ctx.OutPerMTok != 25 || ctx.Provider != "anthropic" {
		t.Errorf("opus %+v", ctx)
	}
	p.Model, p.Summarizer = "gpt-5.4", "claude-opus-4.6"
	ctx, sum := p.resolve("claude-sonnet-4.6")
	if ctx.Model != "gpt-5.4" || ctx.From != "flag" || ctx.CacheWrite != 1 || sum.Model != "claude-opus-4.6" || sum.From != "summarizer" {
		t.Errorf("flag: %+v, summaries %+v", ctx, sum)
	}
	if ctx, _ := (Pricing{Models: testModels(), Model: "local"}).resolve("x"); ctx.CacheWrite != 1 || ctx.CacheRead != 1 {
		t.Errorf("a provider with no cache: %+v", ctx)
	}
	if ctx, _ := (Pricing{}).resolve("claude-sonnet-4.6"); ctx.Model != "none" || pricesText(ctx) != "no prices (the model table has none of these models)" {
		t.Errorf("no table: %+v", ctx)
	}
	if got := pricesText(Prices{Model: "claude-sonnet-4.6", InPerMTok: 3, OutPerMTok: 15, CacheWrite: 1.25, CacheRead: 0.1}); got !=
		"claude-sonnet-4.6 ($3 and $15 per million tokens in and out; cache writes 1.25×, reads 0.1× the input price)" {
		t.Errorf("pricesText: %s", got)
	}
}

// TestRecordedOverhead: on a Claude Code session, without
// --system-overhead, each strategy's overhead makes its first step send
// what the agent sent there (14,503 tokens); with one, that one applies.
func TestRecordedOverhead(t *testing.T) {
	in, _, err := ReadFile(claudeShop, "", nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{strategy.NameStagewise, strategy.NameSummaryBuffer, strategy.NameToolClearing}
	rep, err := Run(context.Background(), []*Input{in}, Options{
		Strategies: names, Compare: true, SummarizerName: "builtin", RecordedOverhead: true,
		Base: strategy.Config{ContextWindow: 22000}, Pricing: Pricing{Models: testModels()},
	})
	if err != nil {
		t.Fatal(err)
	}
	overheads := map[string]int{}
	for _, r := range rep.runs {
		first := r.tl.Steps[0]
		if r.overheadLive != 14503 || first.ContextTokens != 14503 {
			t.Errorf("%s: overhead %d from %d; first step %v", r.name, r.cfg.SystemOverhead, r.overheadLive, first.ContextTokens)
		}
		overheads[r.name] = r.cfg.SystemOverhead
	}
	if overheads[strategy.NameStagewise] == overheads[strategy.NameSummaryBuffer] {
		t.Errorf("overheads %v: the estimators differ", overheads)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "\nsystem overhead 14,") || !strings.Contains(text.String(), "(--system-overhead overrides it)\n") ||
		!strings.Contains(text.String(), "cost at the prices of claude-sonnet-4.6 ($3 and $15") {
		t.Errorf("text:\n%s", text.String())
	}
	// The flag's overhead applies as it is.
	rep, err = Run(context.Background(), []*Input{in}, Options{
		Strategies: names[:1], SummarizerName: "builtin", RecordedOverhead: false,
		Base: strategy.Config{ContextWindow: 22000, SystemOverhead: 9000},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.runs[0]; r.cfg.SystemOverhead != 9000 || r.overheadLive != 0 {
		t.Errorf("flag: overhead %d from %d", r.cfg.SystemOverhead, r.overheadLive)
	}
	// Against the recorded compactions, the line says where it came from.
	rep, err = Run(context.Background(), []*Input{in}, Options{
		Strategies: names[:1], AgainstRecorded: true, SummarizerName: "builtin", RecordedOverhead: true,
		Base: strategy.Config{ContextWindow: 22000},
	})
	if err != nil {
		t.Fatal(err)
	}
	text.Reset()
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "what the agent sent at its first step (live usage 14,503) beyond the history, so the first step simulates 14,503") {
		t.Errorf("against recorded:\n%s", text.String())
	}
}

// TestProbeScoresOfTheCheapStrategies: on the probes history, tool
// clearing (trigger 600, keep 1) clears the read and the failing test run
// at the last step: the read's marker keeps the file, the failure is
// gone. Observation masking (keep 1) masks them one step at a time.
// Codex's retention summarizes all at the last step (window 700): with
// 100 tokens of user messages kept, the user's decision is kept with
// them; with 1, the bounded rule summary has lost it.
func TestProbeScoresOfTheCheapStrategies(t *testing.T) {
	type score struct {
		step            int
		replaced, kinds string
		lost            int
	}
	tests := []struct {
		name string
		cfg  strategy.Config
		want []score
	}{
		{strategy.NameToolClearing, strategy.Config{Extra: map[string]float64{"keep_results": 1, "trigger_tokens": 600}},
			[]score{{6, ReplacedPruned, "artifact 1/1, recall 0/1, decision 0/0, continuation 0/0", 1}}},
		{strategy.NameObservationMasking, strategy.Config{Extra: map[string]float64{"keep_results": 1}},
			[]score{{3, ReplacedPruned, "artifact 1/1, recall 0/0, decision 0/0, continuation 0/0", 0},
				{4, ReplacedPruned, "artifact 0/0, recall 0/1, decision 0/0, continuation 0/0", 1}}},
		{strategy.NameCodexUserRetention, strategy.Config{ContextWindow: 700, Extra: map[string]float64{"user_budget": 100}},
			[]score{{6, ReplacedSummarized, "artifact 0/1, recall 1/1, decision 1/1, continuation 1/1", 1}}},
		{strategy.NameCodexUserRetention, strategy.Config{ContextWindow: 700, Extra: map[string]float64{"user_budget": 1}},
			[]score{{6, ReplacedSummarized, "artifact 0/1, recall 0/1, decision 0/1, continuation 1/1", 3}}},
	}
	for _, tc := range tests {
		rep := probeRun(t, tc.name, tc.cfg)
		var got []score
		for _, s := range rep.runs[0].probes {
			got = append(got, score{s.Step, s.Replaced, tallies(s), len(s.Lost)})
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s %v: scores %+v, want %+v", tc.name, tc.cfg.Extra, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s %v: score %+v, want %+v", tc.name, tc.cfg.Extra, got[i], tc.want[i])
			}
		}
	}
}

// TestCompareCostTable: the comparison has the cost table, one row per
// strategy, and the JSON the cost of each row.
func TestCompareCostTable(t *testing.T) {
	names := []string{strategy.NameStagewise, strategy.NameObservationMasking, strategy.NameToolClearing, strategy.NamePruneSummarize, strategy.NameSummaryBuffer}
	rep, err := Run(context.Background(), []*Input{probesInput(t)}, Options{
		Strategies: names, Compare: true, SummarizerName: "builtin",
		Base:    strategy.Config{ContextWindow: 700, Reserved: 1, RecentBuffer: 1, Extra: map[string]float64{"keep_results": 1, "trigger_tokens": 400}},
		Pricing: Pricing{Models: testModels(), Model: "claude-opus-4.6"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	out := text.String()
	i := strings.Index(out, "\ncost at the prices of claude-opus-4.6 ($5 and $25 per million tokens in and out; cache writes 1.25×, reads 0.1× the input price):\n")
	if i < 0 {
		t.Fatalf("no cost table:\n%s", out)
	}
	lines := strings.Split(out[i+1:], "\n")
	if !strings.HasPrefix(strings.TrimSpace(lines[1]), "strategy") || !strings.Contains(lines[1], "cache $  summaries $  total $  no compaction $  probes kept  grounded") {
		t.Errorf("head %q", lines[1])
	}
	for k, name := range names {
		f := strings.Fields(lines[2+k])
		if len(f) != 14 || f[0] != name || !strings.HasPrefix(f[10], "$") || !strings.HasSuffix(f[12], "%") || f[13] != groundedText(rep.rows[k].Probes) {
			t.Errorf("row %q", lines[2+k])
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var v struct{ Rows []Row }
	if err := json.Unmarshal(js.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	for _, row := range v.Rows {
		c := row.Cost
		if c == nil || c.Prices.Model != "claude-opus-4.6" || c.TotalUSD <= 0 || math.Abs(c.CachedTokens+c.WrittenTokens-row.TokensSent) > 1e-6 ||
			(row.SummarizerCalls > 0) != (c.SummaryUSD > 0) {
			t.Errorf("%s: cost %+v", row.Strategy, c)
		}
	}
}
