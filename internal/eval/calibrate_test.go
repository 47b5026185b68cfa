package eval

import (
	"math"
	"strings"
	"testing"
)

func TestKendallTauB(t *testing.T) {
	for _, c := range []struct {
		x, y []float64
		want float64
	}{
		// scipy.stats.kendalltau's documented example.
		{[]float64{12, 2, 1, 12, 2}, []float64{1, 4, 7, 1, 0}, -0.47140452079103173},
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{[]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		{[]float64{1, 1, 1}, []float64{1, 2, 3}, math.NaN()},
		{[]float64{1}, []float64{1}, math.NaN()},
	} {
		got := KendallTauB(c.x, c.y)
		if math.IsNaN(c.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-c.want) > 1e-12 {
			t.Errorf("KendallTauB(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

func TestWeightedKappa(t *testing.T) {
	rep := func(n, v int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	// Two categories: quadratic weights are Cohen's plain kappa. The
	// textbook table (20 yes-yes, 5 yes-no, 10 no-yes, 15 no-no) gives 0.4.
	a := append(append(append(rep(20, 1), rep(5, 1)...), rep(10, 0)...), rep(15, 0)...)
	b := append(append(append(rep(20, 1), rep(5, 0)...), rep(10, 1)...), rep(15, 0)...)
	if got := WeightedKappa(a, b, 2); math.Abs(got-0.4) > 1e-12 {
		t.Errorf("kappa %v, want 0.4", got)
	}
	if got := WeightedKappa([]int{0, 1, 2, 2}, []int{0, 1, 2, 2}, 3); got != 1 {
		t.Errorf("perfect agreement: %v", got)
	}
	if got := WeightedKappa([]int{0, 0, 1, 1}, []int{1, 1, 0, 0}, 2); got != -1 {
		t.Errorf("perfect disagreement: %v", got)
	}
	// A near miss costs less than a far one with quadratic weights.
	near := WeightedKappa([]int{0, 1, 2, 0, 1, 2}, []int{1, 1, 2, 0, 1, 2}, 3)
	far := WeightedKappa([]int{0, 1, 2, 0, 1, 2}, []int{2, 1, 2, 0, 1, 2}, 3)
	if !(near > far) {
		t.Errorf("near %v, far %v", near, far)
	}
}

func TestQuantiles(t *testing.T) {
	got := Quantiles([]float64{5, 1, 3, 3, 9, 7}, 3)
	want := []int{1, 0, 0, 0, 2, 2} // the tied 3s share their mid rank's group
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Quantiles = %v, want %v", got, want)
		}
	}
}

func TestParseHumanGrades(t *testing.T) {
	csv := "\ufeffBriefing,bundle,grade,rater\nactual,a/compression-001,8,ann\nbuiltin,a/compression-001,5.5,ann\n\n"
	g, err := ParseHumanGrades("grades.csv", []byte(csv))
	if err != nil || len(g) != 2 || g[0].Bundle != "a/compression-001" || g[1].Grade != 5.5 || g[0].Rater != "ann" || g[1].Line != 3 {
		t.Fatalf("%+v %v", g, err)
	}
	jl := `{"bundle":"a","briefing":"actual","grade":7}` + "\n" + `{"bundle":"a","briefing":"b","grade":3,"rater":"bo"}`
	if g, err := ParseHumanGrades("g.jsonl", []byte(jl)); err != nil || len(g) != 2 || g[1].Rater != "bo" {
		t.Fatalf("%+v %v", g, err)
	}
	for _, bad := range []struct{ in, want string }{
		{"", "no grades"},
		{"bundle,grade\na,1\n", `no "briefing" column`},
		{"bundle,briefing,grade\na,actual,good\n", `line 2: grade "good" is not a number`},
		{"bundle,briefing,grade\n,actual,1\n", "line 2: bundle and briefing must not be empty"},
		{`{"bundle":"a","briefing":"x"}`, "line 1: no grade"},
	} {
		if _, err := ParseHumanGrades("grades.csv", []byte(bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) || !strings.HasPrefix(err.Error(), "grades.csv") {
			t.Errorf("%q: %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestCalibrate(t *testing.T) {
	var grades []Grade
	scores := map[string]map[string]float64{}
	// Six briefings: the grounded score follows the grades, coverage runs
	// against them; two raters who agree but for one pair.
	for i, v := range []float64{1, 3, 4, 6, 8, 9} {
		name := string(rune('a' + i))
		grades = append(grades, Grade{Bundle: "b", Briefing: name, Grade: v, Rater: "ann"}, Grade{Bundle: "b", Briefing: name, Grade: v + float64(i%2), Rater: "bo"})
		scores[name] = map[string]float64{CalibrateGrounded: v / 10, CalibrateCoverage: 1 - v/10}
	}
	grades = append(grades, Grade{Bundle: "gone", Briefing: "x", Grade: 1, Line: 9})
	rep := Calibrate(grades, CalibrationMeasures, func(b, br string) map[string]float64 {
		if b != "b" {
			return nil
		}
		return scores[br]
	}, 3)
	if rep.Graded != 7 || rep.Matched != 6 || len(rep.Unmatched) != 1 || !strings.Contains(rep.Unmatched[0], "line 9: gone") {
		t.Fatalf("%+v", rep)
	}
	g, c, j := rep.Measures[0], rep.Measures[1], rep.Measures[2]
	if g.N != 6 || *g.TauB != 1 || *g.Kappa != 1 || *c.TauB != -1 || *c.Kappa >= 0 || j.N != 0 || j.TauB != nil {
		t.Errorf("measures %+v %+v %+v", g, c, j)
	}
	if rep.Raters == nil || rep.Raters.N != 6 || *rep.Raters.TauB < 0.8 {
		t.Errorf("raters %+v", rep.Raters)
	}
}
