package simulate

import (
	"strings"
	"sync"

	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/strategy"
)

// The offline probe scores of a simulation: every compaction a strategy
// keeps is scored the way `compact eval` scores a briefing (internal/eval).
// The messages the compaction took out of the view are rendered as a
// compact history (convo.CompactHistory: stagewise messages serialized as
// the app does, generic ones as turns with one tool marker per call, the
// tool names read as the marker verbs eval knows, paths under the
// history's cwd made relative), the probes are mined from it (eval.Miner,
// which is eval.Mine) and the text that stands for those messages is
// scored against them (eval.ScoreBriefing):
//
//   - a summary (stagewise, onyx, summary-buffer): the probes of the
//     messages it summarized, after the summary it extends inside
//     <previous-chat-history> as in a bundle (what the earlier summary
//     kept is history the new one must keep), against the summary's text;
//   - a sliding window's drop: the probes of the messages dropped,
//     against an empty briefing (what is dropped is gone: every probe is
//     lost);
//   - a selective prune: the probes of the tool calls whose results were
//     stubbed, with their full results, against what the view still
//     holds of them: the same calls with the stubs as results, then the
//     stubs themselves (their JSON: the call, a summary, an extract);
//     likewise the results the other strategies of strategy.Rewrites
//     replace by a placeholder (observation masking, tool-result
//     clearing, OpenCode's prune): the calls stay, the output is gone;
//   - Codex's retention: the probes of the messages it summarized against
//     the user messages it kept, then the summary.
//
// Scores add up over every compaction of every history (a micro-average).

// How a compaction replaced the messages it took out of the view.
const (
	ReplacedSummarized = "summarized" // by a summary
	ReplacedDropped    = "dropped"    // gone (sliding-window)
	ReplacedPruned     = "pruned"     // tool results stubbed (selective-prune)
)

// ProbeTotals adds up the offline probe scores of the compactions of one
// strategy (and, in a sweep, one value of the knob).
type ProbeTotals struct {
	// Scored counts the compactions scored.
	Scored  int                      `json:"scored"`
	Kinds   map[eval.Kind]eval.Tally `json:"kinds"`
	Overall eval.Tally               `json:"overall"`
	// Measurable counts the compactions scored that have grounded
	// probes; Grounded is the mean of their grounded scores (nil when
	// none has), GroundedProbes and GroundedKinds add up their probes.
	Measurable     int                      `json:"groundedMeasurable"`
	Grounded       *float64                 `json:"grounded"`
	GroundedProbes eval.Tally               `json:"groundedProbes"`
	GroundedKinds  map[eval.Kind]eval.Tally `json:"groundedKinds"`
	groundedSum    float64
}

func newProbeTotals() *ProbeTotals {
	t := &ProbeTotals{Kinds: map[eval.Kind]eval.Tally{}, GroundedKinds: map[eval.Kind]eval.Tally{}}
	for _, k := range eval.Kinds {
		t.Kinds[k] = eval.Tally{}
	}
	for _, k := range eval.GroundedKinds {
		t.GroundedKinds[k] = eval.Tally{}
	}
	return t
}

func (t *ProbeTotals) add(s *SummaryScore) {
	t.Scored++
	for k, n := range s.Kinds {
		c := t.Kinds[k]
		c.Kept += n.Kept
		c.Total += n.Total
		t.Kinds[k] = c
	}
	t.Overall.Kept += s.Overall.Kept
	t.Overall.Total += s.Overall.Total
	if g := s.Grounded; g != nil {
		t.Measurable++
		t.groundedSum += g.Score
		mean := t.groundedSum / float64(t.Measurable)
		t.Grounded = &mean
		t.GroundedProbes.Kept += g.Kept
		t.GroundedProbes.Total += g.Probes
		for k, n := range g.Kinds {
			c := t.GroundedKinds[k]
			c.Kept += n.Kept
			c.Total += n.Total
			t.GroundedKinds[k] = c
		}
	}
}

// totalsOf adds up scores; nil when there is none.
func totalsOf(scores []SummaryScore) *ProbeTotals {
	if len(scores) == 0 {
		return nil
	}
	t := newProbeTotals()
	for i := range scores {
		t.add(&scores[i])
	}
	return t
}

