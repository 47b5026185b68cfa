package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// probeKey is what a test says about a probe: kind and first expected
// answer.
func probeKey(p Probe) string { return string(p.Kind) + " " + p.Expected[0] }

func TestMineFindsEachKind(t *testing.T) {
	tests := []struct {
		name    string
		history string
		want    []string // probeKey of probes that must be mined
		not     []string // probeKey of probes that must not
	}{
		{
			name: "files by action, strongest wins, mount prefix relative",
			history: "<user>[mentioned: w1/src/a.ts]\nLook at a.ts.</user>\n" +
				"<assistant>[read: w1/src/a.ts]\n[read: w1/src/b.ts]\n[edited: w1/src/a.ts (2 edits)]\n[created: w1/src/new.ts]\n[deleted: w1/old.js]\n[moved: w1/x.svg → w1/icons/x.svg]\nDone.</assistant>",
			want: []string{"artifact w1/src/a.ts", "artifact w1/src/b.ts", "artifact w1/src/new.ts", "artifact w1/old.js",
				"artifact w1/x.svg", "artifact w1/icons/x.svg"},
		},
		{
			name:    "a failed command fixed later, and one never fixed",
			history: "<user>Run the tests.</user>\n<assistant>[shell: Run the unit tests → exit 1]\n[edited: w1/a.ts (1 edits)]\n[shell: Run the unit tests → ✓]\n[shell: Production build → timed out]\nOK.</assistant>",
			want:    []string{"recall Run the unit tests: failed with exit 1, fixed later", "recall Production build: timed out, not fixed"},
		},
		{
			name:    "error identifiers from prose and error markers",
			history: "<user>It fails with TS2345 in the page.</user>\n<assistant>[wrote: w1/a.ts ✗ EACCES: permission denied]\nA TypeError too.</assistant>",
			want:    []string{"recall TS2345", "recall EACCES", "recall TypeError", "recall w1/a.ts: failed with an error, not fixed"},
		},
		{
			name:    "numbers and identifiers the user gave, not those of paths",
			history: "<user>The page loads 2,400 rows in 4 s. Use `rb-theme` as the key and #0f766e for the border. See w1/src/v2/page10.ts.</user>",
			want:    []string{"recall 2,400", "recall 4 s", "recall rb-theme", "recall #0f766e"},
			not:     []string{"recall 10", "recall 2"},
		},
		{
			name:    "decisions and form answers",
			history: "<user>Use a cursor on (created_at, id), not offsets. Is it fast?</user>\n<assistant>[asked user: Details → Default theme: system; Remember?: true]\nOK.</assistant>",
			want:    []string{"decision Use a cursor on (created_at, id), not offsets.", "decision system"},
			not:     []string{"decision Is it fast?", "decision true"},
		},
		{
			name:    "the last request and a question left open",
			history: "<user>Add pagination.</user>\n<assistant>Done.</assistant>\n<user>[attached: shot.png]\nNow the [/review](slash:command:review) of the client please.</user>\n<assistant>[read: w1/c.ts]\nShall I also add tests for the client?</assistant>",
			want:    []string{"continuation Now the /review of the client please.", "continuation Shall I also add tests for the client?", "recall shot.png"},
			not:     []string{"continuation Add pagination."},
		},
		{
			name: "the previous briefing counts as history",
			history: "<previous-chat-history>## Work\n\nYou changed [](path:w1/src/a.ts) after TS2322. The user required a cursor instead of offsets. Do not reintroduce CSS filters.\n\n## Current working state\n\nYou must wait for the user.</previous-chat-history>\n" +
				"<user>Go on.</user>",
			want: []string{"artifact w1/src/a.ts", "recall TS2322", "decision The user required a cursor instead of offsets.", "decision Do not reintroduce CSS filters."},
			not:  []string{"decision You must wait for the user."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probes := Mine(tt.history, Options{})
			got := map[string]Probe{}
			for _, p := range probes {
				got[probeKey(p)] = p
			}
			for _, w := range tt.want {
				if _, ok := got[w]; !ok {
					t.Errorf("no probe %q; got:\n%s", w, keys(probes))
				}
			}
			for _, w := range tt.not {
				if _, ok := got[w]; ok {
					t.Errorf("unexpected probe %q", w)
				}
			}
		})
	}
}

