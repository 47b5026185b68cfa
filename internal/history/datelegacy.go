package history

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// This file is Date.parse as Node 20's V8 does it (src/date/dateparser*):
// the ECMAScript date time string format first, and whatever that reading
// leaves over handed to V8's legacy parser, the one that accepts
// "2026/05/20", "May 20, 2026", "2026-05-20 09:00",
// "Tue, 20 May 2026 09:00:00 GMT" or "Wed May 20 2026 09:00:00 GMT+0200
// (Central European Summer Time)". testdata/date-legacy-node20.jsonl holds
// Node's own answers (scripts/upstream-diff/date-vectors.sh).
//
// The text is read as V8 reads its UTF-16 units, here byte by byte: every
// unit from 'A' up that is not white space (non-ASCII ones included)
// belongs to a word, and a word means something only when it is all ASCII
// letters or starts with three of them (a month), so reading a non-ASCII
// character as its UTF-8 bytes rather than its UTF-16 units changes
// nothing. A NUL ends the text, as it ends V8's reader.

// dateNone is V8's kNone, a field not given.
const dateNone = math.MaxInt32

// Token kinds of V8's DateStringTokenizer.
const (
	dtEnd = iota
	dtNumber
	dtSymbol  // one of : - + . )
	dtSpace   // one whitespace character
	dtUnknown // any other character, or a parenthesized comment
	dtWord    // a run of characters from 'A' up; kw says which keyword
	dtInvalid // the ES5 reading failed for good
)

// Keyword types of V8's KeywordTable.
const (
	kwNone  = iota // a word that is no keyword
	kwMonth        // jan ... dec, or any word that starts so
	kwZone         // ut utc z gmt and the US zones; value in hours
	kwT            // the ES5 time separator
	kwAmPm         // am (0) or pm (12)
)

type dateToken struct {
	kind, kw int
	len      int // characters read
	val      int // a number's value, a symbol's character, a keyword's value
}

func (t dateToken) number(n int) bool  { return t.kind == dtNumber && t.len == n }
func (t dateToken) symbol(c byte) bool { return t.kind == dtSymbol && t.val == int(c) }
func (t dateToken) sign() bool         { return t.symbol('+') || t.symbol('-') }
func (t dateToken) isZ() bool          { return t.kind == dtWord && t.kw == kwZone && t.len == 1 && t.val == 0 }

// dateScanner is V8's DateStringTokenizer: one token of look-ahead.
type dateScanner struct {
	s    string
	i    int
	peek dateToken
}

func (sc *dateScanner) next() dateToken {
	t := sc.peek
	sc.peek = sc.scan()
	return t
}

func (sc *dateScanner) skip(c byte) bool {
	if sc.peek.symbol(c) {
		sc.peek = sc.scan()
		return true
	}
	return false
}

