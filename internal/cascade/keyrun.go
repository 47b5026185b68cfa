package cascade

import (
	"encoding/base64"
	"encoding/hex"
	"html"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// This file is the part of Redactor that finds pieces of keys: any run of
// gramLen or more of a key's characters (letter case ignored), in the text
// as it is and as it reads once invisible characters are removed and HTML
// entities, JSON/JavaScript escapes and URL escapes are decoded (up to
// maxLayers times: an escape of an escape), and the base64 (standard and
// URL alphabets, at any byte offset) and hex encodings of any gramLen of a
// key's characters.
//
// The search is linear in the text. Each searcher looks only at runs of
// the bytes its pieces are made of; each window of a run goes through a
// rolling hash, a 64 Kbit filter, and on a hit a set of the pieces. The
// encodings are found without decoding anything: the pieces are encoded
// instead (the base64 digits that depend on a gram's bytes alone, at each
// of the three byte offsets; its hex digits).

// gramLen is the shortest run of a key's characters that is redacted: any
// 12 characters of a key in a row are taken for the key. A key shorter
// than that is matched whole.
const gramLen = 12

// b64Len is the number of base64 digits that depend on gramLen bytes
// alone, whatever their offset in the stream (15 or 16 of them: the first
// 15 are looked for); hexLen the hex digits of gramLen bytes.
const (
	b64Len = (8*gramLen - 4) / 6
	hexLen = 2 * gramLen
)

// maxLayers bounds the decoding rounds: an entity inside a JSON escape
// inside a URL escape is decoded, a fifth level is not.
const maxLayers = 4

// Byte maps applied to the text and the pieces before comparing them.
var (
	// fold is ASCII lower case.
	fold = func() (t [256]byte) {
		for i := range t {
			t[i] = byte(i)
			if 'A' <= i && i <= 'Z' {
				t[i] = byte(i + 'a' - 'A')
			}
		}
		return t
	}()
	// b64Fold takes the URL alphabet's digits to the standard one's.
	b64Fold = func() (t [256]byte) {
		for i := range t {
			t[i] = byte(i)
		}
		t['-'], t['_'] = '+', '/'
		return t
	}()
)

const (
	filterBits = 16
	hashMul    = 0x100000001b3 // the FNV-1 64-bit prime
	filterMix  = 0x9e3779b97f4a7c15
	maxPiece   = hexLen
)

// gramSet is pieces of one length n, mapped.
type gramSet struct {
	n      int
	grams  map[string]struct{}
	filter [1 << filterBits / 64]uint64
	// pow is hashMul^(n-1), to take the first byte out of a window.
	pow uint64
}

// searcher finds pieces in text after mapping its bytes through fold.
type searcher struct {
	fold *[256]byte
	// in marks the mapped bytes of the pieces.
	in [256]bool
	// sets by n, ascending.
	sets []*gramSet
}

func newSearcher(fold *[256]byte) *searcher { return &searcher{fold: fold} }

// add adds piece (at most maxPiece bytes).
func (s *searcher) add(piece string) {
	n := len(piece)
	var g *gramSet
	for _, x := range s.sets {
		if x.n == n {
			g = x
		}
	}
	if g == nil {
		g = &gramSet{n: n, grams: map[string]struct{}{}, pow: 1}
		for i := 1; i < n; i++ {
			g.pow *= hashMul
		}
		s.sets = append(s.sets, g)
		slices.SortFunc(s.sets, func(a, b *gramSet) int { return a.n - b.n })
	}
	var buf [maxPiece]byte
	var h uint64
	for i := 0; i < n; i++ {
		c := s.fold[piece[i]]
		buf[i] = c
		s.in[c] = true
		h = h*hashMul + uint64(c)
	}
	g.grams[string(buf[:n])] = struct{}{}
	f := (h * filterMix) >> (64 - filterBits)
	g.filter[f/64] |= 1 << (f % 64)
}

// scan calls mark for ranges of b covered by windows that are pieces,
// overlapping and touching windows of one length merged; the ranges may
// overlap and come in any order.
//
// It reads only b and the searcher, which nothing writes once made: the
// race detector's checks of every byte (ten times slower on the megabytes
// of an answer) are left out.
//
//go:norace
func (s *searcher) scan(b []byte, mark func(i, j int)) {
	if len(s.sets) == 0 {
		return
	}
	fold := s.fold
	var buf [maxPiece]byte
	for rs := 0; rs < len(b); {
		if !s.in[fold[b[rs]]] {
			rs++
			continue
		}
		re := rs + 1
		for re < len(b) && s.in[fold[b[re]]] {
			re++
		}
		for _, g := range s.sets {
			n := g.n
			if re-rs < n {
				break // the sets are ascending
			}
			curI, curJ := -1, -1
			var h uint64
			for k := rs; k < rs+n; k++ {
				h = h*hashMul + uint64(fold[b[k]])
			}
			for i := rs; ; i++ {
				f := (h * filterMix) >> (64 - filterBits)
				if g.filter[f/64]&(1<<(f%64)) != 0 {
					for k := 0; k < n; k++ {
						buf[k] = fold[b[i+k]]
					}
					if _, ok := g.grams[string(buf[:n])]; ok {
						if curJ >= 0 && i > curJ {
							mark(curI, curJ)
							curJ = -1
						}
						if curJ < 0 {
							curI = i
						}
						curJ = i + n
					}
				}
				if i+n >= re {
					break
				}
				h = (h-uint64(fold[b[i]])*g.pow)*hashMul + uint64(fold[b[i+n]])
			}
			if curJ >= 0 {
				mark(curI, curJ)
			}
		}
		rs = re
	}
}

// keyMatcher finds pieces of keys.
type keyMatcher struct {
	// plain: every gramLen characters of each key (a shorter key whole),
	// letter case ignored.
	plain *searcher
	// b64 and hex: the encodings of every gramLen characters of each key
	// of gramLen or more (as it is, in lower case, in upper case). A short
	// key is not looked for there: a few of its bytes turn up anywhere.
	b64, hex *searcher
}

func newKeyMatcher(keys []string) *keyMatcher {
	m := &keyMatcher{plain: newSearcher(&fold), b64: newSearcher(&b64Fold), hex: newSearcher(&fold)}
	for _, k := range keys {
		if k == "" {
			continue
		}
		n := min(len(k), gramLen)
		for i := 0; i+n <= len(k); i++ {
			m.plain.add(k[i : i+n])
		}
		if len(k) < gramLen {
			continue
		}
		for _, v := range []string{k, strings.ToLower(k), strings.ToUpper(k)} {
			for i := 0; i+gramLen <= len(v); i++ {
				g := []byte(v[i : i+gramLen])
				m.hex.add(hex.EncodeToString(g))
				for off := 0; off < 3; off++ {
					enc := base64.RawStdEncoding.EncodeToString(append(make([]byte, off), g...))
					c0 := (8*off + 5) / 6 // the first digit of g's bytes alone
					m.b64.add(enc[c0 : c0+b64Len])
				}
			}
		}
	}
	return m
}

// span is a range [i, j) of the original text.
type span struct{ i, j int }

// find returns the ranges of text to redact, sorted and merged.
func (m *keyMatcher) find(text string) []span {
	if len(m.plain.sets) == 0 || text == "" {
		return nil
	}
	var spans []span
	v := &view{b: []byte(text)}
	for layer := 0; v != nil; layer++ {
		cur := v
		add := func(i, j int) {
			a, b := cur.origin(i, j)
			spans = append(spans, span{a, b})
		}
		m.plain.scan(cur.b, add)
		// An encoding goes whole: the run of base64 digits (either
		// alphabet, hex digits among them) around it, and its padding.
		// Each run is walked once, however many pieces it holds.
		runI, runJ := -1, -1
		encoded := func(i, j int) {
			if runI <= i && j <= runJ {
				return
			}
			for i > 0 && b64Digit(cur.b[i-1]) {
				i--
			}
			for j < len(cur.b) && b64Digit(cur.b[j]) {
				j++
			}
			for k := 0; k < 2 && j < len(cur.b) && cur.b[j] == '='; k++ {
				j++
			}
			runI, runJ = i, j
			add(i, j)
		}
		m.b64.scan(cur.b, encoded)
		m.hex.scan(cur.b, encoded)
		if layer+1 >= maxLayers {
			break
		}
		v = cur.decode(m)
	}
	if len(spans) == 0 {
		return nil
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].i < spans[b].i })
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.i <= last.j {
			last.j = max(last.j, s.j)
			continue
		}
		out = append(out, s)
	}
	return out
}