// SummaryScore is one compaction kept by a simulation, scored against the
// probes of the messages it replaced.
type SummaryScore struct {
	Chat string `json:"chat"` // the history's name
	Step int    `json:"step"`
	// Message is the step's message: its index in the chat, or its JSONL
	// line.
	Message   int    `json:"message"`
	Replaced  string `json:"replaced"`  // ReplacedSummarized, ReplacedDropped or ReplacedPruned
	Compacted int    `json:"compacted"` // messages replaced
	// Summary is the summary's text ("" when the strategy wrote none).
	Summary string                   `json:"summary"`
	Kinds   map[eval.Kind]eval.Tally `json:"kinds"`
	Overall eval.Tally               `json:"overall"`
	// Lost are the probes the summary does not answer.
	Lost []eval.Probe `json:"lost"`
	// Grounded is the compaction scored on the grounded probes (what the
	// agent used next; see grounded.go), nil when it has none: not
	// measurable.
	Grounded *GroundedScore `json:"grounded"`
}

// scoreRun scores every compaction one simulation kept, on up to workers
// goroutines. rec holds what the summarizer calls compacted; when its
// calls and the steps that report one do not pair up, summaries are not
// scored.
func scoreRun(j job, tl *strategy.Timeline, rec *recorder, profile *serialize.Profile, workers int) []SummaryScore {
	branch, err := strategy.SimulatedBranch(j.in.Messages(j.name))
	if err != nil {
		return nil
	}
	origin := j.in.Origin(j.name)
	var out []SummaryScore
	var call []int     // per score: the summarizer call, -1 none
	var brief []string // per score: what stands for the messages, when more than the summary
	var at []*strategy.StepReport
	next := map[int]int{} // by step: the message of the next kept compaction's step (-1: none)
	following := -1
	for i := len(tl.Steps) - 1; i >= 0; i-- {
		next[tl.Steps[i].Step] = following
		if s := &tl.Steps[i]; s.Rejected == "" && s.Compacted > 0 {
			following = s.Index
		}
	}
	k := 0 // summarizer calls met
	for i := range tl.Steps {
		s := &tl.Steps[i]
		if s.SummarizerCalled {
			k++
		}
		if s.Rejected != "" || s.Compacted == 0 {
			continue
		}
		sc := SummaryScore{Chat: j.in.History.Name, Step: s.Step, Message: s.Index, Compacted: s.Compacted, Summary: s.Summary}
		if s.Index >= 0 && s.Index < len(origin) {
			sc.Message = origin[s.Index]
		}
		c := -1
		switch {
		case s.SummarizerCalled && s.Summary != "":
			sc.Replaced, c = ReplacedSummarized, k-1
		case s.Replaced != nil && strategy.Rewrites[j.name] != nil:
			sc.Replaced = ReplacedPruned
		case s.Replaced != nil:
			sc.Replaced = ReplacedDropped
		default:
			continue
		}
		out = append(out, sc)
		call = append(call, c)
		brief = append(brief, s.Briefing)
		at = append(at, s)
	}
	if k != len(rec.calls) {
		// Calls and steps do not pair up: only the compactions made
		// without a summarizer are scored.
		n := 0
		for i := range out {
			if call[i] < 0 {
				out[n], call[n], brief[n], at[n] = out[i], call[i], brief[i], at[i]
				n++
			}
		}
		out, call, brief, at = out[:n], call[:n], brief[:n], at[:n]
	}
	all, pos := afterSteps(j, branch)
	rewrite := strategy.Rewrites[j.name]
	var calls map[string]*strategy.ToolCall // the strategies that rewrite: every call by id
	if rewrite != nil && len(out) > 0 {
		calls = map[string]*strategy.ToolCall{}
		for m := range branch {
			for c := range branch[m].ToolCalls {
				tc := &branch[m].ToolCalls[c]
				if _, dup := calls[tc.ID]; !dup {
					calls[tc.ID] = tc
				}
			}
		}
	}
	steps := map[int]*strategy.StepReport{}
	for i := range tl.Steps {
		steps[tl.Steps[i].Step] = &tl.Steps[i]
	}
	cwd, outcomes := j.in.History.Cwd, j.in.History.Outcomes
	// Each worker takes a run of consecutive compactions: a summary is
	// the previous briefing of the next one, which its Miner remembers.
	score := func(lo, hi int) {
		var miner eval.Miner
		for i := lo; i < hi; i++ {
			sc := &out[i]
			var hist, text string
			target := 0 // the grounded score's
			switch sc.Replaced {
			case ReplacedSummarized:
				hist = probeHistory(rec.messages(call[i]), rec.prev[call[i]], profile, cwd, outcomes)
				text = sc.Summary
				if target = rec.targets[call[i]]; target <= 0 {
					target = prompt.DefaultTargetChars
				}
				if brief[i] != "" {
					text = brief[i]
					target += max(0, history.Len16(text)-history.Len16(sc.Summary))
				}
			case ReplacedPruned:
				hist, text = pruned(branch, steps[sc.Step].Replaced, calls, rewrite, j.cfg, profile, cwd, outcomes)
			case ReplacedDropped:
				rep := steps[sc.Step].Replaced
				msgs := make([]strategy.Message, 0, len(rep))
				for _, m := range rep {
					msgs = append(msgs, branch[m])
				}
				hist = probeHistory(msgs, "", profile, cwd, outcomes)
			}
			st := at[i]
			kept := ""
			if sc.Replaced != ReplacedPruned && st.Boundary >= 0 && st.Boundary <= st.Index && st.Index < len(branch) {
				kept = probeHistory(branch[st.Boundary:st.Index+1], "", profile, cwd, outcomes)
			}
			cont := continuation(after(all, pos, st.Index, next[st.Step]), profile, cwd, outcomes)
			sc.Grounded = groundedOf(hist, cont, kept, text, target)
			probes := miner.Mine(hist, eval.Options{})
			bs := eval.ScoreBriefing("", text, probes)
			sc.Kinds, sc.Overall = bs.Kinds, bs.Overall
			for _, kd := range eval.Kinds {
				if _, ok := sc.Kinds[kd]; !ok {
					sc.Kinds[kd] = eval.Tally{}
				}
			}
			sc.Lost = make([]eval.Probe, 0, len(bs.Lost))
			for _, p := range bs.Lost {
				sc.Lost = append(sc.Lost, detached(&probes[p]))
			}
		}
	}
	workers = max(1, min(workers, len(out)))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*len(out)/workers, (w+1)*len(out)/workers
		if w == workers-1 {
			score(lo, hi)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			score(lo, hi)
		}()
	}
	wg.Wait()
	return out
}

