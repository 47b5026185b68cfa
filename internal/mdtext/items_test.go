package mdtext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHistoryFollowsTheSerializerLayout(t *testing.T) {
	s := "<previous-chat-history>## Old\n\nraw <b> & </previous-chat-history>\n" +
		`<user><slash-command id="command:x" name="X"><![CDATA[body </user> with ]]]]><![CDATA[> inside]]></slash-command>` + "\n" +
		"[mentioned: w1/a.ts]\nFix the &lt;Button&gt; &amp; run lint.</user>\n" +
		"<assistant>Done.\n[wrote: w1/ro.ts ✗ EACCES: permission denied, open &apos;ro.ts&apos;]</assistant>"
	h := ParseHistory(s)
	want := History{
		Previous:    "## Old\n\nraw <b> & ",
		HasPrevious: true,
		Turns: []Turn{
			{Role: "user", Text: "[mentioned: w1/a.ts]\nFix the <Button> & run lint."},
			{Role: "assistant", Text: "Done.\n[wrote: w1/ro.ts ✗ EACCES: permission denied, open 'ro.ts']"},
		},
	}
	if d := cmp.Diff(want, h); d != "" {
		t.Errorf("ParseHistory (-want +got):\n%s", d)
	}
}

func TestParseHistoryToleratesJunk(t *testing.T) {
	for _, s := range []string{"", "plain text", "<user>unterminated", "<assistant>open", "<previous-chat-history>no close", "<user><slash-command id=\"x\"><![CDATA[never closed"} {
		_ = MustKeep(ParseHistory(s)) // must not panic
	}
}

func itemValues(items []Item, k Kind) []string {
	var out []string
	for _, it := range items {
		if it.Kind == k {
			out = append(out, it.Value)
		}
	}
	return out
}

func TestMustKeepPaths(t *testing.T) {
	h := History{
		Previous: "You changed [](path:w1/src/a.ts) and [](wsfile:w1/legacy.ts), see w1a2/docs/x.md.", HasPrevious: true,
		Turns: []Turn{
			{Role: "user", Text: "[mentioned: w1/src/b.tsx, w3f9/README.md]\nLook at w1/src/ and not at x/w1/no or a.w1/no or https://h/w1/no."},
			{Role: "assistant", Text: "[read: w1/src/a.ts]\n[moved: w1/c.ts → w1/lib/c.ts]\n[shell: new session 3f9a in w1a2]\nSee `w1/src/[id].tsx`."},
		},
	}
	got := itemValues(MustKeep(h), KindPath)
	want := []string{"w1/src/a.ts", "w1/legacy.ts", "w1a2/docs/x.md", "w1/src/b.tsx", "w3f9/README.md", "w1/src", "w1/c.ts", "w1/lib/c.ts", "w1/src"}
	want = want[:len(want)-1] // w1/src is listed once
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("paths (-want +got):\n%s", d)
	}
}

