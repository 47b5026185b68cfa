package cascade

import (
	"strings"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/history"
)

// TrimJS is JavaScript's String.prototype.trim: it strips WhiteSpace and
// LineTerminator code points (ECMA-262), which differ from Go's
// unicode.IsSpace: U+FEFF is stripped, U+0085 is not.
func TrimJS(s string) string { return strings.TrimFunc(s, isJSSpace) }

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

func len16(s string) int { return history.Len16(s) }

// CutUTF8 is the longest prefix of s of at most max bytes that does not
// split a UTF-8 sequence (an invalid byte counts as one character).
func CutUTF8(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if len(s) <= max {
		return s
	}
	i := max
	// Back up to the start of the character that straddles the cut, at
	// most utf8.UTFMax-1 bytes.
	for j := max; j > 0 && j > max-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			i = j
			break
		}
	}
	if r, size := utf8.DecodeRuneInString(s[i:]); !(r == utf8.RuneError && size == 1) && i+size <= max {
		i += size
	}
	return s[:i]
}
