package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/bundle"
)

// TestSampleExtractReplayDiff is the whole offline loop on the shipped
// sample: extract, replay with the built-in model, diff. The measures are
// stable from run to run, and --fail-on exits as the measures say.
func TestSampleExtractReplayDiff(t *testing.T) {
	measure := func() (string, map[string]any) {
		dir := extractSample(t)
		if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", dir); code != 0 {
			t.Fatalf("replay: %s", errOut)
		}
		code, out, errOut := runIn(t, nil, "diff", "--json", dir)
		if code != 0 {
			t.Fatalf("diff: exit %d: %s", code, errOut)
		}
		var res struct {
			Comparisons []struct {
				Bundle string `json:"bundle"`
				A, B   struct {
					Chars     int   `json:"chars"`
					Lost      []any `json:"lost"`
					Leaks     []any `json:"leaks"`
					LostPaths int   `json:"lostPaths"`
				}
				Similarity struct {
					RougeL struct {
						F1 float64 `json:"f1"`
					} `json:"rougeL"`
				} `json:"similarity"`
			} `json:"comparisons"`
			Summary map[string]any `json:"summary"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Comparisons) != 7 {
			t.Fatalf("%d comparisons, want 7", len(res.Comparisons))
		}
		// Strip what legitimately changes (paths of temp dirs, times) and
		// keep the measures.
		var b strings.Builder
		for _, c := range res.Comparisons {
			name := c.Bundle[strings.Index(c.Bundle, "prerelease"):]
			if c.B.LostPaths != 0 || len(c.B.Leaks) != 0 {
				t.Errorf("%s: the builtin briefing lost %d paths, leaked %v", name, c.B.LostPaths, c.B.Leaks)
			}
			b.WriteString(name)
			b.WriteString(" ")
			jb, _ := json.Marshal([]any{c.A.Chars, c.B.Chars, len(c.A.Lost), len(c.B.Lost), c.Similarity.RougeL.F1})
			b.Write(jb)
			b.WriteString("\n")
		}
		return b.String(), res.Summary
	}
	first, _ := measure()
	second, _ := measure()
	if first != second {
		t.Errorf("measures changed between runs:\n%s\n---\n%s", first, second)
	}

	dir := extractSample(t)
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", dir); code != 0 {
		t.Fatal(errOut)
	}
	// The builtin keeps every path and leaks no tag: these gates pass.
	if code, _, errOut := runIn(t, nil, "diff", "--stat", "--fail-on", "lost-paths", "--fail-on", "leak", dir); code != 0 {
		t.Errorf("--fail-on lost-paths,leak: exit %d: %s", code, errOut)
	}
	// A replay that leaks the tag and drops the paths fails both gates.
	bundles, _ := replayFinder.Find([]string{dir})
	bad := "<previous-chat-history>\n## Summary\n\nYou worked on the app and it went fine overall, nothing else."
	if err := os.WriteFile(filepath.Join(bundles[0], "replays", "builtin", "output.md"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, gate := range []string{"leak", "lost-paths"} {
		if code, _, _ := runIn(t, nil, "diff", "--stat", "--fail-on", gate, dir); code != 1 {
			t.Errorf("--fail-on %s with a bad replay: exit %d, want 1", gate, code)
		}
	}
}

// TestCommittedExampleIsCurrent keeps experiments-data/history-compression/
// example in step with the sample database, the default pack and the
// built-in model: a fresh extract and replay give the same bytes (the
// replay records' times aside).
func TestCommittedExampleIsCurrent(t *testing.T) {
	const example = "../experiments-data/history-compression/example"
	dir := filepath.Join(t.TempDir(), "example")
	if code, _, errOut := runIn(t, nil, "extract", "--db", sampleDB, "--chat", "01047173-5fee-4fd1-841b-f445a3f0c50e", "--out", dir); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", dir); code != 0 {
		t.Fatal(errOut)
	}
	fresh, _ := replayFinder.Find([]string{dir})
	committed, err := replayFinder.Find([]string{example})
	if err != nil || len(committed) != len(fresh) || len(fresh) == 0 {
		t.Fatalf("committed %d bundles (%v), fresh %d", len(committed), err, len(fresh))
	}
	for i := range fresh {
		for _, f := range []string{"system-prompt.md", "user-message.md", "compact-history.xml", "actual-output.md", "metadata.json", bundle.FileContinuation, "replays/builtin/output.md"} {
			a, errA := os.ReadFile(filepath.Join(committed[i], f))
			b, errB := os.ReadFile(filepath.Join(fresh[i], f))
			if errA != nil || errB != nil || string(a) != string(b) {
				t.Errorf("%s/%s differs from a fresh run (%v %v); regenerate: go run . extract --db examples/stagewise/instances.sqlite --chat 01047173-5fee-4fd1-841b-f445a3f0c50e --out %s --force && go run . replay --model builtin --force %s",
					filepath.Base(committed[i]), f, errA, errB, example[3:], example[3:])
			}
		}
	}
}
