package strategy

import (
	"context"
	"fmt"
	"strings"

	"github.com/compactlab/compact/internal/history"
)

func init() {
	Registry[NameSummaryBuffer] = newSummaryBuffer
	About[NameSummaryBuffer] = "at 75% of the window, all but the last 10 messages are summarized, with a working memory of facts ahead of the summary (YourGPT copilot-sdk)"
}

// Summary-buffer headings and prompt (peers.md B3-B5; our wording).
const (
	WorkingMemoryHeading = "[Working memory — always active]"
	SummaryHeading       = "[Previous conversation summary]"
	FallbackHeading      = "[Additional context]"
	// RememberPrefix starts a user message that adds a working-memory fact
	// (case-insensitive, after leading spaces).
	RememberPrefix = "remember:"

	SummaryBufferSystemPrompt = "You maintain the running summary of a conversation between a user and an AI assistant; the summary replaces the older messages in the assistant's context.\n\n" +
		"Write a structured summary that covers: what the user is trying to achieve; the technical decisions taken (libraries, schemas, approaches); every tool call that mattered, with its name, key arguments, whether it worked and a short result; the errors met and how they were resolved; the user's own messages, quoted when short and paraphrased otherwise; the tasks still pending; and the state the work is in now.\n\n" +
		"Keep every specific value exactly: file names, variable names, URLs, error messages, ids. Give more detail to recent work than to old work. Write structured prose, not JSON, and no commentary about the summary itself."
)

// summaryBuffer is YourGPT's summary buffer with working memory (peers.md
// B3, B4), with the two defects fixed:
//
//   - B3: the display history never shrank, so each compaction re-sent the
//     messages an earlier one had already summarized. Here a cursor marks
//     the last summarized message: a compaction summarizes only the
//     messages after it (and before the last recentBuffer), and the view
//     no longer holds them.
//   - B4: usage was measured over the whole display history, so once over
//     the threshold it stayed there and auto-compaction never fired again.
//     Here the trigger measures the view (ContextTokens / window >=
//     threshold), which shrinks after a compaction, so it can fire again.
//
// View, in order: a system message WorkingMemoryHeading + the facts one per
// line (when there are facts: Config.WorkingMemory, then each user message
// starting with "remember:"), a system message SummaryHeading + the rolling
// summary (when there is one), the history's system messages, then every
// conversation message after the cursor (right after a compaction: the
// last recentBuffer), tool results capped. Upstream sends only the last
// recentBuffer messages even before anything is summarized; we keep the
// not-yet-summarized ones until a compaction covers them, so nothing is
// lost without a summary.
//
// When the summarizer fails, the no-LLM fallback is used: the old summary,
// then FallbackHeading, then "role: first 200 characters" per user and
// assistant message (just the lines when there is no old summary).
type summaryBuffer struct {
	yourgpt
	target int

	hist   []Message
	conv   []int
	sent   []float64
	sys    []int
	sysTok float64
	facts  []string
	wmTok  float64
	rawSum float64 // Σ sent estimates of every message so far

	// Compaction state.
	pos     int // conv[pos:] is in the view
	summary string
	sumTok  float64
	viewSum float64
}

func newSummaryBuffer(cfg Config) (Strategy, error) {
	y, err := newYourGPT(cfg)
	if err != nil {
		return nil, err
	}
	s := &summaryBuffer{yourgpt: y, target: intOr(cfg.TargetChars, YourGPTSummaryTarget)}
	for _, f := range cfg.WorkingMemory {
		s.addFact(f)
	}
	return s, nil
}

func (s *summaryBuffer) Name() string { return NameSummaryBuffer }

func (s *summaryBuffer) addFact(f string) {
	f = strings.TrimSpace(f)
	if f == "" {
		return
	}
	for _, g := range s.facts {
		if g == f {
			return
		}
	}
	s.facts = append(s.facts, f)
	s.wmTok = yourgptText(s.counter, s.workingMemory())
}

func (s *summaryBuffer) workingMemory() string {
	return WorkingMemoryHeading + "\n" + strings.Join(s.facts, "\n")
}

// RememberFact returns the fact a user message adds to working memory
// ("remember: X" gives X), ok false when it adds none.
func RememberFact(content string) (string, bool) {
	t := strings.TrimLeft(content, " \t\r\n")
	if len(t) < len(RememberPrefix) || !strings.EqualFold(t[:len(RememberPrefix)], RememberPrefix) {
		return "", false
	}
	f := strings.TrimSpace(t[len(RememberPrefix):])
	return f, f != ""
}

func (s *summaryBuffer) appendUpTo(hist []Message, i int) {
	s.hist = hist
	for k := s.upto + 1; k <= i; k++ {
		m := &hist[k]
		t := s.sentTokens(m, m.Content)
		s.sent = append(s.sent, t)
		s.rawSum += t
		if m.Role == RoleUser {
			if f, ok := RememberFact(m.Content); ok {
				s.addFact(f)
			}
		}
		if m.Role == RoleSystem {
			s.sys = append(s.sys, k)
			s.sysTok += t
			continue
		}
		s.conv = append(s.conv, k)
		s.viewSum += t
	}
	s.upto = max(s.upto, i)
}

func (s *summaryBuffer) tokens() float64 {
	t := s.overhead + s.sysTok + s.viewSum
	if len(s.facts) > 0 {
		t += s.wmTok
	}
	if s.summary != "" {
		t += s.sumTok
	}
	return t
}

func (s *summaryBuffer) rawTokens() float64 {
	t := s.overhead + s.rawSum
	if len(s.facts) > 0 {
		t += s.wmTok
	}
	return t
}

