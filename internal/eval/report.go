package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/shard"
)

// SideSummary is one briefing name (Actual or a run) over the bundles
// that have it. Overall is the headline: the mean grounded score over the
// bundles measurable by it (nil when none is); Coverage the mean share of
// the coverage probes, Kinds per coverage kind and Grounded per grounded
// kind, each over the bundles with probes of its kind.
type SideSummary struct {
	Name       string   `json:"name"`
	Bundles    int      `json:"bundles"`
	Measurable int      `json:"measurable"`
	Overall    *float64 `json:"overall"`
	// Chars is the mean size in UTF-16 units, OverTarget the mean share
	// past the target.
	Chars      float64          `json:"chars"`
	OverTarget float64          `json:"overTarget"`
	Coverage   *float64         `json:"coverage"`
	Kinds      map[Kind]float64 `json:"kinds"`
	Grounded   map[Kind]float64 `json:"grounded"`
	Lost       int              `json:"lost"`
	Probes     int              `json:"probes"`
	// ReReads counts the files read again after the compactions (the
	// re-read tax) in the bundles this side has, ReReadNamed those of them
	// this side's briefings named.
	ReReads     int `json:"reReads"`
	ReReadNamed int `json:"reReadNamed"`
	// Regressed counts the bundles where this side's headline is below
	// the baseline's (0 for the baseline itself).
	Regressed int `json:"regressed"`
	// Judged is the model-judged score over the bundles judged.
	Judged *JudgedSummary `json:"judged,omitempty"`
}

// JudgedSummary is a side's judged scores (0 to 5): the mean over the
// bundles judged of each briefing's score, per dimension and per kind.
// With the judging repeated (eval --judge-repeat K > 1) the scores are the
// first repeat's, and Repeats is the spread over the K repeats of the
// side's mean score over the same bundles (a bundle is judged only when
// every repeat is); nil otherwise.
type JudgedSummary struct {
	Bundles    int                `json:"bundles"`
	Score      float64            `json:"score"`
	Dimensions map[string]float64 `json:"dimensions"`
	Kinds      map[Kind]float64   `json:"kinds"`
	Repeats    *Spread            `json:"repeats,omitempty"`
}

// Paired compares two sides' scores over the bundles where both have
// one: the means, B − A with a 95% paired bootstrap interval, and per
// bundle wins (B higher), losses and ties.
type Paired struct {
	N      int     `json:"n"`
	MeanA  float64 `json:"meanA"`
	MeanB  float64 `json:"meanB"`
	Diff   float64 `json:"diff"`
	CILow  float64 `json:"ciLow"`
	CIHigh float64 `json:"ciHigh"`
	Wins   int     `json:"wins"`
	Losses int     `json:"losses"`
	Ties   int     `json:"ties"`
}

// JudgedPair is Paired on the judged scores.
type JudgedPair = Paired

// ReportJudge is what the judge did over the whole run.
type ReportJudge struct {
	Judge    string  `json:"judge"`
	PackHash string  `json:"packHash"`
	Bundles  int     `json:"bundles"`
	Calls    int     `json:"calls"`
	Cached   int     `json:"cached"`
	CostUSD  float64 `json:"costUsd"`
	SavedUSD float64 `json:"savedUsd"`
	// Repeats is how many times each bundle was judged, when more than
	// once (eval --judge-repeat); Calls and the cost count every repeat.
	Repeats int `json:"repeats,omitempty"`
}

// Pair compares side B with side A over the bundles both have, on the
// headline (the bundles measurable by it): the mean of B's score minus
// A's, a 95% paired bootstrap interval on it, and per bundle wins (B
// higher), losses and ties; the same on coverage; and their sizes.
type Pair struct {
	A string `json:"a"`
	B string `json:"b"`
	Paired
	// Coverage compares the coverage shares (bundles with coverage probes).
	Coverage Paired `json:"coverage"`
	// EqualSize compares the grounded recall of the two with both cut to
	// the smaller one's size, per bundle: what length cannot win.
	EqualSize Paired           `json:"equalSize"`
	KindDiffs map[Kind]float64 `json:"kindDiffs"`
	// CharsA and CharsB are the sides' mean sizes over the bundles both
	// have; SizeRatio is CharsB/CharsA.
	CharsA    float64 `json:"charsA"`
	CharsB    float64 `json:"charsB"`
	SizeRatio float64 `json:"sizeRatio"`
	// Verdict says it in words: "B better but 2.1 times larger".
	Verdict string `json:"verdict"`
	// KindTests compare the two probe by probe, per probe kind.
	KindTests []KindTest `json:"kindTests"`
	// Judged compares the judged scores, when both sides were judged.
	Judged *JudgedPair `json:"judged,omitempty"`
}