// detached is p's exported fields, copied: p's strings are pieces of the
// compact history it was mined from, which must not stay in memory for
// the report.
func detached(p *eval.Probe) eval.Probe {
	exp := make([]string, len(p.Expected))
	for i, e := range p.Expected {
		exp[i] = strings.Clone(e)
	}
	return eval.Probe{ID: p.ID, Kind: p.Kind, Question: strings.Clone(p.Question), Expected: exp, Source: p.Source, Match: p.Match}
}

// pruned is the compact history of the tool calls whose results a
// strategy rewrote (the messages replaced that are tool results with a
// known call), and the text the view still holds of them: the same calls
// with what rewrite put in place of their results, then each of those
// (selective-prune's stubs; the others' placeholders).
func pruned(branch []strategy.Message, replaced []int, calls map[string]*strategy.ToolCall, rewrite func(*strategy.Message, *strategy.ToolCall, strategy.Config) string, cfg strategy.Config, profile *serialize.Profile, cwd string, outcomes map[string]string) (hist, brief string) {
	var full, stubbed []strategy.Message
	var stubs []string
	for _, k := range replaced {
		m := branch[k]
		call := calls[m.ToolCallID]
		if m.Role != strategy.RoleTool || call == nil {
			continue
		}
		stub := rewrite(&m, call, cfg)
		asst := strategy.Message{ID: m.ID + "#call", Role: strategy.RoleAssistant, ToolCalls: []strategy.ToolCall{*call}}
		res := strategy.Message{ID: m.ID, Role: strategy.RoleTool, ToolCallID: call.ID, Content: m.Content}
		full = append(full, asst, res)
		res.Content = stub
		stubbed = append(stubbed, asst, res)
		stubs = append(stubs, stub)
	}
	if len(full) == 0 {
		return "", ""
	}
	var b strings.Builder
	for _, t := range mdtext.ParseHistory(probeHistory(stubbed, "", profile, cwd, outcomes)).Turns {
		b.WriteString(t.Text)
		b.WriteByte('\n')
	}
	for _, s := range stubs {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return probeHistory(full, "", profile, cwd, outcomes), b.String()
}

// probeHistory renders msgs, after previous, as the compact history
// eval.Mine reads: generic tool calls named by the marker verbs eval knows
// (convo.RenderOptions.Verbs), paths under the working directory made
// relative, as the workspace-relative paths of a stagewise history are,
// and the outcome of each call as the history recorded it (outcomes, nil
// for a history that records none).
func probeHistory(msgs []strategy.Message, previous string, profile *serialize.Profile, cwd string, outcomes map[string]string) string {
	return convo.Render(msgs, convo.RenderOptions{Previous: previous, Profile: profile, Verbs: true, Cwd: cwd, Outcomes: outcomes})
}
