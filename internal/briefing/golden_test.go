package briefing

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the conformance corpus")

const corpusGlob = "../../testdata/conformance/*/expected/messages/experiments-data/history-compression/*/*/*/compact-history.xml"

// corpus returns the conformance corpus's compact histories by golden name,
// <case>-<chat>-<n>.md.
func corpus(t testing.TB) map[string]string {
	t.Helper()
	files, err := filepath.Glob(corpusGlob)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no compact histories match %s", corpusGlob)
	}
	out := map[string]string{}
	for _, f := range files {
		rel, _ := filepath.Rel("../../testdata/conformance", f)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		// <case>/expected/messages/experiments-data/history-compression/<channel>/<chat>/compression-<n>/compact-history.xml
		name := parts[0] + "-" + parts[6] + "-" + strings.TrimPrefix(parts[7], "compression-") + ".md"
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
	}
	return out
}

func TestGoldenConformanceBriefings(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	in := corpus(t)
	names := make([]string, 0, len(in))
	for n := range in {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			compact := in[name]
			got := Write(compact, Options{})
			for _, e := range ruleErrors(got, Options{}, history.Len16(prevOf(compact))) {
				t.Error(e)
			}
			path := filepath.Join(dir, name)
			if *update {
				if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got+"\n" != string(want) {
				t.Errorf("briefing differs from %s (run go test -update to accept):\n%s", path, got)
			}
		})
	}
}

// TestGoldenHeadProfileKeepsRules runs the corpus at the head profile: the
// same rules hold, without the working-state section.
func TestGoldenHeadProfileKeepsRules(t *testing.T) {
	for name, compact := range corpus(t) {
		opts := Options{Profile: "head"}
		got := Write(compact, opts)
		for _, e := range ruleErrors(got, opts, history.Len16(prevOf(compact))) {
			t.Errorf("%s: %s", name, e)
		}
		if strings.Contains(got, "## "+stateHeading) {
			t.Errorf("%s: head briefing has a working-state section", name)
		}
	}
}

// TestGoldenHalfTargetKeepsRules squeezes every longer corpus briefing into
// half its size: the rules, and the target, still hold.
func TestGoldenHalfTargetKeepsRules(t *testing.T) {
	for name, compact := range corpus(t) {
		full := Write(compact, Options{})
		if history.Len16(full) < 2000 {
			continue
		}
		opts := Options{TargetChars: history.Len16(full) / 2}
		got := Write(compact, opts)
		prevLen := history.Len16(prevOf(compact))
		for _, e := range ruleErrors(got, opts, prevLen) {
			t.Errorf("%s: %s", name, e)
		}
	}
}
