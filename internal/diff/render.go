package diff

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/mdtext"
)

// TextOptions steer the text and markdown renderings.
type TextOptions struct {
	// Color adds ANSI colours (text only): removed lines red, added lines
	// green, hunk headers cyan, bundle headers bold, "worse" red.
	Color bool
	// Stat leaves out the diffs and the lists of lost items of a single
	// comparison; of more than one, it writes only the summary: totals,
	// medians, the Worst rows of the table and the Worst chains.
	Stat bool
	// Worst is how many bundles and chains the summary lists (Stat).
	Worst int
}

const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
)

var kindLabels = map[mdtext.Kind]string{
	mdtext.KindPath: "paths", mdtext.KindLink: "links", mdtext.KindColor: "colors",
	mdtext.KindHeading: "headings", mdtext.KindDecision: "decisions", mdtext.KindFailure: "failures",
}

var statusMarks = map[SectionStatus]string{SectionKept: "=", SectionChanged: "~", SectionOnlyA: "-", SectionOnlyB: "+"}

// painter writes text in a colour. The text and markdown renderings are
// for a person, and what they show comes in part from the bundles (their
// names, the briefings): all of it is written escaped
// (iostreams.EscapeWriter), so that a control sequence in it is shown,
// not acted on. Only the colours' own sequences pass the escaping: they
// are written to raw, under it, in their place.
type painter struct {
	on  bool
	w   *bufio.Writer // the text, escaped on its way to raw
	esc *iostreams.EscapeWriter
	raw *bufio.Writer
}

// newPainter is the writer of a rendering to out and its painter;
// flush writes everything out.
func newPainter(out io.Writer, color bool) (w *bufio.Writer, p painter, flush func() error) {
	raw := bufio.NewWriter(out)
	esc := iostreams.NewEscapeWriter(raw)
	w = bufio.NewWriter(esc)
	p = painter{on: color, w: w, esc: esc, raw: raw}
	flush = func() error {
		if err := w.Flush(); err != nil {
			return err
		}
		if err := esc.Flush(); err != nil {
			return err
		}
		return raw.Flush()
	}
	return w, p, flush
}

// write writes s in the colour code.
func (p painter) write(code, s string) {
	if !p.on || s == "" {
		p.w.WriteString(s)
		return
	}
	p.w.Flush()
	p.esc.Flush()
	p.raw.WriteString(code)
	p.w.WriteString(s)
	p.w.Flush()
	p.esc.Flush()
	p.raw.WriteString(ansiReset)
}

// WriteText writes the report for a person: each comparison's measures,
// lost items, sections and diffs, then (for more than one comparison) the
// summary table worst first with totals and medians, and the chains.
// Control characters in it are escaped (see painter).
func (r *Report) WriteText(w io.Writer, opt TextOptions) error {
	bw, p, flush := newPainter(w, opt.Color)
	if opt.Stat && len(r.Comparisons) > 1 {
		writeSummaryText(bw, r, opt, p)
		if r.Baseline != nil {
			writeBaselineText(bw, r, commonRoot(r.Comparisons), opt.Worst)
		}
		return flush()
	}
	for i, c := range r.Comparisons {
		if i > 0 {
			bw.WriteString("\n")
		}
		writeComparisonText(bw, c, opt, p)
	}
	if len(r.Comparisons) > 1 {
		bw.WriteString("\n")
		writeTable(bw, r, false)
	}
	if ch := multiChains(r.Chains); len(ch) > 0 {
		bw.WriteString("\n")
		writeChainsText(bw, ch)
	}
	if r.Baseline != nil {
		writeBaselineText(bw, r, commonRoot(r.Comparisons), 10)
	}
	writeFailedText(bw, r, p)
	return flush()
}

// multiChains are the chains with more than one briefing.
func multiChains(cs []Chain) []Chain {
	var out []Chain
	for _, c := range cs {
		if len(c.A) > 1 {
			out = append(out, c)
		}
	}
	return out
}

