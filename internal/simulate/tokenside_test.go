package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/strategy"
)

var noContentTrace = filepath.Join(agentsData, "otel", "no-content.jsonl")

// TestTokenTrace: the context each call would have sent without
// compacting is the first call's and the growth since (a call's input
// less the previous one's input and output); what a compacted call, or a
// call without usage, added is not known and counts as nothing.
func TestTokenTrace(t *testing.T) {
	u := func(in, read, out int64) *agents.Usage {
		return &agents.Usage{Input: in - read, CacheRead: read, Output: out}
	}
	s := &agents.Session{NoContent: "none", Messages: []agents.Message{
		{Usage: u(1000, 0, 100)},
		{Usage: u(1500, 1000, 50)}, // +400
		{},                         // no usage
		{Usage: u(2500, 1500, 60)}, // +950 since the last with usage
		{Usage: u(600, 0, 40)},     // compacted
		{Usage: u(900, 600, 10)},   // +260
	}, Compactions: []agents.Compaction{{Index: 4}}}
	tr := tokenTrace(s)
	var got [][2]int64
	for _, c := range tr.Calls {
		got = append(got, [2]int64{c.Context, c.Uncompacted})
	}
	want := [][2]int64{{1000, 1000}, {1500, 1500}, {0, 1550}, {2500, 2500}, {600, 2560}, {900, 2860}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("context, uncompacted (-want +got):\n%s", d)
	}
	if !tr.Calls[4].Compacted || tr.Calls[3].Compacted || !tr.Calls[2].NoUsage {
		t.Errorf("calls %+v", tr.Calls)
	}
	// The placeholder history: what each call added, then its output, as
	// the strategies' own estimator counts them (a message's overhead
	// included): a strategy that never compacts counts the context without
	// compacting at every step.
	for _, name := range []string{strategy.NameSlidingWindow, strategy.NameStagewise, strategy.NameOnyx, strategy.NameObservationMasking} {
		for _, tok := range []string{"", "o200k"} {
			cfg := strategy.Config{ContextWindow: 1 << 30, Tokenizer: tok, SystemOverhead: 50}
			perUnit, overhead, err := calibrate(context.Background(), name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			tl, err := strategy.Simulate(context.Background(), tr.fillerMessages(perUnit, overhead), name, cfg, strategy.Builtin{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tl.Steps) != len(tr.Calls) {
				t.Fatalf("%s: %d steps for %d calls", name, len(tl.Steps), len(tr.Calls))
			}
			for i, st := range tl.Steps {
				c := tr.Calls[i]
				if want := float64(50 + c.Uncompacted + c.Output); math.Abs(st.ContextTokens-want) > 16 { // an empty message still counts its overhead
					t.Errorf("%s %s step %d: %v tokens, want about %v", name, tok, i+1, st.ContextTokens, want)
				}
			}
		}
	}
}

// TestSimulateTokenSide: a trace without content is simulated on its
// token side: when each strategy would first compact, the agent's
// compaction, the recorded cost; no probe scores, saying so and how to
// get them. Mixed with other histories, or swept, it is an input error.
func TestSimulateTokenSide(t *testing.T) {
	in, warnings, err := ReadFile(noContentTrace, "", nil, "", nil)
	if err != nil || in.Trace == nil || len(warnings) != 1 || !strings.Contains(warnings[0], "no message content") {
		t.Fatalf("%v %+v %q", err, in, warnings)
	}
	opts := Options{Strategies: []string{strategy.NameStagewise, strategy.NameSlidingWindow, strategy.NameObservationMasking},
		Base: strategy.Config{ContextWindow: 20000}, Pricing: Pricing{Models: testModels()}}
	rep, err := Run(context.Background(), []*Input{in}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{
		"(otel session conv_nc_1): no message content, the token side only\n",
		"claude-sonnet-4-6; 5 model calls; recorded context 3,100 to 14,100 tokens, 15,780 without compacting by the last call\n",
		"the agent compacted after call 3 (call 4, line 4, sent a compacted view): 14,100 → 3,100 tokens\n",
		"stagewise            20,000  call 3                14,480 (72%)      14,100",
		"observation-masking  20,000  never",
		// 24,100 uncached, 9,700+5,100+3,000 read, 1,460 out at $3/$15.
		"recorded cost at claude-sonnet-4.6 ($3 and $15 per million tokens in and out; cache writes 1.25×, reads 0.1× the input price): $0.0836 (input $0.0564, cache reads $0.0053, cache writes $0, output $0.0219); $0.1317 without the prompt cache\n",
		"not simulated: what a strategy keeps once it compacts, its summaries, their probe scores and its cost, which need the messages; to get them, record the messages (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "probe") && !strings.Contains(out, "their probe scores") || rep.Hint() != "" {
		t.Errorf("probe scores or a hint:\n%s%s", out, rep.Hint())
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		TokenSide bool
		Sessions  []TokenSide
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || !got.TokenSide || len(got.Sessions) != 1 || len(got.Sessions[0].Strategies) != 3 ||
		got.Sessions[0].Strategies[0].Call != 3 || got.Sessions[0].Strategies[2].Call != 0 || got.Sessions[0].Cost.TotalUSD <= 0 {
		t.Errorf("JSON: %v %s", err, js.String())
	}
	// Not with a history that has content, nor swept.
	other, _, err := ReadFile(filepath.Join(agentsData, "otel", "genai-compaction.jsonl"), "", nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ie *InputError
	if _, err := Run(context.Background(), []*Input{other, in}, opts); !errors.As(err, &ie) || !strings.Contains(err.Error(), "records no message content: only its token side can be simulated; simulate it alone") {
		t.Errorf("mixed: %v", err)
	}
	sw, _ := ParseSweep("context_window=10000:20000:10000")
	opts.Sweep = sw
	if _, err := Run(context.Background(), []*Input{in}, opts); !errors.As(err, &ie) || !strings.Contains(err.Error(), "without --sweep") {
		t.Errorf("sweep: %v", err)
	}
}
