package diff

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/bundle"
)

// The summary (--stat over more than one comparison) is what a person reads
// of a run over hundreds of bundles: a few lines of totals and medians, the
// worst bundles and the chains where B outgrows A most. It has no line per
// bundle; the JSON report has them all.

// summaryExplainAB says what A and B are, in one line.
const summaryExplainAB = "A is the app's briefing (" + bundle.FileActual + "), B the replay's (" + bundle.DirReplays + "/<run>/" + bundle.FileOutput + ")"

// commonRoot is the deepest directory holding every chain of cs, so that
// bundles and chains can be named relative to it ("" when there is none).
func commonRoot(cs []*Comparison) string {
	var root []string
	first := true
	for _, c := range cs {
		chain := c.Chain
		if chain == "" {
			chain = bundle.ChainOf(c.Bundle)
		}
		parts := strings.Split(filepath.Dir(chain), string(os.PathSeparator))
		if first {
			root, first = parts, false
			continue
		}
		n := 0
		for n < len(root) && n < len(parts) && root[n] == parts[n] {
			n++
		}
		root = root[:n]
	}
	r := strings.Join(root, string(os.PathSeparator))
	if r == "." {
		return ""
	}
	if r == "" && len(root) > 0 {
		return string(os.PathSeparator)
	}
	return r
}

