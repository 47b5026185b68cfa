package eval

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/replay"
)

// byRepeat answers every answer call "Q1: src/a.ts" and grades every
// answer set of repeat I (cascade.Input.Repeat, 0 for the first) with the
// grade the set's briefing is given for it, noting each call's repeat.
type byRepeat struct {
	mu      sync.Mutex
	repeats []int // the Input.Repeat of each call
	grades  map[string][]string
	failOn  int // the repeat whose grade call fails (0: none)
}

func (s *byRepeat) Run(_ context.Context, in cascade.Input, _ []string) (*cascade.Outcome, error) {
	s.mu.Lock()
	s.repeats = append(s.repeats, in.Repeat)
	s.mu.Unlock()
	if strings.Contains(in.User, "<briefing>") {
		return &cascade.Outcome{Text: "Q1: src/a.ts", CostUSD: 0.001}, nil
	}
	if s.failOn > 1 && in.Repeat == s.failOn {
		return &cascade.Outcome{}, errors.New("boom")
	}
	i := max(in.Repeat, 1) - 1
	var b strings.Builder
	for k, name := range shuffleOrder([]string{Actual, "run"}, Questions(repeatProbes, 0)) {
		g := s.grades[name][i]
		set := string(rune('A' + k))
		b.WriteString(`{"q":1,"set":"` + set + `","accuracy":` + g + `,"context_awareness":` + g + `,"artifact_trail":` + g + `,"completeness":` + g + `,"continuity":` + g + `,"instruction_following":` + g + "}\n")
	}
	return &cascade.Outcome{Text: b.String(), CostUSD: 0.002}, nil
}

var repeatProbes = []Probe{{Kind: KindArtifact, Question: "Which files did you edit?", Expected: []string{"src/a.ts"}}}

func repeatBundle(t *testing.T) *BundleResult {
	return &BundleResult{Bundle: t.TempDir(), Probes: repeatProbes, Briefings: []BriefingScore{{Name: Actual}, {Name: "run"}}}
}

var repeatTexts = map[string]string{Actual: "You edited src/a.ts.", "run": "You did nothing."}

