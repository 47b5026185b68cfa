package briefing

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/mdtext"
)

// This file holds the text helpers: entity unescaping, path links, sentence
// splitting and cutting, flattening to one line, and the removal of anything
// that looks like an XML tag.

var unescaper = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'")

// unescape undoes the serializer's esc() in one pass, so "&amp;amp;"
// becomes "&amp;" as it was typed.
func unescape(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	return unescaper.Replace(s)
}

// fixWsfile turns legacy wsfile: link targets into path: targets.
func fixWsfile(s string) string {
	if !strings.Contains(s, "wsfile:") {
		return s
	}
	return strings.ReplaceAll(s, "](wsfile:", "](path:")
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// linkLen returns the length of a markdown link at the start of s, or 0,
// reading links as the rule checker does: [label](target) or
// [label](target "title"), the label on one line, the target not empty and
// without white space.
func linkLen(s string) int { return linkAt(s, true) }

// looseLinkLen also takes a target with white space in it, as in
// [/say](slash:command:say "hi" now): good enough to find a label.
func looseLinkLen(s string) int { return linkAt(s, false) }

func linkAt(s string, strict bool) int {
	if len(s) < 4 || s[0] != '[' {
		return 0
	}
	k := strings.IndexAny(s[1:min(len(s), maxLinkLabel)], "]\n")
	if k < 0 || s[1+k] != ']' {
		return 0
	}
	open := 1 + k + 1
	if open >= len(s) || s[open] != '(' {
		return 0
	}
	t := s[open+1 : min(len(s), open+1+maxLinkTarget)]
	if !strict {
		e := strings.IndexAny(t, ")\n")
		if e < 0 || t[e] != ')' {
			return 0
		}
		return open + 1 + e + 1
	}
	e := strings.IndexAny(t, ") \t\r\n\f\v")
	if e <= 0 {
		return 0
	}
	if t[e] == ')' {
		return open + 1 + e + 1
	}
	// white space, a "title", then ')'
	q := e
	for q < len(t) && isSpaceByte(t[q]) {
		q++
	}
	if q >= len(t) || t[q] != '"' {
		return 0
	}
	c := strings.IndexAny(t[q+1:], "\"\n")
	if c < 0 || t[q+1+c] != '"' || q+2+c >= len(t) || t[q+2+c] != ')' {
		return 0
	}
	return open + 1 + q + 2 + c + 1
}

// Longer labels and targets are not taken for a link, which keeps a text
// full of brackets from being scanned again and again.
const (
	maxLinkLabel  = 1000
	maxLinkTarget = 2000
)

// linkify keeps markdown links as they are (rewriting wsfile: targets) and
// turns plain paths into [](path:…) links.
func linkify(s string) string {
	s = fixWsfile(s)
	if strings.IndexByte(s, '/') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 32)
	for i := 0; i < len(s); {
		c := s[i]
		if isSpaceByte(c) {
			b.WriteByte(c)
			i++
			continue
		}
		if c == '[' {
			if n := linkLen(s[i:]); n > 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		j := i
		for j < len(s) && !isSpaceByte(s[j]) {
			j++
		}
		b.WriteString(linkifyToken(s[i:j]))
		i = j
	}
	return b.String()
}

const (
	leadPunct  = "(\"'`“‘"
	trailPunct = ".,;:!?)\"'`”’"
)

func linkifyToken(tok string) string {
	if strings.IndexByte(tok, '/') < 0 {
		return tok
	}
	core := strings.TrimLeft(tok, leadPunct)
	pre := tok[:len(tok)-len(core)]
	core = strings.TrimRight(core, trailPunct)
	post := tok[len(pre)+len(core):]
	if !isPath(core) {
		return linkMounts(tok)
	}
	if strings.HasSuffix(pre, "`") && strings.HasPrefix(post, "`") {
		pre, post = pre[:len(pre)-1], post[1:]
	}
	return pre + mdtext.PathLink(core) + post
}

// isPath says whether a bare token names a file or folder: it has a slash,
// only path characters, a letter, and either a mount prefix (w1/…), a file
// extension, or an absolute form with two or more segments.
func isPath(core string) bool {
	if len(core) < 3 || strings.Contains(core, "://") || strings.Contains(core, "//") {
		return false
	}
	if strings.IndexByte(core, '/') < 0 {
		return false
	}
	letter := false
	for i := 0; i < len(core); i++ {
		c := core[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= 0x80:
			letter = true
		case c >= '0' && c <= '9', c == '.', c == '_', c == '-', c == '/', c == '@', c == '+', c == '~':
		default:
			return false
		}
	}
	if !letter {
		return false
	}
	segs := strings.Split(core, "/")
	if isMount(segs[0]) && len(segs) > 1 {
		return true
	}
	last := segs[len(segs)-1]
	if last == "" {
		return false
	}
	if core[0] == '/' && len(segs) >= 3 {
		return true
	}
	dot := strings.LastIndexByte(last, '.')
	if dot < 0 || dot == len(last)-1 || len(last)-dot-1 > 10 {
		return false
	}
	ext := last[dot+1:]
	hasLetter := false
	for i := 0; i < len(ext); i++ {
		c := ext[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			hasLetter = true
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return hasLetter
}

// isMount: a mount prefix is "w", a digit, then up to seven lower-case
// letters or digits (w1, w12, w1a2).
func isMount(s string) bool {
	if len(s) < 2 || len(s) > 9 || s[0] != 'w' || s[1] < '0' || s[1] > '9' {
		return false
	}
	for i := 2; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z') {
			return false
		}
	}
	return true
}

// links returns every markdown link in s, in order.
func links(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '[')
		if j < 0 {
			break
		}
		i += j
		if n := linkLen(s[i:]); n > 0 {
			out = append(out, s[i:i+n])
			i += n
			continue
		}
		i++
	}
	return out
}

