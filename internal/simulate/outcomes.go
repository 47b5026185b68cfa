package simulate

import (
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/strategy"
)

// Outcome is one simulation of a Report: one history through one
// strategy (in a sweep, at one value of the knob), as the results table
// (internal/table, simulate --table) reads it.
type Outcome struct {
	// History is the history's name (the file, or the chat id), Source
	// its reader (stagewise, jsonl, claude-code, …), Title and Model what
	// it records ("" when nothing).
	History, Source, Title, Model string
	Strategy                      string
	// Summarizer names who wrote the summaries (builtin, recorded,
	// model:ID, cascade).
	Summarizer string
	// Knob and Value are the sweep's knob and this run's value ("" and
	// nil outside a sweep).
	Knob  string
	Value *float64
	// ContextWindow and SystemOverhead are the run's, in tokens.
	ContextWindow, SystemOverhead int
	Timeline                      *strategy.Timeline
	// Retention is the must-keep retention of the final summary (nil
	// without one); Probes the offline probe scores added up (nil when
	// no compaction was scored) and Summaries each compaction's.
	Retention *convo.Retention
	Probes    *ProbeTotals
	Summaries []SummaryScore
	// Cost is the run priced (see Cost).
	Cost *Cost
}

// Outcomes lists every simulation of the report, in the order they ran:
// by strategy, then history (a sweep: by value, then strategy, then
// history).
func (rep *Report) Outcomes() []Outcome {
	out := make([]Outcome, 0, len(rep.runs))
	perValue := len(rep.opts.Strategies) * len(rep.inputs)
	for i, r := range rep.runs {
		h := r.in.History
		o := Outcome{
			History: h.Name, Source: h.Source, Title: h.Title, Model: h.Model,
			Strategy: r.name, Summarizer: rep.opts.SummarizerName,
			ContextWindow: r.cfg.ContextWindow, SystemOverhead: r.cfg.SystemOverhead,
			Timeline: r.tl, Retention: r.ret, Probes: totalsOf(r.probes), Summaries: r.probes, Cost: r.cost,
		}
		if rep.kind == kindSweep && perValue > 0 {
			if k := i / perValue; k < len(rep.opts.Sweep.Values) {
				v := rep.opts.Sweep.Values[k]
				o.Knob, o.Value = rep.opts.Sweep.Knob.Name, &v
			}
		}
		out = append(out, o)
	}
	return out
}
