package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/mdtext"
)

// checkProbes holds every probe to the shape a report and a judge rely on.
func checkProbes(t *testing.T, name, history string, probes []Probe) {
	t.Helper()
	turns := len(mdtext.ParseHistory(history).Turns)
	for _, p := range probes {
		ok := false
		for _, k := range Kinds {
			ok = ok || p.Kind == k
		}
		if !ok || p.ID == "" || p.Question == "" || len(p.Expected) == 0 || p.Expected[0] == "" || p.Match == "" {
			t.Errorf("%s: malformed probe %+v", name, p)
		}
		if p.Source.Message < -1 || p.Source.Message >= turns || (p.Source.Message == -1) != (p.Source.From == mdtext.FromPrevious) {
			t.Errorf("%s: %s: source %+v of %d turns", name, p.ID, p.Source, turns)
		}
	}
}

// TestMineConformanceCorpus mines every compact history of the
// conformance corpus and scores its actual briefing: no probe is
// malformed, and the app's briefings answer most probes.
func TestMineConformanceCorpus(t *testing.T) {
	var files []string
	_ = filepath.WalkDir(filepath.Join("..", "..", "testdata", "conformance"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "compact-history.xml" {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 50 {
		t.Fatalf("only %d compact histories in the corpus", len(files))
	}
	total, kept := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		probes := Mine(string(data), Options{})
		checkProbes(t, f, string(data), probes)
		actual, err := os.ReadFile(filepath.Join(filepath.Dir(f), "actual-output.md"))
		if err != nil || strings.TrimSpace(string(actual)) == "" {
			continue
		}
		s := ScoreBriefing(Actual, string(actual), probes)
		total += s.Overall.Total
		kept += s.Overall.Kept
	}
	if total == 0 || float64(kept)/float64(total) < 0.5 {
		t.Errorf("the corpus's briefings answer %d of %d probes", kept, total)
	}
	t.Logf("%d histories; actual briefings answer %d of %d probes", len(files), kept, total)
}

func FuzzMine(f *testing.F) {
	f.Add("<user>Use w1/a.ts, not b. It takes 2,400 ms.</user>\n<assistant>[shell: Build → exit 2]\n[edited: w1/a.ts (1 edits)]\n[shell: Build → ✓]\nTS2345?</assistant>")
	f.Add("<previous-chat-history>## A\n\nThe user wants [](path:w1/x.ts) kept.</previous-chat-history>\n<user>[attached: a.png]\nGo.</user>")
	f.Add("<assistant>[asked user: T → a: b; c: true]\n[moved: w1/a → w1/b]</assistant>")
	f.Fuzz(func(t *testing.T, history string) {
		probes := Mine(history, Options{})
		checkProbes(t, "fuzz", history, probes)
		ScoreBriefing("x", history, probes)
	})
}
