package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sort"

	"github.com/compactlab/compact/internal/bundle"
)

// Report is the result of comparing many bundles: every comparison in
// input order, the bundles that could not be compared, a summary table
// sorted worst first, the sizes of each chain, and the --fail-on verdict.
type Report struct {
	Comparisons []*Comparison `json:"comparisons"`
	Errors      []BundleError `json:"errors"`
	Summary     Summary       `json:"summary"`
	Chains      []Chain       `json:"chains"`
	// FailOn lists the measures gated on; Failed the comparisons where B is
	// worse than A on one of them.
	FailOn []string  `json:"failOn"`
	Failed []Failure `json:"failed"`
	// Baseline compares B with a baseline run (SetBaseline); nil without
	// one.
	Baseline *Baseline `json:"baseline,omitempty"`
}

// Failure is one comparison where B is worse than A on a gated measure.
type Failure struct {
	Bundle  string `json:"bundle"`
	Measure string `json:"measure"`
	A       int    `json:"a"`
	B       int    `json:"b"`
}

// Summary is the table of many comparisons.
type Summary struct {
	Compared int `json:"compared"`
	Errors   int `json:"errors"`
	// Worse counts, per measure, the comparisons where B is worse than A.
	Worse   map[string]int `json:"worse"`
	Totals  Totals         `json:"totals"`
	Medians Medians        `json:"medians"`
	// Runs counts the comparisons by the replay run that gave B, most
	// first (empty for two loose files).
	Runs []RunCount `json:"runs"`
	// Rows has one row per comparison, worst first: most measures on
	// which B is worse, then most items B lost beyond A, then most rule
	// violations and leaks B has beyond A, then lowest ROUGE-L F1, then
	// bundle name.
	Rows []Row `json:"rows"`
}

// RunCount is how many comparisons took B from one replay run.
type RunCount struct {
	Run     string `json:"run"`
	Bundles int    `json:"bundles"`
}

// Totals sums each side over all comparisons.
type Totals struct {
	A SideTotals `json:"a"`
	B SideTotals `json:"b"`
}

// SideTotals sums one side.
type SideTotals struct {
	Chars      int `json:"chars"`
	Items      int `json:"items"`
	Kept       int `json:"kept"`
	Lost       int `json:"lost"`
	LostPaths  int `json:"lostPaths"`
	Leaks      int `json:"leaks"`
	Violations int `json:"violations"`
	// OverTarget counts the briefings larger than the target.
	OverTarget int `json:"overTarget"`
}

// Medians are the medians over all comparisons (the mean of the two
// middle values for an even count).
type Medians struct {
	A             SideMedians `json:"a"`
	B             SideMedians `json:"b"`
	RougeLF1      float64     `json:"rougeLF1"`
	SentenceReuse float64     `json:"sentenceReuse"`
}

// SideMedians are the medians of one side. KeptRatio is null when no
// comparison measured items.
type SideMedians struct {
	Chars      float64  `json:"chars"`
	KeptRatio  *float64 `json:"keptRatio"`
	Lost       float64  `json:"lost"`
	Violations float64  `json:"violations"`
}

// Row is one comparison in the summary table.
type Row struct {
	Bundle    string   `json:"bundle"`
	CharsA    int      `json:"charsA"`
	CharsB    int      `json:"charsB"`
	KeptA     *float64 `json:"keptRatioA"`
	KeptB     *float64 `json:"keptRatioB"`
	LostA     int      `json:"lostA"`
	LostB     int      `json:"lostB"`
	RulesA    int      `json:"rulesA"`
	RulesB    int      `json:"rulesB"`
	LeaksA    int      `json:"leaksA"`
	LeaksB    int      `json:"leaksB"`
	RougeLF1  float64  `json:"rougeLF1"`
	Reuse     float64  `json:"sentenceReuse"`
	Worse     []string `json:"worse"`
	lostDelta int
	ruleDelta int
}

