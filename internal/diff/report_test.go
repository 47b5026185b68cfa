package diff

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/mdtext"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// Hand-made inputs whose right answers are obvious.
const (
	goldenHistory1 = "<user>[mentioned: w1/src/Button.tsx]\nThe primary Button is red again. It should be the brand teal (#0f766e), not red.</user>\n" +
		"<assistant>[read: w1/src/Button.tsx]\n[edited: w1/src/Button.css (1 edits)]\n[shell: Run lint → exit 1]\nThe fallback was #dc2626.</assistant>\n" +
		"<user>Don't commit, I'll do it myself. See [the design](https://example.com/design).</user>"

	goldenA1 = "# Briefing\n\n## Button colour\n\nThe user reported that [](path:w1/src/Button.tsx) was red again and asked for the brand teal #0f766e, not red. " +
		"You changed the fallback in [](path:w1/src/Button.css) from #dc2626.\n\n- Lint failed with exit 1.\n\n" +
		"## Current working state\n\nYou edited [](path:w1/src/Button.css). Next, wait for the user."

	goldenB1 = "## Button colour\n\nThe user reported that [](path:w1/src/Button.tsx) was red again and asked for the brand teal #0f766e, not red. " +
		"You changed the fallback in w1/src/Button.css from #dc2626, and lint then failed with exit 1. " +
		"The user said not to commit, they will do it themselves, and pointed to [the design](https://example.com/design).\n\n" +
		"## Current working state\n\nYou edited [](path:w1/src/Button.css). Next, wait for the user to commit."

	goldenHistory2 = "<previous-chat-history>## Button colour\n\nYou set [](path:w1/src/Button.css) to #0f766e.\n\n" +
		"## Current working state\n\nYou edited the CSS. Next, check the hover.</previous-chat-history>\n" +
		"<user>The hover is too dark. Use color-mix at 85%, never a hard-coded hex.</user>\n" +
		"<assistant>[edited: w1/src/Button.css (1 edits)]\n[shell: Run the Button tests → timed out]</assistant>"

	goldenA2 = "## Button colour\n\nYou set [](path:w1/src/Button.css) to #0f766e.\n\n" +
		"## Hover\n\nThe user found the hover too dark and asked for color-mix at 85%, never a hard-coded hex. " +
		"You edited [](path:w1/src/Button.css); the Button tests then timed out.\n\n" +
		"## Current working state\n\nYou ran the Button tests, which timed out. Next, run them again."

	goldenB2 = "## Hover\n\nThe user wanted a lighter hover, so you used color-mix at 85%.\n\n" +
		"<previous-chat-history>\n\n" +
		"## Current working state\n\nYou edited the hover. Next, run the tests. Then ask the user."
)

func goldenReport(withDiffs bool) *Report {
	model := "builtin"
	replay := &bundle.ReplayInfo{Run: "builtin", Model: &model, StartedAt: "2026-07-01T10:00:00Z", Newest: true}
	inputs := []Input{
		{Bundle: "prerelease/001-button/compression-001", AFile: "prerelease/001-button/compression-001/actual-output.md",
			BFile: "prerelease/001-button/compression-001/replays/builtin/output.md", A: goldenA1, B: goldenB1,
			History: goldenHistory1, HasHistory: true, Profile: mdtext.ProfileE3E, Chain: "prerelease/001-button", Compression: 1,
			Run: "builtin", Replay: replay},
		{Bundle: "prerelease/001-button/compression-002", AFile: "prerelease/001-button/compression-002/actual-output.md",
			BFile: "prerelease/001-button/compression-002/replays/builtin/output.md", A: goldenA2, B: goldenB2,
			History: goldenHistory2, HasHistory: true, PreviousChars: len16(goldenA1), HasPrevious: true, Profile: mdtext.ProfileE3E,
			Chain: "prerelease/001-button", Compression: 2, Run: "builtin", Replay: replay},
		{Bundle: "notes/old.md", AFile: "notes/old.md", BFile: "notes/new.md",
			A: "## Notes\n\nOne. Two.", B: "## Notes\n\nOne. Three.", Profile: mdtext.ProfileHead,
			Warnings: []string{"notes/compact-history.xml is not text (NUL byte at offset 0); must-keep items not measured"}},
	}
	var cs []*Comparison
	for _, in := range inputs {
		in.WithDiffs = withDiffs
		cs = append(cs, Compare(in))
	}
	errs := []BundleError{{Bundle: "prerelease/002-empty/compression-001", Error: "no replay (nothing under replays/): run `compact replay` on it first"}}
	return NewReport(cs, errs, []string{MeasureLostPaths, MeasureLeak})
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", name, d)
	}
}

