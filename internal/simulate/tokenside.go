package simulate

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/strategy"
)

// The token side of a trace that records no message content (OTel
// instrumentations record none unless asked): what its calls' recorded
// usage says, and no more. Each call's input (its cache reads and writes
// included) is the context it sent; the growth from one call to the next,
// less the previous call's output, is what the conversation added between
// them. From that growth the history is rebuilt as placeholder messages of
// those sizes (what a call added, a user message; its output, an
// assistant message), and each strategy is run over it for one thing: the
// first call after which its trigger fires, and the context then (each
// strategy counts the placeholders with its own estimator, calibrated so
// that they count as the recorded tokens). Before a
// strategy's first compaction its view is the whole history, so that much
// depends on sizes alone; what it keeps after, its summaries, their probe
// scores and its cost need the messages, and are not given. The recorded
// run's own cost is: each call's recorded tokens at the model's prices,
// cache reads and writes at the provider's cache prices.
//
// The growth across a recorded compaction is not known (the compacted
// call's context is a new view): what that call added counts as nothing,
// so the context without compaction is a floor from there on.

// TokenTrace is what a content-less trace records of one conversation.
type TokenTrace struct {
	// NoContent says why the trace holds no message text.
	NoContent string
	Calls     []TokenCall
}

// TokenCall is one model call's recorded usage.
type TokenCall struct {
	Call int `json:"call"` // 1-based
	Line int `json:"line"`
	// Context is what the call sent (input with the cache reads and
	// writes); Input the uncached part of it.
	Context       int64 `json:"context"`
	Input         int64 `json:"input"`
	CacheRead     int64 `json:"cacheRead"`
	CacheCreation int64 `json:"cacheCreation"`
	Output        int64 `json:"output"`
	// Compacted: the agent compacted before this call (its context is a
	// compacted view).
	Compacted bool `json:"compacted,omitempty"`
	// Uncompacted is what the call would have sent had nothing been
	// compacted: the first call's context and the growth since.
	Uncompacted int64 `json:"uncompacted"`
	// NoUsage: the call records no usage (its figures are 0).
	NoUsage bool `json:"noUsage,omitempty"`
}

// tokenTrace reads a content-less session: one message per call, with
// its usage; the compactions at the calls they precede.
func tokenTrace(s *agents.Session) *TokenTrace {
	t := &TokenTrace{NoContent: s.NoContent}
	compacted := map[int]bool{}
	for _, c := range s.Compactions {
		compacted[c.Index] = true
	}
	// unc is the last call's uncompacted context and output; base its
	// recorded context and output (of the last call with usage).
	var unc, base int64
	for i, m := range s.Messages {
		c := TokenCall{Call: i + 1, Line: m.Line, Compacted: compacted[i]}
		if u := m.Usage; u != nil {
			c.Context, c.Input, c.CacheRead, c.CacheCreation, c.Output = u.Context(), u.Input, u.CacheRead, u.CacheCreation, u.Output
		} else {
			c.NoUsage = true
		}
		switch {
		case i == 0:
			c.Uncompacted = c.Context
		case c.NoUsage || c.Compacted:
			// What a compacted call added is unknown, and so is what a
			// call without usage added (the next call shows it).
			c.Uncompacted = unc
		default:
			c.Uncompacted = unc + max(0, c.Context-base)
		}
		unc = c.Uncompacted + c.Output
		if !c.NoUsage {
			base = c.Context + c.Output
		}
		t.Calls = append(t.Calls, c)
	}
	return t
}

// fillerMessages rebuilds the history of t as placeholder messages of the
// recorded sizes: before each call a user message of what it added, after
// it an assistant message of its output. A strategy counts k placeholder
// units of a message as perUnit·k + overhead (calibrate): each message
// gets the units that make its count the recorded tokens.
func (t *TokenTrace) fillerMessages(perUnit, overhead float64) []strategy.Message {
	text := func(tokens int64) string {
		k := math.Round((float64(tokens) - overhead) / perUnit)
		return strings.Repeat(fillerUnit, int(max(0, k)))
	}
	var msgs []strategy.Message
	var added int64
	for i, c := range t.Calls {
		if i == 0 {
			added = c.Uncompacted
		} else {
			added = c.Uncompacted - t.Calls[i-1].Uncompacted - t.Calls[i-1].Output
		}
		if added > 0 || i == 0 {
			msgs = append(msgs, strategy.Message{ID: fmt.Sprintf("call%d/in", c.Call), Role: strategy.RoleUser, Content: text(added)})
		}
		msgs = append(msgs, strategy.Message{ID: fmt.Sprintf("call%d/out", c.Call), Role: strategy.RoleAssistant, Content: text(c.Output)})
	}
	return msgs
}

