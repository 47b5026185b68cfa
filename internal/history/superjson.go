package history

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DecodeError is a superjson decoding failure: the text is not JSON, or its
// meta cannot be applied (where superjson.parse throws).
type DecodeError struct {
	Path string // the meta path being applied, if any
	Err  error
}

func (e *DecodeError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("superjson meta at %q: %v", e.Path, e.Err)
	}
	return "superjson: " + e.Err.Error()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// DecodeSuperJSON is superjson.parse(text): JSON.parse, then the value
// annotations of meta.values (undefined, bigint, Date, Error, regexp, set,
// map, number, URL, typed-array) and meta.referentialEqualities. It fails
// where superjson throws (unknown or unregistered transformations, a null
// payload, bad paths); a missing "json" key gives undefined, as upstream.
func DecodeSuperJSON(text string) (Value, error) {
	return decodeSuperJSON(text, 0)
}

// DecodeSuperJSONLazy is DecodeSuperJSON with the payload parsed by
// ParseJSONLazy(text, lazyAt): the result is the same, but containers
// nested lazyAt levels deep in the payload (the "json" value itself is at
// depth 2) are decoded when first read. Annotations in meta that reach
// into one decode it then.
func DecodeSuperJSONLazy(text string, lazyAt int) (Value, error) {
	return decodeSuperJSON(text, lazyAt)
}

func decodeSuperJSON(text string, lazyAt int) (Value, error) {
	return decodeSuperJSONIn(nil, text, lazyAt)
}

// decodeSuperJSONIn is decodeSuperJSON with the payload parsed in ar.
func decodeSuperJSONIn(ar *Arena, text string, lazyAt int) (Value, error) {
	payload, err := parseJSONIn(ar, text, lazyAt, true)
	if err != nil {
		return Value{}, &DecodeError{Err: err}
	}
	if payload.k == Null {
		return Value{}, &DecodeError{Err: errors.New("TypeError: cannot destructure a null payload")}
	}
	result := payload.Get("json")
	meta := payload.Get("meta")
	if meta.k != Object {
		return result, nil
	}
	version := 0.0
	if v := meta.Get("v"); !v.IsNullish() {
		version = toNumber(v)
	}
	legacy := version < 1
	values := meta.Get("values")
	if values.Truthy() && result.c != nil && (result.k == Object || result.k == Array) && values.c != nil && meta.Get("referentialEqualities").IsUndefined() {
		// A lazy json value and a tree of Dates and undefineds: the tree
		// waits for the value's first read.
		if l, vl := result.c.lz.Load(), values.c.lz.Load(); l != nil && vl != nil && deferValues(l, vl, legacy) {
			return result, nil
		}
	}
	if values.Truthy() {
		d := decoder{legacy: legacy}
		result, err = d.applyValues(result, values)
		if err != nil {
			return Value{}, err
		}
	}
	if eq := meta.Get("referentialEqualities"); eq.Truthy() {
		d := decoder{legacy: legacy}
		result, err = d.applyEqualities(result, eq)
		if err != nil {
			return Value{}, err
		}
	}
	return result, nil
}

type decoder struct {
	legacy bool
	conts  []Container // the containers of Dates, carved in chunks
}

// date is untransform for a "Date" annotation, with the Date's container
// (its identity) carved from a chunk: metadata holds a Date per timestamp.
func (d *decoder) date(v Value) (Value, error) {
	nd := Value{k: Date, n: dateTime(v)}
	if len(d.conts) == cap(d.conts) {
		d.conts = make([]Container, 0, min(max(2*cap(d.conts), 4), 32))
	}
	d.conts = d.conts[:len(d.conts)+1]
	nd.c = &d.conts[len(d.conts)-1]
	return nd, nil
}

// parsePath splits an escaped dot path ("a\.b.c" is ["a.b", "c"]).
func (d *decoder) parsePath(s string) ([]string, error) {
	return d.parsePathAppend(nil, s)
}

