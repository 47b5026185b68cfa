package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
)

// TextOptions steer the text and markdown reports.
type TextOptions struct {
	// Worst is how many bundles the table lists, worst first (all when
	// negative).
	Worst int
	// Root is cut from the bundle paths shown (their common directory).
	Root string
}

// WriteJSON writes the whole report, every probe and answer included.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func (r *Report) probeLine() string {
	kinds := func(ks []Kind) (string, int) {
		var parts []string
		total := 0
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("%s %d", k, r.Probes[k]))
			total += r.Probes[k]
		}
		return strings.Join(parts, ", "), total
	}
	gk, gn := kinds(GroundedKinds)
	ck, cn := kinds(Kinds)
	return fmt.Sprintf("%s measurable by the grounded headline: %s (%s); %s (%s)", r.measurableLine(), plural(gn, "grounded probe"), gk, plural(cn, "coverage probe"), ck)
}

// measurableLine is "2 of 3 bundles" (the bundles with grounded probes).
func (r *Report) measurableLine() string {
	n := 0
	for _, b := range r.Results {
		if b.NotMeasurable == "" {
			n++
		}
	}
	return fmt.Sprintf("%d of %s", n, plural(r.Bundles, "bundle"))
}

// notMeasurableLines says why bundles are not measurable, a line per
// reason with a count and the first bundle.
func (r *Report) notMeasurableLines(opt TextOptions) []string {
	count := map[string]int{}
	first := map[string]string{}
	var order []string
	for _, b := range r.Results {
		if b.NotMeasurable == "" {
			continue
		}
		if count[b.NotMeasurable] == 0 {
			order = append(order, b.NotMeasurable)
			first[b.NotMeasurable] = r.bundleName(b.Bundle, opt)
		}
		count[b.NotMeasurable]++
	}
	var out []string
	for _, why := range order {
		out = append(out, fmt.Sprintf("not measurable (%s, e.g. %s): %s", plural(count[why], "bundle"), first[why], why))
	}
	return out
}

// measuresLine says what the scores are.
func (r *Report) measuresLine() string {
	return fmt.Sprintf("grounded: share of what the agent used next from the compacted part that the briefing holds in its first %s characters, lowered past them (0 at twice); coverage: share of the compacted history's files, failures, facts and requests it holds (copying raises it); offline, no model", groupThousands(r.Target))
}

func fmtShare(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

func fmtPtr(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *v)
}

func fmtSigned(v float64) string { return fmt.Sprintf("%+.3f", v) }

// groupThousands writes n with commas: 30,000.
func groupThousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// sidesTable is the rows of the per-briefing table.
func (r *Report) sidesTable() [][]string {
	rows := [][]string{{"briefing", "bundles", "grounded", "chars", "over target", "coverage", "artifact", "recall", "decision", "continuation", "lost", "regressed", "re-read named"}}
	for _, s := range r.Sides {
		name := s.Name
		if name == r.Baseline && len(r.Sides) > 1 {
			name += " (baseline)"
		}
		row := []string{name, fmt.Sprint(s.Bundles), fmtPtr(s.Overall), groupThousands(int(math.Round(s.Chars))), fmt.Sprintf("%.0f%%", 100*s.OverTarget), fmtPtr(s.Coverage)}
		for _, k := range Kinds {
			v, ok := s.Kinds[k]
			row = append(row, fmtShare(v, ok))
		}
		reg := fmt.Sprint(s.Regressed)
		if s.Name == r.Baseline {
			reg = "-"
		}
		rr := "-"
		if s.ReReads > 0 {
			rr = fmt.Sprintf("%d of %d", s.ReReadNamed, s.ReReads)
		}
		row = append(row, fmt.Sprint(s.Lost), reg, rr)
		rows = append(rows, row)
	}
	return rows
}

// groundedTable is the grounded recall per kind and side, nil when no
// bundle is measurable.
func (r *Report) groundedTable() [][]string {
	head := []string{"grounded, by kind"}
	for _, k := range GroundedKinds {
		head = append(head, string(k))
	}
	rows := [][]string{head}
	for _, s := range r.Sides {
		if s.Overall == nil {
			continue
		}
		row := []string{s.Name}
		for _, k := range GroundedKinds {
			v, ok := s.Grounded[k]
			row = append(row, fmtShare(v, ok))
		}
		rows = append(rows, row)
	}
	if len(rows) == 1 {
		return nil
	}
	return rows
}

