package history

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"
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
	return parseJSON(text, 0, false)
}

// parseJSON parses text, lazily from depth lazyAt when it is positive. A
// superjson payload (sj) gets its "meta" member decoded eagerly, with
// shared annotation leaves.
func parseJSON(text string, lazyAt int, sj bool) (Value, error) {
	return parseJSONIn(nil, text, lazyAt, sj)
}

// parseJSONIn is parseJSON with the values carved from ar's chunks (nil:
// a slab of the parse's own).
func parseJSONIn(ar *Arena, text string, lazyAt int, sj bool) (Value, error) {
	p := parserPool.Get().(*parser)
	p.s, p.i, p.lazyAt, p.sj = text, 0, lazyAt, sj
	lent := ar.lend(p, len(text))
	defer func() {
		p.s, p.lazyAt, p.sj = "", 0, false
		ar.takeBack(p, lent)
		parserPool.Put(p)
	}()
	p.skipWS()
	v, err := p.value(0)
	if err == nil {
		p.skipWS()
		if p.i != len(p.s) {
			err = p.errf("unexpected %s after the value", p.what())
		}
	}
	if err != nil && lazyAt > 0 {
		// The lazy checker only says no; the eager parse says where and
		// why (and has the last word, should the two ever disagree).
		return parseJSON(text, 0, sj)
	}
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

// parserPool keeps parsers, and so their scratch stacks, between calls.
var parserPool = sync.Pool{New: func() any { return new(parser) }}

type parser struct {
	s string
	i int
	// sj is set for a superjson payload, inMeta while parsing the "meta" member of a superjson
	// payload.
	sj, inMeta bool
	// checked is set while decoding a lazy container: its text was
	// checked when first seen, so nested containers are only skipped.
	checked bool
	// lazyAt, when positive, is the nesting depth from which objects and
	// arrays are only validated and kept as text (see ParseJSONLazy).
	lazyAt int
	// ar, for a parse in an owned Arena, is the arena: the lazy
	// containers made will decode into it.
	ar *Arena
	// keys and vals are scratch stacks: an object or array collects its
	// members here and copies them out once, at its exact size.
	keys []string
	vals []Value
	// a hands out the exact-size slices and containers of the values it
	// builds, from chunks, so that a message costs a few allocations
	// rather than three per object.
	a slab
}

// slab carves small slices and containers out of larger chunks. A carved
// slice has its capacity cut to its length, so appending to it (Set)
// reallocates instead of writing over a neighbour. A slab serves one parse
// only, so a value never keeps another message's memory alive.
type slab struct {
	vals  []Value
	keys  []string
	conts []Container
	lazy  []lazySrc
	offs  []int32
	hint  int // size of the next value chunk
	// keep, for an Arena's slab, lists the chunks started, and those an
	// earlier use left, to hand out again.
	keep *arenaChunks
}

// reset starts a slab of its own for a text of n bytes; chunks start
// small (smaller still for a short text, such as a lazy container's) and
// double, so a message with few values wastes little.
func (a *slab) reset(n int) {
	*a = slab{hint: min(max(n/32, 4), 16)}
}

// Arena lends the chunks of one slab to many decodes whose values live
// and die together, such as the messages of one chat: the chunks grow to
// their full size once rather than once per message, which saves most of
// the allocations. A value decoded in an arena keeps the arena's chunks,
// and so the other values' memory, alive. Reset hands the chunks out
// again, for the next chat. Not safe for concurrent use (values decoded
// in it are, as any others).
type Arena struct {
	a slab
	// owned: the arena's values are used by one goroutine at a time
	// (NewOwnedArena). busy: a's slab is lent out, to a parse or a lazy
	// container's decoding.
	owned, busy bool
}

// NewArena returns an empty arena.
func NewArena() *Arena { return &Arena{a: slab{hint: 16, keep: new(arenaChunks)}} }

// NewOwnedArena returns an empty arena whose values are only ever used by
// one goroutine at a time, reads included, as the arena itself is. A lazy
// container decoded in it then decodes into the arena's memory too, when
// it is first read, rather than into memory of its own; Reset clears
// those values with the others. Values of an arena from NewArena may be
// read from any number of goroutines at once, as any others.
func NewOwnedArena() *Arena {
	a := NewArena()
	a.owned = true
	return a
}

// lend lets p carve its values from a's chunks, and, in an owned arena,
// makes the lazy containers p makes decode into a later. Nil, or a lent
// out already (a decode that reads what it decodes), p gets a slab of its
// own, for a text of n bytes, and lend reports false.
func (a *Arena) lend(p *parser, n int) bool {
	if a != nil && a.owned {
		p.ar = a
	}
	if a == nil || a.busy {
		p.a.reset(n)
		return false
	}
	p.a, a.busy = a.a, true
	return true
}

// takeBack ends what lend began: what p carved stays carved.
func (a *Arena) takeBack(p *parser, lent bool) {
	if lent {
		a.a, a.busy = p.a, false
	}
	p.a.reset(0)
	p.ar = nil
}

// Reset clears every value decoded in a, and lends their memory to the
// decodes that follow instead of allocating more: nothing decoded in a
// before may be in use any more (it would read as undefined, or as a
// later value). Values too large for a chunk, and lazy containers
// decoded since (but in an owned arena), have memory of their own and are
// not affected.
func (a *Arena) Reset() {
	k := a.a.keep
	k.vals.reset()
	k.keys.reset()
	k.conts.reset()
	k.lazy.reset()
	k.offs.reset()
	a.a = slab{hint: 16, keep: k}
}

// Size returns the bytes of the chunks a holds.
func (a *Arena) Size() int {
	k := a.a.keep
	return k.vals.size() + k.keys.size() + k.conts.size() + k.lazy.size() + k.offs.size()
}

// arenaChunks are the chunks of an Arena, by kind.
type arenaChunks struct {
	vals  chunkList[Value]
	keys  chunkList[string]
	conts chunkList[Container]
	lazy  chunkList[lazySrc]
	offs  chunkList[int32]
}

// chunkList keeps the chunks of one kind an Arena has started (used) and
// those it may start again (spare, cleared).
type chunkList[T any] struct{ used, spare [][]T }

// take returns an empty chunk with room for n elements: a spare one when
// the last spare is large enough, else a new one.
func (l *chunkList[T]) take(n int) []T {
	var c []T
	if k := len(l.spare); k > 0 && cap(l.spare[k-1]) >= n {
		c = l.spare[k-1][:0]
		l.spare[k-1] = nil
		l.spare = l.spare[:k-1]
	} else {
		c = make([]T, 0, n)
	}
	l.used = append(l.used, c)
	return c
}

func (l *chunkList[T]) size() int {
	n := 0
	for _, cs := range [2][][]T{l.used, l.spare} {
		for _, c := range cs {
			n += cap(c)
		}
	}
	var t T
	return n * int(unsafe.Sizeof(t))
}

// reset clears the chunks used and makes them spare, the last used (the
// largest) to be taken first.
func (l *chunkList[T]) reset() {
	for _, c := range l.used {
		clear(c[:cap(c)])
	}
	l.spare = append(l.spare, l.used...)
	clear(l.used)
	l.used = l.used[:0]
}

// chunk returns a new, empty chunk of n elements for a: an Arena's spare
// one or a new one.
func chunk[T any](a *slab, l func(*arenaChunks) *chunkList[T], n int) []T {
	if a.keep != nil {
		return l(a.keep).take(n)
	}
	return make([]T, 0, n)
}

func (a *slab) values(n int) []Value {
	if n > a.hint/2 {
		return make([]Value, n)
	}
	if len(a.vals)+n > cap(a.vals) {
		a.vals = chunk(a, func(k *arenaChunks) *chunkList[Value] { return &k.vals }, a.hint)
		a.hint = min(a.hint*2, 2048)
	}
	return carve(&a.vals, n)
}

func (a *slab) strings(n int) []string {
	if n > a.hint/4 {
		return make([]string, n)
	}
	if len(a.keys)+n > cap(a.keys) {
		a.keys = chunk(a, func(k *arenaChunks) *chunkList[string] { return &k.keys }, a.hint/2)
	}
	return carve(&a.keys, n)
}

// offsets returns n offsets of the slab's.
func (a *slab) offsets(n int) []int32 {
	if n > a.hint/4 {
		return make([]int32, n)
	}
	if len(a.offs)+n > cap(a.offs) {
		a.offs = chunk(a, func(k *arenaChunks) *chunkList[int32] { return &k.offs }, a.hint)
	}
	return carve(&a.offs, n)
}

func (a *slab) container() *Container {
	if len(a.conts) == cap(a.conts) {
		a.conts = chunk(a, func(k *arenaChunks) *chunkList[Container] { return &k.conts }, max(a.hint/4, 1))
	}
	return &carve(&a.conts, 1)[0]
}

// lazySrc returns a zero lazySrc of the slab's.
func (a *slab) lazySrc() *lazySrc {
	if len(a.lazy) == cap(a.lazy) {
		a.lazy = chunk(a, func(k *arenaChunks) *chunkList[lazySrc] { return &k.lazy }, max(a.hint/8, 1))
	}
	return &carve(&a.lazy, 1)[0]
}

// carve cuts the next n elements off a chunk that has room for them, with
// the capacity of the piece cut to its length.
func carve[T any](chunk *[]T, n int) []T {
	i := len(*chunk)
	*chunk = (*chunk)[:i+n]
	return (*chunk)[i : i+n : i+n]
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
	if p.i < len(p.s) && p.s[p.i] > ' ' {
		return // the usual case: no space between tokens
	}
	p.i = skipSpace(p.s, p.i)
}

func (p *parser) value(depth int) (Value, error) {
	if p.i >= len(p.s) {
		return Value{}, p.errf("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		if p.lazyAt > 0 && depth+1 >= p.lazyAt && depth+1 < p.lazyAt+lazySpan {
			return p.lazyContainer(depth+1, Object)
		}
		return p.object(depth + 1)
	case c == '[':
		if p.inMeta {
			if v, ok := p.annotationLeaf(); ok {
				return v, nil
			}
		}
		if p.lazyAt > 0 && depth+1 >= p.lazyAt && depth+1 < p.lazyAt+lazySpan {
			return p.lazyContainer(depth+1, Array)
		}
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
	p.skipWS()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return Value{k: Object, c: p.a.container()}, nil
	}
	kb, vb := len(p.keys), len(p.vals)
	plain := true // no index-like keys so far
	for {
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return Value{}, p.errf("expected a property name, found %s", p.what())
		}
		key, err := p.str()
		if err != nil {
			return Value{}, err
		}
		if plain && isIndexKey(key) {
			plain = false
		}
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return Value{}, p.errf("expected ':' after a property name, found %s", p.what())
		}
		p.i++
		p.skipWS()
		var val Value
		if depth == 2 && p.inMeta && key == "values" && p.i < len(p.s) && p.s[p.i] == '{' {
			// meta.values: kept as checked text, for decodeSuperJSON
			// to defer whole when it can (see deferValues).
			val, err = p.metaValues(depth + 1)
		} else if depth == 1 && key == "meta" && p.sj && !p.inMeta {
			// superjson's annotations are walked whole: no use keeping
			// them lazy. Their leaves are shared (see annotationLeaf).
			lazyAt := p.lazyAt
			p.lazyAt, p.inMeta = 0, true
			val, err = p.value(depth)
			p.lazyAt, p.inMeta = lazyAt, false
		} else {
			val, err = p.value(depth)
		}
		if err != nil {
			return Value{}, err
		}
		p.keys = append(p.keys, key)
		p.vals = append(p.vals, val)
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
			break
		}
		return Value{}, p.errf("expected ',' or '}', found %s", p.what())
	}
	keys, vals := p.keys[kb:], p.vals[vb:]
	var obj Value
	if plain && !hasDuplicate(keys) {
		c := p.a.container()
		c.Keys, c.Vals = p.a.strings(len(keys)), p.a.values(len(vals))
		copy(c.Keys, keys)
		copy(c.Vals, vals)
		obj = Value{k: Object, c: c}
	} else {
		// JavaScript order: index keys first, ascending; a repeated key
		// keeps its first place and takes its last value.
		obj = Value{k: Object, c: p.a.container()}
		for i, k := range keys {
			obj.Set(k, vals[i])
		}
	}
	clear(p.vals[vb:])
	p.keys, p.vals = p.keys[:kb], p.vals[:vb]
	return obj, nil
}

