package strategy

import (
	"context"
	"fmt"
)

func init() {
	Registry[NameToolClearing] = newToolClearing
	About[NameToolClearing] = "when the context passes 100,000 tokens (at most half the window), every tool result but the newest 3 is cleared; no summarizer (Anthropic's clear_tool_uses context editing; keep_results=5 is Claude Code's microcompact)"
	Rewrites[NameToolClearing] = func(*Message, *ToolCall, Config) string { return ClearedPlaceholder }
}

// Tool-result clearing defaults (Anthropic's clear_tool_uses_20250919).
const (
	ToolClearingTrigger = 100000
	ToolClearingKeep    = 3
	// ClearedPlaceholder replaces a cleared tool result (our wording).
	ClearedPlaceholder = "[tool result cleared to save context]"
)

// toolClearing is Anthropic's tool-result clearing (context editing,
// clear_tool_uses): when the context passes trigger_tokens (100,000, or
// half the window when that is smaller: the published trigger is for
// 200,000-token windows), every tool result but the newest keep_results
// (3; Claude Code's microcompact keeps 5) is replaced by
// ClearedPlaceholder, the calls themselves kept; with clear_at_least, only
// when that frees at least so many tokens (clearing invalidates the
// prompt cache from the first cleared result on). Cleared results stay
// cleared (Claude Code persists them; the API clears them again on every
// request over the trigger). No summarizer.
type toolClearing struct {
	rview
	trigger, atLeast float64
	keep             int
	next             int // tools[:next] are cleared or passed over
}

func newToolClearing(cfg Config) (Strategy, error) {
	v, err := newRView(cfg)
	if err != nil {
		return nil, err
	}
	return &toolClearing{
		rview:   v,
		trigger: extraOr(cfg, "trigger_tokens", scaled(ToolClearingTrigger, v.window, 0.5)),
		atLeast: extraOr(cfg, "clear_at_least", 0),
		keep:    max(0, int(extraOr(cfg, "keep_results", ToolClearingKeep))),
	}, nil
}

func (s *toolClearing) Name() string { return NameToolClearing }

// Checkpoint implements Guarded.
func (s *toolClearing) Checkpoint() func() {
	restore, next := s.checkpoint(), s.next
	return func() { restore(); s.next = next }
}

func cleared(string) string { return ClearedPlaceholder }

// Step implements Strategy.
func (s *toolClearing) Step(ctx context.Context, hist []Message, i int, sum Summarizer) (StepReport, error) {
	s.appendUpTo(hist, i)
	r := StepReport{Boundary: -1, ContextTokens: s.tokens()}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	if !(r.ContextTokens > s.trigger) {
		return r, nil
	}
	r.Fired = true
	until := len(s.tools) - s.keep
	if s.atLeast > 0 {
		freed := 0.0
		for j := s.next; j < until; j++ {
			p := s.tools[j]
			if p < s.start || s.rewritten(p) {
				continue
			}
			m := &s.hist[s.conv[p]]
			freed += max(0, s.fw.v[p]-plainTokens(s.counter, ClearedPlaceholder, m))
		}
		if freed < s.atLeast {
			r.Note = fmt.Sprintf("clearing would free %s tokens, under clear_at_least (%s): not cleared", fmtTokens(freed), fmtTokens(s.atLeast))
			return r, nil
		}
	}
	replaced, first := s.mask(&s.next, until, cleared)
	if len(replaced) == 0 {
		r.Note = fmt.Sprintf("over the trigger (%s tokens) with no tool result left to clear", fmtTokens(s.trigger))
		return r, nil
	}
	r.Compacted, r.Replaced = len(replaced), replaced
	r.KeptPrefix = s.before(first)
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	return r, nil
}
