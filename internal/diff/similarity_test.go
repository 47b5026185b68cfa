package diff

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/mdtext"
)

// naiveLCS is the textbook dynamic programme.
func naiveLCS(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestLCSLengthMatchesTheDynamicProgramme(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "c", "d", "e", "f", "g"}
	for n := 0; n < 300; n++ {
		la, lb := r.Intn(200), r.Intn(200)
		if n%50 == 0 {
			la, lb = 64*(1+r.Intn(3)), 63+r.Intn(3) // word boundaries
		}
		a, b := make([]string, la), make([]string, lb)
		k := 2 + r.Intn(len(alphabet)-1)
		for i := range a {
			a[i] = alphabet[r.Intn(k)]
		}
		for i := range b {
			b[i] = alphabet[r.Intn(k)]
		}
		if got, want := LCSLength(a, b), naiveLCS(a, b); got != want {
			t.Fatalf("LCSLength(%v, %v) = %d, want %d", a, b, got, want)
		}
	}
}

func TestRougeLOnSmallTexts(t *testing.T) {
	tests := []struct {
		name    string
		a, b    string
		lcs     int
		p, r, f float64
	}{
		{"identical", "You fixed the button.", "You fixed the button.", 4, 1, 1, 1},
		{"one word changed", "you fixed the red button", "you fixed the teal button", 4, 0.8, 0.8, 0.8},
		// LCS "the cat" (2); P = 2/3, R = 2/4, F = 2PR/(P+R) = 4/7.
		{"partial", "the cat sat down", "the black cat", 2, 0.6667, 0.5, 0.5714},
		{"disjoint", "alpha beta", "gamma delta", 0, 0, 0, 0},
		{"both empty", "", "", 0, 1, 1, 1},
		{"one empty", "words here", "", 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ComputeRougeL(tc.a, tc.b)
			if got.LCS != tc.lcs || got.Precision != tc.p || got.Recall != tc.r || got.F1 != tc.f {
				t.Errorf("ComputeRougeL = %+v, want lcs %d P %v R %v F %v", got, tc.lcs, tc.p, tc.r, tc.f)
			}
		})
	}
}

func TestSentenceReuseCountsSentencesWhoseContentReappears(t *testing.T) {
	a := "## A\n\nYou changed the button colour to teal. The user approved the change. Tests passed on the first run. OK."
	b := "## B\n\nThe button colour became teal after your change. Lint was clean."
	total, reused, _ := sentenceReuse(mdtext.NewBriefing(a), mdtext.NewBriefing(b), ReuseVisitBudget)
	// "OK." has no content words; of the other three only the first
	// reappears (button, colour, teal, chang: 4 of 4).
	if total != 3 || reused != 1 {
		t.Errorf("sentenceReuse = %d/%d, want 1/3", reused, total)
	}
}

func BenchmarkCompare30000(b *testing.B) {
	a := strings.Repeat("You changed [](path:w1/src/module_1.ts) and the user approved step 1. ", 420)
	bb := strings.Replace(a, "step 1.", "step 2.", 50)
	in := Input{A: "## A\n\n" + a, B: "## A\n\n" + bb, History: "<user>Use teal, not red.</user>", HasHistory: true, WithDiffs: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Compare(in)
	}
}