// parsePathAppend appends the segments of s to dst.
func (d *decoder) parsePathAppend(dst []string, s string) ([]string, error) {
	if strings.IndexByte(s, '\\') < 0 {
		// No escapes: plain segments, sharing the text.
		out := dst
		for {
			i := strings.IndexByte(s, '.')
			if i < 0 {
				return append(out, s), nil
			}
			out = append(out, s[:i])
			s = s[i+1:]
		}
	}
	out := dst
	var seg strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !d.legacy && c == '\\' {
			if i+1 < len(s) && s[i+1] == '\\' {
				seg.WriteByte('\\')
				i++
				continue
			}
			if i+1 >= len(s) || s[i+1] != '.' {
				return nil, &DecodeError{Path: s, Err: errors.New("invalid path")}
			}
		}
		if c == '\\' && i+1 < len(s) && s[i+1] == '.' {
			seg.WriteByte('.')
			i++
			continue
		}
		if c == '.' {
			out = append(out, seg.String())
			seg.Reset()
			continue
		}
		seg.WriteByte(c)
	}
	return append(out, seg.String()), nil
}

func validatePath(path []string, raw string) error {
	for _, p := range path {
		if p == "__proto__" || p == "prototype" || p == "constructor" {
			return &DecodeError{Path: raw, Err: fmt.Errorf("%s is not allowed as a property", p)}
		}
	}
	return nil
}

// applyValues walks the annotation tree: children first, then the node.
func (d *decoder) applyValues(root, tree Value) (Value, error) {
	var err error
	var walk func(t Value, origin []string, raw string) error
	walk = func(t Value, origin []string, raw string) error {
		if !t.Truthy() {
			return nil
		}
		switch t.k {
		case Array:
			if children := t.Index(1); children.Truthy() {
				if err := d.eachEntry(children, origin, raw, walk); err != nil {
					return err
				}
			}
			typ := t.Index(0)
			if err := validatePath(origin, raw); err != nil {
				return err
			}
			if typ.k == String && (typ.s == "Date" || typ.s == "undefined") && deferInto(root, origin, typ) {
				return nil
			}
			if typ.k == String && typ.s == "Date" {
				root, err = setDeep(root, origin, d.date)
			} else {
				root, err = setDeep(root, origin, func(v Value) (Value, error) {
					return untransform(v, typ)
				})
			}
			if err != nil {
				return &DecodeError{Path: raw, Err: err}
			}
			return nil
		case Object:
			return d.eachEntry(t, origin, raw, walk)
		case String:
			return &DecodeError{Path: raw, Err: errors.New("RangeError: Maximum call stack size exceeded (a string as annotation tree)")}
		}
		return nil // numbers, booleans: no entries
	}
	if err := walk(tree, make([]string, 0, 16), ""); err != nil {
		return Value{}, err
	}
	return root, nil
}

