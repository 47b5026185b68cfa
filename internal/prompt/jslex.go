package prompt

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a small tokenizer for the subset of TypeScript that a
// prompt.ts module uses: identifiers, numbers, punctuators, string and
// template literals (cooked as JavaScript cooks them), regular expression
// literals (skipped over), comments and whitespace.

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tNum
	tStr
	tTmpl
	tPunct
	tRegex
)

func (k tokKind) String() string {
	switch k {
	case tEOF:
		return "end of input"
	case tIdent:
		return "identifier"
	case tNum:
		return "number"
	case tStr:
		return "string literal"
	case tTmpl:
		return "template literal"
	case tPunct:
		return "punctuator"
	default:
		return "regular expression"
	}
}

type token struct {
	kind tokKind
	off  int    // byte offset in the source
	text string // source text (ident, number, punctuator, regex)
	str  string // cooked value (string literal)

	// Template literals: len(quasis) == len(subs)+1.
	quasis []string
	subs   [][]token
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tStr:
		return "a string literal"
	case tTmpl:
		return "a template literal"
	case tNum:
		return "the number " + t.text
	default:
		return "`" + t.text + "`"
	}
}

// ImportError is a prompt.ts import failure. Line and Col (1-based, Col in
// bytes) locate the problem when it has a place; they are 0 otherwise.
type ImportError struct {
	Line, Col int
	Msg       string
}

func (e *ImportError) Error() string {
	if e.Line == 0 {
		return "prompt.ts: " + e.Msg
	}
	return fmt.Sprintf("prompt.ts:%d:%d: %s", e.Line, e.Col, e.Msg)
}

// lineCol converts a byte offset into a 1-based line and column (in bytes).
// LF, CR LF, a lone CR, U+2028 and U+2029 end lines as in JavaScript.
func lineCol(src string, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	line, start := 1, 0
	for i := 0; i < off; {
		r, n := utf8.DecodeRuneInString(src[i:])
		if r == '\r' && i+1 < len(src) && src[i+1] == '\n' {
			n = 2
		}
		if r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' {
			line++
			start = i + n
		}
		i += n
	}
	col := off - start + 1
	if col < 1 {
		col = 1
	}
	return line, col
}

const maxNesting = 200

type lexer struct {
	src   string
	pos   int
	depth int
}

func (lx *lexer) errAt(off int, format string, a ...any) *ImportError {
	l, c := lineCol(lx.src, off)
	return &ImportError{Line: l, Col: c, Msg: fmt.Sprintf(format, a...)}
}

// tokenize splits the whole source into tokens.
func tokenize(src string) ([]token, error) {
	lx := &lexer{src: src}
	if strings.HasPrefix(src, "\uFEFF") {
		lx.pos = 3
	}
	if strings.HasPrefix(src[lx.pos:], "#!") {
		for lx.pos < len(src) && !isLineTerminatorAt(src, lx.pos) {
			lx.pos++
		}
	}
	toks, err := lx.tokens(false)
	if err != nil {
		return nil, err
	}
	return toks, nil
}

func isLineTerminatorAt(s string, i int) bool {
	switch s[i] {
	case '\n', '\r':
		return true
	}
	return strings.HasPrefix(s[i:], "\u2028") || strings.HasPrefix(s[i:], "\u2029")
}