// TestJudgeRepeats: Repeats 3 judges the bundle three times, the first
// with the plain requests (Input.Repeat 0) and record, the others with
// their repeat in every request and record RUN@I; the scores are the
// first's, each repeat's listed, every call and its cost on the bundle.
func TestJudgeRepeats(t *testing.T) {
	r := repeatBundle(t)
	s := &byRepeat{grades: map[string][]string{Actual: {"4", "2", "3"}, "run": {"1", "1", "1"}}}
	if err := Judge(context.Background(), r, repeatTexts, JudgeOptions{Model: s, Order: []string{"m"}, Judge: "m", Run: "m", Repeats: 3}); err != nil {
		t.Fatal(err)
	}
	count := map[int]int{}
	for _, i := range s.repeats {
		count[i]++
	}
	if len(s.repeats) != 9 || count[0] != 3 || count[2] != 3 || count[3] != 3 {
		t.Errorf("the calls' repeats %v, want three of each of 0, 2 and 3", s.repeats)
	}
	if a := r.Briefing(Actual).Judged; a == nil || a.Score != 4 || len(a.Repeats) != 3 || a.Repeats[1] != 2 || a.Repeats[2] != 3 {
		t.Errorf("actual judged %+v", a)
	}
	if j := r.Judge; j == nil || j.Repeats != 3 || len(j.Calls) != 9 || math.Abs(j.CostUSD-0.012) > 1e-12 || j.File != filepath.Join(r.Bundle, "judge", "m.json") {
		t.Errorf("judge summary %+v", r.Judge)
	}
	for i, c := range r.Judge.Calls {
		if want := []int{0, 2, 3}[i/3]; c.Repeat != want {
			t.Errorf("call %d (%s) of repeat %d, want %d", i, c.Purpose, c.Repeat, want)
		}
	}
	for i, name := range []string{"m", "m@2", "m@3"} {
		data, err := os.ReadFile(filepath.Join(r.Bundle, "judge", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if has := bytes.Contains(data, []byte(`"repeat":`)); has != (i > 0) || bytes.Contains(data, []byte(`"repeats"`)) {
			t.Errorf("record %s:\n%s", name, data)
		}
	}

	// The report: the first repeat's scores, the spread over the three.
	rep := NewReport([]*BundleResult{r}, nil, ReportOptions{})
	for _, sd := range rep.Sides {
		want := map[string]Spread{Actual: NewSpread([]float64{4, 2, 3}), "run": NewSpread([]float64{1, 1, 1})}[sd.Name]
		if sd.Judged == nil || sd.Judged.Repeats == nil || *sd.Judged.Repeats != want {
			t.Errorf("side %s: judged %+v, want the spread %+v", sd.Name, sd.Judged, want)
		}
	}
	if rep.Judge == nil || rep.Judge.Repeats != 3 || rep.Judge.Calls != 9 {
		t.Errorf("report judge %+v", rep.Judge)
	}
	var text, md bytes.Buffer
	if err := rep.WriteText(&text, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(&md, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 bundle, 3 times each, 9 calls", "2.00–4.00 (median 3.00, sd 1.00)", "1.00 (all 3 the same)"} {
		if !strings.Contains(text.String(), want) || !strings.Contains(md.String(), want) {
			t.Errorf("the reports have no %q:\n%s\n%s", want, text.String(), md.String())
		}
	}
}

// TestJudgeOnceIsAsBefore: Repeats 0 and 1 are one plain judging, with
// nothing of the repeats in the scores, the record or the report.
func TestJudgeOnceIsAsBefore(t *testing.T) {
	var texts []string
	for _, k := range []int{0, 1} {
		r := repeatBundle(t)
		s := &byRepeat{grades: map[string][]string{Actual: {"4"}, "run": {"1"}}}
		if err := Judge(context.Background(), r, repeatTexts, JudgeOptions{Model: s, Order: []string{"m"}, Judge: "m", Run: "m", Repeats: k}); err != nil {
			t.Fatal(err)
		}
		if len(s.repeats) != 3 || s.repeats[0]+s.repeats[1]+s.repeats[2] != 0 {
			t.Errorf("Repeats %d: the calls' repeats %v", k, s.repeats)
		}
		if a := r.Briefing(Actual).Judged; a == nil || a.Score != 4 || a.Repeats != nil || r.Judge.Repeats != 0 {
			t.Errorf("Repeats %d: judged %+v, summary %+v", k, a, r.Judge)
		}
		if data, err := os.ReadFile(filepath.Join(r.Bundle, "judge", "m.json")); err != nil || bytes.Contains(data, []byte("repeat")) {
			t.Errorf("Repeats %d: record %v\n%s", k, err, data)
		}
		if _, err := os.Stat(filepath.Join(r.Bundle, "judge", "m@2.json")); err == nil {
			t.Errorf("Repeats %d wrote a second repeat", k)
		}
		rep := NewReport([]*BundleResult{r}, nil, ReportOptions{})
		if rep.Judge.Repeats != 0 || rep.Sides[0].Judged.Repeats != nil {
			t.Errorf("Repeats %d: report %+v", k, rep.Judge)
		}
		var b bytes.Buffer
		if err := rep.WriteText(&b, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, strings.ReplaceAll(b.String(), r.Bundle, "BUNDLE"))
	}
	if texts[0] != texts[1] || strings.Contains(texts[0], "times each") || strings.Contains(texts[0], "judged repeats") {
		t.Errorf("Repeats 0 and 1 report differently, or of repeats:\n%s\n%s", texts[0], texts[1])
	}
}

// TestJudgeRepeatFails: a repeat that fails leaves the bundle unjudged,
// with the error and every call made; the repeats before it are recorded.
func TestJudgeRepeatFails(t *testing.T) {
	r := repeatBundle(t)
	s := &byRepeat{grades: map[string][]string{Actual: {"4", "2", "3"}, "run": {"1", "1", "1"}}, failOn: 2}
	err := Judge(context.Background(), r, repeatTexts, JudgeOptions{Model: s, Order: []string{"m"}, Judge: "m", Run: "m", Repeats: 3})
	if err == nil || !strings.Contains(err.Error(), "judge: repeat 2 of 3: grading: boom") {
		t.Fatalf("error %v", err)
	}
	if r.Judge == nil || r.Judge.Error != err.Error() || r.Judge.Repeats != 3 || len(r.Judge.Calls) != 6 || r.Briefing(Actual).Judged != nil {
		t.Errorf("judge summary %+v, judged %+v", r.Judge, r.Briefing(Actual).Judged)
	}
	if _, err := os.Stat(filepath.Join(r.Bundle, "judge", "m.json")); err != nil {
		t.Errorf("the first repeat's record: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.Bundle, "judge", "m@2.json")); err == nil {
		t.Error("the failed repeat has a record")
	}
}

// TestJudgedRepeatSpreadOverBundles: the spread is of the side's mean
// over the bundles, repeat by repeat, not of the bundles' scores.
func TestJudgedRepeatSpreadOverBundles(t *testing.T) {
	mk := func(scores ...float64) *BundleResult {
		return &BundleResult{Briefings: []BriefingScore{{Name: "run", Judged: &JudgedBriefing{Name: "run", Score: scores[0], Repeats: scores}}}}
	}
	results := []*BundleResult{mk(1, 3, 2), mk(3, 5, 2), {Briefings: []BriefingScore{{Name: "run"}}}}
	got := judgedRepeatSpread(results, "run")
	// Repeat means 2, 4, 2.
	if want := NewSpread([]float64{2, 4, 2}); got == nil || *got != want {
		t.Errorf("spread %+v, want %+v", got, want)
	}
	if judgedRepeatSpread([]*BundleResult{mk(4)}, "run") != nil {
		t.Error("a judging done once has a spread")
	}
}

// TestPlanJudgeRepeat: --judge-repeat is 1 to 50, with a judge, without
// --batch, of a run that is not itself a repeat; the plan carries it.
func TestPlanJudgeRepeat(t *testing.T) {
	server := func(o JudgePlanOptions) JudgePlanOptions {
		o.Model.BaseURL, o.Model.APIModel, o.Questions = "http://127.0.0.1:9/v1", "q", 1
		return o
	}
	for _, tc := range []struct {
		o   JudgePlanOptions
		err string
	}{
		{server(JudgePlanOptions{Repeats: 51}), "eval: --judge-repeat: want 1 to 50 judgings of each bundle, got 51"},
		{server(JudgePlanOptions{Repeats: -1}), "eval: --judge-repeat: want 1 to 50 judgings of each bundle, got -1"},
		{JudgePlanOptions{Repeats: 2}, "eval: --judge-repeat goes with --judge MODEL or --judge-base-url URL"},
		{JudgePlanOptions{Repeats: 2, Batch: true, Questions: 1, Model: replay.PlanOptions{Model: "gpt-5.4-nano"}}, "eval: --batch does not take --judge-repeat: judge the repeats without --batch (each a call of its own at the full price), or once with it"},
		{server(JudgePlanOptions{Repeats: 2, Run: "x@3"}), "eval: --judge-repeat: the judge run x@3 is already repeat 3 of x; give the base name (--judge-run x)"},
	} {
		if _, _, err := PlanJudge(tc.o); err == nil || err.Error() != tc.err {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.err)
		}
	}
	for k, want := range map[int]int{0: 1, 1: 1, 50: 50} {
		judge, _, err := PlanJudge(server(JudgePlanOptions{Repeats: k}))
		if err != nil || judge.Repeats != want {
			t.Errorf("Repeats %d: %+v, %v; want %d", k, judge, err, want)
		}
	}
	// A run named like a repeat is a name of its own when judged once.
	if _, _, err := PlanJudge(server(JudgePlanOptions{Run: "x@3"})); err != nil {
		t.Errorf("--judge-run x@3 judged once: %v", err)
	}
}
