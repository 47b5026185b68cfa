package strategy

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/compactlab/compact/internal/boundary"
	"github.com/compactlab/compact/internal/briefing"
	"github.com/compactlab/compact/internal/estimate"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/serialize"
)

func init() {
	Registry[NameStagewise] = newStagewise
	About[NameStagewise] = "when the context passes 65% of the window (at most 200,000 tokens), a briefing replaces everything before the boundary the app's walk chooses (stagewise, the app's own)"
}

// stagewise is the app's own compression (spec stagewise.md §3-§7):
//
//   - trigger: after each step, ContextTokens (system overhead plus the
//     view's estimates) > min(threshold × window, hard cap), as
//     handlePostStep tests the step's usage;
//   - walk: boundary.Walk over the estimates of the view's messages (the
//     boundary message carrying the active briefing first), so the new
//     boundary is always after the previous one;
//   - request: serialize.Serialize of the view before the boundary (from
//     the previous briefing on, as upstream), the prompt pack's system
//     prompt and user message with the budget hint sized by the active
//     briefing (prev chars = its len16);
//   - placement: the briefing goes on the boundary message
//     (metadata.compressedHistory); the consumer drops everything before
//     the last message carrying a briefing and sends the briefing as a
//     <memory> text on it, so the view is [boundary message + briefing,
//     …rest], and the briefing counts in the view (the estimator counts
//     metadata.compressedHistory).
//
// Messages read from a database keep Raw; the briefing the app stored on
// them is ignored (the simulation places its own). Generic messages get a
// stagewise form (messageValue). System messages of a generic history stay
// in the view (the app keeps its system prompt outside the history) and
// take no part in the walk; Synthetic tool messages are skipped.
type stagewise struct {
	base
	params  boundary.Params
	estProf estimate.Profile
	serProf *serialize.Profile
	pack    *prompt.Pack
	locale  string
	target  int

	hist    []Message
	vals    []history.Value // Raw without its stored briefing (Raw messages only)
	est     []float64       // base estimate by history index (NaN possible)
	throws  []bool          // the upstream estimate throws on this message
	walk    []int           // history indices of the messages the walk sees
	sys     []int           // system messages (always in the view)
	sysTok  float64
	rawSum  float64 // Σ base estimates of every message so far, NaN counted as 0
	toolOut map[string]string

	// Compaction state (Checkpoint saves it).
	pos        int    // walk[pos] is the first message of the view
	active     string // briefing on walk[pos], "" none
	activeLen  int    // history.Len16(active), kept with it: State runs every step
	carrierEst float64
	viewSum    float64 // Σ estimates of walk[pos:], NaN counted as 0
}

func newStagewise(cfg Config) (Strategy, error) {
	b, err := newBase(cfg)
	if err != nil {
		return nil, err
	}
	prof := cfg.Profile
	if prof == "" {
		prof = boundary.ProfileE3E
	}
	agent := cfg.Agent
	if agent == "" {
		agent = boundary.AgentBase
	}
	p, err := boundary.AgentParams(prof, agent)
	if err != nil {
		return nil, fmt.Errorf("stagewise: %w", err)
	}
	if cfg.Threshold != 0 {
		p.Threshold = cfg.Threshold
	}
	p.MinUncompressed = cfg.MinUncompressed
	for k, v := range cfg.Extra {
		switch k {
		case "kept_fraction":
			p.KeptFraction = v
		case "kept_cap":
			p.KeptCap = v
		case "hard_cap":
			p.HardCap = v
		case "min_floor":
			p.MinFloor = int(v)
		}
	}
	s := &stagewise{base: b, params: p, estProf: estimate.Profiles[prof], serProf: serialize.Profiles[prof],
		pack: cfg.Pack, locale: cfg.Locale, toolOut: map[string]string{}}
	if s.pack == nil {
		if s.pack, err = prompt.Builtin(prompt.DefaultPackName); err != nil {
			return nil, err
		}
	}
	if s.locale == "" {
		s.locale = "en-US"
	}
	s.target = intOr(cfg.TargetChars, s.pack.TargetChars)
	return s, nil
}

func (s *stagewise) Name() string { return NameStagewise }

