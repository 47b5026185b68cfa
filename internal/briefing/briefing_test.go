package briefing

import (
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

// write runs Write and fails the test on any broken output rule.
func write(t *testing.T, compact string, opts Options) string {
	t.Helper()
	out := Write(compact, opts)
	for _, e := range ruleErrors(out, opts, history.Len16(prevOf(compact))) {
		t.Errorf("rule broken: %s\n--- briefing ---\n%s", e, out)
	}
	return out
}

// workingState returns the two sentences after the last heading.
func workingState(t *testing.T, out string) string {
	t.Helper()
	i := strings.LastIndex(out, "## "+stateHeading+"\n\n")
	if i < 0 {
		t.Fatalf("no working state in:\n%s", out)
	}
	return out[i+len("## "+stateHeading+"\n\n"):]
}

func headings(out string) []string {
	var hs []string
	for _, ln := range strings.Split(out, "\n") {
		if strings.HasPrefix(ln, "## ") {
			hs = append(hs, ln[3:])
		}
	}
	return hs
}

func mustContain(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("briefing lacks %q:\n%s", w, out)
		}
	}
}

func mustNotContain(t *testing.T, out string, bad ...string) {
	t.Helper()
	for _, w := range bad {
		if strings.Contains(out, w) {
			t.Errorf("briefing holds %q:\n%s", w, out)
		}
	}
}

const smallPrev = "## Widget refactor\n\nYou split [](path:w1/src/widgets/index.ts) into three files. The user decided to keep the old export names.\n\n## Colour tokens\n\nYou moved the colours to [](path:w1/src/theme.ts) and the user approved it."

func TestPreviousBriefingKeptVerbatimWhenSmall(t *testing.T) {
	compact := "<previous-chat-history>" + smallPrev + "</previous-chat-history>\n<user>Now add a dark theme.</user>\n<assistant>Adding it.\n[edited: w1/src/theme.ts (2 edits)]</assistant>"
	out := write(t, compact, Options{})
	if !strings.HasPrefix(out, smallPrev+"\n\n## ") {
		t.Errorf("previous briefing not kept verbatim at the start:\n%s", out)
	}
	mustNotContain(t, out, "previous-chat-history")
	mustContain(t, out, "## Add a dark theme\n\nThe user wrote: “Now add a dark theme.”")
}

func TestOldestPreviousSectionsShortenedFirst(t *testing.T) {
	section := func(name string, n int) string {
		var b strings.Builder
		b.WriteString("## " + name + "\n\n")
		for i := range n {
			b.WriteString("You changed [](path:w1/src/" + name + "_" + itoa(i) + ".ts) and the user approved step " + itoa(i) + ". ")
		}
		return strings.TrimSpace(b.String())
	}
	oldest, middle, recent := section("alpha", 40), section("beta", 40), section("gamma", 40)
	prev := oldest + "\n\n" + middle + "\n\n" + recent
	compact := "<previous-chat-history>" + prev + "</previous-chat-history>\n<user>Rename the gamma helpers.</user>\n<assistant>Renamed.\n[edited: w1/src/gamma_0.ts (1 edits)]</assistant>"
	prevLen := history.Len16(prev)
	target := prevLen - prevLen/5 // the previous briefing alone does not fit
	out := write(t, compact, Options{TargetChars: target})

	if got := headings(out); strings.Join(got, "|") != "alpha|beta|gamma|Rename the gamma helpers|"+stateHeading {
		t.Errorf("headings = %q, want every previous heading kept", got)
	}
	if strings.Contains(out, oldest) {
		t.Errorf("oldest section was not shortened")
	}
	if !strings.Contains(out, recent) {
		t.Errorf("most recent previous section was not kept verbatim")
	}
	// Every link of the shortened section survives, and it keeps at least
	// two sentences.
	for i := range 40 {
		mustContain(t, out, "[](path:w1/src/alpha_"+itoa(i)+".ts)")
	}
	body := out[strings.Index(out, "## alpha\n\n")+len("## alpha\n\n") : strings.Index(out, "\n\n## beta")]
	if n := countSentences(body); n < 2 {
		t.Errorf("shortened section has %d sentences: %s", n, body)
	}
	if !strings.HasPrefix(body, "You changed [](path:w1/src/alpha_0.ts) and the user approved step 0. You changed [](path:w1/src/alpha_1.ts) and the user approved step 1.") {
		t.Errorf("shortened section does not start with its first two sentences: %s", body)
	}
}

