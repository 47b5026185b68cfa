package diff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSentencesSplitsProseAndSkipsHeadings(t *testing.T) {
	text := "## Topic\n\nYou read [](path:w1/a.ts). Then you fixed it, e.g. the import!\n" +
		"It was wrapped\nover two lines. Is it done? yes it is.\n\n" +
		"- a bullet. Two\n| a | b |\n"
	got := Sentences(text)
	want := []string{
		"You read [](path:w1/a.ts).",
		"Then you fixed it, e.g. the import!",
		"It was wrapped over two lines.",
		"Is it done? yes it is.",
		"- a bullet.", "Two",
		"| a | b |",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Sentences (-want +got):\n%s", d)
	}
}

func TestContentWordsStemsAndDropsStopWords(t *testing.T) {
	got := ContentWords("You changed the Changes; the user's change was tested.")
	want := []string{"chang", "test"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ContentWords (-want +got):\n%s", d)
	}
}
