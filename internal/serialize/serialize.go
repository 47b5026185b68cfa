package serialize

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"os"
	"regexp"
	"strings"
	"unsafe"

	"github.com/compactlab/compact/internal/history"
)

// SlashItem is one resolved slash command: its id, display name and body.
type SlashItem struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Content     string `json:"content"`
}

// Options of one serialization.
type Options struct {
	// Profile defaults to e3e.
	Profile *Profile
	// Slash holds the resolved slash commands by id. Empty or nil: slash
	// links stay as typed.
	Slash map[string]SlashItem
}

// Tags of the compact history.
const (
	PrevOpen  = "<previous-chat-history>"
	PrevClose = "</previous-chat-history>"
)

// errThrow stands for a JavaScript exception inside a part or message.
type jsError struct{ msg string }

func (e *jsError) Error() string { return e.msg }

func throwf(msg string) error { return &jsError{msg: msg} }

// Serialize is convertAgentMessagesToCompactMessageHistoryString(msgs):
// from the last message back to the first summary-carrying one, user and
// assistant turns in order, joined with "\n", no trailing newline.
func Serialize(msgs []history.Value, opts Options) string {
	return string(AppendSerialize(nil, msgs, opts))
}

// AppendSerialize appends Serialize(msgs, opts) to dst.
//
// The upstream walks backwards and stops at the last message whose
// metadata.compressedHistory is truthy; this finds that message first
// (Start) and then writes forwards (AppendSerializeFrom), which gives the
// same text without a reversal.
func AppendSerialize(dst []byte, msgs []history.Value, opts Options) []byte {
	start, summary := Start(msgs)
	return AppendSerializeFrom(dst, msgs, start, summary, opts)
}

// Start returns where the serialization of msgs begins: the index of the
// last message whose metadata.compressedHistory is truthy, and that
// summary; 0 and undefined when no message has one.
func Start(msgs []history.Value) (int, history.Value) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].IsNullish() {
			continue
		}
		if ch := history.CompressedHistory(msgs[i]); ch.Truthy() {
			return i, ch
		}
	}
	return 0, history.Value{}
}

// AppendSerializeFrom is AppendSerialize for a caller that already knows
// Start(msgs): start and summary must be what Start returns, which lets a
// caller serializing many prefixes of one chat read each message's summary
// once.
func AppendSerializeFrom(dst []byte, msgs []history.Value, start int, summary history.Value, opts Options) []byte {
	p := opts.Profile
	if p == nil {
		p = Profiles["e3e"]
	}
	slash := opts.Slash
	if !p.SlashCommands {
		slash = nil
	}
	base := len(dst)
	b := dst
	if summary.Truthy() {
		b = append(b, PrevOpen...)
		b = append(b, history.ToString(summary)...)
		b = append(b, PrevClose...)
	}
	for _, msg := range msgs[start:] {
		mark := len(b)
		if mark > base {
			b = append(b, '\n')
		}
		body := len(b)
		nb, err := appendMessage(b, msg, p, slash)
		if err != nil || len(nb) == body {
			b = nb[:mark] // skipped: nothing, or the message threw
			continue
		}
		b = nb
	}
	return b
}

// appendMessage writes one message; nothing for roles other than user and
// assistant; an error where the upstream throws (the message is skipped).
func appendMessage(b []byte, msg history.Value, p *Profile, slash map[string]SlashItem) (out []byte, err error) {
	defer func() {
		if caught(recover(), &err) {
			out = b
		}
	}()
	if msg.IsNullish() {
		return b, throwf("TypeError: Cannot read properties of null (reading 'role')")
	}
	switch history.Role(msg) {
	case "assistant":
		return appendAssistant(b, msg, p)
	case "user":
		return appendUser(b, msg, p, slash)
	}
	return b, nil
}

func partsOf(msg history.Value) ([]history.Value, error) {
	parts := msg.Get("parts")
	if parts.Kind() != history.Array {
		return nil, throwf("TypeError: message.parts is not an array")
	}
	return parts.Elems(), nil
}

func appendAssistant(b []byte, msg history.Value, p *Profile) ([]byte, error) {
	parts, err := partsOf(msg)
	if err != nil {
		return b, err
	}
	b = append(b, "<assistant>"...)
	first := true
	for _, part := range parts {
		mark := len(b)
		if !first {
			b = append(b, '\n')
		}
		body := len(b)
		nb, emitted, err := appendAssistantPart(b, part, p)
		if err != nil {
			if part.IsNullish() {
				return b[:mark], err // the fallback itself reads part.type
			}
			nb = append(nb[:body], '[')
			nb = append(nb, history.ToString(part.Get("type"))...)
			nb = append(nb, ": serialization-error]"...)
			emitted = true
		}
		if !emitted {
			b = nb[:mark]
			continue
		}
		b = nb
		first = false
	}
	return append(b, "</assistant>"...), nil
}