func writeComparisonText(w *bufio.Writer, c *Comparison, opt TextOptions, p painter) {
	p.write(ansiBold, "== "+c.Bundle)
	w.WriteString("\n")
	fmt.Fprintf(w, "A  %s\n", c.A.File)
	fmt.Fprintf(w, "B  %s%s\n", c.B.File, replayNote(c))
	rows := measureRows(c)
	wl, wa := len("similarity"), 1
	for _, r := range rows {
		wl = max(wl, utf8.RuneCountInString(r[0]))
		if r[1] != "\x00" {
			wa = max(wa, utf8.RuneCountInString(r[1]))
		}
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s))) }
	fmt.Fprintf(w, "%s  %s  %s\n", pad("", wl), pad("A", wa), "B")
	for _, r := range rows {
		if r[2] == "" && r[1] == "" {
			continue
		}
		if r[1] == "\x00" { // a line spanning both columns
			fmt.Fprintf(w, "%s  %s\n", pad(r[0], wl), r[2])
			continue
		}
		fmt.Fprintf(w, "%s  %s  %s\n", pad(r[0], wl), pad(r[1], wa), r[2])
	}
	fmt.Fprintf(w, "%s  %s\n", pad("similarity", wl), similarityText(c.Similarity))
	fmt.Fprintf(w, "%s  %s\n", pad("sections", wl), sectionCountsText(c))
	w.WriteString(pad("B worse on", wl) + "  ")
	if len(c.Worse) > 0 {
		p.write(ansiRed, strings.Join(c.Worse, ", "))
	} else {
		w.WriteString("none")
	}
	w.WriteString("\n")
	for _, warn := range c.Warnings {
		fmt.Fprintf(w, "%s  %s\n", pad("warning", wl), warn)
	}
	if len(c.Bounded) > 0 {
		fmt.Fprintf(w, "%s  %s\n", pad("bounded", wl), boundedText(c.Bounded))
	}
	if !opt.Stat {
		for _, side := range []struct {
			name string
			s    *Side
		}{{"lost by A", &c.A}, {"lost by B", &c.B}} {
			if !c.HasHistory {
				continue
			}
			if len(side.s.Lost) == 0 {
				fmt.Fprintf(w, "%s  none\n", pad(side.name, wl))
				continue
			}
			for i, it := range side.s.Lost {
				label := ""
				if i == 0 {
					label = side.name
				}
				fmt.Fprintf(w, "%s  %-8s  %s\n", pad(label, wl), it.Kind, itemText(it))
			}
		}
	}
	if len(c.Sections) > 0 {
		w.WriteString("\n")
		for _, s := range c.Sections {
			if opt.Stat && s.Status == SectionKept {
				continue
			}
			line := fmt.Sprintf("  %s %s", statusMarks[s.Status], sectionLabel(s))
			switch s.Status {
			case SectionChanged:
				line += fmt.Sprintf("  (+%d -%d)", s.Added, s.Removed)
			case SectionOnlyA:
				line += fmt.Sprintf("  (only in A, -%d)", s.Removed)
			case SectionOnlyB:
				line += fmt.Sprintf("  (only in B, +%d)", s.Added)
			}
			w.WriteString(line + "\n")
		}
	}
	if opt.Stat {
		return
	}
	for _, s := range c.Sections {
		if s.Diff == "" {
			continue
		}
		w.WriteString("\n")
		writeDiff(w, s.Diff, p)
	}
}

func replayNote(c *Comparison) string {
	if c.Replay == nil {
		return ""
	}
	parts := []string{"run " + c.Replay.Run}
	if c.Replay.Newest {
		if len(c.Replay.SkippedNewer) == 0 {
			parts[0] += " (newest)"
		} else {
			parts[0] += " (newest with an answer; newer, failed: " + strings.Join(c.Replay.SkippedNewer, ", ") + ")"
		}
	}
	if c.Replay.Model != nil {
		parts = append(parts, "model "+*c.Replay.Model)
	} else {
		parts = append(parts, "model none")
	}
	if c.Replay.StartedAt != "" {
		parts = append(parts, "started "+c.Replay.StartedAt)
	}
	return "  (" + strings.Join(parts, ", ") + ")"
}

