package briefing_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/briefing"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/testfiles"
)

// probeBundle is a compact history with its probes and, when there is
// one, the app's briefing.
type probeBundle struct {
	name    string
	history string
	actual  string
	probes  []eval.Probe
}

// conformanceProbeBundles lists every non-empty compact history of the
// conformance corpus (both modes), with its probes and actual output.
func conformanceProbeBundles(t testing.TB) []probeBundle {
	t.Helper()
	root := filepath.Join("..", "..", "testdata", "conformance")
	var out []probeBundle
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "compact-history.xml" {
			return err
		}
		h, err := os.ReadFile(p)
		if err != nil || strings.TrimSpace(string(h)) == "" {
			return err
		}
		a, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "actual-output.md"))
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		out = append(out, probeBundle{name: filepath.ToSlash(rel), history: string(h), actual: string(a),
			probes: eval.Mine(string(h), eval.Options{})})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// probeScores is what `compact eval` reports for one briefing over many
// bundles: the mean share per bundle overall and per kind (over the
// bundles with probes of that kind), and the probes lost.
type probeScores struct {
	bundles int
	overall float64
	kinds   map[eval.Kind]float64
	lost    int
	over    int // briefings over the target
	chars   int // total size
}

func (s probeScores) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "overall %.3f", s.overall)
	for _, k := range eval.Kinds {
		if v, ok := s.kinds[k]; ok {
			fmt.Fprintf(&b, "  %s %.3f", k, v)
		}
	}
	fmt.Fprintf(&b, "  lost %d  over %d  mean chars %d", s.lost, s.over, s.chars/max(1, s.bundles))
	return b.String()
}

// scoreProbes scores brief(b) of every bundle b (a bundle for which brief
// gives "" is left out) the way `compact eval` summarises a briefing.
func scoreProbes(bundles []probeBundle, brief func(b *probeBundle) string, lost func(b *probeBundle, p *eval.Probe)) probeScores {
	s := probeScores{kinds: map[eval.Kind]float64{}}
	sums, counts := map[eval.Kind]float64{}, map[eval.Kind]int{}
	for i := range bundles {
		b := &bundles[i]
		text := brief(b)
		if text == "" {
			continue
		}
		sc := eval.ScoreBriefing("b", text, b.probes)
		s.bundles++
		s.chars += sc.Chars
		s.overall += sc.Score()
		s.lost += len(sc.Lost)
		for k, t := range sc.Kinds {
			if t.Total > 0 {
				sums[k] += t.Share()
				counts[k]++
			}
		}
		if lost != nil {
			for _, j := range sc.Lost {
				lost(b, &b.probes[j])
			}
		}
	}
	if s.bundles > 0 {
		s.overall /= float64(s.bundles)
	}
	for k, n := range counts {
		s.kinds[k] = sums[k] / float64(n)
	}
	return s
}

// TestProbeReport logs, with BRIEFING_PROBE_REPORT set, the builtin
// briefing's probe scores on the conformance corpus and the shipped
// sample at several size targets, beside the app's briefings (with
// BRIEFING_PROBE_REPORT=v, every probe lost too).
func TestProbeReport(t *testing.T) {
	mode := os.Getenv("BRIEFING_PROBE_REPORT")
	if mode == "" {
		t.Skip("set BRIEFING_PROBE_REPORT to print the report")
	}
	conf := conformanceProbeBundles(t)
	sampleHist, _ := sampleBundles(t, 0)
	var sample []probeBundle
	for _, g := range sampleHist {
		sample = append(sample, probeBundle{name: g.name, history: g.history, probes: eval.Mine(g.history, eval.Options{})})
	}
	sets := []struct {
		name string
		bs   []probeBundle
	}{{"corpus", conf}, {"sample", sample}}
	if n := os.Getenv("BRIEFING_PROBE_CHATS"); n != "" {
		chats := 0
		fmt.Sscan(n, &chats)
		gen, _ := sampleBundles(t, chats)
		var gs []probeBundle
		for _, g := range gen {
			gs = append(gs, probeBundle{name: g.name, history: g.history, probes: eval.Mine(g.history, eval.Options{})})
		}
		sets = append(sets, struct {
			name string
			bs   []probeBundle
		}{"generated", gs})
	}
	for _, set := range sets {
		t.Logf("%s: actual   %v", set.name, scoreProbes(set.bs, func(b *probeBundle) string { return b.actual }, nil))
		for _, target := range []int{30000, 6000, 3000, 1500, 800} {
			var lost func(b *probeBundle, p *eval.Probe)
			if mode == "v" {
				lost = func(b *probeBundle, p *eval.Probe) {
					t.Logf("  %d lost %s: %s %q", target, b.name, p.Kind, p.Expected[0])
				}
			}
			over := 0
			s := scoreProbes(set.bs, func(b *probeBundle) string {
				out := briefing.Write(b.history, briefing.Options{TargetChars: target})
				if len([]rune(out)) > target {
					over++
				}
				return out
			}, lost)
			s.over = over
			t.Logf("%s: builtin@%-5d %v", set.name, target, s)
		}
	}
}

