package diff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func statuses(ds []SectionDiff) []string {
	var out []string
	for _, d := range ds {
		out = append(out, string(d.Status)+" "+d.Heading)
	}
	return out
}

func TestDiffSectionsMatchesByHeading(t *testing.T) {
	a := "## Setup\n\nYou installed it.\n\n## Old topic\n\nGone later.\n\n## Fix\n\nYou fixed A. You tested B.\n\n## Current working state\n\nX. Y."
	b := "## Setup\n\nYou installed it.\n\n## Fix\n\nYou fixed A. You tested C.\n\n## New topic\n\nAdded.\n\n## current  working state\n\nX. Y."
	got := DiffSections(a, b, true)
	want := []string{"kept Setup", "only-a Old topic", "changed Fix", "only-b New topic", "kept Current working state"}
	if d := cmp.Diff(want, statuses(got)); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
	fix := got[2]
	if fix.Added != 1 || fix.Removed != 1 {
		t.Errorf("Fix: +%d -%d, want +1 -1", fix.Added, fix.Removed)
	}
	wantDiff := "--- A ## Fix\n+++ B ## Fix\n@@ -1,2 +1,2 @@\n You fixed A.\n-You tested B.\n+You tested C.\n"
	if fix.Diff != wantDiff {
		t.Errorf("Fix diff:\n%s\nwant:\n%s", fix.Diff, wantDiff)
	}
	if !strings.HasPrefix(got[1].Diff, "--- A ## Old topic\n+++ B ## Old topic\n@@ -1 +0,0 @@\n-Gone later.\n") {
		t.Errorf("only-a diff:\n%s", got[1].Diff)
	}
	if got := DiffSections(a, b, false); got[2].Diff != "" || got[2].Added != 1 {
		t.Errorf("without text: %+v", got[2])
	}
}

func TestDiffSectionsPairsRepeatedHeadingsInOrderAndHandlesPreambles(t *testing.T) {
	a := "## Step\n\none\n\n## Step\n\ntwo"
	b := "Title\n\n## Step\n\none\n\n## Step\n\ntwo!\n\n## Step\n\nthree"
	got := statuses(DiffSections(a, b, false))
	want := []string{"only-b ", "kept Step", "changed Step", "only-b Step"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
}
