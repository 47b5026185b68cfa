package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evalSample extracts the shipped sample database and replays it with the
// built-in model, in-process; it returns the channel directory.
func evalSample(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "sample")
	db := filepath.Join("..", "examples", "stagewise", "instances.sqlite")
	if code, _, errOut := diffRun(t, nil, "extract", "--db", db, "--out", out); code != 0 {
		t.Fatalf("extract: exit %d: %s", code, errOut)
	}
	if code, _, errOut := diffRun(t, nil, "replay", out, "--model", "builtin"); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	return out
}

// evalJSON is the part of `compact eval --json` the tests read.
type evalJSON struct {
	Bundles  int `json:"bundles"`
	Baseline string
	Sides    []struct {
		Name    string
		Overall float64
		Lost    int
	}
	Results []struct {
		Bundle string
		Probes []struct {
			ID       string
			Kind     string
			Expected []string
		}
		Briefings []struct {
			Name string
			Lost []int
		}
	}
	Failed []struct{ Gate, Side string }
}

func TestEvalSampleIsDeterministicAndLosesExactlyTheDroppedPath(t *testing.T) {
	root := evalSample(t)
	code, first, errOut := diffRun(t, nil, "eval", root, "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	_, second, _ := diffRun(t, nil, "eval", root, "--json", "-j", "1")
	if first != second {
		t.Fatalf("two runs of eval differ")
	}
	var rep evalJSON
	if err := json.Unmarshal([]byte(first), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Bundles != 7 || rep.Baseline != "actual" || len(rep.Sides) != 2 {
		t.Fatalf("report: %d bundles, baseline %q, sides %+v", rep.Bundles, rep.Baseline, rep.Sides)
	}

	// A copy of the built-in run's output without one file's links loses
	// that artifact probe and nothing else.
	bundle := filepath.Join(root, "001-paginate-the-recipe-list-server-side", "compression-001")
	const dropped = "w1a2/server/lib/cursor.test.ts"
	out, err := os.ReadFile(filepath.Join(bundle, "replays", "builtin", "output.md"))
	if err != nil {
		t.Fatal(err)
	}
	cut := strings.ReplaceAll(string(out), "[](path:"+dropped+")", "the test file")
	if cut == string(out) {
		t.Fatalf("the built-in briefing does not name %s", dropped)
	}
	diffReplay(t, bundle, "dropped", cut, "2026-07-01T10:00:00Z")
	code, js, errOut := diffRun(t, nil, "eval", bundle, "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	rep = evalJSON{}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	res := rep.Results[0]
	lost := map[string]map[int]bool{}
	for _, b := range res.Briefings {
		lost[b.Name] = map[int]bool{}
		for _, i := range b.Lost {
			lost[b.Name][i] = true
		}
	}
	var extra []string
	for i := range lost["dropped"] {
		if !lost["builtin"][i] {
			extra = append(extra, res.Probes[i].ID+" "+res.Probes[i].Expected[0])
		}
	}
	if len(extra) != 1 || extra[0] != "artifact-5 "+dropped {
		t.Errorf("dropped %s: lost beyond builtin %q, want exactly its artifact probe", dropped, extra)
	}
	if len(lost["dropped"]) != len(lost["builtin"])+1 {
		t.Errorf("dropped lost %d probes, builtin %d", len(lost["dropped"]), len(lost["builtin"]))
	}

	// Gates: the dropped run lost coverage, but not the headline: the
	// agent did not need that file after this compaction.
	code, text, errOut := diffRun(t, nil, "eval", bundle, "--baseline", "builtin", "--run", "builtin,dropped", "--fail-on", "regressed>0,artifact<0.97,artifact<0.5")
	if code != 1 || strings.Contains(errOut, "regressed>0 for") || !strings.Contains(errOut, "artifact<0.97 for dropped") || strings.Contains(errOut, "artifact<0.5 for") {
		t.Errorf("gate: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(text, "dropped lost what builtin kept: artifact "+dropped) {
		t.Errorf("text report does not name the lost probe:\n%s", text)
	}
	// After the next compaction the agent went back to that file: there,
	// dropping it regresses the headline.
	next := filepath.Join(root, "001-paginate-the-recipe-list-server-side", "compression-002")
	out, err = os.ReadFile(filepath.Join(next, "replays", "builtin", "output.md"))
	if err != nil {
		t.Fatal(err)
	}
	cut = strings.ReplaceAll(string(out), dropped, "the test file")
	diffReplay(t, next, "dropped", cut, "2026-07-01T10:00:00Z")
	code, text, errOut = diffRun(t, nil, "eval", next, "--baseline", "builtin", "--run", "builtin,dropped", "--fail-on", "regressed>0")
	if code != 1 || !strings.Contains(errOut, "regressed>0 for dropped") || !strings.Contains(text, "dropped lost what builtin kept: file-used "+dropped) {
		t.Errorf("grounded gate: exit %d\n%s\n%s", code, errOut, text)
	}
}

func TestEvalUsageAndNothingToEvaluate(t *testing.T) {
	empty := t.TempDir()
	onlyHistory := filepath.Join(t.TempDir(), "b")
	diffWrite(t, filepath.Join(onlyHistory, "compact-history.xml"), "<user>Fix [](path:w1/a.ts).</user>")
	noProbes := filepath.Join(t.TempDir(), "b")
	diffWrite(t, filepath.Join(noProbes, "compact-history.xml"), "<assistant>ok</assistant>")
	diffWrite(t, filepath.Join(noProbes, "actual-output.md"), "## A\n\nok.")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no bundles", []string{"eval", empty}, 2, "compact eval: no bundles under " + empty + "; run `compact extract` first"},
		{"bad gate", []string{"eval", onlyHistory, "--fail-on", "paths<1"}, 2, `compact eval: --fail-on: unknown measure "paths"`},
		{"bad format", []string{"eval", onlyHistory, "--format", "html"}, 2, "unknown format"},
		{"nothing to score", []string{"eval", onlyHistory}, 2, "nothing to score in 1 bundle: no actual-output.md and no replay with an answer; make one with `compact replay --model builtin`"},
		{"unknown run", []string{"eval", onlyHistory, "--run", "nope"}, 2, `no replay run "nope" with an answer in 1 bundle; runs found: none`},
		{"no probes", []string{"eval", noProbes}, 2, "no probes in 1 bundle"},
		{"unknown baseline", []string{"eval", noProbes, "--baseline", "gpt"}, 2, "--baseline gpt: no such briefing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := diffRun(t, nil, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, errOut, tt.code, tt.msg)
			}
			if out != "" {
				t.Errorf("stdout: %q", out)
			}
		})
	}
}