// isTagStart reports whether s[i] is a '<' that starts something a reader
// could take for an XML or HTML tag.
func isTagStart(s string, i int) bool {
	if s[i] != '<' || i+1 >= len(s) {
		return false
	}
	c := s[i+1]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// noTags replaces the angle brackets of anything tag-like with ‹ and ›, so
// the briefing holds no XML tags at all while the words stay readable.
func noTags(s string) string {
	first := -1
	for i := strings.IndexByte(s, '<'); i >= 0; {
		if isTagStart(s, i) {
			first = i
			break
		}
		j := strings.IndexByte(s[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if first < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:first])
	for i := first; i < len(s); {
		if !isTagStart(s, i) {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString("‹")
		i++
		// The matching '>' on the same line, before any other '<'.
		end := -1
		for k := i; k < len(s) && k-i < 400; k++ {
			if s[k] == '>' {
				end = k
				break
			}
			if s[k] == '<' || s[k] == '\n' {
				break
			}
		}
		if end < 0 {
			continue
		}
		b.WriteString(s[i:end])
		b.WriteString("›")
		i = end + 1
	}
	return b.String()
}

// flatten puts text on one line: code fences and blank lines go, list
// markers are dropped, and line breaks inside a paragraph become " / "
// unless the line already ends a clause.
func flatten(s string) string {
	if strings.IndexByte(s, '\n') < 0 && strings.IndexByte(s, '\r') < 0 && strings.IndexByte(s, '\t') < 0 {
		return strings.TrimSpace(collapseSpaces(s))
	}
	var b strings.Builder
	b.Grow(len(s))
	prevEnd := true
	for _, ln := range strings.Split(s, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" || strings.HasPrefix(ln, "```") || strings.HasPrefix(ln, "~~~") {
			continue
		}
		ln = stripListMarker(ln)
		if ln == "" {
			continue
		}
		if b.Len() > 0 {
			if prevEnd {
				b.WriteByte(' ')
			} else {
				b.WriteString(" / ")
			}
		}
		b.WriteString(ln)
		last, _ := utf8.DecodeLastRuneInString(ln)
		prevEnd = strings.ContainsRune(".!?:;,…", last)
	}
	return collapseSpaces(b.String())
}

func stripListMarker(ln string) string {
	for {
		switch {
		case strings.HasPrefix(ln, "- "), strings.HasPrefix(ln, "* "), strings.HasPrefix(ln, "+ "):
			ln = strings.TrimSpace(ln[2:])
		case strings.HasPrefix(ln, "|"):
			t := strings.Trim(ln, "|: -")
			if t == "" {
				return ""
			}
			return strings.Join(splitTrim(strings.Trim(ln, "| "), "|"), "; ")
		default:
			return ln
		}
	}
}

func splitTrim(s, sep string) []string {
	parts := strings.Split(s, sep)
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// collapseSpaces turns runs of ASCII whitespace into one space.
func collapseSpaces(s string) string {
	need := false
	for i := 0; i < len(s); i++ {
		if isSpaceByte(s[i]) && (s[i] != ' ' || i+1 < len(s) && isSpaceByte(s[i+1])) {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	sp := false
	for i := 0; i < len(s); i++ {
		if isSpaceByte(s[i]) {
			sp = true
			continue
		}
		if sp && b.Len() > 0 {
			b.WriteByte(' ')
		}
		sp = false
		b.WriteByte(s[i])
	}
	return b.String()
}

const closers = "\"'”’)]»"

// sentenceEnds returns the byte offsets just past each sentence end in s: a
// run of . ! or ? (with closing quotes or brackets) followed by whitespace
// or the end of the text.
func sentenceEnds(s string) []int { return firstEnds(s, 0) }

// firstEnds is sentenceEnds stopping after limit ends (0: no limit).
func firstEnds(s string, limit int) []int {
	var ends []int
	for i := 0; i < len(s) && (limit <= 0 || len(ends) < limit); i++ {
		c := s[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == '.' || s[j] == '!' || s[j] == '?') {
			j++
		}
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !strings.ContainsRune(closers, r) {
				break
			}
			j += n
		}
		if j == len(s) || isSpaceByte(s[j]) {
			ends = append(ends, j)
		}
		i = j - 1
	}
	return ends
}

// sentences splits one-line text into sentences; text after the last end
// mark counts as a sentence too.
func sentences(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	var out []string
	start := 0
	for _, e := range sentenceEnds(s) {
		if t := strings.TrimSpace(s[start:e]); t != "" {
			out = append(out, t)
		}
		start = e
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// countSentences is the sentence count a checker would see.
func countSentences(s string) int { return len(sentences(flatten(s))) }

// cutUnits cuts s to at most n UTF-16 units at a word boundary when there is
// one in the second half, never inside a rune or a markdown link.
func cutUnits(s string, n int) (string, bool) {
	if history.Len16(s) <= n {
		return s, false
	}
	units, end := 0, 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			break
		}
		units += w
		end = i + utf8.RuneLen(r)
	}
	cut := s[:end]
	if sp := strings.LastIndexByte(cut, ' '); sp > len(cut)/2 {
		cut = cut[:sp]
	}
	if o := strings.LastIndexByte(cut, '['); o >= 0 && !strings.Contains(cut[o:], ")") {
		cut = cut[:o]
	}
	return strings.TrimRight(cut, " ,;:"), true
}

// excerpt keeps the first max sentences of one-line text and at most chars
// UTF-16 units (0: no limit); a cut is marked with an ellipsis.
func excerpt(s string, maxSent, chars int) string {
	s = strings.TrimSpace(s)
	cut := false
	if maxSent > 0 {
		ends := firstEnds(s, maxSent)
		if len(ends) == maxSent && strings.TrimSpace(s[ends[maxSent-1]:]) != "" {
			s = strings.TrimSpace(s[:ends[maxSent-1]])
			cut = true
		}
	}
	if chars > 0 {
		var c bool
		s, c = cutUnits(s, chars)
		cut = cut || c
	}
	if cut {
		s += " …"
	}
	return s
}

// clause makes s safe to embed in one sentence: its first sentence only,
// without end marks, cut to max units.
func clause(s string, max int) string {
	s = flatten(s)
	if ends := firstEnds(s, 1); len(ends) > 0 {
		s = s[:ends[0]]
	}
	s = trimClause(s)
	if c, cut := cutUnits(s, max); cut {
		s = closeQuotes(strings.TrimRight(c, " .!?:;,") + "…")
	}
	return s
}

// quotePairs are the quotes and brackets a clause keeps when they pair up.
var quotePairs = [...][2]string{{"“", "”"}, {"‘", "’"}, {"«", "»"}, {`"`, `"`}, {"'", "'"}, {"(", ")"}}

// trimClause takes end marks off s, and quotes that pair with nothing
// (the closing quote of “…” is kept when its opening quote is there).
func trimClause(s string) string {
	s = strings.TrimRight(s, " .!?:;,")
	var opens, closes [len(quotePairs)]int
	for i, p := range quotePairs {
		opens[i] = strings.Count(s, p[0])
		closes[i] = strings.Count(s, p[1])
	}
	pairs := func(i int) bool {
		if quotePairs[i][0] == quotePairs[i][1] {
			return opens[i]%2 == 0
		}
		return opens[i] == closes[i]
	}
	for {
		n := len(s)
		for i, p := range quotePairs {
			if p[0] == "(" {
				continue
			}
			if strings.HasSuffix(s, p[1]) && !pairs(i) {
				s = s[:len(s)-len(p[1])]
				closes[i]--
				if p[0] == p[1] {
					opens[i]--
				}
			}
			if strings.HasPrefix(s, p[0]) && !pairs(i) {
				s = s[len(p[0]):]
				opens[i]--
				if p[0] == p[1] {
					closes[i]--
				}
			}
		}
		s = strings.TrimRight(s, " .!?:;,") // end marks hold no quotes: the counts stay
		if len(s) == n {
			return s
		}
	}
}

// closeQuotes closes the typographic quotes and brackets a cut left open.
func closeQuotes(s string) string {
	for _, p := range quotePairs {
		if p[0] != p[1] && p[0] != "‘" {
			if n := strings.Count(s, p[0]) - strings.Count(s, p[1]); n > 0 {
				s += strings.Repeat(p[1], n)
			}
		}
	}
	return s
}

// quote wraps text in typographic quotes and ends the sentence.
func quote(s string) string {
	return "“" + s + "”" + endMark(s)
}

// endMark is "." unless s already ends with an end mark.
func endMark(s string) string {
	s = strings.TrimRight(s, closers)
	if s == "" {
		return "."
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	if r == '.' || r == '!' || r == '?' || r == '…' {
		return ""
	}
	return "."
}

// sentence ends s with a full stop when it has no end mark.
func sentence(s string) string { return s + endMark(s) }

// joinList joins items as "a, b and c".
func joinList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// capitalize upper-cases the first letter, unless the first word is
// written as code (useTheme, npm_config).
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	if w, _, _ := strings.Cut(s, " "); isIdentifier(w) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

func plural(n, word string) string {
	if n == "1" {
		return n + " " + word
	}
	return n + " " + word + "s"
}

// linkMounts links the mount-prefixed paths inside a token that is not a
// path as a whole (a glob such as w1/src/*.tsx, an assignment such as
// out=w1/dist/app.js): the output rules want every such path as a link,
// wherever it stands. A path starts at a mount prefix that does not follow
// a path character or ':', and runs over path characters; a trailing '.'
// stays outside the link.
func linkMounts(tok string) string { return mapMounts(tok, mdtext.PathLink) }

// mapMounts replaces the mount-prefixed paths inside a token by f(path).
func mapMounts(tok string, f func(string) string) string {
	if strings.IndexByte(tok, '/') < 0 {
		return tok
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(tok); i++ {
		if tok[i] != 'w' {
			continue
		}
		if i > 0 {
			r, _ := utf8.DecodeLastRuneInString(tok[:i])
			if mdtext.GluedBefore(r) {
				continue
			}
		}
		end, ok := mdtext.MountPathAt(tok, i)
		if !ok {
			continue
		}
		p := strings.TrimRight(tok[i:end], ".")
		if strings.IndexByte(strings.TrimRight(p, "/"), '/') < 0 {
			i = end - 1
			continue
		}
		b.WriteString(tok[last:i])
		b.WriteString(f(p))
		last = i + len(p)
		i = last - 1
	}
	if last == 0 {
		return tok
	}
	b.WriteString(tok[last:])
	return b.String()
}

// linkAllMounts links the plain mount-prefixed paths of a text and leaves
// everything else, markdown links included, as it is.
func linkAllMounts(s string) string {
	if !mayHoldMount(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '[' {
			if n := linkLen(s[i:]); n > 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		j := i + 1
		for j < len(s) && s[j] != '[' {
			j++
		}
		b.WriteString(linkMounts(s[i:j]))
		i = j
	}
	return b.String()
}

// oneSentence reports whether s is one sentence for both counts, closed so
// that a following sentence starts a new one for both: sentences, and the
// rule checker's mdtext.SplitSentences, which is stricter than sentences in
// some places and looser in others, so the working state, which must be
// exactly two sentences for both, is checked with each.
func oneSentence(s string) bool {
	f := flatten(s)
	if len(sentences(f)) != 1 || len(mdtext.SplitSentences(f)) != 1 {
		return false
	}
	t := strings.TrimRight(f, "\"')]*_`")
	if t == "" {
		return false
	}
	switch t[len(t)-1] {
	case '!', '?':
		return true
	case '.':
		return !mdtext.EndsWithAbbreviation(t[:len(t)-1])
	}
	return false
}

// mayHoldMount is a quick test for a plain mount-prefixed path: a 'w' and
// a digit that follow neither a path character nor ':' (so the targets of
// [](path:w1/…) links do not count).
func mayHoldMount(s string) bool {
	for i := 0; ; {
		k := strings.IndexByte(s[i:], 'w')
		if k < 0 {
			return false
		}
		i += k
		if i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			if i == 0 {
				return true
			}
			r, _ := utf8.DecodeLastRuneInString(s[:i])
			if !mdtext.GluedBefore(r) {
				return true
			}
		}
		i++
	}
}