// relTo names path relative to root.
func relTo(root, path string) string {
	if root == "" {
		return path
	}
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// KSize is a size in a few characters: 523, 2.1k, 18k, 1.2M.
func KSize(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 9950:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	case n < 999500:
		return strconv.Itoa((n+500)/1000) + "k"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
}

// chainCells are a chain's sizes as kSize cells; a chain of more than 8
// briefings shows its first two, "…" and its last five.
func chainCells(xs []int) []string {
	var out []string
	for i, x := range xs {
		if len(xs) > 8 && i >= 2 && i < len(xs)-5 {
			if i == 2 {
				out = append(out, "…")
			}
			continue
		}
		out = append(out, KSize(x))
	}
	return out
}

// plural is "1 bundle", "2 bundles".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// runsText says which runs gave B: "run builtin", "runs builtin (5),
// cascade (2)", with how many comparisons skipped a newer failed run.
func runsText(r *Report) string {
	runs := r.Summary.Runs
	var s string
	switch {
	case len(runs) == 0:
		return ""
	case len(runs) == 1 && runs[0].Bundles == len(r.Comparisons):
		s = "run " + runs[0].Run
	default:
		parts := make([]string, len(runs))
		for i, rc := range runs {
			parts[i] = fmt.Sprintf("%s (%d)", rc.Run, rc.Bundles)
		}
		s = "run"
		if len(runs) > 1 {
			s += "s"
		}
		s += " " + strings.Join(parts, ", ")
	}
	newest, skipped := 0, 0
	for _, c := range r.Comparisons {
		if c.Replay != nil && c.Replay.Newest {
			newest++
			if len(c.Replay.SkippedNewer) > 0 {
				skipped++
			}
		}
	}
	if newest == len(r.Comparisons) {
		s += ", the newest with an answer"
	}
	switch {
	case skipped == 1:
		s += " (1 bundle has a newer failed run)"
	case skipped > 1:
		s += fmt.Sprintf(" (%d bundles have a newer failed run)", skipped)
	}
	return s
}

// summaryRows are the summary's label, A and B cells; an empty A cell
// spans both columns.
func summaryRows(r *Report) [][3]string {
	t, m, s := r.Summary.Totals, r.Summary.Medians, r.Summary
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	kept := func(st SideTotals) string {
		if st.Items == 0 {
			return "not measured"
		}
		return fmt.Sprintf("%s of %d", pct(float64(st.Kept)/float64(st.Items)), st.Items)
	}
	target := DefaultTarget
	if len(r.Comparisons) > 0 {
		target = r.Comparisons[0].TargetChars
	}
	rows := [][3]string{
		{"chars, total", strconv.Itoa(t.A.Chars), strconv.Itoa(t.B.Chars)},
		{"chars, median", num(m.A.Chars), num(m.B.Chars)},
		{fmt.Sprintf("over %d chars", target), strconv.Itoa(t.A.OverTarget), strconv.Itoa(t.B.OverTarget)},
		{"must-keep kept", kept(t.A), kept(t.B)},
		{"  median", pctOr(m.A.KeptRatio), pctOr(m.B.KeptRatio)},
		{"items lost", strconv.Itoa(t.A.Lost), strconv.Itoa(t.B.Lost)},
		{"  paths", strconv.Itoa(t.A.LostPaths), strconv.Itoa(t.B.LostPaths)},
		{"rules broken", strconv.Itoa(t.A.Violations), strconv.Itoa(t.B.Violations)},
		{"leaks", strconv.Itoa(t.A.Leaks), strconv.Itoa(t.B.Leaks)},
		{"similarity", "", fmt.Sprintf("median ROUGE-L F1 %.4f, sentence reuse %.4f", m.RougeLF1, m.SentenceReuse)},
	}
	var worse []string
	for _, ms := range Measures {
		worse = append(worse, fmt.Sprintf("%s in %d", ms, s.Worse[ms]))
	}
	rows = append(rows, [3]string{"B worse than A", "", strings.Join(worse, ", ") + " of " + plural(s.Compared, "bundle")})
	return rows
}

// worstHead and worstCells are the summary's table of the worst bundles,
// each measure as "A→B".
var worstHead = []string{"bundle", "chars A→B", "kept A→B", "lost A→B", "rules A→B", "leaks A→B", "ROUGE-L", "B worse on"}

func worstCells(row Row, name string) []string {
	worse := strings.Join(row.Worse, ",")
	if worse == "" {
		worse = "-"
	}
	ab := func(a, b string) string { return a + "→" + b }
	return []string{name, ab(strconv.Itoa(row.CharsA), strconv.Itoa(row.CharsB)), ab(pctOr(row.KeptA), pctOr(row.KeptB)),
		ab(strconv.Itoa(row.LostA), strconv.Itoa(row.LostB)), ab(strconv.Itoa(row.RulesA), strconv.Itoa(row.RulesB)),
		ab(strconv.Itoa(row.LeaksA), strconv.Itoa(row.LeaksB)), fmt.Sprintf("%.4f", row.RougeLF1), worse}
}

// alignRows writes rows with the columns aligned: the first left, the
// others right, or the last left when lastLeft; each line after indent.
func alignRows(w *bufio.Writer, rows [][]string, lastLeft bool, indent string) {
	if len(rows) == 0 {
		return
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for j, c := range row {
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for j, c := range row {
			n := widths[j] - utf8.RuneCountInString(c)
			switch {
			case j == 0:
				b.WriteString(c + strings.Repeat(" ", n))
			case j == len(row)-1 && lastLeft:
				b.WriteString("  " + c)
			default:
				b.WriteString("  " + strings.Repeat(" ", n) + c)
			}
		}
		w.WriteString(strings.TrimRight(b.String(), " ") + "\n")
	}
}

func summaryHeadline(r *Report, root string) string {
	s := r.Summary
	line := plural(s.Compared, "bundle") + " compared"
	if root != "" {
		line += " under " + root
	}
	if s.Errors > 0 {
		line += fmt.Sprintf(", %d not compared", s.Errors)
	}
	if runs := runsText(r); runs != "" {
		line += "; B from " + runs
	}
	return line
}

func chainsHeadline(st ChainStats) string {
	if st.Multi == 0 {
		return plural(st.Chains, "chain") + " of one briefing each"
	}
	each := fmt.Sprintf("%d–%d", st.Shortest, st.Longest)
	if st.Shortest == st.Longest {
		each = strconv.Itoa(st.Longest)
	}
	return fmt.Sprintf("%s of %s briefings; last briefing median A %s, B %s; largest A %s, B %s",
		plural(st.Chains, "chain"), each, KSize(int(st.LastA+0.5)), KSize(int(st.LastB+0.5)), KSize(st.PeakA), KSize(st.PeakB))
}

func writeSummaryText(w *bufio.Writer, r *Report, opt TextOptions, p painter) {
	root := commonRoot(r.Comparisons)
	p.write(ansiBold, summaryHeadline(r, root))
	w.WriteString("\n")
	w.WriteString(summaryExplainAB + "\n\n")
	sr := summaryRows(r)
	rows := [][]string{{"", "A", "B"}}
	wl := 0
	for _, row := range sr {
		wl = max(wl, utf8.RuneCountInString(row[0]))
		if row[1] != "" {
			rows = append(rows, []string{row[0], row[1], row[2]})
		}
	}
	rows[0][0] = strings.Repeat(" ", wl)
	alignRows(w, rows, false, "")
	for _, row := range sr {
		if row[1] != "" {
			continue
		}
		fmt.Fprintf(w, "%s%s  ", row[0], strings.Repeat(" ", wl-utf8.RuneCountInString(row[0])))
		if row[0] == "B worse than A" && sumWorse(r) > 0 {
			p.write(ansiRed, row[2])
		} else {
			w.WriteString(row[2])
		}
		w.WriteString("\n")
	}
	if rows := r.WorstRows(opt.Worst); len(rows) > 0 {
		which := fmt.Sprintf("worst %d of %d", len(rows), len(r.Summary.Rows))
		if len(rows) == len(r.Summary.Rows) {
			which = fmt.Sprintf("all %d, worst first", len(rows))
		}
		fmt.Fprintf(w, "\n%s (most measures on which B is worse, then most items lost beyond A)\n", which)
		table := [][]string{worstHead}
		for _, row := range rows {
			table = append(table, worstCells(row, relTo(root, row.Bundle)))
		}
		alignRows(w, table, true, "")
	}
	st := r.ChainStats()
	w.WriteString("\n" + chainsHeadline(st) + "\n")
	if ch := r.WorstChains(opt.Worst); len(ch) > 0 {
		fmt.Fprintf(w, "chains by B's size against A's, largest first (%d of %d); sizes in compression order:\n", len(ch), st.Multi)
		var table [][]string
		cols := 0
		for _, c := range ch {
			cols = max(cols, len(chainCells(c.A)))
		}
		for _, c := range ch {
			table = append(table, append([]string{relTo(root, c.Chain), "A"}, pad(chainCells(c.A), cols)...))
			table = append(table, append([]string{"", "B"}, pad(chainCells(c.B), cols)...))
		}
		alignRows(w, table, false, "  ")
	}
	writeFailedSummary(w, r, p)
}

// pad extends cells to n with empty cells.
func pad(cells []string, n int) []string {
	for len(cells) < n {
		cells = append(cells, "")
	}
	return cells
}

func sumWorse(r *Report) int {
	n := 0
	for _, v := range r.Summary.Worse {
		n += v
	}
	return n
}

// writeFailedSummary is the --fail-on verdict in one line: how many bundles
// failed each gated measure.
func writeFailedSummary(w *bufio.Writer, r *Report, p painter) {
	if failOnPassed(w, r) {
		return
	}
	var parts []string
	for _, m := range r.FailOn {
		n := 0
		for _, f := range r.Failed {
			if f.Measure == m {
				n++
			}
		}
		parts = append(parts, fmt.Sprintf("%s in %d", m, n))
	}
	p.write(ansiRed, "FAIL")
	fmt.Fprintf(w, " %s of %s (B worse than A; --json lists each)\n", strings.Join(parts, ", "), plural(r.Summary.Compared, "bundle"))
}

func writeSummaryMarkdown(w *bufio.Writer, r *Report, opt TextOptions) {
	root := commonRoot(r.Comparisons)
	fmt.Fprintf(w, "## compact diff: %s\n\n", summaryHeadline(r, root))
	w.WriteString(summaryExplainAB + ".\n\n")
	if r.Baseline != nil {
		writeBaselineMarkdown(w, r, root)
		var worse []string
		for _, m := range Measures {
			worse = append(worse, fmt.Sprintf("%s in %d", m, r.Summary.Worse[m]))
		}
		fmt.Fprintf(w, "Against A, B is worse on %s of %s.\n\n", strings.Join(worse, ", "), plural(r.Summary.Compared, "bundle"))
	} else {
		w.WriteString("| measure | A | B |\n|---|---:|---:|\n")
		var spans []string
		for _, row := range summaryRows(r) {
			if row[1] == "" {
				spans = append(spans, row[0]+": "+row[2]+".")
				continue
			}
			label := row[0]
			if strings.HasPrefix(label, "  ") {
				label = "↳ " + strings.TrimSpace(label)
			}
			fmt.Fprintf(w, "| %s | %s | %s |\n", mdCell(label), mdCell(row[1]), mdCell(row[2]))
		}
		w.WriteString("\n" + strings.Join(spans, " ") + "\n\n")
	}
	if len(r.FailOn) > 0 {
		if len(r.Failed) == 0 {
			fmt.Fprintf(w, "**fail-on %s: passed.**\n\n", strings.Join(r.FailOn, ","))
		} else {
			fmt.Fprintf(w, "**fail-on %s: failed** in %d case(s).\n\n", strings.Join(r.FailOn, ","), len(r.Failed))
		}
	}
	if rows := r.WorstRows(opt.Worst); len(rows) > 0 {
		if len(rows) == len(r.Summary.Rows) {
			fmt.Fprintf(w, "### All %d, worst first\n\n", len(rows))
		} else {
			fmt.Fprintf(w, "### Worst %d of %d\n\n", len(rows), len(r.Summary.Rows))
		}
		w.WriteString("| " + strings.Join(worstHead, " | ") + " |\n|---" + strings.Repeat("|---:", len(worstHead)-2) + "|---|\n")
		for _, row := range rows {
			cs := worstCells(row, relTo(root, row.Bundle))
			cs[0] = mdCode(cs[0])
			for j := range cs {
				cs[j] = mdCell(cs[j])
			}
			w.WriteString("| " + strings.Join(cs, " | ") + " |\n")
		}
		w.WriteString("\n")
	}
	st := r.ChainStats()
	w.WriteString("### Chains\n\n" + chainsHeadline(st) + ".\n\n")
	if ch := r.WorstChains(opt.Worst); len(ch) > 0 {
		fmt.Fprintf(w, "Chains by B's size against A's, largest first (%d of %d); sizes in compression order:\n\n| chain | | sizes |\n|---|---|---|\n", len(ch), st.Multi)
		for _, c := range ch {
			fmt.Fprintf(w, "| %s | A | %s |\n", mdCell(mdCode(relTo(root, c.Chain))), strings.Join(chainCells(c.A), " → "))
			fmt.Fprintf(w, "| | B | %s |\n", strings.Join(chainCells(c.B), " → "))
		}
		w.WriteString("\n")
	}
}