func keys(ps []Probe) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + probeKey(p) + " | " + p.Question + "\n")
	}
	return b.String()
}

func TestMineKeepsSourcesAndIDs(t *testing.T) {
	h := "<previous-chat-history>## A\n\nYou read [](path:w1/p.ts).</previous-chat-history>\n<user>Fix w1/a.ts.</user>\n<assistant>[edited: w1/a.ts (1 edits)]\nDone.</assistant>"
	ps := Mine(h, Options{})
	var a, prev *Probe
	for i := range ps {
		switch ps[i].Expected[0] {
		case "w1/a.ts":
			a = &ps[i]
		case "w1/p.ts":
			prev = &ps[i]
		}
	}
	if a == nil || prev == nil {
		t.Fatalf("probes:\n%s", keys(ps))
	}
	if a.Source != (Source{Message: 1, From: "assistant"}) || a.Question != "Which files did you change?" {
		t.Errorf("w1/a.ts: %+v", *a)
	}
	if prev.Source != (Source{Message: -1, From: "previous"}) {
		t.Errorf("w1/p.ts: %+v", *prev)
	}
	if len(a.Expected) != 2 || a.Expected[1] != "a.ts" {
		t.Errorf("expected forms %q, want the mount-prefixed and the workspace-relative path", a.Expected)
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.ID] || !strings.HasPrefix(p.ID, string(p.Kind)+"-") {
			t.Errorf("bad or repeated id %q", p.ID)
		}
		seen[p.ID] = true
	}
}

func TestCheckFindsAnswersWrittenAnotherWay(t *testing.T) {
	history := "<user>Use a cursor on (created_at, id), not offsets. The page loads 2,400 rows.</user>\n" +
		"<assistant>[created: w1a2/server/lib/cursor.ts]\n[shell: Run the cursor tests → exit 1]\n[shell: Run the cursor tests → ✓]\nDone. TS2345 is gone.</assistant>"
	probes := Mine(history, Options{})
	find := func(key string) *Probe {
		for i := range probes {
			if probeKey(probes[i]) == key {
				return &probes[i]
			}
		}
		t.Fatalf("no probe %q in\n%s", key, keys(probes))
		return nil
	}
	cursor := find("artifact w1a2/server/lib/cursor.ts")
	decision := find("decision Use a cursor on (created_at, id), not offsets.")
	number := find("recall 2,400")
	code := find("recall TS2345")
	failure := find("recall Run the cursor tests: failed with exit 1, fixed later")
	tests := []struct {
		name     string
		briefing string
		probe    *Probe
		want     bool
		how      string
	}{
		{"path as link", "You created [](path:w1a2/server/lib/cursor.ts).", cursor, true, HowExact},
		{"path workspace-relative", "You created `server/lib/cursor.ts`.", cursor, true, HowPath},
		{"path absolute", "You created /home/me/app/server/lib/cursor.ts.", cursor, true, HowPath},
		{"path link percent-encoded", "See [](path:w1a2/server/lib/cursor.ts).", cursor, true, HowExact},
		{"path basename only", "You created cursor.ts.", cursor, false, ""},
		{"path of another file", "You created [](path:w1a2/server/lib/cursor.test.ts).", cursor, false, ""},
		{"decision paraphrased", "The user wants a cursor on created_at and id, not offsets.", decision, true, HowWords},
		{"decision without its negation", "The user wants a cursor on created_at and id offsets.", decision, false, ""},
		{"number exact", "It loaded 2,400 rows.", number, true, HowExact},
		{"number without the comma", "It loaded 2400 rows.", number, true, HowExact},
		{"number inside another", "It loaded 12,400 rows.", number, false, ""},
		{"identifier normalized", "The type error (ts2345) is fixed.", code, true, HowNormalized},
		{"failure and its fix", "The cursor tests failed with exit code 1. After the fix they pass.", failure, true, HowWords},
		{"failure without the fix", "The cursor tests failed with exit code 1.", failure, false, HowWords},
		{"fix without the failure", "The cursor tests pass.", failure, false, HowWords},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, how := NewBriefing(tt.briefing).Check(tt.probe)
			if ok != tt.want || (ok && how != tt.how) {
				t.Errorf("Check = %v, %q; want %v, %q", ok, how, tt.want, tt.how)
			}
		})
	}
}