// tokens reads tokens until the end of input or, inside a template
// substitution (inSub), until the '}' that closes it, which it consumes.
func (lx *lexer) tokens(inSub bool) ([]token, error) {
	var out []token
	braces := 0
	for {
		if err := lx.skipSpace(); err != nil {
			return nil, err
		}
		if lx.pos >= len(lx.src) {
			if inSub {
				return nil, lx.errAt(lx.pos, "unterminated ${…} substitution in a template literal")
			}
			out = append(out, token{kind: tEOF, off: lx.pos})
			return out, nil
		}
		start := lx.pos
		c := lx.src[lx.pos]
		switch {
		case c == '}' && inSub && braces == 0:
			lx.pos++
			out = append(out, token{kind: tEOF, off: start})
			return out, nil
		case c == '\'' || c == '"':
			s, err := lx.stringLit(c)
			if err != nil {
				return nil, err
			}
			out = append(out, token{kind: tStr, off: start, str: s, text: lx.src[start:lx.pos]})
		case c == '`':
			t, err := lx.templateLit()
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		case isDigit(c) || (c == '.' && lx.pos+1 < len(lx.src) && isDigit(lx.src[lx.pos+1])):
			lx.number()
			out = append(out, token{kind: tNum, off: start, text: lx.src[start:lx.pos]})
		case c == '/' && regexAllowed(out):
			if err := lx.regex(); err != nil {
				return nil, err
			}
			out = append(out, token{kind: tRegex, off: start, text: lx.src[start:lx.pos]})
		default:
			r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
			if isIdentStart(r) {
				lx.pos += n
				for lx.pos < len(lx.src) {
					r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
					if !isIdentPart(r) {
						break
					}
					lx.pos += n
				}
				out = append(out, token{kind: tIdent, off: start, text: lx.src[start:lx.pos]})
				continue
			}
			p := matchPunct(lx.src[lx.pos:])
			if p == "" {
				return nil, lx.errAt(start, "unexpected character %q", r)
			}
			lx.pos += len(p)
			switch p {
			case "{":
				braces++
			case "}":
				braces--
			}
			out = append(out, token{kind: tPunct, off: start, text: p})
		}
	}
}

func (lx *lexer) skipSpace() error {
	for lx.pos < len(lx.src) {
		s := lx.src[lx.pos:]
		switch {
		case strings.HasPrefix(s, "//"):
			for lx.pos < len(lx.src) && !isLineTerminatorAt(lx.src, lx.pos) {
				lx.pos++
			}
		case strings.HasPrefix(s, "/*"):
			end := strings.Index(s[2:], "*/")
			if end < 0 {
				return lx.errAt(lx.pos, "unterminated /* comment")
			}
			lx.pos += 2 + end + 2
		default:
			r, n := utf8.DecodeRuneInString(s)
			if !isJSSpace(r) {
				return nil
			}
			lx.pos += n
		}
	}
	return nil
}

// isJSSpace is WhiteSpace or LineTerminator of ECMAScript.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', ' ', '\u00a0', '\ufeff', '\n', '\r', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(r rune) bool {
	return r == '$' || r == '_' || r == '#' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r)
}

func isIdentPart(r rune) bool {
	return r == '$' || r == '_' || r == '\u200c' || r == '\u200d' ||
		unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.IsDigit(r) ||
		unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)
}

var puncts = []string{
	">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
	"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=",
	"/=", "%=", "&=", "|=", "^=", "**", "<<", ">>",
	"{", "}", "(", ")", "[", "]", ";", ",", "<", ">", "+", "-", "*", "/", "%", "&",
	"|", "^", "!", "~", "?", ":", "=", ".", "@",
}

