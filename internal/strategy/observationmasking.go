package strategy

import (
	"context"
	"fmt"
	"strings"
)

func init() {
	Registry[NameObservationMasking] = newObservationMasking
	About[NameObservationMasking] = "at every step, every tool result but the newest 10 becomes \"Old environment output: (N lines omitted)\"; no summarizer (JetBrains, \"The Complexity Trap\", 2025: SWE-agent's last_n_observations)"
	Rewrites[NameObservationMasking] = func(m *Message, _ *ToolCall, _ Config) string { return MaskPlaceholder(m.Content) }
}

// ObservationMaskingKeep is how many of the newest tool results
// observation masking keeps whole (the paper's window of 10).
const ObservationMaskingKeep = 10

// MaskPlaceholder is what observation masking puts in place of a tool
// result: SWE-agent's "Old environment output: (N lines omitted)", N the
// result's lines as Python's splitlines counts them.
func MaskPlaceholder(content string) string {
	return fmt.Sprintf("Old environment output: (%d lines omitted)", countLines(content))
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// observationMasking is JetBrains' observation masking ("The Complexity
// Trap", 2025), SWE-agent's last_n_observations history processor: at
// every step every tool result but the newest keep_results (10) is
// replaced by MaskPlaceholder. The agent's reasoning, its calls and the
// user's messages stay whole; there is no trigger and no summarizer. A
// result shorter than its placeholder stays as it is. Each step that
// masks something is a compaction; the prompt cache keeps the view up to
// the first result it masks.
type observationMasking struct {
	rview
	keep int
	next int // tools[:next] are masked or passed over
}

func newObservationMasking(cfg Config) (Strategy, error) {
	v, err := newRView(cfg)
	if err != nil {
		return nil, err
	}
	return &observationMasking{rview: v, keep: max(0, int(extraOr(cfg, "keep_results", ObservationMaskingKeep)))}, nil
}

func (s *observationMasking) Name() string { return NameObservationMasking }

// Checkpoint implements Guarded.
func (s *observationMasking) Checkpoint() func() {
	restore, next := s.checkpoint(), s.next
	return func() { restore(); s.next = next }
}

// Step implements Strategy.
func (s *observationMasking) Step(ctx context.Context, hist []Message, i int, sum Summarizer) (StepReport, error) {
	s.appendUpTo(hist, i)
	r := StepReport{Boundary: -1, ContextTokens: s.tokens()}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	replaced, first := s.mask(&s.next, len(s.tools)-s.keep, MaskPlaceholder)
	if len(replaced) == 0 {
		return r, nil
	}
	r.Fired, r.Compacted, r.Replaced = true, len(replaced), replaced
	r.KeptPrefix = s.before(first)
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	return r, nil
}