func (d *decoder) eachEntry(obj Value, origin []string, raw string, fn func(Value, []string, string) error) error {
	if obj.k != Object && obj.k != Array {
		if obj.k == String {
			return &DecodeError{Path: raw, Err: errors.New("RangeError: Maximum call stack size exceeded (a string as annotation tree)")}
		}
		return nil
	}
	keys := obj.Keys()
	vals := obj.cc().Vals
	if obj.k == Array {
		keys = make([]string, len(vals))
		for i := range vals {
			keys[i] = strconv.Itoa(i)
		}
	}
	for i, k := range keys {
		// full extends origin in place: siblings reuse the same tail, and
		// each is used only during its own call.
		full, err := d.parsePathAppend(origin, k)
		if err != nil {
			return err
		}
		r := k
		if raw != "" {
			r = raw + "." + k
		}
		if err := fn(vals[i], full, r); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) applyEqualities(root, ann Value) (Value, error) {
	var err error
	apply := func(identical Value, path string) error {
		p, err := d.parsePath(path)
		if err != nil {
			return err
		}
		obj, err := getDeep(root, p)
		if err != nil {
			return &DecodeError{Path: path, Err: err}
		}
		if identical.k != Array {
			return &DecodeError{Path: path, Err: errors.New("TypeError: identicalPaths.map is not a function")}
		}
		if len(identical.Elems()) > 0 {
			markShared(obj)
		}
		for _, ip := range identical.Elems() {
			q, err := d.parsePath(ToString(ip))
			if err != nil {
				return err
			}
			if err := validatePath(q, ToString(ip)); err != nil {
				return err
			}
			if root, err = setDeep(root, q, func(Value) (Value, error) { return obj, nil }); err != nil {
				return &DecodeError{Path: ToString(ip), Err: err}
			}
		}
		return nil
	}
	each := func(o Value) error {
		if o.k != Object {
			return nil
		}
		for i, k := range o.Keys() {
			if err := apply(o.cc().Vals[i], k); err != nil {
				return err
			}
		}
		return nil
	}
	if ann.k == Array {
		rootPaths := ann.Index(0)
		if rootPaths.k != Array {
			return Value{}, &DecodeError{Err: errors.New("TypeError: root equality paths are not an array")}
		}
		for _, rp := range rootPaths.Elems() {
			q, err := d.parsePath(ToString(rp))
			if err != nil {
				return Value{}, err
			}
			if err := validatePath(q, ToString(rp)); err != nil {
				return Value{}, err
			}
			self := root
			markShared(self)
			if root, err = setDeep(root, q, func(Value) (Value, error) { return self, nil }); err != nil {
				return Value{}, &DecodeError{Path: ToString(rp), Err: err}
			}
		}
		if other := ann.Index(1); other.Truthy() {
			err = each(other)
		}
	} else {
		err = each(ann)
	}
	if err != nil {
		return Value{}, err
	}
	return root, nil
}

var errBounds = errors.New("Error: index out of bounds")

// nthKey is superjson's getNthKey on a Map's keys or a Set's values.
func nthKey(keys []Value, n float64) (Value, error) {
	if n > float64(len(keys)) {
		return Value{}, errBounds
	}
	if n < 0 || n != math.Trunc(n) || math.IsNaN(n) {
		// The iterator loop runs while n > 0; a fractional or NaN n
		// stops it early.
		if !(n > 0) {
			return firstOr(keys, 0), nil
		}
		return firstOr(keys, int(math.Ceil(n))), nil
	}
	return firstOr(keys, int(n)), nil
}

func firstOr(keys []Value, i int) Value {
	if i < len(keys) {
		return keys[i]
	}
	return Value{}
}

func mapGet(m Value, key Value) Value {
	for i, k := range m.cc().mapKeys() {
		if SameValueZero(k, key) {
			return m.cc().Vals[i]
		}
	}
	return Value{}
}

func mapSet(m Value, key, val Value) {
	for i, k := range m.cc().mapKeys() {
		if SameValueZero(k, key) {
			m.cc().Vals[i] = val
			return
		}
	}
	m.cc().setMapKeys(append(m.cc().mapKeys(), key))
	m.cc().Vals = append(m.cc().Vals, val)
}

func mapDelete(m Value, key Value) {
	for i, k := range m.cc().mapKeys() {
		if SameValueZero(k, key) {
			mk := m.cc().mapKeys()
			m.cc().setMapKeys(append(mk[:i:i], mk[i+1:]...))
			m.cc().Vals = append(m.cc().Vals[:i:i], m.cc().Vals[i+1:]...)
			return
		}
	}
}

func setAdd(s Value, v Value) {
	for _, e := range s.cc().Vals {
		if SameValueZero(e, v) {
			return
		}
	}
	s.cc().Vals = append(s.cc().Vals, v)
}

func setDelete(s Value, v Value) {
	for i, e := range s.cc().Vals {
		if SameValueZero(e, v) {
			s.cc().Vals = append(s.cc().Vals[:i:i], s.cc().Vals[i+1:]...)
			return
		}
	}
}

// jsNum is +key for a path segment.
func jsNum(s string) float64 { return stringToNumber(s) }

// getProp is object[key] for the values a path can walk through.
func getProp(v Value, key string) (Value, error) {
	if v.k <= Null {
		return Value{}, fmt.Errorf("TypeError: Cannot read properties of %s (reading '%s')", v.k, key)
	}
	return v.Get(key), nil
}

// getDeep is superjson's getDeep.
func getDeep(v Value, path []string) (Value, error) {
	if err := validatePath(path, strings.Join(path, ".")); err != nil {
		return Value{}, err
	}
	var err error
	for i := 0; i < len(path); i++ {
		key := path[i]
		switch v.k {
		case Set:
			if v, err = nthKey(v.cc().Vals, jsNum(key)); err != nil {
				return Value{}, err
			}
		case Map:
			row := jsNum(key)
			i++
			isKey := i < len(path) && jsNum(path[i]) == 0
			k, err := nthKey(v.cc().mapKeys(), row)
			if err != nil {
				return Value{}, err
			}
			if isKey {
				v = k
			} else {
				v = mapGet(v, k)
			}
		default:
			if v, err = getProp(v, key); err != nil {
				return Value{}, err
			}
		}
	}
	return v, nil
}

// setDeep is superjson's setDeep: it walks to the parent of the last
// segment (through arrays, plain objects, sets and maps; anything else
// leaves the parent as it is) and replaces the value there with mapper's.
func setDeep(root Value, path []string, mapper func(Value) (Value, error)) (Value, error) {
	if len(path) == 0 {
		return mapper(root)
	}
	parent := root
	var err error
	for i := 0; i < len(path)-1; i++ {
		key := path[i]
		switch parent.k {
		case Array:
			parent = arrayElem(parent, key)
		case Object:
			parent = parent.Get(key)
		case Set:
			if parent, err = nthKey(parent.cc().Vals, jsNum(key)); err != nil {
				return Value{}, err
			}
		case Map:
			if i == len(path)-2 {
				goto last
			}
			row := jsNum(key)
			i++
			isKey := jsNum(path[i]) == 0
			k, err := nthKey(parent.cc().mapKeys(), row)
			if err != nil {
				return Value{}, err
			}
			if isKey {
				parent = k
			} else {
				parent = mapGet(parent, k)
			}
		}
	}
last:
	lastKey := path[len(path)-1]
	switch parent.k {
	case Array:
		idx, ok := arrayIndex(lastKey)
		if !ok {
			idx, ok = arrayIndex(indexKey(jsNum(lastKey)))
		}
		if !ok {
			// A property that is not an index is invisible to every
			// rendering; apply the mapper for its errors only.
			_, err := mapper(Value{})
			return root, err
		}
		nv, err := mapper(parent.Index(int(idx)))
		if err != nil {
			return Value{}, err
		}
		for int(idx) >= len(parent.cc().Vals) {
			parent.cc().Vals = append(parent.cc().Vals, Value{})
		}
		parent.cc().Vals[idx] = nv
	case Object:
		nv, err := mapper(parent.Get(lastKey))
		if err != nil {
			return Value{}, err
		}
		parent.Set(lastKey, nv)
	case Set:
		old, err := nthKey(parent.cc().Vals, jsNum(lastKey))
		if err != nil {
			return Value{}, err
		}
		nv, err := mapper(old)
		if err != nil {
			return Value{}, err
		}
		if !StrictEquals(old, nv) {
			setDelete(parent, old)
			setAdd(parent, nv)
		}
	case Map:
		row := jsNum(path[len(path)-2])
		k, err := nthKey(parent.cc().mapKeys(), row)
		if err != nil {
			return Value{}, err
		}
		if jsNum(lastKey) == 0 {
			nk, err := mapper(k)
			if err != nil {
				return Value{}, err
			}
			mapSet(parent, nk, mapGet(parent, k))
			if !StrictEquals(nk, k) {
				mapDelete(parent, k)
			}
		} else {
			nv, err := mapper(mapGet(parent, k))
			if err != nil {
				return Value{}, err
			}
			mapSet(parent, k, nv)
		}
	}
	return root, nil
}

// arrayElem is parent[+key] for an array, as superjson's walks read it.
func arrayElem(parent Value, key string) Value {
	if idx, ok := arrayIndex(key); ok {
		// A canonical index: +key prints back as key.
		return parent.Index(int(idx))
	}
	return parent.Get(indexKey(jsNum(key)))
}

// indexKey is the property key an array lookup parent[+key] uses.
func indexKey(n float64) string { return NumberToString(n) }

// untransform is superjson's untransformValue.
func untransform(v Value, typ Value) (Value, error) {
	if typ.k == Array {
		name := ToString(typ.Index(1))
		switch ToString(typ.Index(0)) {
		case "typed-array":
			return typedArray(v, name)
		case "symbol":
			return Value{}, errors.New("Error: Trying to deserialize unknown symbol")
		case "class":
			return Value{}, fmt.Errorf("Error: Trying to deserialize unknown class '%s'", name)
		case "custom":
			return Value{}, errors.New("Error: Trying to deserialize unknown custom value")
		}
		return Value{}, fmt.Errorf("Error: Unknown transformation: %s", ToString(typ))
	}
	switch t := ToString(typ); t {
	case "undefined":
		return Value{}, nil
	case "bigint":
		return toBigInt(v)
	case "Date":
		return newDate(v), nil
	case "Error":
		if v.IsNullish() {
			// new Error(v.message) reads a property of null or undefined.
			return Value{}, fmt.Errorf("TypeError: Cannot read properties of %s (reading 'message')", v.Kind())
		}
		return newError(v), nil
	case "regexp":
		return newRegExp(ToString(v))
	case "set":
		return newSet(v)
	case "map":
		return newMap(v)
	case "number":
		return NumberValue(toNumber(v)), nil
	case "URL":
		return newURL(v)
	default:
		return Value{}, fmt.Errorf("Error: Unknown transformation: %s", t)
	}
}

// toNumber is JavaScript's Number(v) for the values JSON can hold.
func toNumber(v Value) float64 {
	switch v.k {
	case Undefined:
		return math.NaN()
	case Null:
		return 0
	case Bool, Number, Date:
		return v.n
	case String:
		return stringToNumber(v.s)
	case Array:
		if len(v.cc().Vals) == 0 {
			return 0
		}
		return stringToNumber(ToString(v))
	}
	return math.NaN()
}

// stringToNumber is JavaScript's StringToNumber.
func stringToNumber(s string) float64 {
	s = strings.TrimFunc(s, isJSSpace)
	if s == "" {
		return 0
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			n, ok := new(big.Int).SetString(s[2:], base)
			if !ok || strings.ContainsAny(s[2:], "_+-") {
				return math.NaN()
			}
			f, _ := new(big.Float).SetInt(n).Float64()
			return f
		}
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	// Decimal literal: digits, optional point, optional exponent.
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return math.NaN()
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ed := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			ed++
		}
		if ed == 0 {
			return math.NaN()
		}
	}
	if i != len(s) {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return math.NaN()
		}
	}
	return f
}

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

