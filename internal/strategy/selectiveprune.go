package strategy

import (
	"context"
	"fmt"
	"slices"

	"github.com/compactlab/compact/internal/history"
)

func init() {
	Registry[NameSelectivePrune] = newSelectivePrune
	About[NameSelectivePrune] = "tool results over 500 characters, older than the last 10 messages, become a stub with a 200-character extract; no summarizer (YourGPT copilot-sdk)"
	Rewrites[NameSelectivePrune] = PrunedContent
}

// selectivePrune is YourGPT's selective prune (peers.md B3). The view is
// every message; at each step the messages older than the last
// recentBuffer (counted over all messages) are looked at once:
//
//   - a tool message over PruneThreshold characters becomes the JSON of
//     its CompactedToolResult stub (extract of PruneExtract characters);
//   - a system message whose first 100 characters repeat an earlier
//     system message's becomes YourGPTDedupPlaceholder, at any age.
//
// A step that rewrites something is a compaction (no summarizer). Each
// message is tried once: when the guardrail rejects a step because the
// stubs were not smaller, those messages stay as they were for good. The
// tool-result cap applies last.
type selectivePrune struct {
	yourgpt
	threshold, extract int

	hist    []Message
	calls   map[string]*ToolCall
	cur     []float64 // sent estimate by history index
	over    map[int]string
	fp      map[string]bool
	pending []int // system messages to deduplicate
	scan    int   // next history index to look at for stubs
	tried   map[int]bool
	nsys    int

	total   float64
	rawSum  float64 // Σ sent estimates of every message as it was
	fw      fenwick // cur, for the tokens before a rewritten message
	journal []pruneEdit
}

type pruneEdit struct {
	k       int
	had     bool
	content string
	tok     float64
}

func newSelectivePrune(cfg Config) (Strategy, error) {
	y, err := newYourGPT(cfg)
	if err != nil {
		return nil, err
	}
	return &selectivePrune{
		yourgpt:   y,
		threshold: intOr(cfg.PruneThreshold, YourGPTPruneThreshold),
		extract:   intOr(cfg.PruneExtract, YourGPTPruneExtract),
		calls:     map[string]*ToolCall{},
		over:      map[int]string{},
		fp:        map[string]bool{},
		tried:     map[int]bool{},
	}, nil
}

func (s *selectivePrune) Name() string { return NameSelectivePrune }

func (s *selectivePrune) appendUpTo(hist []Message, i int) {
	s.hist = hist
	for k := s.upto + 1; k <= i; k++ {
		m := &hist[k]
		for c := range m.ToolCalls {
			s.calls[m.ToolCalls[c].ID] = &m.ToolCalls[c]
		}
		if m.Role == RoleSystem {
			s.nsys++
			if m.Content != "" {
				key := history.Slice16(m.Content, 100)
				if s.fp[key] {
					s.pending = append(s.pending, k)
				} else {
					s.fp[key] = true
				}
			}
		}
		t := s.sentTokens(m, m.Content)
		s.cur = append(s.cur, t)
		s.fw.push(t)
		s.total += t
		s.rawSum += t
	}
	s.upto = max(s.upto, i)
}

func (s *selectivePrune) tokens() float64 { return s.overhead + s.total }

func (s *selectivePrune) rawTokens() float64 { return s.overhead + s.rawSum }

// State implements Guarded.
func (s *selectivePrune) State() (int, int, float64) { return s.upto + 1, 0, s.tokens() }

// Checkpoint implements Guarded. The tried marks are not restored.
func (s *selectivePrune) Checkpoint() func() {
	n := len(s.journal)
	return func() {
		for j := len(s.journal) - 1; j >= n; j-- {
			e := s.journal[j]
			if e.had {
				s.over[e.k] = e.content
			} else {
				delete(s.over, e.k)
			}
			s.total += e.tok - s.cur[e.k]
			s.cur[e.k] = e.tok
			s.fw.set(e.k, e.tok)
		}
		s.journal = s.journal[:n]
	}
}

func (s *selectivePrune) rewrite(k int, content string) {
	old, had := s.over[k]
	s.journal = append(s.journal, pruneEdit{k: k, had: had, content: old, tok: s.cur[k]})
	s.over[k] = content
	t := s.sentTokens(&s.hist[k], content)
	s.total += t - s.cur[k]
	s.cur[k] = t
	s.fw.set(k, t)
}

// Step implements Strategy.
func (s *selectivePrune) Step(ctx context.Context, hist []Message, i int, sum Summarizer) (StepReport, error) {
	s.appendUpTo(hist, i)
	r := StepReport{Boundary: -1, ContextTokens: s.tokens()}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	stubs, dedups := 0, 0
	var replaced []int
	for _, k := range s.pending {
		if !s.tried[k] {
			s.tried[k] = true
			s.rewrite(k, YourGPTDedupPlaceholder)
			dedups++
			replaced = append(replaced, k)
		}
	}
	s.pending = s.pending[:0]
	cutoff := i + 1 - s.recentBuf
	for ; s.scan < cutoff; s.scan++ {
		k := s.scan
		m := &hist[k]
		if m.Role != RoleTool || s.tried[k] || history.Len16(m.Content) <= s.threshold {
			continue
		}
		s.tried[k] = true
		s.rewrite(k, stubJSON(ToolResultStub(m, s.calls[m.ToolCallID], s.extract)))
		stubs++
		replaced = append(replaced, k)
	}
	if stubs+dedups == 0 {
		return r, nil
	}
	r.Fired = true
	r.Compacted = stubs + dedups
	slices.Sort(replaced)
	r.Replaced = replaced
	r.Note = fmt.Sprintf("%d tool results stubbed, %d system messages deduplicated", stubs, dedups)
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	r.KeptPrefix = s.overhead + s.fw.prefix(replaced[0]) // the view is the history, in order
	return r, nil
}

// View implements Strategy.
func (s *selectivePrune) View() []Message {
	out := make([]Message, 0, s.upto+1)
	for k := 0; k <= s.upto; k++ {
		m := s.hist[k]
		if c, ok := s.over[k]; ok {
			m.Content = c
		}
		m.Content = s.capped(&m, m.Content)
		out = append(out, m)
	}
	return out
}