func TestSmallPreviousBriefingNotShortenedBeforeNewSections(t *testing.T) {
	// The previous briefing is under 60% of the target: the new sections are
	// condensed first and it stays as it was.
	var b strings.Builder
	for i := range 12 {
		b.WriteString("<user>Task " + itoa(i) + ": " + strings.Repeat("Explain the cache layer in detail. ", 20) + "</user>\n")
		b.WriteString("<assistant>" + strings.Repeat("Here is more detail on the cache. ", 15) + "\n[read: w1/src/cache_" + itoa(i) + ".ts]</assistant>\n")
	}
	compact := "<previous-chat-history>" + smallPrev + "</previous-chat-history>\n" + b.String()
	out := write(t, compact, Options{TargetChars: 6000})
	if !strings.HasPrefix(out, smallPrev) {
		t.Errorf("small previous briefing was shortened:\n%s", out)
	}
}

func TestOneSectionPerUserTask(t *testing.T) {
	compact := strings.Join([]string{
		"<user>Please fix the login button colour.</user>",
		"<assistant>Fixed the colour.\n[edited: w1/src/Login.tsx (1 edits)]</assistant>",
		"<user>ok</user>",
		"<assistant>Anything else?</assistant>",
		"<user>continue</user>",
		"<user>Thanks!</user>",
		"<user>Now write tests for the login form.</user>",
		"<assistant>[created: w1/src/Login.test.tsx]</assistant>",
		"<user>Also update the README?</user>",
	}, "\n")
	out := write(t, compact, Options{})
	want := []string{"Fix the login button colour", "Write tests for the login form", "Update the README", stateHeading}
	if got := headings(out); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("headings = %q, want %q", got, want)
	}
	mustContain(t, out,
		"The user then wrote: “ok”.",
		"The user then wrote: “continue”.",
		"You edited [](path:w1/src/Login.tsx) (1 edit).",
	)
}

