// Package history owns the message model: JavaScript values as superjson
// decodes them (key order, undefined, Date, the number specials, bigint, Map,
// Set, regexp, Error, URL, typed arrays, shared and circular references), the
// two renderings every later stage needs (JSON.stringify and String()), and
// lengths and cuts in UTF-16 code units. Decoding is eager, or lazy (lazy.go):
// the same values and errors, but nested containers stay checked text until
// first read.
//
// Strings are Go strings holding UTF-8, except that a lone UTF-16 surrogate
// (from a \udXXX escape, or from a cut through a pair) is kept as its
// three-byte generalized UTF-8 form (WTF-8), so that lengths and
// JSON.stringify stay exact. ToWellFormed turns those into U+FFFD, which is
// what Node writes to a file.
package history

import (
	"math"
	"strconv"
	"sync/atomic"
)

// Kind is the JavaScript type of a Value.
type Kind uint8

// The kinds a decoded value can have. The zero Value is Undefined.
const (
	Undefined Kind = iota
	Null
	Bool
	Number
	String
	BigInt
	Array
	Object
	Date
	Map
	Set
	RegExp
	Error
	URL
	TypedArray
)

var kindNames = [...]string{"undefined", "null", "boolean", "number", "string", "bigint", "array", "object", "Date", "Map", "Set", "RegExp", "Error", "URL", "TypedArray"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one JavaScript value. Containers (arrays, objects, maps, sets,
// errors, typed arrays) are shared by pointer, as JavaScript objects are, so
// superjson's referential equalities (and cycles) survive decoding.
type Value struct {
	k Kind
	// n holds a Number, a Bool (0 or 1), or a Date's time value in ms (NaN
	// for an invalid date).
	n float64
	// s holds a String, a BigInt's decimal digits, a RegExp's "/source/flags",
	// a URL's href, an Error's message, or a TypedArray's constructor name.
	s string
	c *Container
}

// Container holds the members of an object-like value.
type Container struct {
	// Keys and Vals are an object's own enumerable properties in JavaScript
	// order; for Array, Set and TypedArray only Vals is used; for Map, Keys
	// is unused and MapKeys holds the keys.
	Keys []string
	Vals []Value
	// x holds what few containers need: a Map's keys, the key index of a
	// big object.
	x *containerExt
	// lz is set while the container is lazy: its members are still JSON
	// text, decoded on first use (see ParseJSONLazy).
	lz atomic.Pointer[lazySrc]
}

// cc returns v's container, decoding it first if it is lazy. Every access
// to members goes through it; identity (v.c itself) does not need to.
func (v Value) cc() *Container {
	c := v.c
	if c != nil {
		if l := c.lz.Load(); l != nil {
			l.once.Do(func() { c.materialize(l) })
		}
	}
	return c
}

// Constructors.

// UndefinedValue is JavaScript's undefined.
func UndefinedValue() Value { return Value{} }

// NullValue is null.
func NullValue() Value { return Value{k: Null} }

// BoolValue is a boolean.
func BoolValue(b bool) Value {
	if b {
		return Value{k: Bool, n: 1}
	}
	return Value{k: Bool}
}

// NumberValue is a number.
func NumberValue(f float64) Value { return Value{k: Number, n: f} }

// StringValue is a string.
func StringValue(s string) Value { return Value{k: String, s: s} }

// NewArray is an array of vals (not copied).
func NewArray(vals []Value) Value { return Value{k: Array, c: &Container{Vals: vals}} }

// NewObject is an empty plain object.
func NewObject() Value { return Value{k: Object, c: &Container{}} }

// DateValue is a Date with the time value ms (NaN: invalid date).
func DateValue(ms float64) Value { return Value{k: Date, n: ms, c: &Container{}} }

// Accessors.

// Kind returns v's type.
func (v Value) Kind() Kind { return v.k }

// IsUndefined reports v === undefined.
func (v Value) IsUndefined() bool { return v.k == Undefined }

// IsNullish reports v == null (null or undefined).
func (v Value) IsNullish() bool { return v.k <= Null }

// Num returns a Number's value (or a Date's time value).
func (v Value) Num() float64 { return v.n }

// Str returns a String's text (or the payload string of BigInt, RegExp, URL).
func (v Value) Str() string { return v.s }

// Bool returns a Bool's value.
func (v Value) Bool() bool { return v.n != 0 }

// IsObjectLike reports whether v is a JavaScript object (anything with
// identity: arrays, objects, dates, maps, …).
func (v Value) IsObjectLike() bool { return v.k >= Array }

// Truthy is JavaScript's ToBoolean.
func (v Value) Truthy() bool {
	switch v.k {
	case Undefined, Null:
		return false
	case Bool:
		return v.n != 0
	case Number:
		return v.n != 0 && !math.IsNaN(v.n)
	case String:
		return v.s != ""
	case BigInt:
		return v.s != "0"
	}
	return true
}

// Len is the number of elements of an Array, Set, Map or TypedArray, or of
// own enumerable keys of an Object.
func (v Value) Len() int {
	if v.c == nil {
		return 0
	}
	if v.k == Array {
		if l := v.c.lz.Load(); l != nil && len(l.pending) == 0 && l.ann == nil {
			// A lazy array: count its elements in the text.
			return lazyLen(l)
		}
	}
	if v.k == Object || v.k == Error {
		return len(v.cc().Keys)
	}
	return len(v.cc().Vals)
}

// Index returns element i of an Array (undefined when out of range or when v
// is not an array).
func (v Value) Index(i int) Value {
	if v.k != Array || i < 0 || i >= len(v.cc().Vals) {
		return Value{}
	}
	return v.cc().Vals[i]
}

// Elems returns the elements of an Array, Set or TypedArray (not a copy).
func (v Value) Elems() []Value {
	if v.c == nil || v.k == Object || v.k == Error || v.k == Map {
		return nil
	}
	return v.cc().Vals
}

// Keys returns an Object's own enumerable keys in JavaScript order.
func (v Value) Keys() []string {
	if v.c == nil || (v.k != Object && v.k != Error) {
		return nil
	}
	return v.cc().Keys
}

// Has reports whether an Object has own key k ("k in obj" for plain data).
func (v Value) Has(k string) bool {
	_, ok := v.lookup(k)
	return ok
}

// Get returns property k, as obj[k] would for data: an Object's own key, an
// Array's index or "length", a String's index or "length". Anything else is
// undefined.
func (v Value) Get(k string) Value {
	if v.k == Object {
		if l := v.c.lz.Load(); l != nil && !l.touches(k) {
			// A lazy object: a scalar member is read from the text,
			// leaving the object lazy.
			if m, ok := lazyGet(l, k); ok {
				return m
			}
		}
		if c := v.cc(); c.idx() == nil {
			keys := c.Keys
			for i := range keys {
				if keys[i] == k {
					return c.Vals[i]
				}
			}
			if len(keys) <= 16 {
				return Value{}
			}
		}
	}
	switch v.k {
	case Object, Error:
		if i, ok := v.lookup(k); ok {
			return v.cc().Vals[i]
		}
		if v.k == Error && k == "message" {
			return StringValue(v.s)
		}
	case Array, TypedArray:
		if k == "length" {
			return NumberValue(float64(len(v.cc().Vals)))
		}
		if i, ok := arrayIndex(k); ok && int(i) < len(v.cc().Vals) {
			return v.cc().Vals[i]
		}
	case String:
		if k == "length" {
			return NumberValue(float64(Len16(v.s)))
		}
	}
	return Value{}
}

func (v Value) lookup(k string) (int, bool) {
	if v.c == nil || (v.k != Object && v.k != Error) {
		return 0, false
	}
	c := v.cc()
	if idx := c.idx(); idx != nil {
		i, ok := idx[k]
		return i, ok
	}
	keys := c.Keys
	for i := range keys {
		if keys[i] == k {
			return i, true
		}
	}
	if len(keys) > 16 {
		idx := make(map[string]int, len(keys))
		for i, key := range keys {
			idx[key] = i
		}
		c.setIdx(idx)
	}
	return 0, false
}

// Set stores obj[k] = val on an Object, keeping JavaScript key order:
// integer-like keys ascending first, then the others in insertion order. An
// existing key keeps its place.
func (v Value) Set(k string, val Value) {
	if v.c == nil || (v.k != Object && v.k != Error) {
		return
	}
	if i, ok := v.lookup(k); ok {
		v.cc().Vals[i] = val
		return
	}
	c := v.cc()
	pos := len(c.Keys)
	if n, ok := arrayIndex(k); ok {
		pos = 0
		for pos < len(c.Keys) {
			m, isIdx := arrayIndex(c.Keys[pos])
			if !isIdx || m > n {
				break
			}
			pos++
		}
	}
	c.Keys = append(c.Keys, "")
	c.Vals = append(c.Vals, Value{})
	if pos < len(c.Keys)-1 {
		copy(c.Keys[pos+1:], c.Keys[pos:])
		copy(c.Vals[pos+1:], c.Vals[pos:])
		c.setIdx(nil)
	}
	c.Keys[pos] = k
	c.Vals[pos] = val
	if idx := c.idx(); idx != nil {
		idx[k] = pos
	}
}

// arrayIndex reports whether k is a canonical array index ("0", "17"; not
// "01" or "-1"), below 2^32-1, and its value.
func arrayIndex(k string) (uint32, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n >= 1<<32-1 {
		return 0, false
	}
	return uint32(n), true
}

// MapEntries returns a Map's keys and values.
func (v Value) MapEntries() (keys, vals []Value) {
	if v.k != Map || v.c == nil {
		return nil, nil
	}
	c := v.cc()
	return c.mapKeys(), c.Vals
}

// SameValueZero is the equality Map and Set use for keys.
func SameValueZero(a, b Value) bool {
	if a.k == Number && b.k == Number && math.IsNaN(a.n) && math.IsNaN(b.n) {
		return true
	}
	return StrictEquals(a, b)
}

// StrictEquals is JavaScript's ===.
func StrictEquals(a, b Value) bool {
	if a.k != b.k {
		return false
	}
	switch a.k {
	case Undefined, Null:
		return true
	case Bool, Number:
		return a.n == b.n
	case String, BigInt:
		return a.s == b.s
	}
	// Every object-like value has its own container: identity.
	return a.c == b.c
}

type containerExt struct {
	mapKeys []Value        // a Map's keys (Vals holds the values)
	index   map[string]int // key -> position, for objects of over 16 keys
	// shared is set on a container that superjson's referentialEqualities
	// put in more than one place: the renderings memoize it (shared.go).
	shared bool
}

// isShared reports whether c is marked shared; c must be materialized.
func (c *Container) isShared() bool { return c.x != nil && c.x.shared }

func (c *Container) mapKeys() []Value {
	if c.x == nil {
		return nil
	}
	return c.x.mapKeys
}

func (c *Container) setMapKeys(k []Value) {
	if c.x == nil {
		c.x = &containerExt{}
	}
	c.x.mapKeys = k
}

func (c *Container) idx() map[string]int {
	if c.x == nil {
		return nil
	}
	return c.x.index
}

func (c *Container) setIdx(m map[string]int) {
	if c.x == nil {
		if m == nil {
			return
		}
		c.x = &containerExt{}
	}
	c.x.index = m
}
