package briefing

import (
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/mdtext"
)

func TestHeadingsNameTheTopic(t *testing.T) {
	tests := []struct{ name, compact, want string }{
		{"small talk before the request", "<user>Looks good. Now add tests for the parser too.</user>", "Add tests for the parser"},
		{"small talk with a comma", "<user>Great, thanks! Can you also add a dark theme?</user>", "Add a dark theme"},
		{"context line skipped", "<user>Context: this is the recipe app. Add dark mode to w1/src/App.tsx.</user>", "Add dark mode to App.tsx"},
		{"context line alone", "<user>Context: this is the recipe app (Vite + React).</user>", "The recipe app (Vite + React)"},
		{"slash command read as its verb", "<user>[/implement](slash:command:implement) the plan above.</user>", "Implement the plan above"},
		{"slash command that is no verb", "<user>[/ghost](slash:command:ghost) again</user>", "/ghost again"},
		{"bare slash command", "<user>[/review](slash:command:review)</user>", "The /review command"},
		{"report of a failure", "<user>That didn't work: w1/src/a.ts:3:1 - error TS2322</user>", "The reported failure in a.ts"},
		{"acknowledgement named by the files", "<user>ok</user>\n<assistant>[edited: w1/src/a.ts]\n[read: w1/src/b.ts]\n[read: w1/lib/c.ts]</assistant>", "Work on a.ts, b.ts and 1 more file"},
		{"acknowledgement and nothing else", "<user>Thanks!</user>", convHeading},
		{"long request cut at a clause", "<user>Make the header sticky and shrink it when the user scrolls down past the hero image on the landing page</user>", "Make the header sticky and shrink it"},
		{"no function word left hanging", "<user>Rewrite the importer of the legacy invoices so that it streams the rows from the upload</user>", "Rewrite the importer of the legacy invoices"},
		{"no open bracket left", "<user>Update the settings page (the one with the very long list of notification toggles and the footer)</user>", "Update the settings page"},
		{"code keeps its case", "<user>useTheme returns the wrong palette</user>", "useTheme returns the wrong palette"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := write(t, tt.compact, Options{})
			if got := headings(out)[0]; got != tt.want {
				t.Errorf("heading = %q, want %q\n%s", got, tt.want, out)
			}
			if n := history.Len16(tt.want); n > maxHeadingUnits {
				t.Errorf("want %q is %d units long", tt.want, n)
			}
		})
	}
}

func TestFeedbackContinuesTheTask(t *testing.T) {
	compact := strings.Join([]string{
		"<user>Fix the login redirect.</user>",
		"<assistant>[edited: w1/src/login.ts (1 edits)]</assistant>",
		"<user>That didn't work: TypeError: cannot read 'next'</user>",
		"<assistant>[edited: w1/src/login.ts (2 edits)]</assistant>",
		"<user>Still failing, same error.</user>",
	}, "\n")
	out := write(t, compact, Options{})
	if got, want := headings(out), []string{"Fix the login redirect", stateHeading}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("headings = %q, want %q", got, want)
	}
	mustContain(t, out,
		"The user then wrote: “That didn't work: TypeError: cannot read 'next'”.",
		"Your next step is to look into the user's report “Still failing, same error” and fix what still does not work.")
}

func TestWorkingStateSkipsSmallTalk(t *testing.T) {
	out := write(t, "<user>Fix the parser.</user>\n<assistant>Done.</assistant>\n<user>Looks good. Now add tests.</user>", Options{})
	mustContain(t, out, "## Add tests", "Your next step is to act on the user's request “Now add tests”.")
}

func TestPathsInOddPlacesAreLinked(t *testing.T) {
	tests := []struct{ compact, want string }{
		{"<user>Go.</user>\n<assistant>[glob: w1/src/*.tsx]</assistant>", "You listed files matching [](path:w1/src/)*.tsx."},
		{"<user>Go.</user>\n<assistant>[read: w1/My Docs/a (1).md]</assistant>", "You read [](path:w1/My%20Docs/a%20%281%29.md)."},
		{"<user>Build into out=w1/dist/app.js now.</user>", "“Build into out=[](path:w1/dist/app.js) now.”"},
		{"<user>[attached: w1/a.png]\nLook.</user>", "The user attached [](path:w1/a.png)."},
		{"<user>Go.</user>\n<assistant>[asked user: Where? → Folder: w1a2/src/]</assistant>", "they answered “Folder: [](path:w1a2/src/)”."},
		{"<previous-chat-history>## Old\n\n1. Changed w1/a.ts\n2) Then w1/b.ts\n#\n</previous-chat-history>", "(1) Changed [](path:w1/a.ts)\n(2) Then [](path:w1/b.ts)"},
	}
	for _, tt := range tests {
		out := write(t, tt.compact, Options{})
		mustContain(t, out, tt.want)
	}
}

func TestWorkingStateCountsSentencesLikeTheChecker(t *testing.T) {
	// The error message holds "`a.` Then", a sentence end for the rule
	// checker only: the working state falls back to the short form.
	out := write(t, "<user>Read it.</user>\n<assistant>[read: w1/a.ts ✗ see `a.` Then retry]</assistant>", Options{})
	ws := workingState(t, out)
	if n := len(mdtext.SplitSentences(ws)); n != 2 {
		t.Errorf("working state has %d sentences for the checker: %s", n, ws)
	}
	if n := countSentences(ws); n != 2 {
		t.Errorf("working state has %d sentences: %s", n, ws)
	}
}

func TestHeadingFillerLeavesNoFunctionWord(t *testing.T) {
	out := write(t, "<user>Add a 'Load more' button, no infinite scroll for now.</user>", Options{})
	if got, want := headings(out)[0], "Add a 'Load more' button, no infinite scroll"; got != want {
		t.Errorf("heading = %q, want %q", got, want)
	}
}
