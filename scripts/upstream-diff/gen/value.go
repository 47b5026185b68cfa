package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A JavaScript value as superjson stores it. The encoder writes the json part
// and the meta annotations (values, referentialEqualities).
type (
	jNull    struct{}
	jUndef   struct{}
	jBool    bool
	jNum     string // a JSON number literal, written as is
	jSpecial string // NaN, Infinity, -Infinity, -0 (superjson "number")
	jStr     []strTok
	jDate    string // ISO text, or not a date
	jBig     string
	jRegex   string
	jSet     []jv
	jMap     [][2]jv
	jErr     struct{ name, message jv }
	jURL     string
	jTyped   struct {
		kind string
		vals []string
	}
	jArr []jv
	jObj []kv
	// jRef stands for an object or array emitted earlier in the same
	// document (or an ancestor, making a cycle): written as null, with a
	// referentialEqualities entry.
	jRef struct{ ancestor bool }
)

type jv any

type kv struct {
	k string
	v jv
}

// strTok is a piece of a string: text (escaped as JSON needs) or a raw JSON
// escape such as \ud800 written verbatim.
type strTok struct {
	text string
	raw  string
}

func s(text string) jStr { return jStr{{text: text}} }

// keyOf returns the JavaScript key of a plain string (for paths).
func (o jObj) get(k string) (jv, bool) {
	for _, e := range o {
		if e.k == k {
			return e.v, true
		}
	}
	return nil, false
}

type annScope struct {
	base    int
	entries []kv // path relative to base -> annotation JSON (as jRaw)
}

type encoder struct {
	b        strings.Builder
	top      annScope
	objPaths [][]string // plain objects and arrays outside maps and sets
	refs     [][2]string
	r        *gen
	escAll   bool // escape every non-ASCII character as \uXXXX
	flat     bool // annotate inside maps and sets with flat paths
}

