package simulate

import (
	"strings"

	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/strategy"
)

// The grounded scores of a simulation: beside the coverage probes (mined
// from what a compaction replaced), every compaction is scored as
// `compact eval` scores a briefing on its grounded headline
// (eval.NewGrounded): the probes are what the agent used after the
// compaction that the replaced part held, and the text that stands for
// the replaced messages (the one the coverage probes are scored against)
// answers them within its target or not.
//
//   - The compacted part is the compact history the coverage probes are
//     mined from (probes.go).
//   - The continuation is what the history did after the compaction's
//     step, up to the strategy's next kept compaction (its step's message
//     included) or the end, rendered as agentbundle renders an agent's
//     continuation (convo.Continuation, with the compacted part's
//     options: verbs, cwd, outcomes, profile): each tool's output in a
//     <tool-output> element (at most extract.ContinuationOutput bytes),
//     at most extract.ContinuationTurns user and assistant turns. The
//     stagewise strategy of a stagewise chat steps on the chat's own
//     messages; its continuation is read from the branch with the tool
//     messages made from their tool parts, so that the outputs are there
//     too.
//   - Probes that the messages the compaction kept verbatim hold as well
//     (from its boundary to its step: what the view still held beside
//     the text) are dropped: the agent did not need the text for them.
//     What a prune or a mask kept of the view is not known here; its
//     text, the calls and what stands for their results, is.
//   - The target is the summarizer call's (the strategy's target for its
//     summary, the configuration's compression.target_chars when set); Codex's
//     retention adds the user messages it keeps verbatim. What a window
//     drops is scored against an empty text, and what a prune or a mask
//     leaves has no target: the view holds it whatever its size.
//
// A compaction whose continuation uses nothing of what it replaced has
// no grounded probe and is not measurable (Grounded nil); a strategy's
// grounded score is the mean over its measurable compactions (a
// macro-average), none when none is.

// GroundedScore is one compaction scored on the grounded measure.
type GroundedScore struct {
	// Probes counts the grounded probes, Kept those the text answers
	// within the target; Recall is their share.
	Probes int     `json:"probes"`
	Kept   int     `json:"kept"`
	Recall float64 `json:"recall"`
	// Kinds gives kept and total per grounded kind.
	Kinds map[eval.Kind]eval.Tally `json:"kinds"`
	// Chars is the text's size in UTF-16 units, Target the size it is
	// scored within (0: none), SizeCharge what its size leaves of the
	// score.
	Chars      int     `json:"chars"`
	Target     int     `json:"target"`
	SizeCharge float64 `json:"sizeCharge"`
	// Score is the grounded score: Recall times SizeCharge.
	Score float64 `json:"score"`
	// Lost are the grounded probes the text does not answer.
	Lost []eval.Probe `json:"lost"`
}

// groundedOf scores text (target UTF-16 units, 0 none) on the grounded
// probes of a compaction: compacted is its compacted part, cont its
// continuation, kept the messages it kept verbatim ("" none). Nil when
// no probe is left: not measurable.
func groundedOf(compacted, cont, kept, text string, target int) *GroundedScore {
	if cont == "" {
		return nil
	}
	g := eval.NewGrounded(compacted, cont)
	if kept != "" && len(g.Probes) > 0 {
		g.Probes = without(g.Probes, eval.NewGrounded(kept, cont).Probes)
	}
	r, ok := g.Score(text, target)
	if !ok {
		return nil
	}
	out := &GroundedScore{Probes: r.Probes, Kept: r.Kept, Recall: r.Recall, Chars: r.Chars, Target: target,
		SizeCharge: r.SizeCharge, Score: r.Score, Kinds: map[eval.Kind]eval.Tally{}, Lost: []eval.Probe{}}
	for _, k := range eval.GroundedKinds {
		out.Kinds[k] = eval.Tally{}
	}
	for i := range g.Probes {
		p := &g.Probes[i]
		t := out.Kinds[p.Kind]
		t.Total++
		if r.Answered(i) {
			t.Kept++
		} else {
			out.Lost = append(out.Lost, detached(p))
		}
		out.Kinds[p.Kind] = t
	}
	return out
}

// without is probes less those other has too (the same kind and
// answer).
func without(probes, other []eval.Probe) []eval.Probe {
	if len(other) == 0 {
		return probes
	}
	has := map[string]bool{}
	for _, p := range other {
		has[probeKey(&p)] = true
	}
	out := probes[:0:0]
	for _, p := range probes {
		if !has[probeKey(&p)] {
			out = append(out, p)
		}
	}
	return out
}

func probeKey(p *eval.Probe) string {
	return string(p.Kind) + "\x00" + strings.Join(p.Expected, "\x00")
}

// continuation renders msgs, what followed a compaction, as agentbundle
// renders an agent's continuation (convo.Continuation, within extract's
// bounds), with the options of the compacted part.
func continuation(msgs []strategy.Message, profile *serialize.Profile, cwd string, outcomes map[string]string) string {
	return convo.Continuation(msgs, convo.RenderOptions{Profile: profile, Verbs: true, Cwd: cwd, Outcomes: outcomes}, extract.ContinuationTurns, extract.ContinuationOutput)
}

// afterSteps gives, for a run's simulated branch, the messages a
// continuation reads and where each message of the branch is among them:
// the branch itself, or, for the stagewise strategy of a stagewise chat
// (which steps on the chat's own messages), the chat's branch with the
// tool messages made from their tool parts (the outputs).
func afterSteps(j job, branch []strategy.Message) (all []strategy.Message, pos []int) {
	h := j.in.History
	if j.name != strategy.NameStagewise || h.Source != convo.SourceStagewise {
		return branch, nil
	}
	for i := range h.Branch {
		if h.Branch[i].Raw != nil {
			pos = append(pos, i)
		}
	}
	if len(pos) != len(branch) {
		return branch, nil
	}
	return h.Branch, pos
}

// after is the messages of all from just after branch message from up
// to branch message to (included; -1: the end).
func after(all []strategy.Message, pos []int, from, to int) []strategy.Message {
	at := func(i int) int {
		if pos == nil {
			return i
		}
		return pos[i]
	}
	lo, hi := at(from)+1, len(all)
	if to >= 0 {
		hi = at(to) + 1
	}
	if lo >= hi {
		return nil
	}
	return all[lo:hi]
}
