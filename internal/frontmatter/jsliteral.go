package frontmatter

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

func decodeRune(s string) (rune, int) { return utf8.DecodeRuneInString(s) }

// jsValue is a JavaScript value a literal can make.
type jsValue struct {
	kind  byte // 'u' undefined, 'n' null, 'b' boolean, 'd' number, 's' string, 'a' array, 'o' object
	b     bool
	num   float64
	s     string
	elems []*jsValue
	obj   *jsObject
}

type jsObject struct {
	props map[string]*jsValue
	proto *jsObject // set by a __proto__: {…} member
}

// getString is typeof data[key] === 'string' ? data[key] : no, for the
// data `eval(…) || {}` gives.
func (v *jsValue) getString(key string) (string, bool) {
	if v == nil || v.kind != 'o' {
		return "", false // primitives and arrays have no such string member
	}
	for o := v.obj; o != nil; o = o.proto {
		if m, ok := o.props[key]; ok {
			if m.kind == 's' {
				return m.s, true
			}
			return "", false
		}
	}
	return "", false
}

// evalLiteral is gray-matter's javascript engine, eval('(function()
// {\nreturn ' + src.trim() + ';\n}());') || {}, for a src that is one
// literal; anything else is ErrUnsupported.
func evalLiteral(src string) (*jsValue, error) {
	p := &litParser{s: trimJS(src)}
	p.space()
	v, ok := p.value(0)
	if !ok {
		return nil, ErrUnsupported
	}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ';' { // "return x;;" is still fine
		p.i++
		p.space()
	}
	if p.i != len(p.s) {
		return nil, ErrUnsupported
	}
	if !v.truthy() {
		return &jsValue{kind: 'o', obj: &jsObject{props: map[string]*jsValue{}}}, nil
	}
	return v, nil
}

func (v *jsValue) truthy() bool {
	switch v.kind {
	case 'u', 'n':
		return false
	case 'b':
		return v.b
	case 'd':
		return v.num != 0 && !math.IsNaN(v.num)
	case 's':
		return v.s != ""
	}
	return true
}

type litParser struct {
	s string
	i int
}

// space skips white space, line terminators and comments.
func (p *litParser) space() {
	for p.i < len(p.s) {
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		switch {
		case r <= 0xFFFF && isJSSpace(uint16(r)):
			p.i += n
		case strings.HasPrefix(p.s[p.i:], "//"):
			for p.i < len(p.s) && !isLineTerminatorRune(p.s, p.i) {
				_, n := utf8.DecodeRuneInString(p.s[p.i:])
				p.i += n
			}
		case strings.HasPrefix(p.s[p.i:], "/*"):
			end := strings.Index(p.s[p.i+2:], "*/")
			if end < 0 {
				return
			}
			p.i += 2 + end + 2
		default:
			return
		}
	}
}

func isLineTerminatorRune(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029
}

func (p *litParser) value(depth int) (*jsValue, bool) {
	if depth > 100 || p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '(':
		p.i++
		p.space()
		v, ok := p.value(depth + 1)
		p.space()
		if !ok || p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, false
		}
		p.i++
		return v, true
	case c == '`':
		s, ok := p.template()
		return &jsValue{kind: 's', s: s}, ok
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '\'' || c == '"':
		s, ok := p.str()
		return &jsValue{kind: 's', s: s}, ok
	case c == '-' || c == '+':
		p.i++
		p.space()
		v, ok := p.value(depth + 1)
		if !ok || v.kind != 'd' {
			return nil, false
		}
		if c == '-' {
			v.num = -v.num
		}
		return v, true
	case c >= '0' && c <= '9' || c == '.':
		n, ok := p.number()
		return &jsValue{kind: 'd', num: n}, ok
	}
	word := p.ident()
	switch word {
	case "true", "false":
		return &jsValue{kind: 'b', b: word == "true"}, true
	case "null":
		return &jsValue{kind: 'n'}, true
	case "undefined":
		return &jsValue{kind: 'u'}, true
	case "NaN":
		return &jsValue{kind: 'd', num: math.NaN()}, true
	case "Infinity":
		return &jsValue{kind: 'd', num: math.Inf(1)}, true
	}
	return nil, false
}

func (p *litParser) ident() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (p.i > start && c >= '0' && c <= '9') {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

func (p *litParser) object(depth int) (*jsValue, bool) {
	p.i++ // {
	o := &jsObject{props: map[string]*jsValue{}}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return &jsValue{kind: 'o', obj: o}, true
		}
		var key string
		quoted := false
		switch {
		case p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"'):
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			key, quoted = k, true
		case p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.'):
			n, ok := p.number()
			if !ok {
				return nil, false
			}
			key = numberKey(n)
		default:
			key = p.ident()
			if key == "" {
				return nil, false
			}
		}
		_ = quoted
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, false // shorthand, methods, spreads, computed keys
		}
		p.i++
		p.space()
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		if key == "__proto__" {
			// A __proto__ member (not computed, not shorthand) sets the
			// prototype when its value is an object or null.
			switch v.kind {
			case 'o':
				o.proto = v.obj
			case 'n':
				o.proto = nil
			}
		} else {
			o.props[key] = v
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			continue
		}
		return nil, false
	}
}

// numberKey is the property name a numeric literal key gives.
func numberKey(n float64) string {
	if n == math.Trunc(n) && math.Abs(n) < 1e21 {
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return strconv.FormatFloat(n, 'g', -1, 64) // rare: exponents, fractions
}

func (p *litParser) array(depth int) (*jsValue, bool) {
	p.i++ // [
	a := &jsValue{kind: 'a'}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return a, true
		}
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		a.elems = append(a.elems, v)
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			continue
		}
		return nil, false
	}
}

