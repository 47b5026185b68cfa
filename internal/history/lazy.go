package history

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Lazy decoding.
//
// A tool call's output, a file's text or an edit's old and new strings are
// most of a stagewise message's bytes, and most of them are never read: the
// serializer looks at a handful of fields. ParseJSONLazy checks the whole
// text as JSON.parse would, but builds only the outer levels; an object or
// array nested deeper is kept as its JSON text and decoded the first time
// one of its members is read (by any accessor: Get, Keys, Elems,
// AppendJSON, ...). The values are the same as ParseJSON's, key order,
// duplicate keys, lone surrogates and invalid UTF-8 included; only the work
// moves. Decoding on first use is safe from several goroutines.

// lazySpan is how many levels stay lazy: from lazyAt to lazyAt+lazySpan-1.
// Deeper containers are decoded with their lazy ancestor. Every level of
// laziness scans its text once more when it is decoded, so the span keeps
// a deeply nested text (up to maxDepth) linear.
const lazySpan = 4

// lazySrc is the text of a container not decoded yet.
type lazySrc struct {
	raw    string // the object or array, from its bracket to its bracket
	ar     *Arena // an owned arena to decode into, or nil
	depth  int    // its nesting depth (the outermost value's members are at 1)
	lazyAt int    // the depth from which its own members stay lazy
	once   sync.Once
	// pending are the superjson annotations that reach into the
	// container, in the order they came, applied when it is decoded.
	pending []pendingAnnotation
	segs    []string // the pending paths, end to end
	// meta is set for a container of a superjson payload's meta: it is
	// decoded with shared annotation leaves.
	meta bool
	// uniq is set for an object known to have no repeated key (at most
	// maxUniqKeys plain ASCII keys, all different). keys are then its
	// keys, and at the offsets of their values in raw: a member is read
	// from the text without looking for it.
	uniq bool
	keys []string
	at   []int32
	// ann is a whole meta.values tree (the source of its container, a
	// simple one) waiting for this container (the payload's json) to be
	// decoded: every annotation is "Date" or "undefined", on paths
	// without an escape or a forbidden key, so applying it cannot fail
	// and can wait until the json value is first read. annLegacy is the
	// payload's version below 1.
	ann       *lazySrc
	annLegacy bool
	// simple is set for a meta.values tree that can wait whole (see
	// scanSimpleValues); first lists its paths' first segments.
	simple bool
	first  []string
}

// touches reports whether a pending annotation may change member k.
func (l *lazySrc) touches(k string) bool {
	for _, pa := range l.pending {
		if l.segs[pa.from] == k {
			return true
		}
	}
	if l.ann != nil {
		for _, f := range l.ann.first { // a member named otherwise is untouched
			if f == k {
				return true
			}
		}
	}
	return false
}

// deferValues attaches the meta.values tree vl (a lazy object) to the lazy
// json value l when the tree is simple (see scanSimpleValues); otherwise
// it answers no, and the caller applies the tree at once, the ordinary way.
func deferValues(l, vl *lazySrc, legacy bool) bool {
	if !vl.simple || len(l.pending) > 0 || l.ann != nil {
		return false
	}
	l.ann, l.annLegacy = vl, legacy
	return true
}