// measureRows are label, A and B cells; A "\x00" spans.
func measureRows(c *Comparison) [][3]string {
	var rows [][3]string
	size := func(s Side) string {
		return fmt.Sprintf("%d (%s of %d)", s.Chars, pct(s.TargetShare), c.TargetChars)
	}
	rows = append(rows, [3]string{"size", size(c.A), size(c.B)})
	if c.PreviousChars != nil {
		g := func(s Side) string { return fmt.Sprintf("%+d vs %d", *s.Growth, *c.PreviousChars) }
		rows = append(rows, [3]string{"growth", g(c.A), g(c.B)})
	} else {
		rows = append(rows, [3]string{"growth", "\x00", "no previous briefing"})
	}
	if c.HasHistory {
		kept := func(s Side) string {
			return fmt.Sprintf("%d/%d (%s)", len(s.Kept), c.ItemCount, pct(*s.KeptRatio))
		}
		rows = append(rows, [3]string{"must-keep", kept(c.A), kept(c.B)})
		for _, k := range mdtext.Kinds {
			a, b := c.A.ByKind[k], c.B.ByKind[k]
			if a == nil || a.Total == 0 {
				continue
			}
			rows = append(rows, [3]string{"  " + kindLabels[k], fmt.Sprintf("%d/%d", a.Kept, a.Total), fmt.Sprintf("%d/%d", b.Kept, b.Total)})
		}
	} else {
		rows = append(rows, [3]string{"must-keep", "\x00", "not measured (no compact-history.xml)"})
	}
	leaks := func(s Side) string {
		if s.LeakCount == 0 {
			return "none"
		}
		return fmt.Sprintf("%d: %s", s.LeakCount, strings.Join(s.Leaks, ", "))
	}
	rows = append(rows, [3]string{"leaks", leaks(c.A), leaks(c.B)})
	rules := func(s Side) string {
		if s.Violations == 0 {
			return "none"
		}
		var parts []string
		for _, v := range s.Rules {
			parts = append(parts, fmt.Sprintf("%s %d", v.Rule, v.Count))
		}
		return fmt.Sprintf("%d: %s", s.Violations, strings.Join(parts, ", "))
	}
	rows = append(rows, [3]string{"rules", rules(c.A), rules(c.B)})
	rows = append(rows, [3]string{"sentences", strconv.Itoa(c.A.Sentences), strconv.Itoa(c.B.Sentences)})
	return rows
}

func similarityText(s Similarity) string {
	return fmt.Sprintf("ROUGE-L F1 %.4f (P %.4f, R %.4f), sentence reuse %.4f (%d/%d)",
		s.RougeL.F1, s.RougeL.Precision, s.RougeL.Recall, s.SentenceReuse, s.SentencesReused, s.SentencesA)
}

// boundedText is the note on measures that were approximated.
func boundedText(ms []string) string {
	return strings.Join(ms, ", ") + " (approximated: the briefings are too large for an exact measure; the values are lower bounds)"
}

func sectionCountsText(c *Comparison) string {
	return fmt.Sprintf("%d kept, %d changed, %d only in A, %d only in B",
		c.SectionCounts[string(SectionKept)], c.SectionCounts[string(SectionChanged)],
		c.SectionCounts[string(SectionOnlyA)], c.SectionCounts[string(SectionOnlyB)])
}

func itemText(it mdtext.Item) string {
	if it.Kind == mdtext.KindDecision || it.Kind == mdtext.KindHeading {
		return strconv.Quote(mdtext.Clip(it.Value, 160))
	}
	return mdtext.Clip(it.Value, 160)
}

// pct prints a share as a whole percentage.
// pctOr is pct of *x, or "-" when there is no ratio.
func pctOr(x *float64) string {
	if x == nil {
		return "-"
	}
	return pct(*x)
}

