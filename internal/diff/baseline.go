package diff

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/mdtext"
)

// A baseline run is what a pull request is judged against: the report's
// B (the candidate run) beside the same bundles replayed by the baseline
// run (say, the main branch's prompt), and what B lost that the baseline
// kept. It is what a CI job posts as a comment (--format markdown
// --baseline RUN).

// Baseline compares the report's run with a baseline run over the bundles
// both answered.
type Baseline struct {
	// Run is the baseline run; Bundles how many bundles both runs
	// answered; Missing the compared bundles the baseline run has no
	// answer for.
	Run     string   `json:"run"`
	Bundles int      `json:"bundles"`
	Missing []string `json:"missing"`
	// A, Base and B sum the app's briefing, the baseline's and B's over
	// those bundles.
	A    BaselineSide `json:"a"`
	Base BaselineSide `json:"baseline"`
	B    BaselineSide `json:"b"`
	// NewlyLost are the must-keep items B lost that the baseline kept;
	// Recovered those B kept that the baseline lost. Worse counts the
	// bundles with an item newly lost.
	NewlyLost []BaselineItem `json:"newlyLost"`
	Recovered []BaselineItem `json:"recovered"`
	Worse     int            `json:"worseBundles"`
}

// BaselineSide sums one briefing over the bundles of a Baseline.
type BaselineSide struct {
	Chars       int                 `json:"chars"`
	MedianChars float64             `json:"medianChars"`
	OverTarget  int                 `json:"overTarget"`
	Items       int                 `json:"items"`
	Kept        int                 `json:"kept"`
	Lost        map[mdtext.Kind]int `json:"lost"`
	Violations  int                 `json:"violations"`
	Leaks       int                 `json:"leaks"`
}

// BaselineItem is one must-keep item of a bundle.
type BaselineItem struct {
	Bundle string      `json:"bundle"`
	Kind   mdtext.Kind `json:"kind"`
	Value  string      `json:"value"`
}

// NewBaseline compares the comparisons cs (A against the candidate run)
// with base (A against the baseline run) bundle by bundle.
func NewBaseline(run string, cs, base []*Comparison) *Baseline {
	bl := &Baseline{Run: run, Missing: []string{}, NewlyLost: []BaselineItem{}, Recovered: []BaselineItem{}}
	by := map[string]*Comparison{}
	for _, c := range base {
		by[c.Bundle] = c
	}
	var charsA, charsBase, charsB []float64
	for _, c := range cs {
		bc := by[c.Bundle]
		if bc == nil {
			bl.Missing = append(bl.Missing, c.Bundle)
			continue
		}
		bl.Bundles++
		addBaselineSide(&bl.A, &c.A)
		addBaselineSide(&bl.Base, &bc.B)
		addBaselineSide(&bl.B, &c.B)
		charsA, charsBase, charsB = append(charsA, float64(c.A.Chars)), append(charsBase, float64(bc.B.Chars)), append(charsB, float64(c.B.Chars))
		key := func(it mdtext.Item) string { return string(it.Kind) + "\x00" + it.Value }
		lostBase, lostB := map[string]bool{}, map[string]bool{}
		for _, it := range bc.B.Lost {
			lostBase[key(it)] = true
		}
		worse := false
		for _, it := range c.B.Lost {
			lostB[key(it)] = true
			if !lostBase[key(it)] {
				bl.NewlyLost = append(bl.NewlyLost, BaselineItem{Bundle: c.Bundle, Kind: it.Kind, Value: it.Value})
				worse = true
			}
		}
		if worse {
			bl.Worse++
		}
		for _, it := range bc.B.Lost {
			if !lostB[key(it)] {
				bl.Recovered = append(bl.Recovered, BaselineItem{Bundle: c.Bundle, Kind: it.Kind, Value: it.Value})
			}
		}
	}
	bl.A.MedianChars, bl.Base.MedianChars, bl.B.MedianChars = median(charsA), median(charsBase), median(charsB)
	return bl
}