func isIndexKey(k string) bool {
	if k == "" || k[0] < '0' || k[0] > '9' {
		return false
	}
	_, ok := arrayIndex(k)
	return ok
}

func hasDuplicate(keys []string) bool {
	if len(keys) <= 24 {
		for i := 1; i < len(keys); i++ {
			for j := 0; j < i; j++ {
				if keys[i] == keys[j] {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		if _, ok := seen[k]; ok {
			return true
		}
		seen[k] = struct{}{}
	}
	return false
}

func (p *parser) array(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.errf("nesting deeper than %d", maxDepth)
	}
	p.i++ // [
	p.skipWS()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return Value{k: Array, c: p.a.container()}, nil
	}
	vb := len(p.vals)
	for {
		p.skipWS()
		v, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		p.vals = append(p.vals, v)
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
			break
		}
		return Value{}, p.errf("expected ',' or ']', found %s", p.what())
	}
	c := p.a.container()
	c.Vals = p.a.values(len(p.vals) - vb)
	copy(c.Vals, p.vals[vb:])
	clear(p.vals[vb:])
	p.vals = p.vals[:vb]
	return Value{k: Array, c: c}, nil
}

// scanNumber moves past a number, as JSON's grammar has it.
func (p *parser) scanNumber() error {
	end, bad := numberEnd(p.s, p.i)
	p.i = end
	if bad != "" {
		return p.errf("%s", bad)
	}
	return nil
}