// appendAssistantPart writes a text part or a tool marker; emitted is false
// for parts that yield nothing.
func appendAssistantPart(b []byte, part history.Value, p *Profile) ([]byte, bool, error) {
	if part.IsNullish() {
		return b, false, throwf("TypeError: Cannot read properties of null (reading 'type')")
	}
	t := part.Get("type")
	if t.Kind() == history.String && t.Str() == "text" {
		return appendEsc(b, part.Get("text")), true, nil
	}
	if t.Kind() != history.String {
		return b, false, throwf("TypeError: part.type.startsWith is not a function")
	}
	typ := t.Str()
	if !strings.HasPrefix(typ, "tool-") {
		return b, false, nil
	}
	return appendToolMarker(b, part, typ[len("tool-"):], p)
}

var slashLink = regexp.MustCompile(`\[([^\]]*)\]\(slash:([^)]+)\)`)

// slashLinkCore is in every match of slashLink: a text without it has
// none, and the regular expression need not scan it.
const slashLinkCore = "](slash:"

// slashLinks is slashLink.FindAllStringSubmatch(text, -1).
func slashLinks(text string) [][]string {
	if !strings.Contains(text, slashLinkCore) {
		return nil
	}
	return slashLink.FindAllStringSubmatch(text, -1)
}

func appendUser(b []byte, msg history.Value, p *Profile, slash map[string]SlashItem) ([]byte, error) {
	parts, err := partsOf(msg)
	if err != nil {
		return b, err
	}
	// With slash commands the texts are scanned and rewritten first; the
	// bodies come before the annotations.
	var texts []string
	if len(slash) > 0 {
		for _, part := range parts {
			if !isTextPart(part) {
				continue
			}
			text := part.Get("text")
			switch {
			case text.IsNullish():
				texts = append(texts, "")
			case text.Kind() != history.String:
				return b, throwf("TypeError: text.matchAll is not a function")
			default:
				texts = append(texts, text.Str())
			}
		}
	}
	b = append(b, "<user>"...)
	n := 0
	sep := func() {
		if n > 0 {
			b = append(b, '\n')
		}
		n++
	}
	if len(slash) > 0 {
		for _, text := range texts {
			for _, m := range slashLinks(text) {
				item, ok := slash[m[2]]
				if !ok {
					continue
				}
				sep()
				b = appendSlashCommand(b, item)
			}
		}
		for i, text := range texts {
			if strings.Contains(text, slashLinkCore) {
				texts[i] = slashLink.ReplaceAllString(text, "/$1")
			}
		}
	}
	meta := history.Metadata(msg)
	if !meta.IsNullish() {
		if a := meta.Get("attachments"); a.Kind() == history.Array && a.Len() > 0 {
			sep()
			b = append(b, "[attached: "...)
			b = appendAttachmentNames(b, a, p.EscapeAnnotations)
			b = append(b, ']')
		}
		if m := meta.Get("mentions"); m.Kind() == history.Array && m.Len() > 0 {
			sep()
			b = append(b, "[mentioned: "...)
			b = appendMentionLabels(b, m, p.EscapeAnnotations)
			b = append(b, ']')
		}
	}
	if len(slash) > 0 {
		for _, text := range texts {
			sep()
			b = appendEscString(b, text)
		}
	} else {
		for _, part := range parts {
			if isTextPart(part) {
				sep()
				b = appendEsc(b, part.Get("text"))
			}
		}
	}
	return append(b, "</user>"...), nil
}

func isTextPart(part history.Value) bool {
	if part.IsNullish() {
		return false
	}
	t := part.Get("type")
	return t.Kind() == history.String && t.Str() == "text"
}

func appendName(b []byte, name string, escape bool) []byte {
	if escape {
		return appendEscString(b, name)
	}
	return append(b, name...)
}

func orEmpty(v history.Value) history.Value {
	if v.IsNullish() {
		return history.StringValue("")
	}
	return v
}

