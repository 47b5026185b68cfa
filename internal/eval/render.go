package eval

import (
	"encoding/json"
	"fmt"
	"io"
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
	var parts []string
	total := 0
	for _, k := range Kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.Probes[k]))
		total += r.Probes[k]
	}
	return fmt.Sprintf("%s (%s)", plural(total, "probe"), strings.Join(parts, ", "))
}

func fmtShare(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

func fmtSigned(v float64) string { return fmt.Sprintf("%+.3f", v) }

// sidesTable is the rows of the per-briefing table.
func (r *Report) sidesTable() [][]string {
	rows := [][]string{{"briefing", "bundles", "overall", "artifact", "recall", "decision", "continuation", "lost", "regressed"}}
	for _, s := range r.Sides {
		name := s.Name
		if name == r.Baseline && len(r.Sides) > 1 {
			name += " (baseline)"
		}
		row := []string{name, fmt.Sprint(s.Bundles), fmtShare(s.Overall, true)}
		for _, k := range Kinds {
			v, ok := s.Kinds[k]
			row = append(row, fmtShare(v, ok))
		}
		reg := fmt.Sprint(s.Regressed)
		if s.Name == r.Baseline {
			reg = "-"
		}
		row = append(row, fmt.Sprint(s.Lost), reg)
		rows = append(rows, row)
	}
	return rows
}

func (r *Report) pairsTable() [][]string {
	rows := [][]string{{"B vs A", "bundles", "mean A", "mean B", "B − A", "95% CI", "wins", "losses", "ties"}}
	for _, p := range r.Pairs {
		rows = append(rows, []string{p.B + " vs " + p.A, fmt.Sprint(p.N), fmtShare(p.MeanA, p.N > 0), fmtShare(p.MeanB, p.N > 0),
			fmtSigned(p.Diff), fmt.Sprintf("[%s, %s]", fmtSigned(p.CILow), fmtSigned(p.CIHigh)),
			fmt.Sprint(p.Wins), fmt.Sprint(p.Losses), fmt.Sprint(p.Ties)})
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
	line := fmt.Sprintf("judged by %s (pack %s): %s, %s (%d from the cache), cost $%.6f", j.Judge, j.PackHash, plural(j.Bundles, "bundle"), plural(j.Calls, "call"), j.Cached, j.CostUSD)
	if j.SavedUSD > 0 {
		line += fmt.Sprintf(", saved $%.6f", j.SavedUSD)
	}
	return line + "; mean grade 0 to 5 of the answers an agent gives from the briefing alone"
}

func (r *Report) rowsTable(opt TextOptions) ([][]string, []Row) {
	head := []string{"bundle", "probes"}
	for _, s := range r.Sides {
		head = append(head, s.Name)
	}
	rows := [][]string{head}
	shown := r.Rows
	if opt.Worst >= 0 && len(shown) > opt.Worst {
		shown = shown[:opt.Worst]
	}
	for _, row := range shown {
		line := []string{r.bundleName(row.Bundle, opt), fmt.Sprint(row.Probes)}
		for _, s := range r.Sides {
			v, ok := row.Scores[s.Name]
			line = append(line, fmtShare(v, ok))
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
	fmt.Fprintf(ew, "share of probes answered, mean over bundles; offline (no model): exact, normalized or path-equivalent text\n\n")
	writeAligned(ew, r.sidesTable())
	if len(r.Pairs) > 0 {
		fmt.Fprintln(ew)
		writeAligned(ew, r.pairsTable())
	}
	if t := r.judgedTable(); t != nil {
		fmt.Fprintf(ew, "\n%s\n\n", r.judgeLine())
		writeAligned(ew, t)
		if p := r.judgedPairsTable(); p != nil {
			fmt.Fprintln(ew)
			writeAligned(ew, p)
		}
	}
	if len(r.Rows) > 0 && opt.Worst != 0 {
		fmt.Fprintln(ew)
		n := len(r.Rows)
		if opt.Worst >= 0 && opt.Worst < n {
			fmt.Fprintf(ew, "%d worst of %d bundles, first (largest drop against %s, then lowest score)\n", opt.Worst, n, r.Baseline)
		} else {
			fmt.Fprintf(ew, "all %s, worst first (largest drop against %s, then lowest score)\n", plural(n, "bundle"), r.Baseline)
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
	fmt.Fprintf(ew, "## compact eval\n\n%s; %s. Share of probes answered, mean over bundles (offline: no model).\n\n", plural(r.Bundles, "bundle"), r.probeLine())
	mdTable(ew, r.sidesTable())
	if len(r.Pairs) > 0 {
		fmt.Fprintln(ew)
		mdTable(ew, r.pairsTable())
	}
	if t := r.judgedTable(); t != nil {
		fmt.Fprintf(ew, "\n%s.\n\n", r.judgeLine())
		mdTable(ew, t)
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
