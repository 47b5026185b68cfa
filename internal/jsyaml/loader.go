package jsyaml

import (
	"fmt"
	"regexp"
	"strings"
)

// Error is a YAMLException: the input is not YAML js-yaml loads.
type Error struct {
	Msg       string
	Line, Col int
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s at line %d, column %d", e.Msg, e.Line+1, e.Col+1)
}

const (
	contextFlowIn = iota + 1
	contextFlowOut
	contextBlockIn
	contextBlockOut
)

const (
	chompingClip = iota + 1
	chompingStrip
	chompingKeep
)

var (
	patternNonPrintable = regexp.MustCompile(`[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x{84}\x{86}-\x{9F}\x{FFFE}\x{FFFF}]`)
	patternTagHandle    = regexp.MustCompile(`(?i)^(?:!|!!|![a-z\-]+!)$`)
	patternTagURI       = regexp.MustCompile(`(?i)^(?:!|[^,\[\]\{\}])(?:%[0-9a-f]{2}|[0-9a-z\-#;/\?:@&=\+\$,_\.!~\*'\(\)\[\]])*$`)
)

type state struct {
	input      []uint16 // with a 0 appended
	length     int      // without it
	position   int
	line       int
	lineStart  int
	lineIndent int
	documents  []*Value

	version   bool
	tagMap    map[string]string
	anchorMap map[string]*Value

	tag       string
	hasTag    bool
	anchor    string
	hasAnchor bool
	kind      string // "" is null
	result    *Value // nil is null
}

// at is input.charCodeAt(i): -1 (NaN) out of range.
func (s *state) at(i int) int {
	if i < 0 || i >= len(s.input) {
		return -1
	}
	return int(s.input[i])
}

func (s *state) throw(msg string) {
	panic(&Error{Msg: msg, Line: s.line, Col: s.position - s.lineStart})
}

func isEOL(c int) bool        { return c == 0x0A || c == 0x0D }
func isWhiteSpace(c int) bool { return c == 0x09 || c == 0x20 }
func isWSOrEOL(c int) bool    { return c == 0x09 || c == 0x20 || c == 0x0A || c == 0x0D }
func isFlowIndicator(c int) bool {
	return c == 0x2C || c == 0x5B || c == 0x5D || c == 0x7B || c == 0x7D
}

func fromHexCode(c int) int {
	if 0x30 <= c && c <= 0x39 {
		return c - 0x30
	}
	lc := c | 0x20
	if 0x61 <= lc && lc <= 0x66 {
		return lc - 0x61 + 10
	}
	return -1
}

func escapedHexLen(c int) int {
	switch c {
	case 0x78:
		return 2
	case 0x75:
		return 4
	case 0x55:
		return 8
	}
	return 0
}

func fromDecimalCode(c int) int {
	if 0x30 <= c && c <= 0x39 {
		return c - 0x30
	}
	return -1
}

func simpleEscape(c int) (string, bool) {
	switch c {
	case 0x30:
		return "\x00", true
	case 0x61:
		return "\x07", true
	case 0x62:
		return "\x08", true
	case 0x74, 0x09:
		return "\x09", true
	case 0x6E:
		return "\x0A", true
	case 0x76:
		return "\x0B", true
	case 0x66:
		return "\x0C", true
	case 0x72:
		return "\x0D", true
	case 0x65:
		return "\x1B", true
	case 0x20:
		return " ", true
	case 0x22:
		return "\x22", true
	case 0x2F:
		return "/", true
	case 0x5C:
		return "\x5C", true
	case 0x4E:
		return "\u0085", true
	case 0x5F:
		return "\u00A0", true
	case 0x4C:
		return "\u2028", true
	case 0x50:
		return "\u2029", true
	}
	return "", false
}

// appendCodepoint is charFromCodepoint: a code point as UTF-16 units (one
// past 0x10FFFF gives whatever the arithmetic gives, as in JavaScript).
func appendCodepoint(u []uint16, c int) []uint16 {
	if c <= 0xFFFF {
		return append(u, uint16(c))
	}
	return append(u, uint16(((c-0x10000)>>10)+0xD800), uint16(((c-0x10000)&0x3FF)+0xDC00))
}

// str is the scalar being read (state.result as a string).
func (s *state) str() *Value {
	if s.result == nil || s.result.Kind != String {
		s.result = &Value{Kind: String}
	}
	return s.result
}

func (s *state) captureSegment(start, end int, checkJSON bool) {
	if start >= end {
		return
	}
	seg := s.input[start:end]
	if checkJSON {
		for _, c := range seg {
			if !(c == 0x09 || 0x20 <= c) {
				s.throw("expected valid JSON character")
			}
		}
	} else if nonPrintable(seg) {
		s.throw("the stream contains non-printable characters")
	}
	r := s.str()
	r.str = append(r.str, seg...)
}