// scanSimpleValues checks, in one pass, a meta.values tree at s[i:] that is
// an object of ["Date"] and ["undefined"] leaves whose keys are printable
// ASCII without an escape or a key superjson refuses. For such a tree it
// returns the end of the object and the first segment of every path; for
// anything else (another tree, or text that is not JSON) ok is false and
// the ordinary checker takes over. The segments are carved from a.
func scanSimpleValues(s string, i int, a *slab) (end int, first []string, ok bool) {
	// The first segments are few (createdAt, partsMetadata): they are
	// gathered here and carved from a's chunks at the end.
	var buf [8]string
	n := 0
	var more []string     // past eight
	last := "\x00"        // the first segment of the last path: none yet
	i = skipSpace(s, i+1) // {
	if i < len(s) && s[i] == '}' {
		return i + 1, nil, true
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return 0, nil, false
		}
		// The key ends at its quote: an escape or a control character
		// stops the scan first, and a byte past ASCII is found a word at
		// a time. Every key superjson refuses has an 'o'.
		ks := i + 1
		var high bool
		if haveAVX2 && len(s) >= 32 {
			i, high = scanPlainAVX2(s, ks)
		} else {
			i = scanPlainWords(s, ks)
			high = i < len(s) && !isASCII(s[ks:i])
		}
		if i >= len(s) || s[i] != '"' || high {
			return 0, nil, false
		}
		key := s[ks:i]
		if strings.IndexByte(key, 'o') >= 0 {
			for _, bad := range [...]string{"__proto__", "prototype", "constructor"} {
				if strings.Contains(key, bad) {
					return 0, nil, false
				}
			}
		}
		// Paths come grouped (partsMetadata.0.startedAt,
		// partsMetadata.0.endedAt, ...): most start with the last first
		// segment seen.
		if !(len(key) > len(last) && key[len(last)] == '.' && key[:len(last)] == last) && key != last {
			f := key
			if dot := strings.IndexByte(key, '.'); dot >= 0 {
				f = key[:dot]
			}
			if !slices.Contains(buf[:n], f) && !slices.Contains(more, f) {
				if n < len(buf) {
					buf[n] = f
					n++
				} else {
					more = append(more, f)
				}
			}
			last = f
		}
		i = skipSpace(s, i+1)
		if i >= len(s) || s[i] != ':' {
			return 0, nil, false
		}
		i = skipSpace(s, i+1)
		switch {
		case strings.HasPrefix(s[i:], `["Date"]`):
			i += len(`["Date"]`)
		case strings.HasPrefix(s[i:], `["undefined"]`):
			i += len(`["undefined"]`)
		default:
			return 0, nil, false
		}
		i = skipSpace(s, i)
		if i >= len(s) {
			return 0, nil, false
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case '}':
			first = a.strings(n + len(more))
			copy(first, buf[:n])
			copy(first[n:], more)
			return i + 1, first, true
		default:
			return 0, nil, false
		}
	}
}

// metaValues parses meta.values, an object at p.i: a simple tree (see
// scanSimpleValues) is checked and read in one pass and kept as text, ready
// to wait whole for the json value; any other is kept as checked text.
func (p *parser) metaValues(depth int) (Value, error) {
	end, first, ok := scanSimpleValues(p.s, p.i, &p.a)
	if !ok {
		return p.lazyContainer(depth, Object)
	}
	c := p.a.container()
	l := p.a.lazySrc()
	l.raw, l.depth, l.lazyAt, l.meta, l.simple, l.first, l.ar = p.s[p.i:end], depth, p.lazyAt, true, true, first, p.ar
	c.lz.Store(l)
	p.i = end
	return Value{k: Object, c: c}, nil
}

// pendingAnnotation is a "Date" or "undefined" annotation (typ) for the
// value at path inside a lazy container. Those two cannot fail and, on
// plain objects and arrays, neither can the walk to them, so applying
// them later, on first read, gives the same value and the same errors.
type pendingAnnotation struct {
	from, to int // the path: segs[from:to]
	typ      Value
}

// deferInto walks path from root through arrays and plain objects; if it
// meets a lazy container before the last step, it records the annotation
// typ there and reports true. Otherwise nothing changes and the caller
// applies the annotation at once.
func deferInto(root Value, path []string, typ Value) bool {
	parent := root
	for i, key := range path {
		if parent.k != Array && parent.k != Object {
			return false
		}
		if l := parent.c.lz.Load(); l != nil {
			from := len(l.segs)
			l.segs = append(l.segs, path[i:]...)
			l.pending = append(l.pending, pendingAnnotation{from: from, to: len(l.segs), typ: typ})
			return true
		}
		if i == len(path)-1 {
			return false
		}
		if parent.k == Array {
			parent = arrayElem(parent, key)
		} else {
			parent = parent.Get(key)
		}
	}
	return false
}