func pct(x float64) string { return strconv.Itoa(int(math.Round(x*100))) + "%" }

func writeDiff(w *bufio.Writer, d string, p painter) {
	for _, line := range strings.SplitAfter(d, "\n") {
		if line == "" {
			continue
		}
		body := strings.TrimSuffix(line, "\n")
		code := ""
		switch {
		case strings.HasPrefix(body, "--- ") || strings.HasPrefix(body, "+++ "):
			code = ansiBold
		case strings.HasPrefix(body, "@@"):
			code = ansiCyan
		case strings.HasPrefix(body, "-"):
			code = ansiRed
		case strings.HasPrefix(body, "+"):
			code = ansiGreen
		}
		if code != "" {
			p.write(code, body)
		} else {
			w.WriteString(body)
		}
		w.WriteString("\n")
	}
}

// tableRows are the summary table's header and rows (rows worst first, then
// the total and the median).
func tableRows(r *Report) [][]string {
	head := []string{"bundle", "A chars", "B chars", "A kept", "B kept", "A lost", "B lost", "A rules", "B rules", "A leaks", "B leaks", "ROUGE-L", "reuse", "B worse on"}
	out := [][]string{head}
	for _, row := range r.Summary.Rows {
		worse := strings.Join(row.Worse, ",")
		if worse == "" {
			worse = "-"
		}
		out = append(out, []string{row.Bundle, strconv.Itoa(row.CharsA), strconv.Itoa(row.CharsB),
			pctOr(row.KeptA), pctOr(row.KeptB), strconv.Itoa(row.LostA), strconv.Itoa(row.LostB),
			strconv.Itoa(row.RulesA), strconv.Itoa(row.RulesB), strconv.Itoa(row.LeaksA), strconv.Itoa(row.LeaksB),
			fmt.Sprintf("%.4f", row.RougeLF1), fmt.Sprintf("%.4f", row.Reuse), worse})
	}
	t, s := r.Summary.Totals, r.Summary
	keptTotal := func(st SideTotals) string {
		if st.Items == 0 {
			return "-"
		}
		return pct(float64(st.Kept) / float64(st.Items))
	}
	var worse []string
	for _, m := range Measures {
		worse = append(worse, fmt.Sprintf("%s %d", m, s.Worse[m]))
	}
	out = append(out, []string{fmt.Sprintf("total (%d)", s.Compared), strconv.Itoa(t.A.Chars), strconv.Itoa(t.B.Chars),
		keptTotal(t.A), keptTotal(t.B), strconv.Itoa(t.A.Lost), strconv.Itoa(t.B.Lost),
		strconv.Itoa(t.A.Violations), strconv.Itoa(t.B.Violations), strconv.Itoa(t.A.Leaks), strconv.Itoa(t.B.Leaks),
		"", "", strings.Join(worse, ", ")})
	m := s.Medians
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	out = append(out, []string{"median", num(m.A.Chars), num(m.B.Chars), pctOr(m.A.KeptRatio), pctOr(m.B.KeptRatio),
		num(m.A.Lost), num(m.B.Lost), num(m.A.Violations), num(m.B.Violations), "", "",
		fmt.Sprintf("%.4f", m.RougeLF1), fmt.Sprintf("%.4f", m.SentenceReuse), ""})
	return out
}

// writeTable writes the summary table, aligned (text) or as a markdown
// table.
func writeTable(w *bufio.Writer, r *Report, markdown bool) {
	rows := tableRows(r)
	if markdown {
		for i, row := range rows {
			cells := make([]string, len(row))
			for j, c := range row {
				cells[j] = mdCell(c)
				if i > 0 && j == 0 && (strings.HasPrefix(c, "total") || c == "median") && i >= len(rows)-2 {
					cells[j] = "**" + cells[j] + "**"
				}
			}
			w.WriteString("| " + strings.Join(cells, " | ") + " |\n")
			if i == 0 {
				seps := make([]string, len(row))
				for j := range seps {
					seps[j] = "---:"
					if j == 0 || j == len(row)-1 {
						seps[j] = "---"
					}
				}
				w.WriteString("|" + strings.Join(seps, "|") + "|\n")
			}
		}
		return
	}
	alignRows(w, rows, true, "")
}