// nonPrintable is PATTERN_NON_PRINTABLE.test: a control character, a
// noncharacter U+FFFE/U+FFFF, or a lone surrogate.
func nonPrintable(u []uint16) bool {
	for i, c := range u {
		switch {
		case c <= 0x08 || c == 0x0B || c == 0x0C || (0x0E <= c && c <= 0x1F) || (0x7F <= c && c <= 0x84) || (0x86 <= c && c <= 0x9F) || c == 0xFFFE || c == 0xFFFF:
			return true
		case 0xD800 <= c && c <= 0xDBFF:
			if i+1 >= len(u) || u[i+1] < 0xDC00 || u[i+1] > 0xDFFF {
				return true
			}
		case 0xDC00 <= c && c <= 0xDFFF:
			if i == 0 || u[i-1] < 0xD800 || u[i-1] > 0xDBFF {
				return true
			}
		}
	}
	return false
}

func (s *state) mergeMappings(dst, src *Value, overridable map[string]bool) {
	// common.isObject: any non-null object (an array, a Date, a Buffer
	// too).
	if src == nil || src.Kind < Date {
		s.throw("cannot merge mappings; the provided source object is unacceptable")
	}
	for _, k := range ownKeys(src) {
		if !dst.obj.has(k) {
			dst.obj.set(k, ownValue(src, k))
			overridable[k] = true
		}
	}
}

// ownKeys is Object.keys(v) for an object value.
func ownKeys(v *Value) []string {
	switch v.Kind {
	case Map:
		return v.obj.keys
	case Seq:
		ks := make([]string, len(v.Elems))
		for i := range ks {
			ks[i] = fmt.Sprint(i)
		}
		return ks
	case Binary:
		ks := make([]string, len(v.Bytes))
		for i := range ks {
			ks[i] = fmt.Sprint(i)
		}
		return ks
	}
	return nil
}

func ownValue(v *Value, k string) *Value {
	switch v.Kind {
	case Map:
		return v.obj.vals[k]
	case Seq:
		var i int
		fmt.Sscan(k, &i)
		return v.Elems[i]
	case Binary:
		var i int
		fmt.Sscan(k, &i)
		return &Value{Kind: Number, Num: float64(v.Bytes[i])}
	}
	return nil
}

func (s *state) storeMappingPair(result *Value, overridable map[string]bool, keyTag string, keyNode, valueNode *Value, startLine, startPos int) *Value {
	if keyNode != nil && keyNode.Kind == Seq {
		cp := &Value{Kind: Seq, Elems: append([]*Value(nil), keyNode.Elems...)}
		for i, e := range cp.Elems {
			if e != nil && e.Kind == Seq {
				s.throw("nested arrays are not supported inside keys")
			}
			if e != nil && e.Kind == Map {
				cp.Elems[i] = &Value{Kind: String, str: stringToUnits("[object Object]")}
			}
		}
		keyNode = cp
	}
	key := jsString(keyNode)
	if result == nil {
		result = newObject()
	}
	if keyTag == "tag:yaml.org,2002:merge" {
		if valueNode != nil && valueNode.Kind == Seq {
			for _, e := range valueNode.Elems {
				s.mergeMappings(result, e, overridable)
			}
		} else {
			s.mergeMappings(result, valueNode, overridable)
		}
	} else {
		if !overridable[key] && result.obj.has(key) {
			if startLine != 0 {
				s.line = startLine
			}
			if startPos != 0 {
				s.position = startPos
			}
			s.throw("duplicated mapping key")
		}
		result.obj.set(key, valueNode)
		delete(overridable, key)
	}
	return result
}

func (s *state) readLineBreak() {
	switch s.at(s.position) {
	case 0x0A:
		s.position++
	case 0x0D:
		s.position++
		if s.at(s.position) == 0x0A {
			s.position++
		}
	default:
		s.throw("a line break is expected")
	}
	s.line++
	s.lineStart = s.position
}

func (s *state) skipSeparationSpace(allowComments bool, checkIndent int) int {
	lineBreaks := 0
	ch := s.at(s.position)
	for ch != 0 {
		for isWhiteSpace(ch) {
			s.position++
			ch = s.at(s.position)
		}
		if allowComments && ch == 0x23 {
			for {
				s.position++
				ch = s.at(s.position)
				if ch == 0x0A || ch == 0x0D || ch == 0 {
					break
				}
			}
		}
		if isEOL(ch) {
			s.readLineBreak()
			ch = s.at(s.position)
			lineBreaks++
			s.lineIndent = 0
			for ch == 0x20 {
				s.lineIndent++
				s.position++
				ch = s.at(s.position)
			}
		} else {
			break
		}
	}
	// (checkIndent only raises a warning.)
	return lineBreaks
}