func b64Digit(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// hexVal is the value of a hex digit, -1 for other bytes.
var hexVal = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = int8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c], t[c-'a'+'A'] = int8(c-'a'+10), int8(c-'a'+10)
	}
	return t
}()

// Decoding.

// view is the text, or a decoding of its parent view: edits says which
// bytes came from which escapes; bytes between edits are the parent's.
type view struct {
	b      []byte
	edits  []edit
	parent *view
}

// edit: the parent's bytes [o, o+olen) read as b[v : v+vlen] (vlen 0: an
// invisible character dropped).
type edit struct{ v, vlen, o, olen int }

// at is the last edit at or before view byte x, or nil.
func (v *view) at(x int) *edit {
	k := sort.Search(len(v.edits), func(k int) bool { return v.edits[k].v > x })
	if k == 0 {
		return nil
	}
	return &v.edits[k-1]
}

// toParent is the parent range of view range [i, j), j > i.
func (v *view) toParent(i, j int) (int, int) {
	var a, b int
	if e := v.at(i); e == nil {
		a = i
	} else if i < e.v+e.vlen {
		a = e.o
	} else {
		a = e.o + e.olen + (i - e.v - e.vlen)
	}
	last := j - 1
	if e := v.at(last); e == nil {
		b = last + 1
	} else if last < e.v+e.vlen {
		b = e.o + e.olen
	} else {
		b = e.o + e.olen + (last - e.v - e.vlen) + 1
	}
	return a, b
}

