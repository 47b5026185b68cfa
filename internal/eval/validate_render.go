package eval

import (
	"fmt"
	"io"
	"path/filepath"
)

// ValidConcordance is the concordance the grounded score must reach on a
// ladder (compact eval --validate).
const ValidConcordance = 0.9

// WriteText writes the validity report for a person; bundles are named
// under root.
func (rep *ValidityReport) WriteText(w io.Writer, root string) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "validity ladder of %s with a recorded briefing; %d measurable by the grounded score (target %s)\n",
		plural(rep.Bundles, "bundle"), rep.Measurable, groupThousands(rep.Target))
	fmt.Fprintf(ew, "rungs: the recorded briefing; 25, 50 and 75%% of its sentences dropped at random (each the mean of %d draws); its headings only; another chat's briefing of the same length; the history dumped verbatim\n\n", LadderDraws)
	rows := [][]string{{"measure", "pairs", "concordance", "strict", "discordant", "ties", "dump ≥ recorded", "other ≥ recorded"}}
	for _, m := range rep.Measures {
		rows = append(rows, []string{m.Measure, fmt.Sprint(m.Pairs), fmt.Sprintf("%.3f", m.Concordance), fmt.Sprintf("%.3f", m.Strict),
			fmt.Sprint(m.Discordant), fmt.Sprint(m.Ties), fmt.Sprintf("%d of %d", m.DumpAtOrAbove, m.DumpChecked), fmt.Sprintf("%d of %d", m.OtherAtOrAbove, m.OtherChecked)})
	}
	writeAligned(ew, rows)
	fmt.Fprintf(ew, "\nconcordance: the share of the pairs of the degradation chain (recorded > 25%% > 50%% > 75%% dropped > headings only) a measure orders so, a tie counting half (strict: a tie counts as a miss)\n")
	fmt.Fprintf(ew, "dump ≥ recorded: of the bundles whose history is over %.1f times the target, those where the dump scores at or above the recorded briefing\n", DumpFactor)
	fmt.Fprintf(ew, "targets for the grounded score: concordance ≥ %.2f, dump ≥ recorded in none\n", ValidConcordance)
	for _, b := range rep.NotMeasurable {
		name := b.Bundle
		if rel, err := filepath.Rel(root, b.Bundle); root != "" && err == nil {
			name = filepath.ToSlash(rel)
		}
		fmt.Fprintf(ew, "not measurable: %s: %s\n", name, b.Why)
	}
	return ew.err
}

// WriteText writes the calibration report for a person.
func (rep CalibrationReport) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "%s of %s; %d of them found\n", plural(rep.Grades, "grade"), plural(rep.Graded, "briefing"), rep.Matched)
	num := func(v *float64) string {
		if v == nil {
			return "n/a"
		}
		return fmt.Sprintf("%+.3f", *v)
	}
	rows := [][]string{{"against the grades", "briefings", "Kendall tau-b", "Cohen kappa"}}
	for _, m := range rep.Measures {
		rows = append(rows, []string{m.Measure, fmt.Sprint(m.N), num(m.TauB), num(m.Kappa)})
	}
	if r := rep.Raters; r != nil {
		rows = append(rows, []string{"rater " + r.Measure, fmt.Sprint(r.N), num(r.TauB), num(r.Kappa)})
	}
	writeAligned(ew, rows)
	fmt.Fprintf(ew, "kappa: quadratic-weighted, after putting the grades and each measure's scores into %d equal-frequency groups of their own; n/a: too few briefings or one side constant\n", rep.Categories)
	for _, u := range rep.Unmatched {
		fmt.Fprintf(ew, "not found: %s\n", u)
	}
	return ew.err
}