func TestGoldenText(t *testing.T) {
	var buf bytes.Buffer
	if err := goldenReport(true).WriteText(&buf, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "\x1b[") {
		t.Error("colour codes without Color")
	}
	checkGolden(t, "report.txt", buf.Bytes())
}

func TestGoldenTextStatColour(t *testing.T) {
	var buf bytes.Buffer
	if err := goldenReport(false).WriteText(&buf, TextOptions{Color: true, Stat: true, Worst: 10}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report-stat-color.txt", buf.Bytes())
}

func TestGoldenStatMarkdownAndJSON(t *testing.T) {
	var md, js bytes.Buffer
	r := goldenReport(false)
	if err := r.WriteMarkdown(&md, TextOptions{Stat: true, Worst: 2}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report-stat.md", md.Bytes())
	if err := r.WriteStatJSON(&js, 2); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report-stat.json", js.Bytes())
	var doc struct {
		Comparisons []any `json:"comparisons"`
		Stat        StatInfo
		Summary     struct{ Rows []Row }
		Chains      []Chain
		Failed      []Failure
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Comparisons != nil || len(doc.Summary.Rows) != 2 || doc.Stat != (StatInfo{Worst: 2, Rows: 3, Chains: 1}) ||
		len(doc.Chains) != 1 || len(doc.Failed) != 2 {
		t.Errorf("--stat JSON: %+v", doc)
	}
}

// TestSummaryOfManyIsShort builds a report of 300 comparisons over 60
// chains and checks that the summary stays a screenful: totals, medians,
// the worst rows and chains, and no line per bundle.
func TestSummaryOfManyIsShort(t *testing.T) {
	model := "builtin"
	var cs []*Comparison
	for chat := 0; chat < 60; chat++ {
		chain := fmt.Sprintf("x/prerelease/%03d-chat", chat)
		for n := 1; n <= 5; n++ {
			a := strings.Repeat("## Work\n\nYou changed [](path:w1/a.ts). ", n)
			b := a + strings.Repeat("More words here. ", chat*n)
			dir := fmt.Sprintf("%s/compression-%03d", chain, n)
			cs = append(cs, Compare(Input{Bundle: dir, A: a, B: b, Chain: chain, Compression: n, Run: "builtin",
				History: "<assistant>[read: w1/a.ts]</assistant>", HasHistory: true,
				Replay: &bundle.ReplayInfo{Run: "builtin", Model: &model, Newest: true}}))
		}
	}
	r := NewReport(cs, nil, nil)
	var buf bytes.Buffer
	if err := r.WriteText(&buf, TextOptions{Stat: true, Worst: 10}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 55 {
		t.Errorf("%d lines for 300 comparisons:\n%s", len(lines), out)
	}
	for _, want := range []string{
		"300 bundles compared under x/prerelease; B from run builtin, the newest with an answer\n",
		"A is the app's briefing (actual-output.md), B the replay's (replays/<run>/output.md)\n",
		"chars, total", "chars, median", "must-keep kept", "similarity        median ROUGE-L F1",
		"worst 10 of 300", "60 chains of 5 briefings; last briefing median A 195, B 2.7k; largest A 195, B 5.2k\n",
		"chains by B's size against A's, largest first (10 of 60); sizes in compression order:\n  059-chat  A    39    78   117   156   195\n            B  1.0k  2.1k  3.1k  4.2k  5.2k\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "== ") || strings.Contains(out, "000-chat") {
		t.Errorf("summary has per-bundle blocks or the best chain:\n%s", out)
	}
}

func TestKSizeAndChainCells(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1.0k", 2059: "2.1k", 9949: "9.9k", 9950: "10k", 17999: "18k", 999499: "999k", 999500: "1.0M", 1234567: "1.2M"} {
		if got := KSize(n); got != want {
			t.Errorf("KSize(%d) = %q, want %q", n, got, want)
		}
	}
	if d := cmp.Diff([]string{"1", "2", "…", "6", "7", "8", "9", "10"}, chainCells([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})); d != "" {
		t.Errorf("long chain (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"1", "2", "3"}, chainCells([]int{1, 2, 3})); d != "" {
		t.Errorf("short chain (-want +got):\n%s", d)
	}
}

func TestGoldenJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := goldenReport(true).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report.json", buf.Bytes())
}

// TestGoldenMarkdown is one comparison in markdown, for an issue: its
// measures, lost items and diffs.
func TestGoldenMarkdown(t *testing.T) {
	var buf bytes.Buffer
	full := goldenReport(true)
	one := NewReport(full.Comparisons[1:2], nil, full.FailOn)
	if err := one.WriteMarkdown(&buf, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report.md", buf.Bytes())
}

// TestJSONShapeStartsAsTheIssueFixes checks the keys the issue fixes, in
// order, and the kinds of lost items.
func TestJSONShapeStartsAsTheIssueFixes(t *testing.T) {
	var buf bytes.Buffer
	if err := goldenReport(true).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var top struct {
		Comparisons []json.RawMessage `json:"comparisons"`
	}
	if err := json.Unmarshal(buf.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	keys := jsonKeys(t, top.Comparisons[0])
	if d := cmp.Diff([]string{"bundle", "a", "b", "similarity"}, keys[:4]); d != "" {
		t.Errorf("comparison keys (-want +got):\n%s", d)
	}
	var c struct {
		A json.RawMessage `json:"a"`
	}
	if err := json.Unmarshal(top.Comparisons[0], &c); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"file", "chars", "kept", "lost", "leaks", "rules"}, jsonKeys(t, c.A)[:6]); d != "" {
		t.Errorf("side keys (-want +got):\n%s", d)
	}
}

func jsonKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestGoldenMeasuresAreTheObviousOnes(t *testing.T) {
	r := goldenReport(false)
	c1, c2 := r.Comparisons[0], r.Comparisons[1]
	lost := func(s Side) []string {
		var out []string
		for _, it := range s.Lost {
			out = append(out, string(it.Kind)+" "+it.Value)
		}
		return out
	}
	// A forgot the user's "don't commit" and the design link; B kept both.
	if d := cmp.Diff([]string{"link https://example.com/design", "decision Don't commit, I'll do it myself."}, lost(c1.A)); d != "" {
		t.Errorf("c1 lost by A (-want +got):\n%s", d)
	}
	if len(c1.B.Lost) != 0 {
		t.Errorf("c1 lost by B: %v", lost(c1.B))
	}
	// A has a title, a preamble and a bullet; B a plain path.
	rules := func(s Side) []string {
		var out []string
		for _, v := range s.Rules {
			out = append(out, v.Rule)
		}
		return out
	}
	if d := cmp.Diff([]string{mdtext.RuleBullet, mdtext.RuleHeadingLevel, mdtext.RulePreamble}, rules(c1.A)); d != "" {
		t.Errorf("c1 A rules (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{mdtext.RulePathNotLinked}, rules(c1.B)); d != "" {
		t.Errorf("c1 B rules (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{}, c1.Worse); d != "" {
		t.Errorf("c1 worse (-want +got):\n%s", d)
	}
	// B of the second bundle dropped the old section and the path, leaked
	// the tag, shrank and wrote three working-state sentences.
	if d := cmp.Diff([]string{MeasureLostPaths, MeasureLeak, MeasureRules, MeasureShrink}, c2.Worse); d != "" {
		t.Errorf("c2 worse (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"previous-chat-history"}, c2.B.Leaks); d != "" {
		t.Errorf("c2 B leaks (-want +got):\n%s", d)
	}
	if c2.A.Shrink != 0 || c2.B.Shrink == 0 || *c2.A.Growth <= 0 {
		t.Errorf("c2 growth A %d shrink A %d B %d", *c2.A.Growth, c2.A.Shrink, c2.B.Shrink)
	}
	if d := cmp.Diff([]Failure{
		{Bundle: c2.Bundle, Measure: MeasureLostPaths, A: 0, B: 1},
		{Bundle: c2.Bundle, Measure: MeasureLeak, A: 0, B: 1},
	}, r.Failed); d != "" {
		t.Errorf("failed (-want +got):\n%s", d)
	}
	// Worst first: the second bundle, then the others.
	if r.Summary.Rows[0].Bundle != c2.Bundle {
		t.Errorf("worst row = %s", r.Summary.Rows[0].Bundle)
	}
	if d := cmp.Diff([]Chain{{Chain: "prerelease/001-button", Bundles: []string{c1.Bundle, c2.Bundle}, Compressions: []int{1, 2},
		A: []int{c1.A.Chars, c2.A.Chars}, B: []int{c1.B.Chars, c2.B.Chars}}}, r.Chains); d != "" {
		t.Errorf("chains (-want +got):\n%s", d)
	}
}

func TestMedians(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("odd median = %v", m)
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("even median = %v", m)
	}
	if m := median(nil); m != 0 {
		t.Errorf("empty median = %v", m)
	}
}

// TestWriteJSONStreamsWhatTheEncoderWrites checks the streaming writer
// against encoding/json on whole reports, with HTML characters left alone.
func TestWriteJSONStreamsWhatTheEncoderWrites(t *testing.T) {
	full := goldenReport(true)
	full.Errors = append(full.Errors, BundleError{Bundle: "a&b", Error: "<previous-chat-history> & more"})
	for _, r := range []*Report{full, NewReport(nil, nil, nil), NewReport(nil, []BundleError{{Bundle: "x", Error: "y"}}, []string{MeasureRules})} {
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.String(), got.String()); d != "" {
			t.Errorf("WriteJSON (-encoder +streamed):\n%s", d)
		}
	}
}