// State implements Guarded.
func (s *summaryBuffer) State() (int, int, float64) {
	return len(s.sys) + len(s.conv) - s.pos, history.Len16(s.summary), s.tokens()
}

// Checkpoint implements Guarded.
func (s *summaryBuffer) Checkpoint() func() {
	pos, sm, st := s.pos, s.summary, s.sumTok
	return func() {
		s.pos, s.summary, s.sumTok = pos, sm, st
		// Messages appended since the checkpoint stay.
		s.viewSum = 0
		for _, k := range s.conv[s.pos:] {
			s.viewSum += s.sent[k]
		}
	}
}

// FallbackSummary is the no-LLM summary: previous, then FallbackHeading,
// then "role: first 200 characters" for each user and assistant message.
func FallbackSummary(previous string, msgs []Message) string {
	var lines []string
	for k := range msgs {
		if m := &msgs[k]; m.Role == RoleUser || m.Role == RoleAssistant {
			lines = append(lines, m.Role+": "+history.Slice16(m.Content, 200))
		}
	}
	body := strings.Join(lines, "\n")
	if previous != "" {
		return previous + "\n\n" + FallbackHeading + "\n" + body
	}
	return body
}

// SummaryBufferUser is the user message of a compaction request (the
// SDK's server layout): blocks separated by "---": the working memory, the
// previous summary, then the conversation as "ROLE: content" lines.
func SummaryBufferUser(facts []string, previous string, msgs []Message) string {
	var blocks []string
	if len(facts) > 0 {
		blocks = append(blocks, "Working memory (always preserve these facts):\n"+strings.Join(facts, "\n"))
	}
	if previous != "" {
		blocks = append(blocks, "Previous summary (extend and update it):\n"+previous)
	}
	var conv strings.Builder
	conv.WriteString("Conversation to summarize:")
	for k := range msgs {
		m := &msgs[k]
		conv.WriteString("\n")
		conv.WriteString(strings.ToUpper(m.Role))
		conv.WriteString(": ")
		conv.WriteString(m.Content)
		if len(m.ToolCalls) > 0 {
			names := make([]string, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				names[j] = tc.Name + "(" + tc.Arguments + ")"
			}
			conv.WriteString(" [tool calls: " + strings.Join(names, ", ") + "]")
		}
	}
	blocks = append(blocks, conv.String())
	return strings.Join(blocks, "\n\n---\n\n")
}

// Step implements Strategy.
func (s *summaryBuffer) Step(ctx context.Context, hist []Message, i int, sum Summarizer) (StepReport, error) {
	s.appendUpTo(hist, i)
	r := StepReport{Boundary: -1, ContextTokens: s.tokens()}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	if !(r.ContextTokens/float64(s.window) >= s.threshold) {
		return r, nil
	}
	r.Fired = true
	end := max(s.pos, len(s.conv)-s.recentBuf) // conv[pos:end] are summarized
	if end <= s.pos {
		r.Note = "every message in the view is recent: nothing to summarize"
		return r, nil
	}
	if s.hold {
		r.Rejected, r.Note = RejectCap, "the summarizer was called in the previous steps: held"
		return r, nil
	}
	msgs := make([]Message, 0, end-s.pos)
	for _, k := range s.conv[s.pos:end] {
		msgs = append(msgs, hist[k])
	}
	bk := s.conv[end]
	req := SummaryRequest{
		Strategy:      NameSummaryBuffer,
		System:        SummaryBufferSystemPrompt,
		User:          SummaryBufferUser(s.facts, s.summary, msgs),
		Compacted:     msgs,
		Previous:      s.summary,
		TargetChars:   s.target,
		BoundaryID:    hist[bk].ID,
		Boundary:      &hist[bk],
		WorkingMemory: append([]string(nil), s.facts...),
	}
	text, err := sum.Summarize(ctx, req)
	r.SummarizerCalled = true
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		r.Note = "summarizer failed (" + err.Error() + "): no-LLM fallback"
		text = FallbackSummary(s.summary, msgs)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		r.Note = joinNote(r.Note, "empty summary: nothing stored")
		return r, nil
	}
	for _, k := range s.conv[s.pos:end] {
		s.viewSum -= s.sent[k]
	}
	s.pos = end
	s.summary = text
	s.sumTok = yourgptText(s.counter, SummaryHeading+"\n"+text)
	r.Boundary, r.BoundaryID = bk, hist[bk].ID
	r.Compacted, r.Summary = len(msgs), text
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	// The working memory leads the view; the summary after it is new.
	r.KeptPrefix = s.overhead
	if len(s.facts) > 0 {
		r.KeptPrefix += s.wmTok
	}
	if r.Note == "" {
		r.Note = fmt.Sprintf("%d messages summarized", len(msgs))
	}
	return r, nil
}

// View implements Strategy.
func (s *summaryBuffer) View() []Message {
	out := make([]Message, 0, 2+len(s.sys)+len(s.conv)-s.pos)
	if len(s.facts) > 0 {
		out = append(out, Message{ID: "working-memory", Role: RoleSystem, Content: s.workingMemory()})
	}
	if s.summary != "" {
		out = append(out, Message{ID: "summary", Role: RoleSystem, Content: SummaryHeading + "\n" + s.summary})
	}
	for _, k := range s.sys {
		out = append(out, s.hist[k])
	}
	for _, k := range s.conv[s.pos:] {
		m := s.hist[k]
		m.Content = s.capped(&m, m.Content)
		out = append(out, m)
	}
	return out
}