// Row is one bundle in the table: every side's headline (absent when the
// bundle is not measurable or the side is missing) and coverage, and the
// worst change of the headline against the baseline.
type Row struct {
	Bundle        string             `json:"bundle"`
	Probes        int                `json:"probes"`
	GroundedProbe int                `json:"groundedProbes"`
	NotMeasurable string             `json:"notMeasurable,omitempty"`
	Scores        map[string]float64 `json:"scores"`
	Coverage      map[string]float64 `json:"coverage"`
	// Worst is the lowest headline of a side minus the baseline's (0
	// without a baseline or another side).
	Worst float64 `json:"worst"`
	res   *BundleResult
}

// Gate is one --fail-on condition: a measure, a comparison and a value.
// Measures: overall (the headline, the grounded score), coverage and its
// kinds (artifact, recall, decision, continuation: mean shares), the
// grounded kinds (file-used, command-rerun, name-used, request-carried:
// mean recall), regressed (bundles whose headline is below the
// baseline's) and lost (coverage probes not answered). The gate fails
// when the condition holds for a side other than the baseline; a measure
// a side has no value of (nothing measurable) is never checked.
type Gate struct {
	Measure string  `json:"measure"`
	Op      string  `json:"op"`
	Value   float64 `json:"value"`
}

func (g Gate) String() string {
	return g.Measure + g.Op + strconv.FormatFloat(g.Value, 'f', -1, 64)
}

// GateMeasures lists the measures a gate can name: the offline ones, then
// the judged score (0 to 5) and its dimensions, which a gate checks only
// where there are judged scores.
var GateMeasures = append([]string{"overall", "coverage", string(KindArtifact), string(KindRecall), string(KindDecision), string(KindContinuation),
	string(KindFileUsed), string(KindCommandRerun), string(KindNameUsed), string(KindRequestCarried), "regressed", "lost", "judged"}, Dimensions...)

var gateRe = regexp.MustCompile(`^\s*([a-z_-]+)\s*(<=|>=|<|>|==|=)\s*([0-9]*\.?[0-9]+)\s*$`)

// ParseGate reads "artifact<0.9", "regressed>0".
func ParseGate(s string) (Gate, error) {
	m := gateRe.FindStringSubmatch(s)
	if m == nil {
		return Gate{}, fmt.Errorf("%q is not MEASURE<VALUE (or <=, >, >=, =), as in artifact<0.9 or regressed>0", s)
	}
	found := false
	for _, x := range GateMeasures {
		found = found || x == m[1]
	}
	if !found {
		return Gate{}, fmt.Errorf("unknown measure %q (want %s)", m[1], strings.Join(GateMeasures, ", "))
	}
	v, _ := strconv.ParseFloat(m[3], 64)
	op := m[2]
	if op == "==" {
		op = "="
	}
	return Gate{Measure: m[1], Op: op, Value: v}, nil
}

func (g Gate) holds(x float64) bool {
	const eps = 1e-9
	switch g.Op {
	case "<":
		return x < g.Value-eps
	case "<=":
		return x <= g.Value+eps
	case ">":
		return x > g.Value+eps
	case ">=":
		return x >= g.Value-eps
	default:
		return math.Abs(x-g.Value) <= eps
	}
}

// candidate reports whether the gates check side (see
// ReportOptions.Candidates).
func candidate(side, baseline string, candidates []string, sides int) bool {
	if candidates != nil {
		return slices.Contains(candidates, side) && side != baseline
	}
	if sides == 1 {
		return true
	}
	return side != baseline && side != Actual
}