func TestHeadingsAreShortWithoutTrailingPunctuation(t *testing.T) {
	tests := []struct{ name, user, want string }{
		{"filler dropped", "Please tidy up the widgets module & run the checks.", "Tidy up the widgets module & run the checks"},
		{"question mark dropped", "Can you explain why the build is slow?", "Explain why the build is slow"},
		{"long text cut at a clause", "Compare these two implementations carefully, then pick the faster one and document the reason in the changelog.", "Compare these two implementations carefully"},
		{"first line only", "Refactor the parser\nIt is too slow.\nAnd too big.", "Refactor the parser"},
		{"paths become their base names", "Look at [](path:w1/src/a.ts) please", "Look at a.ts"},
		{"working-state name avoided", "Current working state", stateHeading + " (request)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := write(t, "<user>"+tt.user+"</user>", Options{})
			if got := headings(out)[0]; got != tt.want {
				t.Errorf("heading = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMarkersBecomeProse(t *testing.T) {
	tests := []struct{ marker, want string }{
		{"[read: w1/src/a.ts]", "You read [](path:w1/src/a.ts)."},
		{"[read: w1/src/gone.ts ✗ ENOENT]", "You tried to read [](path:w1/src/gone.ts), which failed: ENOENT."},
		{"[read: w1/.env ✗ denied]", "You tried to read [](path:w1/.env), but it was denied."},
		{"[edited: w1/src/a.ts (2 edits)]", "You edited [](path:w1/src/a.ts) (2 edits)."},
		{"[edited: w1/src/a.ts (? edits)]", "You edited [](path:w1/src/a.ts)."},
		{"[edited: w1/src/a.ts ✗ old_string not found]", "You tried to edit [](path:w1/src/a.ts), which failed: old_string not found."},
		{"[created: w1/src/new.ts]", "You created [](path:w1/src/new.ts)."},
		{"[wrote: w1/src/old.ts]", "You wrote [](path:w1/src/old.ts)."},
		{"[moved: w1/src/c.ts → w1/lib/c.ts]", "You moved [](path:w1/src/c.ts) to [](path:w1/lib/c.ts)."},
		{"[copied: w1/a.ts → w1/b.ts]", "You copied [](path:w1/a.ts) to [](path:w1/b.ts)."},
		{"[deleted: w1/src/x.ts]", "You deleted [](path:w1/src/x.ts)."},
		{"[shell: new session s-01 in w1]", "You opened shell session s-01 in [](path:w1)."},
		{"[shell: Run lint → exit 1]", "You ran a command to run lint, which failed with exit code 1."},
		{"[shell: Run unit tests → ✓]", "You ran a command to run unit tests, which succeeded."},
		{"[shell: Production build → ✓]", "You ran the command “Production build”, which succeeded."},
		{"[shell: pnpm test → exit 2]", "You ran `pnpm test`, which failed with exit code 2."},
		{"[shell: run the tests again → ✓]", "You ran a command to run the tests again, which succeeded."},
		{"[shell: make build → ✓]", "You ran `make build`, which succeeded."},
		{"[shell: Watch build → timed out]", "You ran a command to watch build, which timed out."},
		{"[shell: Still running]", "You ran the command “Still running” (no result was recorded)."},
		{"[shell: Install deps ✗ ERR_404]", "You tried to run a command to install deps, which failed: ERR_404."},
		{"[shell: cat w1/src/a.ts → ✓]", "You ran the command cat [](path:w1/src/a.ts), which succeeded."},
		{"[sandbox: Count widgets]", "You ran a sandbox script to count widgets."},
		{"[sandbox: DOM probe]", "You ran a sandbox script (DOM probe)."},
		{`[searched: "TODO" in *.tsx]`, "You searched the workspace for “TODO” in `*.tsx`."},
		{`[searched: "color=&quot;red&quot;"]`, `You searched the workspace for “color="red"”.`},
		{"[glob: **/*.css]", "You listed files matching `**/*.css`."},
		{"[lint: w1/a.ts, w1/b.ts → clean]", "You ran the linter on [](path:w1/a.ts) and [](path:w1/b.ts), which reported no issues."},
		{"[lint: w1/a.ts → 2 errors, 1 warnings]", "You ran the linter on [](path:w1/a.ts), which reported 2 errors and 1 warning."},
		{"[docs-search: react-aria]", "You searched the library docs for “react-aria”."},
		{"[docs-read: /adobe/react-spectrum → ComboBox]", "You read the documentation of `/adobe/react-spectrum` on “ComboBox”."},
		{"[asked user: Pick colours → Primary colour: blue; Dark mode: true]", "You asked the user “Pick colours”; they answered “Primary colour: blue; Dark mode: true”."},
		{"[asked user: Deploy now? → User closed the form]", "You asked the user “Deploy now?”, but the form was cancelled (User closed the form)."},
		{"[asked user: Deploy later? → cancelled]", "You asked the user “Deploy later?”, but the form was cancelled."},
		{"[tests: unit → passed]", "You ran the tests (unit), which passed."},
		{"[tool-readConsoleLogs]", "You used the readConsoleLogs tool."},
		{"[tool-ls ✗ outside workspace]", "You tried to use the ls tool, which failed: outside workspace."},
	}
	for _, tt := range tests {
		t.Run(tt.marker, func(t *testing.T) {
			out := write(t, "<user>Do the thing.</user>\n<assistant>"+tt.marker+"</assistant>", Options{})
			mustContain(t, out, tt.want)
			mustNotContain(t, out, tt.marker)
		})
	}
}

func TestConsecutiveFileCallsShareASentence(t *testing.T) {
	out := write(t, "<user>Read the widgets.</user>\n<assistant>[read: w1/a.ts]\n[read: w1/b.ts]\n[read: w1/c.ts]\n[edited: w1/a.ts (1 edits)]</assistant>", Options{})
	mustContain(t, out, "You read [](path:w1/a.ts), [](path:w1/b.ts) and [](path:w1/c.ts). You edited [](path:w1/a.ts) (1 edit).")
}

func TestPathsBecomeLinks(t *testing.T) {
	compact := "<user>Look at w1/src/app.tsx and `w1/lib/util.ts`, the [docs](https://example.com/a/b.html), [](path:w1/keep.ts) and [old](wsfile:w1/legacy.ts). See https://example.com/x.js too, and/or 1/2.</user>\n" +
		"<assistant>I checked /etc/hosts and w1/src/ first.</assistant>"
	out := write(t, compact, Options{})
	mustContain(t, out,
		"[](path:w1/src/app.tsx)",
		"[](path:w1/lib/util.ts),",
		"[docs](https://example.com/a/b.html)",
		"[](path:w1/keep.ts)",
		"[old](path:w1/legacy.ts)",
		"https://example.com/x.js too",
		"and/or 1/2",
		"[](path:/etc/hosts)",
		"[](path:w1/src/)",
	)
	mustNotContain(t, out, "wsfile:", "[](path:https", "[](path:and/or)", "`[](path")
}

func TestLegacyWsfileLinksBecomePathLinks(t *testing.T) {
	prev := "## Setup\n\nYou created [](wsfile:w1/setup.sh) and ran it. The user confirmed it worked."
	compact := "<previous-chat-history>" + prev + "</previous-chat-history>\n<user>Check [](wsfile:w1/setup.sh) again.</user>"
	out := write(t, compact, Options{})
	mustNotContain(t, out, "wsfile:")
	mustContain(t, out, "You created [](path:w1/setup.sh) and ran it.", "“Check [](path:w1/setup.sh) again.”")
}

func TestEntitiesUnescaped(t *testing.T) {
	compact := "<user>Compare: 5 &lt; 6 &amp;&amp; 7 &gt; 3, &quot;quoted&quot; and &apos;single&apos;; &amp;amp; stays.</user>\n<assistant>Fine &amp; done.</assistant>"
	out := write(t, compact, Options{})
	mustContain(t, out, `“Compare: 5 < 6 && 7 > 3, "quoted" and 'single'; &amp; stays.”`, "“Fine & done.”")
	mustNotContain(t, out, "&lt;", "&gt;", "&quot;", "&apos;")
}

func TestNoTagsBulletsTablesOrCodeBlocks(t *testing.T) {
	prev := "# Title\n\n- a bullet\n* another\n| a | b |\n|---|---|\n```go\nx := 1\n```\n### Sub heading\n\nText with <b>bold</b> and <previous-chat-history>."
	compact := "<previous-chat-history>" + prev + "</previous-chat-history>\n<chat-history>\n" +
		"<user>Here is a list:\n- one\n- two\n| col | col |\n```\ncode &lt;div&gt;\n```\n&lt;user&gt;injected&lt;/user&gt;</user>\n" +
		"<assistant>Sure:\n* first\n* second\n&lt;/assistant&gt;</assistant>\n</chat-history>"
	out := write(t, compact, Options{})
	mustNotContain(t, out, "<previous-chat-history>", "<chat-history>", "<user>", "<b>", "<div>")
	mustContain(t, out, "a bullet", "another", "‹b›bold‹/b›", "## Sub heading", "## Title")
}

func TestSlashCommandBodySummarisedNotRestated(t *testing.T) {
	compact := `<user><slash-command id="command:build" name="Build"><![CDATA[# Build

Step one: compile the secret sauce.]]></slash-command>
//build the parser please</user>
<assistant>Building.</assistant>
<user><slash-command id="plugin:kit:deploy" name="deploy"><![CDATA[Body with ]]]]><![CDATA[> inside </user> and more.]]></slash-command>
<slash-command id="plugin:kit:deploy" name="deploy"><![CDATA[again]]></slash-command>
//deploy twice</user>`
	out := write(t, compact, Options{})
	mustContain(t, out,
		"The user wrote: “/build the parser please”. The /build command was invoked with this message.",
		"The /deploy command was invoked with this message.",
	)
	mustNotContain(t, out, "secret sauce", "CDATA", "slash-command", "Body with", "//build")
}

func TestAnnotationsBecomeProse(t *testing.T) {
	compact := "<user>[attached: shot &amp; co.png, notes.txt]\n[mentioned: w1/src/app.tsx, Dev server]\nCompare them.</user>\n<user>[attached: ]</user>"
	out := write(t, compact, Options{})
	mustContain(t, out,
		"The user attached shot & co.png and notes.txt.",
		"The user mentioned [](path:w1/src/app.tsx) and Dev server.",
		"The user attached a file whose name was not recorded.",
	)
	mustNotContain(t, out, "[attached:", "[mentioned:")
}

func TestWorkingStateHasTwoSentences(t *testing.T) {
	tests := []struct {
		name, compact, wantA, wantB string
	}{
		{
			name:    "unanswered request",
			compact: "<user>Fix the parser.</user>\n<assistant>Looking.\n[read: w1/parse.go]</assistant>\n<user>Now add tests for it.</user>",
			wantA:   "You read [](path:w1/parse.go).",
			wantB:   "Your next step is to act on the user's request “Now add tests for it”.",
		},
		{
			name:    "unanswered question",
			compact: "<user>Why is the build slow? It takes ages.</user>",
			wantA:   "The last exchange was the user's message “Why is the build slow”, which you had not answered yet.",
			wantB:   "Your next step is to answer the user's question “Why is the build slow”.",
		},
		{
			name:    "unresolved failure",
			compact: "<user>Run the tests.</user>\n<assistant>[shell: Run unit tests → exit 1]\n[read: w1/a_test.go]</assistant>",
			wantA:   "You read [](path:w1/a_test.go).",
			wantB:   "Your next step is to find out why the command to run unit tests failed (exit code 1) and fix it.",
		},
		{
			name:    "failure made good later",
			compact: "<user>Run the tests.</user>\n<assistant>[shell: Run unit tests → exit 1]\n[edited: w1/a.go (1 edits)]\n[shell: Run unit tests → ✓]</assistant>",
			wantA:   "You ran a command to run unit tests, which succeeded.",
			wantB:   "You are waiting for the user to review your work on “Run the tests” and give the next instruction.",
		},
		{
			name:    "denied call",
			compact: "<user>Clean up.</user>\n<assistant>[deleted: w1/tmp ✗ denied]</assistant>",
			wantA:   "You tried to delete [](path:w1/tmp), but it was denied.",
			wantB:   "Your next step is to ask the user how to go on, since deleting [](path:w1/tmp) was denied.",
		},
		{
			name:    "your question",
			compact: "<user>Pick a colour.</user>\n<assistant>Options are red and blue. Which one do you want?</assistant>",
			wantA:   "You last told the user “Which one do you want”.",
			wantB:   "You are waiting for the user to answer your question “Which one do you want”.",
		},
		{
			name:    "acknowledgement",
			compact: "<user>Refactor the cache.</user>\n<assistant>Step one done. Shall I go on?</assistant>\n<user>ok, continue</user>",
			wantA:   "You last told the user “Shall I go on”.",
			wantB:   "Your next step is to continue with “Refactor the cache”, as the user asked.",
		},
		{
			name:    "sentences inside the excerpt",
			compact: "<user>Use e.g. the fast path. Then stop! Really?</user>",
			wantA:   "The last exchange was the user's message “Use e.g”, which you had not answered yet.",
			wantB:   "Your next step is to act on the user's request “Use e.g”.",
		},
		{
			name:    "nothing at all",
			compact: "",
			wantA:   stateNoTurns,
			wantB:   stateAskUser,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := write(t, tt.compact, Options{})
			ws := workingState(t, out)
			if want := tt.wantA + " " + tt.wantB; ws != want {
				t.Errorf("working state\n got: %s\nwant: %s", ws, want)
			}
			if n := countSentences(ws); n != 2 {
				t.Errorf("working state has %d sentences", n)
			}
		})
	}
}

func TestPreviousWorkingStateRenamedOrReused(t *testing.T) {
	prev := "## Cache\n\nYou rewrote [](path:w1/cache.go).\n\n## Current working state\n\nYou ran the cache tests, which passed. Your next step is to benchmark the cache."
	out := write(t, "<previous-chat-history>"+prev+"</previous-chat-history>\n<user>Benchmark it.</user>", Options{})
	mustContain(t, out, "## "+oldStateHeading+"\n\nYou ran the cache tests, which passed.")
	out = write(t, "<previous-chat-history>"+prev+"</previous-chat-history>", Options{})
	if ws := workingState(t, out); ws != "You ran the cache tests, which passed. Your next step is to benchmark the cache." {
		t.Errorf("previous working state not reused when nothing new happened: %q", ws)
	}
	if strings.Contains(out, oldStateHeading) {
		t.Errorf("reused working state also kept under the old heading:\n%s", out)
	}
}

func TestDoneOnlyWithEvidence(t *testing.T) {
	compact := "<user>Fix and test it.</user>\n<assistant>All fixed and tested!\n[edited: w1/a.go (1 edits)]\n[shell: go test ./...]\n[lint: w1/a.go]</assistant>"
	out := write(t, compact, Options{})
	mustNotContain(t, out, "succeeded", "passed", "no issues")
	out = write(t, "<user>Fix and test it.</user>\n<assistant>[shell: go test ./... → ✓]\n[lint: w1/a.go → clean]</assistant>", Options{})
	mustContain(t, out, "which succeeded", "which reported no issues")
}

func TestRecencyBiasUnderTarget(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		b.WriteString("<user>Task " + itoa(i) + ": update module " + itoa(i) + ". " + strings.Repeat("Keep the public API stable and document every change. ", 8) + "</user>\n")
		b.WriteString("<assistant>" + strings.Repeat("I looked at the module and changed the internals. ", 6) + "\n[read: w1/src/m" + itoa(i) + ".ts]\n[edited: w1/src/m" + itoa(i) + ".ts (3 edits)]\n[shell: Run tests → exit 1]</assistant>\n")
	}
	compact := strings.TrimSpace(b.String())
	full := Write(compact, Options{})
	target := history.Len16(full) / 3
	out := write(t, compact, Options{TargetChars: target})
	// The newest task is kept in full, the oldest is condensed, and every
	// task still has its section or is counted in the merged one.
	newest := full[strings.Index(full, "## Task 29"):strings.Index(full, "\n\n## "+stateHeading)]
	if !strings.Contains(out, newest) {
		t.Errorf("newest section not kept in full")
	}
	oldest := full[strings.Index(full, "## Task 0"):strings.Index(full, "\n\n## Task 1")]
	if strings.Contains(out, oldest) {
		t.Errorf("oldest section not condensed")
	}
	for i := range 30 {
		if !strings.Contains(out, "[](path:w1/src/m"+itoa(i)+".ts)") {
			t.Errorf("path of task %d lost", i)
		}
	}
}

func TestTinyTargetStillGivesWorkingState(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		b.WriteString("<user>Request " + itoa(i) + " about w1/f" + itoa(i) + ".ts.</user>\n<assistant>[read: w1/f" + itoa(i) + ".ts]\n[shell: build → exit 2]</assistant>\n")
	}
	out := Write(b.String(), Options{TargetChars: 3000})
	if history.Len16(out) > 3000 {
		t.Errorf("size %d over the target 3000", history.Len16(out))
	}
	for _, e := range ruleErrors(out, Options{TargetChars: 3000}, 0) {
		t.Error(e)
	}
	mustContain(t, out, "## "+mergedHeading, "further requests, from “Request 0 about f0.ts”", "## Request 199 about f199.ts")
}

func TestHeadProfileEndsWithStatus(t *testing.T) {
	opts := Options{Profile: "head"}
	out := write(t, "<user>Fix the parser.</user>\n<assistant>[shell: go test → exit 1]</assistant>", opts)
	mustNotContain(t, out, stateHeading)
	if !strings.HasSuffix(out, "This topic was still open at the end of the conversation: the command `go test` had failed.") {
		t.Errorf("head briefing does not end with the topic's status:\n%s", out)
	}
}

func TestArbitraryInputGivesABriefing(t *testing.T) {
	for _, in := range []string{
		"", "   ", "hello world", "<", "<user>", "</user>", "<assistant>[read: ", "<previous-chat-history>",
		"<user><slash-command id=\"x\"><![CDATA[never closed", "\xff\xfe\xed\xa0\x80", "<user>" + strings.Repeat("[", 1000),
		"<assistant>[shell: multi\nline\nexplanation → ✓]</assistant>", "<previous-chat-history></previous-chat-history>",
	} {
		out := Write(in, Options{})
		for _, e := range ruleErrors(out, Options{}, 0) {
			t.Errorf("%q: %s\n%s", in, e, out)
		}
	}
}

func TestStrayTextIsKept(t *testing.T) {
	out := write(t, "just some notes about w1/a.ts", Options{})
	mustContain(t, out, "## "+strayHeading, "“just some notes about [](path:w1/a.ts)”")
}

func TestMultiLineMarker(t *testing.T) {
	out := write(t, "<user>Ask me.</user>\n<assistant>[asked user: Details → Notes: line one\nline two; Size: L]</assistant>", Options{})
	mustContain(t, out, "You asked the user “Details”; they answered “Notes: line one line two; Size: L”.")
}

func TestChecklistReported(t *testing.T) {
	out := write(t, "<user>Plan it.</user>\n<assistant>Plan:\n- [x] parse\n- [ ] render\n- [x] test</assistant>", Options{})
	mustContain(t, out, "Your plan had 2 of 3 items ticked off; still open: render.")
}

func TestDeterministic(t *testing.T) {
	for name, compact := range corpus(t) {
		a := Write(compact, Options{TargetChars: 1500})
		for range 3 {
			if b := Write(compact, Options{TargetChars: 1500}); a != b {
				t.Fatalf("%s: two runs differ", name)
			}
		}
	}
}