// numberEnd returns the end of the number starting at s[i] (a '-' or a
// digit); if the text breaks JSON's grammar, it returns where and why.
func numberEnd(s string, i int) (end int, bad string) {
	if s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return i, "no digits after '-'"
	}
	if s[i] == '0' {
		i++
	} else if s[i] >= '1' && s[i] <= '9' {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	} else {
		return i, "no digits after '-'"
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return i, "no digits after the decimal point"
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return i, "no digits in the exponent"
		}
	}
	return i, ""
}

func (p *parser) number() (Value, error) {
	start := p.i
	if err := p.scanNumber(); err != nil {
		return Value{}, err
	}
	text := p.s[start:p.i]
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
	var high uint64 // the high bits of the words read: non-ASCII bytes
	// Many bytes at a time until a quote, a backslash or a control
	// character.
	if haveAVX2 && len(s) >= 32 {
		var h bool
		if p.i, h = scanPlainAVX2(s, p.i); h {
			high = 1
		}
	} else if littleEndian {
		const lo, hi = 0x0101010101010101, 0x8080808080808080
		base := unsafe.Pointer(unsafe.StringData(s))
		for p.i+8 <= len(s) {
			w := *(*uint64)(unsafe.Add(base, p.i))
			q := w ^ (lo * '"')
			bs := w ^ (lo * '\\')
			if m := ((w - lo*0x20) | (q - lo) | (bs - lo)) &^ w & hi; m != 0 {
				n := bits.TrailingZeros64(m) >> 3
				high |= w & (1<<(8*n) - 1) & hi
				p.i += n
				break
			}
			high |= w & hi
			p.i += 8
		}
	}
	for p.i < len(s) {
		c := s[p.i]
		if c == '"' {
			out := s[start:p.i]
			p.i++
			if high != 0 && !utf8.ValidString(out) {
				return ToValidUTF8(out), nil
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
			high = 1
		}
		p.i++
	}
	return "", p.errf("unterminated string")
}

// scanPlain advances from i past bytes that need no attention in a string:
// everything but '"', '\\' and control characters. Strings are checked
// and decoded run by run, and a run is short (13 bytes on average in the
// benchmark databases: keys, names, dates, the pieces between escapes),
// so this is called very often. On amd64 with AVX2 it runs in assembly,
// 32 bytes a turn, which takes two thirds fewer instructions than the
// word-at-a-time loop of scanPlainWords (the fallback).
func scanPlain(s string, i int) int {
	if haveAVX2 && len(s) >= 32 {
		i, _ = scanPlainAVX2(s, i)
		return i
	}
	return scanPlainWords(s, i)
}

// scanPlainWords is scanPlain eight bytes at a time.
func scanPlainWords(s string, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	if littleEndian {
		// The lowest flagged byte of a little-endian word is the first
		// special byte in the text: its flag is exact, borrows can only
		// flag bytes after it.
		base := unsafe.Pointer(unsafe.StringData(s))
		// Two words a turn: long strings (file contents, tool output)
		// are most of the text.
		for i+16 <= len(s) {
			w := *(*uint64)(unsafe.Add(base, i))
			v := *(*uint64)(unsafe.Add(base, i+8))
			wq, wb := w^(lo*'"'), w^(lo*'\\')
			vq, vb := v^(lo*'"'), v^(lo*'\\')
			m := ((w - lo*0x20) | (wq - lo) | (wb - lo)) &^ w & hi
			n := ((v - lo*0x20) | (vq - lo) | (vb - lo)) &^ v & hi
			if m|n != 0 {
				if m != 0 {
					return i + bits.TrailingZeros64(m)>>3
				}
				return i + 8 + bits.TrailingZeros64(n)>>3
			}
			i += 16
		}
		for i+8 <= len(s) {
			w := *(*uint64)(unsafe.Add(base, i))
			q := w ^ (lo * '"')
			bs := w ^ (lo * '\\')
			if m := ((w - lo*0x20) | (q - lo) | (bs - lo)) &^ w & hi; m != 0 {
				return i + bits.TrailingZeros64(m)>>3
			}
			i += 8
		}
	}
	for i < len(s) {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 {
			return i
		}
		i++
	}
	return i
}

// littleEndian is whether words load least significant byte first.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// rawStringEnd returns the index of the closing quote of the string whose
// body continues at i, or len(s).
func rawStringEnd(s string, i int) int {
	for i < len(s) {
		i = scanPlain(s, i)
		if i >= len(s) || s[i] == '"' {
			return i
		}
		if s[i] == '\\' {
			i += 2
			continue
		}
		i++ // a control character: reported by strSlow
	}
	return len(s)
}

func (p *parser) strSlow(start int) (string, error) {
	s := p.s
	// The unescaped text is never longer than the raw one.
	b := make([]byte, 0, rawStringEnd(s, p.i)-start)
	if run := s[start:p.i]; utf8.ValidString(run) {
		b = append(b, run...)
	} else {
		b = append(b, ToValidUTF8(run)...)
	}
	for p.i < len(s) {
		if j := scanPlain(s, p.i); j > p.i {
			// Raw runs end at ASCII bytes, so no character is split; the
			// lone surrogates of \u escapes are added below, never
			// "repaired" here.
			if run := s[p.i:j]; utf8.ValidString(run) {
				b = append(b, run...)
			} else {
				b = append(b, ToValidUTF8(run)...)
			}
			p.i = j
			if p.i >= len(s) {
				break
			}
		}
		c := s[p.i]
		switch {
		case c == '"':
			p.i++
			return unsafe.String(unsafe.SliceData(b), len(b)), nil
		case c < 0x20:
			return "", p.errf("control character U+%04X in a string", c)
		}
		// A backslash.
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

// ToValidUTF8 decodes bytes the way Node's UTF-8 decoder does (the WHATWG
// decoder): each maximal ill-formed subsequence becomes one U+FFFD, so a
// surrogate encoded in UTF-8 (ED A0..BF xx) gives three. Valid text is
// returned as it is, without copying. Go's strings.ToValidUTF8 (one U+FFFD
// for a run of bad bytes) and utf8.DecodeRune (one per byte) both differ.
func ToValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
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