func addBaselineSide(t *BaselineSide, s *Side) {
	if t.Lost == nil {
		t.Lost = map[mdtext.Kind]int{}
		for _, k := range mdtext.Kinds {
			t.Lost[k] = 0
		}
	}
	t.Chars += s.Chars
	if s.TargetShare > 1 {
		t.OverTarget++
	}
	if s.KeptRatio != nil {
		t.Items += len(s.Kept) + len(s.Lost)
		t.Kept += len(s.Kept)
	}
	for _, it := range s.Lost {
		t.Lost[it.Kind]++
	}
	t.Violations += s.Violations
	t.Leaks += s.LeakCount
}

// NewlyLostOf are the items of kind newly lost, in bundle order.
func (b *Baseline) NewlyLostOf(kind mdtext.Kind) []BaselineItem {
	var out []BaselineItem
	for _, it := range b.NewlyLost {
		if it.Kind == kind {
			out = append(out, it)
		}
	}
	return out
}

// baselineListMax bounds each list of the markdown comment, so that it
// stays well under the 65,536 characters a GitHub comment holds.
const baselineListMax = 50

// writeBaselineMarkdown writes the comparison with the baseline: A, the
// baseline and B side by side, then the paths and decisions B lost that
// the baseline kept.
func writeBaselineMarkdown(w *bufio.Writer, r *Report, root string) {
	bl := r.Baseline
	run := "B"
	if len(r.Summary.Runs) == 1 {
		run = r.Summary.Runs[0].Run
	}
	fmt.Fprintf(w, "### %s against the baseline %s\n\n", mdCode(run), mdCode(bl.Run))
	if bl.Bundles == 0 {
		fmt.Fprintf(w, "The baseline run %s answered none of the bundles compared.\n\n", mdCode(bl.Run))
		return
	}
	over := plural(bl.Bundles, "bundle") + " both runs answered"
	if len(bl.Missing) > 0 {
		over += fmt.Sprintf(" (%d without a baseline answer left out)", len(bl.Missing))
	}
	fmt.Fprintf(w, "Over the %s:\n\n", over)
	fmt.Fprintf(w, "| | A (actual) | baseline %s | B %s |\n|---|---:|---:|---:|\n", mdCell(mdCode(bl.Run)), mdCell(mdCode(run)))
	sides := []*BaselineSide{&bl.A, &bl.Base, &bl.B}
	row := func(label string, cell func(s *BaselineSide) string) {
		cells := make([]string, len(sides))
		for i, s := range sides {
			cells[i] = mdCell(cell(s))
		}
		fmt.Fprintf(w, "| %s | %s |\n", label, strings.Join(cells, " | "))
	}
	target := DefaultTarget
	if len(r.Comparisons) > 0 {
		target = r.Comparisons[0].TargetChars
	}
	row("chars, median", func(s *BaselineSide) string { return strconv.FormatFloat(s.MedianChars, 'f', -1, 64) })
	row(fmt.Sprintf("over %d chars", target), func(s *BaselineSide) string { return strconv.Itoa(s.OverTarget) })
	row("must-keep kept", func(s *BaselineSide) string {
		if s.Items == 0 {
			return "not measured"
		}
		return fmt.Sprintf("%s of %d", pct(float64(s.Kept)/float64(s.Items)), s.Items)
	})
	row("↳ paths lost", func(s *BaselineSide) string { return strconv.Itoa(s.Lost[mdtext.KindPath]) })
	row("↳ decisions lost", func(s *BaselineSide) string { return strconv.Itoa(s.Lost[mdtext.KindDecision]) })
	row("rules broken", func(s *BaselineSide) string { return strconv.Itoa(s.Violations) })
	row("leaks", func(s *BaselineSide) string { return strconv.Itoa(s.Leaks) })
	w.WriteString("\n")

	if len(bl.NewlyLost) == 0 {
		fmt.Fprintf(w, "**B lost nothing the baseline kept.**")
	} else {
		fmt.Fprintf(w, "**B lost %s the baseline kept, in %d of %s.**", bl.lostText(), bl.Worse, plural(bl.Bundles, "bundle"))
	}
	if len(bl.Recovered) > 0 {
		fmt.Fprintf(w, " It kept %s the baseline lost.", plural(len(bl.Recovered), "item"))
	}
	w.WriteString("\n\n")
	for _, k := range baselineKinds {
		items := bl.NewlyLostOf(k)
		if len(items) == 0 {
			continue
		}
		fmt.Fprintf(w, "<details><summary>Newly lost %s (%d)</summary>\n\n| bundle | %s |\n|---|---|\n", kindLabels[k], len(items), strings.TrimSuffix(kindLabels[k], "s"))
		for i, it := range items {
			if i == baselineListMax {
				fmt.Fprintf(w, "| … | and %d more (`--json` lists them all) |\n", len(items)-i)
				break
			}
			fmt.Fprintf(w, "| %s | %s |\n", mdCell(mdCode(relTo(root, it.Bundle))), mdCell(mdCode(mdtext.Clip(it.Value, 200))))
		}
		w.WriteString("\n</details>\n\n")
	}
}

