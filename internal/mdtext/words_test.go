package mdtext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContentWordsStemsAndDropsStopWords(t *testing.T) {
	got := ContentWords("You changed the Changes; the user's change was tested.")
	want := []string{"chang", "test"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ContentWords (-want +got):\n%s", d)
	}
}

func TestCoverIndexUsesTwoSentenceWindows(t *testing.T) {
	ix := newCoverIndex(analyzeAll([]string{"Alpha beta.", "Gamma delta.", "Epsilon."}))
	share, ok := ix.best(ContentWords("alpha beta gamma delta"), ReuseThreshold, false)
	if !ok || share != 1 {
		t.Errorf("best = %v, %v; want 1, true", share, ok)
	}
	if _, ok := ix.best(ContentWords("alpha epsilon zeta"), ReuseThreshold, false); ok {
		t.Error("alpha and epsilon are two sentences apart: want no window")
	}
}

func TestCoverIndexResetsBetweenQueries(t *testing.T) {
	ix := newCoverIndex(analyzeAll([]string{"Alpha beta.", "Gamma delta.", "Epsilon zeta.", "Alpha zeta."}))
	for range 3 {
		if _, ok := ix.best(ContentWords("alpha beta"), 1, false); !ok {
			t.Fatal("alpha beta not found")
		}
		if share, ok := ix.best(ContentWords("beta epsilon"), 1, false); ok || share != 0.5 {
			t.Fatalf("beta epsilon: %v %v, want 0.5 false", share, ok)
		}
	}
}
