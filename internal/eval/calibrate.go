package eval

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/fsutil"
)

// Grade is one human grade of one briefing of one bundle.
type Grade struct {
	Bundle   string  `json:"bundle"`
	Briefing string  `json:"briefing"`
	Grade    float64 `json:"grade"`
	// Rater names who graded ("" one rater).
	Rater string `json:"rater,omitempty"`
	Line  int    `json:"-"`
}

// ParseHumanGrades reads a file of human grades: CSV with a header naming the
// columns bundle, briefing and grade (any order; an optional rater
// column), or JSON Lines with those members. name is the file's name,
// for the errors, which name the line and the field.
func ParseHumanGrades(name string, data []byte) ([]Grade, error) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return nil, fmt.Errorf("%s: no grades (want CSV with the columns bundle,briefing,grade or JSON Lines)", name)
	}
	if t[0] == '{' {
		return parseGradesJSONL(name, data)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: line 1: %v", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, need := range []string{"bundle", "briefing", "grade"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: line 1: no %q column (want a header naming bundle, briefing and grade)", name, need)
		}
	}
	var out []Grade
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %v", name, line, err)
		}
		get := func(k string) string {
			if i, ok := col[k]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		g := Grade{Bundle: get("bundle"), Briefing: get("briefing"), Rater: get("rater"), Line: line}
		v, err := strconv.ParseFloat(get("grade"), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: line %d: grade %q is not a number", name, line, get("grade"))
		}
		g.Grade = v
		if g.Bundle == "" || g.Briefing == "" {
			return nil, fmt.Errorf("%s: line %d: bundle and briefing must not be empty", name, line)
		}
		out = append(out, g)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no grades after the header", name)
	}
	return out, nil
}

func parseGradesJSONL(name string, data []byte) ([]Grade, error) {
	var out []Grade
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var g struct {
			Bundle   string   `json:"bundle"`
			Briefing string   `json:"briefing"`
			Grade    *float64 `json:"grade"`
			Rater    string   `json:"rater"`
		}
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			return nil, fmt.Errorf("%s: line %d: %v", name, i+1, err)
		}
		if g.Grade == nil {
			return nil, fmt.Errorf("%s: line %d: no grade", name, i+1)
		}
		if g.Bundle == "" || g.Briefing == "" {
			return nil, fmt.Errorf("%s: line %d: bundle and briefing must not be empty", name, i+1)
		}
		out = append(out, Grade{Bundle: g.Bundle, Briefing: g.Briefing, Grade: *g.Grade, Rater: g.Rater, Line: i + 1})
	}
	if len(out) == 0 {
		return nil, errors.New(name + ": no grades")
	}
	return out, nil
}

// KendallTauB is Kendall's tau-b of x and y (ties corrected); NaN when
// fewer than two pairs or one side is constant.
func KendallTauB(x, y []float64) float64 {
	n := len(x)
	if n != len(y) || n < 2 {
		return math.NaN()
	}
	var conc, disc, tx, ty float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dx, dy := x[i]-x[j], y[i]-y[j]
			switch {
			case dx == 0 && dy == 0:
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case dx*dy > 0:
				conc++
			default:
				disc++
			}
		}
	}
	d := math.Sqrt((conc + disc + tx) * (conc + disc + ty))
	if d == 0 {
		return math.NaN()
	}
	return (conc - disc) / d
}

// Quantiles puts each value into one of k equal-frequency categories of
// its own distribution (0 lowest), ties kept together.
func Quantiles(v []float64, k int) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	out := make([]int, len(v))
	for r := 0; r < len(idx); {
		// A run of equal values takes the category of its mid rank.
		e := r
		for e+1 < len(idx) && v[idx[e+1]] == v[idx[r]] {
			e++
		}
		cat := int(float64(r+e) / 2 * float64(k) / float64(len(v)))
		if cat >= k {
			cat = k - 1
		}
		for i := r; i <= e; i++ {
			out[idx[i]] = cat
		}
		r = e + 1
	}
	return out
}

// WeightedKappa is Cohen's kappa of two raters' categories a and b
// (0..k-1), with quadratic weights: a disagreement of two categories
// counts four times one of one. NaN when undefined.
func WeightedKappa(a, b []int, k int) float64 {
	n := len(a)
	if n == 0 || n != len(b) || k < 2 {
		return math.NaN()
	}
	obs := make([][]float64, k)
	for i := range obs {
		obs[i] = make([]float64, k)
	}
	ra, rb := make([]float64, k), make([]float64, k)
	for i := 0; i < n; i++ {
		obs[a[i]][b[i]]++
		ra[a[i]]++
		rb[b[i]]++
	}
	var po, pe float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			w := float64((i-j)*(i-j)) / float64((k-1)*(k-1))
			po += w * obs[i][j] / float64(n)
			pe += w * ra[i] * rb[j] / float64(n*n)
		}
	}
	if pe == 0 {
		return math.NaN()
	}
	return 1 - po/pe
}

// CalibrationRow is how one measure agrees with the human grades.
type CalibrationRow struct {
	Measure string `json:"measure"`
	N       int    `json:"n"`
	// TauB and Kappa are nil where undefined (too few briefings, or one
	// side constant).
	TauB  *float64 `json:"tauB"`
	Kappa *float64 `json:"kappa"`
}

