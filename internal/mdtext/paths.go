package mdtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MountPathAt matches a mount-prefixed path at s[w]: "w", a digit, up to
// seven lower-case letters or digits (w1, w12, w1a2), '/', then path
// characters (IsPathRune). It returns the path's end. As a regular
// expression (RE2 syntax):
//
//	w[0-9][\p{Ll}\p{N}]{0,7}/[\p{L}\p{N}_.\-@+~%/]*
//
// MountPathAt does not look at s[w] itself, nor at what comes before it:
// the caller finds the 'w' and decides whether the character before it
// keeps the match from being a path.
func MountPathAt(s string, w int) (int, bool) {
	j := w + 1
	if j >= len(s) || s[j] < '0' || s[j] > '9' {
		return 0, false
	}
	j++
	n := 0
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !(unicode.IsLower(r) || unicode.IsNumber(r)) {
			break
		}
		j += size
		n++
	}
	if n > 7 || j >= len(s) || s[j] != '/' {
		return 0, false
	}
	j++
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !IsPathRune(r) {
			break
		}
		j += size
	}
	return j, true
}

// IsPathRune reports whether r is a path character: a letter, a number
// (unicode.IsNumber) or one of _ . - @ + ~ % /.
func IsPathRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || strings.ContainsRune("_.-@+~%/", r)
}

// GluedBefore reports whether r, just before a mount prefix, makes the
// prefix part of a longer word, so that what follows is not a path of its
// own (':' included, as in a URL): a letter, a decimal digit
// (unicode.IsDigit) or one of _ . - @ + ~ % /. It differs from IsPathRune
// in one place: a number that is not a decimal digit, such as '²' or 'Ⅻ',
// does not glue, so "²w1/src/x" holds the path "w1/src/x". The writer and
// the measures of briefings use this one rule, so that a path the writer
// leaves plain is never one the measures count.
func GluedBefore(r rune) bool {
	return r == ':' || unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_.-@+~%/", r)
}