// probeHistory is a hand-built compact history with something of every
// probe kind: a previous briefing with a path, a decision and an error
// code; then requests with the user's decisions, numbers and an
// attachment; files read, created, edited, moved and deleted; a command
// that failed and was fixed, one that failed and was not, one that was
// denied; a form; and a last request. Filler tasks of long prose, each
// with a file of its own, come between, so that a small target has to
// condense.
func probeHistory(filler int) string {
	var b strings.Builder
	b.WriteString("<previous-chat-history>## Cursor pagination\n\n" +
		"The user asked for server-side pagination of [](path:w1/server/routes/recipes.ts). " +
		"You proposed offsets, but the user required a cursor on `(created_at, id)` instead. " +
		"`pnpm tsc` failed with TS2345 in [](path:w1/src/api/recipes.ts); you fixed the type and it passed.\n\n" +
		"## Current working state\n\nYou ran the server tests, which passed. Next, wire the client.</previous-chat-history>\n")
	b.WriteString("<user>Wire the client to the new endpoint. Use React Query, not a hand-rolled hook. Keep 24 recipes per page.</user>\n")
	b.WriteString("<assistant>[read: w1/src/api/recipes.ts]\n[created: w1/src/hooks/useRecipePages.ts]\n" +
		"[edited: w1/src/pages/Recipes.tsx (3 edits)]\n[shell: Type-check → exit 2]\n" +
		"The type-check found TS2339 on `data.items`.\n[edited: w1/src/pages/Recipes.tsx (1 edits)]\n[shell: Type-check → ✓]\n" +
		"The client now uses an infinite query.</assistant>\n")
	for i := range filler {
		n := strconv.Itoa(i)
		b.WriteString("<user>Tidy the helpers in w1/src/lib/helper" + n + ".ts and explain what changed. " +
			strings.Repeat("Explain the reasoning in detail so I can review it later. ", 3) + "</user>\n")
		b.WriteString("<assistant>[read: w1/src/lib/helper" + n + ".ts]\n[edited: w1/src/lib/helper" + n + ".ts (2 edits)]\n" +
			strings.Repeat("I renamed the internal functions and merged two loops into one, which reads better. ", 6) + "</assistant>\n")
	}
	b.WriteString("<user>[attached: slow-scroll.mov]\nScrolling stutters after 240 items. Never load more than 3 pages at once.</user>\n")
	b.WriteString("<assistant>[read: w1/src/components/RecipeList.tsx]\n[edited: w1/src/components/RecipeList.tsx (2 edits)]\n" +
		"[moved: w1/src/utils/old-scroll.ts → w1/src/lib/scroll.ts]\n[deleted: w1/src/utils/legacy.ts]\n" +
		"[asked user: Virtualization → Library: react-window; Overscan: 5 rows]\n" +
		"[shell: Remove node_modules and reinstall ✗ denied]\n[shell: Run the e2e tests → exit 1]\n" +
		"The list is virtualised with react-window; the e2e run still fails on the scroll test.</assistant>\n")
	b.WriteString("<user>Fix the e2e scroll test, then tell me the bundle size.</user>")
	return b.String()
}

// TestBriefingKeepsEveryProbeKind: the builtin briefing of probeHistory
// answers every probe `compact eval` mines from it, at the default target
// and squeezed to a third of its full size: every path (the artifact
// trail), the failures and whether each was fixed, the error codes, the
// user's decisions, numbers and form answers, the attachment and the last
// request.
func TestBriefingKeepsEveryProbeKind(t *testing.T) {
	in := probeHistory(12)
	probes := eval.Mine(in, eval.Options{})
	kinds := map[eval.Kind]int{}
	for _, p := range probes {
		kinds[p.Kind]++
	}
	// The history holds what the test is about.
	for k, min := range map[eval.Kind]int{eval.KindArtifact: 20, eval.KindRecall: 6, eval.KindDecision: 4, eval.KindContinuation: 1} {
		if kinds[k] < min {
			t.Fatalf("%d %s probes mined, want at least %d: %+v", kinds[k], k, min, probes)
		}
	}
	full := briefing.Write(in, briefing.Options{})
	size := len([]rune(full))
	for _, profile := range []string{mdtext.ProfileE3E, mdtext.ProfileHead} {
		for _, target := range []int{briefing.DefaultTargetChars, size / 2, size / 3} {
			out := briefing.Write(in, briefing.Options{TargetChars: target, Profile: profile})
			if n := len([]rune(out)); n > target {
				t.Errorf("%s at %d: %d characters, over the target", profile, target, n)
			}
			for _, v := range mdtext.CheckRules(out, profile) {
				t.Errorf("%s at %d: rule %s: %s", profile, target, v.Rule, v.Example)
			}
			s := eval.ScoreBriefing("builtin", out, probes)
			for _, i := range s.Lost {
				t.Errorf("%s at %d (full %d): lost %s probe %q", profile, target, size, probes[i].Kind, probes[i].Expected[0])
			}
			if t.Failed() {
				t.Logf("briefing at %d:\n%s", target, out)
				return
			}
		}
	}
	// What the failures' probes expect: the type-check failed and was
	// fixed, the e2e run failed and was not, the reinstall was denied.
	for _, want := range []string{"Type-check: failed with exit 2, fixed later", "Run the e2e tests: failed with exit 1, not fixed",
		"Remove node_modules and reinstall: failed with an error, not fixed", "TS2345", "TS2339", "slow-scroll.mov", "240", "react-window"} {
		found := false
		for _, p := range probes {
			found = found || p.Expected[0] == want
		}
		if !found {
			t.Errorf("no probe expects %q", want)
		}
	}
}

