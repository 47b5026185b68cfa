package briefing

import (
	"strconv"
	"strings"
	"unicode"
)

// This file carries the previous briefing over. Its text is kept as it was,
// with the few changes the output rules force: wsfile: links become path:
// links, headings of any level become ## headings, list markers, table pipes
// and code fences go, and an old "Current working state" section is renamed,
// since the new one ends the briefing. When the budget calls for it a section
// is shortened in place: its heading, first two sentences, the sentences that
// record a decision or an outcome, and every link of the rest are kept.

const (
	earlierHeading   = "Earlier work"
	stateHeading     = "Current working state"
	oldStateHeading  = "Working state at the previous compaction"
	maxLinksMinimal  = 12
	keepFirstPrevSen = 2
)

// prevSection is one ## section of the previous briefing.
type prevSection struct {
	heading string
	body    string // lines as they were, sanitized
	isState bool   // the old "Current working state" section
}

// decisionWords mark sentences a shortened section keeps: decisions,
// constraints and outcomes.
var decisionWords = []string{
	"decid", "decision", "prefer", "must", "never", "always", "reject", "revert",
	"instead", "fail", "error", "broke", "constraint", "rule", "do not", "don't",
	"should not", "confirmed", "passed", "succeeded", "agreed", "chose",
}

func splitPrev(prev string) []prevSection {
	prev = fixWsfile(strings.ReplaceAll(prev, "\r\n", "\n"))
	var out []prevSection
	var cur *prevSection
	var body []string
	inFence := false
	flush := func() {
		if cur == nil {
			if strings.TrimSpace(strings.Join(body, "\n")) == "" {
				body = body[:0]
				return
			}
			cur = &prevSection{heading: earlierHeading}
		}
		cur.body = strings.TrimRight(strings.Trim(strings.Join(body, "\n"), "\n"), " \t\n")
		out = append(out, *cur)
		cur, body = nil, body[:0]
	}
	for _, ln := range strings.Split(prev, "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if !inFence {
			if h, ok := headingLine(t); ok {
				flush()
				cur = &prevSection{heading: h}
				if strings.EqualFold(h, stateHeading) {
					cur.isState = true
				}
				continue
			}
		}
		body = append(body, sanitizeLine(ln))
	}
	flush()
	return out
}

// headingLine recognises "#…# text" (a space or a tab after the marks)
// and returns the text.
func headingLine(t string) (string, bool) {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n >= len(t) || t[n] != ' ' && t[n] != '\t' {
		return "", false
	}
	h := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[n:]), "#"))
	if h == "" {
		return "", false
	}
	return h, true
}

// sanitizeLine keeps a line but takes off what would start a bullet, a
// numbered item, a table row or a heading (lines of code blocks get here),
// and links the plain mount-prefixed paths.
func sanitizeLine(ln string) string { return noFence(sanitizeMarks(ln)) }

// noFence takes the marks off a line that would open or close a code block
// (what is left of "# ```" once its heading marks are gone, say).
func noFence(s string) string {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	if !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
		return s
	}
	return strings.TrimLeft(t, "`~ \t")
}

// sanitizeMarks is sanitizeLine before the fence check.
func sanitizeMarks(ln string) string {
	t := strings.TrimLeftFunc(ln, unicode.IsSpace)
	if strings.TrimFunc(t, func(r rune) bool { return r == '#' || unicode.IsSpace(r) }) == "" {
		return ""
	}
	if s := stripListMarker(t); s != t {
		return linkAllMounts(s)
	}
	if n, rest, ok := numberedItem(t); ok {
		return linkAllMounts("(" + n + ") " + rest)
	}
	if h, ok := headingLine(strings.TrimSpace(t)); ok {
		// A heading-like line of a code block (a shell comment): the block's
		// fences go, so its marks go too.
		return linkAllMounts(h)
	}
	return linkAllMounts(ln)
}

// numberedItem splits "3. text" or "3) text" into "3" and "text".
func numberedItem(t string) (n, rest string, ok bool) {
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(t) || t[i] != '.' && t[i] != ')' || t[i+1] != ' ' && t[i+1] != '\t' {
		return "", "", false
	}
	return t[:i], strings.TrimSpace(t[i+2:]), true
}

// render gives the section at a level: 0 as it is, 1 shortened, 2 shortened
// with the kept links capped.
func (p *prevSection) render(level int) string {
	h := p.heading
	if p.isState {
		h = oldStateHeading
	}
	body := p.body
	if level > 0 {
		body = shortenBody(body, level)
	}
	if body == "" {
		return "## " + h
	}
	return "## " + h + "\n\n" + body
}

func shortenBody(body string, level int) string {
	ss := sentences(flatten(body))
	if len(ss) <= keepFirstPrevSen {
		return body
	}
	var kept []string
	var rest strings.Builder
	for i, s := range ss {
		if i < keepFirstPrevSen || level == 1 && hasDecision(s) {
			kept = append(kept, s)
			continue
		}
		rest.WriteString(s)
		rest.WriteByte(' ')
	}
	keptText := strings.Join(kept, " ")
	var ls []string
	seen := map[string]bool{}
	for _, l := range links(keptText) {
		seen[l] = true
	}
	for _, l := range links(rest.String()) {
		if !seen[l] {
			seen[l] = true
			ls = append(ls, l)
		}
	}
	if len(ls) > 0 {
		more := ""
		if level >= 2 && len(ls) > maxLinksMinimal {
			more = " and " + strconv.Itoa(len(ls)-maxLinksMinimal) + " more"
			ls = ls[:maxLinksMinimal]
		}
		if more != "" {
			keptText += " This part also named " + strings.Join(ls, ", ") + more + "."
		} else {
			keptText += " This part also named " + joinList(ls) + "."
		}
	}
	return keptText
}

func hasDecision(s string) bool {
	l := strings.ToLower(s)
	for _, w := range decisionWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}