func (s *state) testDocumentSeparator() bool {
	p := s.position
	ch := s.at(p)
	if (ch == 0x2D || ch == 0x2E) && ch == s.at(p+1) && ch == s.at(p+2) {
		p += 3
		ch = s.at(p)
		if ch == 0 || isWSOrEOL(ch) {
			return true
		}
	}
	return false
}

func (s *state) writeFoldedLines(count int) {
	r := s.str()
	if count == 1 {
		r.str = append(r.str, ' ')
	} else if count > 1 {
		for i := 0; i < count-1; i++ {
			r.str = append(r.str, '\n')
		}
	}
}

func (s *state) readPlainScalar(nodeIndent int, withinFlow bool) bool {
	kind, result := s.kind, s.result
	ch := s.at(s.position)
	if isWSOrEOL(ch) || isFlowIndicator(ch) || ch == 0x23 || ch == 0x26 || ch == 0x2A || ch == 0x21 ||
		ch == 0x7C || ch == 0x3E || ch == 0x27 || ch == 0x22 || ch == 0x25 || ch == 0x40 || ch == 0x60 {
		return false
	}
	if ch == 0x3F || ch == 0x2D {
		following := s.at(s.position + 1)
		if isWSOrEOL(following) || withinFlow && isFlowIndicator(following) {
			return false
		}
	}
	s.kind = "scalar"
	s.result = &Value{Kind: String, str: []uint16{}}
	captureStart, captureEnd := s.position, s.position
	hasPending := false
	var line, lineStart, lineIndent int
	for ch != 0 {
		if ch == 0x3A {
			following := s.at(s.position + 1)
			if isWSOrEOL(following) || withinFlow && isFlowIndicator(following) {
				break
			}
		} else if ch == 0x23 {
			if isWSOrEOL(s.at(s.position - 1)) {
				break
			}
		} else if (s.position == s.lineStart && s.testDocumentSeparator()) || withinFlow && isFlowIndicator(ch) {
			break
		} else if isEOL(ch) {
			line, lineStart, lineIndent = s.line, s.lineStart, s.lineIndent
			s.skipSeparationSpace(false, -1)
			if s.lineIndent >= nodeIndent {
				hasPending = true
				ch = s.at(s.position)
				continue
			}
			s.position = captureEnd
			s.line, s.lineStart, s.lineIndent = line, lineStart, lineIndent
			break
		}
		if hasPending {
			s.captureSegment(captureStart, captureEnd, false)
			s.writeFoldedLines(s.line - line)
			captureStart, captureEnd = s.position, s.position
			hasPending = false
		}
		if !isWhiteSpace(ch) {
			captureEnd = s.position + 1
		}
		s.position++
		ch = s.at(s.position)
	}
	s.captureSegment(captureStart, captureEnd, false)
	if len(s.result.str) > 0 {
		return true
	}
	s.kind, s.result = kind, result
	return false
}

func (s *state) readSingleQuotedScalar(nodeIndent int) bool {
	if s.at(s.position) != 0x27 {
		return false
	}
	s.kind = "scalar"
	s.result = &Value{Kind: String, str: []uint16{}}
	s.position++
	captureStart, captureEnd := s.position, s.position
	for {
		ch := s.at(s.position)
		if ch == 0 {
			break
		}
		if ch == 0x27 {
			s.captureSegment(captureStart, s.position, true)
			s.position++
			ch = s.at(s.position)
			if ch == 0x27 {
				captureStart = s.position
				s.position++
				captureEnd = s.position
			} else {
				return true
			}
		} else if isEOL(ch) {
			s.captureSegment(captureStart, captureEnd, true)
			s.writeFoldedLines(s.skipSeparationSpace(false, nodeIndent))
			captureStart, captureEnd = s.position, s.position
		} else if s.position == s.lineStart && s.testDocumentSeparator() {
			s.throw("unexpected end of the document within a single quoted scalar")
		} else {
			s.position++
			captureEnd = s.position
		}
	}
	s.throw("unexpected end of the stream within a single quoted scalar")
	return false
}