// StagewiseEstimate is the stagewise estimate of one message carrying
// briefing ("" none) under profile ("" e3e) and tokenizer ("" the upstream
// characters/4): estimateMessageTokens of Raw (an error when it throws), or
// the generic formula for a message without Raw (see the package's
// estimator notes).
func StagewiseEstimate(m *Message, briefing, profile, tokenizer string) (float64, error) {
	c, err := newCounter(tokenizer)
	if err != nil {
		return 0, err
	}
	if profile == "" {
		profile = boundary.ProfileE3E
	}
	if m.Raw == nil {
		return genericStagewiseTokens(c, m, briefing), nil
	}
	v := withBriefing(stripBriefing(*m.Raw), briefing, m.CreatedAt)
	if c != nil {
		return rawTokenizerTokens(c, v, briefing), nil
	}
	return estimate.Profiles[profile].MessageTokens(v)
}

// estimateOf is the estimate of history message k carrying briefing.
func (s *stagewise) estimateOf(k int, briefing string) (float64, bool) {
	m := &s.hist[k]
	if m.Raw == nil {
		return genericStagewiseTokens(s.counter, m, briefing), false
	}
	v := s.vals[k]
	if briefing != "" {
		v = withBriefing(v, briefing, m.CreatedAt)
	}
	if s.counter != nil {
		return rawTokenizerTokens(s.counter, v, briefing), false
	}
	t, err := s.estProf.MessageTokens(v)
	if err != nil {
		return 0, true
	}
	return t, false
}

func (s *stagewise) appendUpTo(hist []Message, i int) {
	s.hist = hist
	for k := s.upto + 1; k <= i; k++ {
		m := &hist[k]
		if m.Synthetic {
			s.vals, s.est, s.throws = append(s.vals, history.Value{}), append(s.est, 0), append(s.throws, false)
			continue
		}
		if m.Role == RoleTool && m.ToolCallID != "" {
			s.toolOut[m.ToolCallID] = m.Content
		}
		v := history.Value{}
		if m.Raw != nil {
			v = stripBriefing(*m.Raw)
		}
		s.vals = append(s.vals, v)
		t, threw := s.estimateOf(k, "")
		s.est, s.throws = append(s.est, t), append(s.throws, threw)
		s.rawSum += nan0(t)
		if m.Role == RoleSystem && m.Raw == nil {
			s.sys = append(s.sys, k)
			s.sysTok += nan0(t)
			continue
		}
		s.walk = append(s.walk, k)
		if len(s.walk)-1 >= s.pos {
			s.viewSum += nan0(t)
		}
	}
	s.upto = max(s.upto, i)
}

func nan0(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return f
}

// viewEstimates are the estimates of the view's messages, the first one
// carrying the active briefing.
func (s *stagewise) viewEstimates() (ests []float64, throwAt int) {
	throwAt = -1
	ests = make([]float64, 0, len(s.walk)-s.pos)
	for j, k := range s.walk[s.pos:] {
		t := s.est[k]
		if j == 0 && s.active != "" {
			t = s.carrierEst
		} else if s.throws[k] && throwAt < 0 {
			throwAt = k
		}
		ests = append(ests, t)
	}
	return ests, throwAt
}

// viewEntries says which messages of the view have no id, for the
// agent-core walk (boundary.Params.NeedBoundaryID): a stagewise message
// whose stored id is falsy. Messages of other agents' histories count as
// having one.
func (s *stagewise) viewEntries(hist []Message) boundary.Entries {
	if !s.params.NeedBoundaryID {
		return boundary.Entries{}
	}
	e := boundary.Entries{NoID: make([]bool, len(s.walk)-s.pos)}
	for j, k := range s.walk[s.pos:] {
		if hist[k].Raw != nil {
			e.NoID[j] = !s.vals[k].Get("id").Truthy()
		}
	}
	return e
}

func (s *stagewise) recomputeView() {
	s.viewSum = 0
	for j, k := range s.walk[s.pos:] {
		if j == 0 && s.active != "" {
			s.viewSum += nan0(s.carrierEst)
		} else {
			s.viewSum += nan0(s.est[k])
		}
	}
}

func (s *stagewise) tokens() float64 { return s.overhead + s.sysTok + s.viewSum }

func (s *stagewise) rawTokens() float64 { return s.overhead + s.rawSum }

