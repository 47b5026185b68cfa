package history

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 10000

// SyntaxError is a JSON.parse failure.
type SyntaxError struct {
	Offset int // byte offset in the input
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// ParseJSON is JSON.parse: it returns the value JavaScript would hold, with
// object keys in JavaScript order (a repeated key keeps its first place and
// its last value), numbers as float64 (1e400 is Infinity, -0 stays -0),
// lone-surrogate escapes kept exact, and invalid UTF-8 replaced by U+FFFD
// the way Node decodes it.
func ParseJSON(text string) (Value, error) {
	p := parser{s: text}
	p.skipWS()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.skipWS()
	if p.i != len(p.s) {
		return Value{}, p.errf("unexpected %s after the value", p.what())
	}
	return v, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) errf(format string, a ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, a...)}
}

func (p *parser) what() string {
	if p.i >= len(p.s) {
		return "end of input"
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return strconv.QuoteRune(r)
}

func (p *parser) skipWS() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if p.i >= len(p.s) {
		return Value{}, p.errf("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return Value{k: String, s: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.lit("true", BoolValue(true))
	case c == 'f':
		return p.lit("false", BoolValue(false))
	case c == 'n':
		return p.lit("null", NullValue())
	}
	return Value{}, p.errf("unexpected %s", p.what())
}

func (p *parser) lit(word string, v Value) (Value, error) {
	if len(p.s)-p.i >= len(word) && p.s[p.i:p.i+len(word)] == word {
		p.i += len(word)
		return v, nil
	}
	return Value{}, p.errf("unexpected %s", p.what())
}

func (p *parser) object(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.errf("nesting deeper than %d", maxDepth)
	}
	p.i++ // {
	obj := Value{k: Object, c: &Container{}}
	p.skipWS()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return obj, nil
	}
	for {
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return Value{}, p.errf("expected a property name, found %s", p.what())
		}
		key, err := p.str()
		if err != nil {
			return Value{}, err
		}
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return Value{}, p.errf("expected ':' after a property name, found %s", p.what())
		}
		p.i++
		p.skipWS()
		val, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		c := obj.c
		// A new non-index key goes last; Set handles repeats and index
		// keys (which JavaScript orders first, ascending).
		if !isIndexKey(key) && !hasKey(c.Keys, key) {
			c.Keys = append(c.Keys, key)
			c.Vals = append(c.Vals, val)
		} else {
			obj.Set(key, val)
		}
		p.skipWS()
		if p.i >= len(p.s) {
			return Value{}, p.errf("unexpected end of input in an object")
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] == '}' {
			p.i++
			return obj, nil
		}
		return Value{}, p.errf("expected ',' or '}', found %s", p.what())
	}
}

func isIndexKey(k string) bool {
	if k == "" || k[0] < '0' || k[0] > '9' {
		return false
	}
	_, ok := arrayIndex(k)
	return ok
}

func hasKey(keys []string, k string) bool {
	if len(keys) > 32 {
		return true // let Set use its index
	}
	for _, key := range keys {
		if key == k {
			return true
		}
	}
	return false
}

func (p *parser) array(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.errf("nesting deeper than %d", maxDepth)
	}
	p.i++ // [
	var vals []Value
	p.skipWS()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return NewArray(vals), nil
	}
	for {
		p.skipWS()
		v, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		vals = append(vals, v)
		p.skipWS()
		if p.i >= len(p.s) {
			return Value{}, p.errf("unexpected end of input in an array")
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] == ']' {
			p.i++
			return NewArray(vals), nil
		}
		return Value{}, p.errf("expected ',' or ']', found %s", p.what())
	}
}