// conformanceFloors are the least offline probe scores (overall and per
// kind, means over the bundles) the builtin briefing must reach on the
// conformance corpus, at the default target and squeezed. Measured
// (overall, artifact, recall, decision, continuation): at 30000 1.000,
// 1.000, 0.993, 1.000, 1.000, against the app's briefings' 0.384, 0.807,
// 0.404, 0.025, 0.163; at 6000 0.920, 0.831, 0.993, 1.000, 1.000 (the
// writer before the files section and the condensed decisions and
// failures: 0.880, 0.747, 0.993, 1.000, 1.000); at 3000 0.880, 0.751,
// 0.978, 1.000, 1.000 (before: 0.862, 0.711, 0.980, 1.000, 1.000). The
// artifact share is bounded at small targets by chains of hundreds of
// paths.
var conformanceFloors = []struct {
	target int
	floors map[string]float64
}{
	{briefing.DefaultTargetChars, map[string]float64{"overall": 0.99, "artifact": 0.99, "recall": 0.98, "decision": 0.99, "continuation": 0.99}},
	{6000, map[string]float64{"overall": 0.91, "artifact": 0.82, "recall": 0.98, "decision": 0.99, "continuation": 0.99}},
	{3000, map[string]float64{"overall": 0.87, "artifact": 0.74, "recall": 0.95, "decision": 0.95, "continuation": 0.99}},
}

// TestConformanceProbeScores scores the builtin briefing of every bundle
// of the conformance corpus against the probes `compact eval` mines: it
// must beat the app's briefings and keep its floors.
func TestConformanceProbeScores(t *testing.T) {
	bundles := conformanceProbeBundles(t)
	if len(bundles) < 100 {
		t.Fatalf("only %d bundles in the corpus", len(bundles))
	}
	actual := scoreProbes(bundles, func(b *probeBundle) string { return b.actual }, nil)
	t.Logf("actual:        %v", actual)
	for _, c := range conformanceFloors {
		s := scoreProbes(bundles, func(b *probeBundle) string {
			return briefing.Write(b.history, briefing.Options{TargetChars: c.target})
		}, nil)
		t.Logf("builtin@%-5d: %v", c.target, s)
		got := map[string]float64{"overall": s.overall}
		for k, v := range s.kinds {
			got[string(k)] = v
		}
		for k, floor := range c.floors {
			if got[k] < floor {
				t.Errorf("builtin at %d: %s %.3f, below the floor %.2f", c.target, k, got[k], floor)
			}
		}
		if s.overall <= actual.overall {
			t.Errorf("builtin at %d: overall %.3f, not above the app's %.3f", c.target, s.overall, actual.overall)
		}
	}
}

// TestShippedSampleProbeScores: on the shipped sample the builtin
// briefing answers every probe at the pack's target and at 3,000
// characters, and nearly all at 1,500 (measured 0.908; 0.803 before the
// files section and the condensed decisions and failures).
func TestShippedSampleProbeScores(t *testing.T) {
	hist, target := sampleBundles(t, 0)
	var bundles []probeBundle
	for _, g := range hist {
		bundles = append(bundles, probeBundle{name: g.name, history: g.history, probes: eval.Mine(g.history, eval.Options{})})
	}
	for _, c := range []struct {
		target int
		floor  float64
	}{{target, 1}, {3000, 1}, {1500, 0.9}} {
		s := scoreProbes(bundles, func(b *probeBundle) string {
			return briefing.Write(b.history, briefing.Options{TargetChars: c.target})
		}, func(b *probeBundle, p *eval.Probe) {
			if c.floor == 1 {
				t.Errorf("at %d: %s lost %s probe %q", c.target, b.name, p.Kind, p.Expected[0])
			}
		})
		t.Logf("builtin@%-5d: %v", c.target, s)
		if s.overall < c.floor {
			t.Errorf("at %d: overall %.3f, below %.2f", c.target, s.overall, c.floor)
		}
	}
}

// TestSmallTargetBriefingsKeepTheRules writes the briefings of a generated
// database at small targets, where the condensed forms, the merged
// sections and the files section are written, and checks each against the
// rules of `compact diff` and for readable headings and sentences.
func TestSmallTargetBriefingsKeepTheRules(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a generated database")
	}
	chats := 40
	if testfiles.Race {
		chats = 10
	}
	bundles, _ := sampleBundles(t, chats)
	for _, target := range []int{6000, 3000, 1500} {
		checkBriefings(t, bundles, target)
	}
}
