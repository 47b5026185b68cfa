package table

import (
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/simulate"
)

// WriteSimulate writes the simulations and compactions tables of one
// simulate run: a row per simulation (history × strategy, × sweep value)
// and a row per compaction it kept and scored.
func WriteSimulate(o Options, outcomes []simulate.Outcome) ([]File, error) {
	sims, err := newPart[SimulationRow](o, Simulations)
	if err != nil {
		return nil, err
	}
	comps, err := newPart[CompactionRow](o, Compactions)
	if err != nil {
		sims.abort()
		return nil, err
	}
	name := o.Part()
	for i := range outcomes {
		oc := &outcomes[i]
		if err := sims.add(simulationRow(o, name, oc)); err != nil {
			sims.abort()
			comps.abort()
			return nil, err
		}
		for k := range oc.Summaries {
			if err := comps.add(compactionRow(o, name, oc, k)); err != nil {
				sims.abort()
				comps.abort()
				return nil, err
			}
		}
	}
	return commitAll(sims, comps)
}

func simulationRow(o Options, name string, oc *simulate.Outcome) SimulationRow {
	row := SimulationRow{SchemaVersion: SchemaVersion, Part: name, Shard: o.Shard,
		History: oc.History, Source: oc.Source, Title: oc.Title, Model: oc.Model,
		Strategy: oc.Strategy, Summarizer: oc.Summarizer, SweepKnob: oc.Knob, SweepValue: oc.Value,
		ContextWindow: int64(oc.ContextWindow), SystemOverhead: int64(oc.SystemOverhead),
	}
	if tl := oc.Timeline; tl != nil {
		row.Steps, row.Compactions, row.SummarizerCalls, row.Rejected = int32(len(tl.Steps)), int32(tl.Compactions), int32(tl.SummarizerCalls), int32(tl.Rejected)
		row.TokensSent, row.TokensRaw, row.PeakContext, row.KeptAtEnd = tl.TokensSent, tl.TokensRaw, tl.PeakContext, int32(tl.KeptAtEnd)
	}
	if r := oc.Retention; r != nil {
		row.MustKeepItems, row.MustKeepKept = ptr(int32(r.Items)), ptr(int32(r.Kept))
	}
	if p := oc.Probes; p != nil {
		row.Scored, row.CoverageProbes, row.CoverageKept = int32(p.Scored), int32(p.Overall.Total), int32(p.Overall.Kept)
		row.Grounded, row.GroundedMeasurable = p.Grounded, int32(p.Measurable)
		row.GroundedProbes, row.GroundedKept = int32(p.GroundedProbes.Total), int32(p.GroundedProbes.Kept)
	}
	if c := oc.Cost; c != nil {
		row.SummarizerInputTokens, row.SummarizerOutputTokens = ptr(c.SummarizerIn), ptr(c.SummarizerOut)
		row.CachedTokens, row.WrittenTokens, row.RewrittenTokens = ptr(c.CachedTokens), ptr(c.WrittenTokens), ptr(c.RewrittenTokens)
		row.ContextUSD, row.CacheRewritesUSD, row.SummariesUSD = ptr(c.ContextUSD), ptr(c.CacheUSD), ptr(c.SummaryUSD)
		row.TotalUSD, row.NoCompactionUSD = ptr(c.TotalUSD), ptr(c.RawUSD)
	}
	return row
}

func compactionRow(o Options, name string, oc *simulate.Outcome, k int) CompactionRow {
	s := &oc.Summaries[k]
	row := CompactionRow{SchemaVersion: SchemaVersion, Part: name, Shard: o.Shard,
		History: oc.History, Source: oc.Source, Strategy: oc.Strategy, SweepKnob: oc.Knob, SweepValue: oc.Value,
		Index: int32(k + 1), Step: int32(s.Step), Message: int32(s.Message), Replaced: s.Replaced, Compacted: int32(s.Compacted),
		SummaryChars:   charsOf(s.Summary),
		CoverageProbes: int32(s.Overall.Total), CoverageKept: int32(s.Overall.Kept),
	}
	tally := func(m map[eval.Kind]eval.Tally, k eval.Kind) (int32, int32) {
		t := m[k]
		return int32(t.Total), int32(t.Kept)
	}
	row.ArtifactProbes, row.ArtifactKept = tally(s.Kinds, eval.KindArtifact)
	row.RecallProbes, row.RecallKept = tally(s.Kinds, eval.KindRecall)
	row.DecisionProbes, row.DecisionKept = tally(s.Kinds, eval.KindDecision)
	row.ContinuationProbes, row.ContinuationKept = tally(s.Kinds, eval.KindContinuation)
	if g := s.Grounded; g != nil {
		row.Grounded, row.GroundedRecall, row.SizeCharge = ptr(g.Score), ptr(g.Recall), ptr(g.SizeCharge)
		row.GroundedTarget, row.GroundedProbes, row.GroundedKept = int64(g.Target), int32(g.Probes), int32(g.Kept)
		row.FileUsedProbes, row.FileUsedKept = tally(g.Kinds, eval.KindFileUsed)
		row.CommandRerunProbes, row.CommandRerunKept = tally(g.Kinds, eval.KindCommandRerun)
		row.NameUsedProbes, row.NameUsedKept = tally(g.Kinds, eval.KindNameUsed)
		row.RequestCarriedProbes, row.RequestCarriedKept = tally(g.Kinds, eval.KindRequestCarried)
	}
	return row
}
