// Package leaktest finds pieces of API keys in text, for tests: the oracle
// the tests of cascade.Redactor and of everything that writes or prints
// hold their output to. It shares no code with the redactor.
package leaktest

import (
	"encoding/base64"
	"encoding/hex"
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// RunLen is the shortest piece of a key that must never show: any RunLen
// characters of it in a row (a key shorter than that, whole).
const RunLen = 12

// invisible drops the characters that show nothing.
func invisible(r rune) rune {
	switch {
	case r == 0xAD, r == 0x34F, r == 0x180E, r == 0xFEFF,
		0x200B <= r && r <= 0x200F, 0x2060 <= r && r <= 0x2064:
		return -1
	}
	return r
}

var (
	jsEscape  = regexp.MustCompile(`\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|\\)`)
	urlEscape = regexp.MustCompile(`(?:%[0-9a-fA-F]{2})+`)
)

// decodeOnce removes invisible characters and decodes one level of HTML
// entities, JSON/JavaScript escapes and URL escapes.
func decodeOnce(s string) string {
	s = strings.Map(invisible, s)
	s = html.UnescapeString(s)
	s = jsEscape.ReplaceAllStringFunc(s, func(m string) string {
		if m == `\\` {
			return `\`
		}
		digits := strings.Trim(m[2:], "{}")
		v, err := strconv.ParseUint(digits, 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) {
			return m
		}
		return string(rune(v))
	})
	s = urlEscape.ReplaceAllStringFunc(s, func(m string) string {
		// A run of escapes: the bytes that make whole UTF-8 characters are
		// decoded, a stray byte stays escaped ("%a6S5…" is not 0xA6, S5…).
		raw := make([]byte, 0, len(m)/3)
		for i := 0; i < len(m); i += 3 {
			v, _ := strconv.ParseUint(m[i+1:i+3], 16, 8)
			raw = append(raw, byte(v))
		}
		var b strings.Builder
		for i := 0; i < len(raw); {
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n <= 1 {
				b.WriteString(m[3*i : 3*i+3])
				i++
				continue
			}
			b.WriteString(string(raw[i : i+n]))
			i += n
		}
		return b.String()
	})
	return s
}

// Readings are s, s without its invisible characters, and what it reads
// as once decoded one, two, three and four levels deep (see decodeOnce).
func Readings(s string) []string {
	out := []string{s, strings.Map(invisible, s)}
	for i := 0; i < 4; i++ {
		d := decodeOnce(out[len(out)-1])
		if d == out[len(out)-1] {
			break
		}
		out = append(out, d)
	}
	return out
}

// Grams are the pieces of key that must not show: every RunLen-character
// piece, or the key when it is shorter.
func Grams(key string) []string {
	n := min(len(key), RunLen)
	var out []string
	for i := 0; i+n <= len(key); i++ {
		out = append(out, key[i:i+n])
	}
	return out
}

// Encodings are the texts that show gram (RunLen bytes) when encoded: its
// hex digits (lower case), and for each byte offset 0, 1, 2 in a base64
// stream the base64 digits that depend on gram's bytes alone, in the
// standard and the URL alphabet.
func Encodings(gram string) (hexLower string, b64 []string) {
	hexLower = hex.EncodeToString([]byte(gram))
	bits := 8 * len(gram)
	for off := 0; off < 3; off++ {
		buf := append(make([]byte, off), gram...)
		enc := base64.RawStdEncoding.EncodeToString(buf)
		c0 := (8*off + 5) / 6
		c1 := (8*off + bits) / 6
		if c1 > len(enc) {
			c1 = len(enc)
		}
		inner := enc[c0:c1]
		b64 = append(b64, inner, strings.NewReplacer("+", "-", "/", "_").Replace(inner))
	}
	return hexLower, b64
}

// KeyRun returns the first piece of key that text shows, and how ("plain
// sk-proj-ZZOP", "base64 …", "hex …"), or "" when it shows none: any
// RunLen characters of key in a row in any letter case, in text as it is
// or decoded (Readings); and for keys of RunLen or more characters, the
// base64 or hex encoding of any RunLen of them.
func KeyRun(text, key string) string {
	if key == "" {
		return ""
	}
	readings := Readings(text)
	lower := make([]string, len(readings))
	for i, r := range readings {
		lower[i] = strings.ToLower(r)
	}
	grams := Grams(key)
	for _, g := range grams {
		lg := strings.ToLower(g)
		for _, l := range lower {
			if strings.Contains(l, lg) {
				return "plain " + g
			}
		}
	}
	if len(key) < RunLen {
		return ""
	}
	for _, g := range grams {
		h, b64 := Encodings(g)
		for i, r := range readings {
			if strings.Contains(lower[i], h) {
				return "hex of " + g
			}
			for _, b := range b64 {
				if strings.Contains(r, b) {
					return "base64 of " + g + " (" + b + ")"
				}
			}
		}
	}
	return ""
}