// Chain is the size of each briefing of one chain (chat directory), in
// compression order, so drift and bloat show.
type Chain struct {
	Chain        string   `json:"chain"`
	Bundles      []string `json:"bundles"`
	Compressions []int    `json:"compressions"`
	A            []int    `json:"a"`
	B            []int    `json:"b"`
}

// NewReport builds the report of comparisons cs and errors errs, gating on
// the measures of failOn.
func NewReport(cs []*Comparison, errs []BundleError, failOn []string) *Report {
	r := &Report{Comparisons: cs, Errors: errs, FailOn: failOn, Failed: []Failure{}}
	if r.Comparisons == nil {
		r.Comparisons = []*Comparison{}
	}
	if r.Errors == nil {
		r.Errors = []BundleError{}
	}
	if r.FailOn == nil {
		r.FailOn = []string{}
	}
	for _, c := range cs {
		for _, m := range failOn {
			if c.WorseOn(m) {
				a, b := measureValues(c, m)
				r.Failed = append(r.Failed, Failure{Bundle: c.Bundle, Measure: m, A: a, B: b})
			}
		}
	}
	r.Summary = summarize(cs, len(errs))
	r.Chains = chains(cs)
	return r
}

// measureValues are A's and B's values of a gating measure.
func measureValues(c *Comparison, m string) (int, int) {
	switch m {
	case MeasureLostPaths:
		return c.A.LostPaths, c.B.LostPaths
	case MeasureLeak:
		return c.A.LeakCount, c.B.LeakCount
	case MeasureRules:
		return c.A.Violations, c.B.Violations
	case MeasureShrink:
		return c.A.Shrink, c.B.Shrink
	}
	return 0, 0
}

func summarize(cs []*Comparison, errs int) Summary {
	s := Summary{Compared: len(cs), Errors: errs, Worse: map[string]int{}, Rows: []Row{}, Runs: []RunCount{}}
	for _, m := range Measures {
		s.Worse[m] = 0
	}
	runs := map[string]int{}
	for _, c := range cs {
		if c.Run == "" {
			continue
		}
		if _, ok := runs[c.Run]; !ok {
			s.Runs = append(s.Runs, RunCount{Run: c.Run})
		}
		runs[c.Run]++
	}
	for i := range s.Runs {
		s.Runs[i].Bundles = runs[s.Runs[i].Run]
	}
	sort.SliceStable(s.Runs, func(i, j int) bool {
		if s.Runs[i].Bundles != s.Runs[j].Bundles {
			return s.Runs[i].Bundles > s.Runs[j].Bundles
		}
		return s.Runs[i].Run < s.Runs[j].Run
	})
	var charsA, charsB, lostA, lostB, violA, violB, keptA, keptB, f1, reuse []float64
	for _, c := range cs {
		for _, m := range c.Worse {
			s.Worse[m]++
		}
		addSide(&s.Totals.A, &c.A)
		addSide(&s.Totals.B, &c.B)
		charsA, charsB = append(charsA, float64(c.A.Chars)), append(charsB, float64(c.B.Chars))
		lostA, lostB = append(lostA, float64(len(c.A.Lost))), append(lostB, float64(len(c.B.Lost)))
		violA, violB = append(violA, float64(c.A.Violations)), append(violB, float64(c.B.Violations))
		if c.A.KeptRatio != nil {
			keptA = append(keptA, *c.A.KeptRatio)
		}
		if c.B.KeptRatio != nil {
			keptB = append(keptB, *c.B.KeptRatio)
		}
		f1 = append(f1, c.Similarity.RougeL.F1)
		reuse = append(reuse, c.Similarity.SentenceReuse)
		s.Rows = append(s.Rows, Row{
			Bundle: c.Bundle, CharsA: c.A.Chars, CharsB: c.B.Chars,
			KeptA: c.A.KeptRatio, KeptB: c.B.KeptRatio,
			LostA: len(c.A.Lost), LostB: len(c.B.Lost),
			RulesA: c.A.Violations, RulesB: c.B.Violations,
			LeaksA: c.A.LeakCount, LeaksB: c.B.LeakCount,
			RougeLF1: c.Similarity.RougeL.F1, Reuse: c.Similarity.SentenceReuse,
			Worse:     c.Worse,
			lostDelta: len(c.B.Lost) - len(c.A.Lost),
			ruleDelta: c.B.Violations + c.B.LeakCount - c.A.Violations - c.A.LeakCount,
		})
	}
	s.Medians = Medians{
		A:             SideMedians{Chars: median(charsA), KeptRatio: medianPtr(keptA), Lost: median(lostA), Violations: median(violA)},
		B:             SideMedians{Chars: median(charsB), KeptRatio: medianPtr(keptB), Lost: median(lostB), Violations: median(violB)},
		RougeLF1:      round4(median(f1)),
		SentenceReuse: round4(median(reuse)),
	}
	sort.SliceStable(s.Rows, func(i, j int) bool {
		a, b := s.Rows[i], s.Rows[j]
		switch {
		case len(a.Worse) != len(b.Worse):
			return len(a.Worse) > len(b.Worse)
		case a.lostDelta != b.lostDelta:
			return a.lostDelta > b.lostDelta
		case a.ruleDelta != b.ruleDelta:
			return a.ruleDelta > b.ruleDelta
		case a.RougeLF1 != b.RougeLF1:
			return a.RougeLF1 < b.RougeLF1
		}
		return a.Bundle < b.Bundle
	})
	return s
}