// fillerUnit is the placeholder text, repeated.
const fillerUnit = "abc "

// calibrate measures how strategy name under cfg counts placeholder text:
// tokens per unit and per message (the system overhead apart), from two
// histories of a user and an assistant message.
func calibrate(ctx context.Context, name string, cfg strategy.Config) (perUnit, overhead float64, err error) {
	cfg.ContextWindow = 1 << 40 // never fires
	count := func(units int) (float64, error) {
		msgs := []strategy.Message{{ID: "u", Role: strategy.RoleUser, Content: strings.Repeat(fillerUnit, units)}, {ID: "a", Role: strategy.RoleAssistant}}
		tl, err := strategy.Simulate(ctx, msgs, name, cfg, strategy.Builtin{})
		if err != nil || len(tl.Steps) == 0 {
			return 0, err
		}
		return tl.Steps[0].ContextTokens, nil
	}
	const n1, n2 = 1000, 3000
	c1, err := count(n1)
	if err != nil {
		return 0, 0, err
	}
	c2, err := count(n2)
	if err != nil {
		return 0, 0, err
	}
	perUnit = (c2 - c1) / (n2 - n1)
	if perUnit <= 0 {
		return 1, 0, nil
	}
	overhead = math.Max(0, (c1-perUnit*n1-float64(cfg.SystemOverhead))/2)
	return perUnit, overhead, nil
}

// TokenStrategy is when one strategy's trigger first fires on a trace.
type TokenStrategy struct {
	Strategy string `json:"strategy"`
	// Window is the context window it ran with (0: its default).
	Window int `json:"window"`
	// Call is the call after whose reply it first fires (0: never),
	// Context the context it counted then (that call's input and reply).
	Call    int     `json:"call"`
	Context float64 `json:"context,omitempty"`
}

// TokenCost is the recorded run's cost at its model's prices.
type TokenCost struct {
	Prices Prices `json:"prices"`
	// In USD: the uncached input, the cache reads and writes, the output,
	// their sum, and the same calls without the prompt cache.
	InputUSD      float64 `json:"inputUSD"`
	CacheReadUSD  float64 `json:"cacheReadUSD"`
	CacheWriteUSD float64 `json:"cacheWriteUSD"`
	OutputUSD     float64 `json:"outputUSD"`
	TotalUSD      float64 `json:"totalUSD"`
	UncachedUSD   float64 `json:"noCacheUSD"`
}

// TokenSide is one conversation's token-side report.
type TokenSide struct {
	Name       string          `json:"name"`
	Session    string          `json:"session,omitempty"`
	Model      string          `json:"model,omitempty"`
	NoContent  string          `json:"noContent"`
	Calls      []TokenCall     `json:"calls"`
	Strategies []TokenStrategy `json:"strategies"`
	Cost       TokenCost       `json:"cost"`
}

// TokenSideInputs reports whether inputs are traces without content, to
// be simulated on the token side only (all of them), and names one that
// is when the others are not.
func TokenSideInputs(inputs []*Input) (all bool, odd string) {
	n := 0
	for _, in := range inputs {
		if in.Trace != nil {
			n++
			odd = in.History.Name
		}
	}
	if n == len(inputs) && n > 0 {
		return true, ""
	}
	if n == 0 {
		return false, ""
	}
	return false, odd
}

func (rep *Report) tokenSide(ctx context.Context) error {
	for _, in := range rep.inputs {
		ts := TokenSide{Name: in.History.Name, Session: in.History.Title, Model: in.History.Model, NoContent: in.Trace.NoContent, Calls: in.Trace.Calls}
		for _, name := range rep.opts.Strategies {
			cfg := configFor(rep.opts, in, name, nil)
			perUnit, overhead, err := calibrate(ctx, name, cfg)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", in.History.Name, name, err)
			}
			tl, err := strategy.Simulate(ctx, in.Trace.fillerMessages(perUnit, overhead), name, cfg, strategy.Builtin{})
			if err != nil {
				return fmt.Errorf("%s: %s: %w", in.History.Name, name, err)
			}
			st := TokenStrategy{Strategy: name, Window: cfg.ContextWindow}
			for _, s := range tl.Steps {
				if s.Fired {
					st.Call, st.Context = s.Step, s.ContextTokens
					break
				}
			}
			ts.Strategies = append(ts.Strategies, st)
		}
		p, _ := rep.opts.Pricing.resolve(in.History.Model)
		ts.Cost = tokenCost(in.Trace.Calls, p)
		rep.tokenSides = append(rep.tokenSides, ts)
	}
	return nil
}

