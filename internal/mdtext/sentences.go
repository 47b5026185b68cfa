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
