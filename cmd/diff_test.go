package cmd

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/iostreams"
)

const diffCorpus = "../testdata/conformance/v9-chained-compressions/expected/messages/experiments-data/history-compression/prerelease"

// diffRun runs compact in-process with env as the environment.
func diffRun(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	code := RunEnv(io, args, func(k string) string { return env[k] })
	return code, out.String(), errOut.String()
}

func diffWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// diffCopyCorpus copies the conformance channel to a temporary directory.
func diffCopyCorpus(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "prerelease")
	err := filepath.WalkDir(diffCorpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(diffCorpus, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// diffReplay writes a fake replay of bundle: output.md and replay.json.
func diffReplay(t *testing.T, bundle, run, output, startedAt string) {
	t.Helper()
	dir := filepath.Join(bundle, "replays", run)
	diffWrite(t, filepath.Join(dir, "output.md"), output)
	diffWrite(t, filepath.Join(dir, "replay.json"), `{"run": "`+run+`", "model": "builtin", "attempts": [], "usage": {"inputTokens": 0, "outputTokens": 0}, "costUsd": 0, "pack": "", "systemSha256": "", "userSha256": "", "toolVersion": "dev", "startedAt": "`+startedAt+`"}`)
}

func diffActual(t *testing.T, bundle string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(bundle, "actual-output.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestDiffBundleWithReplay(t *testing.T) {
	root := diffCopyCorpus(t)
	b := filepath.Join(root, "001-long-running-refactor", "compression-002")
	a := diffActual(t, b)
	diffReplay(t, b, "builtin", strings.Replace(a, "module_3.ts", "module_3b.ts", 1), "2026-07-01T10:00:00Z")
	code, out, errOut := diffRun(t, nil, "diff", b)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"== " + b,
		"run builtin (newest), model builtin",
		"growth      +16765 vs 1234",
		"lost by B   path      w1/src/module_3.ts",
		"B worse on  lost-paths",
		"--- A ## Refactor, second pass\n+++ B ## Refactor, second pass\n",
		"-You changed [](path:w1/src/module_3.ts) and the user approved step 3.\n+You changed [](path:w1/src/module_3b.ts) and the user approved step 3.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour on a pipe")
	}
	// --stat: no diff, no lost list.
	_, out, _ = diffRun(t, nil, "diff", "--stat", b)
	if strings.Contains(out, "+++ B") || strings.Contains(out, "lost by B") || !strings.Contains(out, "~ ## Refactor, second pass  (+1 -1)") {
		t.Errorf("--stat output:\n%s", out)
	}
	// --fail-on lost-paths: B lost a path A kept.
	code, _, errOut = diffRun(t, nil, "diff", "--stat", "--fail-on", "lost-paths", b)
	if code != 1 || errOut != "compact diff: --fail-on lost-paths: B is worse than A in 1 of 1 comparison\n" {
		t.Errorf("--fail-on lost-paths: exit %d, stderr %q", code, errOut)
	}
	// ... but not on the other measures.
	code, _, errOut = diffRun(t, nil, "diff", "--stat", "--fail-on", "leak,rules", "--fail-on", "shrink", b)
	if code != 0 {
		t.Errorf("--fail-on leak,rules,shrink: exit %d, stderr %q", code, errOut)
	}
}

func TestDiffChannelWithAMissingReplay(t *testing.T) {
	root := diffCopyCorpus(t)
	bundles := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "actual-output.md" {
			return err
		}
		bundles++
		b := filepath.Dir(p)
		if strings.HasSuffix(b, "compression-004") {
			return nil // no replay
		}
		a := diffActual(t, b)
		if strings.HasSuffix(b, "compression-005") {
			a += "\n\n<previous-chat-history>leak</previous-chat-history>"
		}
		diffReplay(t, b, "builtin", a, "2026-07-01T10:00:00Z")
		return nil
	})
	if err != nil || bundles != 10 {
		t.Fatalf("%d bundles, %v", bundles, err)
	}
	code, out, errOut := diffRun(t, nil, "diff", "--json", "--fail-on", "leak", root)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	miss := filepath.Join(root, "001-long-running-refactor", "compression-004")
	if !strings.Contains(errOut, "compact diff: "+miss+": no replay (nothing under replays/): run `compact replay` on it first\n") ||
		!strings.Contains(errOut, "--fail-on leak: B is worse than A in 1 of 9 comparisons; 1 of 10 bundles not compared") {
		t.Errorf("stderr:\n%s", errOut)
	}
	var rep struct {
		Comparisons []struct {
			Bundle string `json:"bundle"`
			A      struct {
				File  string `json:"file"`
				Chars int    `json:"chars"`
				Lost  []struct {
					Kind, Value string
				} `json:"lost"`
				Leaks []string `json:"leaks"`
			} `json:"a"`
			B struct {
				Leaks []string `json:"leaks"`
			} `json:"b"`
			Similarity struct {
				RougeL struct {
					F1 float64 `json:"f1"`
				} `json:"rougeL"`
			} `json:"similarity"`
			Worse []string `json:"worse"`
		} `json:"comparisons"`
		Errors []struct{ Bundle, Error string } `json:"errors"`
		Failed []struct {
			Bundle, Measure string
			A, B            int
		} `json:"failed"`
		Summary struct {
			Compared int `json:"compared"`
			Rows     []struct {
				Bundle string `json:"bundle"`
			} `json:"rows"`
		} `json:"summary"`
		Chains []struct {
			Chain string `json:"chain"`
			A     []int  `json:"a"`
		} `json:"chains"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(rep.Comparisons) != 9 || len(rep.Errors) != 1 || rep.Errors[0].Bundle != miss || rep.Summary.Compared != 9 {
		t.Fatalf("comparisons %d, errors %+v", len(rep.Comparisons), rep.Errors)
	}
	leaky := filepath.Join(root, "001-long-running-refactor", "compression-005")
	if len(rep.Failed) != 1 || rep.Failed[0].Bundle != leaky || rep.Failed[0].Measure != "leak" || rep.Failed[0].B != 2 {
		t.Errorf("failed: %+v", rep.Failed)
	}
	if rep.Summary.Rows[0].Bundle != leaky {
		t.Errorf("worst first: %s", rep.Summary.Rows[0].Bundle)
	}
	if len(rep.Chains) != 2 || len(rep.Chains[0].A) != 6 || rep.Chains[0].A[0] != 1234 {
		t.Errorf("chains: %+v", rep.Chains)
	}
	for _, c := range rep.Comparisons {
		if c.A.File != filepath.Join(c.Bundle, "actual-output.md") || c.A.Chars == 0 || c.Similarity.RougeL.F1 == 0 {
			t.Errorf("%s: %+v", c.Bundle, c)
		}
	}
	// The same run as text: the table and the chains.
	code, out, _ = diffRun(t, nil, "diff", root)
	if code != 1 || !strings.Contains(out, "total (9)") || !strings.Contains(out, "chains (briefing sizes in compression order)") ||
		!strings.Contains(out, "  A  100 → 29999 → 45000\n") {
		t.Errorf("exit %d, text:\n%s", code, out)
	}
	// --stat: the summary only, the chains compact.
	code, out, _ = diffRun(t, nil, "diff", "--stat", root)
	if code != 1 || !strings.Contains(out, "9 bundles compared under "+root+", 1 not compared; B from run builtin, the newest with an answer\n") ||
		!strings.Contains(out, "  002-short-chain-with-large-summaries  A   100  30k  45k\n") || strings.Contains(out, "== ") {
		t.Errorf("exit %d, --stat:\n%s", code, out)
	}
	// --format json is --json.
	code2, out2, _ := diffRun(t, nil, "diff", "--format", "json", "--fail-on", "leak", root)
	_, out3, _ := diffRun(t, nil, "diff", "--json", "--fail-on", "leak", root)
	if code2 != 1 || out2 != out3 {
		t.Error("--format json differs from --json")
	}
}

func TestDiffRunPicksTheNamedReplay(t *testing.T) {
	root := diffCopyCorpus(t)
	b := filepath.Join(root, "002-short-chain-with-large-summaries", "compression-001")
	a := diffActual(t, b)
	diffReplay(t, b, "old", a, "2026-06-01T10:00:00Z")
	diffReplay(t, b, "new", "## Other\n\nDifferent.", "2026-07-01T10:00:00Z")
	_, out, _ := diffRun(t, nil, "diff", "--stat", b)
	if !strings.Contains(out, "run new (newest)") {
		t.Errorf("default run:\n%s", out)
	}
	_, out, _ = diffRun(t, nil, "diff", "--stat", "--run", "old", b)
	if !strings.Contains(out, "run old,") || !strings.Contains(out, "sentence reuse 1.0000") {
		t.Errorf("--run old:\n%s", out)
	}
	code, _, errOut := diffRun(t, nil, "diff", "--run", "gpt-5.4-nano", b)
	if code != 2 || errOut != `compact diff: no run named "gpt-5.4-nano" in 1 bundle; runs found: new (1 answered); old (1 answered); `+
		"compare one with --run new, or make one with `compact replay --model builtin "+b+"`\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestDiffTwoFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")
	diffWrite(t, a, "## One\n\nYou read w1/a.ts. Done.")
	diffWrite(t, b, "## One\n\nYou read [](path:w1/a.ts). Done.\n\n## Two\n\nMore.")
	code, out, errOut := diffRun(t, nil, "diff", "--a", a, "--b", b, "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"## compact diff: 1 compared", "| must-keep | not measured (no compact-history.xml) | |", "| + | ## Two | only in B |", "```diff\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	// The compact history beside A is used.
	diffWrite(t, filepath.Join(dir, "compact-history.xml"), "<assistant>[read: w1/a.ts]\n[read: w1/b.ts]</assistant>")
	_, out, _ = diffRun(t, nil, "diff", "--a", a, "--b", b, "--json")
	var rep struct {
		Comparisons []struct {
			Bundle string `json:"bundle"`
			B      struct {
				Lost []struct{ Kind, Value string } `json:"lost"`
			} `json:"b"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if c := rep.Comparisons[0]; c.Bundle != dir || len(c.B.Lost) != 1 || c.B.Lost[0].Value != "w1/b.ts" {
		t.Errorf("comparison: %+v", c)
	}
}

func TestDiffBadInput(t *testing.T) {
	dir := t.TempDir()
	a, junk, empty := filepath.Join(dir, "a.md"), filepath.Join(dir, "junk.md"), filepath.Join(dir, "empty.md")
	diffWrite(t, a, "## A\n\nx")
	diffWrite(t, junk, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	diffWrite(t, empty, "")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"binary B", []string{"--a", a, "--b", junk}, 0, ""},
		{"empty B", []string{"--a", a, "--b", empty}, 2, empty + " is empty"},
		{"missing B", []string{"--a", a, "--b", filepath.Join(dir, "nope.md")}, 2, "nope.md is missing"},
		{"only --a", []string{"--a", a}, 2, "--a and --b go together"},
		{"--a with PATH", []string{"--a", a, "--b", a, dir}, 2, "mutually exclusive"},
		{"--run with --a", []string{"--a", a, "--b", a, "--run", "x"}, 2, "--run applies to bundles"},
		{"missing PATH", []string{filepath.Join(dir, "nowhere")}, 2, "does not exist"},
		{"no bundles", []string{t.TempDir()}, 2, "no bundles under"},
		{"file PATH", []string{a}, 2, "is not a directory"},
		{"bad format", []string{"--format", "html", dir}, 2, `unknown format "html"`},
		{"json and markdown", []string{"--json", "--format", "markdown", dir}, 2, "--json and --format markdown conflict"},
		{"bad fail-on", []string{"--fail-on", "size", dir}, 2, `unknown measure "size"`},
		{"bad colour", []string{"--color", "sometimes", dir}, 2, "--color"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := diffRun(t, nil, append([]string{"diff"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, tc.code, errOut, tc.want)
			}
		})
	}
	// A bundle without its app's briefing: a clear line, the others still
	// compared. (A briefing of any bytes, even blank, is compared: what
	// compact writes, compact reads.)
	root := diffCopyCorpus(t)
	chat := filepath.Join(root, "002-short-chain-with-large-summaries")
	for _, n := range []string{"001", "002", "003"} {
		b := filepath.Join(chat, "compression-"+n)
		diffReplay(t, b, "builtin", diffActual(t, b), "2026-07-01T10:00:00Z")
	}
	bad := filepath.Join(chat, "compression-002", "actual-output.md")
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := diffRun(t, nil, "diff", "--stat", chat)
	if code != 1 || !strings.Contains(errOut, bad+" is missing") ||
		!strings.HasSuffix(errOut, "compact diff: 1 of 3 bundles not compared\n") || !strings.HasPrefix(out, "2 bundles compared under "+root+", 1 not compared") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}

func TestDiffColourOnlyOnATerminal(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")
	diffWrite(t, a, "## One\n\nRed.")
	diffWrite(t, b, "## One\n\nTeal.")
	defer func(f func(io.Writer) bool) { diffIsTerminal = f }(diffIsTerminal)
	diffIsTerminal = func(io.Writer) bool { return true }
	_, out, _ := diffRun(t, nil, "diff", "--a", a, "--b", b)
	if !strings.Contains(out, "\x1b[31m-Red.\x1b[0m") || !strings.Contains(out, "\x1b[32m+Teal.\x1b[0m") {
		t.Errorf("terminal: no colour:\n%q", out)
	}
	for _, tc := range []struct {
		env  map[string]string
		args []string
	}{
		{map[string]string{"NO_COLOR": "1"}, nil},
		{map[string]string{"TERM": "dumb"}, nil},
		{nil, []string{"--color", "never"}},
		{nil, []string{"--json"}},
		{nil, []string{"--format", "markdown"}},
	} {
		_, out, _ := diffRun(t, tc.env, append([]string{"diff", "--a", a, "--b", b}, tc.args...)...)
		if strings.Contains(out, "\x1b[") {
			t.Errorf("%v %v: colour:\n%q", tc.env, tc.args, out)
		}
	}
	diffIsTerminal = func(io.Writer) bool { return false }
	if _, out, _ := diffRun(t, nil, "diff", "--a", a, "--b", b); strings.Contains(out, "\x1b[") {
		t.Error("pipe: colour")
	}
	if _, out, _ := diffRun(t, nil, "diff", "--a", a, "--b", b, "--color", "always"); !strings.Contains(out, "\x1b[") {
		t.Error("--color always: no colour")
	}
}

func TestDiffDefaultPathIsTheExtractOutput(t *testing.T) {
	root := diffCopyCorpus(t)
	b := filepath.Join(root, "002-short-chain-with-large-summaries", "compression-001")
	diffReplay(t, b, "builtin", diffActual(t, b), "2026-07-01T10:00:00Z")
	cfg := filepath.Join(t.TempDir(), "compact.yaml")
	diffWrite(t, cfg, "extract:\n  out: "+filepath.Dir(root)+"\n  channel: prerelease\n")
	code, out, errOut := diffRun(t, nil, "--config", cfg, "diff", "--stat")
	if code != 1 || !strings.Contains(out, "== "+b) || strings.Count(errOut, "no replay (nothing under replays/)") != 9 ||
		!strings.HasSuffix(errOut, "compact diff: 9 of 10 bundles not compared (no replay with an answer)\n") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	diffWrite(t, cfg, "extract:\n  out: "+filepath.Join(t.TempDir(), "none")+"\n")
	if code, _, errOut := diffRun(t, nil, "--config", cfg, "diff"); code != 2 || !strings.Contains(errOut, "compact diff: no bundles: ") ||
		!strings.Contains(errOut, "none/prerelease does not exist; run `compact extract` first") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
