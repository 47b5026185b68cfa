package strategy

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/compactlab/compact/internal/history"
)

func init() {
	Registry[NameCodexUserRetention] = newCodexUserRetention
	About[NameCodexUserRetention] = "at 90% of the window, the whole view is summarized and only the user messages stay, newest first up to 20,000 tokens, ahead of the summary (OpenAI Codex CLI's compact; COMPACT_USER_MESSAGE_MAX_TOKENS)"
}

// Codex's compaction defaults (codex-rs/core/src/compact.rs; the
// auto-compact limit is 90% of the window).
const (
	CodexThreshold  = 0.9
	CodexUserBudget = 20000
)

// Our wording of Codex's compaction prompt and of the prefix of the
// summary it puts in the history.
const (
	CodexSystemPrompt = "You are making a context checkpoint: write a handoff summary for another model that will take the task over from here. " +
		"Give the progress so far and the decisions taken, the context, constraints and preferences that matter, what remains to be done as clear next steps, and any data, examples or references needed to go on. " +
		"Be concise and structured."
	CodexSummaryPrefix = "Another model started this task and wrote the summary below of what it did; build on it and do not redo finished work."
)

// codexUserRetention is the compaction of OpenAI's Codex CLI (local,
// inline): when the context reaches threshold (0.9) of the window, the
// whole view (the user messages kept before, the summary, everything
// since) is summarized, and the new view is the user messages alone,
// newest first while they fit user_budget (20,000 tokens, counted as
// characters / 4; the one that does not fit is cut to what is left),
// then the summary with a handoff prefix. The system messages stay. The
// published code keeps 20,000 tokens of user messages
// (COMPACT_USER_MESSAGE_MAX_TOKENS); a budget of 64,000 is
// --sweep user_budget=64000.
type codexUserRetention struct {
	rview
	threshold float64
	budget    float64
	target    int
	last      string // the last summary, without its prefix
}

func newCodexUserRetention(cfg Config) (Strategy, error) {
	v, err := newRView(cfg)
	if err != nil {
		return nil, err
	}
	return &codexUserRetention{
		rview:     v,
		threshold: floatOr(cfg.Threshold, CodexThreshold),
		budget:    extraOr(cfg, "user_budget", scaled(CodexUserBudget, v.window, 0.1)),
		target:    summaryTarget(cfg, v.window),
	}, nil
}

func (s *codexUserRetention) Name() string { return NameCodexUserRetention }

// Checkpoint implements Guarded.
func (s *codexUserRetention) Checkpoint() func() {
	restore, last := s.checkpoint(), s.last
	return func() { restore(); s.last = last }
}

// approxTokens is Codex's approx_token_count: characters / 4, rounded up.
func approxTokens(s string) float64 { return math.Ceil(float64(history.Len16(s)) / 4) }

// CodexRetained is what Codex keeps of users, the user messages of a
// history in order: the newest first while they fit budget tokens
// (characters / 4), the first that does not fit cut to the tokens left
// with a note; returned in order.
func CodexRetained(users []Message, budget float64) []Message {
	var out []Message
	left := budget
	for k := len(users) - 1; k >= 0 && left > 0; k-- {
		m := users[k]
		t := approxTokens(m.Content)
		if t > left {
			m.Content = history.Slice16(m.Content, int(left)*4) + fmt.Sprintf("\n…[%s tokens truncated]", fmtTokens(t-left))
			out = append(out, m)
			break
		}
		left -= t
		out = append(out, m)
	}
	for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
		out[a], out[b] = out[b], out[a]
	}
	return out
}

// Step implements Strategy.
func (s *codexUserRetention) Step(ctx context.Context, hist []Message, i int, sum Summarizer) (StepReport, error) {
	s.appendUpTo(hist, i)
	r := StepReport{Boundary: -1, ContextTokens: s.tokens()}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	if !(r.ContextTokens >= s.threshold*float64(s.window)) {
		return r, nil
	}
	r.Fired = true
	if s.start == len(s.conv) {
		r.Note = "nothing since the last compaction"
		return r, nil
	}
	if s.hold {
		r.Rejected, r.Note = RejectCap, "the summarizer was called in the previous steps: held"
		return r, nil
	}
	msgs := s.messages(s.start, len(s.conv))
	req := SummaryRequest{
		Strategy:    NameCodexUserRetention,
		System:      CodexSystemPrompt,
		User:        transcript(s.summary, s.retained, nil, 0, msgs),
		Compacted:   msgs,
		Previous:    s.last,
		TargetChars: s.target,
	}
	text, note, err := callSummarizer(ctx, sum, req, &r)
	if err != nil {
		return r, err
	}
	if note != "" {
		r.Note = note
		return r, nil
	}
	users := append([]Message(nil), s.retained...)
	for k := range msgs {
		if msgs[k].Role == RoleUser {
			users = append(users, msgs[k])
		}
	}
	kept := CodexRetained(users, s.budget)
	s.setRetained(kept)
	s.setSummary(CodexSummaryPrefix + "\n\n" + text)
	s.last = text
	s.setStart(len(s.conv))
	var b strings.Builder
	for k := range kept {
		b.WriteString(kept[k].Content)
		b.WriteString("\n\n")
	}
	b.WriteString(text)
	r.Compacted, r.Summary, r.Briefing = len(msgs), text, b.String()
	r.Note = fmt.Sprintf("%d user messages kept", len(kept))
	r.KeptPrefix = s.overhead + s.sysTok
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	return r, nil
}
