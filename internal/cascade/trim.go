package cascade

import (
	"strings"

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
