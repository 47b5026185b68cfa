package report

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"html/template"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/diff"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/mdtext"
)

// A bundle's section is rendered while the bundle is read, gzipped, and
// kept until the page is written: the briefings themselves are not held.

// maxHistoryShown bounds the characters of a compact history a section
// shows (the rest is named, not shown).
const maxHistoryShown = 200_000

// detail is what a bundle's section is rendered from.
type detail struct {
	bundle      *Bundle
	texts       map[string]string
	comparisons map[string]*diff.Comparison
	history     string
	hasHistory  bool
	profile     string
	eval        *eval.BundleResult
}

// The section's view.
type (
	detailView struct {
		Name     string
		Dir      string
		Facts    []fact
		Warnings []string
		Runs     []runPanel
		// Alone is the app's briefing when no run could be compared.
		Alone          *cellView
		Probes         *probeTable
		Judge          string
		HasHistory     bool
		History        string
		HistoryChars   int
		HistoryClipped bool
	}
	fact struct{ Label, Value string }

	runPanel struct {
		Run      string
		Open     bool
		Record   []fact
		Measures []measureRow
		Rows     []secRow
		LostA    []itemView
		LostB    []itemView
		Worse    string
	}
	measureRow struct {
		Label, A, B string
		Worse       bool
	}
	itemView struct {
		Kind, Value string
		// New: lost by B, kept by A.
		New bool
	}
	secRow struct {
		Status, Label, Change string
		A, B                  *cellView
	}
	cellView struct {
		Lines []lineView
	}
	lineView struct {
		No    int
		Class string
		Rules string
		Title string
		Segs  []seg
	}
	seg struct{ Text, Class, Title string }

	probeTable struct {
		Names  []string
		Rows   []probeRow
		Lost   int
		Judged []string
	}
	probeRow struct {
		Kind, Question, Expected string
		Cells                    []probeCell
		Class                    string
	}
	probeCell struct {
		OK  bool
		How string
	}
)

// HTML renders the cell's lines. It is written here rather than by the
// template, for speed (a section has a segment for every sentence):
// every text goes through template.HTMLEscapeString, as the template
// would escape it.
func (cv *cellView) HTML() template.HTML {
	var b strings.Builder
	esc := template.HTMLEscapeString
	for _, l := range cv.Lines {
		b.WriteString(`<div class="l`)
		if l.Class != "" {
			b.WriteString(" " + esc(l.Class))
		}
		b.WriteString(`" data-n="` + strconv.Itoa(l.No) + `"`)
		if l.Title != "" {
			b.WriteString(` title="` + esc(l.Title) + `"`)
		}
		b.WriteString(">")
		if l.Rules != "" {
			b.WriteString(`<span class="rb">` + esc(l.Rules) + `</span>`)
		}
		for _, s := range l.Segs {
			if s.Class == "" {
				b.WriteString(esc(s.Text))
				continue
			}
			b.WriteString(`<span class="` + esc(s.Class) + `"`)
			if s.Title != "" {
				b.WriteString(` title="` + esc(s.Title) + `"`)
			}
			b.WriteString(">" + esc(s.Text) + "</span>")
		}
		b.WriteString("</div>")
	}
	return template.HTML(b.String())
}