func (p *parser) number() (Value, error) {
	start := p.i
	s := p.s
	if s[p.i] == '-' {
		p.i++
	}
	if p.i >= len(s) {
		return Value{}, p.errf("no digits after '-'")
	}
	if s[p.i] == '0' {
		p.i++
	} else if s[p.i] >= '1' && s[p.i] <= '9' {
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
	} else {
		return Value{}, p.errf("no digits after '-'")
	}
	if p.i < len(s) && s[p.i] == '.' {
		p.i++
		d := p.i
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
		if p.i == d {
			return Value{}, p.errf("no digits after the decimal point")
		}
	}
	if p.i < len(s) && (s[p.i] == 'e' || s[p.i] == 'E') {
		p.i++
		if p.i < len(s) && (s[p.i] == '+' || s[p.i] == '-') {
			p.i++
		}
		d := p.i
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
		if p.i == d {
			return Value{}, p.errf("no digits in the exponent")
		}
	}
	text := s[start:p.i]
	// Small integers are common; skip ParseFloat for them.
	if len(text) < 16 {
		n, neg, ok := 0, false, true
		for j := 0; j < len(text); j++ {
			c := text[j]
			if c == '-' && j == 0 {
				neg = true
				continue
			}
			if c < '0' || c > '9' {
				ok = false
				break
			}
			n = n*10 + int(c-'0')
		}
		if ok && !(neg && n == 0) {
			if neg {
				n = -n
			}
			return Value{k: Number, n: float64(n)}, nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return Value{}, p.errf("bad number %q", text)
		}
	}
	return Value{k: Number, n: f}, nil
}

// str reads a JSON string starting at the opening quote.
func (p *parser) str() (string, error) {
	p.i++ // "
	start := p.i
	s := p.s
	ascii := true
	for p.i < len(s) {
		c := s[p.i]
		if c == '"' {
			out := s[start:p.i]
			p.i++
			if !ascii && !utf8.ValidString(out) {
				return toValidUTF8(out), nil
			}
			return out, nil
		}
		if c == '\\' {
			return p.strSlow(start)
		}
		if c < 0x20 {
			return "", p.errf("control character U+%04X in a string", c)
		}
		if c >= 0x80 {
			ascii = false
		}
		p.i++
	}
	return "", p.errf("unterminated string")
}

func (p *parser) strSlow(start int) (string, error) {
	s := p.s
	b := make([]byte, 0, p.i-start+16)
	b = append(b, s[start:p.i]...)
	for p.i < len(s) {
		c := s[p.i]
		switch {
		case c == '"':
			p.i++
			out := string(b)
			if !utf8.ValidString(out) {
				out = toValidUTF8Keep(out)
			}
			return out, nil
		case c < 0x20:
			return "", p.errf("control character U+%04X in a string", c)
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(s) {
			break
		}
		e := s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			u, ok := hex4(s, p.i)
			if !ok {
				return "", p.errf("bad \\u escape")
			}
			p.i += 4
			if u >= 0xD800 && u < 0xDC00 && p.i+6 <= len(s) && s[p.i] == '\\' && s[p.i+1] == 'u' {
				if lo, ok := hex4(s, p.i+2); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					p.i += 6
					b = utf8.AppendRune(b, 0x10000+(u-0xD800)<<10+(lo-0xDC00))
					continue
				}
			}
			b = appendRune(b, u)
		default:
			p.i--
			return "", p.errf("bad escape \\%c", e)
		}
	}
	return "", p.errf("unterminated string")
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for j := i; j < i+4; j++ {
		c := s[j]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// toValidUTF8 decodes bytes the way Node's UTF-8 decoder does: each maximal
// ill-formed subsequence becomes one U+FFFD.
func toValidUTF8(s string) string {
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size > 1 {
			b = append(b, s[i:i+size]...)
			i += size
			continue
		}
		b = append(b, "\uFFFD"...)
		i += maximalSubpart(s[i:])
	}
	return string(b)
}

// toValidUTF8Keep is toValidUTF8 that leaves WTF-8 lone surrogates (made by
// our own \u escapes) in place.
func toValidUTF8Keep(s string) string {
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		if _, ok := isSurrogateAt(s, i); ok {
			b = append(b, s[i:i+3]...)
			i += 3
			continue
		}
		c := s[i]
		if c < 0x80 {
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size > 1 {
			b = append(b, s[i:i+size]...)
			i += size
			continue
		}
		b = append(b, "\uFFFD"...)
		i += maximalSubpart(s[i:])
	}
	return string(b)
}

// maximalSubpart is the length of the maximal prefix of an ill-formed
// sequence starting at s[0] (at least 1), per the WHATWG decoder.
func maximalSubpart(s string) int {
	c := s[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for j := 0; j < need && n < len(s); j++ {
		b := s[n]
		if j == 0 {
			if b < lo || b > hi {
				return n
			}
		} else if b < 0x80 || b > 0xBF {
			return n
		}
		n++
	}
	return n
}
