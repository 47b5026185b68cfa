package cmd

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diffFailedReplay writes what a replay without an answer leaves: a
// replay.json with no model and an error, and no output.md.
func diffFailedReplay(t *testing.T, bundle, run, startedAt string) {
	t.Helper()
	diffWrite(t, filepath.Join(bundle, "replays", run, "replay.json"),
		`{"run": "`+run+`", "bundle": "x", "models": ["gemini-3.1-flash-lite"], "model": null, "attempts": [], `+
			`"usage": {"inputTokens": 0, "outputTokens": 0}, "costUsd": 0, "pack": "", "systemSha256": "", "userSha256": "", `+
			`"error": "no API key for gemini-3.1-flash-lite", "toolVersion": "dev", "startedAt": "`+startedAt+`"}`)
}

// diffEachBundle calls fn with every bundle under root, in order.
func diffEachBundle(t *testing.T, root string, fn func(b string)) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "actual-output.md" {
			return err
		}
		n++
		fn(filepath.Dir(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDiffDefaultIsTheNewestReplayWithAnAnswer is issue 13: a replay
// without keys wrote failed records newer than the answered run; diff
// must compare with the answered one.
func TestDiffDefaultIsTheNewestReplayWithAnAnswer(t *testing.T) {
	root := diffCopyCorpus(t)
	b := filepath.Join(root, "001-long-running-refactor", "compression-002")
	diffReplay(t, b, "builtin", diffActual(t, b), "2026-06-01T10:00:00Z")
	diffFailedReplay(t, b, "cascade", "2026-07-01T10:00:00Z")
	code, out, errOut := diffRun(t, nil, "diff", b)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "(run builtin (newest with an answer; newer, failed: cascade), model builtin") ||
		!strings.Contains(out, "sentence reuse 1.0000") {
		t.Errorf("output:\n%s", out)
	}
	_, out, _ = diffRun(t, nil, "diff", "--json", b)
	var rep struct {
		Comparisons []struct {
			Run    string `json:"run"`
			Replay struct {
				Newest       bool     `json:"newest"`
				SkippedNewer []string `json:"skippedNewer"`
			} `json:"replay"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if c := rep.Comparisons[0]; c.Run != "builtin" || !c.Replay.Newest || len(c.Replay.SkippedNewer) != 1 {
		t.Errorf("json: %+v", c)
	}

	// The mixed case: the other bundles of the chat have only the failed
	// run. The one that can be is compared, the rest are listed one line
	// each, and the exit is 1 (some bundles not compared).
	chat := filepath.Dir(b)
	n := diffEachBundle(t, chat, func(d string) {
		if d != b {
			diffFailedReplay(t, d, "cascade", "2026-07-01T10:00:00Z")
		}
	})
	code, out, errOut = diffRun(t, nil, "diff", chat)
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if code != 1 || strings.Count(out, "== ") != 1 || len(lines) != n {
		t.Fatalf("exit %d, %d stderr lines for %d bundles:\n%s", code, len(lines), n, errOut)
	}
	c1 := filepath.Join(chat, "compression-001")
	if lines[0] != "compact diff: "+c1+": no replay with an answer: cascade failed (no API key for gemini-3.1-flash-lite)" ||
		lines[n-1] != fmt.Sprintf("compact diff: %d of %d bundles not compared (no replay with an answer)", n-1, n) {
		t.Errorf("stderr:\n%s", errOut)
	}
	// With --stat, only the first --worst of those lines and a count.
	code, _, errOut = diffRun(t, nil, "diff", "--stat", "--worst", "2", chat)
	lines = strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if code != 1 || len(lines) != 4 || lines[0] != "compact diff: "+c1+": no replay with an answer: cascade failed (no API key for gemini-3.1-flash-lite)" ||
		lines[2] != fmt.Sprintf("compact diff: and %d more bundles not compared (without --stat, or with --json, all are listed)", n-3) {
		t.Errorf("--stat: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestDiffNoReplayWithAnAnswer: nothing to compare is exit 2 and one line
// that names the runs there are and the next step.
func TestDiffNoReplayWithAnAnswer(t *testing.T) {
	root := diffCopyCorpus(t)
	code, out, errOut := diffRun(t, nil, "diff", root)
	if code != 2 || out != "" || errOut != "compact diff: no replays yet in 10 bundles: make one with `compact replay --model builtin "+root+"` (no key needed), then run diff again\n" {
		t.Errorf("no replays: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	n := diffEachBundle(t, root, func(b string) { diffFailedReplay(t, b, "cascade", "2026-07-01T10:00:00Z") })
	want := fmt.Sprintf("compact diff: no replay with an answer in %d bundles; runs found: cascade (%d failed: no API key for gemini-3.1-flash-lite); "+
		"compare a run with --run NAME, or make one with `compact replay --model builtin %s`\n", n, n, root)
	for _, args := range [][]string{{"diff", root}, {"diff", "--stat", root}, {"diff", "--json", root}} {
		code, out, errOut := diffRun(t, nil, args...)
		if code != 2 || out != "" || errOut != want {
			t.Errorf("%v: exit %d, stdout %q, stderr\n%q, want\n%q", args, code, out, errOut, want)
		}
	}
	// --run naming the failed run, or one that is nowhere.
	code, _, errOut = diffRun(t, nil, "diff", "--run", "cascade", root)
	if code != 2 || !strings.HasPrefix(errOut, `compact diff: run "cascade" has no answer in 10 bundles; runs found: cascade (10 failed`) {
		t.Errorf("--run cascade: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = diffRun(t, nil, "diff", "--run", "gpt", root)
	if code != 2 || !strings.HasPrefix(errOut, `compact diff: no run named "gpt" in 10 bundles; runs found: cascade (10 failed`) {
		t.Errorf("--run gpt: exit %d, stderr %q", code, errOut)
	}
	// One bundle with an answer elsewhere under another run: the hint names it.
	b := filepath.Join(root, "002-short-chain-with-large-summaries", "compression-001")
	diffReplay(t, b, "builtin", diffActual(t, b), "2026-06-01T10:00:00Z")
	code, _, errOut = diffRun(t, nil, "diff", "--run", "cascade", root)
	if code != 2 || !strings.Contains(errOut, "runs found: cascade (10 failed: no API key for gemini-3.1-flash-lite); builtin (1 answered); compare one with --run builtin, or make one") {
		t.Errorf("hint: exit %d, stderr %q", code, errOut)
	}
}

// diffManyBundles copies each chat of the corpus copies times (60 bundles
// over 12 chains for 6) and gives every bundle a replay that drops a
// sentence more in each copy, so the worst differ.
func diffManyBundles(t *testing.T, copies int) string {
	t.Helper()
	src := diffCopyCorpus(t)
	root := filepath.Join(t.TempDir(), "prerelease")
	chats, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < copies; i++ {
		for _, chat := range chats {
			dst := filepath.Join(root, fmt.Sprintf("%s-%d", chat.Name(), i))
			if err := os.CopyFS(dst, os.DirFS(filepath.Join(src, chat.Name()))); err != nil {
				t.Fatal(err)
			}
			diffEachBundle(t, dst, func(b string) {
				a := diffActual(t, b)
				out := a
				for j := 0; j < i; j++ {
					out = strings.Replace(out, "w1/src/module_", "w1/lib/module_", 1)
				}
				diffReplay(t, b, "builtin", out+strings.Repeat("\n\nMore of B.", i*50), "2026-07-01T10:00:00Z")
			})
		}
	}
	return root
}

// TestDiffStatIsASummary: --stat over many bundles prints the totals,
// medians, the worst bundles and chains, and no line per bundle.
func TestDiffStatIsASummary(t *testing.T) {
	t.Parallel() // heavy and independent: overlaps the others at the end of the package's run
	root := diffManyBundles(t, 6)
	code, out, errOut := diffRun(t, nil, "diff", "--stat", root)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) >= 60 {
		t.Errorf("--stat printed %d lines for 60 bundles:\n%s", len(lines), out)
	}
	for _, want := range []string{
		"60 bundles compared under " + root + "; B from run builtin, the newest with an answer\n",
		"A is the app's briefing (actual-output.md), B the replay's (replays/<run>/output.md)\n",
		"\nchars, total ", "\nchars, median ", "\nmust-keep kept ", "\n  median ", "\nitems lost ", "\n  paths ",
		"\nsimilarity        median ROUGE-L F1 ", "\nB worse than A    lost-paths in 45, leak in 0, rules in 0, shrink in 0 of 60 bundles\n",
		"\nworst 10 of 60 (",
		"\n12 chains of 3–7 briefings; ",
		"\nchains by B's size against A's, largest first (10 of 12); sizes in compression order:\n  001-long-running-refactor-5             A  1.2k  18k  18k  25k  26k  31k  2.1k\n" +
			"                                          B  4.2k  21k  21k  28k  29k  34k  5.1k\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--stat lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "== ") || strings.Contains(out, "total (") || strings.Contains(out, "-0/compression-") {
		t.Errorf("--stat has a line per bundle or the best ones:\n%s", out)
	}
	// --summary is --stat; --worst sets how many are listed.
	if _, out2, _ := diffRun(t, nil, "diff", "--summary", root); out2 != out {
		t.Error("--summary differs from --stat")
	}
	_, out, _ = diffRun(t, nil, "diff", "--stat", "--worst", "3", root)
	if n := len(strings.Split(out, "\n")); n > 35 || !strings.Contains(out, "worst 3 of 60") || !strings.Contains(out, "(3 of 12)") {
		t.Errorf("--worst 3: %d lines:\n%s", n, out)
	}
	// --stat --json: the summary only, the worst rows and chains.
	code, out, _ = diffRun(t, nil, "diff", "--stat", "--json", "--worst", "4", "--fail-on", "lost-paths", root)
	var rep map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Compared int               `json:"compared"`
		Rows     []json.RawMessage `json:"rows"`
	}
	var chains, failed []json.RawMessage
	_ = json.Unmarshal(rep["summary"], &sum)
	_ = json.Unmarshal(rep["chains"], &chains)
	_ = json.Unmarshal(rep["failed"], &failed)
	if code != 1 || rep["comparisons"] != nil || sum.Compared != 60 || len(sum.Rows) != 4 || len(chains) != 4 || len(failed) != 45 ||
		string(rep["stat"]) != "{\n    \"worst\": 4,\n    \"rows\": 60,\n    \"chains\": 12\n  }" {
		t.Errorf("exit %d, --stat --json: %d rows, %d chains, %d failed, stat %s", code, len(sum.Rows), len(chains), len(failed), rep["stat"])
	}
	// The --fail-on verdict under the summary is one line.
	code, out, errOut = diffRun(t, nil, "diff", "--stat", "--fail-on", "lost-paths", root)
	if code != 1 || !strings.HasSuffix(out, "\nFAIL lost-paths in 45 of 60 bundles (B worse than A; --json lists each)\n") ||
		errOut != "compact diff: --fail-on lost-paths: B is worse than A in 45 of 60 comparisons\n" {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	// Markdown --stat is the same summary.
	_, out, _ = diffRun(t, nil, "diff", "--stat", "--format", "markdown", root)
	if n := len(strings.Split(out, "\n")); n > 70 || !strings.Contains(out, "### Worst 10 of 60") || strings.Contains(out, "### `") {
		t.Errorf("markdown --stat: %d lines:\n%s", n, out)
	}
}

// TestDiffChannel: with no PATH, diff reads channelDir(--channel), like
// extract and replay.
func TestDiffChannel(t *testing.T) {
	out := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "compact.yaml")
	diffWrite(t, cfg, "extract:\n  out: "+out+"\n")
	nightly := filepath.Join(out, "nightly")
	if err := os.CopyFS(nightly, os.DirFS(diffCorpus)); err != nil {
		t.Fatal(err)
	}
	diffEachBundle(t, nightly, func(b string) { diffReplay(t, b, "builtin", diffActual(t, b), "2026-07-01T10:00:00Z") })
	code, stdout, errOut := diffRun(t, nil, "--config", cfg, "diff", "--channel", "nightly", "--stat")
	if code != 0 || !strings.HasPrefix(stdout, "10 bundles compared under "+nightly+"; ") {
		t.Errorf("--channel nightly: exit %d, stderr %q, stdout:\n%s", code, errOut, stdout)
	}
	// The configured channel is the default.
	cfg2 := filepath.Join(t.TempDir(), "compact.yaml")
	diffWrite(t, cfg2, "extract:\n  out: "+out+"\n  channel: nightly\n")
	if code, stdout, _ := diffRun(t, nil, "--config", cfg2, "diff", "--stat"); code != 0 || !strings.HasPrefix(stdout, "10 bundles compared under "+nightly+"; ") {
		t.Errorf("configured nightly: exit %d:\n%s", code, stdout)
	}
	// Nothing extracted for prerelease (the default) or dev.
	code, _, errOut = diffRun(t, nil, "--config", cfg, "diff")
	if code != 2 || errOut != "compact diff: no bundles: "+filepath.Join(out, "prerelease")+" does not exist; run `compact extract` first, or pass a bundle, chat or channel directory\n" {
		t.Errorf("prerelease: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = diffRun(t, nil, "--config", cfg, "diff", "--channel", "dev")
	if code != 2 || !strings.Contains(errOut, "run `compact extract --channel dev` first") {
		t.Errorf("dev: exit %d, stderr %q", code, errOut)
	}
	// An empty channel directory is no bundles too.
	if err := os.MkdirAll(filepath.Join(out, "release"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = diffRun(t, nil, "--config", cfg, "diff", "--channel", "release")
	if code != 2 || !strings.Contains(errOut, "no bundles under "+filepath.Join(out, "release")) {
		t.Errorf("release: exit %d, stderr %q", code, errOut)
	}
	for _, args := range [][]string{{"--channel", "weekly"}, {"--channel", "nightly", nightly}} {
		code, _, errOut := diffRun(t, nil, append([]string{"--config", cfg, "diff"}, args...)...)
		if code != 2 || !strings.Contains(errOut, "--channel") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestDiffCompletion: fixed values for --format, --color, --profile and
// --fail-on; the run names found under replays/ for --run.
func TestDiffCompletion(t *testing.T) {
	root := diffCopyCorpus(t)
	b := filepath.Join(root, "001-long-running-refactor", "compression-002")
	diffReplay(t, b, "builtin", diffActual(t, b), "2026-06-01T10:00:00Z")
	diffFailedReplay(t, filepath.Join(root, "002-short-chain-with-large-summaries", "compression-001"), "cascade", "2026-07-01T10:00:00Z")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", ""}, "text\njson\nmarkdown\n:4\n"},
		{[]string{"--color", ""}, "auto\nalways\nnever\n:4\n"},
		{[]string{"--profile", ""}, "v1.4.1-nightly20260602c001\nv1.29.0\nv1.29.0-nohost\ne3e\nhead\nhead-nohost\n:4\n"},
		{[]string{"--fail-on", ""}, "lost-paths\nleak\nrules\nshrink\nnewly-lost\n:4\n"},
		{[]string{"--channel", ""}, "release\nprerelease\nnightly\ndev\n:4\n"},
		{[]string{root, "--run", ""}, "builtin\ncascade\n:4\n"},
		{[]string{b, "--run", ""}, "builtin\n:4\n"},
	} {
		code, out, errOut := diffRun(t, nil, append([]string{"__complete", "diff"}, tc.args...)...)
		if i := strings.Index(out, "Completion ended"); i >= 0 {
			out = out[:i]
		}
		if code != 0 || out != tc.want {
			t.Errorf("%v: exit %d, got %q, want %q (%s)", tc.args, code, out, tc.want, errOut)
		}
	}
	// Without a PATH: the default channel directory of the configuration.
	cfg := filepath.Join(t.TempDir(), "compact.yaml")
	diffWrite(t, cfg, "extract:\n  out: "+filepath.Dir(root)+"\n")
	code, out, _ := diffRun(t, map[string]string{"COMPACT_CONFIG": cfg}, "__complete", "diff", "--run", "")
	if code != 0 || !strings.HasPrefix(out, "builtin\ncascade\n:4\n") {
		t.Errorf("default channel: exit %d, %q", code, out)
	}
}

// TestDiffHelp: a short usage line, A and B explained, real flag types.
func TestDiffHelp(t *testing.T) {
	code, out, _ := diffRun(t, nil, "diff", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"  compact diff [PATH]... [flags]\n",
		"  A  the briefing the app stored: the bundle's actual-output.md\n",
		"  B  a replay's briefing: the bundle's replays/<run>/output.md",
		"the newest replay with an answer",
		"  -j, --jobs N ", "      --worst N ", "      --fail-on MEASURE ", "      --channel NAME ", "      --summary ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "`") {
		t.Errorf("help has backticks:\n%s", out)
	}
}
