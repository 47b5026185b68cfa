package briefing

import (
	"strings"
)

// This file reads the compact history: an optional <previous-chat-history>
// block, then <user> and <assistant> turns joined by newlines. The reader
// never fails: whatever is not a recognised element is kept as stray text.

type role uint8

const (
	roleUser role = iota
	roleAssistant
	roleOther // text outside any element
)

// turn is one message of the history.
type turn struct {
	role role

	// user turns
	slash       []string // invoked command names, in order
	hasAttached bool
	attached    []string
	hasMention  bool
	mentioned   []string

	// user and stray text: unescaped, without the annotation lines
	text      string
	words     string // text ready to quote (userWords), once computed
	wordsDone bool
	keys      []string // key sentences of words (keySentences), once computed
	keysDone  bool

	// assistant turns: prose blocks and tool markers in order
	items []item
}

// item is a prose block or a tool marker of an assistant turn.
type item struct {
	text string
	ev   *event

	// prose, once computed
	done                       bool
	words, planFull, planShort string
}

type parsed struct {
	prev    string
	hasPrev bool
	turns   []turn
}

// empty reports whether the turn carries nothing to record.
func (t *turn) empty() bool {
	switch t.role {
	case roleAssistant:
		for _, it := range t.items {
			if it.ev != nil || strings.TrimSpace(it.text) != "" {
				return false
			}
		}
		return true
	case roleUser:
		return len(t.slash) == 0 && !t.hasAttached && !t.hasMention && strings.TrimSpace(t.text) == ""
	}
	return strings.TrimSpace(t.text) == ""
}

const (
	tagPrev      = "<previous-chat-history>"
	tagPrevEnd   = "</previous-chat-history>"
	tagUser      = "<user>"
	tagUserEnd   = "</user>"
	tagAsst      = "<assistant>"
	tagAsstEnd   = "</assistant>"
	tagSlash     = "<slash-command"
	tagSlashEnd  = "</slash-command>"
	tagCDATA     = "<![CDATA["
	tagChat      = "<chat-history>"
	tagChatEnd   = "</chat-history>"
	cdataEnd     = "]]>"
	maxSlashOpen = 4096 // bytes an opening <slash-command …> tag may take
	maxMarkerRun = 40   // lines a multi-line marker may span
)

func parse(s string) parsed {
	var p parsed
	var stray strings.Builder
	flush := func() {
		if t := strings.TrimSpace(stray.String()); t != "" {
			p.turns = append(p.turns, turn{role: roleOther, text: unescape(t)})
		}
		stray.Reset()
	}
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			stray.WriteString(s[i:])
			break
		}
		stray.WriteString(s[i : i+j])
		i += j
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, tagUser):
			flush()
			t, n := parseUser(rest[len(tagUser):])
			p.turns = append(p.turns, t)
			i += len(tagUser) + n
		case strings.HasPrefix(rest, tagAsst):
			flush()
			t, n := parseAssistant(rest[len(tagAsst):])
			p.turns = append(p.turns, t)
			i += len(tagAsst) + n
		case strings.HasPrefix(rest, tagPrev) && !p.hasPrev:
			flush()
			body, n := prevBody(rest[len(tagPrev):])
			p.prev, p.hasPrev = body, strings.TrimSpace(body) != ""
			i += len(tagPrev) + n
		case strings.HasPrefix(rest, tagChat):
			i += len(tagChat)
		case strings.HasPrefix(rest, tagChatEnd):
			i += len(tagChatEnd)
		default:
			stray.WriteByte('<')
			i++
		}
	}
	flush()
	return p
}

// prevBody finds the end of the previous briefing. The briefing is raw text,
// so the closing tag that counts is the first one followed by a turn or by
// the end of the input; failing that, the first one; failing that, the rest.
func prevBody(s string) (body string, consumed int) {
	first := -1
	for k := 0; ; {
		j := strings.Index(s[k:], tagPrevEnd)
		if j < 0 {
			break
		}
		at := k + j
		if first < 0 {
			first = at
		}
		after := strings.TrimLeft(s[at+len(tagPrevEnd):], " \t\r\n")
		if after == "" || strings.HasPrefix(after, tagUser) || strings.HasPrefix(after, tagAsst) || strings.HasPrefix(after, tagChatEnd) {
			return s[:at], at + len(tagPrevEnd)
		}
		k = at + len(tagPrevEnd)
	}
	if first >= 0 {
		return s[:first], first + len(tagPrevEnd)
	}
	return s, len(s)
}

// turnBreak reports whether a '<' inside a turn ends it: n > 0 for a closing tag
// to consume, stop for the start of another turn.
func turnBreak(r, closing string) (n int, stop bool) {
	if strings.HasPrefix(r, closing) {
		return len(closing), true
	}
	if strings.HasPrefix(r, tagUser) || strings.HasPrefix(r, tagAsst) {
		return 0, true
	}
	return 0, false
}

