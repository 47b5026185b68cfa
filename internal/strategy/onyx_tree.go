package strategy

import (
	"context"
	"fmt"
)

// OnyxTreeStep is one assistant message of an OnyxTree run.
type OnyxTreeStep struct {
	ID string `json:"id"`
	// Depth is the length of the branch (root to this message).
	Depth int `json:"depth"`
	// Active is the id of the summary the lookup chose ("" none).
	Active        string  `json:"active,omitempty"`
	HistoryTokens float64 `json:"historyTokens"`
	Fired         bool    `json:"fired"`
	// Written is the id of the summary written at this step ("" none).
	Written    string `json:"written,omitempty"`
	Summarized int    `json:"summarized,omitempty"`
	Note       string `json:"note,omitempty"`
}

// OnyxTreeRun is the outcome of OnyxTree.
type OnyxTreeRun struct {
	Lookup          string          `json:"lookup"` // "parent" or "cutoff"
	Steps           []OnyxTreeStep  `json:"steps"`
	Summaries       []SummaryRecord `json:"summaries"`
	SummarizerCalls int             `json:"summarizerCalls"`
	// TokensSent sums the history tokens over the steps.
	TokensSent float64 `json:"tokensSent"`
}

// OnyxTree runs Onyx over a whole tree as a session with forks runs it:
// the messages in the order of tree (creation order), each assistant
// message a turn on its own branch (the path from the root to it), the
// active summary chosen among all the summaries written so far with
// FindSummaryForBranch (byCutoff false) or FindSummaryByCutoff (true).
// As in Onyx, "after the cutoff" means created after the cutoff message
// (ids grow with time), so a summary found on another branch hides the
// messages of this branch created before its cutoff. No guardrails: this
// shows Onyx's own behaviour (a summary orphaned by a fork makes the next
// turns summarize the whole branch again, PR #11700). Compare the two
// lookups with BranchLookupDiffs on the summaries of either run.
func OnyxTree(ctx context.Context, tree []Message, cfg Config, sum Summarizer, byCutoff bool) (*OnyxTreeRun, error) {
	if sum == nil {
		sum = Builtin{}
	}
	b, err := newBase(cfg)
	if err != nil {
		return nil, err
	}
	core := newOnyxCore(&b, cfg)
	rank, err := indexByID(tree)
	if err != nil {
		return nil, err
	}
	lookup, name := FindSummaryForBranch, "parent"
	if byCutoff {
		lookup, name = FindSummaryByCutoff, "cutoff"
	}
	run := &OnyxTreeRun{Lookup: name, Steps: []OnyxTreeStep{}}
	cost := func(m *Message) float64 { return onyxCost(core.counter, m) }
	for t := range tree {
		if tree[t].Role != RoleAssistant {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		br, err := Branch(tree, tree[t].ID)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(br))
		for k := range br {
			ids[k] = br[k].ID
		}
		st := OnyxTreeStep{ID: tree[t].ID, Depth: len(br)}
		active := lookup(run.Summaries, ids)
		cutRank := -1
		if active != nil {
			st.Active = active.ID
			if r, ok := rank[active.LastSummarizedID]; ok {
				cutRank = r
			}
		}
		var cons []Message
		var sysTok float64
		for k := range br {
			if br[k].Role == RoleSystem {
				sysTok += cost(&br[k])
				continue
			}
			if rank[br[k].ID] > cutRank {
				cons = append(cons, br[k])
			}
		}
		h := OnyxHistoryTokens(cons, nil, cost)
		if active != nil {
			h += active.Tokens
		}
		st.HistoryTokens = h
		run.TokensSent += h
		if OnyxShouldCompress(h, core.window, core.reserved+int(sysTok), core.ratio) && len(cons) > 0 {
			st.Fired = true
			older, recent, note := core.split(cons, len(cons)-1, 0, h)
			var rec *SummaryRecord
			if len(older) > 0 {
				run.SummarizerCalls++
				if rec, note, err = core.summarize(ctx, cons, len(cons)-1, older, recent, active, len(run.Summaries)+1, sum); err != nil {
					return nil, fmt.Errorf("onyx tree: message %q: %w", tree[t].ID, err)
				}
			}
			st.Note = note
			if rec != nil {
				rec.Seq = len(run.Summaries) + 1
				run.Summaries = append(run.Summaries, *rec)
				st.Written, st.Summarized = rec.ID, len(older)
			}
		}
		run.Steps = append(run.Steps, st)
	}
	return run, nil
}
