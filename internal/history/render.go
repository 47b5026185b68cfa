package history

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// ErrBigInt is what JSON.stringify throws on a bigint.
var ErrBigInt = errors.New("TypeError: Do not know how to serialize a BigInt")

// ErrCircular is what JSON.stringify throws on a cycle.
var ErrCircular = errors.New("TypeError: Converting circular structure to JSON")

// JSONStringify is JSON.stringify(v) without replacer or indent. ok is false
// when JSON.stringify returns undefined (for undefined itself). err is set
// where JavaScript throws (a bigint, a cycle).
func JSONStringify(v Value) (s string, ok bool, err error) {
	if v.k == Undefined {
		return "", false, nil
	}
	b, err := AppendJSON(nil, v)
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// JSONLen16 is the UTF-16 length of JSON.stringify(v): 0 for undefined.
func JSONLen16(v Value) (int, error) {
	w := lenWriter{}
	if v.k == Undefined {
		return 0, nil
	}
	if err := w.value(v, nil); err != nil {
		return 0, err
	}
	if w.n > MaxStringLength {
		return 0, ErrStringLength
	}
	return w.n, nil
}

// AppendJSON appends JSON.stringify(v) to b.
func AppendJSON(b []byte, v Value) ([]byte, error) {
	w := jsonWriter{b: b, base: len(b)}
	err := w.value(v, nil)
	return w.b, err
}

type jsonWriter struct {
	b []byte
	// base is where the text began in b; memo, once a shared container
	// has been met, holds where each one's text is in b (shared.go).
	base int
	memo map[*Container][2]int
}

func onStack(stack []*Container, c *Container) bool {
	for _, s := range stack {
		if s == c {
			return true
		}
	}
	return false
}

// toJSONForm reports how a value serializes: as a string (Date, URL), as
// null (invalid Date, non-finite number), or structurally.
func (w *jsonWriter) value(v Value, stack []*Container) error {
	switch v.k {
	case Undefined, Null:
		w.b = append(w.b, "null"...)
	case Bool:
		if v.n != 0 {
			w.b = append(w.b, "true"...)
		} else {
			w.b = append(w.b, "false"...)
		}
	case Number:
		w.b = AppendNumber(w.b, v.n)
	case String, URL:
		w.b = appendQuoted(w.b, v.s)
	case BigInt:
		return ErrBigInt
	case Date:
		if math.IsNaN(v.n) {
			w.b = append(w.b, "null"...)
		} else {
			w.b = appendQuoted(w.b, ISOString(v.n))
		}
	case Map, Set, RegExp:
		w.b = append(w.b, "{}"...)
	case TypedArray:
		w.b = append(w.b, '{')
		for i, e := range v.cc().Vals {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, '"')
			w.b = strconv.AppendInt(w.b, int64(i), 10)
			w.b = append(w.b, '"', ':')
			w.b = AppendNumber(w.b, e.n)
		}
		w.b = append(w.b, '}')
	case Array, Object, Error:
		if onStack(stack, v.c) {
			return ErrCircular
		}
		if v.cc().isShared() {
			return w.shared(v, stack)
		}
		return w.container(v, stack)
	}
	return nil
}

// array writes an Array that is not on the stack.
func (w *jsonWriter) array(v Value, stack []*Container) error {
	stack = append(stack, v.c)
	w.b = append(w.b, '[')
	for i, e := range v.cc().Vals {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if err := w.value(e, stack); err != nil {
			return err
		}
	}
	w.b = append(w.b, ']')
	return nil
}

// object writes an Object or Error that is not on the stack.
func (w *jsonWriter) object(v Value, stack []*Container) error {
	stack = append(stack, v.c)
	w.b = append(w.b, '{')
	first := true
	for i, k := range v.cc().Keys {
		e := v.cc().Vals[i]
		if e.k == Undefined {
			continue
		}
		if !first {
			w.b = append(w.b, ',')
		}
		first = false
		w.b = appendQuoted(w.b, k)
		w.b = append(w.b, ':')
		if err := w.value(e, stack); err != nil {
			return err
		}
	}
	w.b = append(w.b, '}')
	return nil
}

