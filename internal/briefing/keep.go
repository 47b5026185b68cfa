package briefing

import (
	"strings"

	"github.com/compactlab/compact/internal/mdtext"
)

// This file finds what a condensed section must still say of the user's
// words: the sentences that state a decision, a preference, a constraint
// or a rule ("Keep the public API unchanged.", "Use a cursor, not
// offsets."), and those that give an exact value (a number with a unit, a
// colour, an identifier set as code, a URL, an error code). The prompt
// wants both copied in the user's own terms; a section condensed to its
// first sentence would lose them.

const (
	maxKeyChars = 240 // UTF-16 units of one key sentence quoted
	maxKeyScan  = 40  // sentences of one user turn looked at
)

// isDecision reports whether a sentence of the user's states a decision,
// a preference, a constraint or a rule: the heuristic of the measures
// (mdtext.IsDecision), so that the writer keeps what `compact diff` and
// `compact eval` count. A question is not a decision, here also when its
// '?' is followed by closing quotes or brackets.
func isDecision(s string) bool {
	if strings.HasSuffix(strings.TrimRight(strings.TrimSpace(s), closers), "?") {
		return false
	}
	return mdtext.IsDecision(s)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// hasValue reports whether a sentence gives an exact value: a number of
// two digits or more, with a decimal part or a unit (24, 2,400, 1.5, 4 s,
// 300ms), a hex colour, an identifier set as code, a URL, or an error
// identifier. Paths do not count: they are kept as links anyway.
func hasValue(s string) bool {
	s = dropLinks(s)
	if strings.Contains(s, "http://") || strings.Contains(s, "https://") || len(errorIDs(s)) > 0 {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '`':
			if e := strings.IndexByte(s[i+1:], '`'); e >= 2 && e <= 60 {
				return true
			}
		case c == '#':
			n := 0
			for i+1+n < len(s) && isHex(s[i+1+n]) {
				n++
			}
			if n >= 3 && n <= 8 && (i+1+n == len(s) || !isWordByte(s[i+1+n])) {
				return true
			}
		case c >= '0' && c <= '9':
			if i > 0 && (isWordByte(s[i-1]) || strings.IndexByte("./#-", s[i-1]) >= 0 || s[i-1] >= 0x80) {
				for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
					i++
				}
				continue
			}
			if numberValue(s[i:]) {
				return true
			}
			for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				i++
			}
		}
	}
	return false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// valueUnits may follow a number, with or without a space.
var valueUnits = []string{"px", "ms", "s", "%", "k", "kb", "mb", "gb", "x", "rem", "em", "fps", "min", "h"}

// numberValue reports whether s starts with a number worth keeping.
func numberValue(s string) bool {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	rest := s[n:]
	if len(rest) >= 2 && (rest[0] == '.' || rest[0] == ',') && rest[1] >= '0' && rest[1] <= '9' {
		return true // 1.5, 2,400
	}
	if n >= 2 && (rest == "" || !isWordByte(rest[0])) {
		return true
	}
	rest = strings.TrimPrefix(rest, " ")
	for _, u := range valueUnits {
		if strings.HasPrefix(strings.ToLower(rest[:min(len(rest), len(u))]), u) {
			if e := len(u); e == len(rest) || !isWordByte(rest[e]) {
				return true
			}
		}
	}
	return false
}

// dropLinks replaces every markdown link of s by a space.
func dropLinks(s string) string {
	return replaceLinks(s, linkLen, func(string) string { return " " })
}

// keySentences are the sentences of a user turn's words (userWords) that
// state a decision or give an exact value, each cut to maxKeyChars.
func (t *turn) keySentences() []string {
	if t.keysDone {
		return t.keys
	}
	t.keysDone = true
	ss := sentences(userWords(t))
	if len(ss) > maxKeyScan {
		ss = ss[:maxKeyScan]
	}
	for _, s := range ss {
		if isDecision(s) || hasValue(s) {
			t.keys = append(t.keys, excerpt(s, 0, maxKeyChars))
		}
	}
	return t.keys
}

// keysBeyond lists the key sentences of a turn that an excerpt of its
// words does not already hold.
func keysBeyond(t *turn, shown string) []string {
	var out []string
	for _, k := range t.keySentences() {
		if !strings.Contains(shown, strings.TrimSuffix(k, " …")) {
			out = append(out, k)
		}
	}
	return out
}

// quoteKeys quotes key sentences as one quotation, the gaps between them
// marked with an ellipsis.
func quoteKeys(keys []string) string {
	return quote(strings.Join(keys, " … "))
}

// errnoNames are the errno names taken for error identifiers.
var errnoNames = wordSet("EACCES ENOENT EADDRINUSE ECONNREFUSED ECONNRESET EPERM EEXIST EISDIR ENOTDIR ETIMEDOUT ENOTFOUND EMFILE ENOSPC EPIPE ENOTEMPTY ERESOLVE ELIFECYCLE")

// errorIDs lists the error identifiers of a text, each once, in order: a
// TypeScript code (TS2345), an errno name (ENOENT) or an exception name
// (TypeError), as a whole word.
func errorIDs(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if w := s[i:j]; isErrorID(w) && !contains(out, w) {
			out = append(out, w)
		}
		i = j
	}
	return out
}

func isErrorID(w string) bool {
	switch {
	case len(w) < 5 || w[0] < 'A' || w[0] > 'Z':
		return false
	case (len(w) == 6 || len(w) == 7) && w[0] == 'T' && w[1] == 'S':
		for k := 2; k < len(w); k++ {
			if w[k] < '0' || w[k] > '9' {
				return false
			}
		}
		return true
	case w[0] == 'E' && errnoNames[w]:
		return true
	}
	for _, suf := range []string{"Error", "Exception"} {
		if len(w) > len(suf) && strings.HasSuffix(w, suf) {
			for k := 0; k < len(w); k++ {
				if !(w[k] >= 'a' && w[k] <= 'z' || w[k] >= 'A' && w[k] <= 'Z') {
					return false
				}
			}
			return true
		}
	}
	return false
}

// errorsSentence names error identifiers that came up.
func errorsSentence(ids []string) string {
	if len(ids) == 1 {
		return "The error " + ids[0] + " came up."
	}
	return "The errors " + joinList(ids) + " came up."
}

// newIDs keeps the identifiers that shown does not hold.
func newIDs(ids []string, shown string) []string {
	var out []string
	for _, id := range ids {
		if !strings.Contains(shown, id) {
			out = append(out, id)
		}
	}
	return out
}
