package diff

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/mdtext"
)

// corpusChannel is a channel of real bundles from the conformance corpus.
const corpusChannel = "../../testdata/conformance/v9-chained-compressions/expected/messages/experiments-data/history-compression/prerelease"

// copyDir copies a directory tree.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeReplay writes replays/<run>/output.md and replay.json; an empty
// startedAt leaves it out of the record.
func fakeReplay(t *testing.T, b, run, output, startedAt string) {
	t.Helper()
	dir := bundle.RunDir(b, run)
	if output != "\x00none" {
		writeFile(t, filepath.Join(dir, bundle.FileOutput), output)
	}
	rec := `{"model": "builtin", "attempts": [], "usage": {"inputTokens": 1, "outputTokens": 2}, "costUsd": 0, "pack": "default", "systemSha256": "x", "userSha256": "y", "toolVersion": "dev"`
	if startedAt != "" {
		rec += `, "startedAt": "` + startedAt + `"`
	}
	writeFile(t, filepath.Join(dir, bundle.FileRecord), rec+"}")
}

func TestNewestReplayByStartedAtThenMtime(t *testing.T) {
	b := t.TempDir()
	writeFile(t, filepath.Join(b, "actual-output.md"), "## A\n\nx")
	fakeReplay(t, b, "zeta", "## Z\n\nold", "2026-06-01T10:00:00Z")
	fakeReplay(t, b, "alpha", "## A\n\nnew", "2026-07-01T10:00:00+02:00")
	in, err := LoadBundle(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if in.Run != "alpha" || !in.Replay.Newest || in.B != "## A\n\nnew" {
		t.Errorf("picked %s (newest %v): %q", in.Run, in.Replay.Newest, in.B)
	}
	// A run without startedAt falls back to its directory's mtime.
	fakeReplay(t, b, "later", "## L\n\nlatest", "")
	future := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(b, bundle.DirReplays, "later"), future, future); err != nil {
		t.Fatal(err)
	}
	if in, _ := LoadBundle(b, Options{}); in.Run != "later" {
		t.Errorf("picked %s, want later (mtime)", in.Run)
	}
	if in, _ := LoadBundle(b, Options{Run: "zeta"}); in.Run != "zeta" || in.Replay.Newest {
		t.Errorf("--run zeta picked %s", in.Run)
	}
}