func (s *state) readDoubleQuotedScalar(nodeIndent int) bool {
	if s.at(s.position) != 0x22 {
		return false
	}
	s.kind = "scalar"
	s.result = &Value{Kind: String, str: []uint16{}}
	s.position++
	captureStart, captureEnd := s.position, s.position
	for {
		ch := s.at(s.position)
		if ch == 0 {
			break
		}
		if ch == 0x22 {
			s.captureSegment(captureStart, s.position, true)
			s.position++
			return true
		} else if ch == 0x5C {
			s.captureSegment(captureStart, s.position, true)
			s.position++
			ch = s.at(s.position)
			if isEOL(ch) {
				s.skipSeparationSpace(false, nodeIndent)
			} else if esc, ok := simpleEscape(ch); ch >= 0 && ch < 256 && ok {
				r := s.str()
				r.str = append(r.str, stringToUnits(esc)...)
				s.position++
			} else if n := escapedHexLen(ch); n > 0 {
				hex := 0
				for ; n > 0; n-- {
					s.position++
					ch = s.at(s.position)
					if d := fromHexCode(ch); d >= 0 {
						hex = int(int32(hex<<4)) + d // (hexResult << 4) is a 32-bit shift
					} else {
						s.throw("expected hexadecimal character")
					}
				}
				r := s.str()
				r.str = appendCodepoint(r.str, hex)
				s.position++
			} else {
				s.throw("unknown escape sequence")
			}
			captureStart, captureEnd = s.position, s.position
		} else if isEOL(ch) {
			s.captureSegment(captureStart, captureEnd, true)
			s.writeFoldedLines(s.skipSeparationSpace(false, nodeIndent))
			captureStart, captureEnd = s.position, s.position
		} else if s.position == s.lineStart && s.testDocumentSeparator() {
			s.throw("unexpected end of the document within a double quoted scalar")
		} else {
			s.position++
			captureEnd = s.position
		}
	}
	s.throw("unexpected end of the stream within a double quoted scalar")
	return false
}

func (s *state) readFlowCollection(nodeIndent int) bool {
	readNext := true
	tag, hasTag, anchor, hasAnchor := s.tag, s.hasTag, s.anchor, s.hasAnchor
	overridable := map[string]bool{}
	var result *Value
	var terminator int
	isMapping := false
	switch s.at(s.position) {
	case 0x5B:
		terminator = 0x5D
		result = &Value{Kind: Seq}
	case 0x7B:
		terminator = 0x7D
		isMapping = true
		result = newObject()
	default:
		return false
	}
	if s.hasAnchor {
		s.anchorMap[s.anchor] = result
	}
	s.position++
	ch := s.at(s.position)
	for ch != 0 {
		s.skipSeparationSpace(true, nodeIndent)
		ch = s.at(s.position)
		if ch == terminator {
			s.position++
			s.tag, s.hasTag, s.anchor, s.hasAnchor = tag, hasTag, anchor, hasAnchor
			if isMapping {
				s.kind = "mapping"
			} else {
				s.kind = "sequence"
			}
			s.result = result
			return true
		} else if !readNext {
			s.throw("missed comma between flow collection entries")
		}
		var keyNode, valueNode *Value
		keyTag := ""
		isPair, isExplicitPair := false, false
		if ch == 0x3F {
			if isWSOrEOL(s.at(s.position + 1)) {
				isPair, isExplicitPair = true, true
				s.position++
				s.skipSeparationSpace(true, nodeIndent)
			}
		}
		line := s.line
		s.composeNode(nodeIndent, contextFlowIn, false, true)
		keyTag = s.tagOrEmpty()
		keyNode = s.result
		s.skipSeparationSpace(true, nodeIndent)
		ch = s.at(s.position)
		if (isExplicitPair || s.line == line) && ch == 0x3A {
			isPair = true
			s.position++
			s.skipSeparationSpace(true, nodeIndent)
			s.composeNode(nodeIndent, contextFlowIn, false, true)
			valueNode = s.result
		}
		if isMapping {
			s.storeMappingPair(result, overridable, keyTag, keyNode, valueNode, 0, 0)
		} else if isPair {
			result.Elems = append(result.Elems, s.storeMappingPair(nil, overridable, keyTag, keyNode, valueNode, 0, 0))
		} else {
			result.Elems = append(result.Elems, keyNode)
		}
		s.skipSeparationSpace(true, nodeIndent)
		ch = s.at(s.position)
		if ch == 0x2C {
			readNext = true
			s.position++
			ch = s.at(s.position)
		} else {
			readNext = false
		}
	}
	s.throw("unexpected end of the stream within a flow collection")
	return false
}

func (s *state) tagOrEmpty() string {
	if s.hasTag {
		return s.tag
	}
	return ""
}