func TestParseGate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
		err  bool
	}{
		{"artifact<0.9", "artifact<0.9", false},
		{" regressed > 0 ", "regressed>0", false},
		{"overall>=.5", "overall>=0.5", false},
		{"lost==3", "lost=3", false},
		{"paths<0.9", "", true},
		{"artifact", "", true},
		{"artifact<x", "", true},
	} {
		g, err := ParseGate(tt.in)
		if (err != nil) != tt.err || (err == nil && g.String() != tt.want) {
			t.Errorf("ParseGate(%q) = %v, %v; want %q (error %v)", tt.in, g, err, tt.want, tt.err)
		}
	}
}

// writeBundle writes a bundle with a history, an actual briefing and
// replays (run → output).
func writeBundle(t *testing.T, dir, history, actual string, runs map[string]string) {
	t.Helper()
	files := map[string]string{"compact-history.xml": history, "actual-output.md": actual}
	for run, out := range runs {
		files[filepath.Join("replays", run, "output.md")] = out
		files[filepath.Join("replays", run, "replay.json")] = `{"model": "builtin", "startedAt": "2026-07-01T10:00:00Z"}`
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReportComparesRunsAndGates(t *testing.T) {
	root := t.TempDir()
	history := "<user>Fix the header.</user>\n<assistant>[edited: w1/src/Header.tsx (1 edits)]\n[edited: w1/src/Footer.tsx (1 edits)]\nDone.</assistant>"
	full := "## Header\n\nYou changed [](path:w1/src/Header.tsx) and [](path:w1/src/Footer.tsx) to fix the header.\n"
	half := "## Header\n\nYou changed [](path:w1/src/Header.tsx) to fix the header.\n"
	var dirs []string
	for i, name := range []string{"b1", "b2", "b3"} {
		d := filepath.Join(root, name)
		good := map[string]string{"good": full, "bad": half}
		if i == 2 {
			good["bad"] = full
		}
		writeBundle(t, d, history, full, good)
		// What the agent did next: back to both files.
		writeFile(t, filepath.Join(d, "continuation.xml"), "<assistant>[read: w1/src/Header.tsx]\n[edited: w1/src/Footer.tsx (1 edits)]</assistant>")
		dirs = append(dirs, d)
	}
	// A bundle without a continuation is not measurable by the headline:
	// left out of it, of regressed and of the pair, never 1.000.
	old := filepath.Join(root, "b4")
	writeBundle(t, old, history, full, map[string]string{"good": full, "bad": ""})
	dirs = append(dirs, old)
	results, errs := Evaluate(dirs, EvalOptions{}, 2)
	if len(errs) != 0 || len(results) != 4 || results[3].NotMeasurable != NotMeasurableNoContinuation {
		t.Fatalf("results %d, errors %v", len(results), errs)
	}
	if len(results[0].Grounded) != 2 {
		t.Fatalf("grounded probes %+v", results[0].Grounded)
	}
	results = results[:3]
	if len(errs) != 0 || len(results) != 3 {
		t.Fatalf("results %d, errors %v", len(results), errs)
	}
	gates := []Gate{{Measure: "artifact", Op: "<", Value: 0.9}, {Measure: "regressed", Op: ">", Value: 0}}
	rep := NewReport(results, errs, ReportOptions{Gates: gates})
	if rep.Baseline != Actual || len(rep.Sides) != 3 {
		t.Fatalf("baseline %q, sides %+v", rep.Baseline, rep.Sides)
	}
	var bad SideSummary
	for _, s := range rep.Sides {
		if s.Name == "bad" {
			bad = s
		}
	}
	if bad.Regressed != 2 || bad.Lost != 2 || bad.Measurable != 3 || bad.Overall == nil || math.Abs(*bad.Overall-2.0/3) > 1e-9 {
		t.Errorf("bad: %+v", bad)
	}
	var p Pair
	for _, x := range rep.Pairs {
		if x.A == Actual && x.B == "bad" {
			p = x
		}
	}
	if p.N != 3 || p.Losses != 2 || p.Ties != 1 || p.CIHigh > 0 || p.CILow > p.Diff || p.Coverage.N != 3 || p.Coverage.Losses != 2 {
		t.Errorf("pair: %+v", p)
	}
	if len(rep.Failed) != 2 || rep.Failed[0].Side != "bad" || rep.Failed[1].Side != "bad" {
		t.Errorf("failed: %+v", rep.Failed)
	}
	if rep.Rows[0].Bundle == dirs[2] {
		t.Errorf("worst first: %v", rep.Rows[0].Bundle)
	}
	// The same input gives the same report, byte for byte.
	var a, b bytes.Buffer
	if err := rep.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	results2, _ := Evaluate(dirs[:3], EvalOptions{}, 1)
	if err := NewReport(results2, nil, ReportOptions{Gates: gates}).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("two runs differ")
	}
	var js map[string]any
	if err := json.Unmarshal(a.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	var text, md bytes.Buffer
	if err := rep.WriteText(&text, TextOptions{Worst: 10, Root: root}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "bad lost what actual kept: file-used w1/src/Footer.tsx; artifact w1/src/Footer.tsx") || !strings.Contains(text.String(), "bad vs actual: bad and actual not told apart") {
		t.Errorf("text report:\n%s", text.String())
	}
	if err := rep.WriteMarkdown(&md, TextOptions{Worst: 10, Root: root}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| briefing |") {
		t.Errorf("markdown report:\n%s", md.String())
	}
}

func TestBootstrapIsDeterministic(t *testing.T) {
	d := []float64{0.1, -0.2, 0.05, 0, 0.3, -0.1}
	lo1, hi1 := bootstrap(d, 2000, 1)
	lo2, hi2 := bootstrap(d, 2000, 1)
	if lo1 != lo2 || hi1 != hi2 || lo1 > hi1 {
		t.Errorf("bootstrap: [%v, %v] then [%v, %v]", lo1, hi1, lo2, hi2)
	}
	if lo, hi := bootstrap([]float64{0.25}, 100, 1); lo != 0.25 || hi != 0.25 {
		t.Errorf("one bundle: [%v, %v]", lo, hi)
	}
}

// TestGateCandidates: gates check the candidates named, else every side but
// the baseline and the app's own briefing; one side alone is checked.
func TestGateCandidates(t *testing.T) {
	for _, c := range []struct {
		side, baseline string
		candidates     []string
		sides          int
		want           bool
	}{
		{"terse", "default", []string{"terse"}, 3, true},
		{Actual, "default", []string{"terse"}, 3, false},
		{"default", "default", []string{"terse"}, 3, false},
		{"default", "default", []string{"default"}, 3, false},
		{Actual, "builtin", nil, 3, false},
		{"other", "builtin", nil, 3, true},
		{"builtin", Actual, nil, 2, true},
		{Actual, Actual, nil, 1, true},
	} {
		if got := candidate(c.side, c.baseline, c.candidates, c.sides); got != c.want {
			t.Errorf("candidate(%q, baseline %q, %v, %d sides) = %v, want %v", c.side, c.baseline, c.candidates, c.sides, got, c.want)
		}
	}
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRepeatsSpreadAndKindTests: runs RUN, RUN@2, RUN@3 are the repeats
// of RUN: the report gives the spread of their size and scores; a pair
// is tested probe by probe, per kind (McNemar).
func TestRepeatsSpreadAndKindTests(t *testing.T) {
	root := t.TempDir()
	history := "<user>Fix the header.</user>\n<assistant>[edited: w1/src/Header.tsx (1 edits)]\n[edited: w1/src/Footer.tsx (1 edits)]\nDone.</assistant>"
	both := "You changed [](path:w1/src/Header.tsx) and [](path:w1/src/Footer.tsx)."
	one := "You changed [](path:w1/src/Header.tsx)."
	var dirs []string
	for i := 0; i < 6; i++ {
		d := filepath.Join(root, fmt.Sprintf("b%d", i))
		writeBundle(t, d, history, both, map[string]string{"m": both, "m@2": one, "m@3": both + " More words here."})
		writeFile(t, filepath.Join(d, "continuation.xml"), "<assistant>[read: w1/src/Footer.tsx]</assistant>")
		dirs = append(dirs, d)
	}
	results, errs := Evaluate(dirs, EvalOptions{}, 2)
	rep := NewReport(results, errs, ReportOptions{})
	if len(rep.Repeats) != 1 {
		t.Fatalf("repeats %+v", rep.Repeats)
	}
	rs := rep.Repeats[0]
	if rs.Run != "m" || strings.Join(rs.Runs, ",") != "m,m@2,m@3" || rs.Bundles != 6 || rs.Grounded == nil ||
		rs.Grounded.Min != 0 || rs.Grounded.Max != 1 || rs.Grounded.Median != 1 || rs.Chars.N != 3 || rs.Chars.Min != float64(len(one)) {
		t.Errorf("spread %+v grounded %+v", rs, rs.Grounded)
	}
	var p Pair
	for _, x := range rep.Pairs {
		if x.A == "m" && x.B == "m@2" {
			p = x
		}
	}
	got := map[Kind]KindTest{}
	for _, kt := range p.KindTests {
		got[kt.Kind] = kt
	}
	// Footer.tsx: only m kept it, in all six bundles: grounded and coverage.
	if g := got[KindFileUsed]; g.AOnly != 6 || g.BOnly != 0 || math.Abs(g.P-0.03125) > 1e-12 {
		t.Errorf("file-used test %+v", g)
	}
	if a := got[KindArtifact]; a.AOnly != 6 || a.BOnly != 0 {
		t.Errorf("artifact test %+v", a)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "file-used 0 vs 6 (p 0.031)*") || !strings.Contains(text.String(), "repeated run") {
		t.Errorf("text:\n%s", text.String())
	}
}

// TestEqualSizeComparison: a long briefing that holds more only by being
// longer wins the headline but loses with both cut to the same size, and
// the verdict says both.
func TestEqualSizeComparison(t *testing.T) {
	root := t.TempDir()
	history := "<user>Fix the header.</user>\n<assistant>[edited: w1/src/Header.tsx (1 edits)]\n[edited: w1/src/Footer.tsx (1 edits)]\nDone.</assistant>"
	short := "Next: [](path:w1/src/Footer.tsx)."
	long := strings.Repeat("Some words about the work so far. ", 20) + "Files: [](path:w1/src/Header.tsx) and [](path:w1/src/Footer.tsx)."
	var dirs []string
	for i := 0; i < 5; i++ {
		d := filepath.Join(root, fmt.Sprintf("b%d", i))
		writeBundle(t, d, history, short, map[string]string{"long": long})
		writeFile(t, filepath.Join(d, "continuation.xml"), "<assistant>[read: w1/src/Footer.tsx]\n[read: w1/src/Header.tsx]</assistant>")
		dirs = append(dirs, d)
	}
	results, _ := Evaluate(dirs, EvalOptions{}, 1)
	rep := NewReport(results, nil, ReportOptions{})
	p := rep.Pairs[0]
	if p.A != Actual || p.B != "long" || p.Diff <= 0 || p.EqualSize.N != 5 || p.EqualSize.Diff >= 0 || p.EqualSize.Losses != 5 {
		t.Fatalf("pair %+v", p)
	}
	if !strings.Contains(p.Verdict, "long better than actual but") || !strings.Contains(p.Verdict, "cut to the same size, long holds less") {
		t.Errorf("verdict %q", p.Verdict)
	}
}
