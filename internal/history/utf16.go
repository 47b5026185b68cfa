package history

import (
	"math/bits"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Len16 is JavaScript's String.length: the number of UTF-16 code units of
// s. A lone surrogate kept in WTF-8 counts one unit, as in JavaScript.
//
// Each byte that starts a character counts one unit, and a four-byte
// lead counts one more (a surrogate pair): the length is the bytes, less
// the continuation bytes, plus the four-byte leads. Eight bytes are
// counted at a time.
func Len16(s string) int {
	n, _ := Len16Scan(s)
	return n
}

// Len16Scan is Len16, and reports too whether s may hold a lone
// surrogate: false means it holds none (no 0xED byte, the lead of every
// surrogate in WTF-8), so that a writer can skip HasLoneSurrogate.
func Len16Scan(s string) (n int, mayLone bool) {
	const (
		hi = 0x8080808080808080
		lo = 0x0101010101010101
		ed = 0xEDEDEDEDEDEDEDED
	)
	n = len(s)
	i := 0
	var seen uint64 // a byte's bit 7 is set for each 0xED byte (and perhaps above one)
	if littleEndian {
		base := unsafe.Pointer(unsafe.StringData(s))
		for ; i+8 <= len(s); i += 8 {
			w := *(*uint64)(unsafe.Add(base, i))
			if w&hi == 0 {
				continue // ASCII
			}
			// A byte's bit 6 lands on its bit 7 in w<<1 (and so on),
			// so masking with hi keeps each byte's own bits.
			w1 := w << 1
			cont := w &^ w1 & hi                      // 10xxxxxx
			four := w & w1 & (w << 2) & (w << 3) & hi // 1111xxxx
			n += bits.OnesCount64(four) - bits.OnesCount64(cont)
			x := w ^ ed
			seen |= (x - lo) &^ x & hi // a zero byte of x: a 0xED byte of w
		}
	}
	for ; i < len(s); i++ {
		b := s[i]
		if b&0xC0 == 0x80 {
			n--
		} else if b >= 0xF0 {
			n++
		}
		if b == 0xED {
			mayLone = true
		}
	}
	return n, mayLone || seen != 0
}

// Slice16 is JavaScript's s.slice(0, n) in UTF-16 units. A cut through a
// surrogate pair keeps the lone high surrogate (in WTF-8), as JavaScript
// does; ToWellFormed turns it into U+FFFD when the text is written out.
func Slice16(s string, n int) string {
	if n <= 0 {
		return ""
	}
	units := 0
	for i := 0; i < len(s); {
		b := s[i]
		size, w := 1, 1
		switch {
		case b < 0x80:
		case b >= 0xF0:
			size, w = 4, 2
		case b >= 0xE0:
			size = 3
		case b >= 0xC0:
			size = 2
		}
		if i+size > len(s) {
			size = len(s) - i
		}
		if units+w > n {
			if w == 2 && units+1 == n {
				r, _ := utf8.DecodeRuneInString(s[i:])
				hi, _ := splitSurrogates(r)
				return s[:i] + encodeSurrogate(hi)
			}
			return s[:i]
		}
		units += w
		i += size
		if units == n {
			return s[:i]
		}
	}
	return s
}

func splitSurrogates(r rune) (hi, lo rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

// encodeSurrogate writes a lone surrogate code unit in WTF-8.
func encodeSurrogate(u rune) string {
	return string([]byte{0xED, byte(0x80 | (u>>6)&0x3F), byte(0x80 | u&0x3F)})
}

// appendCodeUnit appends one UTF-16 unit that is a lone surrogate, or a
// rune, in (W)UTF-8.
func appendRune(b []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(b, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(b, r)
}

// isSurrogateAt reports whether s[i:] starts with a WTF-8 lone surrogate
// and returns its code unit.
func isSurrogateAt(s string, i int) (rune, bool) {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
		return 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), true
	}
	return 0, false
}

// HasLoneSurrogate reports whether s holds a lone surrogate.
func HasLoneSurrogate(s string) bool {
	for i := strings.IndexByte(s, 0xED); i >= 0; {
		if _, ok := isSurrogateAt(s, i); ok {
			return true
		}
		j := strings.IndexByte(s[i+1:], 0xED)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// ToWellFormed replaces every lone surrogate with U+FFFD, as Node does when
// it writes a string as UTF-8. A high and a low half that meet (after a
// concatenation) become the character they encode, as in JavaScript.
func ToWellFormed(s string) string {
	if !HasLoneSurrogate(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		u, ok := isSurrogateAt(s, i)
		if !ok {
			b.WriteByte(s[i])
			i++
			continue
		}
		if u < 0xDC00 {
			if lo, ok2 := isSurrogateAt(s, i+3); ok2 && lo >= 0xDC00 {
				b.WriteRune(0x10000 + (u-0xD800)<<10 + (lo - 0xDC00))
				i += 6
				continue
			}
		}
		b.WriteString("\uFFFD")
		i += 3
	}
	return b.String()
}

// EachUnit16 calls fn with each UTF-16 code unit of s in order, as a
// string: a character of the BMP whole, a character past it as its two
// halves, each a lone surrogate in WTF-8 (what indexing a JavaScript
// string, or Object.entries of it, gives). A lone surrogate already in s
// is one unit; a byte that is not UTF-8 is passed on alone.
func EachUnit16(s string, fn func(unit string)) {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			fn(s[i : i+1])
			i++
			continue
		}
		if _, ok := isSurrogateAt(s, i); ok {
			fn(s[i : i+3])
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r > 0xFFFF {
			hi, lo := splitSurrogates(r)
			fn(encodeSurrogate(hi))
			fn(encodeSurrogate(lo))
		} else {
			fn(s[i : i+size])
		}
		i += size
	}
}