func TestLoadBundleBadInput(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, b string)
		run   string
		want  string // substring of the error
	}{
		{"no replay", func(t *testing.T, b string) {}, "", "no replay (nothing under replays/)"},
		{"unknown run", func(t *testing.T, b string) { fakeReplay(t, b, "builtin", "## B\n\ny", "") }, "gpt", `no replay named "gpt" (have: builtin)`},
		{"missing output", func(t *testing.T, b string) { fakeReplay(t, b, "builtin", "\x00none", "") }, "", "no replay with an answer: builtin failed (no output.md)"},
		{"named run without output", func(t *testing.T, b string) { fakeReplay(t, b, "builtin", "\x00none", "") }, "builtin", "replay builtin has no answer (no replays/builtin/output.md): no output.md"},
		{"missing actual", func(t *testing.T, b string) {
			os.Remove(filepath.Join(b, "actual-output.md"))
			fakeReplay(t, b, "builtin", "## B\n\ny", "")
		}, "", "actual-output.md is missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := t.TempDir()
			writeFile(t, filepath.Join(b, "actual-output.md"), "## A\n\nx")
			writeFile(t, filepath.Join(b, "compact-history.xml"), "<user>hi</user>")
			tc.setup(t, b)
			_, err := LoadBundle(b, Options{Run: tc.run})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadBundle = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestLoadBundleWarnsAboutJunkHistoryAndMetadata(t *testing.T) {
	b := t.TempDir()
	writeFile(t, filepath.Join(b, "actual-output.md"), "## A\n\nx")
	if err := os.Mkdir(filepath.Join(b, "compact-history.xml"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(b, "metadata.json"), "{not json")
	fakeReplay(t, b, "builtin", "## A\n\ny", "")
	in, err := LoadBundle(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if in.HasHistory || len(in.Warnings) != 2 {
		t.Fatalf("HasHistory %v, warnings %q", in.HasHistory, in.Warnings)
	}
	c := Compare(in)
	if c.A.KeptRatio != nil || c.ItemCount != 0 {
		t.Errorf("items measured without a history: %+v", c.A)
	}
}

func TestLoadFilesFindsTheHistoryBesideA(t *testing.T) {
	src := filepath.Join(corpusChannel, "001-long-running-refactor", "compression-002")
	other := filepath.Join(t.TempDir(), "b.md")
	writeFile(t, other, "## Refactor, second pass\n\nYou changed [](path:w1/src/module_1.ts).")
	in, err := LoadFiles(filepath.Join(src, "actual-output.md"), other, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !in.HasHistory || !in.HasPrevious || in.PreviousChars != 1234 || in.Bundle != src || in.Profile != mdtext.ProfileE3E {
		t.Errorf("history %v previous %v %d bundle %s profile %s", in.HasHistory, in.HasPrevious, in.PreviousChars, in.Bundle, in.Profile)
	}
	loose := filepath.Join(t.TempDir(), "a.md")
	writeFile(t, loose, "## A\n\nx")
	in, err = LoadFiles(loose, other, Options{Profile: mdtext.ProfileHead})
	if err != nil || in.HasHistory || in.Bundle != loose || in.Profile != mdtext.ProfileHead {
		t.Errorf("loose: %v %v %s %s", err, in.HasHistory, in.Bundle, in.Profile)
	}
	if _, err := LoadFiles(loose, filepath.Join(t.TempDir(), "nope.md"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing B: %v", err)
	}
}

// TestCorpusBundlesWithFakeReplays compares real bundles of the conformance
// corpus with replays made from them: an identical copy, a copy that drops
// a section and leaks the tag, and a bundle without a replay.
func TestCorpusBundlesWithFakeReplays(t *testing.T) {
	root := t.TempDir()
	copyDir(t, corpusChannel, root)
	dirs, err := bundle.Finder{}.Find([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range dirs {
		if strings.HasSuffix(d, filepath.Join("002-short-chain-with-large-summaries", "compression-001")) {
			continue // no replay
		}
		a, err := os.ReadFile(filepath.Join(d, "actual-output.md"))
		if err != nil {
			t.Fatal(err)
		}
		out := string(a)
		if i%2 == 1 {
			secs := mdtext.SplitSections(out)
			// drop the first section, leak the tag
			out = strings.Replace(out, "## "+secs[0].Heading+"\n"+secs[0].Body, "", 1) + "\n\n<previous-chat-history>x</previous-chat-history>"
		}
		fakeReplay(t, d, "builtin", out, "2026-07-01T10:00:00Z")
	}
	cs, errs := CompareBundles(dirs, Options{}, 3)
	if len(cs) != 9 || len(errs) != 1 || !strings.Contains(errs[0].Error, "no replay") {
		t.Fatalf("%d compared, errors %+v", len(cs), errs)
	}
	for _, c := range cs {
		identical := c.A.Chars == c.B.Chars
		if identical {
			if len(c.Worse) != 0 || c.Similarity.RougeL.F1 != 1 || c.Similarity.SentenceReuse != 1 {
				t.Errorf("%s: identical copy: worse %v, similarity %+v", c.Bundle, c.Worse, c.Similarity)
			}
			if d := cmp.Diff(c.A.Lost, c.B.Lost); d != "" {
				t.Errorf("%s: identical copy loses differently:\n%s", c.Bundle, d)
			}
			continue
		}
		if c.B.LeakCount <= c.A.LeakCount && !strings.HasSuffix(c.Bundle, "compression-007") {
			t.Errorf("%s: the leak is not seen: A %d B %d", c.Bundle, c.A.LeakCount, c.B.LeakCount)
		}
		if c.SectionCounts[string(SectionOnlyA)] != 1 {
			t.Errorf("%s: sections %v", c.Bundle, c.SectionCounts)
		}
	}
	r := NewReport(cs, errs, nil)
	var sizes []int
	for _, ch := range r.Chains {
		if strings.HasSuffix(ch.Chain, "001-long-running-refactor") {
			sizes = ch.A
		}
	}
	// The chain's actual sizes, in compression order, as metadata says.
	if d := cmp.Diff([]int{1234, 17999, 18000, 25499, 25500, 31000, 2059}, sizes); d != "" {
		t.Errorf("chain sizes (-want +got):\n%s", d)
	}
	// compression-007 shrank from 31000 to 2059 and leaked the tag.
	for _, c := range cs {
		if strings.HasSuffix(c.Bundle, "compression-007") {
			if c.A.Shrink != 31000-2059 || c.A.LeakCount != 2 || c.Profile != mdtext.ProfileE3E {
				t.Errorf("compression-007: shrink %d leaks %d profile %s", c.A.Shrink, c.A.LeakCount, c.Profile)
			}
		}
	}
}

// failedReplay writes what a replay that got no answer leaves: replay.json
// with no model and an error, and no output.md.
func failedReplay(t *testing.T, b, run, startedAt, msg string) {
	t.Helper()
	writeFile(t, bundle.RecordPath(b, run),
		`{"run": "`+run+`", "models": ["gemini-3.1-flash-lite"], "model": null, "attempts": [], "error": "`+msg+`", "startedAt": "`+startedAt+`"}`)
}

// TestDefaultRunIsTheNewestWithAnAnswer: a failed replay newer than an
// answered one is passed over (issue 13), and said so.
func TestDefaultRunIsTheNewestWithAnAnswer(t *testing.T) {
	b := t.TempDir()
	writeFile(t, filepath.Join(b, "actual-output.md"), "## A\n\nx")
	fakeReplay(t, b, "builtin", "## B\n\nold answer", "2026-06-01T10:00:00Z")
	failedReplay(t, b, "cascade", "2026-07-01T10:00:00Z", "no API key")
	failedReplay(t, b, "again", "2026-07-02T10:00:00Z", "no API key\\nat all")
	in, err := LoadBundle(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if in.Run != "builtin" || in.B != "## B\n\nold answer" || !in.Replay.Newest {
		t.Fatalf("picked %s (newest %v): %q", in.Run, in.Replay.Newest, in.B)
	}
	if d := cmp.Diff([]string{"again", "cascade"}, in.Replay.SkippedNewer); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	var buf strings.Builder
	if err := NewReport([]*Comparison{Compare(in)}, nil, nil).WriteText(&buf, TextOptions{Stat: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "(run builtin (newest with an answer; newer, failed: again, cascade), model builtin") {
		t.Errorf("text:\n%s", buf.String())
	}
	// Asked for by name, the failed run is an error that says why.
	_, err = LoadBundle(b, Options{Run: "cascade"})
	var na *NoAnswerError
	if !errors.As(err, &na) || !strings.Contains(err.Error(), "replay cascade has no answer (no replays/cascade/output.md): no API key") {
		t.Errorf("--run cascade: %v", err)
	}
	// Only failed runs: a NoAnswerError listing them, errors on one line.
	only := t.TempDir()
	writeFile(t, filepath.Join(only, "actual-output.md"), "## A\n\nx")
	failedReplay(t, only, "cascade", "2026-07-01T10:00:00Z", "no API key\\nat all")
	_, err = LoadBundle(only, Options{})
	if !errors.As(err, &na) || err.Error() != "no replay with an answer: cascade failed (no API key at all)" ||
		len(na.Runs) != 1 || na.Runs[0] != (bundle.RunState{Run: "cascade", Error: "no API key at all"}) {
		t.Errorf("only failed: %v %+v", err, na)
	}
	// CompareBundles marks both kinds and TallyRuns sums them.
	none := t.TempDir()
	writeFile(t, filepath.Join(none, "actual-output.md"), "## A\n\nx")
	cs, errs := CompareBundles([]string{b, only, none}, Options{}, 2)
	if len(cs) != 1 || len(errs) != 2 || !errs[0].NoAnswer || !errs[1].NoAnswer || len(errs[1].Runs) != 0 {
		t.Fatalf("compared %d, errors %+v", len(cs), errs)
	}
	_, errs = CompareBundles([]string{b, only}, Options{Run: "cascade"}, 1)
	want := []RunTally{{Run: "cascade", Failed: 2, FirstError: "no API key"}, {Run: "again", Failed: 1, FirstError: "no API key at all"}, {Run: "builtin", Answered: 1}}
	if d := cmp.Diff(want, TallyRuns(errs)); d != "" {
		t.Errorf("tally (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"again", "builtin", "cascade"}, bundle.RunNames([]string{b, only, none})); d != "" {
		t.Errorf("run names (-want +got):\n%s", d)
	}
}

// TestLoadBundleReadsAnyBytes: what compact writes, compact reads. A NUL
// byte, bytes that are not UTF-8, escape sequences and nothing at all in
// any file of a bundle (extract writes a message's bytes as they are, and
// an agent's summary may be empty; a model answers what it likes) are
// compared, not refused.
func TestLoadBundleReadsAnyBytes(t *testing.T) {
	b := t.TempDir()
	writeFile(t, filepath.Join(b, "actual-output.md"), "## A\n\nkeep src/a\x00.ts \xff\xfe\x1b[2J")
	writeFile(t, filepath.Join(b, "compact-history.xml"), "<user>edit src/a\x00.ts \xc3\x1b]0;pwned\x07</user>")
	fakeReplay(t, b, "builtin", "PK\x03\x04\x00\x00\n## B\n\n\xff", "")
	in, err := LoadBundle(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !in.HasHistory || len(in.Warnings) != 0 || !strings.Contains(in.A, "\x00") || !utf8.ValidString(in.A+in.B+in.History) {
		t.Fatalf("HasHistory %v, warnings %q, A %q", in.HasHistory, in.Warnings, in.A)
	}
	c := Compare(in)
	var buf bytes.Buffer
	if err := NewReport([]*Comparison{c}, nil, nil).WriteText(&buf, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	// A blank briefing (an agent's empty summary; a blank answer) is a
	// briefing that kept nothing.
	writeFile(t, filepath.Join(b, "actual-output.md"), "")
	fakeReplay(t, b, "builtin", "  \n", "")
	if in, err := LoadBundle(b, Options{}); err != nil || in.A != "" {
		t.Fatalf("blank briefings: %v", err)
	} else if err := NewReport([]*Comparison{Compare(in)}, nil, nil).WriteJSON(&bytes.Buffer{}); err != nil {
		t.Fatalf("blank briefings: %v", err)
	}
	if strings.Contains(strings.NewReplacer(ansiReset, "", ansiBold, "", ansiRed, "", ansiGreen, "", ansiCyan, "").Replace(buf.String()), "\x1b") {
		t.Errorf("an escape sequence of the bundle reached the text:\n%q", buf.String())
	}
}

// TestReadLooseRefusesBlank: a blank file is a blank briefing in a bundle,
// and refused as a file given by hand (--a, --b).
func TestReadLooseRefusesBlank(t *testing.T) {
	p := filepath.Join(t.TempDir(), "output.md")
	writeFile(t, p, " \n")
	if _, err := readLoose(p); !errors.Is(err, bundle.ErrEmpty) || err.Error() != p+" is empty" {
		t.Errorf("readLoose(blank) = %v", err)
	}
}