// materialize decodes l, already checked, into c.
func (c *Container) materialize(l *lazySrc) {
	p := parserPool.Get().(*parser)
	p.s, p.i, p.lazyAt, p.inMeta, p.checked = l.raw, 0, l.lazyAt, l.meta, true
	// In an owned arena (l.ar), the values go to the arena's memory.
	lent := l.ar.lend(p, len(l.raw))
	var v Value
	var err error
	if l.raw[0] == '{' {
		v, err = p.object(l.depth)
	} else {
		v, err = p.array(l.depth)
	}
	l.ar.takeBack(p, lent)
	p.s, p.lazyAt, p.inMeta, p.checked = "", 0, false, false
	parserPool.Put(p)
	if err != nil {
		// The text was checked when it was first seen.
		panic("history: a checked JSON text failed to decode: " + err.Error())
	}
	// v is not lazy, so the walks below do not come back here.
	for _, pa := range l.pending {
		if _, err := setDeep(v, l.segs[pa.from:pa.to], func(x Value) (Value, error) { return untransform(x, pa.typ) }); err != nil {
			panic("history: a deferred annotation failed: " + err.Error())
		}
	}
	if a := l.ann; a != nil {
		tree, err := parseJSONIn(l.ar, a.raw, 0, false)
		if err == nil {
			d := decoder{legacy: l.annLegacy}
			_, err = d.applyValues(v, tree)
		}
		if err != nil {
			panic("history: deferred annotations failed: " + err.Error())
		}
	}
	c.Keys, c.Vals, c.x = v.c.Keys, v.c.Vals, v.c.x
	c.lz.Store(nil)
}

// ParseJSONLazy is ParseJSON, except that objects and arrays nested at
// depth lazyAt or deeper (the top-level value's members are at depth 1,
// theirs at 2, ...) are decoded on first use; from depth lazyAt+lazySpan
// on, they are decoded with their lazy ancestor. A lazyAt below 1 is
// ParseJSON.
func ParseJSONLazy(text string, lazyAt int) (Value, error) {
	return parseJSON(text, max(lazyAt, 0), false)
}

// errSkip is the checker's "no": ParseJSON finds the real error.
var errSkip = errors.New("invalid JSON")

// lazyContainer checks the object or array at p.i and keeps its text.
func (p *parser) lazyContainer(depth int, k Kind) (Value, error) {
	start := p.i
	var err error
	var keys uniqKeys
	switch {
	case p.checked && k == Object:
		p.i = objectEndChecked(p.s, p.i, &keys)
	case p.checked:
		p.i = containerEndChecked(p.s, p.i)
	case k == Object:
		if end := checkObjectKeys(p.s, p.i, depth, &keys); end < 0 {
			err = errSkip
		} else {
			p.i = end
		}
	default:
		if end := checkArray(p.s, p.i, depth); end < 0 {
			err = errSkip
		} else {
			p.i = end
		}
	}
	if err != nil {
		return Value{}, err
	}
	c := p.a.container()
	l := p.a.lazySrc()
	l.raw, l.depth, l.lazyAt, l.meta, l.ar = p.s[start:p.i], depth, p.lazyAt, p.inMeta, p.ar
	if k == Object && !keys.no {
		l.uniq = true
		if keys.n > 0 {
			l.keys, l.at = p.a.strings(keys.n), p.a.offsets(keys.n)
			copy(l.keys, keys.seen[:keys.n])
			for j, a := range keys.at[:keys.n] {
				l.at[j] = a - int32(start)
			}
		}
	}
	c.lz.Store(l)
	return Value{k: k, c: c}, nil
}

// The checker: JSON.parse's grammar, building nothing. It works on the
// text and an offset held in locals (the parser's fields would be loaded
// and stored around every call); each function returns the offset after
// what it checked, or -1 where the text is not valid JSON.

