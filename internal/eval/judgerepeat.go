package eval

import (
	"fmt"
	"slices"

	"github.com/compactlab/compact/internal/cascade"
)

// Judge repeats: compact eval --judge MODEL --judge-repeat K judges each
// bundle K times (JudgeOptions.Repeats), as replay --repeat replays it K
// times, since the same model on the same input answers and grades
// differently from one call to the next. The records are RUN, RUN@2, …,
// RUN@K; the judged scores are the first repeat's, as with K = 1, and the
// report adds the spread of each side's judged score over the repeats
// (JudgedSummary.Repeats).

// repeatsSummary is r.Judge for the tasks of a judging repeated k times:
// the first task's, with every task's calls and cost. For k = 1 it is the
// first task's summary as it is.
func repeatsSummary(tasks []*JudgeTask, k int) *JudgeSummary {
	s := tasks[0].rec.summary()
	if k <= 1 {
		return s
	}
	s.Repeats = k
	s.Calls = slices.Clone(s.Calls)
	for _, t := range tasks[1:] {
		s.Calls = append(s.Calls, t.rec.Calls...)
		s.CostUSD = cascade.RoundUSD(s.CostUSD + t.rec.CostUSD)
		s.SavedUSD = cascade.RoundUSD(s.SavedUSD + t.rec.SavedUSD)
	}
	return s
}

// setJudgedRepeats lists on each judged briefing of r the score of every
// repeat of the judging, in order (JudgedBriefing.Repeats).
func setJudgedRepeats(r *BundleResult, tasks []*JudgeTask) {
	for _, t := range tasks {
		for _, jb := range t.rec.Briefings {
			if bs := r.Briefing(jb.Name); bs != nil && bs.Judged != nil {
				bs.Judged.Repeats = append(bs.Judged.Repeats, jb.Score)
			}
		}
	}
}

// judgedRepeatSpread is the spread over the repeats of the judging of
// side name's mean judged score, over the bundles whose briefing has
// every repeat's score (as many as the first such briefing); nil when the
// judging was not repeated.
func judgedRepeatSpread(results []*BundleResult, name string) *Spread {
	var sums []float64
	n := 0
	for _, b := range results {
		bs := b.Briefing(name)
		if bs == nil || bs.Judged == nil || len(bs.Judged.Repeats) < 2 {
			continue
		}
		if sums == nil {
			sums = make([]float64, len(bs.Judged.Repeats))
		}
		if len(bs.Judged.Repeats) != len(sums) {
			continue
		}
		for i, x := range bs.Judged.Repeats {
			sums[i] += x
		}
		n++
	}
	if n == 0 {
		return nil
	}
	for i := range sums {
		sums[i] /= float64(n)
	}
	sp := NewSpread(sums)
	return &sp
}

// judgedRepeatsTable is the spread of each side's judged score over the
// repeats of the judging, nil when it was not repeated.
func (r *Report) judgedRepeatsTable() [][]string {
	if r.Judge == nil || r.Judge.Repeats < 2 {
		return nil
	}
	rows := [][]string{{"judged repeats", "repeats", "bundles", "mean judged score over the repeats"}}
	for _, s := range r.Sides {
		if s.Judged == nil || s.Judged.Repeats == nil {
			continue
		}
		rows = append(rows, []string{s.Name, fmt.Sprint(s.Judged.Repeats.N), fmt.Sprint(s.Judged.Bundles), spreadCell(s.Judged.Repeats, "%.2f")})
	}
	if len(rows) == 1 {
		return nil
	}
	return rows
}
