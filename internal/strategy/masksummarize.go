package strategy

import (
	"context"
)

func init() {
	Registry[NameMaskThenSummarize] = newMaskThenSummarize
	About[NameMaskThenSummarize] = "observation masking (the newest 10 tool results kept), and when the view holds 43 turns, a summary of all but the newest 10 (JetBrains' hybrid, \"The Complexity Trap\", 2025)"
	Rewrites[NameMaskThenSummarize] = func(m *Message, _ *ToolCall, _ Config) string { return MaskPlaceholder(m.Content) }
}

// The hybrid's defaults (the paper's SWE-agent configuration:
// summarize_every_n_turns n 43, keep_last_m_turns 10, then
// last_n_observations n 10).
const (
	HybridSummaryTurns = 43
	HybridKeepTurns    = 10
)

// MaskThenSummarizeSystemPrompt is our wording of the paper's summary
// prompt (a state summary in fixed sections).
const MaskThenSummarizeSystemPrompt = "You keep the running state summary of an autonomous coding agent. You are given the previous summary, if any, and the agent's latest actions and what they returned. " +
	"Write the new summary in these sections, each short: USER_CONTEXT (the task and the user's requirements), COMPLETED (what is done, with results), PENDING (what is left), CURRENT_STATE, CODE_STATE (files, functions), TESTS (failing cases, errors), CHANGES (edits made). " +
	"Keep exact paths, names and error messages; leave out what does not bear on the task."

// maskThenSummarize is the hybrid of "The Complexity Trap": SWE-agent's
// history processors summarize_every_n_turns, then last_n_observations.
// At each step, when the view holds summary_turns (43) turns (assistant
// messages) since the last summary, everything before the keep_turns-th
// newest (10) is summarized, the previous summary with it, from the
// messages as they were (the summary comes first, the masking after);
// then every tool result but the newest keep_results (10) is masked
// (MaskPlaceholder). The summary leads the conversation in the view.
type maskThenSummarize struct {
	rview
	keep, every, keepTurns, target int
	next                           int // tools[:next] are masked or passed over
}

func newMaskThenSummarize(cfg Config) (Strategy, error) {
	v, err := newRView(cfg)
	if err != nil {
		return nil, err
	}
	return &maskThenSummarize{
		rview:     v,
		keep:      max(0, int(extraOr(cfg, "keep_results", ObservationMaskingKeep))),
		every:     max(1, int(extraOr(cfg, "summary_turns", HybridSummaryTurns))),
		keepTurns: max(0, int(extraOr(cfg, "keep_turns", HybridKeepTurns))),
		target:    summaryTarget(cfg, v.window),
	}, nil
}

func (s *maskThenSummarize) Name() string { return NameMaskThenSummarize }

// Checkpoint implements Guarded.
func (s *maskThenSummarize) Checkpoint() func() {
	restore, next := s.checkpoint(), s.next
	return func() { restore(); s.next = next }
}

// Step implements Strategy.
func (s *maskThenSummarize) Step(ctx context.Context, hist []Message, i int, sum Summarizer) (StepReport, error) {
	s.appendUpTo(hist, i)
	r := StepReport{Boundary: -1, ContextTokens: s.tokens()}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	summarized := 0
	if inView := len(s.steps) - firstAtOrAfter(s.steps, s.start); inView >= s.every {
		r.Fired = true
		var err error
		if summarized, err = s.summarize(ctx, sum, &r); err != nil {
			return r, err
		}
	}
	replaced, first := s.mask(&s.next, len(s.tools)-s.keep, MaskPlaceholder)
	if summarized == 0 && len(replaced) == 0 {
		return r, nil
	}
	r.Fired = true
	r.Compacted = summarized + len(replaced)
	if summarized > 0 {
		r.KeptPrefix = s.overhead + s.sysTok
	} else {
		r.Replaced, r.KeptPrefix = replaced, s.before(first)
	}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	return r, nil
}

// summarize summarizes the view before the keep_turns-th newest turn and
// returns how many messages it took out of the view.
func (s *maskThenSummarize) summarize(ctx context.Context, sum Summarizer, r *StepReport) (int, error) {
	cut := len(s.conv)
	if s.keepTurns > len(s.steps) {
		return 0, nil
	}
	if s.keepTurns > 0 {
		cut = s.steps[len(s.steps)-s.keepTurns]
	}
	if cut <= s.start {
		return 0, nil
	}
	if s.hold {
		r.Note = "summary held: the summarizer was called in the previous steps"
		return 0, nil
	}
	msgs := s.messages(s.start, cut)
	req := SummaryRequest{
		Strategy:    NameMaskThenSummarize,
		System:      MaskThenSummarizeSystemPrompt,
		User:        transcript(s.summary, msgs, nil, 0),
		Compacted:   msgs,
		Previous:    s.summary,
		TargetChars: s.target,
	}
	if cut < len(s.conv) {
		req.BoundaryID, req.Boundary = s.hist[s.conv[cut]].ID, &s.hist[s.conv[cut]]
	}
	text, note, err := callSummarizer(ctx, sum, req, r)
	if err != nil {
		return 0, err
	}
	if note != "" {
		r.Note = note
		return 0, nil
	}
	s.setSummary(text)
	s.setStart(cut)
	if cut < len(s.conv) {
		r.Boundary, r.BoundaryID = s.conv[cut], s.hist[s.conv[cut]].ID
	}
	r.Summary = text
	return len(msgs), nil
}