func writeChainsText(w *bufio.Writer, cs []Chain) {
	w.WriteString("chains (briefing sizes in compression order)\n")
	for _, c := range cs {
		w.WriteString(c.Chain + "\n")
		fmt.Fprintf(w, "  A  %s\n", joinInts(c.A, " → "))
		fmt.Fprintf(w, "  B  %s\n", joinInts(c.B, " → "))
	}
}

// failOnPassed writes the blank line before the --fail-on verdict, and the
// verdict itself when nothing failed; it reports whether there is nothing
// more to write (no --fail-on, or no failure).
func failOnPassed(w *bufio.Writer, r *Report) bool {
	if len(r.FailOn) == 0 {
		return true
	}
	w.WriteString("\n")
	if len(r.Failed) == 0 {
		fmt.Fprintf(w, "fail-on %s: B is not worse than A in any comparison\n", strings.Join(r.FailOn, ","))
		return true
	}
	return false
}

func writeFailedText(w *bufio.Writer, r *Report, p painter) {
	if failOnPassed(w, r) {
		return
	}
	for _, f := range r.Failed {
		p.write(ansiRed, "FAIL")
		fmt.Fprintf(w, " %s: %s: A %d, B %d\n", f.Measure, f.Bundle, f.A, f.B)
	}
}