func skipSpace(s string, i int) int {
	if i < len(s) && s[i] > ' ' {
		return i // the usual case: no space between tokens
	}
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func checkValue(s string, i, depth int) int {
	if i >= len(s) {
		return -1
	}
	switch c := s[i]; {
	case c == '"':
		return checkString(s, i)
	case c == '{':
		return checkObject(s, i, depth+1)
	case c == '[':
		return checkArray(s, i, depth+1)
	case c == '-' || (c >= '0' && c <= '9'):
		return checkNumber(s, i)
	case c == 't':
		return checkLit(s, i, "true")
	case c == 'f':
		return checkLit(s, i, "false")
	case c == 'n':
		return checkLit(s, i, "null")
	}
	return -1
}

func checkLit(s string, i int, word string) int {
	if len(s)-i >= len(word) && s[i:i+len(word)] == word {
		return i + len(word)
	}
	return -1
}

func checkNumber(s string, i int) int {
	end, bad := numberEnd(s, i)
	if bad != "" {
		return -1
	}
	return end
}

// checkKey is checkString for an object's key; plain reports whether the
// key's text is printable ASCII without an escape (plainASCII), which the
// AVX2 scan finds out on the way.
func checkKey(s string, i int) (end int, plain bool) {
	if haveAVX2 && len(s) >= 32 {
		if j, high := scanPlainAVX2(s, i+1); j < len(s) && s[j] == '"' {
			return j + 1, !high
		}
		return checkString(s, i), false // an escape, or an error
	}
	end = checkString(s, i)
	return end, end >= 0 && plainASCII(s[i+1:end-1])
}

func checkString(s string, i int) int {
	i++ // "
	if haveAVX2 && len(s) >= 32 {
		for {
			end, st := checkStringAVX2(s, i)
			if st != 2 {
				return end // past the closing quote, or -1
			}
			if _, ok := hex4(s, end+2); !ok {
				return -1
			}
			i = end + 6
		}
	}
	for {
		i = scanPlainWords(s, i)
		if i >= len(s) {
			return -1
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		}
		// A backslash.
		if i+1 >= len(s) {
			return -1
		}
		switch s[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if _, ok := hex4(s, i+2); !ok {
				return -1
			}
			i += 6
		default:
			return -1
		}
	}
}

func checkObject(s string, i, depth int) int {
	return checkObjectKeys(s, i, depth, nil)
}

func checkArray(s string, i, depth int) int {
	if depth > maxDepth {
		return -1
	}
	i = skipSpace(s, i+1) // [
	if i < len(s) && s[i] == ']' {
		return i + 1
	}
	for {
		i = skipSpace(s, i)
		if i = checkValue(s, i, depth); i < 0 {
			return -1
		}
		i = skipSpace(s, i)
		if i >= len(s) {
			return -1
		}
		switch s[i] {
		case ',':
			i++
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// checkObjectKeys checks an object. With keys, it also follows them (see
// uniqKeys): whether the object is known to have no repeated key, and
// where each value starts.
func checkObjectKeys(s string, i, depth int, keys *uniqKeys) int {
	if depth > maxDepth {
		return -1
	}
	i = skipSpace(s, i+1) // {
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	for {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '"' {
			return -1
		}
		ks := i + 1
		var plain bool
		if keys != nil {
			i, plain = checkKey(s, i)
		} else {
			i = checkString(s, i)
		}
		if i < 0 {
			return -1
		}
		key := s[ks : i-1]
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != ':' {
			return -1
		}
		i = skipSpace(s, i+1)
		if keys != nil {
			keys.addKnown(key, i, plain)
		}
		if i = checkValue(s, i, depth); i < 0 {
			return -1
		}
		i = skipSpace(s, i)
		if i >= len(s) {
			return -1
		}
		switch s[i] {
		case ',':
			i++
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// maxUniqKeys bounds the keys skipObjectKeys compares.
const maxUniqKeys = 8

// uniqKeys follows an object's keys to tell whether it is known to have
// no repeated key: at most maxUniqKeys keys, each plain ASCII (no escape,
// so that different texts are different keys), all different. at holds
// the offset of each key's value.
type uniqKeys struct {
	seen [maxUniqKeys]string
	at   [maxUniqKeys]int32
	n    int
	no   bool // not known: too many keys, an escaped one, or a repeat
}

// add follows key, whose value starts at offset at.
func (u *uniqKeys) add(key string, at int) {
	if !u.no {
		u.addKnown(key, at, plainASCII(key))
	}
}

// addKnown is add for a key already known to be plain or not (see
// plainASCII).
func (u *uniqKeys) addKnown(key string, at int, plain bool) {
	if u.no {
		return
	}
	if u.n == maxUniqKeys || at > math.MaxInt32 || !plain {
		u.no = true
		return
	}
	for _, k := range u.seen[:u.n] {
		if k == key {
			u.no = true
			return
		}
	}
	u.seen[u.n], u.at[u.n] = key, int32(at)
	u.n++
}

// isASCII reports whether s has no byte past 0x7F.
func isASCII(s string) bool {
	const hi = 0x8080808080808080
	i := 0
	if littleEndian {
		base := unsafe.Pointer(unsafe.StringData(s))
		var acc uint64
		for ; i+8 <= len(s); i += 8 {
			acc |= *(*uint64)(unsafe.Add(base, i))
		}
		if acc&hi != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// plainASCII reports whether a string's JSON text is printable ASCII
// without an escape: the text is the string. Eight bytes at a time: a
// byte past ASCII sets its high bit, a backslash or a control character
// makes a byte of w^'\\' or of w-0x20 borrow.
func plainASCII(s string) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	if littleEndian {
		base := unsafe.Pointer(unsafe.StringData(s))
		for ; i+8 <= len(s); i += 8 {
			w := *(*uint64)(unsafe.Add(base, i))
			bs := w ^ (lo * '\\')
			if (w|(w-lo*0x20)|(bs-lo)&^bs)&hi != 0 {
				return false
			}
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

// annotationLeaves are the one-element arrays superjson writes for most
// annotations (["Date"], ["undefined"], ...), decoded once: a payload's
// meta is only read, never handed out, so its leaves can be shared.
var annotationLeaves = func() map[string]Value {
	m := map[string]Value{}
	for _, name := range []string{"Date", "undefined", "bigint", "set", "map", "regexp", "Error", "URL", "number"} {
		m[`["`+name+`"]`] = NewArray([]Value{StringValue(name)})
	}
	return m
}()

var dateLeaf = annotationLeaves[`["Date"]`]

// annotationLeaf returns the shared value of the annotation leaf at p.i, if
// it is one.
func (p *parser) annotationLeaf() (Value, bool) {
	rest := p.s[p.i:]
	if len(rest) >= 8 && rest[:8] == `["Date"]` {
		p.i += 8
		return dateLeaf, true
	}
	// The longest leaf is ["undefined"]: 13 bytes.
	end := strings.IndexByte(rest[:min(len(rest), 14)], ']')
	if end < 0 {
		return Value{}, false
	}
	v, ok := annotationLeaves[rest[:end+1]]
	if ok {
		p.i += end + 1
	}
	return v, ok
}

// lazyGet reads member k of the lazy object l without decoding the object:
// ok is true when k is absent (undefined) or its value is a string, number,
// boolean or null. A member that is an object or array has an identity, so
// for it (ok false) the caller decodes the object once and for all.
// Like JSON.parse, the last of repeated keys wins. An object with few,
// plain, different keys has them noted with their values' offsets (uniq);
// any other is searched.
func lazyGet(l *lazySrc, k string) (v Value, ok bool) {
	if l.uniq {
		// The keys were noted while checking: no text to search. A k
		// that is not one of these plain keys is absent.
		for j, key := range l.keys {
			if key != k {
				continue
			}
			at := int(l.at[j])
			if c := l.raw[at]; c == '{' || c == '[' {
				return Value{}, false
			}
			return lazyScalar(l, at)
		}
		return Value{}, true
	}
	if strings.IndexByte(l.raw, '\\') < 0 && !strings.Contains(l.raw, k) && isASCII(k) {
		// Without an escape, a member named k shows k in the text (an
		// ASCII name: invalid UTF-8 in the text decodes to U+FFFD).
		return Value{}, true
	}
	p := parserPool.Get().(*parser)
	p.s, p.i, p.lazyAt = l.raw, 1, 0 // past the {
	p.a.reset(0)
	defer func() {
		p.s = ""
		parserPool.Put(p)
	}()
	at := -1
	s := l.raw
	for {
		p.skipWS()
		if p.i >= len(s) || s[p.i] == '}' {
			break
		}
		// A key: compare it without unescaping when it has no escape.
		ks := p.i + 1
		end := stringEndChecked(s, ks-1) - 1 // the closing quote
		var key string
		if strings.IndexByte(s[ks:end], '\\') < 0 {
			key = s[ks:end]
			if !utf8.ValidString(key) {
				key = ToValidUTF8(key)
			}
			p.i = end + 1
		} else {
			var err error
			if key, err = p.str(); err != nil {
				return Value{}, false
			}
		}
		p.skipWS()
		p.i++ // :
		p.skipWS()
		if key == k {
			if c := s[p.i]; c == '{' || c == '[' {
				// It will be decoded with the object: no need to read
				// on (a later repeated key is the object's business).
				return Value{}, false
			}
			at = p.i // a later repeated key takes its place
		}
		p.i = skipChecked(s, p.i)
		p.skipWS()
		if p.i < len(s) && s[p.i] == ',' {
			p.i++
		}
	}
	if at < 0 {
		return Value{}, true
	}
	p.i = at
	m, err := p.value(l.depth)
	if err != nil {
		return Value{}, false
	}
	return m, true
}

// lazyScalar decodes the string, number, boolean or null at offset at of
// l's text.
func lazyScalar(l *lazySrc, at int) (Value, bool) {
	p := parserPool.Get().(*parser)
	p.s, p.i, p.lazyAt = l.raw, at, 0
	m, err := p.value(l.depth)
	p.s = ""
	parserPool.Put(p)
	if err != nil {
		return Value{}, false
	}
	return m, true
}

// lazyLen counts the elements of the lazy array l in its text.
func lazyLen(l *lazySrc) int {
	p := parserPool.Get().(*parser)
	p.s, p.i = l.raw, 1 // past the [
	defer func() {
		p.s = ""
		parserPool.Put(p)
	}()
	n := 0
	for {
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] == ']' {
			return n
		}
		p.i = skipChecked(p.s, p.i)
		n++
		p.skipWS()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
		}
	}
}

// Skipping text already checked (a lazy container's, when it is decoded or
// read): the grammar is known to hold, so only the ends matter, and a
// string's end is found by searching for its quote.

// skipChecked returns the end of the value at s[i] in checked text.
func skipChecked(s string, i int) int {
	switch s[i] {
	case '"':
		return stringEndChecked(s, i)
	case '{', '[':
		return containerEndChecked(s, i)
	}
	for i < len(s) { // a number or a literal
		switch s[i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// stringEndChecked returns the end of the string whose opening quote is at
// s[i], in checked text: the first quote after it that an even number of
// backslashes precedes.
func stringEndChecked(s string, i int) int {
	j := i + 1
	for {
		q := j + strings.IndexByte(s[j:], '"')
		b := q - 1
		for b > i && s[b] == '\\' {
			b--
		}
		if (q-1-b)%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// containerEndChecked returns the end of the object or array at s[i], in
// checked text.
func containerEndChecked(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch s[i] {
		case '"':
			i = stringEndChecked(s, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return i
}

// objectEndChecked is containerEndChecked for an object, also reporting
// whether it is known to have no repeated key (as checkObjectKeys does).
func objectEndChecked(s string, i int, keys *uniqKeys) int {
	i = skipSpace(s, i+1) // {
	if s[i] == '}' {
		return i + 1
	}
	for {
		ks := skipSpace(s, i) + 1
		i = stringEndChecked(s, ks-1)
		key := s[ks : i-1]
		i = skipSpace(s, skipSpace(s, i)+1) // past the colon
		keys.add(key, i)
		i = skipSpace(s, skipChecked(s, i))
		if s[i] == '}' {
			return i + 1
		}
		i++ // ,
	}
}