func (s *state) readBlockScalar(nodeIndent int) bool {
	chomping := chompingClip
	didReadContent, detectedIndent := false, false
	textIndent := nodeIndent
	emptyLines := 0
	atMoreIndented := false
	folding := false
	ch := s.at(s.position)
	switch ch {
	case 0x7C:
		folding = false
	case 0x3E:
		folding = true
	default:
		return false
	}
	s.kind = "scalar"
	s.result = &Value{Kind: String, str: []uint16{}}
	r := s.result
	for ch != 0 {
		s.position++
		ch = s.at(s.position)
		if ch == 0x2B || ch == 0x2D {
			if chomping == chompingClip {
				if ch == 0x2B {
					chomping = chompingKeep
				} else {
					chomping = chompingStrip
				}
			} else {
				s.throw("repeat of a chomping mode identifier")
			}
		} else if d := fromDecimalCode(ch); d >= 0 {
			if d == 0 {
				s.throw("bad explicit indentation width of a block scalar; it cannot be less than one")
			} else if !detectedIndent {
				textIndent = nodeIndent + d - 1
				detectedIndent = true
			} else {
				s.throw("repeat of an indentation width identifier")
			}
		} else {
			break
		}
	}
	if isWhiteSpace(ch) {
		for {
			s.position++
			ch = s.at(s.position)
			if !isWhiteSpace(ch) {
				break
			}
		}
		if ch == 0x23 {
			for {
				s.position++
				ch = s.at(s.position)
				if isEOL(ch) || ch == 0 {
					break
				}
			}
		}
	}
	nl := func(n int) {
		for i := 0; i < n; i++ {
			r.str = append(r.str, '\n')
		}
	}
	for ch != 0 {
		s.readLineBreak()
		s.lineIndent = 0
		ch = s.at(s.position)
		for (!detectedIndent || s.lineIndent < textIndent) && ch == 0x20 {
			s.lineIndent++
			s.position++
			ch = s.at(s.position)
		}
		if !detectedIndent && s.lineIndent > textIndent {
			textIndent = s.lineIndent
		}
		if isEOL(ch) {
			emptyLines++
			continue
		}
		if s.lineIndent < textIndent {
			if chomping == chompingKeep {
				if didReadContent {
					nl(1 + emptyLines)
				} else {
					nl(emptyLines)
				}
			} else if chomping == chompingClip {
				if didReadContent {
					nl(1)
				}
			}
			break
		}
		if folding {
			if isWhiteSpace(ch) {
				atMoreIndented = true
				if didReadContent {
					nl(1 + emptyLines)
				} else {
					nl(emptyLines)
				}
			} else if atMoreIndented {
				atMoreIndented = false
				nl(emptyLines + 1)
			} else if emptyLines == 0 {
				if didReadContent {
					r.str = append(r.str, ' ')
				}
			} else {
				nl(emptyLines)
			}
		} else {
			if didReadContent {
				nl(1 + emptyLines)
			} else {
				nl(emptyLines)
			}
		}
		didReadContent = true
		detectedIndent = true
		emptyLines = 0
		captureStart := s.position
		for !isEOL(ch) && ch != 0 {
			s.position++
			ch = s.at(s.position)
		}
		s.captureSegment(captureStart, s.position, false)
	}
	return true
}

func (s *state) readBlockSequence(nodeIndent int) bool {
	tag, hasTag, anchor, hasAnchor := s.tag, s.hasTag, s.anchor, s.hasAnchor
	result := &Value{Kind: Seq}
	detected := false
	if s.hasAnchor {
		s.anchorMap[s.anchor] = result
	}
	ch := s.at(s.position)
	for ch != 0 {
		if ch != 0x2D {
			break
		}
		if !isWSOrEOL(s.at(s.position + 1)) {
			break
		}
		detected = true
		s.position++
		if s.skipSeparationSpace(true, -1) > 0 {
			if s.lineIndent <= nodeIndent {
				result.Elems = append(result.Elems, nil)
				ch = s.at(s.position)
				continue
			}
		}
		line := s.line
		s.composeNode(nodeIndent, contextBlockIn, false, true)
		result.Elems = append(result.Elems, s.result)
		s.skipSeparationSpace(true, -1)
		ch = s.at(s.position)
		if (s.line == line || s.lineIndent > nodeIndent) && ch != 0 {
			s.throw("bad indentation of a sequence entry")
		} else if s.lineIndent < nodeIndent {
			break
		}
	}
	if detected {
		s.tag, s.hasTag, s.anchor, s.hasAnchor = tag, hasTag, anchor, hasAnchor
		s.kind = "sequence"
		s.result = result
		return true
	}
	return false
}