// origin is the range of the original text that view range [i, j) came
// from.
func (v *view) origin(i, j int) (int, int) {
	for ; v.parent != nil; v = v.parent {
		i, j = v.toParent(i, j)
	}
	return i, j
}

// decode is the next view: v with invisible characters removed and one
// level of escapes decoded; nil when there is nothing to decode.
//
// An escape is decoded only when what it stands for is of use: a
// character some key of m holds, a base64 or hex digit, an invisible one
// (dropped), or one that makes an escape of the next level (& # ; \ % { })
// or base64 padding. The others stay as they are written, so that an
// escape glued to a key by accident (the text "&#" or "%" or "\x" just
// before it) does not eat the key's first characters: "%ab12…" and
// "&#3-W…" stay, "%41" is A.
//
// Like scan, it reads only v and what nothing writes (the race detector
// is left out).
//
//go:norace
func (v *view) decode(m *keyMatcher) *view {
	b := v.b
	var out []byte
	var edits []edit
	last := 0 // b[last:i] is yet to be copied
	emit := func(i, olen int, repl []byte) {
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(out, b[last:i]...)
		edits = append(edits, edit{v: len(out), vlen: len(repl), o: i, olen: olen})
		out = append(out, repl...)
		last = i + olen
	}
	useful := func(r rune) bool {
		if r >= utf8.RuneSelf {
			return invisible(r)
		}
		c := byte(r)
		return m.plain.in[fold[c]] || b64Digit(c) || strings.IndexByte("&#;\\%{}=", c) >= 0
	}
	var rb [utf8.UTFMax]byte
	// emitRune decodes the escape b[i:i+olen] as r when that is of use.
	emitRune := func(i, olen int, r rune) bool {
		r = foldRune(r)
		switch {
		case invisible(r):
			emit(i, olen, nil)
		case useful(r):
			n := utf8.EncodeRune(rb[:], r)
			emit(i, olen, rb[:n])
		default:
			return false
		}
		return true
	}
	for i := 0; i < len(b); {
		c := b[i]
		if !decodeStart[c] {
			i++
			continue
		}
		n := 0
		switch {
		case c == '&':
			if r, s, k := entity(b[i:]); k > 0 {
				if s == "" {
					if emitRune(i, k, r) {
						n = k
					}
				} else if strings.IndexFunc(s, func(r rune) bool { return !useful(r) }) < 0 {
					emit(i, k, []byte(strings.Map(func(r rune) rune {
						if invisible(r) {
							return -1
						}
						return r
					}, s)))
					n = k
				}
			}
		case c == '\\':
			if r, k := backslash(b[i:]); k > 0 && emitRune(i, k, r) {
				n = k
			}
		case c == '%':
			if r, k := percent(b[i:]); k > 0 && emitRune(i, k, r) {
				n = k
			}
		case c >= 0xC2:
			r, k := utf8.DecodeRune(b[i:])
			if f := foldRune(r); f != r || invisible(r) {
				emitRune(i, k, f)
			}
			n = k
		}
		if n == 0 {
			n = 1
		}
		i += n
	}
	if edits == nil {
		return nil
	}
	out = append(out, b[last:]...)
	return &view{b: out, edits: edits, parent: v}
}