// GateFailure is a gate that held for a side.
type GateFailure struct {
	Gate  string  `json:"gate"`
	Side  string  `json:"side"`
	Value float64 `json:"value"`
}

// Report is the evaluation of many bundles.
type Report struct {
	Bundles int `json:"bundles"`
	// Target is the size target of the headline, in UTF-16 units.
	Target   int             `json:"target"`
	Probes   map[Kind]int    `json:"probes"`
	Baseline string          `json:"baseline"`
	Sides    []SideSummary   `json:"sides"`
	Pairs    []Pair          `json:"pairs"`
	Rows     []Row           `json:"rows"`
	Results  []*BundleResult `json:"results"`
	Errors   []BundleError   `json:"errors"`
	FailOn   []string        `json:"failOn"`
	Failed   []GateFailure   `json:"failed"`
	Judge    *ReportJudge    `json:"judge,omitempty"`
	// Repeats are the runs replayed more than once (replay --repeat).
	Repeats []RepeatSummary `json:"repeats,omitempty"`
	// Selection is the sample and the shard the bundles are of (set by
	// the caller; nil: every bundle found).
	Selection *shard.Selection `json:"selection,omitempty"`
}

// ReportOptions steer NewReport.
type ReportOptions struct {
	// Baseline is the side the others are compared with (Actual when
	// empty; when no bundle has it, the first side by name).
	Baseline string
	Gates    []Gate
	// Candidates are the sides the gates check (the runs a user asked
	// for with --run); nil: every side but the baseline and the app's own
	// briefing (Actual), which is never a candidate unless named; a
	// report of one side checks that side.
	Candidates []string
	// Resamples of the bootstrap (2000 when 0) and its seed.
	Resamples int
	Seed      uint64
	// Target is the size target the results were scored with (shown;
	// prompt.DefaultTargetChars when 0).
	Target int
}

