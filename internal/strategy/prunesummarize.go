package strategy

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
)

func init() {
	Registry[NamePruneSummarize] = newPruneSummarize
	About[NamePruneSummarize] = "after each step, tool outputs beyond the newest 40,000 tokens are cleared when that frees over 20,000 (never in the last two user turns); at the usable window (the window less 52,000) all but the newest turns, up to 15,000 tokens, are summarized (OpenCode's session compaction: prune, then summary)"
	Rewrites[NamePruneSummarize] = func(*Message, *ToolCall, Config) string { return PrunedPlaceholder }
}

// OpenCode's compaction defaults (packages/opencode/src/session/
// compaction.ts and overflow.ts).
const (
	OpenCodePruneProtect = 40000 // PRUNE_PROTECT
	OpenCodePruneMinimum = 20000 // PRUNE_MINIMUM
	// OpenCodeOutputReserve and OpenCodeBuffer are what the usable window
	// leaves out: the output (at most OUTPUT_TOKEN_MAX) and
	// COMPACTION_BUFFER.
	OpenCodeOutputReserve = 32000
	OpenCodeBuffer        = 20000
	// The tail a summary keeps: a quarter of the usable window, between
	// these bounds.
	OpenCodeTailMin = 2000
	OpenCodeTailMax = 15000
	// OpenCodeToolOutputMax cuts each tool output of a summarization
	// request (TOOL_OUTPUT_MAX_CHARS).
	OpenCodeToolOutputMax = 2000
	// PrunedPlaceholder is OpenCode's text for a pruned tool output.
	PrunedPlaceholder = "[Old tool result content cleared]"
)

// OpenCodeProtectedTools are the tools whose outputs OpenCode never
// prunes.
var OpenCodeProtectedTools = []string{"skill"}

// PruneSummarizeSystemPrompt is our wording of OpenCode's compaction
// prompt.
const PruneSummarizeSystemPrompt = "You are summarizing a coding session so that it can go on in a fresh context. " +
	"Write a detailed summary for continuing the work: what was done, what is being done now, which files are being worked on and how, the decisions taken and why, what the user asked for and insisted on, and what comes next. " +
	"Keep exact file paths, commands, error messages and names. The newest messages will follow the summary verbatim: do not repeat them."

// pruneSummarize is OpenCode's session compaction:
//
//   - prune, after every step: walking back from the newest message,
//     past the last two user turns, over the tool outputs after the
//     summary (those of OpenCodeProtectedTools passed over), the first
//     prune_protect tokens (40,000) stay; the older ones, down to the
//     first already pruned, are replaced by PrunedPlaceholder, only when
//     they add up to more than prune_minimum (20,000);
//   - summary, when the context reaches the usable window (the window less
//     the output reserve, 32,000, and the buffer, 20,000; Config.Reserved
//     replaces both): all but the newest turns (user message to user
//     message) that fit tail_tokens (a quarter of the usable window,
//     between 2,000 and 15,000, or the quarter itself under 2,000; a turn
//     that does not fit whole is cut inside) are summarized, the previous summary with them; when no
//     tail fits or the tail is the whole view, everything is.
//
// The budgets are OpenCode's for windows of 200,000 tokens; for smaller
// windows each is at most the same share of the window.
type pruneSummarize struct {
	rview
	usable, protect, minimum, tail float64
	target                         int

	w         []float64 // w[j]: tokens of tools[:j], protected tools' as 0
	prot      []bool    // tools[j] is a protected tool's output
	protCalls map[string]bool
	p         int // tools[:p] are pruned or before the summary
}

func newPruneSummarize(cfg Config) (Strategy, error) {
	v, err := newRView(cfg)
	if err != nil {
		return nil, err
	}
	win := v.window
	reserve := scaled(OpenCodeOutputReserve, win, 0.16) + scaled(OpenCodeBuffer, win, 0.1)
	if cfg.Reserved > 0 {
		reserve = float64(cfg.Reserved)
	}
	usable := float64(win) - reserve
	quarter := math.Floor(usable * 0.25)
	s := &pruneSummarize{
		rview:     v,
		usable:    usable,
		protect:   extraOr(cfg, "prune_protect", scaled(OpenCodePruneProtect, win, 0.2)),
		minimum:   extraOr(cfg, "prune_minimum", scaled(OpenCodePruneMinimum, win, 0.1)),
		tail:      extraOr(cfg, "tail_tokens", math.Min(OpenCodeTailMax, math.Max(math.Min(OpenCodeTailMin, quarter), quarter))),
		target:    summaryTarget(cfg, win),
		w:         []float64{0},
		protCalls: map[string]bool{},
	}
	return s, nil
}

func (s *pruneSummarize) Name() string { return NamePruneSummarize }

// Checkpoint implements Guarded.
func (s *pruneSummarize) Checkpoint() func() {
	restore, p := s.checkpoint(), s.p
	return func() { restore(); s.p = p }
}

