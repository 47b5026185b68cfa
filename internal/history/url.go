package history

// The WHATWG URL Standard (https://url.spec.whatwg.org/): the basic URL
// parser, run without a base URL and without a state override, and the URL
// serializer, as Node 20 runs them for new URL(input) (its Ada 2.9). Where
// Ada and today's Standard part, Ada is followed:
//   - the path percent-encode set has no "^", and an opaque path keeps its
//     spaces (the Standard of early 2024);
//   - a ".." at the end of a path adds an empty segment only when it
//     removed one or the URL is special ("foo://h/.." is "foo://h");
//   - ".." keeps a file URL's lone segment that starts with a letter and
//     ":" ("file:///a:b/.." is "file:///a:b/");
//   - a path that looks free of dot segments to Ada is kept as written
//     (adaVerbatimPath);
//   - a domain goes through Ada's IDNA (domainToASCII).
// scripts/upstream-diff/url-vectors.sh and url-fuzz.sh check it all
// against Node.

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/rangetable"
)

// urlHref is new URL(input).href; ok is false where new URL throws
// "Invalid URL".
func urlHref(input string) (href string, ok bool) {
	s := ToWellFormed(input) // a USVString: lone surrogates become U+FFFD
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	s = s[i:j]
	if h, ok := urlFastPath(s); ok {
		return h, true
	}
	in := make([]rune, 0, len(s))
	for _, r := range s {
		if r != '\t' && r != '\n' && r != '\r' {
			in = append(in, r)
		}
	}
	var u urlRecord
	if !u.parse(in) {
		return "", false
	}
	return u.serialize(), true
}

// urlFastPath takes an http or https URL that is already in its
// serialized form and has nothing the parser would change: a lower-case
// ASCII host of letters, digits, "-", "_" and inner dots that neither
// ends in a number nor has an "xn--" label, no credentials or port, and a
// path, query and fragment of characters no percent-encode set holds (and
// no "%" or "\\" in the path), with no dot segment.
func urlFastPath(s string) (string, bool) {
	var rest string
	switch {
	case strings.HasPrefix(s, "https://"):
		rest = s[8:]
	case strings.HasPrefix(s, "http://"):
		rest = s[7:]
	default:
		return "", false
	}
	i := 0
	label := 0
	for ; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_':
			label++
		case c == '.':
			if label == 0 {
				return "", false
			}
			label = 0
		default:
			goto hostEnd
		}
	}
hostEnd:
	if label == 0 || i == len(rest) || rest[i] != '/' || hasXNLabel(rest[:i]) || endsInANumber(rest[:i]) {
		return "", false
	}
	seg := i // start of the current path segment (at its "/")
	for i++; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '/':
			if isDotSegmentFast(rest[seg+1 : i]) {
				return "", false
			}
			seg = i
		case c == '?' || c == '#':
			if isDotSegmentFast(rest[seg+1 : i]) {
				return "", false
			}
			for i++; i < len(rest); i++ {
				c := rest[i]
				if c <= ' ' || c > '~' || c == '"' || c == '<' || c == '>' || c == '`' || c == '\'' || c == '\\' || c == '{' || c == '}' {
					return "", false
				}
			}
			return s, true
		case c <= ' ' || c > '~' || c == '"' || c == '<' || c == '>' || c == '`' || c == '\\' || c == '{' || c == '}' || c == '%':
			return "", false
		}
	}
	if isDotSegmentFast(rest[seg+1:]) {
		return "", false
	}
	return s, true
}

func isDotSegmentFast(seg string) bool { return seg == "." || seg == ".." }

const urlEOF = -1

type urlState int

const (
	stSchemeStart urlState = iota
	stScheme
	stSpecialAuthoritySlashes
	stSpecialAuthorityIgnoreSlashes
	stPathOrAuthority
	stAuthority
	stHost
	stPort
	stFile
	stFileSlash
	stFileHost
	stPathStart
	stPath
	stPathEnd // after a path taken whole by adaVerbatimPath
	stOpaquePath
	stQuery
	stFragment
)

// urlRecord is a URL record; host and path hold serialized text.
type urlRecord struct {
	scheme             string
	special            bool
	username, password []byte
	host               string
	hasHost            bool
	port               int // -1: null
	path               []string
	opaque             bool
	opaquePath         []byte
	query, fragment    []byte
	hasQuery, hasFrag  bool
}

var specialPorts = map[string]int{"ftp": 21, "file": -1, "http": 80, "https": 443, "ws": 80, "wss": 443}

