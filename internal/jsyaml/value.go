// Package jsyaml is a port of the loader of js-yaml 3.14 (safeLoad, the
// DEFAULT_SAFE_SCHEMA), the YAML parser gray-matter 4.0.3 uses for skill
// frontmatter. It reproduces what js-yaml accepts and what it rejects,
// which differs from YAML 1.2 parsers such as gopkg.in/yaml.v3: a tab
// after a line's leading spaces is separation space (so a tab-indented key
// belongs to the mapping at the spaces' indentation), integers keep YAML
// 1.1's underscores, octals and base 60, keys are converted with String()
// and a duplicate key, a tag it does not know or a value its tag does not
// resolve is an error.
//
// Strings are JavaScript strings: the loader works on UTF-16 units, and a
// lone surrogate (from a "\ud800" escape) comes out of String as the three
// bytes WTF-8 gives it.
package jsyaml

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/history"
)

// Kind is the JavaScript type of a loaded value.
type Kind uint8

// The kinds a loaded value can have.
const (
	Null Kind = iota
	Bool
	Number
	String
	Date   // a Date (timestamp): Num holds its time value in ms
	Binary // a Buffer (!!binary)
	Seq    // an array
	Map    // a plain object
)

// Value is one loaded value. Arrays and objects are shared by pointer, as
// anchors and aliases share them in JavaScript.
type Value struct {
	Kind  Kind
	Bool  bool
	Num   float64
	str   []uint16
	Bytes []byte
	Elems []*Value
	obj   *object
}

// object is a plain object: own keys in insertion order (the order does
// not matter to anything this package answers).
type object struct {
	keys []string
	vals map[string]*Value
}

func newObject() *Value { return &Value{Kind: Map, obj: &object{vals: map[string]*Value{}}} }

func (o *object) has(k string) bool { _, ok := o.vals[k]; return ok }

func (o *object) set(k string, v *Value) {
	if !o.has(k) {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Get returns the own property k of an object (nil: none, or v is not an
// object).
func (v *Value) Get(k string) *Value {
	if v == nil || v.Kind != Map {
		return nil
	}
	return v.obj.vals[k]
}

// Keys returns an object's own keys.
func (v *Value) Keys() []string {
	if v == nil || v.Kind != Map {
		return nil
	}
	return v.obj.keys
}

// String returns a String value's text.
func (v *Value) String() string {
	if v == nil {
		return ""
	}
	return UnitsToString(v.str)
}

// UnitsToString converts UTF-16 units to a Go string, a lone surrogate as
// its WTF-8 bytes.
func UnitsToString(u []uint16) string {
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := rune(u[i])
		if utf16.IsSurrogate(c) {
			if c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] <= 0xDFFF {
				b.WriteRune(utf16.DecodeRune(c, rune(u[i+1])))
				i++
				continue
			}
			b.WriteByte(byte(0xE0 | c>>12))
			b.WriteByte(byte(0x80 | (c>>6)&0x3F))
			b.WriteByte(byte(0x80 | c&0x3F))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// stringToUnits converts a Go string to UTF-16 units (invalid UTF-8 as
// U+FFFD, WTF-8 surrogates as themselves).
func stringToUnits(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
			out = append(out, uint16(0xD000|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F)))
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		out = utf16.AppendRune(out, r)
	}
	return out
}

// jsString is String(v), as storeMappingPair turns a key into a property
// name (arrays are joined, their object elements already replaced).
func jsString(v *Value) string {
	if v == nil {
		return "null"
	}
	switch v.Kind {
	case Bool:
		if v.Bool {
			return "true"
		}
		return "false"
	case Number:
		return history.NumberToString(v.Num)
	case String:
		return v.String()
	case Date:
		return history.ToString(history.DateValue(v.Num))
	case Binary:
		return history.ToValidUTF8(string(v.Bytes))
	case Seq:
		var b strings.Builder
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			if e != nil {
				b.WriteString(jsString(e))
			}
		}
		return b.String()
	}
	return "[object Object]"
}
