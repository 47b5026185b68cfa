package mdtext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const goodBriefing = "## Button colour\n\nYou changed [](path:w1/src/Button.css) to teal. The user confirmed it.\n\n" +
	"## Current working state\n\nYou edited [](path:w1/src/Button.css) last. Next, run the Button tests."

func TestCheckRulesAcceptsAGoodBriefing(t *testing.T) {
	if got := CheckRules(goodBriefing, ProfileE3E); len(got) != 0 {
		t.Errorf("CheckRules = %+v, want none", got)
	}
	if names, n := Leaks(goodBriefing); n != 0 || len(names) != 0 {
		t.Errorf("Leaks = %v, %d", names, n)
	}
}

func TestCheckRulesFindsEachRule(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		profile string
		want    []Violation
	}{
		{"previous tag leak", goodBriefing + "\n<previous-chat-history>x</previous-chat-history>", ProfileHead,
			[]Violation{{Rule: RuleXMLTag, Count: 2, Lines: []int{8, 8}, Example: "<previous-chat-history>"}}},
		{"tags in code and generics are not leaks, serializer tags are", "## A\n\nSee `<Button>` and Promise<void>, not `<user>`.", ProfileHead,
			[]Violation{{Rule: RuleXMLTag, Count: 1, Lines: []int{3}, Example: "<user>"}}},
		{"bullets", "## A\n\n- one\n* two\n1. three\n**bold** is fine", ProfileHead,
			[]Violation{{Rule: RuleBullet, Count: 3, Lines: []int{3, 4, 5}, Example: "- one"}}},
		{"table", "## A\n\n| a | b |\n|---|---|\n| 1 | 2 |", ProfileHead,
			[]Violation{{Rule: RuleTable, Count: 3, Lines: []int{3, 4, 5}, Example: "| a | b |"}}},
		{"code block counted once, its content ignored", "## A\n\n```sh\n- not a bullet\n# not a heading\n```\ntext", ProfileHead,
			[]Violation{{Rule: RuleCodeBlock, Count: 1, Lines: []int{3}, Example: "```sh"}}},
		{"other heading levels", "## A\n\n### Sub\n\n#### Deeper\n\n#hashtag is text", ProfileHead,
			[]Violation{{Rule: RuleHeadingLevel, Count: 2, Lines: []int{3, 5}, Example: "### Sub"}}},
		{"title before the first ##", "# Briefing\n\n## A\n\ntext", ProfileHead, []Violation{
			{Rule: RuleHeadingLevel, Count: 1, Lines: []int{1}, Example: "# Briefing"},
			{Rule: RulePreamble, Count: 1, Lines: []int{1}, Example: "# Briefing"}}},
		{"preamble", "Here is the briefing.\n\n## A\n\ntext", ProfileHead,
			[]Violation{{Rule: RulePreamble, Count: 1, Lines: []int{1}, Example: "Here is the briefing."}}},
		{"no sections", "Just prose.", ProfileHead,
			[]Violation{{Rule: RuleNoSections, Count: 1, Lines: []int{1}, Example: "no \"## \" heading"}}},
		{"plain path", "## A\n\nYou edited w1/src/a.ts and [](path:w1/src/b.ts).", ProfileHead,
			[]Violation{{Rule: RulePathNotLinked, Count: 1, Lines: []int{3}, Example: "w1/src/a.ts"}}},
		{"e3e: working state missing", "## A\n\ntext", ProfileE3E,
			[]Violation{{Rule: RuleWorkingState, Count: 1, Lines: []int{3}, Example: "no \"## Current working state\" section"}}},
		{"e3e: working state not last", "## Current working state\n\nA. B.\n\n## A\n\ntext", ProfileE3E,
			[]Violation{{Rule: RuleWorkingState, Count: 1, Lines: []int{1}, Example: "\"## Current working state\" is not the last section"}}},
		{"e3e: three sentences", "## A\n\nx\n\n## Current working state\n\nYou did A. Next, do B. All is well.", ProfileE3E,
			[]Violation{{Rule: RuleWorkingState, Count: 1, Lines: []int{5}, Example: "\"## Current working state\" has 3 sentences, not 2"}}},
		{"head: no working-state rule", "## A\n\ntext", ProfileHead, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckRules(tc.text, tc.profile)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("CheckRules (-want +got):\n%s", d)
			}
		})
	}
}

func TestLeaksListsThePreviousTagFirst(t *testing.T) {
	names, n := Leaks("<div>x</div>\n<user>y</user>\n<![CDATA[z]]>\n</previous-chat-history>")
	if d := cmp.Diff([]string{"previous-chat-history", "user", "div", "cdata"}, names); d != "" {
		t.Errorf("Leaks (-want +got):\n%s", d)
	}
	if n != 6 {
		t.Errorf("count = %d, want 6", n)
	}
}