// parse runs the basic URL parser over in (already trimmed, without tab
// or newline). It reports false for failure.
func (u *urlRecord) parse(in []rune) bool {
	u.port = -1
	state := stSchemeStart
	var buf []rune
	var atSignSeen, insideBrackets, passwordTokenSeen, pathSeen bool
	at := func(p int) rune {
		if p < len(in) {
			return in[p]
		}
		return urlEOF
	}
	for p := 0; p <= len(in); p++ {
		c := at(p)
		switch state {
		case stSchemeStart:
			if !isASCIIAlpha(c) {
				return false // no scheme, and no base
			}
			buf = append(buf, toLowerASCII(c))
			state = stScheme
		case stScheme:
			switch {
			case isASCIIAlpha(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.':
				buf = append(buf, toLowerASCII(c))
			case c == ':':
				u.scheme = string(buf)
				_, u.special = specialPorts[u.scheme]
				buf = buf[:0]
				switch {
				case u.scheme == "file":
					state = stFile
				case u.special:
					state = stSpecialAuthoritySlashes
				case at(p+1) == '/':
					state = stPathOrAuthority
					p++
				default:
					u.opaque = true
					state = stOpaquePath
				}
			default:
				return false // no scheme state, and no base
			}
		case stSpecialAuthoritySlashes:
			state = stSpecialAuthorityIgnoreSlashes
			if c == '/' && at(p+1) == '/' {
				p++
			} else {
				p--
			}
		case stSpecialAuthorityIgnoreSlashes:
			if c != '/' && c != '\\' {
				state = stAuthority
				p--
			}
		case stPathOrAuthority:
			if c == '/' {
				state = stAuthority
			} else {
				state = stPath
				p--
			}
		case stAuthority:
			switch {
			case c == '@':
				if atSignSeen {
					buf = append([]rune("%40"), buf...)
				}
				atSignSeen = true
				for _, r := range buf {
					if r == ':' && !passwordTokenSeen {
						passwordTokenSeen = true
						continue
					}
					if passwordTokenSeen {
						u.password = appendPercentEncoded(u.password, r, &userinfoSet)
					} else {
						u.username = appendPercentEncoded(u.username, r, &userinfoSet)
					}
				}
				buf = buf[:0]
			case c == urlEOF || c == '/' || c == '?' || c == '#' || u.special && c == '\\':
				if atSignSeen && len(buf) == 0 {
					return false
				}
				p -= len(buf) + 1
				buf = buf[:0]
				state = stHost
			default:
				buf = append(buf, c)
			}
		case stHost:
			switch {
			case c == ':' && !insideBrackets:
				if len(buf) == 0 {
					return false
				}
				h, ok := parseHost(buf, !u.special)
				if !ok {
					return false
				}
				u.host, u.hasHost = h, true
				buf = buf[:0]
				state = stPort
			case c == urlEOF || c == '/' || c == '?' || c == '#' || u.special && c == '\\':
				p--
				if u.special && len(buf) == 0 {
					return false
				}
				h, ok := parseHost(buf, !u.special)
				if !ok {
					return false
				}
				u.host, u.hasHost = h, true
				buf = buf[:0]
				state = stPathStart
			default:
				if c == '[' {
					insideBrackets = true
				} else if c == ']' {
					insideBrackets = false
				}
				buf = append(buf, c)
			}
		case stPort:
			switch {
			case c >= '0' && c <= '9':
				buf = append(buf, c)
			case c == urlEOF || c == '/' || c == '?' || c == '#' || u.special && c == '\\':
				if len(buf) > 0 {
					port := 0
					for _, d := range buf {
						port = port*10 + int(d-'0')
						if port > 65535 {
							return false
						}
					}
					if def, ok := specialPorts[u.scheme]; ok && def == port {
						port = -1
					}
					u.port = port
					buf = buf[:0]
				}
				state = stPathStart
				p--
			default:
				return false
			}
		case stFile:
			u.host, u.hasHost = "", true
			if c == '/' || c == '\\' {
				state = stFileSlash
			} else {
				state = stPath
				p--
			}
		case stFileSlash:
			if c == '/' || c == '\\' {
				state = stFileHost
			} else {
				state = stPath
				p--
			}
		case stFileHost:
			switch c {
			case urlEOF, '/', '\\', '?', '#':
				p--
				switch {
				case isWindowsDriveLetter(buf):
					state = stPath // buf is kept: the path state takes it
				case len(buf) == 0:
					u.host, u.hasHost = "", true
					state = stPathStart
				default:
					h, ok := parseHost(buf, false)
					if !ok {
						return false
					}
					if h == "localhost" {
						h = ""
					}
					u.host, u.hasHost = h, true
					buf = buf[:0]
					state = stPathStart
				}
			default:
				buf = append(buf, c)
			}
		case stPathStart:
			switch {
			case u.special:
				state = stPath
				if c != '/' && c != '\\' {
					p--
				}
			case c == '?':
				u.hasQuery = true
				state = stQuery
			case c == '#':
				u.hasFrag = true
				state = stFragment
			case c != urlEOF:
				state = stPath
				if c != '/' {
					p--
				}
			}
		case stPath:
			if !pathSeen {
				pathSeen = true
				if segs, n, ok := adaVerbatimPath(in[p:], u.scheme == "file"); ok && len(buf) == 0 {
					u.path = segs
					p += n - 1 // the next round reads what ends the path
					state = stPathEnd
					continue
				}
			}
			slash := c == '/' || u.special && c == '\\'
			if c == urlEOF || slash || c == '?' || c == '#' {
				switch {
				case isDoubleDotSegment(buf):
					// Ada (Node 20) appends the empty segment only when
					// shortening removed one or the URL is special: new
					// URL("foo://h/..").href is "foo://h".
					if removed := u.shortenPath(); (removed || u.special) && !slash {
						u.path = append(u.path, "")
					}
				case isSingleDotSegment(buf):
					if !slash {
						u.path = append(u.path, "")
					}
				default:
					if u.scheme == "file" && len(u.path) == 0 && isWindowsDriveLetter(buf) {
						buf[1] = ':'
					}
					u.path = append(u.path, string(buf))
				}
				buf = buf[:0]
				if c == '?' {
					u.hasQuery = true
					state = stQuery
				} else if c == '#' {
					u.hasFrag = true
					state = stFragment
				}
			} else {
				buf = appendPercentEncodedRunes(buf, c, &pathSet)
			}
		case stPathEnd:
			if c == '?' {
				u.hasQuery = true
				state = stQuery
			} else if c == '#' {
				u.hasFrag = true
				state = stFragment
			}
		case stOpaquePath:
			switch c {
			case '?':
				u.hasQuery = true
				state = stQuery
			case '#':
				u.hasFrag = true
				state = stFragment
			case urlEOF:
			default:
				u.opaquePath = appendPercentEncoded(u.opaquePath, c, &c0ControlSet)
			}
		case stQuery:
			if c == '#' || c == urlEOF {
				set := &querySet
				if u.special {
					set = &specialQuerySet
				}
				for _, r := range buf {
					u.query = appendPercentEncoded(u.query, r, set)
				}
				buf = buf[:0]
				if c == '#' {
					u.hasFrag = true
					state = stFragment
				}
			} else {
				buf = append(buf, c)
			}
		case stFragment:
			if c != urlEOF {
				u.fragment = appendPercentEncoded(u.fragment, c, &fragmentSet)
			}
		}
	}
	return true
}

// adaVerbatimPath reproduces a shortcut of Ada (Node 20): a path (the
// text from where the path state starts to "?", "#" or the end) of ASCII
// characters no percent-encode set holds, with a "." but no "%" or "\\",
// that does not start with "." and whose first "/." is followed by
// neither "/", "." nor the end, is taken as it is written, even when a
// later segment is "." or "..": new URL("foo://h/a/.b/./c").href is
// "foo://h/a/.b/./c". It reports the segments and the length taken. A file
// URL's path that starts with a drive letter does not take the shortcut.
func adaVerbatimPath(in []rune, file bool) ([]string, int, bool) {
	end := 0
	dot := false
	for ; end < len(in); end++ {
		c := in[end]
		if c == '?' || c == '#' {
			break
		}
		if c == '.' {
			dot = true
		} else if c == '%' || c == '\\' || pathSet.has(c) {
			return nil, 0, false
		}
	}
	v := in[:end]
	if !dot || v[0] == '.' {
		return nil, 0, false
	}
	if file && len(v) >= 2 && isASCIIAlpha(v[0]) && (v[1] == ':' || v[1] == '|') && (len(v) == 2 || v[2] == '/') {
		return nil, 0, false
	}
	for i := 0; i+1 < len(v); i++ {
		if v[i] == '/' && v[i+1] == '.' {
			if i+2 == len(v) || v[i+2] == '.' || v[i+2] == '/' {
				return nil, 0, false
			}
			break
		}
	}
	return strings.Split(string(v), "/"), end, true
}

// shortenPath removes the path's last segment, but keeps a file URL's
// lone drive letter. It reports whether it removed one.
func (u *urlRecord) shortenPath() bool {
	// Ada (Node 20) keeps any lone segment that starts with a drive
	// letter: new URL("file:///a:b/..").href is "file:///a:b/".
	if u.scheme == "file" && len(u.path) == 1 && len(u.path[0]) >= 2 && isNormalizedWindowsDriveLetter(u.path[0][:2]) {
		return false
	}
	if len(u.path) == 0 {
		return false
	}
	u.path = u.path[:len(u.path)-1]
	return true
}

// serialize is the URL serializer (with fragments).
func (u *urlRecord) serialize() string {
	var b strings.Builder
	b.WriteString(u.scheme)
	b.WriteByte(':')
	if u.hasHost {
		b.WriteString("//")
		if len(u.username) > 0 || len(u.password) > 0 {
			b.Write(u.username)
			if len(u.password) > 0 {
				b.WriteByte(':')
				b.Write(u.password)
			}
			b.WriteByte('@')
		}
		b.WriteString(u.host)
		if u.port >= 0 {
			b.WriteByte(':')
			b.WriteString(itoa(u.port))
		}
	}
	if u.opaque {
		b.Write(u.opaquePath)
	} else {
		if !u.hasHost && len(u.path) > 1 && u.path[0] == "" {
			b.WriteString("/.")
		}
		for _, seg := range u.path {
			b.WriteByte('/')
			b.WriteString(seg)
		}
	}
	if u.hasQuery {
		b.WriteByte('?')
		b.Write(u.query)
	}
	if u.hasFrag {
		b.WriteByte('#')
		b.Write(u.fragment)
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d [20]byte
	i := len(d)
	for ; n > 0; n /= 10 {
		i--
		d[i] = byte('0' + n%10)
	}
	return string(d[i:])
}

func isASCIIAlpha(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isASCIIDigit(c rune) bool { return c >= '0' && c <= '9' }

func isASCIIHex(c rune) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func toLowerASCII(c rune) rune {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isWindowsDriveLetter: an ASCII letter and then ":" or "|".
func isWindowsDriveLetter(b []rune) bool {
	return len(b) == 2 && isASCIIAlpha(b[0]) && (b[1] == ':' || b[1] == '|')
}

func isNormalizedWindowsDriveLetter(s string) bool {
	return len(s) == 2 && isASCIIAlpha(rune(s[0])) && s[1] == ':'
}

// isSingleDotSegment: "." or "%2e", any case.
func isSingleDotSegment(b []rune) bool {
	return len(b) == 1 && b[0] == '.' || len(b) == 3 && isPct2e(b)
}

// isDoubleDotSegment: "..", ".%2e", "%2e." or "%2e%2e", any case.
func isDoubleDotSegment(b []rune) bool {
	switch len(b) {
	case 2:
		return b[0] == '.' && b[1] == '.'
	case 4:
		return b[0] == '.' && isPct2e(b[1:]) || isPct2e(b) && b[3] == '.'
	case 6:
		return isPct2e(b) && isPct2e(b[3:])
	}
	return false
}

func isPct2e(b []rune) bool { return b[0] == '%' && b[1] == '2' && (b[2] == 'e' || b[2] == 'E') }

// percentEncodeSet holds the ASCII code points a percent-encode set has
// beyond the C0 controls and the code points above "~", which every set
// has.
type percentEncodeSet [2]uint64

func (s *percentEncodeSet) has(c rune) bool {
	return c < 0x20 || c > 0x7E || s[c>>6]&(1<<(c&63)) != 0
}

func withChars(s percentEncodeSet, chars string) percentEncodeSet {
	for i := 0; i < len(chars); i++ {
		s[chars[i]>>6] |= 1 << (chars[i] & 63)
	}
	return s
}

var (
	c0ControlSet    = percentEncodeSet{}
	fragmentSet     = withChars(c0ControlSet, " \"<>`")
	querySet        = withChars(c0ControlSet, " \"#<>")
	specialQuerySet = withChars(querySet, "'")
	pathSet         = withChars(querySet, "?`{}")
	userinfoSet     = withChars(pathSet, "/:;=@[\\]^|")
)

const upperHex = "0123456789ABCDEF"

// appendPercentEncoded is UTF-8 percent-encode c using set.
func appendPercentEncoded(b []byte, c rune, set *percentEncodeSet) []byte {
	if !set.has(c) {
		return append(b, byte(c))
	}
	var u [utf8.UTFMax]byte
	n := utf8.EncodeRune(u[:], c)
	for _, x := range u[:n] {
		b = append(b, '%', upperHex[x>>4], upperHex[x&15])
	}
	return b
}

func appendPercentEncodedRunes(b []rune, c rune, set *percentEncodeSet) []rune {
	if !set.has(c) {
		return append(b, c)
	}
	var u [utf8.UTFMax]byte
	n := utf8.EncodeRune(u[:], c)
	for _, x := range u[:n] {
		b = append(b, '%', rune(upperHex[x>>4]), rune(upperHex[x&15]))
	}
	return b
}

// parseHost is the host parser; it returns the serialized host.
func parseHost(in []rune, isOpaque bool) (string, bool) {
	if len(in) > 0 && in[0] == '[' {
		if len(in) < 2 || in[len(in)-1] != ']' {
			return "", false
		}
		a, ok := parseIPv6(in[1 : len(in)-1])
		if !ok {
			return "", false
		}
		return "[" + serializeIPv6(a) + "]", true
	}
	if isOpaque {
		var b []byte
		for _, c := range in {
			if isForbiddenHost(c) {
				return "", false
			}
			b = appendPercentEncoded(b, c, &c0ControlSet)
		}
		return string(b), true
	}
	domain := percentDecode(string(in))
	if !utf8.ValidString(domain) {
		domain = strings.ToValidUTF8(domain, "\uFFFD")
	}
	ascii, ok := domainToASCII(domain)
	if !ok {
		return "", false
	}
	if endsInANumber(ascii) {
		v, ok := parseIPv4(ascii)
		if !ok {
			return "", false
		}
		return serializeIPv4(v), true
	}
	return ascii, true
}

// isForbiddenHost is a forbidden host code point.
func isForbiddenHost(c rune) bool {
	switch c {
	case 0, '\t', '\n', '\r', ' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return false
}

// isForbiddenDomain is a forbidden domain code point.
func isForbiddenDomain(c rune) bool {
	return isForbiddenHost(c) || c <= 0x1F || c == '%' || c == 0x7F
}

func percentDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isASCIIHex(rune(s[i+1])) && isASCIIHex(rune(s[i+2])) {
			b = append(b, hexVal(s[i+1])<<4|hexVal(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// domainToASCII is the WHATWG domain to ASCII (UTS #46 ToASCII with
// CheckHyphens false, CheckJoiners and CheckBidi true, UseSTD3ASCIIRules
// false, Transitional_Processing false, VerifyDnsLength false), then the
// forbidden domain code point check, in the form Node 20 runs it: Ada's
// IDNA, which
//   - takes an ASCII domain as it is, lower-cased, checking only its
//     "xn--" labels;
//   - maps and normalizes a domain that is not ASCII, fails on a
//     disallowed code point, and turns each label that is not ASCII into
//     "xn--" and its Punycode after checking it (validLabel);
//   - keeps an "xn--" label as written once its Punycode decodes to a
//     label that mapping and NFC leave unchanged, that is not empty (it
//     may be ASCII: "xn--a-" stays) and that passes validLabel.
//
// The IDNA mapping comes from golang.org/x/net/idna and NFC from
// golang.org/x/text (nfc), both at Unicode 15.0 like Ada's. The label
// checks use Ada's older view: general category, bidi class and virama
// from x/text but as Unicode 13 had them (newerThanAda), and the joining
// types read off Node (adaJoining).
func domainToASCII(d string) (string, bool) {
	var labels []string
	if isASCIIString(d) {
		labels = strings.Split(strings.ToLower(d), ".")
		for _, l := range labels {
			if strings.HasPrefix(l, "xn--") && !validALabel(l) {
				return "", false
			}
		}
	} else {
		mapped, ok := uts46MapRunes(d)
		if !ok {
			return "", false
		}
		labels = strings.Split(nfc(mapped), ".")
		for i, l := range labels {
			switch {
			case strings.HasPrefix(l, "xn--"):
				if !isASCIIString(l) || !validALabel(l) {
					return "", false
				}
			case !isASCIIString(l):
				r := []rune(l)
				if !validLabel(r) {
					return "", false
				}
				enc, ok := punycodeEncode(r)
				if !ok {
					return "", false
				}
				labels[i] = "xn--" + enc
			}
		}
	}
	out := strings.Join(labels, ".")
	if out == "" {
		return "", false
	}
	for i := 0; i < len(out); i++ {
		if isForbiddenDomain(rune(out[i])) {
			return "", false
		}
	}
	return out, true
}

// validALabel checks an "xn--" label: its Punycode decodes to a label
// that is not empty, that the mapping and NFC leave as it is, and that
// passes validLabel.
func validALabel(l string) bool {
	dec, ok := punycodeDecode(l[4:])
	if !ok || len(dec) == 0 {
		return false
	}
	s := string(dec)
	if m, ok := uts46MapRunes(s); !ok || m != s || nfc(s) != s {
		return false
	}
	return validLabel(dec)
}

// nfc is NFC. golang.org/x/text (v0.28) looks a composition up by the
// low 16 bits of both code points, so that a code point past the BMP and
// the combining marks after it can compose as the BMP code point with the
// same low bits would (U+11F00 U+0301 gave U+1F04). Such a code point, a
// starter that composes with nothing, is kept apart with its marks here;
// marks after a starter are only reordered.
func nfc(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r > 0xFFFF }) < 0 {
		return norm.NFC.String(s)
	}
	var b strings.Builder
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r <= 0xFFFF || astralComposer(r) || ccc(r) != 0 {
			i += n
			continue
		}
		b.WriteString(norm.NFC.String(s[start:i]))
		j := i + n
		for j < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[j:])
			if ccc(r2) == 0 {
				break
			}
			j += n2
		}
		b.WriteRune(r)
		b.WriteString(norm.NFC.String(s[i+n : j]))
		start, i = j, j
	}
	b.WriteString(norm.NFC.String(s[start:]))
	return b.String()
}

func ccc(r rune) uint8 { return norm.NFC.PropertiesString(string(r)).CCC() }

// astralComposer: the code points past the BMP that start a canonical
// composition (Unicode 15: Kaithi, Chakma, Grantha, Tirhuta, Siddham and
// Dives Akuru vowel signs).
func astralComposer(r rune) bool {
	switch r {
	case 0x11099, 0x1109B, 0x110A5, 0x11131, 0x11132, 0x11347, 0x114B9, 0x115B8, 0x115B9, 0x11935:
		return true
	}
	return false
}

// urlIDNAMap only maps (UTS #46 processing step 1, nontransitional,
// without the STD3 rules). It is run on one code point at a time, so that
// it never meets an "xn--" label.
var urlIDNAMap = idna.New(idna.MapForLookup(), idna.Transitional(false),
	idna.StrictDomainName(false), idna.ValidateLabels(false))

// uts46MapRunes maps d by the IDNA mapping table, code point by code
// point; it fails on a disallowed code point.
func uts46MapRunes(d string) (string, bool) {
	var b strings.Builder
	for _, r := range d {
		if r < utf8.RuneSelf {
			b.WriteRune(toLowerASCII(r))
			continue
		}
		m, err := urlIDNAMap.ToUnicode(string(r))
		if err != nil || strings.ContainsRune(m, utf8.RuneError) {
			return "", false // disallowed (x/net writes U+FFFD for some)
		}
		b.WriteString(m)
	}
	return b.String(), true
}

// validLabel is the UTS #46 label validity check as Ada 2.9 runs it on a
// label that is not ASCII. The label must not start with a combining mark.
// The first ZERO WIDTH (NON-)JOINER decides alone (ContextJ, loosely):
// after a virama it is valid; a ZWNJ elsewhere needs a joining type L or D
// code point somewhere before it and R or D somewhere after; a ZWJ is
// invalid. Otherwise a label with an R, AL or AN code point must pass
// Ada's Bidi check: if it starts with an L code point, every code point
// but the last before trailing NSMs must be L, EN, ES, CS, ET, ON, BN or
// NSM; else every one must be R, AL, AN, EN, ES, CS, ET, ON, BN or NSM,
// not EN and AN both, and the last before trailing NSMs R, AL, AN or EN.
func validLabel(l []rune) bool {
	if len(l) == 0 {
		return true
	}
	if unicode.Is(unicode.M, l[0]) && !newerThanAda(l[0]) {
		return false
	}
	for i, c := range l {
		if c != 0x200C && c != 0x200D {
			continue
		}
		if i > 0 && isVirama(l[i-1]) {
			return true
		}
		if c == 0x200D || i == 0 || i+1 >= len(l) {
			return false
		}
		before, after := false, false
		for _, b := range l[:i] {
			if jt := joiningType(b); jt == 'L' || jt == 'D' {
				before = true
				break
			}
		}
		for _, a := range l[i+1:] {
			if jt := joiningType(a); jt == 'R' || jt == 'D' {
				after = true
				break
			}
		}
		return before && after
	}
	last := len(l) - 1
	for last >= 0 && bidiClass(l[last]) == bidi.NSM {
		last--
	}
	if last < 0 {
		return false
	}
	rtl := false
	for _, c := range l {
		switch bidiClass(c) {
		case bidi.R, bidi.AL, bidi.AN:
			rtl = true
		}
	}
	if !rtl {
		return true
	}
	if bidiClass(l[0]) == bidi.L {
		for _, c := range l[:last] {
			switch bidiClass(c) {
			case bidi.L, bidi.EN, bidi.ES, bidi.CS, bidi.ET, bidi.ON, bidi.BN, bidi.NSM:
			default:
				return false
			}
		}
		return true
	}
	hasEN, hasAN := false, false
	for i, c := range l[:last+1] {
		d := bidiClass(c)
		switch d {
		case bidi.EN:
			hasEN = true
		case bidi.AN:
			hasAN = true
		}
		if hasEN && hasAN {
			return false
		}
		switch d {
		case bidi.R, bidi.AL, bidi.AN, bidi.EN, bidi.ES, bidi.CS, bidi.ET, bidi.ON, bidi.BN, bidi.NSM:
		default:
			return false
		}
		if i == last && d != bidi.R && d != bidi.AL && d != bidi.AN && d != bidi.EN {
			return false
		}
	}
	return true
}

// noBidiClass stands for the class that Ada's table has not: that of a
// code point Unicode 13 had not assigned.
const noBidiClass = bidi.Class(255)

func bidiClass(r rune) bidi.Class {
	if newerThanAda(r) {
		return noBidiClass
	}
	if r == 0x1734 { // HANUNOO SIGN PAMUDPOD: NSM until Unicode 14 made it L
		return bidi.NSM
	}
	p, _ := bidi.LookupRune(r)
	return p.Class()
}

// isVirama: Canonical_Combining_Class Virama (9).
func isVirama(r rune) bool { return ccc(r) == 9 && !newerThanAda(r) }

// unicode13 holds the code points Unicode 13.0 assigned: Ada 2.9's tables
// of combining marks, bidi classes, viramas and joining types are from
// Unicode 13, and know nothing of a code point added since (its IDNA
// mapping table is from 15.0, like x/net's).
var unicode13 = rangetable.Assigned("13.0.0")

func newerThanAda(r rune) bool { return r >= 0x80 && !unicode.Is(unicode13, r) }

// joiningType is r's Joining_Type as Ada 2.9 knows it for the ContextJ
// rule: 'L', 'R', 'D' or 0. Ada lists fewer code points than Unicode
// (no NKo, Adlam or Mandaic, part of Arabic Supplement); the table below
// was read off Node 20 by scripts/upstream-diff/url-joining.js.
func joiningType(r rune) byte {
	lo, hi := 0, len(adaJoining)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < adaJoining[m].lo:
			hi = m
		case r > adaJoining[m].hi:
			lo = m + 1
		default:
			return adaJoining[m].t
		}
	}
	return 0
}

var adaJoining = []struct {
	lo, hi rune
	t      byte
}{
	{0x620, 0x620, 'D'}, {0x622, 0x625, 'R'}, {0x626, 0x626, 'D'},
	{0x627, 0x627, 'R'}, {0x628, 0x628, 'D'}, {0x629, 0x629, 'R'},
	{0x62A, 0x62E, 'D'}, {0x62F, 0x632, 'R'}, {0x633, 0x63F, 'D'},
	{0x641, 0x647, 'D'}, {0x648, 0x648, 'R'}, {0x649, 0x64A, 'D'},
	{0x66E, 0x66F, 'D'}, {0x671, 0x673, 'R'}, {0x679, 0x687, 'D'},
	{0x688, 0x699, 'R'}, {0x69A, 0x6BF, 'D'}, {0x6C0, 0x6C0, 'R'},
	{0x6C1, 0x6C2, 'D'}, {0x6C3, 0x6CB, 'R'}, {0x6CC, 0x6CC, 'D'},
	{0x6CD, 0x6CD, 'R'}, {0x6CE, 0x6CE, 'D'}, {0x6CF, 0x6CF, 'R'},
	{0x6D0, 0x6D1, 'D'}, {0x6D2, 0x6D3, 'R'}, {0x6D5, 0x6D5, 'R'},
	{0x6EE, 0x6EF, 'R'}, {0x6FA, 0x6FC, 'D'}, {0x6FF, 0x6FF, 'D'},
	{0x710, 0x710, 'R'}, {0x712, 0x714, 'D'}, {0x715, 0x719, 'R'},
	{0x71A, 0x71D, 'D'}, {0x71E, 0x71E, 'R'}, {0x71F, 0x727, 'D'},
	{0x728, 0x728, 'R'}, {0x729, 0x729, 'D'}, {0x72A, 0x72A, 'R'},
	{0x72B, 0x72B, 'D'}, {0x72C, 0x72C, 'R'}, {0x72D, 0x72E, 'D'},
	{0x72F, 0x72F, 'R'}, {0x74D, 0x74D, 'R'}, {0x74E, 0x758, 'D'},
	{0x759, 0x75B, 'R'}, {0x75C, 0x766, 'D'}, {0x850, 0x853, 'D'},
	{0x854, 0x854, 'R'}, {0x855, 0x855, 'D'}, {0x8A0, 0x8A0, 'D'},
	{0x8A2, 0x8A9, 'D'}, {0x8AA, 0x8AC, 'R'}, {0x1807, 0x1807, 'D'},
	{0x1820, 0x1877, 'D'}, {0x1887, 0x18A8, 'D'}, {0x18AA, 0x18AA, 'D'},
	{0xA840, 0xA871, 'D'}, {0xA872, 0xA872, 'L'},
}

// Punycode (RFC 3492) parameters.
const (
	punyBase        = 36
	punyTMin        = 1
	punyTMax        = 26
	punySkew        = 38
	punyDamp        = 700
	punyInitialBias = 72
	punyInitialN    = 128
)

func punyAdapt(delta, numPoints int32, first bool) int32 {
	if first {
		delta /= punyDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := int32(0)
	for delta > ((punyBase-punyTMin)*punyTMax)/2 {
		delta /= punyBase - punyTMin
		k += punyBase
	}
	return k + (punyBase-punyTMin+1)*delta/(delta+punySkew)
}

// punycodeDecode decodes the part of a label after "xn--". Like Ada it
// takes the code points before the last "-" as the basic ones even when
// there are none ("-abc"), and only lower-case digits (the label is
// already lower-cased).
func punycodeDecode(s string) ([]rune, bool) {
	var out []rune
	if k := strings.LastIndexByte(s, '-'); k >= 0 {
		for i := 0; i < k; i++ {
			if s[i] >= utf8.RuneSelf {
				return nil, false
			}
			out = append(out, rune(s[i]))
		}
		s = s[k+1:]
	}
	const maxInt = 1<<31 - 1
	n, i, bias := int32(punyInitialN), int32(0), int32(punyInitialBias)
	for len(s) > 0 {
		oldi, w := i, int32(1)
		for k := int32(punyBase); ; k += punyBase {
			if len(s) == 0 {
				return nil, false
			}
			c := s[0]
			s = s[1:]
			var digit int32
			switch {
			case c >= 'a' && c <= 'z':
				digit = int32(c - 'a')
			case c >= '0' && c <= '9':
				digit = int32(c-'0') + 26
			default:
				return nil, false
			}
			if digit > (maxInt-i)/w {
				return nil, false
			}
			i += digit * w
			t := k - bias
			if k <= bias {
				t = punyTMin
			} else if k >= bias+punyTMax {
				t = punyTMax
			}
			if digit < t {
				break
			}
			if w > maxInt/(punyBase-t) {
				return nil, false
			}
			w *= punyBase - t
		}
		size := int32(len(out) + 1)
		bias = punyAdapt(i-oldi, size, oldi == 0)
		if i/size > maxInt-n {
			return nil, false
		}
		n += i / size
		i %= size
		if n > unicode.MaxRune || n >= 0xD800 && n <= 0xDFFF {
			return nil, false // no code point (disallowed in any case)
		}
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = n
		i++
	}
	return out, true
}

// punycodeEncode encodes a label (RFC 3492), without the "xn--".
func punycodeEncode(in []rune) (string, bool) {
	var b []byte
	for _, c := range in {
		if c < 0x80 {
			b = append(b, byte(c))
		}
	}
	basic := int32(len(b))
	h := basic
	if basic > 0 {
		b = append(b, '-')
	}
	const maxInt = 1<<31 - 1
	n, delta, bias := int32(punyInitialN), int32(0), int32(punyInitialBias)
	for int(h) < len(in) {
		m := int32(maxInt)
		for _, c := range in {
			if c >= n && c < m {
				m = c
			}
		}
		if (m - n) > (maxInt-delta)/(h+1) {
			return "", false
		}
		delta += (m - n) * (h + 1)
		n = m
		for _, c := range in {
			if c < n {
				delta++
				if delta == maxInt {
					return "", false
				}
			}
			if c == n {
				q := delta
				for k := int32(punyBase); ; k += punyBase {
					t := k - bias
					if k <= bias {
						t = punyTMin
					} else if k >= bias+punyTMax {
						t = punyTMax
					}
					if q < t {
						break
					}
					b = append(b, punyDigit(t+(q-t)%(punyBase-t)))
					q = (q - t) / (punyBase - t)
				}
				b = append(b, punyDigit(q))
				bias = punyAdapt(delta, h+1, h == basic)
				delta = 0
				h++
			}
		}
		delta++
		n++
	}
	return string(b), true
}

func punyDigit(d int32) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('0' + d - 26)
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasXNLabel reports whether a label of d starts with "xn--", any case.
func hasXNLabel(d string) bool {
	for start := 0; start <= len(d); {
		end := strings.IndexByte(d[start:], '.')
		if end < 0 {
			end = len(d)
		} else {
			end += start
		}
		if l := d[start:end]; len(l) >= 4 && strings.EqualFold(l[:4], "xn--") {
			return true
		}
		start = end + 1
	}
	return false
}

// endsInANumber is the "ends in a number" checker: the last label (a
// trailing empty one aside) is digits or an IPv4 number.
func endsInANumber(s string) bool {
	if strings.HasSuffix(s, ".") {
		s = s[:len(s)-1]
	}
	last := s[strings.LastIndexByte(s, '.')+1:]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4Number is the IPv4 number parser; values past 2^32 are capped
// at 2^32 (every such value fails the caller).
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	radix := uint64(10)
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s, radix = s[2:], 16
	} else if len(s) >= 2 && s[0] == '0' {
		s, radix = s[1:], 8
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= radix {
			return 0, false
		}
		n = n*radix + d
		if n > 1<<32 {
			n = 1 << 32
		}
	}
	return n, true
}

// parseIPv4 is the IPv4 parser.
func parseIPv4(s string) (uint32, bool) {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return 0, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return 0, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return 0, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return 0, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return uint32(v), true
}

func serializeIPv4(v uint32) string {
	return itoa(int(v>>24)) + "." + itoa(int(v>>16&255)) + "." + itoa(int(v>>8&255)) + "." + itoa(int(v&255))
}

// parseIPv6 is the IPv6 parser.
func parseIPv6(in []rune) ([8]uint16, bool) {
	var a [8]uint16
	piece, compress := 0, -1
	p := 0
	at := func(i int) rune {
		if i < len(in) {
			return in[i]
		}
		return urlEOF
	}
	if at(p) == ':' {
		if at(p+1) != ':' {
			return a, false
		}
		p += 2
		piece++
		compress = piece
	}
	for at(p) != urlEOF {
		if piece == 8 {
			return a, false
		}
		if at(p) == ':' {
			if compress >= 0 {
				return a, false
			}
			p++
			piece++
			compress = piece
			continue
		}
		value, length := 0, 0
		for length < 4 && isASCIIHex(at(p)) {
			value = value*16 + int(hexVal(byte(at(p))))
			p++
			length++
		}
		if at(p) == '.' {
			if length == 0 {
				return a, false
			}
			p -= length
			if piece > 6 {
				return a, false
			}
			seen := 0
			for at(p) != urlEOF {
				v4 := -1
				if seen > 0 {
					if at(p) == '.' && seen < 4 {
						p++
					} else {
						return a, false
					}
				}
				if !isASCIIDigit(at(p)) {
					return a, false
				}
				for isASCIIDigit(at(p)) {
					n := int(at(p) - '0')
					switch v4 {
					case -1:
						v4 = n
					case 0:
						return a, false
					default:
						v4 = v4*10 + n
					}
					if v4 > 255 {
						return a, false
					}
					p++
				}
				a[piece] = a[piece]<<8 | uint16(v4)
				seen++
				if seen == 2 || seen == 4 {
					piece++
				}
			}
			if seen != 4 {
				return a, false
			}
			break
		} else if at(p) == ':' {
			p++
			if at(p) == urlEOF {
				return a, false
			}
		} else if at(p) != urlEOF {
			return a, false
		}
		a[piece] = uint16(value)
		piece++
	}
	if compress >= 0 {
		swaps := piece - compress
		piece = 7
		for piece != 0 && swaps > 0 {
			a[piece], a[compress+swaps-1] = a[compress+swaps-1], a[piece]
			piece--
			swaps--
		}
	} else if piece != 8 {
		return a, false
	}
	return a, true
}

// serializeIPv6 is the IPv6 serializer (without brackets).
func serializeIPv6(a [8]uint16) string {
	compress, best := -1, 1
	for i := 0; i < 8; {
		if a[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && a[j] == 0 {
			j++
		}
		if j-i > best {
			compress, best = i, j-i
		}
		i = j
	}
	var b strings.Builder
	ignore0 := false
	for i := 0; i < 8; i++ {
		if ignore0 && a[i] == 0 {
			continue
		}
		ignore0 = false
		if compress == i {
			if i == 0 {
				b.WriteString("::")
			} else {
				b.WriteByte(':')
			}
			ignore0 = true
			continue
		}
		const lowerHex = "0123456789abcdef"
		v := a[i]
		started := false
		for sh := 12; sh >= 0; sh -= 4 {
			d := v >> uint(sh) & 15
			if d != 0 || started || sh == 0 {
				b.WriteByte(lowerHex[d])
				started = true
			}
		}
		if i != 7 {
			b.WriteByte(':')
		}
	}
	return b.String()
}