const hexDigits = "0123456789abcdef"

// appendQuoted is JSON.stringify of a string: only '"', '\\' and control
// characters are escaped (and lone surrogates, as \udXXX); everything else,
// '<', '>', '&', U+2028 included, stays as it is.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0xED {
			i++
			continue
		}
		if c == 0xED {
			u, ok := isSurrogateAt(s, i)
			if !ok {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', hexDigits[u>>12&0xF], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
			i += 3
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// lenWriter computes the UTF-16 length of JSON.stringify without building
// the text.
type lenWriter struct {
	n int
	// memo, once a shared container has been met, holds each one's
	// length (shared.go).
	memo map[*Container]int
}

func (w *lenWriter) value(v Value, stack []*Container) error {
	switch v.k {
	case Undefined, Null:
		w.n += 4
	case Bool:
		if v.n != 0 {
			w.n += 4
		} else {
			w.n += 5
		}
	case Number:
		var buf [32]byte
		w.n += len(AppendNumber(buf[:0], v.n))
	case String, URL:
		w.n += quotedLen16(v.s)
	case BigInt:
		return ErrBigInt
	case Date:
		if math.IsNaN(v.n) {
			w.n += 4
		} else {
			w.n += len(ISOString(v.n)) + 2
		}
	case Map, Set, RegExp:
		w.n += 2
	case TypedArray:
		b, _ := AppendJSON(nil, v)
		w.n += len(b)
	case Array, Object, Error:
		if onStack(stack, v.c) {
			return ErrCircular
		}
		if v.cc().isShared() {
			return w.shared(v, stack)
		}
		return w.container(v, stack)
	}
	return nil
}

// array measures an Array that is not on the stack.
func (w *lenWriter) array(v Value, stack []*Container) error {
	stack = append(stack, v.c)
	w.n += 2
	for i, e := range v.cc().Vals {
		if i > 0 {
			w.n++
		}
		if err := w.value(e, stack); err != nil {
			return err
		}
	}
	return nil
}

// object measures an Object or Error that is not on the stack.
func (w *lenWriter) object(v Value, stack []*Container) error {
	stack = append(stack, v.c)
	w.n += 2
	first := true
	for i, k := range v.cc().Keys {
		e := v.cc().Vals[i]
		if e.k == Undefined {
			continue
		}
		if !first {
			w.n++
		}
		first = false
		w.n += quotedLen16(k) + 1
		if err := w.value(e, stack); err != nil {
			return err
		}
	}
	return nil
}

// quotedLen16 is the UTF-16 length of JSON.stringify(s).
func quotedLen16(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			if c&0xC0 != 0x80 {
				n++
				if c >= 0xF0 {
					n++
				}
				if c == 0xED {
					if _, ok := isSurrogateAt(s, i); ok {
						n += 5
					}
				}
			}
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20:
			n += 6
		default:
			n++
		}
	}
	return n
}

// FormatNumber is JavaScript's Number.prototype.toString() (radix 10).
func FormatNumber(f float64) string {
	var buf [32]byte
	return string(AppendNumber(buf[:0], f))
}

// AppendNumber appends FormatNumber(f), or "null" for a non-finite f as
// JSON.stringify prints it. Use FormatNumber for String().
func AppendNumber(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return appendJSNumber(b, f)
}