// number reads a numeric literal: decimal (with fraction and exponent),
// 0x, 0o, 0b.
func (p *litParser) number() (float64, bool) {
	start := p.i
	s := p.s
	if p.i+1 < len(s) && s[p.i] == '0' && strings.ContainsRune("xXoObB", rune(s[p.i+1])) {
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[s[p.i+1]]
		p.i += 2
		ds := p.i
		for p.i < len(s) && (isDigitIn(s[p.i], base) || s[p.i] == '_') {
			p.i++
		}
		n, err := strconv.ParseUint(strings.ReplaceAll(s[ds:p.i], "_", ""), base, 64)
		if err != nil || ds == p.i {
			return 0, false
		}
		return float64(n), true
	}
	for p.i < len(s) && (s[p.i] >= '0' && s[p.i] <= '9' || s[p.i] == '_') {
		p.i++
	}
	if p.i < len(s) && s[p.i] == '.' {
		p.i++
		for p.i < len(s) && (s[p.i] >= '0' && s[p.i] <= '9' || s[p.i] == '_') {
			p.i++
		}
	}
	if p.i < len(s) && (s[p.i] == 'e' || s[p.i] == 'E') {
		p.i++
		if p.i < len(s) && (s[p.i] == '+' || s[p.i] == '-') {
			p.i++
		}
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
	}
	text := strings.ReplaceAll(s[start:p.i], "_", "")
	if len(text) > 1 && text[0] == '0' && text[1] >= '0' && text[1] <= '9' {
		return 0, false // legacy octal: not evaluated here
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, true
}

func isDigitIn(c byte, base int) bool {
	switch base {
	case 2:
		return c == '0' || c == '1'
	case 8:
		return c >= '0' && c <= '7'
	}
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// template reads a template literal without substitutions: its cooked
// text (escapes as in strings; a raw CR LF or CR is LF).
func (p *litParser) template() (string, bool) {
	end := p.i + 1
	for end < len(p.s) && p.s[end] != '`' {
		if p.s[end] == '\\' {
			end++
		} else if p.s[end] == '$' && end+1 < len(p.s) && p.s[end+1] == '{' {
			return "", false
		}
		end++
	}
	if end >= len(p.s) {
		return "", false
	}
	body := strings.ReplaceAll(strings.ReplaceAll(p.s[p.i+1:end], "\r\n", "\n"), "\r", "\n")
	q := &litParser{s: `"` + body + `"`}
	// Reuse the string reader on the body, with raw line breaks allowed.
	v, ok := q.strLines()
	if !ok {
		return "", false
	}
	p.i = end + 1
	return v, true
}

// strLines is str for a template's body: line breaks are text, and a
// quote inside is a plain character.
func (p *litParser) strLines() (string, bool) {
	inner := p.s[1 : len(p.s)-1]
	var b strings.Builder
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		if c == '"' {
			b.WriteString(`\"`)
			continue
		}
		if c == '\n' {
			b.WriteString(`\n`)
			continue
		}
		if c == '\\' && i+1 < len(inner) {
			b.WriteByte(c)
			i++
			b.WriteByte(inner[i])
			continue
		}
		b.WriteByte(c)
	}
	q := &litParser{s: `"` + b.String() + `"`}
	return q.str()
}

// str reads a quoted string literal with JavaScript's escapes.
func (p *litParser) str() (string, bool) {
	q := p.s[p.i]
	p.i++
	var u []uint16
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return str(u), true
		case c == '\n' || c == '\r':
			return "", false
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", false
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				u = append(u, '\n')
			case 't':
				u = append(u, '\t')
			case 'r':
				u = append(u, '\r')
			case 'b':
				u = append(u, '\b')
			case 'f':
				u = append(u, '\f')
			case 'v':
				u = append(u, '\v')
			case '0':
				if p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
					return "", false // legacy octal escapes: not evaluated here
				}
				u = append(u, 0)
			case 'x':
				if p.i+2 > len(p.s) {
					return "", false
				}
				n, err := strconv.ParseUint(p.s[p.i:p.i+2], 16, 8)
				if err != nil {
					return "", false
				}
				u = append(u, uint16(n))
				p.i += 2
			case 'u':
				if p.i < len(p.s) && p.s[p.i] == '{' {
					end := strings.IndexByte(p.s[p.i:], '}')
					if end < 0 {
						return "", false
					}
					n, err := strconv.ParseUint(p.s[p.i+1:p.i+end], 16, 32)
					if err != nil || n > 0x10FFFF {
						return "", false
					}
					u = appendUnits(u, rune(n))
					p.i += end + 1
					break
				}
				if p.i+4 > len(p.s) {
					return "", false
				}
				n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 16)
				if err != nil {
					return "", false
				}
				u = append(u, uint16(n))
				p.i += 4
			case '\r':
				if p.i < len(p.s) && p.s[p.i] == '\n' {
					p.i++
				}
			case '\n':
			default:
				if e >= '1' && e <= '9' {
					return "", false
				}
				p.i--
				r, n := utf8.DecodeRuneInString(p.s[p.i:])
				p.i += n
				if r == 0x2028 || r == 0x2029 {
					break // line continuation
				}
				u = appendUnits(u, r)
			}
		default:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			p.i += n
			u = appendUnits(u, r)
		}
	}
	return "", false
}

func appendUnits(u []uint16, r rune) []uint16 {
	if r >= 0x10000 {
		r -= 0x10000
		return append(u, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
	}
	return append(u, uint16(r))
}