// defined is v, or nil for NaN.
func defined(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// CalibrationReport is what Calibrate found.
type CalibrationReport struct {
	Grades  int `json:"grades"`
	Graded  int `json:"briefingsGraded"`
	Matched int `json:"briefingsMatched"`
	// Unmatched names the graded briefings no bundle has (bundle and
	// briefing, with the grades file's line).
	Unmatched []string `json:"unmatched"`
	// Raters is Kendall's tau-b between the two raters who graded most,
	// on the briefings both graded (nil with one rater).
	Raters     *CalibrationRow  `json:"raters,omitempty"`
	Categories int              `json:"categories"`
	Measures   []CalibrationRow `json:"measures"`
}

// Calibrate compares human grades with compact's measures: score returns
// each measure's score of a briefing (nil when the bundle or the briefing
// is unknown; a measure left out has no score for it). Several grades of
// one briefing are averaged. Kappa is quadratic-weighted Cohen's kappa
// after putting the grades and each measure's scores into k
// equal-frequency categories of their own distribution.
func Calibrate(grades []Grade, measures []string, score func(bundle, briefing string) map[string]float64, k int) CalibrationReport {
	type item struct {
		bundle, briefing string
		sum              float64
		n, line          int
		byRater          map[string]float64
	}
	var order []string
	items := map[string]*item{}
	raterCount := map[string]int{}
	for _, g := range grades {
		key := g.Bundle + "\x00" + g.Briefing
		it := items[key]
		if it == nil {
			it = &item{bundle: g.Bundle, briefing: g.Briefing, line: g.Line, byRater: map[string]float64{}}
			items[key] = it
			order = append(order, key)
		}
		it.sum += g.Grade
		it.n++
		if g.Rater != "" {
			it.byRater[g.Rater] = g.Grade
			raterCount[g.Rater]++
		}
	}
	rep := CalibrationReport{Grades: len(grades), Graded: len(order), Unmatched: []string{}, Categories: k, Measures: []CalibrationRow{}}
	human := map[string][]float64{}
	scores := map[string][]float64{}
	for _, key := range order {
		it := items[key]
		sc := score(it.bundle, it.briefing)
		if sc == nil {
			rep.Unmatched = append(rep.Unmatched, fmt.Sprintf("line %d: %s (%s)", it.line, it.bundle, it.briefing))
			continue
		}
		rep.Matched++
		for _, m := range measures {
			if v, ok := sc[m]; ok && !math.IsNaN(v) {
				human[m] = append(human[m], it.sum/float64(it.n))
				scores[m] = append(scores[m], v)
			}
		}
	}
	for _, m := range measures {
		row := CalibrationRow{Measure: m, N: len(scores[m]), TauB: defined(KendallTauB(human[m], scores[m]))}
		if row.N >= k {
			row.Kappa = defined(WeightedKappa(Quantiles(human[m], k), Quantiles(scores[m], k), k))
		}
		rep.Measures = append(rep.Measures, row)
	}
	if len(raterCount) >= 2 {
		var names []string
		for r := range raterCount {
			names = append(names, r)
		}
		sort.Slice(names, func(i, j int) bool {
			if raterCount[names[i]] != raterCount[names[j]] {
				return raterCount[names[i]] > raterCount[names[j]]
			}
			return names[i] < names[j]
		})
		var a, b []float64
		for _, key := range order {
			x, okA := items[key].byRater[names[0]]
			y, okB := items[key].byRater[names[1]]
			if okA && okB {
				a, b = append(a, x), append(b, y)
			}
		}
		row := CalibrationRow{Measure: names[0] + " vs " + names[1], N: len(a), TauB: defined(KendallTauB(a, b))}
		if len(a) >= k {
			row.Kappa = defined(WeightedKappa(Quantiles(a, k), Quantiles(b, k), k))
		}
		rep.Raters = &row
	}
	return rep
}

// Measure names of a calibration.
const (
	CalibrateGrounded = "grounded"
	CalibrateCoverage = "coverage"
	CalibrateJudged   = "judged"
)

// CalibrationMeasures are the measures Calibrate compares, in order.
var CalibrationMeasures = []string{CalibrateGrounded, CalibrateCoverage, CalibrateJudged}

// CalibrationScores scores every briefing of the bundle at dir by each
// calibration measure it has: the grounded score (when measurable),
// coverage (when the history gave probes) and the judged score of the
// bundle's first judge record (when there is one), by briefing name.
func CalibrationScores(dir string, target int) (map[string]map[string]float64, error) {
	r, err := EvaluateBundle(dir, EvalOptions{Target: target})
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]float64{}
	for i := range r.Briefings {
		s := &r.Briefings[i]
		m := map[string]float64{}
		if v, ok := s.Headline(); ok {
			m[CalibrateGrounded] = v
		}
		if v, ok := s.Coverage(); ok {
			m[CalibrateCoverage] = v
		}
		out[s.Name] = m
	}
	if runs := bundle.JudgeRecords(dir); len(runs) > 0 {
		rec, err := ReadJudgeRecord(dir, runs[0])
		if err != nil {
			return nil, err
		}
		for _, jb := range rec.Briefings {
			if m := out[jb.Name]; m != nil && !math.IsNaN(jb.Score) {
				m[CalibrateJudged] = jb.Score
			}
		}
	}
	return out, nil
}

// ReadJudgeRecord reads the judge record <dir>/judge/<run>.json (at most
// 256 MiB); a record that is not JSON is an error naming the file.
func ReadJudgeRecord(dir, run string) (*JudgeRecord, error) {
	file := bundle.JudgePath(dir, run)
	data, err := fsutil.ReadFileLimit(file, 256<<20)
	if err != nil {
		return nil, err
	}
	var rec JudgeRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &rec, nil
}