func (s *state) readBlockMapping(nodeIndent, flowIndent int) bool {
	tag, hasTag, anchor, hasAnchor := s.tag, s.hasTag, s.anchor, s.hasAnchor
	result := newObject()
	overridable := map[string]bool{}
	keyTag := ""
	var keyNode, valueNode *Value
	atExplicitKey, detected, allowCompact := false, false, false
	if s.hasAnchor {
		s.anchorMap[s.anchor] = result
	}
	ch := s.at(s.position)
	for ch != 0 {
		following := s.at(s.position + 1)
		line := s.line
		pos := s.position
		if (ch == 0x3F || ch == 0x3A) && isWSOrEOL(following) {
			if ch == 0x3F {
				if atExplicitKey {
					s.storeMappingPair(result, overridable, keyTag, keyNode, nil, 0, 0)
					keyTag, keyNode, valueNode = "", nil, nil
				}
				detected = true
				atExplicitKey = true
				allowCompact = true
			} else if atExplicitKey {
				atExplicitKey = false
				allowCompact = true
			} else {
				s.throw("incomplete explicit mapping pair; a key node is missed; or followed by a non-tabulated empty line")
			}
			s.position++
			ch = following
		} else if s.composeNode(flowIndent, contextFlowOut, false, true) {
			if s.line == line {
				ch = s.at(s.position)
				for isWhiteSpace(ch) {
					s.position++
					ch = s.at(s.position)
				}
				if ch == 0x3A {
					s.position++
					ch = s.at(s.position)
					if !isWSOrEOL(ch) {
						s.throw("a whitespace character is expected after the key-value separator within a block mapping")
					}
					if atExplicitKey {
						s.storeMappingPair(result, overridable, keyTag, keyNode, nil, 0, 0)
						keyTag, keyNode, valueNode = "", nil, nil
					}
					detected = true
					atExplicitKey = false
					allowCompact = false
					keyTag = s.tagOrEmpty()
					keyNode = s.result
				} else if detected {
					s.throw("can not read an implicit mapping pair; a colon is missed")
				} else {
					s.tag, s.hasTag, s.anchor, s.hasAnchor = tag, hasTag, anchor, hasAnchor
					return true
				}
			} else if detected {
				s.throw("can not read a block mapping entry; a multiline key may not be an implicit key")
			} else {
				s.tag, s.hasTag, s.anchor, s.hasAnchor = tag, hasTag, anchor, hasAnchor
				return true
			}
		} else {
			break
		}
		if s.line == line || s.lineIndent > nodeIndent {
			if s.composeNode(nodeIndent, contextBlockOut, true, allowCompact) {
				if atExplicitKey {
					keyNode = s.result
				} else {
					valueNode = s.result
				}
			}
			if !atExplicitKey {
				s.storeMappingPair(result, overridable, keyTag, keyNode, valueNode, line, pos)
				keyTag, keyNode, valueNode = "", nil, nil
			}
			s.skipSeparationSpace(true, -1)
			ch = s.at(s.position)
		}
		if s.lineIndent > nodeIndent && ch != 0 {
			s.throw("bad indentation of a mapping entry")
		} else if s.lineIndent < nodeIndent {
			break
		}
	}
	if atExplicitKey {
		s.storeMappingPair(result, overridable, keyTag, keyNode, nil, 0, 0)
	}
	if detected {
		s.tag, s.hasTag, s.anchor, s.hasAnchor = tag, hasTag, anchor, hasAnchor
		s.kind = "mapping"
		s.result = result
	}
	return detected
}

func (s *state) slice(a, b int) string {
	if b > len(s.input) {
		b = len(s.input)
	}
	if a > b {
		return ""
	}
	return UnitsToString(s.input[a:b])
}

func (s *state) readTagProperty() bool {
	ch := s.at(s.position)
	if ch != 0x21 {
		return false
	}
	if s.hasTag {
		s.throw("duplication of a tag property")
	}
	isVerbatim, isNamed := false, false
	tagHandle := ""
	s.position++
	ch = s.at(s.position)
	if ch == 0x3C {
		isVerbatim = true
		s.position++
		ch = s.at(s.position)
	} else if ch == 0x21 {
		isNamed = true
		tagHandle = "!!"
		s.position++
		ch = s.at(s.position)
	} else {
		tagHandle = "!"
	}
	start := s.position
	var tagName string
	if isVerbatim {
		for {
			s.position++
			ch = s.at(s.position)
			if ch == 0 || ch == 0x3E || ch == -1 {
				break
			}
		}
		if s.position < s.length {
			tagName = s.slice(start, s.position)
			s.position++
		} else {
			s.throw("unexpected end of the stream within a verbatim tag")
		}
	} else {
		for ch != 0 && !isWSOrEOL(ch) && ch != -1 {
			if ch == 0x21 {
				if !isNamed {
					tagHandle = s.slice(start-1, s.position+1)
					if !patternTagHandle.MatchString(tagHandle) {
						s.throw("named tag handle cannot contain such characters")
					}
					isNamed = true
					start = s.position + 1
				} else {
					s.throw("tag suffix cannot contain exclamation marks")
				}
			}
			s.position++
			ch = s.at(s.position)
		}
		tagName = s.slice(start, s.position)
		if strings.ContainsAny(tagName, ",[]{}") {
			s.throw("tag suffix cannot contain flow indicator characters")
		}
	}
	if tagName != "" && !patternTagURI.MatchString(tagName) {
		s.throw("tag name cannot contain such characters: " + tagName)
	}
	switch {
	case isVerbatim:
		s.tag = tagName
	case hasOwn(s.tagMap, tagHandle):
		s.tag = s.tagMap[tagHandle] + tagName
	case tagHandle == "!":
		s.tag = "!" + tagName
	case tagHandle == "!!":
		s.tag = "tag:yaml.org,2002:" + tagName
	default:
		s.throw(`undeclared tag handle "` + tagHandle + `"`)
	}
	s.hasTag = true
	return true
}

func hasOwn[T any](m map[string]T, k string) bool { _, ok := m[k]; return ok }