func matchPunct(s string) string {
	for _, p := range puncts {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	return ""
}

// regexAllowed tells a regular expression from a division by the previous
// token, the usual heuristic.
func regexAllowed(prev []token) bool {
	if len(prev) == 0 {
		return true
	}
	t := prev[len(prev)-1]
	switch t.kind {
	case tNum, tStr, tTmpl, tRegex:
		return false
	case tIdent:
		switch t.text {
		case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void",
			"throw", "case", "do", "else", "yield", "await":
			return true
		}
		return false
	case tPunct:
		switch t.text {
		case ")", "]", "}":
			return false
		}
	}
	return true
}

// number consumes a numeric literal: 0x/0o/0b integers, or decimal digits
// with one optional fraction and exponent; "_" separators and a BigInt "n"
// suffix are taken along (and rejected later when the value is needed).
func (lx *lexer) number() {
	s := lx.src
	digitsOr := func(ok func(byte) bool) {
		for lx.pos < len(s) && (ok(s[lx.pos]) || s[lx.pos] == '_') {
			lx.pos++
		}
	}
	if lx.pos+1 < len(s) && s[lx.pos] == '0' && strings.IndexByte("xXoObB", s[lx.pos+1]) >= 0 {
		lx.pos += 2
		digitsOr(isHex)
	} else {
		digitsOr(isDigit)
		if lx.pos < len(s) && s[lx.pos] == '.' {
			lx.pos++
			digitsOr(isDigit)
		}
		if lx.pos < len(s) && s[lx.pos]|0x20 == 'e' {
			j := lx.pos + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if j < len(s) && isDigit(s[j]) {
				lx.pos = j
				digitsOr(isDigit)
			}
		}
	}
	if lx.pos < len(s) && s[lx.pos] == 'n' {
		lx.pos++
	}
}

func (lx *lexer) regex() error {
	start := lx.pos
	lx.pos++ // '/'
	inClass := false
	for {
		if lx.pos >= len(lx.src) || isLineTerminatorAt(lx.src, lx.pos) {
			return lx.errAt(start, "unterminated regular expression literal")
		}
		c := lx.src[lx.pos]
		switch {
		case c == '\\':
			lx.pos++
			if lx.pos >= len(lx.src) || isLineTerminatorAt(lx.src, lx.pos) {
				return lx.errAt(start, "unterminated regular expression literal")
			}
			_, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
			lx.pos += n
			continue
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			lx.pos++
			for lx.pos < len(lx.src) {
				r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
				if !isIdentPart(r) {
					break
				}
				lx.pos += n
			}
			return nil
		}
		lx.pos++
	}
}

// u16 accumulates a JavaScript string as UTF-16 code units, so that escaped
// surrogate pairs join and lone surrogates become U+FFFD at the end (as Node
// does when it writes such a string as UTF-8).
type u16 []uint16

func (b *u16) rune(r rune) {
	if r >= 0x10000 {
		r1, r2 := utf16.EncodeRune(r)
		*b = append(*b, uint16(r1), uint16(r2))
		return
	}
	*b = append(*b, uint16(r))
}

func (b u16) String() string { return string(utf16.Decode(b)) }

// stringLit reads a '…' or "…" literal and returns its value.
func (lx *lexer) stringLit(q byte) (string, error) {
	start := lx.pos
	lx.pos++
	var b u16
	for {
		if lx.pos >= len(lx.src) {
			return "", lx.errAt(start, "unterminated string literal")
		}
		c := lx.src[lx.pos]
		switch {
		case c == q:
			lx.pos++
			return b.String(), nil
		case c == '\n' || c == '\r':
			return "", lx.errAt(start, "unterminated string literal (a line break inside quotes)")
		case c == '\\':
			if err := lx.escape(&b, false); err != nil {
				return "", err
			}
		default:
			r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
			b.rune(r)
			lx.pos += n
		}
	}
}

// templateLit reads a `…` literal: its cooked text pieces and the tokens of
// each ${…} substitution.
func (lx *lexer) templateLit() (token, error) {
	start := lx.pos
	lx.depth++
	defer func() { lx.depth-- }()
	if lx.depth > maxNesting {
		return token{}, lx.errAt(start, "template literals nested too deeply")
	}
	lx.pos++
	t := token{kind: tTmpl, off: start}
	var b u16
	for {
		if lx.pos >= len(lx.src) {
			return token{}, lx.errAt(start, "unterminated template literal")
		}
		c := lx.src[lx.pos]
		switch {
		case c == '`':
			lx.pos++
			t.quasis = append(t.quasis, b.String())
			t.text = lx.src[start:lx.pos]
			return t, nil
		case c == '$' && lx.pos+1 < len(lx.src) && lx.src[lx.pos+1] == '{':
			t.quasis = append(t.quasis, b.String())
			b = nil
			lx.pos += 2
			sub, err := lx.tokens(true)
			if err != nil {
				return token{}, err
			}
			t.subs = append(t.subs, sub)
		case c == '\\':
			if err := lx.escape(&b, true); err != nil {
				return token{}, err
			}
		case c == '\r':
			// CR LF and a lone CR are both read as LF in templates.
			lx.pos++
			if lx.pos < len(lx.src) && lx.src[lx.pos] == '\n' {
				lx.pos++
			}
			b = append(b, '\n')
		default:
			r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
			b.rune(r)
			lx.pos += n
		}
	}
}

// escape decodes the escape sequence at lx.pos (a backslash) into b.
func (lx *lexer) escape(b *u16, template bool) error {
	start := lx.pos
	lx.pos++
	if lx.pos >= len(lx.src) {
		return lx.errAt(start, "unterminated escape sequence")
	}
	c := lx.src[lx.pos]
	switch c {
	case '\n':
		lx.pos++
		return nil
	case '\r':
		lx.pos++
		if lx.pos < len(lx.src) && lx.src[lx.pos] == '\n' {
			lx.pos++
		}
		return nil
	case 'n':
		*b = append(*b, '\n')
	case 't':
		*b = append(*b, '\t')
	case 'r':
		*b = append(*b, '\r')
	case 'b':
		*b = append(*b, '\b')
	case 'f':
		*b = append(*b, '\f')
	case 'v':
		*b = append(*b, '\v')
	case '0':
		if lx.pos+1 < len(lx.src) && isDigit(lx.src[lx.pos+1]) {
			return lx.errAt(start, "octal escape sequences are not allowed (modules are strict code)")
		}
		*b = append(*b, 0)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		what := "octal escape sequences are not allowed (modules are strict code)"
		if template {
			what = "\\" + string(c) + " is not allowed in a template literal"
		}
		return lx.errAt(start, "%s", what)
	case 'x':
		if lx.pos+2 >= len(lx.src) || !isHex(lx.src[lx.pos+1]) || !isHex(lx.src[lx.pos+2]) {
			return lx.errAt(start, "invalid \\x escape: expected two hex digits")
		}
		*b = append(*b, uint16(hexVal(lx.src[lx.pos+1])<<4|hexVal(lx.src[lx.pos+2])))
		lx.pos += 3
		return nil
	case 'u':
		return lx.unicodeEscape(b, start)
	default:
		// Any other character stands for itself: \` \$ \' \" \\ and the rest,
		// including U+2028 and U+2029, which are line continuations.
		r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
		lx.pos += n
		if r == '\u2028' || r == '\u2029' {
			return nil
		}
		b.rune(r)
		return nil
	}
	lx.pos++
	return nil
}

func (lx *lexer) unicodeEscape(b *u16, start int) error {
	lx.pos++ // 'u'
	if lx.pos < len(lx.src) && lx.src[lx.pos] == '{' {
		lx.pos++
		v, digits := 0, 0
		for lx.pos < len(lx.src) && isHex(lx.src[lx.pos]) {
			v = v<<4 | hexVal(lx.src[lx.pos])
			if v > 0x10FFFF {
				return lx.errAt(start, "invalid \\u{…} escape: code point above 10FFFF")
			}
			digits++
			lx.pos++
		}
		if digits == 0 || lx.pos >= len(lx.src) || lx.src[lx.pos] != '}' {
			return lx.errAt(start, "invalid \\u{…} escape: expected hex digits and '}'")
		}
		lx.pos++
		if v >= 0xD800 && v <= 0xDFFF {
			*b = append(*b, uint16(v))
		} else {
			b.rune(rune(v))
		}
		return nil
	}
	if lx.pos+4 > len(lx.src) {
		return lx.errAt(start, "invalid \\u escape: expected four hex digits")
	}
	v := 0
	for i := 0; i < 4; i++ {
		c := lx.src[lx.pos+i]
		if !isHex(c) {
			return lx.errAt(start, "invalid \\u escape: expected four hex digits")
		}
		v = v<<4 | hexVal(c)
	}
	lx.pos += 4
	*b = append(*b, uint16(v))
	return nil
}

func isHex(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func hexVal(c byte) int {
	if isDigit(c) {
		return int(c - '0')
	}
	return int(c|0x20-'a') + 10
}
