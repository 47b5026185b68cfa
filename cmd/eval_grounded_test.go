package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/testfiles"
)

const realSessions = "../testdata/agents/claude-code/entire"

// realSessionFiles writes the real Claude Code sessions of testdata (from
// the public entireio/cli corpus) into a directory, each through edit.
func realSessionFiles(t *testing.T, edit func([]byte) []byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sessions")
	ents, err := os.ReadDir(realSessions)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data := edit(testfiles.Gunzip(t, filepath.Join(realSessions, e.Name())))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, strings.TrimSuffix(e.Name(), ".gz")), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestValidateOnRealSessions: on real Claude Code compactions, the
// grounded headline orders the validity ladder as its degradation does
// (concordance >= 0.9) and a dump of a history well over the target never
// scores at or above the briefing the agent wrote; coverage, which rewards
// copying, is beaten by the dump. Printed by compact eval --validate.
func TestValidateOnRealSessions(t *testing.T) {
	t.Parallel() // heavy and independent: overlaps the others at the end of the package's run
	sessions := realSessionFiles(t, func(b []byte) []byte { return b })
	out := filepath.Join(t.TempDir(), "bundles")
	if code, _, errOut := runIn(t, nil, "extract", "--from", "claude-code", sessions, "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	// One of these histories (103 KB) is well over the 30,000 target.
	code, js, errOut := runIn(t, nil, "eval", "--validate", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep eval.ValidityReport
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	g, c := rep.Measures[0], rep.Measures[1]
	if rep.Bundles < 8 || rep.Measurable < rep.Bundles-1 || g.Measure != eval.MeasureGrounded || g.Pairs < 70 {
		t.Fatalf("ladder: %d bundles, %d measurable, %+v", rep.Bundles, rep.Measurable, g)
	}
	if g.Concordance < eval.ValidConcordance || g.DumpChecked == 0 || g.DumpAtOrAbove != 0 {
		t.Errorf("grounded: %+v", g)
	}
	if c.DumpAtOrAbove == 0 {
		t.Errorf("coverage is never beaten by a dump (it rewards copying): %+v", c)
	}
	// Over a target the recorded briefings pass, the ladder no longer
	// holds (dropping sentences shrinks a briefing the charge lowered):
	// the check says so and exits 1. Two bundles are enough to show it.
	two := filepath.Join(t.TempDir(), "two")
	for _, b := range rep.Ladders[:2] {
		rel, _ := filepath.Rel(out, b.Bundle)
		copyTree(t, b.Bundle, filepath.Join(two, rel))
	}
	if code, text, errOut := runIn(t, nil, "eval", "--validate", "--target", "4000", two); code != 1 || !strings.Contains(errOut, "concordance") || !strings.Contains(text, "measurable by the grounded score") {
		t.Errorf("--target 4000: exit %d, %s", code, errOut)
	}
}

// redactSession replaces every text of a Claude Code session (messages,
// tool inputs and results) with a placeholder of its length, as some
// exports do, keeping the records' structure.
func redactSession(data []byte) []byte {
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			out = append(out, line)
			continue
		}
		for _, k := range []string{"message", "toolUseResult", "content"} {
			if v, ok := rec[k]; ok {
				rec[k] = placeholderOf(v, "")
			}
		}
		b, _ := json.Marshal(rec)
		out = append(out, string(b))
	}
	return []byte(strings.Join(out, "\n"))
}

func placeholderOf(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		if key == "input" { // a tool's arguments: one text, as a JSON string would be
			return "[REDACTED]"
		}
		for k := range x {
			x[k] = placeholderOf(x[k], k)
		}
	case string:
		switch key {
		case "role", "type", "id", "name", "tool_use_id", "model", "stop_reason":
			return x
		}
		return fmt.Sprintf("[REDACTED %d chars]", len(x))
	case []any:
		for i := range x {
			x[i] = placeholderOf(x[i], key)
		}
	}
	return v
}

