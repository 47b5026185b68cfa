package strategy

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Guardrail rejections, for StepReport.Rejected.
const (
	RejectNoShrink = "did not shrink"
	RejectCap      = "consecutive cap"
)

// Defaults shared by the strategies.
const (
	// DefaultContextWindow is the window of every strategy when
	// Config.ContextWindow is 0 (YourGPT's maxContextTokens).
	DefaultContextWindow = 128000
	// DefaultMaxConsecutive is the guardrail's cap on summarizer calls in
	// consecutive steps.
	DefaultMaxConsecutive = 2
)

// Guarded is what the driver needs from a strategy to apply the
// guardrails; every strategy of this package implements it.
type Guarded interface {
	Strategy
	// SetHold tells the next Step not to call the summarizer: when its
	// trigger fires it reports Fired with Rejected = RejectCap instead.
	SetHold(hold bool)
	// Checkpoint saves the compaction state; the returned function
	// restores it: the view as it was before the compaction, with the
	// messages the Step in between appended.
	Checkpoint() (restore func())
	// State reports the current view: history messages in it, the active
	// summary's length in UTF-16 units, and its size in tokens (system
	// overhead included).
	State() (kept, summaryChars int, tokens float64)
}

// rawCounter is implemented by the strategies that can say what their
// view would be with no compaction ever (StepReport.RawTokens).
type rawCounter interface {
	rawTokens() float64
}

// Names lists the registered strategies, sorted.
func Names() []string { return slices.Sorted(maps.Keys(Registry)) }

// New makes a fresh strategy by name.
func New(name string, cfg Config) (Strategy, error) {
	f, ok := Registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown strategy %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	return f(cfg)
}

