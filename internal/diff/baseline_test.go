package diff

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/mdtext"
)

// baselineReport is goldenReport with a baseline run: the same bundles
// replayed by "main", whose briefings keep what the app's kept and leave
// the first bundle's decision out (which B keeps).
func baselineReport(t *testing.T) *Report {
	t.Helper()
	r := goldenReport(false)
	var base []*Comparison
	for _, c := range r.Comparisons[:2] { // the loose files have no baseline
		in := Input{Bundle: c.Bundle, AFile: c.A.File, BFile: "main/output.md", Profile: c.Profile, Chain: c.Chain, Compression: c.Compression, Run: "main"}
		switch c.Compression {
		case 1:
			in.A, in.B, in.History, in.HasHistory = goldenA1, strings.Replace(goldenA1, "not red", "no red", 1), goldenHistory1, true
		case 2:
			in.A, in.B, in.History, in.HasHistory = goldenA2, goldenA2, goldenHistory2, true
			in.PreviousChars, in.HasPrevious = len16(goldenA1), true
		}
		base = append(base, Compare(in))
	}
	r.Baseline = NewBaseline("main", r.Comparisons, base)
	return r
}

// TestGoldenPullRequestComment: --format markdown --baseline RUN is the
// comment a CI job posts: A, the baseline and B side by side, the paths
// and decisions B lost that the baseline kept, the worst bundles.
func TestGoldenPullRequestComment(t *testing.T) {
	r := baselineReport(t)
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md, TextOptions{Worst: 2}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report-baseline.md", md.Bytes())
	out := md.String()
	for _, want := range []string{
		"| | A (actual) | baseline `main` | B `builtin` |",
		"<details><summary>Newly lost paths (1)</summary>",
		"| `prerelease/001-button/compression-002` | `w1/src/Button.css` |",
		"(1 without a baseline answer left out)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the comment lacks %q", want)
		}
	}
	if len(out) > 65536 {
		t.Errorf("the comment is %d characters; GitHub takes 65,536", len(out))
	}

	// Without a baseline, many comparisons give the summary only.
	var plain bytes.Buffer
	if err := goldenReport(true).WriteMarkdown(&plain, TextOptions{Worst: 10}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "```diff") || !strings.Contains(plain.String(), "### All 3, worst first") {
		t.Errorf("markdown over many bundles is not the summary:\n%s", plain.String())
	}
}

// TestBaselineNewlyLost: an item counts as newly lost only when the
// baseline kept it, and recovered the other way round.
func TestBaselineNewlyLost(t *testing.T) {
	bl := baselineReport(t).Baseline
	if bl.Bundles != 2 || len(bl.Missing) != 1 || bl.Missing[0] != "notes/old.md" {
		t.Fatalf("bundles %d, missing %v", bl.Bundles, bl.Missing)
	}
	for _, it := range bl.NewlyLost {
		if it.Bundle == "prerelease/001-button/compression-001" && it.Kind == mdtext.KindDecision {
			t.Errorf("%v is newly lost, but the baseline lost it too", it)
		}
	}
	if len(bl.NewlyLostOf(mdtext.KindPath)) != 1 || bl.Worse != 1 {
		t.Errorf("newly lost %v in %d bundles", bl.NewlyLost, bl.Worse)
	}
	var js bytes.Buffer
	r := baselineReport(t)
	if err := r.WriteStatJSON(&js, 2); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Baseline *Baseline `json:"baseline"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc.Baseline == nil || doc.Baseline.Run != "main" {
		t.Errorf("--stat --json has no baseline: %v", err)
	}
}