// TestRedactedHistoryNotMeasurable: a history whose every text is a
// placeholder gives no grounded probe: not measurable (n/a), never 1.000,
// whatever the briefing.
func TestRedactedHistoryNotMeasurable(t *testing.T) {
	t.Parallel() // heavy and independent: overlaps the others at the end of the package's run
	sessions := realSessionFiles(t, redactSession)
	out := filepath.Join(t.TempDir(), "bundles")
	if code, _, errOut := runIn(t, nil, "extract", "--from", "claude-code", sessions, "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", out); code != 0 {
		t.Fatal(errOut)
	}
	code, js, errOut := runIn(t, nil, "eval", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Bundles < 8 {
		t.Fatalf("%d bundles", rep.Bundles)
	}
	for _, r := range rep.Results {
		if r.NotMeasurable == "" || len(r.Grounded) != 0 {
			t.Errorf("%s: measurable, %d grounded probes", r.Bundle, len(r.Grounded))
		}
	}
	for _, s := range rep.Sides {
		if s.Overall != nil || s.Measurable != 0 {
			t.Errorf("%s: headline %v over %d bundles, want n/a", s.Name, *s.Overall, s.Measurable)
		}
	}
	_, text, _ := runIn(t, nil, "eval", out)
	if !strings.Contains(text, "0 of ") || !strings.Contains(text, "n/a") || strings.Contains(text, "  1.000  ") {
		t.Errorf("text:\n%s", text)
	}
}

// TestEvalCalibrate: a grades file over the sample's bundles gives each
// measure's tau and kappa; a bundle it names that does not exist is named,
// a file with nothing found exits 2, a bad line is one clear error.
func TestEvalCalibrate(t *testing.T) {
	t.Parallel() // heavy and independent: overlaps the others at the end of the package's run
	root := t.TempDir()
	out := filepath.Join(root, "bundles")
	if code, _, errOut := runIn(t, nil, "extract", "--db", sampleDB, "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", out); code != 0 {
		t.Fatal(errOut)
	}
	dirs, err := readFinder.Find([]string{out})
	if err != nil || len(dirs) < 4 {
		t.Fatalf("%d bundles, %v", len(dirs), err)
	}
	var csv strings.Builder
	csv.WriteString("bundle,briefing,grade\n")
	for i, d := range dirs {
		rel, _ := filepath.Rel(out, d)
		fmt.Fprintf(&csv, "%s,actual,%d\n%s,builtin,%d\n", rel, 3+i%4, rel, 5+i%3)
	}
	csv.WriteString("no/such/bundle,actual,4\n")
	grades := filepath.Join(root, "grades.csv")
	if err := os.WriteFile(grades, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, text, errOut := runIn(t, nil, "eval", "--calibrate", grades, out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Kendall tau-b", "Cohen kappa", "grounded", "coverage", "judged", "not found: line " + fmt.Sprint(2+2*len(dirs)) + ": no/such/bundle (actual)"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	code, js, _ := runIn(t, nil, "eval", "--calibrate", grades, "--json", out)
	var rep eval.CalibrationReport
	if code != 0 || json.Unmarshal([]byte(js), &rep) != nil || rep.Matched != 2*len(dirs) || rep.Measures[0].N == 0 {
		t.Errorf("json: exit %d, %+v", code, rep)
	}
	// Bad input: one line naming the file and line; nothing found: exit 2.
	bad := filepath.Join(root, "bad.csv")
	os.WriteFile(bad, []byte("bundle,briefing,grade\nx,actual,great\n"), 0o644)
	if code, _, errOut := runIn(t, nil, "eval", "--calibrate", bad, out); code != 2 || !strings.Contains(errOut, bad+": line 2: grade \"great\" is not a number") {
		t.Errorf("bad grade: exit %d, %s", code, errOut)
	}
	none := filepath.Join(root, "none.csv")
	os.WriteFile(none, []byte("bundle,briefing,grade\nnowhere,actual,3\n"), 0o644)
	if code, _, errOut := runIn(t, nil, "eval", "--calibrate", none, out); code != 2 || !strings.Contains(errOut, "no graded briefing found") {
		t.Errorf("nothing found: exit %d, %s", code, errOut)
	}
}