// baselineKinds orders the kinds of items newly lost: paths and
// decisions, what a reviewer looks for first, then the others.
var baselineKinds = []mdtext.Kind{mdtext.KindPath, mdtext.KindDecision, mdtext.KindFailure, mdtext.KindLink, mdtext.KindColor, mdtext.KindHeading}

// lostText counts the items newly lost by kind: "3 paths, 2 decisions
// and 40 headings".
func (b *Baseline) lostText() string {
	var parts []string
	for _, k := range baselineKinds {
		if n := len(b.NewlyLostOf(k)); n > 0 {
			word := kindLabels[k]
			if n == 1 {
				word = strings.TrimSuffix(word, "s")
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, word))
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// writeBaselineText is the comparison with the baseline in a few lines.
func writeBaselineText(w *bufio.Writer, r *Report, root string, worst int) {
	bl := r.Baseline
	fmt.Fprintf(w, "\nagainst the baseline run %s, over %s both answered", bl.Run, plural(bl.Bundles, "bundle"))
	if len(bl.Missing) > 0 {
		fmt.Fprintf(w, " (%d without a baseline answer)", len(bl.Missing))
	}
	w.WriteString(":\n")
	if bl.Bundles == 0 {
		return
	}
	rows := [][]string{{"", "A", "baseline", "B"}}
	for _, x := range []struct {
		label string
		cell  func(s *BaselineSide) string
	}{
		{"chars, median", func(s *BaselineSide) string { return strconv.FormatFloat(s.MedianChars, 'f', -1, 64) }},
		{"paths lost", func(s *BaselineSide) string { return strconv.Itoa(s.Lost[mdtext.KindPath]) }},
		{"decisions lost", func(s *BaselineSide) string { return strconv.Itoa(s.Lost[mdtext.KindDecision]) }},
		{"rules broken", func(s *BaselineSide) string { return strconv.Itoa(s.Violations) }},
		{"leaks", func(s *BaselineSide) string { return strconv.Itoa(s.Leaks) }},
	} {
		rows = append(rows, []string{"  " + x.label, x.cell(&bl.A), x.cell(&bl.Base), x.cell(&bl.B)})
	}
	alignRows(w, rows, false, "")
	if len(bl.NewlyLost) == 0 {
		w.WriteString("B lost nothing the baseline kept\n")
		return
	}
	fmt.Fprintf(w, "B lost %s the baseline kept, in %d of %s:\n", bl.lostText(), bl.Worse, plural(bl.Bundles, "bundle"))
	var items []BaselineItem
	for _, k := range baselineKinds {
		items = append(items, bl.NewlyLostOf(k)...)
	}
	for i, it := range items {
		if i == max(worst, 1) {
			fmt.Fprintf(w, "  and %d more (--json lists them all)\n", len(items)-i)
			break
		}
		fmt.Fprintf(w, "  %s  %s %s\n", relTo(root, it.Bundle), it.Kind, mdtext.Clip(it.Value, 120))
	}
}
