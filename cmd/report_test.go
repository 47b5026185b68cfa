package cmd

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updatePRComment = flag.Bool("update-pr-comment", false, "rewrite cmd/testdata/diff/pr-comment.md")

// reportSample extracts the shipped sample database under dir and
// replays it with the built-in model under two prompt packs, runs
// default-pack and terse-pack, as the README does; it returns the
// channel directory.
func reportSample(t *testing.T, dir string) string {
	t.Helper()
	ch := filepath.Join(dir, "prerelease")
	sample, _ := filepath.Abs("../examples/stagewise/instances.sqlite")
	terse, _ := filepath.Abs("../examples/packs/terse")
	for _, args := range [][]string{
		{"extract", "--db", sample, "--out", ch, "-q"},
		{"replay", "--model", "builtin", "--pack", "default", "--run", "default-pack", ch, "-q"},
		{"replay", "--model", "builtin", "--pack", terse, "--run", "terse-pack", ch, "-q"},
	} {
		if code, _, errOut := runIn(t, nil, args...); code != 0 {
			t.Fatalf("compact %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
	}
	return ch
}

// TestReportWritesOnePage: the sample's report is one file; stdout says
// what it holds in one line, or in JSON with --json.
func TestReportWritesOnePage(t *testing.T) {
	dir := t.TempDir()
	ch := reportSample(t, dir)
	out := filepath.Join(dir, "report.html")
	code, stdout, errOut := runIn(t, nil, "report", ch, "-o", out)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(stdout, out+": 7 bundles, 2 runs, 3 chains; ") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("stdout %q", stdout)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", `id="overview"`, `id="bundles"`, `id="chains"`, "terse-pack", "default-pack"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(string(page), `<details class="bundle"`); n != 7 {
		t.Errorf("%d bundles in the page", n)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".report.html.partial-*"))
	if len(leftovers) > 0 {
		t.Errorf("left behind: %v", leftovers)
	}

	code, stdout, _ = runIn(t, nil, "report", ch, "-o", out, "--json", "--baseline", "default-pack", "--run", "terse-pack,default-pack")
	var res struct {
		File      string   `json:"file"`
		Briefings []string `json:"briefings"`
		Baseline  string   `json:"baseline"`
		Bytes     int64    `json:"bytes"`
		Bundles   int      `json:"bundles"`
		Sections  int      `json:"sections"`
		Errors    []any    `json:"errors"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, stdout)
	}
	st, _ := os.Stat(out)
	if res.File != out || res.Bundles != 7 || res.Sections != 7 || res.Baseline != "default-pack" || res.Bytes != st.Size() ||
		strings.Join(res.Briefings, ",") != "actual,default-pack,terse-pack" || res.Errors == nil {
		t.Errorf("--json: %+v", res)
	}

	// To stdout: the page, and the summary on stderr.
	code, stdout, errOut = runIn(t, nil, "report", ch, "-o", "-", "--run", "terse-pack")
	if code != 0 || !strings.HasPrefix(stdout, "<!DOCTYPE html>") || !strings.HasPrefix(errOut, "compact report: -: 7 bundles, 1 run, ") {
		t.Errorf("exit %d, stderr %q, stdout %.40q", code, errOut, stdout)
	}
}

// TestReportExitStatus: one-line errors; 2 for a usage error or nothing
// to report, 1 when some bundles could not be read (the page shows the
// others).
func TestReportExitStatus(t *testing.T) {
	dir := t.TempDir()
	ch := reportSample(t, dir)
	empty := t.TempDir()
	badSim := filepath.Join(dir, "bad.json")
	diffWrite(t, badSim, `{"comparisons": []}`)
	cfg := filepath.Join(dir, "compact.yaml")
	diffWrite(t, cfg, "extract:\n  out: "+filepath.Join(dir, "nowhere")+"\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no bundles", []string{"report", empty, "-o", filepath.Join(dir, "x.html")}, 2, "compact report: no bundles under " + empty + "; run `compact extract` first, or pass a bundle, chat or channel directory\n"},
		{"no channel output", []string{"report", "--config", cfg, "-o", filepath.Join(dir, "x.html")}, 2, "compact report: no bundles: " + filepath.Join(dir, "nowhere", "prerelease") + " does not exist; run `compact extract` first, or pass a bundle, chat or channel directory\n"},
		{"unknown baseline", []string{"report", ch, "--baseline", "nope", "-o", filepath.Join(dir, "x.html")}, 2, "compact report: --baseline nope: no such briefing in 7 bundles (have: actual, default-pack, terse-pack)\n"},
		{"unknown run", []string{"report", ch, "--run", "nope", "-o", filepath.Join(dir, "x.html")}, 2, "compact report: no replay run \"nope\" with an answer in 7 bundles; runs found: default-pack, terse-pack\n"},
		{"not a simulation", []string{"report", ch, "--simulate", badSim, "-o", filepath.Join(dir, "x.html")}, 2, "compact report: --simulate: " + badSim + " is not the JSON of `compact simulate --json` (no strategy and histories, rows, chats or sessions)\n"},
		{"json to stdout", []string{"report", ch, "-o", "-", "--json"}, 2, "compact report: --json prints a summary on stdout; write the page to a file with -o FILE\n"},
		{"output is a directory", []string{"report", ch, "-o", dir}, 2, "compact report: --output " + dir + " is a directory; name a file, e.g. " + filepath.Join(dir, "report.html") + "\n"},
		{"negative size", []string{"report", ch, "--max-size", "-1"}, 2, "compact report: --max-size must not be negative\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runIn(t, nil, tc.args...)
			if code != tc.code || errOut != tc.err || out != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, stderr:\n%s", code, out, errOut, tc.code, tc.err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "x.html")); err == nil {
		t.Error("a failed run wrote its page")
	}

	// A bundle that cannot be read: named, the others still shown, exit 1.
	broken := filepath.Join(ch, "003-fix-button-color-v2", "compression-001", "actual-output.md")
	if err := os.Remove(broken); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report.html")
	code, stdout, errOut := runIn(t, nil, "report", ch, "-o", out)
	if code != 1 || !strings.HasPrefix(stdout, out+": 6 bundles, ") ||
		!strings.HasPrefix(errOut, "compact report: "+filepath.Dir(broken)+": ") ||
		!strings.HasSuffix(errOut, "\ncompact report: 1 of 7 bundles not read (each is named above)\n") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, errOut)
	}
	if page, err := os.ReadFile(out); err != nil || !strings.Contains(string(page), "Not read") {
		t.Errorf("the page does not name the bundle it could not read (%v)", err)
	}

	// Only a simulation: no bundles needed.
	sim := filepath.Join(dir, "sim.json")
	sample, _ := filepath.Abs("../examples/stagewise/instances.sqlite")
	code, simOut, errOut := runIn(t, nil, "simulate", "--db", sample, "--context-window", "6000", "--json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errOut)
	}
	diffWrite(t, sim, simOut)
	code, stdout, errOut = runIn(t, nil, "report", "--config", cfg, "--simulate", sim, "-o", out)
	if code != 0 || stdout != out+": 1 simulation; "+strings.TrimPrefix(stdout, out+": 1 simulation; ") || errOut != "" {
		t.Errorf("simulation only: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
}

// TestDiffPullRequestComment: `compact diff --format markdown --baseline
// RUN` on the sample is the comment a CI job posts (golden:
// cmd/testdata/diff/pr-comment.md; -update-pr-comment rewrites it).
func TestDiffPullRequestComment(t *testing.T) {
	dir := t.TempDir()
	reportSample(t, dir)
	golden, _ := filepath.Abs(filepath.Join("testdata", "diff", "pr-comment.md"))
	t.Chdir(dir)
	code, out, errOut := runIn(t, nil, "diff", "prerelease", "--run", "terse-pack", "--baseline", "default-pack", "--format", "markdown")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if *updatePRComment {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./cmd -run TestDiffPullRequestComment -update-pr-comment writes it)", err)
	}
	if out != string(want) {
		t.Errorf("the comment differs from %s (-update-pr-comment rewrites it):\n%s", golden, out)
	}

	// The same with --json holds the baseline; without --run it is a usage error.
	code, out, _ = runIn(t, nil, "diff", "prerelease", "--run", "terse-pack", "--baseline", "default-pack", "--stat", "--json")
	var doc struct {
		Baseline struct {
			Run       string `json:"run"`
			Bundles   int    `json:"bundles"`
			NewlyLost []struct {
				Bundle, Kind, Value string
			} `json:"newlyLost"`
		} `json:"baseline"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || doc.Baseline.Run != "default-pack" || doc.Baseline.Bundles != 7 || len(doc.Baseline.NewlyLost) == 0 {
		t.Errorf("exit %d, %v: %+v", code, err, doc.Baseline)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"diff", "prerelease", "--baseline", "default-pack"}, "compact diff: --baseline default-pack compares a run with it: name that run with --run NAME\n"},
		{[]string{"diff", "prerelease", "--run", "terse-pack", "--baseline", "terse-pack"}, "compact diff: --baseline and --run both name terse-pack; the baseline is another run\n"},
		{[]string{"diff", "prerelease", "--run", "terse-pack", "--baseline", "nope"}, "compact diff: --baseline nope: no answer from that run in the 7 bundles compared; runs found: default-pack, terse-pack\n"},
		{[]string{"diff", "prerelease", "--run", "terse-pack", "--fail-on", "newly-lost"}, "compact diff: --fail-on newly-lost compares the run with a baseline: add --baseline RUN\n"},
	} {
		if code, _, errOut := runIn(t, nil, tc.args...); code != 2 || errOut != tc.err {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errOut)
		}
	}

	// The CI gate: the terse pack lost items the default one kept (exit
	// 1, with how many); the default pack lost none the terse one kept.
	code, _, errOut = runIn(t, nil, "diff", "prerelease", "--run", "terse-pack", "--baseline", "default-pack", "--format", "markdown", "--fail-on", "newly-lost")
	wantGate := fmt.Sprintf("--fail-on newly-lost: run terse-pack lost %d must-keep items that the baseline default-pack kept", len(doc.Baseline.NewlyLost))
	if code != 1 || !strings.Contains(errOut, wantGate) {
		t.Errorf("gate: exit %d, stderr %q, want %q", code, errOut, wantGate)
	}
	code, _, errOut = runIn(t, nil, "diff", "prerelease", "--run", "default-pack", "--baseline", "terse-pack", "--stat", "--fail-on", "newly-lost")
	if code != 0 {
		t.Errorf("no item newly lost: exit %d, stderr %q", code, errOut)
	}
}
