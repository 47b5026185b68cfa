package mdtext

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/testfiles"
)

// TestPrefilterAgreesWithTheRegexps: the word prefilter of IsDecision
// never turns down a sentence the regular expressions take, on every
// distinct sentence of the conformance corpus and on random mixes of cue
// words, punctuation and other words.
func TestPrefilterAgreesWithTheRegexps(t *testing.T) {
	// The corpus's bundles repeat their histories: of its 35,000
	// sentences fewer than 2,000 differ, and a sentence checked twice
	// proves nothing more. Each distinct sentence is checked once.
	seen := map[string]bool{}
	var sentences []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			sentences = append(sentences, s)
		}
	}
	filepath.Walk(filepath.Join("..", "..", "testdata", "conformance"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".xml") {
			return nil
		}
		data, _ := os.ReadFile(p)
		for _, line := range strings.Split(string(data), "\n") {
			for _, s := range strings.Split(line, ". ") {
				add(s)
			}
		}
		return nil
	})
	if len(sentences) < 1000 {
		t.Fatalf("only %d distinct sentences in the conformance corpus", len(sentences))
	}
	words := strings.Fields("must never always should shouldn't shouldn’t ought to prefer rather than instead avoid make sure ensure from now on going forward you we I need have don't do not want like use keep only ignore stop leave stick skip go with no problem and but so then please let's we'll i'd - , ; : ( — Must NOT Don’t x the file tests")
	rng := rand.New(rand.NewPCG(1, 2))
	// 200,000 random sentences; a tenth under the race detector, which
	// makes them ten times slower and finds nothing more in this
	// single-goroutine check (FuzzDecisionPrefilter searches further).
	random := 200000
	if testfiles.Race {
		random = 20000
	}
	for range random {
		n := 1 + rng.IntN(6)
		var b strings.Builder
		for i := range n {
			if i > 0 && rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		add(b.String())
	}
	for _, s := range sentences {
		ts := strings.TrimSpace(s)
		if ts == "" || strings.HasSuffix(ts, "?") || len(ts) > 400 {
			continue
		}
		if IsDecision(s) != isDecisionRe(ts) {
			t.Errorf("IsDecision(%q) = %v, the regexps say %v", s, IsDecision(s), isDecisionRe(ts))
		}
	}
}

// FuzzDecisionPrefilter: on any sentence, the word prefilter of IsDecision
// turns down only what the regular expressions turn down too.
func FuzzDecisionPrefilter(f *testing.F) {
	for _, s := range []string{"Use a cursor, not offsets.", "Please, just keep it.", "(only the header)", "x — no tabs", "And use it - skip that", "dont0", "MuſT", "\u212aeep it."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts := strings.TrimSpace(s)
		if ts == "" || strings.HasSuffix(ts, "?") || len(ts) > 400 {
			return
		}
		if got, want := IsDecision(s), isDecisionRe(ts); got != want {
			t.Fatalf("IsDecision(%q) = %v, the regexps say %v", s, got, want)
		}
	})
}
