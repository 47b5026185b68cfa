package mdtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations do not end a sentence: "e.g.", "i.e.", "etc.", "vs.",
// "cf." and "approx.".
var abbreviations = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "approx": true}

// SplitSentences splits one paragraph (text on one line) into sentences as
// the rule checker of `compact diff` counts them: an end is '.', '!' or '?'
// with any ASCII closing quotes, brackets or emphasis marks (" ' ) ] * _
// `), then spaces or tabs, then a character that is not a lower-case
// letter; a '.' after an abbreviation such as "e.g." is no end. Text after
// the last end counts as a sentence too. The sentences are trimmed; none
// is empty.
func SplitSentences(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(p) && strings.IndexByte("\"')]*_`", p[j]) >= 0 {
			j++
		}
		if j >= len(p) || p[j] != ' ' && p[j] != '\t' {
			continue
		}
		k := j
		for k < len(p) && (p[k] == ' ' || p[k] == '\t') {
			k++
		}
		if k >= len(p) {
			break
		}
		if r, _ := utf8.DecodeRuneInString(p[k:]); unicode.IsLower(r) {
			continue
		}
		if c == '.' && EndsWithAbbreviation(p[start:i]) {
			continue
		}
		if s := strings.TrimSpace(p[start:j]); s != "" {
			out = append(out, s)
		}
		start = k
		i = k - 1
	}
	if s := strings.TrimSpace(p[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// EndsWithAbbreviation reports whether s, the text before a '.', ends with
// an abbreviation ("e.g", "etc", in any case), so that the '.' does not end
// a sentence.
func EndsWithAbbreviation(s string) bool {
	return abbreviations[strings.ToLower(trailingWord(s))]
}

// trailingWord is the run of letters and dots that ends s.
func trailingWord(s string) string {
	i := len(s)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		i -= n
	}
	return s[i:]
}

// Sentences splits markdown prose into sentences. Blank lines end a
// paragraph; the lines of one paragraph are joined with a space, except
// that a heading, a list item, a table row or a code fence is always a unit
// of its own. Headings are left out. Within a unit a sentence ends at '.',
// '!' or '?' (with any closing quotes or brackets) followed by white space
// and then a character that is not a lower-case letter; "e.g.", "i.e.",
// "etc.", "vs." and "cf." do not end a sentence (SplitSentences).
func Sentences(text string) []string {
	var out []string
	for _, u := range units(text) {
		if u.heading {
			continue
		}
		out = append(out, SplitSentences(u.text)...)
	}
	return out
}

type unit struct {
	text    string
	heading bool
	line    int  // 1-based line of the unit's first line
	gap     bool // a blank line comes before the unit
}

// units groups lines into paragraphs as Sentences describes.
func units(text string) []unit {
	var out []unit
	var cur []string
	start := 0
	gap := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, unit{text: strings.Join(cur, " "), line: start, gap: gap})
			cur = cur[:0]
			gap = false
		}
	}
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			flush()
			gap = true
		case isATXHeading(t):
			flush()
			out = append(out, unit{text: t, heading: true, line: i + 1, gap: gap})
			gap = false
		case isListItem(t) || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			flush()
			cur = append(cur, t)
			start = i + 1
			flush()
		default:
			if len(cur) == 0 {
				start = i + 1
			}
			cur = append(cur, t)
		}
	}
	flush()
	return out
}

// isATXHeading reports whether a trimmed line is a markdown ATX heading:
// one to six '#' followed by white space or the end of the line.
func isATXHeading(t string) bool {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t')
}

// isListItem reports whether a trimmed line starts a bullet ("- ", "* ",
// "+ ") or a numbered item ("1. ", "2) ").
func isListItem(t string) bool {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return true
	}
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	return n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && (t[n+1] == ' ' || t[n+1] == '\t')
}

// SentenceLines rewrites a section body with one sentence per line, a blank
// line between paragraphs, and a final newline, so that the diff of a long
// paragraph shows the sentences that changed rather than the whole
// paragraph. List items, table rows, fences and headings keep their line.
func SentenceLines(body string) string {
	var b strings.Builder
	for i, u := range units(body) {
		if i > 0 && u.gap {
			b.WriteByte('\n')
		}
		if u.heading || isListItem(u.text) || strings.HasPrefix(u.text, "|") || fenceMarker(u.text) != "" {
			b.WriteString(u.text)
			b.WriteByte('\n')
			continue
		}
		for _, s := range SplitSentences(u.text) {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