// State implements Guarded.
func (s *stagewise) State() (int, int, float64) {
	return len(s.sys) + len(s.walk) - s.pos, s.activeLen, s.tokens()
}

// Checkpoint implements Guarded.
func (s *stagewise) Checkpoint() func() {
	pos, active, activeLen, ce := s.pos, s.active, s.activeLen, s.carrierEst
	return func() {
		s.pos, s.active, s.activeLen, s.carrierEst = pos, active, activeLen, ce
		s.recomputeView() // messages appended since the checkpoint stay
	}
}

// Step implements Strategy.
func (s *stagewise) Step(ctx context.Context, hist []Message, i int, sum Summarizer) (StepReport, error) {
	s.appendUpTo(hist, i)
	r := StepReport{Boundary: -1, ContextTokens: s.tokens()}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	window := s.window
	tr := boundary.ExplainTrigger(r.ContextTokens, &window, s.params)
	if !tr.Trigger {
		return r, nil
	}
	r.Fired = true
	ests, throwAt := s.viewEstimates()
	if throwAt >= 0 {
		r.Note = fmt.Sprintf("estimateMessageTokens throws on message %d (%s): the app aborts this compression", throwAt, hist[throwAt].ID)
		return r, nil
	}
	w := boundary.WalkEntries(ests, s.viewEntries(hist), &window, s.params)
	if w.Kind != boundary.KindCompress {
		r.Note = "walk: " + w.Kind
		return r, nil
	}
	if s.hold {
		r.Rejected, r.Note = RejectCap, "the summarizer was called in the previous steps: held"
		return r, nil
	}
	b := *w.BoundaryIndex
	bk := s.walk[s.pos+b]
	compacted := make([]Message, 0, b)
	vals := make([]history.Value, 0, b)
	for j, k := range s.walk[s.pos : s.pos+b] {
		compacted = append(compacted, hist[k])
		v := s.vals[k]
		if hist[k].Raw == nil {
			v = messageValue(&hist[k], s.toolOut)
		}
		if j == 0 && s.active != "" {
			v = withBriefing(v, s.active, hist[k].CreatedAt)
		}
		vals = append(vals, v)
	}
	compact := serialize.Serialize(vals, serialize.Options{Profile: s.serProf})
	req := SummaryRequest{
		Strategy:       NameStagewise,
		System:         s.pack.System(),
		User:           s.pack.UserMessage(compact, s.activeLen, s.locale),
		Compacted:      compacted,
		Previous:       s.active,
		TargetChars:    s.target,
		BoundaryID:     hist[bk].ID,
		Boundary:       &hist[bk],
		CompactHistory: compact,
	}
	text, err := sum.Summarize(ctx, req)
	r.SummarizerCalled = true
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		r.Note = "summarizer failed: " + err.Error()
		return r, nil
	}
	text = strings.TrimSpace(text)
	if n := history.Len16(text); n < briefing.MinChars {
		r.Note = fmt.Sprintf("summary too short (%d < %d characters): nothing stored", n, briefing.MinChars)
		return r, nil
	}
	s.pos += b
	s.active, s.activeLen = text, history.Len16(text)
	s.carrierEst, _ = s.estimateOf(bk, text)
	s.recomputeView()
	r.Boundary, r.BoundaryID, r.Compacted, r.Summary = bk, hist[bk].ID, b, text
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = s.State()
	// The view keeps its system messages; from the boundary message on,
	// which now carries the briefing, everything is sent anew.
	r.KeptPrefix = s.overhead + s.sysTok
	return r, nil
}

// View implements Strategy: the system messages, then the boundary message
// carrying the briefing (Content prefixed with the <memory> text, Raw with
// metadata.compressedHistory set), then the rest.
func (s *stagewise) View() []Message {
	out := make([]Message, 0, len(s.sys)+len(s.walk)-s.pos)
	for _, k := range s.sys {
		out = append(out, s.hist[k])
	}
	for j, k := range s.walk[s.pos:] {
		m := s.hist[k]
		if j == 0 && s.active != "" {
			m.Content = memoryText(s.active) + "\n\n" + m.Content
			if m.Raw != nil {
				v := withBriefing(s.vals[k], s.active, m.CreatedAt)
				m.Raw = &v
			}
		}
		out = append(out, m)
	}
	return out
}