// appendAttachmentNames writes the [attached: …] names:
// originalFileName ?? the last "/" segment of path ?? "file", null
// entries left out.
func appendAttachmentNames(b []byte, a history.Value, escape bool) []byte {
	first := true
	for _, e := range a.Elems() {
		if !e.Truthy() {
			continue
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		name := e.Get("originalFileName")
		if name.IsNullish() {
			if path := e.Get("path"); !path.IsNullish() {
				s := history.ToString(path)
				name = history.StringValue(s[strings.LastIndexByte(s, '/')+1:])
			}
		}
		if name.IsNullish() {
			name = history.StringValue("file")
		}
		b = appendName(b, history.ToString(name), escape)
	}
	return b
}

// appendMentionLabels writes the [mentioned: …] labels by provider type.
func appendMentionLabels(b []byte, m history.Value, escape bool) []byte {
	first := true
	for _, e := range m.Elems() {
		if !e.Truthy() {
			continue
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		var label history.Value
		pt := e.Get("providerType")
		switch ptype := pt.Str(); {
		case pt.Kind() == history.String && ptype == "file":
			label = firstDefined(e.Get("mountedPath"), e.Get("fileName"), history.StringValue("file"))
		case pt.Kind() == history.String && ptype == "tab":
			label = firstDefined(e.Get("title"), history.StringValue("tab"))
		case pt.Kind() == history.String && ptype == "workspace":
			label = firstDefined(e.Get("name"), history.StringValue("workspace"))
		default:
			label = firstDefined(pt, history.StringValue("unknown"))
		}
		b = appendName(b, history.ToString(label), escape)
	}
	return b
}

// firstDefined is a ?? b ?? c.
func firstDefined(vs ...history.Value) history.Value {
	for _, v := range vs {
		if !v.IsNullish() {
			return v
		}
	}
	return history.Value{}
}

// appendSlashCommand writes what the xml package prints for
// {"slash-command": [{_attr: {id, name}}, {_cdata: body}]}.
func appendSlashCommand(b []byte, item SlashItem) []byte {
	b = append(b, `<slash-command id="`...)
	b = appendEscString(b, item.ID)
	b = append(b, `" name="`...)
	b = appendEscString(b, item.DisplayName)
	b = append(b, `"><![CDATA[`...)
	b = append(b, strings.ReplaceAll(item.Content, "]]>", "]]]]><![CDATA[>")...)
	return append(b, "]]></slash-command>"...)
}

// appendEsc is esc(x): String(x ?? ”) with & < > " ' escaped.
func appendEsc(b []byte, v history.Value) []byte {
	if v.IsNullish() {
		return b
	}
	if v.Kind() == history.String {
		return appendEscString(b, v.Str())
	}
	s, err := history.ToStringChecked(v)
	if err != nil {
		// String() of a value with shared references past the cap: thrown
		// as a JavaScript exception, caught where the upstream catches.
		panic(&jsError{msg: err.Error()})
	}
	return appendEscString(b, s)
}

// Warn reports what the serializer leaves out because it cannot be built
// (a value with shared references whose text passes
// history.MaxSharedOutput). Nil: silent.
var Warn = func(msg string) { fmt.Fprintln(os.Stderr, "compact: warning: "+msg) }

// caught turns r, a recovered jsError panic, into *err, warning about
// it; false when nothing was recovered. Other panics go on.
func caught(r any, err *error) bool {
	if r == nil {
		return false
	}
	je, ok := r.(*jsError)
	if !ok {
		panic(r)
	}
	if Warn != nil {
		Warn("serialize: " + je.msg)
	}
	*err = je
	return true
}

// Esc is esc(s) on a string.
func Esc(s string) string { return string(appendEscString(nil, s)) }

func appendEscString(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		i = nextEsc(s, i)
		if i == len(s) {
			break
		}
		var rep string
		switch s[i] {
		case '&':
			rep = "&amp;"
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '"':
			rep = "&quot;"
		case '\'':
			rep = "&apos;"
		}
		b = append(b, s[start:i]...)
		b = append(b, rep...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// littleEndian is whether words load least significant byte first.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// nextEsc returns the index of the first byte from i that esc replaces
// (& < > " '), or len(s): 32 bytes at a time in AVX2 assembly where the
// CPU has it (esc_amd64.s). Else eight bytes at a time: & and ' differ only in
// the lowest bit, < and > only in the next, so three zero-byte tests find
// all five; the lowest flagged byte of a little-endian word is exact.
func nextEsc(s string, i int) int {
	if haveAVX2 && len(s) >= 32 {
		return nextEscAVX2(s, i)
	}
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	if littleEndian {
		base := unsafe.Pointer(unsafe.StringData(s))
		for ; i+8 <= len(s); i += 8 {
			w := *(*uint64)(unsafe.Add(base, i))
			amp := (w | lo) ^ (lo * '\'')  // & or '
			ang := (w | lo*2) ^ (lo * '>') // < or >
			quo := w ^ (lo * '"')
			if m := ((amp-lo)&^amp | (ang-lo)&^ang | (quo-lo)&^quo) & hi; m != 0 {
				return i + bits.TrailingZeros64(m)>>3
			}
		}
	}
	for ; i < len(s); i++ {
		switch s[i] {
		case '&', '<', '>', '"', '\'':
			return i
		}
	}
	return i
}