func (s *state) readAnchorProperty() bool {
	ch := s.at(s.position)
	if ch != 0x26 {
		return false
	}
	if s.hasAnchor {
		s.throw("duplication of an anchor property")
	}
	s.position++
	ch = s.at(s.position)
	start := s.position
	for ch != 0 && ch != -1 && !isWSOrEOL(ch) && !isFlowIndicator(ch) {
		s.position++
		ch = s.at(s.position)
	}
	if s.position == start {
		s.throw("name of an anchor node must contain at least one character")
	}
	s.anchor, s.hasAnchor = s.slice(start, s.position), true
	return true
}

func (s *state) readAlias() bool {
	ch := s.at(s.position)
	if ch != 0x2A {
		return false
	}
	s.position++
	ch = s.at(s.position)
	start := s.position
	for ch != 0 && ch != -1 && !isWSOrEOL(ch) && !isFlowIndicator(ch) {
		s.position++
		ch = s.at(s.position)
	}
	if s.position == start {
		s.throw("name of an alias node must contain at least one character")
	}
	alias := s.slice(start, s.position)
	v, ok := s.anchorMap[alias]
	if !ok {
		s.throw(`unidentified alias "` + alias + `"`)
	}
	s.result = v
	s.skipSeparationSpace(true, -1)
	return true
}

func (s *state) composeNode(parentIndent, nodeContext int, allowToSeek, allowCompact bool) bool {
	indentStatus := 1
	atNewLine, hasContent := false, false
	s.tag, s.hasTag, s.anchor, s.hasAnchor, s.kind, s.result = "", false, "", false, "", nil
	allowBlockStyles := nodeContext == contextBlockOut || nodeContext == contextBlockIn
	allowBlockScalars, allowBlockCollections := allowBlockStyles, allowBlockStyles
	status := func() {
		switch {
		case s.lineIndent > parentIndent:
			indentStatus = 1
		case s.lineIndent == parentIndent:
			indentStatus = 0
		default:
			indentStatus = -1
		}
	}
	if allowToSeek {
		if s.skipSeparationSpace(true, -1) > 0 {
			atNewLine = true
			status()
		}
	}
	if indentStatus == 1 {
		for s.readTagProperty() || s.readAnchorProperty() {
			if s.skipSeparationSpace(true, -1) > 0 {
				atNewLine = true
				allowBlockCollections = allowBlockStyles
				status()
			} else {
				allowBlockCollections = false
			}
		}
	}
	if allowBlockCollections {
		allowBlockCollections = atNewLine || allowCompact
	}
	if indentStatus == 1 || nodeContext == contextBlockOut {
		flowIndent := parentIndent + 1
		if nodeContext == contextFlowIn || nodeContext == contextFlowOut {
			flowIndent = parentIndent
		}
		blockIndent := s.position - s.lineStart
		if indentStatus == 1 {
			if allowBlockCollections && (s.readBlockSequence(blockIndent) || s.readBlockMapping(blockIndent, flowIndent)) ||
				s.readFlowCollection(flowIndent) {
				hasContent = true
			} else {
				if (allowBlockScalars && s.readBlockScalar(flowIndent)) || s.readSingleQuotedScalar(flowIndent) || s.readDoubleQuotedScalar(flowIndent) {
					hasContent = true
				} else if s.readAlias() {
					hasContent = true
					if s.hasTag || s.hasAnchor {
						s.throw("alias node should not have any properties")
					}
				} else if s.readPlainScalar(flowIndent, nodeContext == contextFlowIn) {
					hasContent = true
					if !s.hasTag {
						s.tag, s.hasTag = "?", true
					}
				}
				if s.hasAnchor {
					s.anchorMap[s.anchor] = s.result
				}
			}
		} else if indentStatus == 0 {
			hasContent = allowBlockCollections && s.readBlockSequence(blockIndent)
		}
	}
	if s.hasTag && s.tag != "!" {
		if s.tag == "?" {
			if s.result != nil && s.kind != "scalar" {
				s.throw(`unacceptable node kind for !<?> tag; it should be "scalar", not "` + s.kind + `"`)
			}
			if v, tag, ok := resolveImplicit(s.result); ok {
				s.result, s.tag = v, tag
				if s.hasAnchor {
					s.anchorMap[s.anchor] = s.result
				}
			}
		} else {
			kind := s.kind
			if kind == "" {
				kind = "fallback"
			}
			t, ok := lookupType(kind, s.tag)
			if !ok {
				s.throw("unknown tag !<" + s.tag + ">")
			}
			if s.result != nil && t.kind != s.kind {
				s.throw("unacceptable node kind for !<" + s.tag + `> tag; it should be "` + t.kind + `", not "` + s.kind + `"`)
			}
			v, ok := t.resolveConstruct(s.result)
			if !ok {
				s.throw("cannot resolve a node with !<" + s.tag + "> explicit tag")
			}
			s.result = v
			if s.hasAnchor {
				s.anchorMap[s.anchor] = s.result
			}
		}
	}
	return s.hasTag || s.hasAnchor || hasContent
}