func (sc *dateScanner) scan() dateToken {
	s, i := sc.s, sc.i
	if i >= len(s) {
		return dateToken{kind: dtEnd}
	}
	c := s[i]
	switch {
	case c >= '0' && c <= '9':
		v, n := dateNumber(s, i)
		sc.i += n
		return dateToken{kind: dtNumber, len: n, val: v}
	case c == ':' || c == '-' || c == '+' || c == '.' || c == ')':
		sc.i++
		return dateToken{kind: dtSymbol, len: 1, val: int(c)}
	case c >= 'A':
		if n := dateSpaceAt(s, i); n > 0 {
			sc.i += n
			return dateToken{kind: dtSpace, len: 1}
		}
		j := i
		for j < len(s) && s[j] >= 'A' && dateSpaceAt(s, j) == 0 {
			j++
		}
		sc.i = j
		kw, val := dateKeyword(s[i:j])
		return dateToken{kind: dtWord, kw: kw, len: j - i, val: val}
	case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
		sc.i++
		return dateToken{kind: dtSpace, len: 1}
	case c == '(':
		// A comment runs to its matching parenthesis, or to the end.
		depth := 0
		for {
			switch s[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			i++
			if depth <= 0 || i >= len(s) {
				break
			}
		}
		sc.i = i
		return dateToken{kind: dtUnknown, len: 1}
	}
	sc.i++
	return dateToken{kind: dtUnknown, len: 1}
}

// dateSpaceAt is the length of the non-ASCII white space character at
// s[i] (0 if there is none): V8 ends a word at a character of Unicode's
// Zs category or U+FEFF, but not at U+2028 or U+2029.
func dateSpaceAt(s string, i int) int {
	if s[i] < 0x80 {
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch r {
	case 0xa0, 0x1680, 0x202f, 0x205f, 0x3000, 0xfeff:
		return n
	}
	if r >= 0x2000 && r <= 0x200a {
		return n
	}
	return 0
}

// dateMonths are the prefixes that name a month, January first.
const dateMonths = "janfebmaraprmayjunjulaugsepoctnovdec"

// dateKeyword looks a word up in V8's keyword table: a month by its first
// three letters (any case), the other keywords only whole.
func dateKeyword(w string) (kind, val int) {
	if len(w) < 2 && !(len(w) == 1 && (w[0]|0x20 == 'z' || w[0]|0x20 == 't')) {
		return kwNone, 0
	}
	var b [3]byte
	for i := 0; i < len(w) && i < 3; i++ {
		b[i] = w[i] | 0x20 // V8's AsciiAlphaToLower, for any character
	}
	p := string(b[:min(len(w), 3)])
	if len(w) >= 3 {
		for m := 0; m < 12; m++ {
			if dateMonths[3*m:3*m+3] == p {
				return kwMonth, m + 1
			}
		}
		if len(w) > 3 {
			return kwNone, 0
		}
	}
	switch p {
	case "am":
		return kwAmPm, 0
	case "pm":
		return kwAmPm, 12
	case "ut", "utc", "z", "gmt":
		return kwZone, 0
	case "cdt":
		return kwZone, -5
	case "cst":
		return kwZone, -6
	case "edt":
		return kwZone, -4
	case "est":
		return kwZone, -5
	case "mdt":
		return kwZone, -6
	case "mst":
		return kwZone, -7
	case "pdt":
		return kwZone, -7
	case "pst":
		return kwZone, -8
	case "t":
		return kwT, 0
	}
	return kwNone, 0
}

// dateParser holds V8's three composers.
type dateParser struct {
	sc dateScanner

	day        [3]int
	dayN       int
	namedMonth int
	iso        bool

	tm         [4]int
	tmN        int
	hourOffset int

	tzSign, tzHour, tzMinute int
}

func (p *dateParser) dayAdd(n int) bool {
	if p.dayN == len(p.day) {
		return false
	}
	p.day[p.dayN] = n
	p.dayN++
	return true
}

func (p *dateParser) timeAdd(n int) bool {
	if p.tmN == len(p.tm) {
		return false
	}
	p.tm[p.tmN] = n
	p.tmN++
	return true
}

func (p *dateParser) timeAddFinal(n int) {
	if p.timeAdd(n) {
		for p.tmN < len(p.tm) {
			p.tm[p.tmN] = 0
			p.tmN++
		}
	}
}

// timeExpecting is TimeComposer::IsExpecting: n fits the next field after
// the hour.
func (p *dateParser) timeExpecting(n int) bool {
	switch p.tmN {
	case 1, 2:
		return n >= 0 && n <= 59
	case 3:
		return n >= 0 && n <= 999
	}
	return false
}

func (p *dateParser) tzSet(hours int) {
	p.tzSign = 1
	if hours < 0 {
		p.tzSign = -1
	}
	p.tzHour = hours * p.tzSign
	p.tzMinute = 0
}

func (p *dateParser) tzExpecting(n int) bool {
	return p.tzHour != dateNone && p.tzMinute == dateNone && n >= 0 && n <= 59
}

func (p *dateParser) tzIsUTC() bool { return p.tzHour == 0 && p.tzMinute == 0 }

// es5 is V8's ParseES5DateTime: it reads as much of the ECMAScript date
// time string format as it can and returns the token the legacy parser
// goes on from (dtEnd when the whole text was read that way, dtInvalid
// when the text can be no date at all).
func (p *dateParser) es5() dateToken {
	sc := &p.sc
	invalid := dateToken{kind: dtInvalid}
	if sc.peek.sign() {
		// The sign goes back to the legacy parser if no year follows.
		sign := sc.next()
		if !sc.peek.number(6) {
			return sign
		}
		y := sc.next().val
		if sign.val == '-' {
			if y == 0 {
				return sign
			}
			y = -y
		}
		p.dayAdd(y)
	} else if sc.peek.number(4) {
		p.dayAdd(sc.next().val)
	} else {
		return sc.next()
	}
	if sc.skip('-') {
		if !sc.peek.number(2) || sc.peek.val < 1 || sc.peek.val > 12 {
			return sc.next()
		}
		p.dayAdd(sc.next().val)
		if sc.skip('-') {
			if !sc.peek.number(2) || sc.peek.val < 1 || sc.peek.val > 31 {
				return sc.next()
			}
			p.dayAdd(sc.next().val)
		}
	}
	if sc.peek.kind != dtWord || sc.peek.kw != kwT {
		if sc.peek.kind != dtEnd {
			return sc.next()
		}
	} else {
		sc.next()
		if !sc.peek.number(2) || sc.peek.val > 24 {
			return invalid
		}
		h24 := sc.peek.val == 24
		p.timeAdd(sc.next().val)
		if !sc.skip(':') {
			return invalid
		}
		if !sc.peek.number(2) || sc.peek.val > 59 || (h24 && sc.peek.val > 0) {
			return invalid
		}
		p.timeAdd(sc.next().val)
		if sc.skip(':') {
			if !sc.peek.number(2) || sc.peek.val > 59 || (h24 && sc.peek.val > 0) {
				return invalid
			}
			p.timeAdd(sc.next().val)
			if sc.skip('.') {
				if sc.peek.kind != dtNumber || (h24 && sc.peek.val > 0) {
					return invalid
				}
				t := sc.next()
				p.timeAdd(dateMillis(t.val, t.len))
			}
		}
		if sc.peek.isZ() {
			sc.next()
			p.tzSet(0)
		} else if sc.peek.sign() {
			p.tzSign = 1
			if sc.next().val == '-' {
				p.tzSign = -1
			}
			if sc.peek.number(4) {
				hm := sc.next().val
				h, m := hm/100, hm%100
				if h > 23 || m > 59 {
					return invalid
				}
				p.tzHour, p.tzMinute = h, m
			} else {
				if !sc.peek.number(2) || sc.peek.val > 23 {
					return invalid
				}
				p.tzHour = sc.next().val
				if !sc.skip(':') {
					return invalid
				}
				if !sc.peek.number(2) || sc.peek.val > 59 {
					return invalid
				}
				p.tzMinute = sc.next().val
			}
		}
		if sc.peek.kind != dtEnd {
			return invalid
		}
	}
	// A date-only form is UTC, a date-time without an offset local time.
	if p.tzHour == dateNone && p.tmN == 0 {
		p.tzSet(0)
	}
	p.iso = true
	return dateToken{kind: dtEnd}
}

// parseDateIn is V8's DateParser::Parse and ParseDateTimeString: the time
// value of Date.parse(s) with loc as the local time zone.
func parseDateIn(s string, loc *time.Location) float64 {
	nan := math.NaN()
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	p := dateParser{namedMonth: dateNone, hourOffset: dateNone, tzSign: dateNone, tzHour: dateNone, tzMinute: dateNone}
	sc := &p.sc
	sc.s = s
	sc.peek = sc.scan()
	tok := p.es5()
	if tok.kind == dtInvalid {
		return nan
	}
	hasNumber := p.dayN > 0
	for ; tok.kind != dtEnd; tok = sc.next() {
		switch {
		case tok.kind == dtNumber:
			hasNumber = true
			n := tok.val
			if sc.skip(':') {
				if sc.skip(':') {
					// n followed by "::"
					if p.tmN != 0 {
						return nan
					}
					p.timeAdd(n)
					p.timeAdd(0)
				} else {
					if !p.timeAdd(n) {
						return nan
					}
					if sc.peek.symbol('.') {
						sc.next()
					}
				}
			} else if sc.skip('.') && p.timeExpecting(n) {
				p.timeAdd(n)
				if sc.peek.kind != dtNumber {
					return nan
				}
				t := sc.next()
				p.timeAddFinal(dateMillis(t.val, t.len))
			} else if p.tzExpecting(n) {
				p.tzMinute = n
			} else if p.timeExpecting(n) {
				p.timeAddFinal(n)
				// The time ends here: the text, a space, "Z" or a sign next.
				pk := sc.peek
				if pk.kind != dtEnd && pk.kind != dtSpace && !pk.isZ() && !pk.sign() {
					return nan
				}
			} else {
				if !p.dayAdd(n) {
					return nan
				}
				sc.skip('-')
			}
		case tok.kind == dtWord:
			switch {
			case tok.kw == kwAmPm && p.tmN != 0:
				p.hourOffset = tok.val
			case tok.kw == kwMonth:
				p.namedMonth = tok.val
				sc.skip('-')
			case tok.kw == kwZone && hasNumber:
				p.tzSet(tok.val)
			default:
				// Other words only before the first number, and apart
				// from it.
				if hasNumber || sc.peek.kind == dtNumber {
					return nan
				}
			}
		case tok.sign() && (p.tzIsUTC() || p.tmN != 0):
			// An offset, after UTC or a time.
			p.tzSign = 1
			if tok.val == '-' {
				p.tzSign = -1
			}
			n, length := 0, 0
			if sc.peek.kind == dtNumber {
				t := sc.next()
				n, length = t.val, t.len
			}
			hasNumber = true
			switch {
			case sc.peek.symbol(':'):
				p.tzHour, p.tzMinute = n, dateNone
			case length == 1 || length == 2:
				p.tzHour, p.tzMinute = n, 0
			case length == 3 || length == 4:
				p.tzHour, p.tzMinute = n/100, n%100
			default:
				return nan
			}
		case (tok.sign() || tok.symbol(')')) && hasNumber:
			return nan
		}
	}
	return p.compose(loc)
}

// compose is the composers' Write and ParseDateTimeString's arithmetic.
func (p *dateParser) compose(loc *time.Location) float64 {
	nan := math.NaN()
	isDay := func(d int) bool { return d >= 1 && d <= 31 }

	// DayComposer: the fields not given are 1.
	if p.dayN < 1 {
		return nan
	}
	for ; p.dayN < len(p.day); p.dayN++ {
		p.day[p.dayN] = 1
	}
	var year, month, day int
	c := p.day
	switch {
	case p.namedMonth != dateNone && !isDay(c[0]):
		year, month, day = c[0], p.namedMonth, c[1]
	case p.namedMonth != dateNone:
		year, month, day = c[1], p.namedMonth, c[0]
	case p.iso || !isDay(c[0]):
		year, month, day = c[0], c[1], c[2]
	default:
		year, month, day = c[2], c[0], c[1]
	}
	if !p.iso {
		if year >= 0 && year <= 49 {
			year += 2000
		} else if year >= 50 && year <= 99 {
			year += 1900
		}
	}
	if month < 1 || month > 12 || !isDay(day) {
		return nan
	}

	// TimeComposer: the fields not given are 0.
	for ; p.tmN < len(p.tm); p.tmN++ {
		p.tm[p.tmN] = 0
	}
	h, mi, sec, ms := p.tm[0], p.tm[1], p.tm[2], p.tm[3]
	if p.hourOffset != dateNone {
		if h < 0 || h > 12 {
			return nan
		}
		h = h%12 + p.hourOffset
	}
	if h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 || ms < 0 || ms > 999 {
		if h != 24 || mi != 0 || sec != 0 || ms != 0 {
			return nan
		}
	}

	// TimeZoneComposer: the offset in seconds, computed in 32 unsigned
	// bits as V8 does, and refused past the largest Smi.
	hasOffset := p.tzSign != dateNone
	var offset int64
	if hasOffset {
		hh, mm := p.tzHour, p.tzMinute
		if hh == dateNone {
			hh = 0
		}
		if mm == dateNone {
			mm = 0
		}
		total := uint32(hh)*3600 + uint32(mm)*60
		if total > math.MaxInt32 {
			return nan
		}
		offset = int64(total)
		if p.tzSign < 0 {
			offset = -offset
		}
	}

	// MakeDay gives NaN outside years -1000000 to 1000000.
	if year < -1000000 || year > 1000000 {
		return nan
	}
	days := daysFromCivil(year, month, 1) + int64(day-1)
	t := days*864e5 + int64(((h*60+mi)*60+sec)*1000+ms)
	if hasOffset {
		t -= offset * 1000
	} else {
		const maxBeforeUTC = 864e13 + 864e6
		if t < -maxBeforeUTC || t > maxBeforeUTC {
			return nan
		}
		t = localToUTC(t, loc)
	}
	return timeClip(float64(t))
}

// localToUTC is the instant of the local time t (milliseconds) in loc as
// V8 finds it through ICU (getOffsetFromLocal with UCAL_TZ_LOCAL_FORMER
// for both cases): a local time that a transition skips or repeats is
// read with the offset in effect before that transition.
func localToUTC(t int64, loc *time.Location) int64 {
	if loc == time.UTC {
		return t
	}
	offsetAt := func(u int64) int64 {
		_, off := time.UnixMilli(u).In(loc).Zone()
		return int64(off) * 1000
	}
	// Every offset is less than a day, so the offsets a day either side
	// are those before and after any transition that touches t.
	const day = 864e5
	before, after := offsetAt(t-day), offsetAt(t+day)
	if before != after && offsetAt(t-before) != before && offsetAt(t-after) == after {
		// Only the later offset reads t back: t is past the transition.
		return t - after
	}
	// No transition, or t lies in the hour it skips or repeats.
	return t - before
}