func (s *pruneSummarize) appendUpTo(hist []Message, i int) {
	from := s.upto + 1
	s.rview.appendUpTo(hist, i)
	for k := from; k <= i; k++ {
		for _, tc := range hist[k].ToolCalls {
			if slices.Contains(OpenCodeProtectedTools, tc.Name) {
				s.protCalls[tc.ID] = true
			}
		}
	}
	for j := len(s.w) - 1; j < len(s.tools); j++ {
		t, prot := s.fw.v[s.tools[j]], s.protCalls[hist[s.conv[s.tools[j]]].ToolCallID]
		if prot {
			t = 0
		}
		s.w = append(s.w, s.w[j]+t)
		s.prot = append(s.prot, prot)
	}
}

// Step implements Strategy.
func (s *pruneSummarize) Step(ctx context.Context, hist []Message, i int, sum Summarizer) (StepReport, error) {
	s.appendUpTo(hist, i)
	r := StepReport{Boundary: -1, ContextTokens: s.tokens()}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	if r.ContextTokens >= s.usable {
		r.Fired = true
		return s.summarize(ctx, i, sum, r)
	}
	lo, hi, freed := s.prunable()
	if hi <= lo || !(freed > s.minimum) {
		return r, nil
	}
	var replaced []int
	first := -1
	for j := lo; j < hi; j++ {
		p := s.tools[j]
		if s.prot[j] || s.rewritten(p) {
			continue
		}
		s.rewrite(p, PrunedPlaceholder)
		if first < 0 {
			first = p
		}
		replaced = append(replaced, s.conv[p])
	}
	s.p = hi
	if len(replaced) == 0 {
		return r, nil
	}
	r.Fired, r.Compacted, r.Replaced = true, len(replaced), replaced
	r.Note = fmt.Sprintf("%d tool outputs pruned (%s tokens)", len(replaced), fmtTokens(freed))
	r.KeptPrefix = s.before(first)
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	return r, nil
}

// prunable is OpenCode's prune walk, on prefix sums: the tool results
// tools[lo:hi] to prune and their tokens. The walk covers the tool
// results after the summary and the last pruned one, before the
// second-newest user message; walking back, a result is pruned once the
// results from it to the newest of them pass prune_protect.
func (s *pruneSummarize) prunable() (lo, hi int, freed float64) {
	if len(s.users) < 2 {
		return 0, 0, 0
	}
	u2 := s.users[len(s.users)-2]
	if u2 < s.start {
		return 0, 0, 0
	}
	lo = max(s.p, firstAtOrAfter(s.tools, s.start))
	q := firstAtOrAfter(s.tools, u2)
	if q <= lo || !(s.w[q]-s.w[lo] > s.protect) {
		return 0, 0, 0
	}
	limit := s.w[q] - s.protect
	hi = lo + sort.Search(q-lo, func(j int) bool { return s.w[lo+j] >= limit })
	return lo, hi, s.w[hi] - s.w[lo]
}

// tailStart is the position where the tail a summary keeps starts
// (len(conv): none).
func (s *pruneSummarize) tailStart() int {
	n := len(s.conv)
	total, keep, end := 0.0, -1, n
	for u := len(s.users) - 1; u >= 0 && s.users[u] >= s.start; u-- {
		ts := s.users[u]
		size := s.fw.sum(ts, end)
		if total+size <= s.tail {
			total += size
			keep, end = ts, ts
			continue
		}
		// splitTurn: the earliest start inside the turn whose rest fits.
		if rem := s.tail - total; rem > 0 && end-ts > 1 {
			j := max(ts+1, s.fw.search(s.fw.prefix(end)-rem))
			if j < end {
				keep = j
			}
		}
		break
	}
	if keep < 0 || keep == s.start {
		return n
	}
	return keep
}

func (s *pruneSummarize) summarize(ctx context.Context, i int, sum Summarizer, r StepReport) (StepReport, error) {
	if s.hold {
		r.Rejected, r.Note = RejectCap, "the summarizer was called in the previous steps: held"
		return r, nil
	}
	cut := s.tailStart()
	if cut <= s.start {
		r.Note = "nothing to summarize"
		return r, nil
	}
	msgs := s.messages(s.start, cut)
	contents := make([]string, len(msgs))
	for k := range msgs {
		contents[k] = s.content(s.start + k)
	}
	req := SummaryRequest{
		Strategy:    NamePruneSummarize,
		System:      PruneSummarizeSystemPrompt,
		User:        transcript(s.summary, msgs, contents, OpenCodeToolOutputMax),
		Compacted:   msgs,
		Previous:    s.summary,
		TargetChars: s.target,
	}
	if cut < len(s.conv) {
		req.BoundaryID, req.Boundary = s.hist[s.conv[cut]].ID, &s.hist[s.conv[cut]]
	}
	text, note, err := callSummarizer(ctx, sum, req, &r)
	if err != nil {
		return r, err
	}
	if note != "" {
		r.Note = note
		return r, nil
	}
	s.setSummary(text)
	s.setStart(cut)
	s.p = max(s.p, firstAtOrAfter(s.tools, cut))
	if cut < len(s.conv) {
		r.Boundary, r.BoundaryID = s.conv[cut], s.hist[s.conv[cut]].ID
	}
	r.Compacted, r.Summary = len(msgs), text
	r.KeptPrefix = s.overhead + s.sysTok
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	return r, nil
}