func escapeKey(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, `\`, `\\`), ".", `\.`)
}

func pathString(p []string) string {
	out := make([]string, len(p))
	for i, k := range p {
		out[i] = escapeKey(k)
	}
	return strings.Join(out, ".")
}

func (e *encoder) jsonString(t string) {
	e.b.WriteByte('"')
	for _, c := range t {
		switch {
		case c == '"':
			e.b.WriteString(`\"`)
		case c == '\\':
			e.b.WriteString(`\\`)
		case c < 0x20:
			switch c {
			case '\n':
				e.b.WriteString(`\n`)
			case '\t':
				e.b.WriteString(`\t`)
			case '\r':
				e.b.WriteString(`\r`)
			default:
				fmt.Fprintf(&e.b, `\u%04x`, c)
			}
		case c == utf8.RuneError:
			e.b.WriteString(`\ufffd`)
		case c > 0x7e && e.escAll:
			if c > 0xffff {
				c -= 0x10000
				fmt.Fprintf(&e.b, `\u%04x\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
			} else {
				fmt.Fprintf(&e.b, `\u%04x`, c)
			}
		default:
			e.b.WriteRune(c)
		}
	}
	e.b.WriteByte('"')
}

func (e *encoder) str(v jStr) {
	e.b.WriteByte('"')
	for _, t := range v {
		if t.raw != "" {
			e.b.WriteString(t.raw)
			continue
		}
		var sub encoder
		sub.escAll = e.escAll
		sub.jsonString(t.text)
		q := sub.b.String()
		e.b.WriteString(q[1 : len(q)-1])
	}
	e.b.WriteByte('"')
}

func (e *encoder) annotate(sc *annScope, path []string, ann string) {
	sc.entries = append(sc.entries, kv{pathString(path[sc.base:]), ann})
}

func annJSON(typ string) string { return `["` + typ + `"]` }

func (e *encoder) encode(v jv, path []string, sc *annScope, plain bool) {
	switch x := v.(type) {
	case nil, jNull:
		e.b.WriteString("null")
	case jUndef:
		e.b.WriteString("null")
		e.annotate(sc, path, annJSON("undefined"))
	case jBool:
		e.b.WriteString(strconv.FormatBool(bool(x)))
	case jNum:
		e.b.WriteString(string(x))
	case jSpecial:
		e.jsonString(string(x))
		e.annotate(sc, path, annJSON("number"))
	case jStr:
		e.str(x)
	case jDate:
		e.jsonString(string(x))
		e.annotate(sc, path, annJSON("Date"))
	case jBig:
		e.jsonString(string(x))
		e.annotate(sc, path, annJSON("bigint"))
	case jRegex:
		e.jsonString(string(x))
		e.annotate(sc, path, annJSON("regexp"))
	case jURL:
		e.jsonString(string(x))
		e.annotate(sc, path, annJSON("URL"))
	case jTyped:
		e.b.WriteString("[" + strings.Join(x.vals, ",") + "]")
		e.annotate(sc, path, `[["typed-array","`+x.kind+`"]]`)
	case jErr:
		e.b.WriteString("{")
		first := true
		if x.name != nil {
			e.b.WriteString(`"name":`)
			e.encode(x.name, append(path, "name"), sc, false)
			first = false
		}
		if x.message != nil {
			if !first {
				e.b.WriteString(",")
			}
			e.b.WriteString(`"message":`)
			e.encode(x.message, append(path, "message"), sc, false)
		}
		e.b.WriteString("}")
		e.annotate(sc, path, annJSON("Error"))
	case jSet:
		child := annScope{base: len(path)}
		if e.flat {
			child = annScope{base: sc.base}
		}
		e.b.WriteString("[")
		for i, el := range x {
			if i > 0 {
				e.b.WriteString(",")
			}
			e.encode(el, append(clone(path), strconv.Itoa(i)), &child, false)
		}
		e.b.WriteString("]")
		e.nested(sc, path, "set", child)
	case jMap:
		child := annScope{base: len(path)}
		if e.flat {
			child = annScope{base: sc.base}
		}
		e.b.WriteString("[")
		for i, pair := range x {
			if i > 0 {
				e.b.WriteString(",")
			}
			e.b.WriteString("[")
			e.encode(pair[0], append(clone(path), strconv.Itoa(i), "0"), &child, false)
			e.b.WriteString(",")
			e.encode(pair[1], append(clone(path), strconv.Itoa(i), "1"), &child, false)
			e.b.WriteString("]")
		}
		e.b.WriteString("]")
		e.nested(sc, path, "map", child)
	case jArr:
		if plain {
			e.objPaths = append(e.objPaths, clone(path))
		}
		e.b.WriteString("[")
		for i, el := range x {
			if i > 0 {
				e.b.WriteString(",")
			}
			e.encode(el, append(clone(path), strconv.Itoa(i)), sc, plain)
		}
		e.b.WriteString("]")
	case jObj:
		if plain {
			e.objPaths = append(e.objPaths, clone(path))
		}
		e.b.WriteString("{")
		for i, m := range x {
			if i > 0 {
				e.b.WriteString(",")
			}
			e.jsonString(m.k)
			e.b.WriteString(":")
			e.encode(m.v, append(clone(path), m.k), sc, plain)
		}
		e.b.WriteString("}")
	case jRef:
		e.b.WriteString("null")
		if !plain || len(e.objPaths) == 0 {
			return
		}
		var target []string
		if x.ancestor {
			// the nearest recorded ancestor of this path
			for i := len(e.objPaths) - 1; i >= 0; i-- {
				if isPrefix(e.objPaths[i], path) {
					target = e.objPaths[i]
					break
				}
			}
		} else {
			// an earlier object that is not an ancestor
			for i := len(e.objPaths) - 1; i >= 0; i-- {
				if !isPrefix(e.objPaths[i], path) {
					target = e.objPaths[i]
					break
				}
			}
		}
		if target == nil || len(target) == 0 {
			return
		}
		e.refs = append(e.refs, [2]string{pathString(target), pathString(path)})
	case jRawJSON:
		e.b.WriteString(string(x))
	default:
		panic(fmt.Sprintf("encode %T", v))
	}
}

// jRawJSON is JSON text written as is (no annotation).
type jRawJSON string

func (e *encoder) nested(sc *annScope, path []string, typ string, child annScope) {
	if e.flat {
		// children were written into sc's entries already (same base)
		sc.entries = append(sc.entries, child.entries...)
		e.annotate(sc, path, annJSON(typ))
		return
	}
	if len(child.entries) == 0 {
		e.annotate(sc, path, annJSON(typ))
		return
	}
	var b strings.Builder
	b.WriteString(`["` + typ + `",{`)
	for i, c := range child.entries {
		if i > 0 {
			b.WriteString(",")
		}
		var k encoder
		k.jsonString(c.k)
		b.WriteString(k.b.String() + ":" + c.v.(string))
	}
	b.WriteString("}]")
	e.annotate(sc, path, b.String())
}

func isPrefix(p, q []string) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

func clone(p []string) []string { return append([]string(nil), p...) }

// superjson returns the superjson text of v.
func superjson(v jv, escAll, flat bool, version string) string {
	e := &encoder{escAll: escAll, flat: flat}
	e.encode(v, nil, &e.top, true)
	var b strings.Builder
	b.WriteString(`{"json":`)
	b.WriteString(e.b.String())
	if len(e.top.entries) > 0 || len(e.refs) > 0 {
		b.WriteString(`,"meta":{`)
		sep := ""
		if len(e.top.entries) > 0 {
			b.WriteString(`"values":{`)
			for i, c := range e.top.entries {
				if i > 0 {
					b.WriteString(",")
				}
				var k encoder
				k.jsonString(c.k)
				b.WriteString(k.b.String() + ":" + c.v.(string))
			}
			b.WriteString("}")
			sep = ","
		}
		if len(e.refs) > 0 {
			// group by target, in first-seen order
			b.WriteString(sep + `"referentialEqualities":{`)
			var order []string
			group := map[string][]string{}
			for _, r := range e.refs {
				if _, ok := group[r[0]]; !ok {
					order = append(order, r[0])
				}
				group[r[0]] = append(group[r[0]], r[1])
			}
			for i, t := range order {
				if i > 0 {
					b.WriteString(",")
				}
				var k encoder
				k.jsonString(t)
				b.WriteString(k.b.String() + ":[")
				for j, p := range group[t] {
					if j > 0 {
						b.WriteString(",")
					}
					var q encoder
					q.jsonString(p)
					b.WriteString(q.b.String())
				}
				b.WriteString("]")
			}
			b.WriteString("}")
			sep = ","
		}
		if version != "" {
			b.WriteString(sep + `"v":` + version)
		}
		b.WriteString("}")
	}
	b.WriteString("}")
	return b.String()
}