// decodeStart marks the bytes an escape, an invisible character or a
// character foldRune changes begins with.
var decodeStart = func() (t [256]bool) {
	for _, c := range []byte{'&', '\\', '%', 0xC2, 0xC5, 0xCD, 0xE1, 0xE2, 0xEF} {
		t[c] = true
	}
	return t
}()

// percent reads a URL escape at the start of b ('%'): %HH, or the %HH of
// each byte of one UTF-8 encoded character. n is its length, 0 when there
// is none.
func percent(b []byte) (rune, int) {
	var bytes [utf8.UTFMax]byte
	k := 0
	for k < utf8.UTFMax && 3*k+2 < len(b) && b[3*k] == '%' && hexVal[b[3*k+1]] >= 0 && hexVal[b[3*k+2]] >= 0 {
		bytes[k] = byte(hexVal[b[3*k+1]])<<4 | byte(hexVal[b[3*k+2]])
		k++
		if r, n := utf8.DecodeRune(bytes[:k]); r != utf8.RuneError || n > 1 {
			return r, 3 * k
		}
		if bytes[0] < 0xC2 {
			break
		}
	}
	if k == 0 {
		return 0, 0
	}
	return rune(bytes[0]), 3 // a lone byte: Latin-1, as \xHH
}

// invisible reports characters that show nothing: soft hyphen, combining
// grapheme joiner, Mongolian vowel separator, zero-width space, non-joiner
// and joiner, the direction marks, word joiner, invisible operators, BOM.
func invisible(r rune) bool {
	switch {
	case r == 0xAD, r == 0x34F, r == 0x180E, r == 0xFEFF:
		return true
	case 0x200B <= r && r <= 0x200F, 0x2060 <= r && r <= 0x2064:
		return true
	}
	return false
}

// foldRune maps characters that read as ASCII letters to them: the Kelvin
// sign, the long s (which case folding takes for k and s) and the
// fullwidth forms.
func foldRune(r rune) rune {
	switch {
	case r == 0x212A:
		return 'k'
	case r == 0x17F:
		return 's'
	case 0xFF01 <= r && r <= 0xFF5E:
		return r - 0xFF01 + '!'
	}
	return r
}

