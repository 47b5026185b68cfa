package strategy

import (
	"context"
	"fmt"
)

func init() {
	Registry[NameSlidingWindow] = newSlidingWindow
	About[NameSlidingWindow] = "the oldest messages that do not fit the window less 4,096 tokens are dropped, the last 10 always kept; no summarizer (YourGPT copilot-sdk)"
}

// slidingWindow is YourGPT's sliding window (peers.md B3) with its defect
// fixed. Budget = window − reserve − the system messages' tokens. When the
// view's conversation (everything but system messages) no longer fits, the
// window is recomputed over it: the last recentBuffer messages always
// stay, then older messages are added newest to oldest until the first one
// that does not fit; the start then moves forward to the first user or
// tool-less assistant message, so no tool result is cut from its call.
//
// The fix: upstream's forward move can go past the start of the recent
// buffer (when the buffer starts with tool results and nothing older fits)
// and drop messages the buffer promised to keep. Here, when the move would
// enter the buffer, the start moves backward instead, from the buffer's
// first message to the assistant message that made the tool call, so the
// whole buffer and the call it needs are kept. The same backward move
// applies when no safe message exists and the start would be a tool
// result (upstream then keeps the orphaned result).
//
// No summarizer. The view always keeps the system messages, the tool
// results capped (toolResultMaxChars). Sizes for the fit are the uncapped
// estimates (upstream caps after the strategy); ContextTokens is what is
// sent, capped.
type slidingWindow struct {
	yourgpt
	hist    []Message
	conv    []int     // history indices of the conversation messages
	raw     []float64 // uncapped estimate by history index
	sent    []float64 // capped estimate by history index
	sys     []int
	sysRaw  float64
	sysSent float64
	rawSent float64 // Σ sent estimates of every message so far

	start   int // conv[start:] is in the view
	viewRaw float64
	viewSnt float64
}

func newSlidingWindow(cfg Config) (Strategy, error) {
	y, err := newYourGPT(cfg)
	if err != nil {
		return nil, err
	}
	return &slidingWindow{yourgpt: y}, nil
}

func (s *slidingWindow) Name() string { return NameSlidingWindow }

func (s *slidingWindow) appendUpTo(hist []Message, i int) {
	s.hist = hist
	for k := s.upto + 1; k <= i; k++ {
		m := &hist[k]
		raw := yourgptTokens(s.counter, m.Content, m)
		snt := raw
		if c := s.capped(m, m.Content); c != m.Content {
			snt = yourgptTokens(s.counter, c, m)
		}
		s.raw, s.sent = append(s.raw, raw), append(s.sent, snt)
		s.rawSent += snt
		if m.Role == RoleSystem {
			s.sys = append(s.sys, k)
			s.sysRaw += raw
			s.sysSent += snt
			continue
		}
		s.conv = append(s.conv, k)
		s.viewRaw += raw
		s.viewSnt += snt
	}
	s.upto = max(s.upto, i)
}

func (s *slidingWindow) tokens() float64 { return s.overhead + s.sysSent + s.viewSnt }

func (s *slidingWindow) rawTokens() float64 { return s.overhead + s.rawSent }

// State implements Guarded.
func (s *slidingWindow) State() (int, int, float64) {
	return len(s.sys) + len(s.conv) - s.start, 0, s.tokens()
}

// Checkpoint implements Guarded.
func (s *slidingWindow) Checkpoint() func() {
	st := s.start
	return func() {
		s.start = st
		// Messages appended since the checkpoint stay.
		s.viewRaw, s.viewSnt = 0, 0
		for _, k := range s.conv[s.start:] {
			s.viewRaw += s.raw[k]
			s.viewSnt += s.sent[k]
		}
	}
}

// SlidingWindowStart computes the window over msgs (a conversation: no
// system messages), oldest first, with per-message estimates tokens and
// the budget left after the system messages. It returns the index of the
// first message kept (0 when everything fits) and whether the fix changed
// upstream's choice (moved the start back to a tool call).
func SlidingWindowStart(msgs []Message, tokens []float64, budget float64, recentBuffer int) (start int, movedBack bool) {
	return slidingWindowStart(len(msgs), func(j int) *Message { return &msgs[j] }, func(j int) float64 { return tokens[j] },
		sumTokens(tokens), budget, recentBuffer)
}

// slidingWindowStart is SlidingWindowStart over n messages given by
// accessors (the strategy's view, without copying it), total their sum.
func slidingWindowStart(n int, msg func(j int) *Message, tok func(j int) float64, total, budget float64, recentBuffer int) (start int, movedBack bool) {
	if n == 0 || total <= budget {
		return 0, false
	}
	recentStart := max(0, n-recentBuffer)
	available := budget
	for j := recentStart; j < n; j++ {
		available -= tok(j)
	}
	first := recentStart // first included message
	for k := recentStart - 1; k >= 0; k-- {
		if available-tok(k) < 0 {
			break
		}
		available -= tok(k)
		first = k
	}
	// findSafeWindowStart: the first user or tool-less assistant message;
	// none: the desired start.
	safe := first
	for k := first; k < n; k++ {
		if m := msg(k); m.Role == RoleUser || (m.Role == RoleAssistant && len(m.ToolCalls) == 0) {
			safe = k
			break
		}
	}
	if safe <= recentStart && msg(safe).Role != RoleTool {
		return safe, false
	}
	// The fix: never drop a message of the recent buffer, and never start
	// on a tool result; go back to the assistant message whose tool calls
	// the first tool results answer.
	b := min(safe, recentStart)
	for b > 0 && msg(b).Role == RoleTool {
		b--
	}
	return b, b != safe
}

// Step implements Strategy.
func (s *slidingWindow) Step(ctx context.Context, hist []Message, i int, sum Summarizer) (StepReport, error) {
	s.appendUpTo(hist, i)
	r := StepReport{Boundary: -1, ContextTokens: s.tokens()}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	budget := float64(s.window-s.reserve) - s.sysRaw
	if s.viewRaw <= budget {
		return r, nil
	}
	r.Fired = true
	view := s.conv[s.start:]
	start, back := slidingWindowStart(len(view), func(j int) *Message { return &hist[view[j]] },
		func(j int) float64 { return s.raw[view[j]] }, s.viewRaw, budget, s.recentBuf)
	if back {
		r.Note = fmt.Sprintf("window start moved back to message %d to keep the recent buffer and the tool call its results answer", view[start])
	}
	if start == 0 {
		r.Note = joinNote(r.Note, "nothing older than the recent buffer to drop")
		return r, nil
	}
	for _, k := range view[:start] {
		s.viewRaw -= s.raw[k]
		s.viewSnt -= s.sent[k]
	}
	s.start += start
	r.Boundary = view[start]
	r.BoundaryID = hist[r.Boundary].ID
	r.Compacted = start
	r.Replaced = append([]int(nil), view[:start]...)
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	r.KeptPrefix = s.overhead + s.sysSent // the system messages lead the view
	return r, nil
}

// View implements Strategy.
func (s *slidingWindow) View() []Message {
	out := make([]Message, 0, len(s.sys)+len(s.conv)-s.start)
	for _, k := range s.sys {
		m := s.hist[k]
		out = append(out, m)
	}
	for _, k := range s.conv[s.start:] {
		m := s.hist[k]
		m.Content = s.capped(&m, m.Content)
		out = append(out, m)
	}
	return out
}
