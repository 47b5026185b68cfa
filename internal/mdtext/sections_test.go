package mdtext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitSectionsAtLevelTwoHeadingsOutsideCode(t *testing.T) {
	text := "Intro line.\n## One\nbody 1\n### Sub stays\n```\n## not a heading\n```\n##Two is not a heading\n## Two ##\nbody 2"
	got := SplitSections(text)
	want := []Section{
		{Preamble: true, Line: 1, Body: "Intro line."},
		{Heading: "One", Line: 2, Body: "body 1\n### Sub stays\n```\n## not a heading\n```\n##Two is not a heading"},
		{Heading: "Two", Line: 9, Body: "body 2"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SplitSections (-want +got):\n%s", d)
	}
}