func (r *Report) pairsTable() [][]string {
	rows := [][]string{{"B vs A", "bundles", "mean A", "mean B", "B − A", "95% CI", "wins", "losses", "ties", "size B/A", "coverage B − A"}}
	for _, p := range r.Pairs {
		size := "-"
		if p.SizeRatio > 0 {
			size = fmt.Sprintf("%.2f×", p.SizeRatio)
		}
		cov := "-"
		if p.Coverage.N > 0 {
			cov = fmtSigned(p.Coverage.Diff)
		}
		rows = append(rows, []string{p.B + " vs " + p.A, fmt.Sprint(p.N), fmtShare(p.MeanA, p.N > 0), fmtShare(p.MeanB, p.N > 0),
			fmtSigned(p.Diff), fmt.Sprintf("[%s, %s]", fmtSigned(p.CILow), fmtSigned(p.CIHigh)),
			fmt.Sprint(p.Wins), fmt.Sprint(p.Losses), fmt.Sprint(p.Ties), size, cov})
	}
	return rows
}

// judgedTable is the judged scores per briefing (0 to 5), nil without any.
func (r *Report) judgedTable() [][]string {
	if r.Judge == nil {
		return nil
	}
	rows := [][]string{{"briefing", "judged", "score", "accuracy", "context", "artifacts", "complete", "continuity", "instructions"}}
	for _, s := range r.Sides {
		if s.Judged == nil {
			continue
		}
		row := []string{s.Name, fmt.Sprint(s.Judged.Bundles), fmt.Sprintf("%.2f", s.Judged.Score)}
		for _, d := range Dimensions {
			row = append(row, fmt.Sprintf("%.2f", s.Judged.Dimensions[d]))
		}
		rows = append(rows, row)
	}
	return rows
}

// judgedPairsTable compares judged scores, nil without any.
func (r *Report) judgedPairsTable() [][]string {
	rows := [][]string{{"judged B vs A", "bundles", "mean A", "mean B", "B − A", "95% CI", "wins", "losses", "ties"}}
	for _, p := range r.Pairs {
		if j := p.Judged; j != nil {
			rows = append(rows, []string{p.B + " vs " + p.A, fmt.Sprint(j.N), fmt.Sprintf("%.2f", j.MeanA), fmt.Sprintf("%.2f", j.MeanB),
				fmt.Sprintf("%+.2f", j.Diff), fmt.Sprintf("[%+.2f, %+.2f]", j.CILow, j.CIHigh), fmt.Sprint(j.Wins), fmt.Sprint(j.Losses), fmt.Sprint(j.Ties)})
		}
	}
	if len(rows) == 1 {
		return nil
	}
	return rows
}

func (r *Report) judgeLine() string {
	j := r.Judge
	bundles := plural(j.Bundles, "bundle")
	if j.Repeats > 1 {
		bundles += fmt.Sprintf(", %d times each", j.Repeats)
	}
	line := fmt.Sprintf("judged by %s (pack %s): %s, %s (%d from the cache), cost $%.6f", j.Judge, j.PackHash, bundles, plural(j.Calls, "call"), j.Cached, j.CostUSD)
	if j.SavedUSD > 0 {
		line += fmt.Sprintf(", saved $%.6f", j.SavedUSD)
	}
	return line + "; mean grade 0 to 5 of the answers an agent gives from the briefing alone"
}

func (r *Report) rowsTable(opt TextOptions) ([][]string, []Row) {
	head := []string{"bundle", "grounded probes"}
	for _, s := range r.Sides {
		head = append(head, s.Name)
	}
	rows := [][]string{head}
	shown := r.Rows
	if opt.Worst >= 0 && len(shown) > opt.Worst {
		shown = shown[:opt.Worst]
	}
	for _, row := range shown {
		line := []string{r.bundleName(row.Bundle, opt), fmt.Sprint(row.GroundedProbe)}
		for _, s := range r.Sides {
			v, ok := row.Scores[s.Name]
			cell := fmtShare(v, ok)
			if _, has := row.Coverage[s.Name]; !ok && (has || row.res != nil && row.res.Briefing(s.Name) != nil) {
				cell = "n/a"
			}
			line = append(line, cell)
		}
		rows = append(rows, line)
	}
	return rows, shown
}