func appendJSNumber(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0')
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	// e is d[.ddd]e±XX
	mant := e
	exp := 0
	for i := 0; i < len(e); i++ {
		if e[i] == 'e' {
			mant = e[:i]
			x, _ := strconv.Atoi(string(e[i+1:]))
			exp = x
			break
		}
	}
	var digits [24]byte
	nd := 0
	for _, c := range mant {
		if c != '.' {
			digits[nd] = c
			nd++
		}
	}
	d := digits[:nd]
	k := nd
	n := exp + 1
	switch {
	case k <= n && n <= 21:
		b = append(b, d...)
		for i := 0; i < n-k; i++ {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, d[:n]...)
		b = append(b, '.')
		b = append(b, d[n:]...)
	case -6 < n && n <= 0:
		b = append(b, '0', '.')
		for i := 0; i < -n; i++ {
			b = append(b, '0')
		}
		b = append(b, d...)
	default:
		b = append(b, d[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, d[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}

// NumberToString is String(n): NaN, Infinity, -Infinity, and -0 as "0".
func NumberToString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return FormatNumber(f)
}

// ISOString is Date.prototype.toISOString for a valid time value.
func ISOString(ms float64) string {
	t := time.UnixMilli(int64(ms)).UTC()
	y := t.Year()
	var b []byte
	switch {
	case y >= 0 && y <= 9999:
		b = appendPad(b, y, 4)
	case y < 0:
		b = append(b, '-')
		b = appendPad(b, -y, 6)
	default:
		b = append(b, '+')
		b = appendPad(b, y, 6)
	}
	b = append(b, '-')
	b = appendPad(b, int(t.Month()), 2)
	b = append(b, '-')
	b = appendPad(b, t.Day(), 2)
	b = append(b, 'T')
	b = appendPad(b, t.Hour(), 2)
	b = append(b, ':')
	b = appendPad(b, t.Minute(), 2)
	b = append(b, ':')
	b = appendPad(b, t.Second(), 2)
	b = append(b, '.')
	b = appendPad(b, t.Nanosecond()/1e6, 3)
	b = append(b, 'Z')
	return string(b)
}

func appendPad(b []byte, n, width int) []byte {
	s := strconv.Itoa(n)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// dateString is Date.prototype.toString in the process's time zone (TZ, as
// Node reads it): "Wed May 20 2026 09:00:00 GMT+0000 (Coordinated Universal
// Time)". Zone names other than UTC are Go's abbreviations, not ICU's long
// names.
func dateString(ms float64) string {
	if math.IsNaN(ms) {
		return "Invalid Date"
	}
	t := time.UnixMilli(int64(ms)).In(time.Local)
	name, off := t.Zone()
	sign := byte('+')
	if off < 0 {
		sign = '-'
		off = -off
	}
	long := name
	if off == 0 && (name == "UTC" || name == "GMT" || name == "") {
		long = "Coordinated Universal Time"
	}
	var b []byte
	b = append(b, t.Format("Mon Jan 02 ")...)
	y := t.Year()
	if y < 0 {
		b = append(b, '-')
		b = appendPad(b, -y, 4)
	} else {
		b = appendPad(b, y, 4)
	}
	b = append(b, t.Format(" 15:04:05 GMT")...)
	b = append(b, sign)
	b = appendPad(b, off/3600, 2)
	b = appendPad(b, off%3600/60, 2)
	b = append(b, " ("...)
	b = append(b, long...)
	b = append(b, ')')
	return string(b)
}

// ToString is JavaScript's String(v): "undefined", "null", numbers as
// JavaScript prints them, arrays joined with "," (null and undefined
// elements empty, cycles empty), plain objects "[object Object]", Map
// "[object Map]", Set "[object Set]", a RegExp its literal, an Error
// "name: message", a Date its local-time string. Where String(v) throws
// (see ToStringChecked) it gives "".
func ToString(v Value) string {
	s, _ := ToStringChecked(v)
	return s
}

// ErrNoPrimitive is what String() throws on a plain object with an own
// "toString" key (superjson can only make it a non-function, which hides
// Object.prototype.toString; valueOf gives the object back), and on an
// array, or an Error name, that holds one.
var ErrNoPrimitive = errors.New("TypeError: Cannot convert object to primitive value")

// errSharedMet stops toString at a container marked shared.
var errSharedMet = errors.New("shared container")

// ToStringChecked is ToString with the error where String(v) throws or
// cannot be built: where JavaScript throws, ErrNoPrimitive (an object
// with an own "toString" key, v itself or inside it) or ErrStringLength
// (a text past MaxStringLength, which only shared references make); and
// ErrTooLarge when v holds shared references (superjson's
// referentialEqualities) and its text would pass MaxSharedOutput bytes,
// which compact does not build though JavaScript would (or when compact
// gave up measuring it).
func ToStringChecked(v Value) (string, error) {
	switch v.k {
	case String, BigInt, RegExp, URL:
		return v.s, nil
	case Number:
		return NumberToString(v.n), nil
	case Undefined:
		return "undefined", nil
	case Null:
		return "null", nil
	case Object:
		if v.Has("toString") {
			return "", ErrNoPrimitive
		}
		return "[object Object]", nil
	}
	var b strings.Builder
	switch err := toString(&b, v, nil); err {
	case nil:
		return b.String(), nil
	case errSharedMet:
		// A shared container: again, memoized and capped.
		return toStringShared(v)
	default:
		return "", err
	}
}

// JoinChecked is Array.prototype.join(sep) on an array or typed array v,
// with ToStringChecked's errors: null and undefined elements are empty,
// and so is an element that is v itself or an array being joined around
// it (V8's cycle detection: v is on the stack while its elements are
// written). For anything but an array it is ToStringChecked(v).
func JoinChecked(v Value, sep string) (string, error) {
	if v.k != Array && v.k != TypedArray {
		return ToStringChecked(v)
	}
	stack := []*Container{v.c}
	var b strings.Builder
	for i, e := range v.cc().Vals {
		if i > 0 {
			b.WriteString(sep)
		}
		if e.k <= Null {
			continue
		}
		s, err := toStringFrom(e, stack)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// toStringFrom is ToStringChecked(v) inside the join of the arrays on
// stack.
func toStringFrom(v Value, stack []*Container) (string, error) {
	switch v.k {
	case Array, TypedArray, Error:
	default:
		return ToStringChecked(v)
	}
	var b strings.Builder
	switch err := toString(&b, v, stack); err {
	case nil:
		return b.String(), nil
	case errSharedMet:
		return toStringSharedFrom(v, stack)
	default:
		return "", err
	}
}

// toString writes String(v) to b; errSharedMet, with b unfinished, when
// it meets a container marked shared; ErrNoPrimitive where String()
// throws.
func toString(b *strings.Builder, v Value, stack []*Container) error {
	switch v.k {
	case Undefined:
		b.WriteString("undefined")
	case Null:
		b.WriteString("null")
	case Bool:
		if v.n != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case Number:
		b.WriteString(NumberToString(v.n))
	case String, BigInt, RegExp, URL:
		b.WriteString(v.s)
	case Date:
		b.WriteString(dateString(v.n))
	case Map:
		b.WriteString("[object Map]")
	case Set:
		b.WriteString("[object Set]")
	case Object:
		if v.Has("toString") {
			return ErrNoPrimitive
		}
		b.WriteString("[object Object]")
	case Error:
		s, err := errorString(v)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case Array, TypedArray:
		if onStack(stack, v.c) {
			return nil
		}
		if v.cc().isShared() {
			return errSharedMet
		}
		stack = append(stack, v.c)
		for i, e := range v.cc().Vals {
			if i > 0 {
				b.WriteByte(',')
			}
			if e.k > Null {
				if err := toString(b, e, stack); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// errorString is String(e) for an Error: "name: message", either alone
// when the other is empty.
func errorString(v Value) (string, error) {
	name := "Error"
	if nv, ok := v.lookup("name"); ok && v.cc().Vals[nv].k != Undefined {
		var err error
		if name, err = ToStringChecked(v.cc().Vals[nv]); err != nil {
			return "", err
		}
	}
	msg := v.s
	switch {
	case name == "":
		return msg, nil
	case msg == "":
		return name, nil
	}
	return name + ": " + msg, nil
}