// packDetail renders the section of d and gzips it.
func packDetail(d *detail) ([]byte, error) {
	v := buildDetailView(d)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err := pageTemplates.ExecuteTemplate(zw, "detail", v); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", d.bundle.Dir, err)
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func buildDetailView(d *detail) *detailView {
	b := d.bundle
	v := &detailView{Name: b.Dir, Dir: b.Dir, Warnings: b.Warnings, Judge: b.Judge}
	if b.ChatID != "" {
		v.Facts = append(v.Facts, fact{"chat", b.ChatID})
	}
	if b.Compression > 0 {
		v.Facts = append(v.Facts, fact{"compression", strconv.Itoa(b.Compression)})
	}
	if b.Boundary >= 0 {
		v.Facts = append(v.Facts, fact{"boundary", "message " + strconv.Itoa(b.Boundary)})
	}
	if d.hasHistory {
		v.Facts = append(v.Facts, fact{"probes", strconv.Itoa(b.Probes)})
	}
	runs := make([]string, 0, len(d.comparisons))
	for r := range d.comparisons {
		runs = append(runs, r)
	}
	sort.Strings(runs)
	for i, run := range runs {
		v.Runs = append(v.Runs, runPanelOf(d, run, d.comparisons[run], i == 0))
	}
	if len(runs) == 0 {
		a := d.texts[eval.Actual]
		cell := briefingCell(a, sectionLines(a), nil, mdtext.CheckRules(a, profileOr(d.profile)))
		v.Alone = &cell
	}
	if d.eval != nil {
		v.Probes = probeTableOf(d.eval)
	}
	if d.hasHistory {
		v.HasHistory = true
		v.HistoryChars = history.Len16(d.history)
		v.History = d.history
		if r := []rune(d.history); len(r) > maxHistoryShown {
			v.History, v.HistoryClipped = string(r[:maxHistoryShown]), true
		}
	}
	return v
}

func profileOr(p string) string {
	if p == "" {
		return mdtext.ProfileE3E
	}
	return p
}

func runPanelOf(d *detail, run string, c *diff.Comparison, open bool) runPanel {
	p := runPanel{Run: run, Open: open, Worse: strings.Join(c.Worse, ", ")}
	if s := d.bundle.Sides[run]; s != nil && s.Record != nil {
		rec := s.Record
		if rec.Model != nil {
			p.Record = append(p.Record, fact{"model", *rec.Model})
		}
		if rec.Provider != "" {
			p.Record = append(p.Record, fact{"provider", rec.Provider})
		}
		if rec.Pack != "" {
			p.Record = append(p.Record, fact{"pack", rec.Pack})
		}
		p.Record = append(p.Record,
			fact{"tokens", fmt.Sprintf("%s in, %s out", thousands(rec.Usage.InputTokens), thousands(rec.Usage.OutputTokens))},
			fact{"cost", usd(rec.CostUSD)},
			fact{"time", fmt.Sprintf("%s ms", thousands(rec.LatencyMs))})
		if rec.Batch != nil {
			p.Record = append(p.Record, fact{"batch", rec.Batch.Provider})
		}
	}
	p.Measures = measureRows(c)
	lostA := map[string]bool{}
	for _, it := range c.A.Lost {
		lostA[string(it.Kind)+"\x00"+it.Value] = true
		p.LostA = append(p.LostA, itemView{Kind: string(it.Kind), Value: clip(it.Value, 300)})
	}
	for _, it := range c.B.Lost {
		p.LostB = append(p.LostB, itemView{Kind: string(it.Kind), Value: clip(it.Value, 300), New: !lostA[string(it.Kind)+"\x00"+it.Value]})
	}
	a, b := d.texts[eval.Actual], d.texts[run]
	p.Rows = sectionRows(a, b, c)
	return p
}

func measureRows(c *diff.Comparison) []measureRow {
	kept := func(s *diff.Side) string {
		if s.KeptRatio == nil {
			return "not measured"
		}
		return fmt.Sprintf("%d/%d (%s)", len(s.Kept), len(s.Kept)+len(s.Lost), pct(*s.KeptRatio))
	}
	growth := func(s *diff.Side) string {
		if s.Growth == nil {
			return "–"
		}
		if *s.Growth > 0 {
			return "+" + thousands(int64(*s.Growth))
		}
		return thousands(int64(*s.Growth))
	}
	leaks := func(s *diff.Side) string {
		if s.LeakCount == 0 {
			return "none"
		}
		return fmt.Sprintf("%d: %s", s.LeakCount, strings.Join(s.Leaks, ", "))
	}
	rules := func(s *diff.Side) string {
		if s.Violations == 0 {
			return "none"
		}
		var parts []string
		for _, v := range s.Rules {
			parts = append(parts, fmt.Sprintf("%s %d", v.Rule, v.Count))
		}
		return fmt.Sprintf("%d: %s", s.Violations, strings.Join(parts, ", "))
	}
	rows := []measureRow{
		{"size", fmt.Sprintf("%s (%s of %s)", thousands(int64(c.A.Chars)), pct(c.A.TargetShare), thousands(int64(c.TargetChars))),
			fmt.Sprintf("%s (%s)", thousands(int64(c.B.Chars)), pct(c.B.TargetShare)), c.B.TargetShare > 1 && c.A.TargetShare <= 1},
		{"growth", growth(&c.A), growth(&c.B), c.WorseOn(diff.MeasureShrink)},
		{"must-keep kept", kept(&c.A), kept(&c.B), false},
		{"paths lost", strconv.Itoa(c.A.LostPaths), strconv.Itoa(c.B.LostPaths), c.WorseOn(diff.MeasureLostPaths)},
		{"leaks", leaks(&c.A), leaks(&c.B), c.WorseOn(diff.MeasureLeak)},
		{"rules", rules(&c.A), rules(&c.B), c.WorseOn(diff.MeasureRules)},
		{"similarity", fmt.Sprintf("ROUGE-L F1 %.3f", c.Similarity.RougeL.F1), fmt.Sprintf("sentence reuse %.3f", c.Similarity.SentenceReuse), false},
	}
	return rows
}

// span is a section's lines in its briefing: [start, end), 0-based.
type span struct {
	heading  string
	preamble bool
	start    int
	body     int // first line after the heading
	end      int
}

// sectionLines splits text's lines into its sections as diff does.
func sectionLines(text string) []span {
	secs := mdtext.SplitSections(text)
	n := strings.Count(text, "\n") + 1
	out := make([]span, len(secs))
	for i, s := range secs {
		sp := span{heading: s.Heading, preamble: s.Preamble, start: s.Line - 1, body: s.Line}
		if s.Preamble {
			sp.start, sp.body = 0, 0
		}
		sp.end = n
		if i+1 < len(secs) {
			sp.end = secs[i+1].Line - 1
		}
		out[i] = sp
	}
	return out
}

func normHeading(h string) string { return strings.ToLower(strings.Join(strings.Fields(h), " ")) }

func spanKey(s span) string {
	if s.preamble {
		return "\x00preamble"
	}
	return normHeading(s.heading)
}

// sectionRows pairs the sections of a and b in the order of the
// comparison's section diff, with the sentences of each side that the
// other side's section lacks marked.
func sectionRows(a, b string, c *diff.Comparison) []secRow {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	as, bs := sectionLines(a), sectionLines(b)
	ruleA, ruleB := ruleLines(c.A.Rules), ruleLines(c.B.Rules)
	next := func(spans []span, used map[int]bool, key string) *span {
		for i := range spans {
			if !used[i] && spanKey(spans[i]) == key {
				used[i] = true
				return &spans[i]
			}
		}
		return nil
	}
	usedA, usedB := map[int]bool{}, map[int]bool{}
	var rows []secRow
	for _, sd := range c.Sections {
		key := normHeading(sd.Heading)
		if sd.Preamble {
			key = "\x00preamble"
		}
		var sa, sb *span
		switch sd.Status {
		case diff.SectionOnlyA:
			sa = next(as, usedA, key)
		case diff.SectionOnlyB:
			sb = next(bs, usedB, key)
		default:
			sa, sb = next(as, usedA, key), next(bs, usedB, key)
		}
		row := secRow{Status: string(sd.Status), Label: sectionLabel(sd)}
		switch sd.Status {
		case diff.SectionKept:
			row.Change = "kept"
		case diff.SectionChanged:
			row.Change = fmt.Sprintf("changed: %s only in A, %d only in B", count(sd.Removed, "sentence"), sd.Added)
		case diff.SectionOnlyA:
			row.Change = "only in A"
		case diff.SectionOnlyB:
			row.Change = "only in B"
		}
		var setA, setB map[string]bool
		var pairA, pairB map[string]string
		if sa != nil {
			setA = sentenceSet(al[sa.body:sa.end])
		}
		if sb != nil {
			setB = sentenceSet(bl[sb.body:sb.end])
		}
		if sa != nil && sb != nil && sd.Status == diff.SectionChanged {
			pairA, pairB = pairSentences(onlyIn(al[sa.body:sa.end], setB), onlyIn(bl[sb.body:sb.end], setA))
		}
		if sa != nil {
			cell := cellOf(al, *sa, setB, "del", pairA, ruleA)
			row.A = &cell
		}
		if sb != nil {
			cell := cellOf(bl, *sb, setA, "ins", pairB, ruleB)
			row.B = &cell
		}
		rows = append(rows, row)
	}
	return rows
}

func sectionLabel(sd diff.SectionDiff) string {
	if sd.Preamble {
		return "(before the first ##)"
	}
	return "## " + sd.Heading
}

// ruleLines maps a line (1-based) to the rules broken on it.
func ruleLines(vs []mdtext.Violation) map[int][]mdtext.Violation {
	m := map[int][]mdtext.Violation{}
	for _, v := range vs {
		seen := map[int]bool{}
		for _, l := range v.Lines {
			if !seen[l] {
				seen[l] = true
				m[l] = append(m[l], v)
			}
		}
	}
	return m
}

// normSentence is the form sentences are compared in.
func normSentence(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func sentenceSet(lines []string) map[string]bool {
	set := map[string]bool{}
	for _, l := range lines {
		for _, s := range mdtext.SplitSentences(strings.TrimSpace(l)) {
			set[normSentence(s)] = true
		}
	}
	return set
}

// briefingCell is a whole briefing, its rules marked, nothing compared.
func briefingCell(text string, _ []span, _ map[string]bool, rules []mdtext.Violation) cellView {
	lines := strings.Split(text, "\n")
	return cellOf(lines, span{start: 0, body: 0, end: len(lines)}, nil, "", nil, ruleLines(rules))
}

// cellOf renders lines [sp.start, sp.end): a sentence of the body that
// other (nil: nothing to compare with) lacks gets class mark, word by word
// when pair gives the sentence of the other side it became; a line that
// breaks a rule is marked with the rules, and on a line with an XML tag
// each tag is marked as a leak.
func cellOf(lines []string, sp span, other map[string]bool, mark string, pair map[string]string, rules map[int][]mdtext.Violation) cellView {
	var cv cellView
	end := sp.end
	for end > sp.body && strings.TrimSpace(lines[end-1]) == "" {
		end-- // trailing blank lines
	}
	for i := sp.start; i < end; i++ {
		line := lines[i]
		lv := lineView{No: i + 1}
		if i < sp.body {
			lv.Class = "h"
			lv.Segs = []seg{{Text: line}}
		} else {
			lv.Segs = sentenceSegs(line, other, mark, pair)
		}
		if vs := rules[i+1]; len(vs) > 0 {
			var names, titles []string
			tags := false
			for _, v := range vs {
				names = append(names, v.Rule)
				t := v.Rule
				if v.Example != "" && len(v.Lines) > 0 && v.Lines[0] == i+1 {
					t += ": " + v.Example // the rule's first offence
				}
				titles = append(titles, t)
				tags = tags || v.Rule == mdtext.RuleXMLTag
			}
			lv.Class = strings.TrimSpace(lv.Class + " viol")
			lv.Rules = strings.Join(names, " ")
			lv.Title = strings.Join(titles, "\n")
			if tags {
				lv.Segs = markTags(lv.Segs)
			}
		}
		cv.Lines = append(cv.Lines, lv)
	}
	return cv
}

// sentenceSegs splits line into its sentences, each one other lacks
// marked with class mark (the words that changed only, the rest lighter,
// when pair names the sentence it became), the text between them kept as
// it is.
func sentenceSegs(line string, other map[string]bool, mark string, pair map[string]string) []seg {
	if other == nil || strings.TrimSpace(line) == "" {
		if mark != "" && other == nil && strings.TrimSpace(line) != "" {
			return []seg{{Text: line, Class: mark}}
		}
		return []seg{{Text: line}}
	}
	var out []seg
	pos := 0
	for _, s := range mdtext.SplitSentences(strings.TrimSpace(line)) {
		at := strings.Index(line[pos:], s)
		if at < 0 {
			break
		}
		if at > 0 {
			out = append(out, seg{Text: line[pos : pos+at]})
		}
		pos += at + len(s)
		if other[normSentence(s)] {
			out = append(out, seg{Text: s})
			continue
		}
		if to, ok := pair[normSentence(s)]; ok {
			out = append(out, wordSegs(s, to, mark)...)
			continue
		}
		out = append(out, seg{Text: s, Class: mark})
	}
	if pos < len(line) {
		out = append(out, seg{Text: line[pos:]})
	}
	return mergeSegs(out)
}

// mergeSegs joins neighbouring segments of the same class.
func mergeSegs(in []seg) []seg {
	var out []seg
	for _, s := range in {
		if n := len(out); n > 0 && out[n-1].Class == s.Class && out[n-1].Title == s.Title {
			out[n-1].Text += s.Text
			continue
		}
		out = append(out, s)
	}
	return out
}

// onlyIn lists the sentences of lines that set lacks.
func onlyIn(lines []string, set map[string]bool) []string {
	var out []string
	for _, l := range lines {
		for _, s := range mdtext.SplitSentences(strings.TrimSpace(l)) {
			if !set[normSentence(s)] {
				out = append(out, s)
			}
		}
	}
	return out
}

// pairSentences pairs each sentence only in A with the sentence only in B
// that shares the most of its words (at least half of the longer one's),
// in order, each used once: the sentences that were reworded rather than
// dropped or added. The maps go from a sentence's normalized form to its
// counterpart.
func pairSentences(a, b []string) (map[string]string, map[string]string) {
	pa, pb := map[string]string{}, map[string]string{}
	if len(a) == 0 || len(b) == 0 || len(a)*len(b) > 10_000 {
		return pa, pb
	}
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(strings.ToLower(s)) {
			m[w] = true
		}
		return m
	}
	bw := make([]map[string]bool, len(b))
	for j := range b {
		bw[j] = words(b[j])
	}
	used := make([]bool, len(b))
	for _, s := range a {
		aw := words(s)
		best, bestJ := 0.0, -1
		for j := range b {
			if used[j] {
				continue
			}
			common := 0
			for w := range aw {
				if bw[j][w] {
					common++
				}
			}
			share := float64(common) / float64(max(len(aw), len(bw[j]), 1))
			if share > best {
				best, bestJ = share, j
			}
		}
		if bestJ >= 0 && best >= 0.5 {
			used[bestJ] = true
			pa[normSentence(s)] = b[bestJ]
			pb[normSentence(b[bestJ])] = s
		}
	}
	return pa, pb
}

var wordRe = regexp.MustCompile(`\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]`)

// wordSegs marks the words of s that to lacks with class mark, and the
// rest of s with the lighter class mark+"-ctx" (a longest common
// subsequence of the words; a whole sentence when they are too long).
func wordSegs(s, to, mark string) []seg {
	a, b := wordRe.FindAllString(s, -1), wordRe.FindAllString(to, -1)
	if len(a)*len(b) > 40_000 {
		return []seg{{Text: s, Class: mark}}
	}
	// lcs[i][j] is the common length of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []seg
	i, j := 0, 0
	for i < len(a) {
		switch {
		case j < len(b) && a[i] == b[j]:
			out = append(out, seg{Text: a[i], Class: mark + "-ctx"})
			i, j = i+1, j+1
		case j < len(b) && lcs[i][j+1] >= lcs[i+1][j]:
			j++
		default:
			cls := mark
			if strings.TrimSpace(a[i]) == "" {
				cls = mark + "-ctx"
			}
			out = append(out, seg{Text: a[i], Class: cls})
			i++
		}
	}
	return mergeSegs(out)
}

var tagMark = regexp.MustCompile(`<!\[CDATA\[|</?[A-Za-z][A-Za-z0-9_.:-]*(?:\s[^<>\n]*)?/?>`)

// markTags marks every XML tag of the segments as a leak.
func markTags(in []seg) []seg {
	var out []seg
	for _, s := range in {
		pos := 0
		for _, m := range tagMark.FindAllStringIndex(s.Text, -1) {
			if m[0] > pos {
				out = append(out, seg{Text: s.Text[pos:m[0]], Class: s.Class})
			}
			out = append(out, seg{Text: s.Text[m[0]:m[1]], Class: strings.TrimSpace(s.Class + " leak"), Title: "an XML tag: the prompt's rules forbid them"})
			pos = m[1]
		}
		if pos < len(s.Text) {
			out = append(out, seg{Text: s.Text[pos:], Class: s.Class})
		}
	}
	return out
}

// probeTableOf lists the probes with each briefing's verdict, those some
// briefing lost first.
func probeTableOf(res *eval.BundleResult) *probeTable {
	t := &probeTable{}
	for _, b := range res.Briefings {
		t.Names = append(t.Names, b.Name)
		if b.Judged != nil {
			t.Judged = append(t.Judged, fmt.Sprintf("%s %.2f", b.Name, b.Judged.Score))
		}
	}
	var lost, kept []probeRow
	for i, p := range res.Probes {
		row := probeRow{Kind: string(p.Kind), Question: clip(p.Question, 300), Expected: clip(strings.Join(p.Expected, " · "), 300)}
		any := false
		for _, b := range res.Briefings {
			a := b.Answers[i]
			row.Cells = append(row.Cells, probeCell{OK: a.Present, How: a.How})
			any = any || !a.Present
		}
		if any {
			row.Class = "lost"
			lost = append(lost, row)
		} else {
			kept = append(kept, row)
		}
	}
	t.Lost = len(lost)
	t.Rows = append(lost, kept...)
	return t
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
