package briefing

import (
	"strings"
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

// decisionCueWords, decisionPhrases and negPhrases are the cues a decision
// may hold anywhere, as whole words (lower case, with the apostrophes
// people type); the phrases are only looked for when the text holds a
// part of them.
var (
	decisionCueWords = append(strings.Fields("must never always should shouldnt prefer prefers preferred instead avoid ensure"), "shouldn't", "shouldn’t")
	decisionPhrases  = []string{"ought to", "rather than", "make sure", "from now on", "going forward", "you need to", "you have to", "we need to", "we have to"}
	negPhrases       = func() []string {
		var out []string
		for _, neg := range []string{"don't", "don’t", "dont", "do not"} {
			out = append(out, "we "+neg)
			for _, v := range []string{"want", "like", "need", "use"} {
				out = append(out, "i "+neg+" "+v)
			}
		}
		return out
	}()
)

var (
	clauseCues = map[string]bool{"use": true, "keep": true, "only": true, "ignore": true, "stop": true, "leave": true, "stick": true, "skip": true, "dont": true}
	notNoCues  = map[string]bool{"problem": true, "problems": true, "worries": true, "idea": true, "thanks": true, "luck": true, "rush": true}
	// clauseJoins open a clause when they stand as words before white
	// space; clauseFillers may come before an imperative.
	clauseJoins   = []string{"and", "but", "so", "then"}
	clauseFillers = []string{"please", "pls", "just", "also", "and", "but", "so", "then", "let's", "let’s", "lets", "let us", "we'll", "we’ll", "we will", "i'd", "i’d"}
)

// isDecision reports whether a sentence of the user's states a decision,
// a preference, a constraint or a rule: a cue such as must, never, prefer,
// instead or ", not X" anywhere, or an imperative such as don't, use,
// keep, only, skip, go with or "no X" at the start of a clause (the start
// of the sentence, after , ; : ( or a dash, or after and, but, so, then),
// maybe after please, just, also, let's and the like. A question is not a
// decision. (The heuristic is that of the measures' decisions, written
// without regular expressions.)
func isDecision(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(strings.TrimRight(s, closers), "?") || len(s) > 400 {
		return false
	}
	l := asciiLower(s)
	for _, p := range decisionCueWords {
		if hasWord(l, p) {
			return true
		}
	}
	if strings.Contains(l, " to") || strings.Contains(l, "sure") || strings.Contains(l, "from now") || strings.Contains(l, "going") || strings.Contains(l, " than") {
		for _, p := range decisionPhrases {
			if hasWord(l, p) {
				return true
			}
		}
	}
	if strings.Contains(l, "don") || strings.Contains(l, "do not") {
		for _, p := range negPhrases {
			if hasWord(l, p) {
				return true
			}
		}
	}
	if commaNot(l) {
		return true
	}
	if !mayHoldClauseCue(l) {
		return false
	}
	for p := 0; p < len(l) || p == 0; {
		e, ok := clauseAt(l, p)
		if !ok {
			p++
			continue
		}
		e = skipFillers(l, e)
		w1, sepc, w2 := twoWords(l[e:])
		switch {
		case clauseCues[w1]:
			return true
		case w1 == "don" && (sepc == '\'' || sepc == 0xe2): // don't, don’t
			return true
		case w1 == "do" && w2 == "not":
			return true
		case w1 == "go" && w2 == "with":
			return true
		case w1 == "no" && sepc == ' ' && w2 != "" && !notNoCues[w2]:
			return true
		}
		p = max(e, p+1)
	}
	return false
}

// clauseCueParts are parts of every clause cue: a text without any of
// them starts no clause with one.
var clauseCueParts = []string{"use", "keep", "only", "ignore", "stop", "leave", "stick", "skip", "don", "do not", "go with", "no"}

func mayHoldClauseCue(l string) bool {
	for _, p := range clauseCueParts {
		// A cue is read as letters (twoWords): what follows it is no
		// letter.
		for i := 0; ; {
			k := strings.Index(l[i:], p)
			if k < 0 {
				break
			}
			if e := i + k + len(p); e == len(l) || !(l[e] >= 'a' && l[e] <= 'z') {
				return true
			}
			i += k + 1
		}
	}
	return false
}

// maybeClauseStart is clauseStart's quick test for 0 < i < len(s): the
// byte before i ends , ; : ( or a dash, or a word followed by white space.
func maybeClauseStart(s string, i int) bool {
	switch c := s[i-1]; {
	case c == ',' || c == ';' || c == ':' || c == '(' || c == '-' || c == 0x93 || c == 0x94:
		return true
	case isWordByte(c):
		return isSpaceASCII(s[i])
	}
	return false
}

// asciiLower lower-cases the ASCII letters of s, keeping every offset.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for k := i; k < len(b); k++ {
				if 'A' <= b[k] && b[k] <= 'Z' {
					b[k] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// hasWord reports whether w occurs in s as whole words.
func hasWord(s, w string) bool {
	for i := 0; ; {
		k := strings.Index(s[i:], w)
		if k < 0 {
			return false
		}
		a, b := i+k, i+k+len(w)
		if (a == 0 || !isWordByte(s[a-1]) || !isWordByte(w[0])) && (b == len(s) || !isWordByte(s[b]) || !isWordByte(w[len(w)-1])) {
			return true
		}
		i = a + 1
	}
}

func isSpaceASCII(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// commaNot finds a contrast ", not X" ("2px, not 3px").
func commaNot(s string) bool {
	for i := 0; ; {
		k := strings.IndexByte(s[i:], ',')
		if k < 0 {
			return false
		}
		j := i + k + 1
		for j < len(s) && isSpaceASCII(s[j]) {
			j++
		}
		if strings.HasPrefix(s[j:], "not") {
			e := j + 3
			n := e
			for n < len(s) && isSpaceASCII(s[n]) {
				n++
			}
			if n > e && n < len(s) {
				return true
			}
		}
		i = i + k + 1
	}
}

// clauseAt matches the start of a clause at offset p of s (lower case)
// as the measures' heuristic does, scanning left to right with matches
// that do not overlap: the start of the text; , ; : ( or a dash and any
// white space; white space, '-' and white space; the word and, but, so or
// then and white space. It returns where the match ends.
func clauseAt(s string, p int) (int, bool) {
	skip := func(j int) int {
		for j < len(s) && isSpaceASCII(s[j]) {
			j++
		}
		return j
	}
	switch {
	case p == 0:
		return 0, true
	case p >= len(s):
		return 0, false
	}
	switch c := s[p]; {
	case c == ',' || c == ';' || c == ':' || c == '(':
		return skip(p + 1), true
	case c == 0xe2 && (strings.HasPrefix(s[p:], "—") || strings.HasPrefix(s[p:], "–")):
		return skip(p + 3), true
	case isSpaceASCII(c):
		if p+2 < len(s) && s[p+1] == '-' && isSpaceASCII(s[p+2]) {
			return skip(p + 2), true
		}
		return 0, false
	case isWordByte(s[p-1]):
		return 0, false
	}
	for _, w := range clauseJoins {
		if e := p + len(w); strings.HasPrefix(s[p:], w) && e < len(s) && isSpaceASCII(s[e]) {
			return skip(e), true
		}
	}
	return 0, false
}

// skipFillers skips the filler words that may come before an imperative
// ("please", "just", "let's"), each followed by white space.
func skipFillers(s string, j int) int {
	for {
		moved := false
		for _, f := range clauseFillers {
			if strings.HasPrefix(s[j:], f) && j+len(f) < len(s) && isSpaceASCII(s[j+len(f)]) {
				j += len(f)
				for j < len(s) && isSpaceASCII(s[j]) {
					j++
				}
				moved = true
				break
			}
		}
		if !moved {
			return j
		}
	}
}

// twoWords returns the first two words of s in lower case (letters only)
// and the byte that follows the first.
func twoWords(s string) (w1 string, sepc byte, w2 string) {
	word := func(s string) (string, string) {
		i := 0
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			i++
		}
		return strings.ToLower(s[:i]), s[i:]
	}
	w1, rest := word(s)
	if rest != "" {
		sepc = rest[0]
	}
	if sepc == ' ' {
		w2, _ = word(strings.TrimLeft(rest, " "))
	}
	return w1, sepc, w2
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