func (s *state) readDocument() {
	s.version = false
	s.tagMap = map[string]string{}
	s.anchorMap = map[string]*Value{}
	hasDirectives := false
	for s.at(s.position) != 0 {
		s.skipSeparationSpace(true, -1)
		ch := s.at(s.position)
		if s.lineIndent > 0 || ch != 0x25 {
			break
		}
		hasDirectives = true
		s.position++
		ch = s.at(s.position)
		start := s.position
		for ch != 0 && ch != -1 && !isWSOrEOL(ch) {
			s.position++
			ch = s.at(s.position)
		}
		name := s.slice(start, s.position)
		var args []string
		if name == "" {
			s.throw("directive name must not be less than one character in length")
		}
		for ch != 0 && ch != -1 {
			for isWhiteSpace(ch) {
				s.position++
				ch = s.at(s.position)
			}
			if ch == 0x23 {
				for {
					s.position++
					ch = s.at(s.position)
					if ch == 0 || ch == -1 || isEOL(ch) {
						break
					}
				}
				break
			}
			if isEOL(ch) {
				break
			}
			start = s.position
			for ch != 0 && ch != -1 && !isWSOrEOL(ch) {
				s.position++
				ch = s.at(s.position)
			}
			args = append(args, s.slice(start, s.position))
		}
		if ch != 0 {
			s.readLineBreak()
		}
		switch name {
		case "YAML":
			s.yamlDirective(args)
		case "TAG":
			s.tagDirective(args)
		}
	}
	s.skipSeparationSpace(true, -1)
	if s.lineIndent == 0 && s.at(s.position) == 0x2D && s.at(s.position+1) == 0x2D && s.at(s.position+2) == 0x2D {
		s.position += 3
		s.skipSeparationSpace(true, -1)
	} else if hasDirectives {
		s.throw("directives end mark is expected")
	}
	s.composeNode(s.lineIndent-1, contextBlockOut, false, true)
	s.skipSeparationSpace(true, -1)
	s.documents = append(s.documents, s.result)
	if s.position == s.lineStart && s.testDocumentSeparator() {
		if s.at(s.position) == 0x2E {
			s.position += 3
			s.skipSeparationSpace(true, -1)
		}
		return
	}
	if s.position < s.length-1 {
		s.throw("end of the stream or a document separator is expected")
	}
}

var yamlVersion = regexp.MustCompile(`^([0-9]+)\.([0-9]+)$`)

func (s *state) yamlDirective(args []string) {
	if s.version {
		s.throw("duplication of %YAML directive")
	}
	if len(args) != 1 {
		s.throw("YAML directive accepts exactly one argument")
	}
	m := yamlVersion.FindStringSubmatch(args[0])
	if m == nil {
		s.throw("ill-formed argument of the YAML directive")
	}
	if strings.TrimLeft(m[1], "0") != "1" {
		s.throw("unacceptable YAML version of the document")
	}
	s.version = true
}

func (s *state) tagDirective(args []string) {
	if len(args) != 2 {
		s.throw("TAG directive accepts exactly two arguments")
	}
	handle, prefix := args[0], args[1]
	if !patternTagHandle.MatchString(handle) {
		s.throw("ill-formed tag handle (first argument) of the TAG directive")
	}
	if hasOwn(s.tagMap, handle) {
		s.throw(`there is a previously declared suffix for "` + handle + `" tag handle`)
	}
	if !patternTagURI.MatchString(prefix) {
		s.throw("ill-formed tag prefix (second argument) of the TAG directive")
	}
	s.tagMap[handle] = prefix
}

// SafeLoad is js-yaml's safeLoad(input): the one document's value (nil:
// null or undefined, as for an empty stream), or the YAMLException it
// throws.
func SafeLoad(input string) (v *Value, err error) {
	u := stringToUnits(input)
	if len(u) != 0 {
		if c := u[len(u)-1]; c != 0x0A && c != 0x0D {
			u = append(u, 0x0A)
		}
		if u[0] == 0xFEFF {
			u = u[1:]
		}
	}
	s := &state{input: u, length: len(u)}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			v, err = nil, e
		}
	}()
	for i, c := range u {
		if c == 0 {
			s.position = i
			s.throw("null byte is not allowed in input")
		}
	}
	s.input = append(u, 0)
	for s.at(s.position) == 0x20 {
		s.lineIndent++
		s.position++
	}
	for s.position < s.length-1 {
		s.readDocument()
	}
	switch len(s.documents) {
	case 0:
		return nil, nil
	case 1:
		return s.documents[0], nil
	}
	return nil, &Error{Msg: "expected a single document in the stream, but found more"}
}