func addSide(t *SideTotals, s *Side) {
	t.Chars += s.Chars
	t.Items += len(s.Kept) + len(s.Lost)
	t.Kept += len(s.Kept)
	t.Lost += len(s.Lost)
	t.LostPaths += s.LostPaths
	t.Leaks += s.LeakCount
	t.Violations += s.Violations
	if s.TargetShare > 1 {
		t.OverTarget++
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func medianPtr(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	m := round4(median(xs))
	return &m
}

// chains groups the comparisons by chain (bundle.Chains: every chat is
// one, in compression order).
func chains(cs []*Comparison) []Chain {
	out := []Chain{}
	for _, idx := range bundle.Chains(len(cs), func(i int) bundle.ChainLink {
		return bundle.ChainLink{Dir: cs[i].Bundle, Chain: cs[i].Chain, Position: cs[i].Compression}
	}) {
		ch := Chain{Chain: cs[idx[0]].Chain}
		for _, i := range idx {
			c := cs[i]
			ch.Bundles = append(ch.Bundles, c.Bundle)
			ch.Compressions = append(ch.Compressions, c.Compression)
			ch.A = append(ch.A, c.A.Chars)
			ch.B = append(ch.B, c.B.Chars)
		}
		out = append(out, ch)
	}
	return out
}

// ChainStats describe the chains of a report for the summary.
type ChainStats struct {
	// Chains counts every chain; Multi those of more than one briefing.
	Chains int `json:"chains"`
	Multi  int `json:"multi"`
	// Shortest and Longest are the fewest and most briefings in a chain.
	Shortest int `json:"shortest"`
	Longest  int `json:"longest"`
	// LastA and LastB are the medians of the last briefing's size of
	// each chain of more than one briefing; PeakA and PeakB the largest
	// briefing of any such chain.
	LastA float64 `json:"lastMedianA"`
	LastB float64 `json:"lastMedianB"`
	PeakA int     `json:"peakA"`
	PeakB int     `json:"peakB"`
}

// ChainStats summarise r.Chains.
func (r *Report) ChainStats() ChainStats {
	var st ChainStats
	var lastA, lastB []float64
	for i, c := range r.Chains {
		n := len(c.A)
		st.Chains++
		if i == 0 || n < st.Shortest {
			st.Shortest = n
		}
		st.Longest = max(st.Longest, n)
		if n < 2 {
			continue
		}
		st.Multi++
		lastA, lastB = append(lastA, float64(c.A[n-1])), append(lastB, float64(c.B[n-1]))
		st.PeakA, st.PeakB = max(st.PeakA, maxInt(c.A)), max(st.PeakB, maxInt(c.B))
	}
	st.LastA, st.LastB = median(lastA), median(lastB)
	return st
}

func maxInt(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// WorstChains are at most n chains of more than one briefing, those where
// B outgrows A most first: the largest briefing of B minus the largest of
// A, then the longest chain, then by name.
func (r *Report) WorstChains(n int) []Chain {
	list := multiChains(r.Chains)
	key := func(c Chain) int { return maxInt(c.B) - maxInt(c.A) }
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if key(a) != key(b) {
			return key(a) > key(b)
		}
		if len(a.A) != len(b.A) {
			return len(a.A) > len(b.A)
		}
		return a.Chain < b.Chain
	})
	if len(list) > n {
		list = list[:n]
	}
	return list
}

// WorstRows are the first n rows of the summary table (worst first).
func (r *Report) WorstRows(n int) []Row {
	rows := r.Summary.Rows
	if len(rows) > n {
		rows = rows[:n]
	}
	return rows
}

// StatInfo tells what a summary-only report left out.
type StatInfo struct {
	// Worst is how many rows and chains were kept; Rows and Chains how
	// many there were (chains of more than one briefing).
	Worst  int `json:"worst"`
	Rows   int `json:"rows"`
	Chains int `json:"chains"`
}

// statReport is the summary-only JSON document.
type statReport struct {
	Stat       StatInfo      `json:"stat"`
	Errors     []BundleError `json:"errors"`
	Summary    Summary       `json:"summary"`
	ChainStats ChainStats    `json:"chainStats"`
	Chains     []Chain       `json:"chains"`
	FailOn     []string      `json:"failOn"`
	Failed     []Failure     `json:"failed"`
	Baseline   *Baseline     `json:"baseline,omitempty"`
}

// WriteStatJSON writes the summary only: no comparisons, the worst rows of
// the table and the chains where B outgrows A most (worst of each), with
// every error and --fail-on failure.
func (r *Report) WriteStatJSON(w io.Writer, worst int) error {
	sum := r.Summary
	sum.Rows = r.WorstRows(worst)
	chains := r.WorstChains(worst)
	if chains == nil {
		chains = []Chain{}
	}
	doc := statReport{
		Stat:       StatInfo{Worst: worst, Rows: len(r.Summary.Rows), Chains: len(multiChains(r.Chains))},
		Errors:     r.Errors,
		Summary:    sum,
		ChainStats: r.ChainStats(),
		Chains:     chains,
		FailOn:     r.FailOn,
		Failed:     r.Failed,
		Baseline:   r.Baseline,
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteJSON writes the report as indented JSON without HTML escaping, as
// json.Encoder with SetIndent("", "  ") would, but one comparison at a time
// so that the whole document is never held in memory.
func (r *Report) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	if len(r.Comparisons) == 0 {
		bw.WriteString("{\n  \"comparisons\": [],\n")
	} else {
		bw.WriteString("{\n  \"comparisons\": [\n")
		for i, c := range r.Comparisons {
			buf.Reset()
			if err := enc.Encode(c); err != nil {
				return err
			}
			bw.WriteString("    ")
			bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
			if i < len(r.Comparisons)-1 {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
		}
		bw.WriteString("  ],\n")
	}
	// The rest of the fields, re-indented.
	buf.Reset()
	enc.SetIndent("", "  ")
	if err := enc.Encode(reportTail{r.Errors, r.Summary, r.Chains, r.FailOn, r.Failed, r.Baseline}); err != nil {
		return err
	}
	bw.Write(bytes.TrimPrefix(buf.Bytes(), []byte("{\n")))
	return bw.Flush()
}

// reportTail is a report without its comparisons, in the same key order.
type reportTail struct {
	Errors   []BundleError `json:"errors"`
	Summary  Summary       `json:"summary"`
	Chains   []Chain       `json:"chains"`
	FailOn   []string      `json:"failOn"`
	Failed   []Failure     `json:"failed"`
	Baseline *Baseline     `json:"baseline,omitempty"`
}