// tokenCost prices the recorded calls.
func tokenCost(calls []TokenCall, p Prices) TokenCost {
	c := TokenCost{Prices: p}
	in, out := p.InPerMTok/1e6, p.OutPerMTok/1e6
	for _, k := range calls {
		c.InputUSD += float64(k.Input) * in
		c.CacheReadUSD += float64(k.CacheRead) * in * p.CacheRead
		c.CacheWriteUSD += float64(k.CacheCreation) * in * p.CacheWrite
		c.OutputUSD += float64(k.Output) * out
		c.UncachedUSD += float64(k.Context)*in + float64(k.Output)*out
	}
	c.TotalUSD = c.InputUSD + c.CacheReadUSD + c.CacheWriteUSD + c.OutputUSD
	return c
}

// CaptureContent says how to record the messages of a trace.
const CaptureContent = "record the messages (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true for the OpenTelemetry GenAI instrumentations; OpenInference's record them unless OPENINFERENCE_HIDE_INPUTS or OPENINFERENCE_HIDE_OUTPUTS is set) and simulate the new trace"

func (rep *Report) writeTokenSides(w io.Writer) {
	for i, ts := range rep.tokenSides {
		if i > 0 {
			fmt.Fprintln(w)
		}
		in := rep.inputs[i]
		fmt.Fprintf(w, "%s: no message content, the token side only\n", heading(in))
		model := ts.Model
		if model == "" {
			model = "unknown model"
		}
		last := ts.Calls[len(ts.Calls)-1]
		fmt.Fprintf(w, "%s; %s; recorded context %s to %s tokens, %s without compacting by the last call\n",
			model, plural(len(ts.Calls), "model call"), fmtInt(float64(minContext(ts.Calls))), fmtInt(float64(maxContext(ts.Calls))), fmtInt(float64(last.Uncompacted)))
		for k, c := range ts.Calls {
			if c.Compacted && (k == 0 || !ts.Calls[k-1].Compacted) {
				before := int64(0)
				if k > 0 {
					before = ts.Calls[k-1].Context
				}
				fmt.Fprintf(w, "the agent compacted after call %d (call %d, line %d, sent a compacted view): %s → %s tokens\n", c.Call-1, c.Call, c.Line, fmtInt(float64(before)), fmtInt(float64(c.Context)))
			}
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "strategy\twindow\tfirst compacts after\tits context then\trecorded input of that call")
		for _, st := range ts.Strategies {
			win := "its default"
			if st.Window > 0 {
				win = fmtInt(float64(st.Window))
			}
			if st.Call == 0 {
				fmt.Fprintf(tw, "%s\t%s\tnever\t-\t-\n", st.Strategy, win)
				continue
			}
			c := ts.Calls[min(st.Call, len(ts.Calls))-1]
			share := ""
			if st.Window > 0 {
				share = fmt.Sprintf(" (%d%%)", int(math.Round(100*st.Context/float64(st.Window))))
			}
			fmt.Fprintf(tw, "%s\t%s\tcall %d\t%s%s\t%s\n", st.Strategy, win, st.Call, fmtInt(st.Context), share, fmtInt(float64(c.Context)))
		}
		tw.Flush()
		c := ts.Cost
		fmt.Fprintf(w, "recorded cost at %s: %s (input %s, cache reads %s, cache writes %s, output %s); %s without the prompt cache\n",
			pricesText(c.Prices), fmtUSD(c.TotalUSD), fmtUSD(c.InputUSD), fmtUSD(c.CacheReadUSD), fmtUSD(c.CacheWriteUSD), fmtUSD(c.OutputUSD), fmtUSD(c.UncachedUSD))
	}
	fmt.Fprintf(w, "\nnot simulated: what a strategy keeps once it compacts, its summaries, their probe scores and its cost, which need the messages; to get them, %s\n", CaptureContent)
}

func minContext(calls []TokenCall) int64 {
	lo := int64(math.MaxInt64)
	for _, c := range calls {
		if !c.NoUsage {
			lo = min(lo, c.Context)
		}
	}
	if lo == math.MaxInt64 {
		return 0
	}
	return lo
}

func maxContext(calls []TokenCall) int64 {
	var hi int64
	for _, c := range calls {
		hi = max(hi, c.Context)
	}
	return hi
}