// Simulate runs history through the named strategy step by step (every
// assistant message is a step) and returns the timeline. A tree (ParentID
// set) is simulated along the path from its root to its last message. sum
// nil means Builtin.
//
// Guardrails, applied to every strategy and reported in the steps:
//
//   - A compaction whose view is not smaller than the view before it
//     (AfterTokens >= ContextTokens) is undone: the view stays as it was,
//     Rejected = RejectNoShrink, Boundary = -1, Note gives the figures.
//   - After MaxConsecutive steps in a row that called the summarizer (2 by
//     default), the next step may not call it: a firing trigger is
//     reported with Rejected = RejectCap and nothing happens; the step
//     after may call it again.
//   - The triggers measure the view (what is sent), not the full history;
//     each strategy's Step does that.
func Simulate(ctx context.Context, history []Message, name string, cfg Config, sum Summarizer) (*Timeline, error) {
	s, err := New(name, cfg)
	if err != nil {
		return nil, err
	}
	if sum == nil {
		sum = Builtin{}
	}
	branch, err := SimulatedBranch(history)
	if err != nil {
		return nil, err
	}
	g, _ := s.(Guarded)
	rc, _ := s.(rawCounter)
	maxC := cfg.MaxConsecutive
	if maxC == 0 {
		maxC = DefaultMaxConsecutive
	}
	steps := 0
	for i := range branch {
		if branch[i].Role == RoleAssistant {
			steps++
		}
	}
	// One report per step, allocated once: growing a slice of reports
	// copied them again and again on a long history.
	tl := &Timeline{Strategy: s.Name(), Steps: make([]StepReport, 0, steps)}
	streak, step := 0, 0
	for i := range branch {
		if branch[i].Role != RoleAssistant {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		step++
		var restore func()
		if g != nil {
			g.SetHold(maxC > 0 && streak >= maxC)
			restore = g.Checkpoint()
		}
		r, err := s.Step(ctx, branch, i, sum)
		if err != nil {
			return nil, fmt.Errorf("%s: step %d (message %d, id %q): %w", name, step, i, branch[i].ID, err)
		}
		r.Step, r.Index, r.ID = step, i, branch[i].ID
		if r.SummarizerCalled {
			streak++
			tl.SummarizerCalls++
		} else {
			streak = 0
		}
		if r.Compacted > 0 && r.Rejected == "" && !(r.AfterTokens < r.ContextTokens) {
			note := fmt.Sprintf("compaction at boundary %d would send %s tokens instead of %s: undone",
				r.Boundary, fmtTokens(r.AfterTokens), fmtTokens(r.ContextTokens))
			if r.Boundary < 0 {
				note = fmt.Sprintf("compaction of %d messages would send %s tokens instead of %s: undone",
					r.Compacted, fmtTokens(r.AfterTokens), fmtTokens(r.ContextTokens))
			}
			r.Rejected, r.Note = RejectNoShrink, joinNote(r.Note, note)
			r.Boundary, r.BoundaryID, r.Compacted, r.Summary, r.Replaced = -1, "", 0, "", nil
			r.KeptPrefix, r.Briefing = 0, ""
			r.AfterTokens = r.ContextTokens
			if restore != nil {
				restore()
				r.KeptVerbatim, r.SummaryChars, _ = g.State()
			}
		}
		if r.Rejected != "" || r.Compacted == 0 {
			r.KeptPrefix, r.Briefing = 0, ""
		}
		if rc != nil {
			r.RawTokens = rc.rawTokens()
			tl.TokensRaw += r.RawTokens
		}
		if r.Rejected != "" {
			tl.Rejected++
		} else if r.Compacted > 0 {
			tl.Compactions++
			if r.Summary != "" {
				tl.FinalSummary = r.Summary
			}
		}
		tl.TokensSent += r.ContextTokens
		tl.PeakContext = max(tl.PeakContext, r.ContextTokens)
		tl.KeptAtEnd = r.KeptVerbatim
		tl.Steps = append(tl.Steps, r)
	}
	return tl, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func fmtTokens(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// SimulatedBranch returns the messages a simulation walks: history itself
// when no message has a ParentID, otherwise the path from the root to the
// last message (see Branch).
func SimulatedBranch(history []Message) ([]Message, error) {
	if len(history) == 0 {
		return history, nil
	}
	tree := false
	for i := range history {
		if history[i].ParentID != "" {
			tree = true
			break
		}
	}
	if !tree {
		return history, nil
	}
	return Branch(history, history[len(history)-1].ID)
}

// Branch returns the path from the root to the message leafID, oldest
// first, following ParentID. A message without ParentID is a root. A
// duplicate id, a ParentID that names no message, or a cycle is an error
// naming the message.
func Branch(tree []Message, leafID string) ([]Message, error) {
	idx, err := indexByID(tree)
	if err != nil {
		return nil, err
	}
	at, ok := idx[leafID]
	if !ok {
		return nil, fmt.Errorf("no message with id %q", leafID)
	}
	var path []int
	seen := map[int]bool{}
	for {
		if seen[at] {
			return nil, fmt.Errorf("message %q: parent_id cycle", tree[at].ID)
		}
		seen[at] = true
		path = append(path, at)
		p := tree[at].ParentID
		if p == "" {
			break
		}
		next, ok := idx[p]
		if !ok {
			return nil, fmt.Errorf("message %q: parent_id %q names no message", tree[at].ID, p)
		}
		at = next
	}
	out := make([]Message, len(path))
	for k, j := range path {
		out[len(path)-1-k] = tree[j]
	}
	return out, nil
}

// Leaves lists the ids of the messages no other message names as its
// parent, in the order of tree.
func Leaves(tree []Message) []string {
	parent := make(map[string]bool, len(tree))
	for i := range tree {
		if tree[i].ParentID != "" {
			parent[tree[i].ParentID] = true
		}
	}
	var out []string
	for i := range tree {
		if !parent[tree[i].ID] {
			out = append(out, tree[i].ID)
		}
	}
	return out
}

func indexByID(tree []Message) (map[string]int, error) {
	idx := make(map[string]int, len(tree))
	for i := range tree {
		id := tree[i].ID
		if id == "" {
			return nil, fmt.Errorf("message %d has no id", i)
		}
		if _, dup := idx[id]; dup {
			return nil, fmt.Errorf("message %q: duplicate id", id)
		}
		idx[id] = i
	}
	return idx, nil
}
