package mdtext

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rule names, in report order. They check the prompt's own output rules
// (spec section 5, rules 8, 9 and 12).
const (
	// RuleXMLTag: an XML tag anywhere. The serializer's own tags
	// (previous-chat-history, chat-history, user, assistant, slash-command)
	// and CDATA count everywhere; other tags count outside inline code and
	// code blocks, and an opening tag not right after a letter or digit
	// (Promise<void>).
	RuleXMLTag = "xml-tag"
	// RuleBullet: a list item, "- ", "* ", "+ " or "1. ".
	RuleBullet = "bullet"
	// RuleTable: a table row, a line starting with '|' that holds another.
	RuleTable = "table"
	// RuleCodeBlock: a fenced code block (``` or ~~~), counted once.
	RuleCodeBlock = "code-block"
	// RuleHeadingLevel: an ATX heading of a level other than 2.
	RuleHeadingLevel = "heading-level"
	// RulePreamble: text (a title, an introduction) before the first "##".
	RulePreamble = "preamble"
	// RuleNoSections: no "##" heading at all.
	RuleNoSections = "no-sections"
	// RuleWorkingState (e3e profile): the briefing must end with a
	// "## Current working state" section of exactly two sentences.
	RuleWorkingState = "working-state"
	// RulePathNotLinked: a plain mount-prefixed path that is not written
	// as a [](path:…) link.
	RulePathNotLinked = "path-not-linked"
)

// Rules lists the rule names in report order.
var Rules = []string{RuleXMLTag, RuleBullet, RuleTable, RuleCodeBlock, RuleHeadingLevel, RulePreamble, RuleNoSections, RuleWorkingState, RulePathNotLinked}

// Profiles whose rules differ: e3e adds the working-state rule.
const (
	ProfileE3E  = "e3e"
	ProfileHead = "head"
)

// Violation is one rule broken by a briefing, with every line it was broken
// on and the first offending text.
type Violation struct {
	Rule    string `json:"rule"`
	Count   int    `json:"count"`
	Lines   []int  `json:"lines,omitempty"`
	Example string `json:"example,omitempty"`
}

var (
	tagRe        = regexp.MustCompile(`<!\[CDATA\[|</?([A-Za-z][A-Za-z0-9_.:-]*)(?:\s[^<>\n]*)?/?>`)
	codeSpanRe   = regexp.MustCompile("`[^`\n]+`")
	serializerTg = map[string]bool{"previous-chat-history": true, "chat-history": true, "user": true, "assistant": true, "slash-command": true}
)

// tagHit is one XML tag found in a briefing.
type tagHit struct {
	tag  string // as written, e.g. "</previous-chat-history>"
	name string // "previous-chat-history", or "CDATA"
	line int
}

// findTags lists the XML tags of text as RuleXMLTag defines them.
func findTags(text string) []tagHit {
	var out []tagHit
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		inFence := fence != ""
		if f := fenceMarker(line); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(strings.TrimSpace(line), fence) {
				fence = ""
			}
			inFence = true
		}
		if strings.IndexByte(line, '<') < 0 {
			continue
		}
		code := codeSpanRe.FindAllStringIndex(line, -1)
		for _, m := range tagRe.FindAllStringSubmatchIndex(line, -1) {
			name := "CDATA"
			if m[2] >= 0 {
				name = line[m[2]:m[3]]
			}
			known := name == "CDATA" || serializerTg[strings.ToLower(name)]
			if !known {
				if inFence || inSpans(code, m[0]) {
					continue
				}
				if m[0] > 0 && line[m[0]+1] != '/' {
					r, _ := utf8.DecodeLastRuneInString(line[:m[0]])
					if unicode.IsLetter(r) || unicode.IsDigit(r) {
						continue
					}
				}
			}
			out = append(out, tagHit{tag: line[m[0]:m[1]], name: name, line: i + 1})
		}
	}
	return out
}

func inSpans(spans [][]int, pos int) bool {
	for _, s := range spans {
		if pos >= s[0] && pos < s[1] {
			return true
		}
	}
	return false
}

