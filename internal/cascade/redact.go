package cascade

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Redacted replaces a key in messages.
const Redacted = "[redacted]"

// Redactor removes API keys from text bound for a record, an error or a
// log: every header value and body excerpt the cascade keeps goes through
// Redact. It removes
//
//   - any run of 12 or more of a key's characters in a row (any 12-character
//     piece of it; a key shorter than 12 characters whole), in any letter
//     case: in the text as it is, and as it reads once the invisible
//     characters (zero-width space, non-joiner and joiner, word joiner, BOM,
//     soft hyphen, …) are removed and HTML entities (&#115; &#x73; &lowbar;),
//     JSON and JavaScript escapes (\u0073, \x73, \u{73}) and URL escapes
//     (%73) decoded, up to four levels deep; the whole span of the original
//     text that spelled it goes;
//   - any base64 (standard or URL alphabet, any byte offset) or hex (either
//     case) run of the text that decodes to bytes holding 12 of a key's
//     characters in a row: the whole run goes;
//   - each key as providers mask it: a prefix of the key and/or a suffix of
//     it around a run of mask characters (sk-proj-ZZOP*****cdef,
//     sk-ant-api03-AbCd...wxyz, AIzaSy…WXYZ, ****cdef), when together they
//     show at least minShown characters of it;
//   - the user information of URLs (https://user:pass@host → https://[redacted]@host),
//     whatever the keys.
//
// It takes time linear in the text (see keyMatcher). A nil or zero
// Redactor still removes URL credentials. Redactor is safe for concurrent
// use once made.
type Redactor struct {
	keys []string
	m    *keyMatcher
}

// minShown is the fewest characters of a key a masked form must show to be
// taken for that key: "sk-" around asterisks is not, "sk-proj-****" and
// "****cdef" are.
const minShown = 4

// minKeyLen: shorter "keys" are not matched inside masked forms (they would
// match too much) but still exactly.
const minKeyLen = 8

// NewRedactor makes a Redactor for keys; empty keys are ignored.
func NewRedactor(keys ...string) *Redactor {
	r := &Redactor{}
	r.add(keys...)
	return r
}

func (r *Redactor) add(keys ...string) {
	for _, k := range keys {
		if k == "" || contains(r.keys, k) {
			continue
		}
		r.keys = append(r.keys, k)
		r.m = nil
	}
	if len(r.keys) > 0 && r.m == nil {
		r.m = cachedMatcher(r.keys)
	}
}

// matchers are the keyMatchers made, by their keys: the providers redact
// each header and error with a Redactor of their one key, and making a
// matcher (every piece of the key, encoded three ways) costs more than
// using it on a short text.
var matchers struct {
	sync.Mutex
	m map[string]*keyMatcher
}

func cachedMatcher(keys []string) *keyMatcher {
	id := strings.Join(keys, "\x00")
	matchers.Lock()
	defer matchers.Unlock()
	if m, ok := matchers.m[id]; ok {
		return m
	}
	if matchers.m == nil || len(matchers.m) >= 64 {
		matchers.m = map[string]*keyMatcher{}
	}
	m := newKeyMatcher(keys)
	matchers.m[id] = m
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Redact returns s without keys, masked keys and URL credentials.
func (r *Redactor) Redact(s string) string {
	if s == "" {
		return s
	}
	s = redactUserinfo(s)
	if r == nil {
		return s
	}
	s = r.redactMasked(s)
	if r.m == nil {
		return s
	}
	spans := r.m.find(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.i])
		b.WriteString(Redacted)
		last = sp.j
	}
	b.WriteString(s[last:])
	return b.String()
}

// userinfoRE matches the user information of a URL: scheme://user:pass@
// (the part before the first slash of the authority).
var userinfoRE = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@"'<>\\]+@`)

func redactUserinfo(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return userinfoRE.ReplaceAllString(s, "${1}"+Redacted+"@")
}

// maskedRE matches a token that may be a masked key: key characters, a run
// of mask characters (asterisks, bullets, an ellipsis, two or more dots),
// key characters.
var maskedRE = regexp.MustCompile(`([A-Za-z0-9_\-]*)((?:[*•·]|…|\.{2,})+)([A-Za-z0-9_\-]*)`)

// mayBeMasked reports whether s holds a mask at all (each test a
// vectorised search: megabytes of answer are common).
func mayBeMasked(s string) bool {
	return strings.IndexByte(s, '*') >= 0 || strings.Contains(s, "..") ||
		strings.Contains(s, "…") || strings.Contains(s, "•") || strings.Contains(s, "·")
}

func (r *Redactor) redactMasked(s string) string {
	if !mayBeMasked(s) {
		return s
	}
	return maskedRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := maskedRE.FindStringSubmatch(m)
		left, right := sub[1], sub[3]
		for _, k := range r.keys {
			if len(k) < minKeyLen {
				continue
			}
			// The longest end of left that begins the key, the longest
			// start of right that ends it.
			l := sharedPrefixOfTail(left, k)
			rt := sharedSuffixOfHead(right, k)
			if l+rt < minShown {
				continue
			}
			return left[:len(left)-l] + Redacted + right[rt:]
		}
		return m
	})
}

// sharedPrefixOfTail is the length of the longest tail of s that is a
// prefix of key (letter case ignored), shorter than key.
func sharedPrefixOfTail(s, key string) int {
	for n := min(len(s), len(key)-1); n > 0; n-- {
		if strings.EqualFold(s[len(s)-n:], key[:n]) && utf8.RuneStart(s[len(s)-n]) {
			return n
		}
	}
	return 0
}

// sharedSuffixOfHead is the length of the longest head of s that is a
// suffix of key (letter case ignored), shorter than key.
func sharedSuffixOfHead(s, key string) int {
	for n := min(len(s), len(key)-1); n > 0; n-- {
		if strings.EqualFold(s[:n], key[len(key)-n:]) {
			return n
		}
	}
	return 0
}

// Redact removes keys, masked keys and URL credentials from s (see
// Redactor).
func Redact(s string, keys ...string) string {
	if s == "" {
		return s // nothing to redact: no redactor to build
	}
	return NewRedactor(keys...).Redact(s)
}

// scrub is Redact (the name the providers use).
func scrub(s string, keys ...string) string { return Redact(s, keys...) }
