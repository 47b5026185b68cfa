// Package frontmatter reproduces gray-matter 4.0.3's matter(text), which
// the upstream skill loader runs on every SKILL.md: the "---" delimiters
// (a fourth dash means no frontmatter), the language named after the
// opening delimiter (yaml, yml, json, javascript, js; any other fails),
// a block of only comments and blank lines giving empty data, the body
// after the closing "\n---" with one "\r" and one "\n" dropped, a byte
// order mark stripped. YAML goes through internal/jsyaml (js-yaml 3's
// safeLoad), JSON through JSON.parse (internal/history). JavaScript
// frontmatter is eval'd by gray-matter: only literals (objects, arrays,
// strings, numbers, true, false, null, undefined) are evaluated here, and
// anything else is reported as ErrUnsupported.
//
// Strings are JavaScript strings: the delimiter and language handling
// works on UTF-16 units, as gray-matter does.
package frontmatter

import (
	"errors"
	"strings"
	"unicode/utf16"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/jsyaml"
)

// ErrUnsupported is returned for JavaScript frontmatter that is not a
// literal: gray-matter evaluates it, compact does not.
var ErrUnsupported = errors.New("JavaScript frontmatter other than a literal is not evaluated")

// Result is what matter(text) returns, as far as the skill loader reads
// it.
type Result struct {
	// Content is file.content: the body after the frontmatter, or the
	// whole text (without a byte order mark) when there is none.
	Content string
	get     func(key string) (string, bool)
}

// String returns data[key] when it is a string (typeof === 'string').
func (r Result) String(key string) (string, bool) {
	if r.get == nil {
		return "", false
	}
	return r.get(key)
}

// Matter is gray-matter's matter(text), or the error it throws (the
// frontmatter does not parse, or its language has no engine).
func Matter(text string) (Result, error) {
	if text == "" {
		return Result{}, nil
	}
	u := units(text)
	if len(u) > 0 && u[0] == 0xFEFF { // strip-bom-string
		u = u[1:]
	}
	whole := Result{Content: str(u)}
	open := []uint16{'-', '-', '-'}
	if !hasPrefix(u, open) {
		return whole, nil
	}
	if len(u) > 3 && u[3] == '-' {
		return whole, nil
	}
	s := u[3:]
	total := len(s)
	language := "yaml"
	// matter.language: the text up to the first line break (\r\n or \n);
	// with none, all but the last unit (slice(0, -1)).
	raw := s
	if i := lineBreak(s); i >= 0 {
		raw = s[:i]
	} else if len(s) > 0 {
		raw = s[:len(s)-1]
	} else {
		raw = s[:0]
	}
	if name := trimJS(str(raw)); name != "" {
		language = name
		s = s[len(raw):]
	}
	closeAt := index(s, []uint16{'\n', '-', '-', '-'})
	if closeAt < 0 {
		closeAt = total
	}
	matter := s[:min(closeAt, len(s))]
	var r Result
	if trimJS(str(dropComments(matter))) != "" {
		get, err := parse(language, str(matter))
		if err != nil {
			return Result{}, err
		}
		r.get = get
	}
	if closeAt == total {
		r.Content = ""
	} else {
		c := s[closeAt+4:]
		if len(c) > 0 && c[0] == '\r' {
			c = c[1:]
		}
		if len(c) > 0 && c[0] == '\n' {
			c = c[1:]
		}
		r.Content = str(c)
	}
	return r, nil
}