func toBigInt(v Value) (Value, error) {
	switch v.k {
	case Bool:
		return Value{k: BigInt, s: strconv.Itoa(int(v.n))}, nil
	case Number:
		if math.IsNaN(v.n) || math.IsInf(v.n, 0) || v.n != math.Trunc(v.n) {
			return Value{}, fmt.Errorf("RangeError: The number %s cannot be converted to a BigInt because it is not an integer", NumberToString(v.n))
		}
		bf := new(big.Float).SetFloat64(v.n)
		n, _ := bf.Int(nil)
		return Value{k: BigInt, s: n.String()}, nil
	case String:
		s := strings.TrimFunc(v.s, isJSSpace)
		if s == "" {
			return Value{k: BigInt, s: "0"}, nil
		}
		base := 10
		body := s
		if len(s) > 2 && s[0] == '0' {
			switch s[1] {
			case 'x', 'X':
				base, body = 16, s[2:]
			case 'o', 'O':
				base, body = 8, s[2:]
			case 'b', 'B':
				base, body = 2, s[2:]
			}
		}
		if base != 10 && strings.ContainsAny(body, "+-") {
			return Value{}, fmt.Errorf("SyntaxError: Cannot convert %s to a BigInt", v.s)
		}
		if strings.Contains(body, "_") {
			return Value{}, fmt.Errorf("SyntaxError: Cannot convert %s to a BigInt", v.s)
		}
		n, ok := new(big.Int).SetString(body, base)
		if !ok {
			return Value{}, fmt.Errorf("SyntaxError: Cannot convert %s to a BigInt", v.s)
		}
		return Value{k: BigInt, s: n.String()}, nil
	case BigInt:
		return v, nil
	}
	return Value{}, fmt.Errorf("TypeError: Cannot convert %s to a BigInt", ToString(v))
}