func TestMustKeepLinksColoursHeadings(t *testing.T) {
	h := History{
		Previous: "## Setup\n\nSee [docs](https://example.com/a?b=1) and #0f766e.\n\n## Current working state\n\nx", HasPrevious: true,
		Turns: []Turn{
			{Role: "user", Text: "Make it teal like rgb(15, 118, 110) or hsl(175 77% 26%); issue #123 is not a colour, color: #000 is. [](path:w1/a.ts) [x](slash:command:y) ![shot](img/a.png)"},
			{Role: "assistant", Text: "The fallback is #DC2626 and page#top is a fragment; red in prose by the assistant is not counted."},
		},
	}
	items := MustKeep(h)
	if d := cmp.Diff([]string{"https://example.com/a?b=1", "img/a.png"}, itemValues(items, KindLink)); d != "" {
		t.Errorf("links (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"#0f766e", "#000", "rgb(15, 118, 110)", "hsl(175 77% 26%)", "teal", "#DC2626"}, itemValues(items, KindColor)); d != "" {
		t.Errorf("colours (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"Setup", "Current working state"}, itemValues(items, KindHeading)); d != "" {
		t.Errorf("headings (-want +got):\n%s", d)
	}
}

func TestMustKeepFailures(t *testing.T) {
	h := History{Turns: []Turn{{Role: "assistant", Text: "Trying.\n" +
		"[read: w1/src/gone.ts ✗ ENOENT: no such file or directory]\n" +
		"[shell: Run lint → exit 1]\n" +
		"[shell: Check node version → ✓]\n" +
		"[shell: Build → exit 0]\n" +
		"[shell: Long build → timed out]\n" +
		"[shell: sudo reboot ✗ denied]\n" +
		"[lint: w1/a.ts → 2 errors, 1 warnings]\n" +
		"[tool-ls]"}}}
	got := itemValues(MustKeep(h), KindFailure)
	want := []string{
		"read: w1/src/gone.ts ✗ ENOENT: no such file or directory",
		"shell: Run lint → exit 1",
		"shell: Long build → timed out",
		"shell: sudo reboot ✗ denied",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("failures (-want +got):\n%s", d)
	}
}

// keptLost runs the kept check of one briefing against the items of h.
func keptLost(h History, briefingText string) (kept, lost []string) {
	b := NewBriefing(briefingText)
	for _, it := range Needs(h) {
		if b.Keeps(it) {
			kept = append(kept, string(it.Kind)+" "+it.Value)
		} else {
			lost = append(lost, string(it.Kind)+" "+it.Value)
		}
	}
	return kept, lost
}

func TestKeptAndLostPerKind(t *testing.T) {
	h := History{
		Previous: "## Setup\n\nYou read [](path:w1/src/a.ts) and [docs](https://example.com/d).\n\n## Colours\n\nTeal is #0f766e.", HasPrevious: true,
		Turns: []Turn{
			{Role: "user", Text: "Don't commit, I'll do it myself. Use a cursor on (created_at, id), not offsets. The hover should be rgb(0 0 0 / 0.5)."},
			{Role: "assistant", Text: "[edited: w1/src/b.ts (2 edits)]\n[shell: Run the cursor tests → exit 1]\n[wrote: w1/ro.ts ✗ EACCES: permission denied]\n[shell: Long build → timed out]"},
		},
	}
	briefingText := "## Setup\n\nYou read [](path:w1/src/a.ts); the docs are at https://example.com/d.\n\n" +
		"## Cursor work\n\nYou proposed offsets, but the user required a cursor on `(created_at, id)` instead. " +
		"The cursor tests failed at first. Writing [](path:w1/ro.ts) was refused with EACCES (permission denied). " +
		"The user said to commit later themselves. Hover: rgb(0 0 0/0.5); the accent is #0F766E.\n\n" +
		"## Current working state\n\nYou edited w1/src/b.ts. Next, fix the build."
	kept, lost := keptLost(h, briefingText)
	wantKept := []string{
		"path w1/src/a.ts", "path w1/src/b.ts", "path w1/ro.ts",
		"link https://example.com/d",
		"color #0f766e", "color rgb(0 0 0 / 0.5)",
		"heading Setup",
		"decision Use a cursor on (created_at, id), not offsets.",
		"decision The hover should be rgb(0 0 0 / 0.5).",
		"failure shell: Run the cursor tests → exit 1",
		"failure wrote: w1/ro.ts ✗ EACCES: permission denied",
	}
	wantLost := []string{
		"heading Colours",
		// The paraphrase drops the negation: "don't commit" became "commit".
		"decision Don't commit, I'll do it myself.",
		"failure shell: Long build → timed out",
	}
	if d := cmp.Diff(wantKept, kept); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantLost, lost); d != "" {
		t.Errorf("lost (-want +got):\n%s", d)
	}
}

func TestPathKeptOnlyAsTheSamePath(t *testing.T) {
	h := History{Turns: []Turn{{Role: "assistant", Text: "[read: w1/src/a.ts]\n[read: w1/src]"}}}
	_, lost := keptLost(h, "## X\n\nYou read [](path:w1/src/a.tsx) and w2/src/a.ts.")
	if d := cmp.Diff([]string{"path w1/src/a.ts", "path w1/src"}, lost); d != "" {
		t.Errorf("lost (-want +got):\n%s", d)
	}
}