// NewReport summarises results.
func NewReport(results []*BundleResult, errs []BundleError, opt ReportOptions) *Report {
	r := &Report{Bundles: len(results), Target: opt.Target, Probes: map[Kind]int{}, Results: results, Errors: errs, FailOn: []string{}, Failed: []GateFailure{}}
	if r.Target <= 0 {
		r.Target = prompt.DefaultTargetChars
	}
	if r.Errors == nil {
		r.Errors = []BundleError{}
	}
	names := map[string]bool{}
	for _, b := range results {
		for _, p := range b.Probes {
			r.Probes[p.Kind]++
		}
		for _, p := range b.Grounded {
			r.Probes[p.Kind]++
		}
		for _, s := range b.Briefings {
			names[s.Name] = true
		}
	}
	var order []string
	if names[Actual] {
		order = append(order, Actual)
	}
	var runs []string
	for n := range names {
		if n != Actual {
			runs = append(runs, n)
		}
	}
	sort.Strings(runs)
	order = append(order, runs...)
	r.Baseline = opt.Baseline
	if r.Baseline == "" && len(order) > 0 {
		r.Baseline = order[0]
	}

	for _, name := range order {
		r.Sides = append(r.Sides, summarise(results, name, r.Baseline))
	}
	if opt.Resamples <= 0 {
		opt.Resamples = 2000
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	// The baseline against every other side, then run against run.
	for _, name := range order {
		if name != r.Baseline && names[r.Baseline] {
			r.Pairs = append(r.Pairs, pair(results, r.Baseline, name, opt))
		}
	}
	for i, a := range order {
		for _, b := range order[i+1:] {
			if a == r.Baseline || b == r.Baseline || a == Actual {
				continue
			}
			r.Pairs = append(r.Pairs, pair(results, a, b, opt))
		}
	}

	for _, b := range results {
		row := Row{Bundle: b.Bundle, Probes: len(b.Probes), GroundedProbe: len(b.Grounded), NotMeasurable: b.NotMeasurable,
			Scores: map[string]float64{}, Coverage: map[string]float64{}, res: b}
		base := b.Briefing(r.Baseline)
		for _, s := range b.Briefings {
			if v, ok := s.Coverage(); ok {
				row.Coverage[s.Name] = v
			}
			h, ok := s.Headline()
			if !ok {
				continue
			}
			row.Scores[s.Name] = h
			if base != nil && s.Name != r.Baseline {
				if bh, ok := base.Headline(); ok {
					row.Worst = math.Min(row.Worst, h-bh)
				}
			}
		}
		r.Rows = append(r.Rows, row)
	}
	sort.SliceStable(r.Rows, func(i, j int) bool {
		a, b := r.Rows[i], r.Rows[j]
		if a.Worst != b.Worst {
			return a.Worst < b.Worst
		}
		if la, lb := lowest(a), lowest(b); la != lb {
			return la < lb
		}
		return a.Bundle < b.Bundle
	})

	r.Judge = judgeTotals(results)
	r.Repeats = repeats(results, order)
	for _, g := range opt.Gates {
		r.FailOn = append(r.FailOn, g.String())
		for _, s := range r.Sides {
			if !candidate(s.Name, r.Baseline, opt.Candidates, len(r.Sides)) {
				continue
			}
			var x float64
			switch g.Measure {
			case "overall":
				if s.Overall == nil {
					continue
				}
				x = *s.Overall
			case "coverage":
				if s.Coverage == nil {
					continue
				}
				x = *s.Coverage
			case "regressed":
				x = float64(s.Regressed)
			case "lost":
				x = float64(s.Lost)
			case "judged":
				if s.Judged == nil {
					continue
				}
				x = s.Judged.Score
			default:
				if s.Judged != nil && !math.IsNaN(Grades{}.Get(g.Measure)) {
					x = s.Judged.Dimensions[g.Measure]
					break
				}
				v, ok := s.Kinds[Kind(g.Measure)]
				if !ok {
					v, ok = s.Grounded[Kind(g.Measure)]
				}
				if !ok {
					continue
				}
				x = v
			}
			if g.holds(x) {
				r.Failed = append(r.Failed, GateFailure{Gate: g.String(), Side: s.Name, Value: x})
			}
		}
	}
	return r
}

func lowest(r Row) float64 {
	l := 1.0
	for _, v := range r.Scores {
		l = math.Min(l, v)
	}
	return l
}

func summarise(results []*BundleResult, name, baseline string) SideSummary {
	s := SideSummary{Name: name, Kinds: map[Kind]float64{}, Grounded: map[Kind]float64{}}
	sums, counts := map[Kind]float64{}, map[Kind]int{}
	gsums, gcounts := map[Kind]float64{}, map[Kind]int{}
	var head, cov float64
	covN := 0
	for _, b := range results {
		bs := b.Briefing(name)
		if bs == nil {
			continue
		}
		s.Bundles++
		s.Chars += float64(bs.Chars)
		s.OverTarget += bs.OverTarget
		s.ReReads += len(b.ReReads)
		s.ReReadNamed += bs.ReReadNamed
		if v, ok := bs.Coverage(); ok {
			cov += v
			covN++
		}
		s.Lost += len(bs.Lost)
		s.Probes += bs.Overall.Total
		for k, t := range bs.Kinds {
			if t.Total > 0 {
				sums[k] += t.Share()
				counts[k]++
			}
		}
		h, ok := bs.Headline()
		if !ok {
			continue
		}
		s.Measurable++
		head += h
		for k, t := range groundedKinds(b.Grounded, bs) {
			gsums[k] += t.Share()
			gcounts[k]++
		}
		if base := b.Briefing(baseline); base != nil && name != baseline {
			if bh, ok := base.Headline(); ok && h < bh-1e-12 {
				s.Regressed++
			}
		}
	}
	if s.Bundles > 0 {
		s.Chars /= float64(s.Bundles)
		s.OverTarget /= float64(s.Bundles)
	}
	if s.Measurable > 0 {
		v := head / float64(s.Measurable)
		s.Overall = &v
	}
	if covN > 0 {
		v := cov / float64(covN)
		s.Coverage = &v
	}
	s.Judged = summariseJudged(results, name)
	for k, n := range counts {
		s.Kinds[k] = sums[k] / float64(n)
	}
	for k, n := range gcounts {
		s.Grounded[k] = gsums[k] / float64(n)
	}
	return s
}

// groundedKinds is a briefing's grounded tally per kind (within the
// target, as its headline counts them).
func groundedKinds(probes []Probe, bs *BriefingScore) map[Kind]Tally {
	out := map[Kind]Tally{}
	if bs.Grounded == nil {
		return out
	}
	for i, p := range probes {
		t := out[p.Kind]
		t.Total++
		if bs.Grounded.Answered(i) {
			t.Kept++
		}
		out[p.Kind] = t
	}
	return out
}

func pair(results []*BundleResult, a, b string, opt ReportOptions) Pair {
	p := Pair{A: a, B: b, KindDiffs: map[Kind]float64{}}
	p.Paired = paired(results, a, b, opt, (*BriefingScore).Headline)
	p.Coverage = paired(results, a, b, opt, (*BriefingScore).Coverage)
	p.EqualSize = pairedEqual(results, a, b, opt)
	kd, kn := map[Kind]float64{}, map[Kind]int{}
	n := 0
	for _, r := range results {
		sa, sb := r.Briefing(a), r.Briefing(b)
		if sa == nil || sb == nil {
			continue
		}
		n++
		p.CharsA += float64(sa.Chars)
		p.CharsB += float64(sb.Chars)
		for k, t := range sa.Kinds {
			if t.Total > 0 {
				kd[k] += sb.Kinds[k].Share() - t.Share()
				kn[k]++
			}
		}
	}
	if n > 0 {
		p.CharsA /= float64(n)
		p.CharsB /= float64(n)
	}
	if p.CharsA > 0 {
		p.SizeRatio = p.CharsB / p.CharsA
	}
	for k, n := range kn {
		p.KindDiffs[k] = kd[k] / float64(n)
	}
	p.Verdict = verdict(p)
	p.KindTests = kindTests(results, a, b)
	if p.N > 0 {
		p.Judged = pairJudged(results, a, b, opt)
	}
	return p
}

// pairedEqual is paired on the equal-size recall of a and b.
func pairedEqual(results []*BundleResult, a, b string, opt ReportOptions) Paired {
	var xs, ys []float64
	for _, r := range results {
		if v, ok := r.equal[[2]string{a, b}]; ok {
			xs, ys = append(xs, v[0]), append(ys, v[1])
		}
	}
	return pairOf(xs, ys, opt)
}

// verdict says a pair's headline comparison in words, with the sizes:
// "terse-pack better than default-pack, and 0.4 times its size",
// "builtin better than actual but 2.1 times larger".
func verdict(p Pair) string {
	if p.N == 0 {
		return "not comparable: no bundle both have is measurable"
	}
	sure := p.CILow > 0 || p.CIHigh < 0
	var what string
	switch {
	case p.Diff > 0 && sure:
		what = p.B + " better than " + p.A
	case p.Diff < 0 && sure:
		what = p.B + " worse than " + p.A
	default:
		what = p.B + " and " + p.A + " not told apart (the interval holds 0)"
	}
	r := p.SizeRatio
	switch {
	case r == 0:
	case r >= 1.1 && p.Diff > 0 && sure:
		what += fmt.Sprintf(" but %.1f times larger", r)
	case r >= 1.1:
		what += fmt.Sprintf(", and %.1f times larger", r)
	case r <= 1/1.1 && p.Diff < 0 && sure:
		what += fmt.Sprintf(" but %.1f times smaller", 1/r)
	case r <= 1/1.1:
		what += fmt.Sprintf(", and %.1f times smaller", 1/r)
	default:
		return what + ", at about the same size"
	}
	if e := p.EqualSize; e.N > 0 && r != 0 {
		switch {
		case e.CILow > 0:
			what += fmt.Sprintf("; cut to the same size, %s holds more (%+.3f)", p.B, e.Diff)
		case e.CIHigh < 0:
			what += fmt.Sprintf("; cut to the same size, %s holds less (%+.3f)", p.B, e.Diff)
		default:
			what += "; cut to the same size, not told apart"
		}
	}
	return what
}

// paired compares score (where it says it has one) of sides a and b over
// the bundles that have both.
func paired(results []*BundleResult, a, b string, opt ReportOptions, score func(*BriefingScore) (float64, bool)) Paired {
	var xs, ys []float64
	for _, r := range results {
		sa, sb := r.Briefing(a), r.Briefing(b)
		if sa == nil || sb == nil {
			continue
		}
		x, okA := score(sa)
		y, okB := score(sb)
		if okA && okB {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	return pairOf(xs, ys, opt)
}

// pairOf compares paired scores xs (side A) and ys (side B): the means,
// B − A with its bootstrap interval, wins, losses and ties.
func pairOf(xs, ys []float64, opt ReportOptions) Paired {
	p := Paired{N: len(xs)}
	if p.N == 0 {
		return p
	}
	d := make([]float64, len(xs))
	for i := range xs {
		x, y := xs[i], ys[i]
		p.MeanA += x
		p.MeanB += y
		d[i] = y - x
		switch {
		case y > x+1e-12:
			p.Wins++
		case y < x-1e-12:
			p.Losses++
		default:
			p.Ties++
		}
	}
	p.MeanA /= float64(p.N)
	p.MeanB /= float64(p.N)
	p.Diff = p.MeanB - p.MeanA
	p.CILow, p.CIHigh = bootstrap(d, opt.Resamples, opt.Seed)
	return p
}

func summariseJudged(results []*BundleResult, name string) *JudgedSummary {
	js := &JudgedSummary{Dimensions: map[string]float64{}, Kinds: map[Kind]float64{}}
	kn := map[Kind]int{}
	for _, b := range results {
		bs := b.Briefing(name)
		if bs == nil || bs.Judged == nil {
			continue
		}
		js.Bundles++
		js.Score += bs.Judged.Score
		for d, v := range bs.Judged.Dimensions {
			js.Dimensions[d] += v
		}
		for k, v := range bs.Judged.Kinds {
			js.Kinds[k] += v
			kn[k]++
		}
	}
	if js.Bundles == 0 {
		return nil
	}
	n := float64(js.Bundles)
	js.Score /= n
	for d := range js.Dimensions {
		js.Dimensions[d] /= n
	}
	for k := range js.Kinds {
		js.Kinds[k] /= float64(kn[k])
	}
	js.Repeats = judgedRepeatSpread(results, name)
	return js
}

func pairJudged(results []*BundleResult, a, b string, opt ReportOptions) *JudgedPair {
	p := paired(results, a, b, opt, func(s *BriefingScore) (float64, bool) {
		if s.Judged == nil {
			return 0, false
		}
		return s.Judged.Score, true
	})
	if p.N == 0 {
		return nil
	}
	return &p
}

// judgeTotals adds up what the judge did.
func judgeTotals(results []*BundleResult) *ReportJudge {
	var rj *ReportJudge
	for _, b := range results {
		if b.Judge == nil {
			continue
		}
		if rj == nil {
			rj = &ReportJudge{Judge: b.Judge.Judge, PackHash: b.Judge.PackHash}
		}
		if b.Judge.Error == "" {
			rj.Bundles++
		}
		rj.Repeats = max(rj.Repeats, b.Judge.Repeats)
		for _, c := range b.Judge.Calls {
			rj.Calls++
			if c.Cached {
				rj.Cached++
			}
		}
		rj.CostUSD = cascade.RoundUSD(rj.CostUSD + b.Judge.CostUSD)
		rj.SavedUSD = cascade.RoundUSD(rj.SavedUSD + b.Judge.SavedUSD)
	}
	return rj
}

// bootstrap is the 95% percentile interval of the mean of d over n
// resamples with replacement, from a fixed seed: the same data give the
// same interval.
func bootstrap(d []float64, n int, seed uint64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	means := make([]float64, n)
	for i := range means {
		sum := 0.0
		for range d {
			sum += d[rng.IntN(len(d))]
		}
		means[i] = sum / float64(len(d))
	}
	sort.Float64s(means)
	lo = means[int(math.Floor(0.025*float64(n-1)))]
	hi = means[int(math.Ceil(0.975*float64(n-1)))]
	return lo, hi
}
