package eval

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/compactlab/compact/internal/cascade"
)

func TestParseAnswers(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
		want []string
	}{
		{"Q1: a\nQ2: b", 2, []string{"a", "b"}},
		{"**Q1:** a\n  more of a\n- Q3) c\n```", 3, []string{"a more of a", "", "c"}},
		// Q9 is no label of ours: it continues the answer before it.
		{"Q2 - two\nQ1. one\nQ9: out of range", 2, []string{"one Q9: out of range", "two"}},
		{"no labels at all", 1, []string{""}},
	} {
		got := ParseAnswers(tc.text, tc.n)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseAnswers(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestParseGrades(t *testing.T) {
	text := "Here you go:\n```json\n" +
		`{"q": 1, "set": "B", "accuracy": 4, "context_awareness": 3, "artifact_trail": 5, "completeness": 2, "continuity": 1, "instruction_following": 0}` + "\n" +
		`{"q": "Q2", "set": "a", "accuracy": "7", "context_awareness": -1, "artifact_trail": 5, "completeness": 5, "continuity": 5, "instruction_following": 5}` + "\n" +
		`{"q": 2, "set": "C", "accuracy": 1}` + "\n" + // incomplete: skipped
		`{"q": 3, "set": "A", "accuracy": 1, "context_awareness": 1, "artifact_trail": 1, "completeness": 1, "continuity": 1, "instruction_following": 1}` + "\n" + // no such question
		`{"note": "a } in a string", "q": 1, "set": "A", "accuracy": 2, "context_awareness": 2, "artifact_trail": 2, "completeness": 2, "continuity": 2, "instruction_following": 2}` + "\n```"
	g := ParseGrades(text, 2, 2)
	if g[1][0] == nil || *g[1][0] != (Grades{4, 3, 5, 2, 1, 0}) {
		t.Errorf("B Q1: %+v", g[1][0])
	}
	if g[0][1] == nil || *g[0][1] != (Grades{5, 0, 5, 5, 5, 5}) {
		t.Errorf("A Q2 (clamped, string numbers): %+v", g[0][1])
	}
	if g[0][0] == nil || g[0][0].Mean() != 2 {
		t.Errorf("A Q1 (a brace inside a string): %+v", g[0][0])
	}
	if g[1][1] != nil {
		t.Errorf("B Q2 should have no grade: %+v", g[1][1])
	}
}

func TestQuestionsTakeKindsInTurn(t *testing.T) {
	var probes []Probe
	for i := 0; i < 5; i++ {
		probes = append(probes, Probe{Kind: KindArtifact, Question: "Which files did you edit?", Expected: []string{"f" + string(rune('0'+i))}})
	}
	probes = append(probes,
		Probe{Kind: KindArtifact, Question: "Which files did you read?", Expected: []string{"r"}},
		Probe{Kind: KindRecall, Question: "Which error identifiers came up?", Expected: []string{"TS2345"}},
		Probe{Kind: KindContinuation, Question: "What did the user ask for last?", Expected: []string{"ship it"}},
		Probe{Kind: KindDecision, Question: "What did the user decide?", Expected: []string{"no ORM"}},
	)
	qs := Questions(probes, 3)
	var got []string
	for _, q := range qs {
		got = append(got, string(q.Kind)+":"+q.Text)
	}
	want := []string{"artifact:Which files did you edit?", "recall:Which error identifiers came up?", "decision:What did the user decide?"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("questions %q, want %q", got, want)
	}
	if !reflect.DeepEqual(qs[0].Expected, []string{"f0", "f1", "f2", "f3", "f4"}) || !reflect.DeepEqual(qs[0].Probes, []int{0, 1, 2, 3, 4}) || qs[2].N != 3 {
		t.Errorf("first question %+v", qs[0])
	}
	if all := Questions(probes, 0); len(all) != 5 {
		t.Errorf("%d questions without a cap, want 5", len(all))
	}
}

// scripted answers every answer call with fixed text and the grade call
// with grades that depend on the answer set's first answer.
type scripted struct {
	calls   atomic.Int32 // the answer calls run at once
	failOn  string
	answers map[string]string // by a substring of the briefing
}

func (s *scripted) Run(_ context.Context, in cascade.Input, order []string) (*cascade.Outcome, error) {
	s.calls.Add(1)
	if s.failOn != "" && strings.Contains(in.User, s.failOn) {
		return &cascade.Outcome{}, errors.New("boom")
	}
	if strings.Contains(in.User, "<briefing>") {
		for k, v := range s.answers {
			if strings.Contains(in.User, k) {
				return &cascade.Outcome{Text: v, CostUSD: 0.001, Usage: cascade.Usage{InputTokens: 10}}, nil
			}
		}
		return &cascade.Outcome{Text: "Q1: not in the briefing"}, nil
	}
	var b strings.Builder
	for _, set := range []string{"A", "B"} {
		i := strings.Index(in.User, "Answer set "+set+":\nQ1: ")
		if i < 0 {
			continue
		}
		g := "1"
		if strings.HasPrefix(in.User[i+len("Answer set A:\nQ1: "):], "src/a.ts") {
			g = "5"
		}
		b.WriteString(`{"q":1,"set":"` + set + `","accuracy":` + g + `,"context_awareness":` + g + `,"artifact_trail":` + g + `,"completeness":` + g + `,"continuity":` + g + `,"instruction_following":` + g + "}\n")
	}
	return &cascade.Outcome{Text: b.String(), CostUSD: 0.002}, nil
}

func TestJudgeMapsGradesBackAndAddsCost(t *testing.T) {
	probes := []Probe{{Kind: KindArtifact, Question: "Which files did you edit?", Expected: []string{"src/a.ts"}}}
	r := &BundleResult{Bundle: t.TempDir(), Probes: probes, Briefings: []BriefingScore{{Name: Actual}, {Name: "run"}}}
	s := &scripted{answers: map[string]string{"edited src/a.ts": "Q1: src/a.ts", "nothing": "Q1: not in the briefing"}}
	texts := map[string]string{Actual: "You edited src/a.ts.", "run": "You did nothing."}
	if err := Judge(context.Background(), r, texts, JudgeOptions{Model: s, Order: []string{"m"}, Judge: "m", Run: "m"}); err != nil {
		t.Fatal(err)
	}
	if n := s.calls.Load(); n != 3 {
		t.Errorf("%d calls, want 3", n)
	}
	if a := r.Briefing(Actual).Judged; a == nil || a.Score != 5 || a.Kinds[KindArtifact] != 5 || a.Answers[0].Answer != "src/a.ts" {
		t.Errorf("actual judged %+v", a)
	}
	if b := r.Briefing("run").Judged; b == nil || b.Score != 1 {
		t.Errorf("run judged %+v", b)
	}
	if r.Judge.CostUSD != 0.004 || len(r.Judge.Calls) != 3 || r.Judge.File == "" {
		t.Errorf("judge summary %+v", r.Judge)
	}
	// A failed call leaves the bundle unjudged, with the error.
	r2 := &BundleResult{Bundle: t.TempDir(), Probes: probes, Briefings: []BriefingScore{{Name: Actual}}}
	s2 := &scripted{failOn: "edited"}
	err := Judge(context.Background(), r2, texts, JudgeOptions{Model: s2, Order: []string{"m"}, Judge: "m"})
	if err == nil || r2.Judge == nil || r2.Judge.Error == "" || r2.Briefing(Actual).Judged != nil {
		t.Errorf("failed call: %v, %+v", err, r2.Judge)
	}
}

func TestNegationAfterACurlyQuote(t *testing.T) {
	for s, want := range map[string]bool{
		"“No new dependencies please.”": true,
		"No new dependencies":           true,
		"éno more":                      false, // "no" inside a word
		"Renovate it":                   false,
		"don’t touch it":                true,
	} {
		if got := hasNegation(s); got != want {
			t.Errorf("hasNegation(%q) = %v, want %v", s, got, want)
		}
	}
}