func parseUser(s string) (turn, int) {
	t := turn{role: roleUser}
	var text strings.Builder
	k := 0
	slashOK := true // false once a slash-command element cannot end anywhere
	for k < len(s) {
		j := strings.IndexByte(s[k:], '<')
		if j < 0 {
			text.WriteString(s[k:])
			k = len(s)
			break
		}
		text.WriteString(s[k : k+j])
		k += j
		r := s[k:]
		if n, stop := turnBreak(r, tagUserEnd); stop {
			k += n
			break
		}
		if slashOK && strings.HasPrefix(r, tagSlash) {
			name, n, ok, hopeless := parseSlash(r)
			slashOK = !hopeless
			if ok {
				t.slash = append(t.slash, name)
				k += n
				if k < len(s) && s[k] == '\n' {
					k++
				}
				continue
			}
		}
		text.WriteByte('<')
		k++
	}
	t.text = userAnnotations(&t, text.String())
	return t, k
}

// parseSlash reads one <slash-command id=… name=…><![CDATA[…]]></slash-command>
// element (the body may be split into several CDATA sections) and returns the
// command's name; the body is never kept. hopeless says that no element can
// end anywhere in r, so later ones need not be tried.
func parseSlash(r string) (name string, n int, ok, hopeless bool) {
	gt := strings.IndexByte(r[:min(len(r), maxSlashOpen)], '>')
	if gt < 0 {
		return "", 0, false, false
	}
	open := r[:gt]
	if strings.IndexByte(open[1:], '<') >= 0 {
		return "", 0, false, false
	}
	id, nm := attr(open, "id"), attr(open, "name")
	name = id
	if c := strings.LastIndexByte(id, ':'); c >= 0 {
		name = id[c+1:]
	}
	if strings.TrimSpace(name) == "" {
		name = nm
	}
	if strings.TrimSpace(name) == "" {
		name = "unnamed"
	}
	pos := gt + 1
	for {
		rest := r[pos:]
		switch {
		case strings.HasPrefix(rest, tagCDATA):
			e := strings.Index(rest[len(tagCDATA):], cdataEnd)
			if e < 0 {
				return "", 0, false, true
			}
			pos += len(tagCDATA) + e + len(cdataEnd)
		case strings.HasPrefix(rest, tagSlashEnd):
			return unescape(name), pos + len(tagSlashEnd), true, false
		default:
			// Not the shape the serializer writes: skip to the closing tag
			// when there is one, so the body is still not restated.
			if e := strings.Index(rest, tagSlashEnd); e >= 0 {
				return unescape(name), pos + e + len(tagSlashEnd), true, false
			}
			return "", 0, false, true
		}
	}
}

func attr(open, key string) string {
	k := strings.Index(open, " "+key+`="`)
	if k < 0 {
		return ""
	}
	v := open[k+len(key)+3:]
	if e := strings.IndexByte(v, '"'); e >= 0 {
		return v[:e]
	}
	return v
}

// userAnnotations takes the leading [attached: …] and [mentioned: …] lines
// off a user turn's text and returns the rest, unescaped.
func userAnnotations(t *turn, s string) string {
	for {
		line, rest, _ := strings.Cut(s, "\n")
		switch {
		case !t.hasAttached && !t.hasMention && strings.HasPrefix(line, "[attached: ") && strings.HasSuffix(line, "]"):
			t.hasAttached = true
			t.attached = names(line[len("[attached: ") : len(line)-1])
		case !t.hasMention && strings.HasPrefix(line, "[mentioned: ") && strings.HasSuffix(line, "]"):
			t.hasMention = true
			t.mentioned = names(line[len("[mentioned: ") : len(line)-1])
		default:
			return unescape(s)
		}
		s = rest
	}
}

func names(list string) []string {
	var out []string
	for _, n := range strings.Split(list, ", ") {
		if n = strings.TrimSpace(unescape(n)); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func parseAssistant(s string) (turn, int) {
	t := turn{role: roleAssistant}
	end, n := len(s), len(s)
	for k := 0; k < len(s); {
		j := strings.IndexByte(s[k:], '<')
		if j < 0 {
			break
		}
		k += j
		if c, stop := turnBreak(s[k:], tagAsstEnd); stop {
			end, n = k, k+c
			break
		}
		k++
	}
	lines := strings.Split(s[:end], "\n")
	var block []string
	flushBlock := func() {
		if len(block) > 0 {
			t.items = append(t.items, item{text: unescape(strings.Join(block, "\n"))})
			block = block[:0]
		}
	}
	for li := 0; li < len(lines); li++ {
		if ev, used := markerAt(lines, li); ev != nil {
			flushBlock()
			t.items = append(t.items, item{ev: ev})
			li += used - 1
			continue
		}
		block = append(block, lines[li])
	}
	flushBlock()
	return t, n
}

// markerAt parses the tool marker that starts at lines[li], which may run
// over a few lines when an explanation or an answer held a newline.
func markerAt(lines []string, li int) (*event, int) {
	ln := lines[li]
	if len(ln) < 3 || ln[0] != '[' || !markerPrefix(ln[1:]) {
		return nil, 0
	}
	if strings.HasSuffix(ln, "]") {
		if ev := parseMarker(ln[1 : len(ln)-1]); ev != nil {
			return ev, 1
		}
		return nil, 0
	}
	total := len(ln)
	for k := li + 1; k < len(lines) && k-li < maxMarkerRun && total < 4000; k++ {
		total += len(lines[k])
		if strings.HasSuffix(lines[k], "]") {
			joined := strings.Join(lines[li:k+1], " ")
			if ev := parseMarker(joined[1 : len(joined)-1]); ev != nil {
				return ev, k - li + 1
			}
			return nil, 0
		}
	}
	return nil, 0
}