func joinInts(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

// mdCell escapes a markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// mdCode wraps s in a code span that its own backticks cannot close.
func mdCode(s string) string {
	n := 1
	for strings.Contains(s, strings.Repeat("`", n)) {
		n++
	}
	fence := strings.Repeat("`", n)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// WriteMarkdown writes the report as markdown. Over more than one
// comparison, or with a baseline, it is the comment a CI job posts on a
// pull request: the summary (with a baseline, A, the baseline and B side
// by side and the paths and decisions B lost that the baseline kept), the
// --fail-on verdict, the opt.Worst worst bundles and chains; a screenful
// whatever the number of bundles. Of one comparison, it is that
// comparison for an issue: its measures, lost items and (unless Stat)
// its diffs in collapsed blocks. Control characters in it are escaped,
// as in WriteText.
func (r *Report) WriteMarkdown(w io.Writer, opt TextOptions) error {
	bw, _, flush := newPainter(w, false)
	if len(r.Comparisons) > 1 || r.Baseline != nil {
		writeSummaryMarkdown(bw, r, opt)
		return flush()
	}
	s := r.Summary
	fmt.Fprintf(bw, "## compact diff: %d compared", s.Compared)
	if s.Errors > 0 {
		fmt.Fprintf(bw, ", %d not compared", s.Errors)
	}
	bw.WriteString("\n\n")
	var worse []string
	for _, m := range Measures {
		worse = append(worse, fmt.Sprintf("%s in %d", m, s.Worse[m]))
	}
	fmt.Fprintf(bw, "B (replay) is worse than A (actual) on: %s.\n\n", strings.Join(worse, ", "))
	if len(r.FailOn) > 0 {
		if len(r.Failed) == 0 {
			fmt.Fprintf(bw, "**fail-on %s: passed.**\n\n", strings.Join(r.FailOn, ","))
		} else {
			fmt.Fprintf(bw, "**fail-on %s: failed** in %d case(s):\n\n", strings.Join(r.FailOn, ","), len(r.Failed))
			for _, f := range r.Failed {
				fmt.Fprintf(bw, "- %s %s: A %d, B %d\n", f.Measure, mdCode(f.Bundle), f.A, f.B)
			}
			bw.WriteString("\n")
		}
	}
	if len(r.Comparisons) > 0 {
		writeTable(bw, r, true)
		bw.WriteString("\n")
	}
	if ch := multiChains(r.Chains); len(ch) > 0 {
		bw.WriteString("### Chains\n\nBriefing sizes in compression order.\n\n| chain | | sizes |\n|---|---|---|\n")
		for _, c := range ch {
			fmt.Fprintf(bw, "| %s | A | %s |\n", mdCell(mdCode(c.Chain)), joinInts(c.A, " → "))
			fmt.Fprintf(bw, "| | B | %s |\n", joinInts(c.B, " → "))
		}
		bw.WriteString("\n")
	}
	if len(r.Errors) > 0 {
		bw.WriteString("### Not compared\n\n")
		for _, e := range r.Errors {
			fmt.Fprintf(bw, "- %s: %s\n", mdCode(e.Bundle), e.Error)
		}
		bw.WriteString("\n")
	}
	for _, c := range r.Comparisons {
		writeComparisonMarkdown(bw, c, opt)
	}
	return flush()
}

func writeComparisonMarkdown(w *bufio.Writer, c *Comparison, opt TextOptions) {
	fmt.Fprintf(w, "### %s\n\n", mdCode(c.Bundle))
	fmt.Fprintf(w, "A: %s  \nB: %s%s\n\n", mdCode(c.A.File), mdCode(c.B.File), replayNote(c))
	w.WriteString("| measure | A | B |\n|---|---|---|\n")
	for _, r := range measureRows(c) {
		if r[1] == "\x00" {
			fmt.Fprintf(w, "| %s | %s | |\n", mdCell(strings.TrimSpace(r[0])), mdCell(r[2]))
			continue
		}
		label := r[0]
		if strings.HasPrefix(label, "  ") {
			label = "↳ " + strings.TrimSpace(label)
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", mdCell(label), mdCell(r[1]), mdCell(r[2]))
	}
	w.WriteString("\n")
	fmt.Fprintf(w, "Similarity: %s. Sections: %s. ", similarityText(c.Similarity), sectionCountsText(c))
	if len(c.Worse) == 0 {
		w.WriteString("B is worse on: none.\n\n")
	} else {
		fmt.Fprintf(w, "**B is worse on: %s.**\n\n", strings.Join(c.Worse, ", "))
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(w, "> warning: %s\n\n", warn)
	}
	if len(c.Bounded) > 0 {
		fmt.Fprintf(w, "> bounded: %s\n\n", boundedText(c.Bounded))
	}
	if !opt.Stat && c.HasHistory {
		for _, side := range []struct {
			name string
			s    *Side
		}{{"A", &c.A}, {"B", &c.B}} {
			if len(side.s.Lost) == 0 {
				continue
			}
			fmt.Fprintf(w, "<details><summary>Lost by %s (%d)</summary>\n\n", side.name, len(side.s.Lost))
			for _, it := range side.s.Lost {
				fmt.Fprintf(w, "- %s: %s\n", it.Kind, mdCode(mdtext.Clip(it.Value, 160)))
			}
			w.WriteString("\n</details>\n\n")
		}
	}
	if len(c.Sections) > 0 {
		w.WriteString("| | section | change |\n|---|---|---|\n")
		for _, s := range c.Sections {
			change := string(s.Status)
			switch s.Status {
			case SectionChanged:
				change = fmt.Sprintf("changed (+%d -%d)", s.Added, s.Removed)
			case SectionOnlyA:
				change = "only in A"
			case SectionOnlyB:
				change = "only in B"
			}
			fmt.Fprintf(w, "| %s | %s | %s |\n", statusMarks[s.Status], mdCell(sectionLabel(s)), change)
		}
		w.WriteString("\n")
	}
	if opt.Stat {
		return
	}
	var diffs []string
	for _, s := range c.Sections {
		if s.Diff != "" {
			diffs = append(diffs, s.Diff)
		}
	}
	if len(diffs) == 0 {
		return
	}
	all := strings.Join(diffs, "")
	fence := "```"
	for strings.Contains(all, fence) {
		fence += "`"
	}
	fmt.Fprintf(w, "<details><summary>Diff by section</summary>\n\n%sdiff\n%s%s\n\n</details>\n\n", fence, all, fence)
}