// Leaks lists the distinct XML tag names a briefing holds, the
// <previous-chat-history> leak first, then the other serializer tags,
// then the rest, each group in order of appearance; and the number of tags
// found.
func Leaks(text string) (names []string, count int) {
	hits := findTags(text)
	seen := map[string]bool{}
	for pass := 0; pass < 3; pass++ {
		for _, h := range hits {
			n := strings.ToLower(h.name)
			group := 2
			switch {
			case n == "previous-chat-history":
				group = 0
			case serializerTg[n]:
				group = 1
			}
			if group != pass || seen[n] {
				continue
			}
			seen[n] = true
			names = append(names, strings.Clone(n))
		}
	}
	return names, len(hits)
}

// CheckRules checks a briefing against the prompt's output rules for
// profile (ProfileE3E or ProfileHead) and returns the broken ones in the
// order of Rules.
func CheckRules(text, profile string) []Violation {
	found := map[string]*Violation{}
	hit := func(rule string, line int, example string) {
		v := found[rule]
		if v == nil {
			v = &Violation{Rule: rule, Example: strings.Clone(Clip(example, 120))}
			found[rule] = v
		}
		v.Count++
		v.Lines = append(v.Lines, line)
	}
	for _, h := range findTags(text) {
		hit(RuleXMLTag, h.line, h.tag)
	}
	lines := strings.Split(text, "\n")
	fence := ""
	sawH2 := false
	preamble := 0
	for i, line := range lines {
		n := i + 1
		t := strings.TrimSpace(line)
		if f := fenceMarker(line); f != "" {
			if fence == "" {
				fence = f
				hit(RuleCodeBlock, n, t)
			} else if strings.HasPrefix(t, fence) {
				fence = ""
			}
			if !sawH2 && preamble == 0 {
				preamble = n
			}
			continue
		}
		if fence != "" {
			continue
		}
		if isH2(line) {
			sawH2 = true
			continue
		}
		if t != "" && !sawH2 && preamble == 0 {
			preamble = n
		}
		switch {
		case isATXHeading(t):
			hit(RuleHeadingLevel, n, t)
		case isListItem(t):
			hit(RuleBullet, n, t)
		case strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2:
			hit(RuleTable, n, t)
		}
		for _, p := range plainPaths(maskLinks(line)) {
			hit(RulePathNotLinked, n, p)
		}
	}
	switch {
	case !sawH2:
		hit(RuleNoSections, 1, "no \"## \" heading")
	case preamble > 0:
		hit(RulePreamble, preamble, strings.TrimSpace(lines[preamble-1]))
	}
	if profile == ProfileE3E {
		if line, msg := checkWorkingState(text); msg != "" {
			hit(RuleWorkingState, line, msg)
		}
	}
	var out []Violation
	for _, r := range Rules {
		if v := found[r]; v != nil {
			out = append(out, *v)
		}
	}
	return out
}

// WorkingStateHeading is the heading the e3e prompt asks the briefing to
// end with.
const WorkingStateHeading = "Current working state"

// checkWorkingState returns a message when the briefing does not end with
// a "## Current working state" section of exactly two sentences.
func checkWorkingState(text string) (line int, msg string) {
	secs := SplitSections(text)
	idx := -1
	for i, s := range secs {
		if !s.Preamble && NormHeading(s.Heading) == NormHeading(WorkingStateHeading) {
			idx = i
		}
	}
	if idx < 0 {
		return len(strings.Split(text, "\n")), "no \"## " + WorkingStateHeading + "\" section"
	}
	s := secs[idx]
	if idx != len(secs)-1 {
		return s.Line, "\"## " + WorkingStateHeading + "\" is not the last section"
	}
	if n := len(Sentences(s.Body)); n != 2 {
		unit := "sentences"
		if n == 1 {
			unit = "sentence"
		}
		return s.Line, fmt.Sprintf("\"## %s\" has %d %s, not 2", WorkingStateHeading, n, unit)
	}
	return 0, ""
}

// ViolationCount is the total count of vs.
func ViolationCount(vs []Violation) int {
	n := 0
	for _, v := range vs {
		n += v.Count
	}
	return n
}

// Clip shortens s to at most n runes, marking the cut with "…".
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
