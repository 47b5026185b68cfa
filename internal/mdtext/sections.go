package mdtext

import "strings"

// Section is one "## " section of a briefing. Text before the first "## "
// heading, when it is not blank, is a section of its own with Preamble set
// and an empty Heading.
type Section struct {
	Heading  string
	Preamble bool
	Line     int    // 1-based line of the heading (1 for a preamble)
	Body     string // the lines after the heading, up to the next "## " heading
}

// SplitSections splits a briefing at its level-two ATX headings ("## "
// at the start of a line, outside fenced code blocks). Deeper or shallower
// headings stay inside the section they appear in.
func SplitSections(text string) []Section {
	lines := strings.Split(text, "\n")
	var out []Section
	cur := Section{Preamble: true, Line: 1}
	var body []string
	fence := ""
	flush := func() {
		cur.Body = strings.Join(body, "\n")
		if !cur.Preamble || strings.TrimSpace(cur.Body) != "" {
			out = append(out, cur)
		}
	}
	for i, line := range lines {
		if f := fenceMarker(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(strings.TrimSpace(line), fence):
				fence = ""
			}
		}
		if fence == "" && isH2(line) {
			flush()
			cur = Section{Heading: h2Text(line), Line: i + 1}
			body = body[:0]
			continue
		}
		body = append(body, line)
	}
	flush()
	return out
}

// fenceMarker returns "```" or "~~~" when line opens or closes a fenced
// code block.
func fenceMarker(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	switch {
	case strings.HasPrefix(t, "```"):
		return "```"
	case strings.HasPrefix(t, "~~~"):
		return "~~~"
	}
	return ""
}

// isH2 reports a level-two ATX heading line.
func isH2(line string) bool {
	return strings.HasPrefix(line, "##") && (len(line) == 2 || line[2] == ' ' || line[2] == '\t')
}

func h2Text(line string) string {
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[2:]), "#"))
}

// NormHeading is the form headings are matched in: trimmed, runs of white
// space collapsed, lower case.
func NormHeading(h string) string { return strings.ToLower(strings.Join(strings.Fields(h), " ")) }