// parse runs the engine gray-matter picks for language: engines[name],
// else engines[aliase(name)] (aliase lower-cases only to compare).
func parse(language, matter string) (func(string) (string, bool), error) {
	engine := language
	switch language {
	case "yaml", "json", "javascript":
	default:
		switch strings.ToLower(language) {
		case "js", "javascript":
			engine = "javascript"
		case "yaml", "yml":
			engine = "yaml"
		}
	}
	switch engine {
	case "yaml":
		v, err := jsyaml.SafeLoad(matter)
		if err != nil {
			return nil, err
		}
		if sep := v.Get("excerpt_separator"); yamlTruthy(sep) && yamlToStringThrows(sep) {
			return nil, errors.New("TypeError: Cannot convert object to primitive value")
		}
		return func(k string) (string, bool) {
			if m := v.Get(k); m != nil && m.Kind == jsyaml.String {
				return m.String(), true
			}
			return "", false
		}, nil
	case "json":
		v, err := history.ParseJSON(matter)
		if err != nil {
			return nil, err
		}
		if v.Kind() == history.Object {
			if sep := v.Get("excerpt_separator"); sep.Truthy() && jsonToStringThrows(sep) {
				return nil, errors.New("TypeError: Cannot convert object to primitive value")
			}
		}
		return func(k string) (string, bool) {
			if v.Kind() != history.Object {
				return "", false
			}
			if m := v.Get(k); m.Kind() == history.String {
				return m.Str(), true
			}
			return "", false
		}, nil
	case "javascript":
		o, err := evalLiteral(matter)
		if err != nil {
			return nil, err
		}
		return o.getString, nil
	}
	// Not an engine: gray-matter throws (or, for a name such as
	// "toString" that Object.prototype has, gives data without a name).
	return nil, errors.New(`gray-matter engine "` + language + `" is not registered`)
}

func yamlTruthy(v *jsyaml.Value) bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case jsyaml.Bool:
		return v.Bool
	case jsyaml.Number:
		return v.Num != 0 && v.Num == v.Num
	case jsyaml.String:
		return v.String() != ""
	}
	return true
}

// yamlToStringThrows: String(v) throws for an object whose own toString
// is not a function (so valueOf, Object's, gives back an object), and for
// an array holding one (join converts its elements).
func yamlToStringThrows(v *jsyaml.Value) bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case jsyaml.Map:
		return v.Get("toString") != nil || hasKey(v.Keys(), "toString")
	case jsyaml.Seq:
		for _, e := range v.Elems {
			if yamlToStringThrows(e) {
				return true
			}
		}
	}
	return false
}

func hasKey(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

func jsonToStringThrows(v history.Value) bool {
	switch v.Kind() {
	case history.Object:
		return v.Has("toString")
	case history.Array:
		for _, e := range v.Elems() {
			if jsonToStringThrows(e) {
				return true
			}
		}
	}
	return false
}

// dropComments is matter.replace(/^\s*#[^\n]+/gm, ”): ^ is the start or
// just after a line terminator (\n, \r, U+2028, U+2029).
func dropComments(u []uint16) []uint16 {
	var out []uint16
	last := 0
	for p := 0; p < len(u); p++ {
		if p > 0 && !isLineTerminator(u[p-1]) {
			continue
		}
		q := p
		for q < len(u) && isJSSpace(u[q]) {
			q++
		}
		if q+1 >= len(u) || u[q] != '#' || u[q+1] == '\n' {
			continue
		}
		end := q + 1
		for end < len(u) && u[end] != '\n' {
			end++
		}
		out = append(out, u[last:p]...)
		last = end
		p = end - 1
	}
	return append(out, u[last:]...)
}

func isLineTerminator(c uint16) bool { return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029 }

// isJSSpace is JavaScript's \s (WhiteSpace and LineTerminator).
func isJSSpace(c uint16) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return c >= 0x2000 && c <= 0x200A
}

// trimJS is String.prototype.trim.
func trimJS(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= 0xFFFF && isJSSpace(uint16(r)) })
}

// TrimJS is String.prototype.trim.
func TrimJS(s string) string { return trimJS(s) }

// lineBreak is s.search(/\r?\n/).
func lineBreak(s []uint16) int {
	for i, c := range s {
		if c == '\n' {
			if i > 0 && s[i-1] == '\r' {
				return i - 1
			}
			return i
		}
	}
	return -1
}

func hasPrefix(s, p []uint16) bool {
	if len(s) < len(p) {
		return false
	}
	for i := range p {
		if s[i] != p[i] {
			return false
		}
	}
	return true
}

func index(s, sub []uint16) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if hasPrefix(s[i:], sub) {
			return i
		}
	}
	return -1
}

// units is a string's UTF-16 units (a WTF-8 lone surrogate as itself).
func units(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
			out = append(out, uint16(0xD000|uint16(s[i+1]&0x3F)<<6|uint16(s[i+2]&0x3F)))
			i += 3
			continue
		}
		r, n := decodeRune(s[i:])
		i += n
		out = utf16.AppendRune(out, r)
	}
	return out
}

// str converts UTF-16 units back, a lone surrogate as its WTF-8 bytes.
func str(u []uint16) string { return jsyaml.UnitsToString(u) }