// entity reads an HTML character reference at the start of b ('&'): a
// numeric one (&#115; &#x73; the semicolon optional) as a rune, a named one
// (&lowbar;, and &amp; &lt; &gt; &quot; without the semicolon) as a
// string. n is its length, 0 when there is none.
func entity(b []byte) (r rune, s string, n int) {
	if len(b) < 3 {
		return 0, "", 0
	}
	if b[1] == '#' {
		i, base := 2, 10
		if b[2] == 'x' || b[2] == 'X' {
			i, base = 3, 16
		}
		start := i
		v := 0
		for i < len(b) && i-start < 8 {
			d := int(hexVal[b[i]])
			if d < 0 || d >= base {
				break
			}
			v = v*base + d
			i++
		}
		if i == start || v > utf8.MaxRune || (0xD800 <= v && v <= 0xDFFF) || v == 0 {
			return 0, "", 0
		}
		if i < len(b) && b[i] == ';' {
			i++
		}
		return rune(v), "", i
	}
	i := 1
	for i < len(b) && i <= 32 && (b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z' || b[i] >= '0' && b[i] <= '9') {
		i++
	}
	if i == 1 {
		return 0, "", 0
	}
	if i < len(b) && b[i] == ';' {
		ref := string(b[:i+1])
		if dec := html.UnescapeString(ref); dec != ref {
			return 0, dec, i + 1
		}
		return 0, "", 0
	}
	switch string(b[1:i]) {
	case "amp":
		return '&', "", i
	case "lt":
		return '<', "", i
	case "gt":
		return '>', "", i
	case "quot":
		return '"', "", i
	}
	return 0, "", 0
}

// backslash reads a JSON, JavaScript, Go or Python escape at the start of
// b ('\'): \uXXXX (a surrogate pair as one), \u{X…}, \UXXXXXXXX, \xHH and
// \\ \/ \" \'. n is its length, 0 when there is none.
func backslash(b []byte) (rune, int) {
	if len(b) < 2 {
		return 0, 0
	}
	hexN := func(s []byte, n int) (rune, bool) {
		if len(s) < n {
			return 0, false
		}
		var v rune
		for _, c := range s[:n] {
			if hexVal[c] < 0 {
				return 0, false
			}
			v = v<<4 | rune(hexVal[c])
		}
		return v, true
	}
	switch b[1] {
	case 'u':
		if len(b) > 2 && b[2] == '{' {
			i := 3
			var v rune
			for i < len(b) && i < 3+6 && hexVal[b[i]] >= 0 {
				v = v<<4 | rune(hexVal[b[i]])
				i++
			}
			if i == 3 || i >= len(b) || b[i] != '}' || !utf8.ValidRune(v) {
				return 0, 0
			}
			return v, i + 1
		}
		v, ok := hexN(b[2:], 4)
		if !ok {
			return 0, 0
		}
		if 0xD800 <= v && v <= 0xDBFF && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if lo, ok := hexN(b[8:], 4); ok && 0xDC00 <= lo && lo <= 0xDFFF {
				return 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00), 12
			}
		}
		if !utf8.ValidRune(v) {
			return 0, 0
		}
		return v, 6
	case 'U':
		v, ok := hexN(b[2:], 8)
		if !ok || !utf8.ValidRune(v) {
			return 0, 0
		}
		return v, 10
	case 'x':
		v, ok := hexN(b[2:], 2)
		if !ok {
			return 0, 0
		}
		if v >= 0xC2 {
			// \xE2\x80\x8B: the bytes of one UTF-8 character (Go, Python).
			var bytes [utf8.UTFMax]byte
			bytes[0] = byte(v)
			for k := 1; k < utf8.UTFMax && 4*k+3 < len(b) && b[4*k] == '\\' && b[4*k+1] == 'x'; k++ {
				w, ok := hexN(b[4*k+2:], 2)
				if !ok {
					break
				}
				bytes[k] = byte(w)
				if r, n := utf8.DecodeRune(bytes[:k+1]); r != utf8.RuneError || n > 1 {
					return r, 4 * (k + 1)
				}
			}
		}
		return v, 4
	}
	if r, ok := oneLetter[b[1]]; ok {
		return r, 2
	}
	return 0, 0
}

// oneLetter are the one-character escapes decoded. \n, \t and the other
// letters are not: they decode to nothing a key holds, and decoding them
// would eat the letter of an escape of an escape (\\\u0076 is \ and v,
// then \v).
var oneLetter = map[byte]rune{'"': '"', '\'': '\'', '\\': '\\', '/': '/'}
