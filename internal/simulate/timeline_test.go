package simulate

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/strategy"
)

func TestRenderChart(t *testing.T) {
	steps := []strategy.StepReport{
		{Step: 1, ContextTokens: 100, Boundary: -1},
		{Step: 2, ContextTokens: 400, Boundary: -1},
		{Step: 3, ContextTokens: 900, Fired: true, Boundary: 1, Compacted: 3, AfterTokens: 300},
		{Step: 4, ContextTokens: 500, Boundary: -1},
		{Step: 5, ContextTokens: 800, Fired: true, Boundary: -1, Rejected: strategy.RejectNoShrink},
	}
	var b bytes.Buffer
	renderChart(&b, steps, 10, 4)
	want := "" +
		"1,000 |    ##  ##\n" +
		"      |    ##  ##\n" +
		"  500 |  ########\n" +
		"      |##########\n" +
		"    0 +----------\n" +
		"           ^   x\n" +
		"       step 1 step 5\n" +
		"       context tokens per step; ^ compaction, x rejected by a guardrail\n"
	if b.String() != want {
		t.Errorf("chart:\n%s\nwant:\n%s", b.String(), want)
	}
	// More steps than columns share columns; the width stays fixed.
	var many []strategy.StepReport
	for i := 0; i < 150; i++ {
		many = append(many, strategy.StepReport{Step: i + 1, ContextTokens: float64(i * 100), Boundary: -1})
	}
	b.Reset()
	renderChart(&b, many, 60, 12)
	for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[:13] {
		if len(line) > len("15,000 |")+60 {
			t.Errorf("line %d is wider than 60 columns: %q", i, line)
		}
	}
	b.Reset()
	renderChart(&b, nil, 60, 12)
	if b.Len() != 0 {
		t.Errorf("no steps drew %q", b.String())
	}
}

func TestNumbers(t *testing.T) {
	ints := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {999.4, "999"}, {999.5, "1,000"}, {1234567, "1,234,567"}, {-12345, "-12,345"},
	}
	for _, tc := range ints {
		if got := fmtInt(tc.v); got != tc.want {
			t.Errorf("fmtInt(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	ceils := []struct{ v, want float64 }{
		{0, 0}, {1, 1}, {1.5, 2}, {3, 5}, {7, 10}, {18113, 20000}, {50000, 50000},
	}
	for _, tc := range ceils {
		if got := niceCeil(tc.v); got != tc.want {
			t.Errorf("niceCeil(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	plurals := []struct {
		n    int
		word string
		want string
	}{
		{0, "compaction", "0 compactions"}, {1, "compaction", "1 compaction"}, {2, "step", "2 steps"}, {1, "summarizer call", "1 summarizer call"},
	}
	for _, tc := range plurals {
		if got := plural(tc.n, tc.word); got != tc.want {
			t.Errorf("plural(%d, %q) = %q", tc.n, tc.word, got)
		}
	}
}

// fakeTimeline is a Simulate that reports compactions compactions (and
// as many summarizer calls) over the assistant messages of history.
func fakeTimeline(compactions int) func(context.Context, []strategy.Message, string, strategy.Config, strategy.Summarizer) (*strategy.Timeline, error) {
	return func(_ context.Context, history []strategy.Message, name string, cfg strategy.Config, _ strategy.Summarizer) (*strategy.Timeline, error) {
		tl := &strategy.Timeline{Strategy: name, Steps: []strategy.StepReport{}}
		for i, m := range history {
			if m.Role != strategy.RoleAssistant {
				continue
			}
			s := strategy.StepReport{Step: len(tl.Steps) + 1, Index: i, ID: m.ID, ContextTokens: float64(100 * (i + 1)), Boundary: -1, KeptVerbatim: i + 1}
			if len(tl.Steps) < compactions {
				s.Fired, s.Boundary, s.Compacted, s.SummarizerCalled, s.AfterTokens = true, i, 1, true, 50
				tl.Compactions++
				tl.SummarizerCalls++
			} else {
				s.AfterTokens = s.ContextTokens
			}
			tl.Steps = append(tl.Steps, s)
			tl.TokensSent += s.ContextTokens
			tl.PeakContext = max(tl.PeakContext, s.ContextTokens)
			tl.KeptAtEnd = s.KeptVerbatim
		}
		return tl, nil
	}
}

func jsonlInput(name string, roles ...string) *Input {
	h := &convo.History{Source: convo.SourceJSONL, Name: name}
	for i, r := range roles {
		h.Branch = append(h.Branch, strategy.Message{ID: string(rune('a' + i)), Role: r})
		h.Origin = append(h.Origin, i+1)
	}
	return &Input{History: h}
}

// TestWriteTextPlurals checks the counts of every text report read
// "1 compaction", never "1 compactions".
func TestWriteTextPlurals(t *testing.T) {
	one := jsonlInput("one.jsonl", strategy.RoleUser, strategy.RoleAssistant)
	two := jsonlInput("two.jsonl", strategy.RoleUser, strategy.RoleAssistant, strategy.RoleUser, strategy.RoleAssistant)
	sw, err := ParseSweep("threshold=0.5")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		inputs []*Input
		opts   Options
		want   []string
		not    []string
	}{
		{"timeline of one step", []*Input{one}, Options{Strategies: []string{"onyx"}, Simulate: fakeTimeline(1)},
			[]string{"; 2 messages, 1 step\n", "\n1 compaction, 0 rejected, 1 summarizer call; ", "; 2 messages verbatim at the end\n"},
			[]string{"1 steps", "1 compactions", "1 summarizer calls"}},
		{"timeline of two steps", []*Input{two}, Options{Strategies: []string{"onyx"}, Simulate: fakeTimeline(2)},
			[]string{"; 4 messages, 2 steps\n", "\n2 compactions, 0 rejected, 2 summarizer calls; "}, nil},
		{"timeline without compaction", []*Input{one}, Options{Strategies: []string{"onyx"}, Simulate: fakeTimeline(0)},
			[]string{"\n0 compactions, 0 rejected, 0 summarizer calls; "}, nil},
		{"comparison of two histories", []*Input{one, two}, Options{Strategies: []string{"onyx", "sliding-window"}, Compare: true, Simulate: fakeTimeline(1)},
			[]string{"2 chats; summarizer builtin\n", "token figures come from each strategy's own estimator"}, nil},
		{"comparison of one history", []*Input{one}, Options{Strategies: []string{"onyx"}, Compare: true, Simulate: fakeTimeline(1)},
			[]string{"one.jsonl; summarizer builtin\n"}, []string{"estimator"}},
		{"sweep of one value", []*Input{one, two}, Options{Strategies: []string{"onyx"}, Sweep: sw, Simulate: fakeTimeline(1)},
			[]string{"2 chats; summarizer builtin; sweep of threshold over 1 value\n", "\n        0.5  onyx  "}, []string{"1 values"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.SummarizerName = "builtin"
			rep, err := Run(context.Background(), tc.inputs, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := rep.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}