func (r *Report) bundleName(b string, opt TextOptions) string {
	if opt.Root != "" {
		if rel, err := filepath.Rel(opt.Root, b); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(b)
}

// lostLines names, for one bundle, what each side lost that the baseline
// kept (every loss for the baseline itself), one line a side.
func (r *Report) lostLines(row Row) []string {
	res := row.res
	if res == nil {
		return nil
	}
	base := res.Briefing(r.Baseline)
	var out []string
	for _, s := range res.Briefings {
		var items []string
		if s.Grounded != nil {
			for _, i := range s.Grounded.Lost {
				if base != nil && s.Name != r.Baseline && base.Grounded != nil && !base.Grounded.Answered(i) {
					continue
				}
				p := res.Grounded[i]
				items = append(items, string(p.Kind)+" "+clip(p.shown(), 70))
			}
		}
		for _, i := range s.Lost {
			if base != nil && s.Name != r.Baseline && !base.Answers[i].Present {
				continue
			}
			p := res.Probes[i]
			items = append(items, string(p.Kind)+" "+clip(p.shown(), 70))
		}
		if len(items) == 0 {
			continue
		}
		what := "lost"
		if base != nil && s.Name != r.Baseline {
			what = "lost what " + r.Baseline + " kept"
		}
		more := ""
		if len(items) > 6 {
			more = fmt.Sprintf("; and %d more", len(items)-6)
			items = items[:6]
		}
		out = append(out, fmt.Sprintf("%s %s: %s%s", s.Name, what, strings.Join(items, "; "), more))
	}
	return out
}

// WriteText writes the report as aligned text.
func (r *Report) WriteText(w io.Writer, opt TextOptions) error {
	ew := &errWriter{w: w}
	where := ""
	if opt.Root != "" {
		where = " under " + opt.Root
	}
	fmt.Fprintf(ew, "%s evaluated%s; %s\n", plural(r.Bundles, "bundle"), where, r.probeLine())
	fmt.Fprintf(ew, "%s\n", r.measuresLine())
	for _, l := range r.notMeasurableLines(opt) {
		fmt.Fprintln(ew, l)
	}
	fmt.Fprintln(ew)
	writeAligned(ew, r.sidesTable())
	if t := r.groundedTable(); t != nil {
		fmt.Fprintln(ew)
		writeAligned(ew, t)
	}
	if len(r.Pairs) > 0 {
		fmt.Fprintln(ew)
		writeAligned(ew, r.pairsTable())
		for _, p := range r.Pairs {
			fmt.Fprintf(ew, "%s vs %s: %s\n", p.B, p.A, p.Verdict)
		}
		for _, p := range r.Pairs {
			if l := kindTestLine(p); l != "" {
				fmt.Fprintln(ew, l)
			}
		}
	}
	if t := r.repeatsTable(); t != nil {
		fmt.Fprintln(ew)
		writeAligned(ew, t)
	}
	if t := r.judgedTable(); t != nil {
		fmt.Fprintf(ew, "\n%s\n\n", r.judgeLine())
		writeAligned(ew, t)
		if p := r.judgedRepeatsTable(); p != nil {
			fmt.Fprintln(ew)
			writeAligned(ew, p)
		}
		if p := r.judgedPairsTable(); p != nil {
			fmt.Fprintln(ew)
			writeAligned(ew, p)
		}
	}
	if len(r.Rows) > 0 && opt.Worst != 0 {
		fmt.Fprintln(ew)
		n := len(r.Rows)
		if opt.Worst >= 0 && opt.Worst < n {
			fmt.Fprintf(ew, "%d worst of %d bundles, first (largest drop of the grounded score against %s, then lowest score)\n", opt.Worst, n, r.Baseline)
		} else {
			fmt.Fprintf(ew, "all %s, worst first (largest drop of the grounded score against %s, then lowest score)\n", plural(n, "bundle"), r.Baseline)
		}
		table, shown := r.rowsTable(opt)
		lines := aligned(table)
		fmt.Fprintln(ew, lines[0])
		for i, row := range shown {
			fmt.Fprintln(ew, lines[i+1])
			for _, l := range r.lostLines(row) {
				fmt.Fprintln(ew, "  "+l)
			}
		}
	}
	for _, f := range r.Failed {
		fmt.Fprintf(ew, "\nfail-on %s: %s is at %s", f.Gate, f.Side, strconvValue(f.Value))
	}
	if len(r.Failed) > 0 {
		fmt.Fprintln(ew)
	}
	return ew.err
}

func strconvValue(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%.3f", v)
}

// aligned formats rows in columns, two spaces apart; the first column
// is left-aligned, the others right-aligned.
func aligned(rows [][]string) []string {
	var width []int
	for _, row := range rows {
		for j, c := range row {
			if j >= len(width) {
				width = append(width, 0)
			}
			width[j] = max(width[j], len([]rune(c)))
		}
	}
	out := make([]string, len(rows))
	for i, row := range rows {
		var b strings.Builder
		for j, c := range row {
			pad := strings.Repeat(" ", width[j]-len([]rune(c)))
			if j == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	return out
}

func writeAligned(w io.Writer, rows [][]string) {
	for _, l := range aligned(rows) {
		fmt.Fprintln(w, l)
	}
}

// WriteMarkdown writes the report as markdown tables, for an issue or a
// pull request.
func (r *Report) WriteMarkdown(w io.Writer, opt TextOptions) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "## compact eval\n\n%s; %s.\n\n%s.\n", plural(r.Bundles, "bundle"), r.probeLine(), r.measuresLine())
	for _, l := range r.notMeasurableLines(opt) {
		fmt.Fprintf(ew, "\n- %s", l)
	}
	fmt.Fprintln(ew)
	fmt.Fprintln(ew)
	mdTable(ew, r.sidesTable())
	if t := r.groundedTable(); t != nil {
		fmt.Fprintln(ew)
		mdTable(ew, t)
	}
	if len(r.Pairs) > 0 {
		fmt.Fprintln(ew)
		mdTable(ew, r.pairsTable())
		fmt.Fprintln(ew)
		for _, p := range r.Pairs {
			fmt.Fprintf(ew, "- %s vs %s: %s\n", p.B, p.A, p.Verdict)
		}
		for _, p := range r.Pairs {
			if l := kindTestLine(p); l != "" {
				fmt.Fprintf(ew, "- %s\n", l)
			}
		}
	}
	if t := r.repeatsTable(); t != nil {
		fmt.Fprintln(ew)
		mdTable(ew, t)
	}
	if t := r.judgedTable(); t != nil {
		fmt.Fprintf(ew, "\n%s.\n\n", r.judgeLine())
		mdTable(ew, t)
		if p := r.judgedRepeatsTable(); p != nil {
			fmt.Fprintln(ew)
			mdTable(ew, p)
		}
		if p := r.judgedPairsTable(); p != nil {
			fmt.Fprintln(ew)
			mdTable(ew, p)
		}
	}
	if len(r.Rows) > 0 && opt.Worst != 0 {
		fmt.Fprintf(ew, "\n### Worst bundles first (against %s)\n\n", r.Baseline)
		table, shown := r.rowsTable(opt)
		mdTable(ew, table)
		var lost []string
		for _, row := range shown {
			for _, l := range r.lostLines(row) {
				lost = append(lost, "- `"+r.bundleName(row.Bundle, opt)+"`: "+l)
			}
		}
		if len(lost) > 0 {
			fmt.Fprintf(ew, "\n%s\n", strings.Join(lost, "\n"))
		}
	}
	if len(r.Failed) > 0 {
		fmt.Fprintln(ew)
		for _, f := range r.Failed {
			fmt.Fprintf(ew, "- **fail-on %s**: %s is at %s\n", f.Gate, f.Side, strconvValue(f.Value))
		}
	}
	return ew.err
}

func mdTable(w io.Writer, rows [][]string) {
	for i, row := range rows {
		cells := make([]string, len(row))
		for j, c := range row {
			cells[j] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		if i == 0 {
			fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(row)))
		}
	}
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// plural is "1 bundle", "2 bundles": word's plural adds s.
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
