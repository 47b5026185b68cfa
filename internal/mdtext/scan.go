package mdtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hand-written scanners for the patterns of items.go. Each is equivalent
// to the regular expression quoted in its comment (RE2 syntax, leftmost
// matches), and several times faster than package regexp on 30000-character
// briefings.

// link is one markdown link: s[start:end] is the whole link.
type link struct {
	start, end int
	target     string
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// scanLinks finds the markdown links of s:
//
//	\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"\n]*")?\)
//
// which covers [label](target), ![alt](target) and [label](target "title").
// It takes time linear in len(s): each of the scans a link is matched
// with (to the ']', to the end of the target, to the title's '"') is
// remembered for the next '[' (finder), so that a long line full of '['
// and no ']' (or of "[a](" and no ')') is not scanned again from each.
func scanLinks(s string) []link {
	var out []link
	sc := linkScanner{
		s:      s,
		close:  finder{s: s, in: func(c byte) bool { return c == ']' || c == '\n' }},
		target: finder{s: s, in: func(c byte) bool { return c == ')' || isSpace(c) }},
		title:  finder{s: s, in: func(c byte) bool { return c == '"' || c == '\n' }},
	}
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '[')
		if k < 0 {
			break
		}
		start := i + k
		if l, ok := sc.linkAt(start); ok {
			out = append(out, l)
			i = l.end
			continue
		}
		i = start + 1
	}
	return out
}

// finder finds the first byte of a set at or after a position of s. A
// query within the stretch the last one scanned (from its position to
// what it found) has the same answer, at once: queries at increasing
// positions look at each byte of s once in all.
type finder struct {
	s        string
	in       func(byte) bool
	from, at int // s[from:at] holds no byte of the set; s[at] is one, or at == len(s)
	used     bool
}

func (f *finder) next(p int) int {
	if f.used && p >= f.from && p <= f.at {
		return f.at
	}
	q := p
	for q < len(f.s) && !f.in(f.s[q]) {
		q++
	}
	f.from, f.at, f.used = p, q, true
	return q
}

type linkScanner struct {
	s                    string
	close, target, title finder
}

// linkAt matches a link that starts at s[start] == '['.
func (sc *linkScanner) linkAt(start int) (link, bool) {
	s := sc.s
	j := sc.close.next(start + 1)
	if j+1 >= len(s) || s[j] != ']' || s[j+1] != '(' {
		return link{}, false
	}
	t := j + 2
	e := sc.target.next(t)
	if e == t || e >= len(s) {
		return link{}, false
	}
	target := s[t:e]
	if s[e] == ')' {
		return link{start: start, end: e + 1, target: target}, true
	}
	// white space, then a "title", then ')'
	q := e
	for q < len(s) && isSpace(s[q]) {
		q++
	}
	if q >= len(s) || s[q] != '"' {
		return link{}, false
	}
	q = sc.title.next(q + 1)
	if q+1 >= len(s) || s[q] != '"' || s[q+1] != ')' {
		return link{}, false
	}
	return link{start: start, end: q + 2, target: target}, true
}

// linkPaths returns the targets of the path: and wsfile: links of s,
// without a trailing '/'.
func linkPaths(s string) []string {
	var out []string
	for _, l := range scanLinks(s) {
		if p, ok := LinkPath(l.target); ok {
			out = append(out, p)
		}
	}
	return out
}

// mdLinks returns the targets of the markdown links of s that are not
// path, wsfile or slash links.
func mdLinks(s string) []string {
	var out []string
	for _, l := range scanLinks(s) {
		t := l.target
		if strings.HasPrefix(t, "path:") || strings.HasPrefix(t, "wsfile:") || strings.HasPrefix(t, "slash:") {
			continue
		}
		out = append(out, t)
	}
	return out
}

// maskLinks blanks every markdown link of s (same length), so that the
// targets are not found again as plain paths.
func maskLinks(s string) string {
	ls := scanLinks(s)
	if len(ls) == 0 {
		return s
	}
	b := []byte(s)
	for _, l := range ls {
		for i := l.start; i < l.end; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

// plainPaths returns the plain paths of s in order (see the Paths comment
// in items.go), matching
//
//	w[0-9][\p{Ll}\p{N}]{0,7}/[\p{L}\p{N}_.\-@+~%/]*
//
// and then dropping a match that follows a path character or ':'. Link
// spans should be masked out first (maskLinks).
func plainPaths(s string) []string {
	var out []string
	for i := 0; i+2 < len(s); {
		k := strings.IndexByte(s[i:], 'w')
		if k < 0 {
			break
		}
		w := i + k
		end, ok := MountPathAt(s, w)
		if !ok {
			i = w + 1
			continue
		}
		i = end
		if w > 0 {
			r, _ := utf8.DecodeLastRuneInString(s[:w])
			if GluedBefore(r) {
				continue
			}
		}
		if p := cleanPath(s[w:end]); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// hexColors returns the hex colours of s (see the Colours comment in
// items.go); strict applies the rule on digit-only short forms.
func hexColors(s string, strict bool) []string {
	var out []string
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '#')
		if k < 0 {
			break
		}
		h := i + k
		j := h + 1
		for j < len(s) && j-h-1 < 8 && isHex(s[j]) {
			j++
		}
		n := j - h - 1
		if n < 3 {
			i = h + 1
			continue
		}
		i = j
		if n != 3 && n != 4 && n != 6 && n != 8 {
			continue
		}
		v := s[h:j]
		if h > 0 {
			r, _ := utf8.DecodeLastRuneInString(s[:h])
			if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("/&#-_", r) {
				continue
			}
		}
		if j < len(s) {
			r, _ := utf8.DecodeRuneInString(s[j:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
				continue
			}
		}
		if strict && n <= 4 && strings.Trim(v[1:], "0123456789") == "" {
			before := strings.TrimRight(s[:h], " \t")
			if !strings.HasSuffix(before, ":") {
				continue
			}
		}
		out = append(out, v)
	}
	return out
}

var colorFuncs = map[string]bool{"rgb": true, "rgba": true, "hsl": true, "hsla": true, "hwb": true, "lab": true, "lch": true, "oklab": true, "oklch": true}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// colorFuncValues returns the CSS colour functions of s:
//
//	(?i)\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\([^()\n]{1,60}\)
func colorFuncValues(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '(')
		if k < 0 {
			break
		}
		p := i + k
		i = p + 1
		b := p
		for b > 0 && isASCIILetter(s[b-1]) {
			b--
		}
		if b == p || !colorFuncs[strings.ToLower(s[b:p])] {
			continue
		}
		if b > 0 && (s[b-1] >= '0' && s[b-1] <= '9' || s[b-1] == '_') {
			continue
		}
		e := p + 1
		for e < len(s) && e-p-1 <= 60 && s[e] != '(' && s[e] != ')' && s[e] != '\n' {
			e++
		}
		if e >= len(s) || s[e] != ')' || e == p+1 || e-p-1 > 60 {
			continue
		}
		out = append(out, s[b:e+1])
		i = e + 1
	}
	return out
}

// letterWords calls f with the start and end of every run of ASCII letters
// of s.
func letterWords(s string, f func(start, end int)) {
	for i := 0; i < len(s); {
		if !isASCIILetter(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		f(i, j)
		i = j
	}
}
