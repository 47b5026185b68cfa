package mdtext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decisionSet is the test set of the decision heuristic: user sentences
// and whether they state a decision, preference, constraint or rule. Rows
// marked "known miss" or "known false positive" document the heuristic's
// limits; they pin its current answer, not the ideal one.
var decisionSet = []struct {
	s    string
	want bool
	note string
}{
	// Cues anywhere.
	{"It should be the brand teal (#0f766e) like in the design, see the screenshot.", true, "should"},
	{"Thanks! One more: the focus ring should be 2px, not 3px.", true, "should, contrast"},
	{"You must not change the public API.", true, "must"},
	{"Never push to main directly.", true, "never"},
	{"Always run the linter before committing.", true, "always"},
	{"I prefer composition over inheritance here.", true, "prefer"},
	{"Use Tailwind instead of CSS modules.", true, "instead"},
	{"We already have @tanstack/react-query, use its infinite query instead of a hand-rolled hook.", true, "instead"},
	{"Avoid inline styles in the components.", true, "avoid"},
	{"Make sure the migration is reversible.", true, "make sure"},
	{"From now on, write the commit messages in English.", true, "from now on"},
	{"We need to support Safari 15.", true, "we need to"},
	{"Use a cursor on (created_at, id), not offsets.", true, "contrast"},
	{"We use pnpm, not npm.", true, "contrast"},
	{"I don't want a new dependency for this.", true, "I don't want"},
	{"We don't use default exports.", true, "we don't"},
	{"Keep it under 100 lines rather than splitting it.", true, "rather than"},
	// Cues at the start of a clause.
	{"Also, the disabled variant still uses the old grey #9ca3af; use --color-muted.", true, "use after ;"},
	{"Fine, ignore that warning.", true, "ignore after ,"},
	{"Don't commit, I'll do it myself.", true, "imperative don't"},
	{"Please do not touch the generated files.", true, "please do not"},
	{"Keep the old API for now.", true, "keep"},
	{"Only touch files under src/.", true, "only"},
	{"Yes, leave it.", true, "leave"},
	{"Skip e2e, it's flaky on this machine.", true, "skip"},
	{"Add a 'Load more' button, no infinite scroll for now.", true, "no X"},
	{"No bullets in the release notes.", true, "no X"},
	{"Let's go with the second option.", true, "go with"},
	{"Stick to the existing naming scheme.", true, "stick"},
	{"And use the same colours as the header.", true, "and use"},
	// Not decisions.
	{"The primary Button is red again after the last merge.", false, "report"},
	{"Still red in the browser.", false, "report"},
	{"Did you check tokens.css?", false, "question"},
	{"Should I use tabs or spaces?", false, "question with a cue"},
	{"Rename the hook useFavs to useFavorites everywhere, file name included.", false, "task request"},
	{"Please run the tests.", false, "request"},
	{"Just list the changed files.", false, "request"},
	{"Now it's teal, but the hover state is way too dark.", false, "complaint"},
	{"I keep getting this error.", false, "keep not at clause start"},
	{"It only fails on CI.", false, "only not at clause start"},
	{"I don't see any.", false, "description with don't"},
	{"When I pick System and then switch the OS theme, the app doesn't follow.", false, "description with doesn't"},
	{"No, that's wrong.", false, "No as an answer"},
	{"No problem, thanks.", false, "no problem"},
	{"The users of this app are mostly on mobile.", false, "user is not use"},
	// Known limits.
	{"Update the snapshot, that's expected.", false, "known miss: bare approval"},
	{"Yes, go ahead.", false, "known miss: bare approval"},
	{"Undo that, the designer says no filters.", false, "known miss: reported constraint"},
	{"The nightly job never finishes.", true, "known false positive: fact with never"},
}

func TestDecisionHeuristicTestSet(t *testing.T) {
	for _, tc := range decisionSet {
		if got := IsDecision(tc.s); got != tc.want {
			t.Errorf("IsDecision(%q) = %v, want %v (%s)", tc.s, got, tc.want, tc.note)
		}
	}
}

func TestDecisionsSplitsUserTurnAndSkipsAnnotationsAndCode(t *testing.T) {
	turn := "[attached: shot.png]\n[mentioned: w1/src/a.ts]\n" +
		"The button is red. It should be teal, not red. Why is that?\n" +
		"```\nyou must never see this\n```\n" +
		"- Keep the border.\n- Just a question"
	got := Decisions(turn)
	want := []string{"It should be teal, not red.", "Keep the border."}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Decisions (-want +got):\n%s", d)
	}
}