// newDate is new Date(v).
func newDate(v Value) Value {
	return DateValue(dateTime(v))
}

// dateTime is the time value new Date(v) holds.
func dateTime(v Value) float64 {
	switch v.k {
	case String:
		return parseDate(v.s)
	case Date:
		return v.n
	}
	return timeClip(toNumber(v))
}

func timeClip(t float64) float64 {
	if math.IsNaN(t) || math.IsInf(t, 0) || math.Abs(t) > 8.64e15 {
		return math.NaN()
	}
	return math.Trunc(t) + 0 // +0 turns -0 into 0
}

// parseDate is Date.parse as Node 20's V8 does it, with time.Local as the
// local time zone: the ECMAScript date time string format (what
// toISOString writes, superjson's Date), read first through parseISOFast,
// and the text V8's legacy parser accepts ("2026/05/20", "May 20, 2026",
// "2026-05-20 09:00", "Tue, 20 May 2026 09:00:00 GMT", a five-digit
// year), read as that parser reads it (parseDateIn, datelegacy.go).
func parseDate(s string) float64 {
	if ms, ok := parseISOFast(s); ok {
		return ms
	}
	return parseDateIn(s, time.Local)
}

// parseISOFast reads exactly YYYY-MM-DDTHH:MM:SS.sssZ, what toISOString
// writes for years 0 to 9999, without time.Parse.
func parseISOFast(s string) (float64, bool) {
	if len(s) != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return 0, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for j := i; j < i+n; j++ {
			c := s[j]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	ms, ok7 := num(20, 3)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || mo < 1 || mo > 12 || d < 1 || h > 24 || mi > 59 || sec > 59 {
		return 0, false
	}
	if d > daysIn(y, mo) || (h == 24 && (mi != 0 || sec != 0 || ms != 0)) {
		return 0, false
	}
	days := daysFromCivil(y, mo, d)
	return float64(((days*24+int64(h))*60+int64(mi))*60000 + int64(sec)*1000 + int64(ms)), true
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// dateNumber reads the run of digits at s[i:] as V8's date tokenizer
// does: its length, and its value from the first nine digits after the
// leading zeros.
func dateNumber(s string, i int) (val, n int) {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	k := i
	for k < j && s[k] == '0' {
		k++
	}
	for c := 0; k < j; k, c = k+1, c+1 {
		if c < 9 {
			val = val*10 + int(s[k]-'0')
		}
	}
	return val, j - i
}

// dateMillis is V8's ReadMilliseconds: the fraction's first three digits,
// from the value of its first nine significant ones and its length.
func dateMillis(v, n int) int {
	switch {
	case n == 1:
		return v * 100
	case n == 2:
		return v * 10
	case n > 3:
		n = min(n, 9)
		for ; n > 3; n-- {
			v /= 10
		}
	}
	return v
}

// newError is superjson's Error untransform: new Error(message, {cause}),
// then name (own, enumerable) and stack (own, not enumerable).
func newError(v Value) Value {
	e := Value{k: Error, c: &Container{}}
	msg := v.Get("message")
	if !msg.IsUndefined() {
		e.s = ToString(msg)
	}
	e.Set("name", v.Get("name"))
	return e
}

// newRegExp is new RegExp(body, flags) from "/body/flags".
func newRegExp(lit string) (Value, error) {
	last := strings.LastIndexByte(lit, '/')
	body := ""
	if len(lit) > 1 && last >= 1 {
		body = lit[1:last]
	} else if last < 0 && len(lit) > 1 {
		body = lit[1 : len(lit)-1]
	}
	flags := lit[last+1:]
	const order = "dgimsuvy"
	seen := map[rune]bool{}
	for _, f := range flags {
		if !strings.ContainsRune(order, f) || seen[f] {
			return Value{}, fmt.Errorf("SyntaxError: Invalid flags supplied to RegExp constructor '%s'", flags)
		}
		seen[f] = true
	}
	if seen['u'] && seen['v'] {
		return Value{}, fmt.Errorf("SyntaxError: Invalid flags supplied to RegExp constructor '%s'", flags)
	}
	var canon strings.Builder
	for _, f := range order {
		if seen[f] {
			canon.WriteRune(f)
		}
	}
	src := body
	if src == "" {
		src = "(?:)"
	}
	return Value{k: RegExp, s: "/" + escapeRegExpSource(src) + "/" + canon.String(), c: &Container{}}, nil
}

// escapeRegExpSource is EscapeRegExpPattern: an unescaped "/" outside a
// class and line terminators are escaped.
func escapeRegExpSource(s string) string {
	var b strings.Builder
	inClass, esc := false, false
	for _, r := range s {
		switch {
		case esc:
			esc = false
		case r == '\\':
			esc = true
		case r == '[':
			inClass = true
		case r == ']':
			inClass = false
		case r == '/' && !inClass:
			b.WriteString(`\/`)
			continue
		case r == '\n':
			b.WriteString(`\n`)
			continue
		case r == '\r':
			b.WriteString(`\r`)
			continue
		case r == 0x2028:
			b.WriteString(`\u2028`)
			continue
		case r == 0x2029:
			b.WriteString(`\u2029`)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// iterate returns the values for-of would yield for the constructors that
// take an iterable (Set, Map).
func iterate(v Value, ctor string) ([]Value, error) {
	switch v.k {
	case Undefined, Null:
		return nil, nil
	case Array, Set, TypedArray:
		return v.cc().Vals, nil
	case String:
		var out []Value
		for i := 0; i < len(v.s); {
			r, size := utf8.DecodeRuneInString(v.s[i:])
			if r == utf8.RuneError && size < 3 {
				if _, ok := isSurrogateAt(v.s, i); ok {
					size = 3
				}
			}
			out = append(out, StringValue(v.s[i:i+size]))
			i += size
		}
		return out, nil
	case Map:
		out := make([]Value, len(v.cc().mapKeys()))
		for i := range out {
			out[i] = NewArray([]Value{v.cc().mapKeys()[i], v.cc().Vals[i]})
		}
		return out, nil
	}
	return nil, fmt.Errorf("TypeError: %s is not iterable (cannot read property Symbol(Symbol.iterator)) in new %s", ToString(v), ctor)
}

func newSet(v Value) (Value, error) {
	elems, err := iterate(v, "Set")
	if err != nil {
		return Value{}, err
	}
	s := Value{k: Set, c: &Container{}}
	for _, e := range elems {
		setAdd(s, e)
	}
	return s, nil
}

func newMap(v Value) (Value, error) {
	entries, err := iterate(v, "Map")
	if err != nil {
		return Value{}, err
	}
	m := Value{k: Map, c: &Container{}}
	for _, e := range entries {
		if !e.IsObjectLike() {
			return Value{}, fmt.Errorf("TypeError: Iterator value %s is not an entry object", ToString(e))
		}
		mapSet(m, e.Get("0"), e.Get("1"))
	}
	return m, nil
}

// newURL is new URL(v): the value holds the href that the WHATWG URL
// parser and serializer give (urlHref, as Node 20 runs them), and a string
// new URL rejects fails with "TypeError: Invalid URL".
func newURL(v Value) (Value, error) {
	s := ToString(v)
	href, ok := urlHref(s)
	if !ok {
		return Value{}, fmt.Errorf("TypeError: Invalid URL: %s", s)
	}
	return Value{k: URL, s: href, c: &Container{}}, nil
}

// typedArray is new Ctor(v) for the typed-array annotation.
func typedArray(v Value, name string) (Value, error) {
	conv, ok := typedConv[name]
	if !ok {
		return Value{}, errors.New("Error: Trying to deserialize unknown typed array")
	}
	var src []Value
	switch v.k {
	case Array, Set, TypedArray:
		src = v.cc().Vals
	case Number:
		n := v.n
		if n < 0 || n != math.Trunc(n) || n > 1<<32 {
			return Value{}, fmt.Errorf("RangeError: Invalid typed array length: %s", NumberToString(n))
		}
		src = make([]Value, int(n))
		for i := range src {
			src[i] = NumberValue(0)
		}
	}
	out := make([]Value, len(src))
	for i, e := range src {
		out[i] = NumberValue(conv(toNumber(e)))
	}
	return Value{k: TypedArray, s: name, c: &Container{Vals: out}}, nil
}

func toIntN(bits uint, signed bool) func(float64) float64 {
	return func(f float64) float64 {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		f = math.Trunc(f)
		m := math.Mod(f, math.Ldexp(1, int(bits)))
		if m < 0 {
			m += math.Ldexp(1, int(bits))
		}
		if signed && m >= math.Ldexp(1, int(bits-1)) {
			m -= math.Ldexp(1, int(bits))
		}
		return m + 0
	}
}

var typedConv = map[string]func(float64) float64{
	"Int8Array":    toIntN(8, true),
	"Uint8Array":   toIntN(8, false),
	"Int16Array":   toIntN(16, true),
	"Uint16Array":  toIntN(16, false),
	"Int32Array":   toIntN(32, true),
	"Uint32Array":  toIntN(32, false),
	"Float32Array": func(f float64) float64 { return float64(float32(f)) },
	"Float64Array": func(f float64) float64 { return f },
	"Uint8ClampedArray": func(f float64) float64 {
		if math.IsNaN(f) || f <= 0 {
			return 0
		}
		if f >= 255 {
			return 255
		}
		return math.RoundToEven(f)
	},
}
