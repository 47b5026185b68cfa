package serialize

import (
	"encoding/binary"
	"errors"
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
	// Problems receives each place where the output may differ from the
	// upstream's (see Problem). Nil: each is printed through Warn.
	Problems func(Problem)
}

// Problem is a place where compact cannot vouch that its output is the
// upstream's: a value whose String() it does not build (a value with
// shared references whose text passes history.MaxSharedOutput, which the
// upstream writes out unless it passes V8's string limit), written as the
// upstream writes a value that throws; or a message that could not be
// written at all (never, unless compact has a bug). Everything the
// upstream itself does with ill-typed values (the serialization-error
// markers, the parts and annotations it leaves out) is reproduced, not
// reported.
type Problem struct {
	// Message is the index of the message in the slice serialized.
	Message int
	// Part is the index of the part in the message's parts, or -1 for the
	// message as a whole (its annotations, its summary).
	Part int
	// What says what compact wrote instead and why.
	What string
	// Dropped is set when the message was left out whole.
	Dropped bool
	// Upstream is set when the upstream leaves it out too: a message that
	// is null or undefined, or whose role is neither "user" nor
	// "assistant". It is reported only to Options.Problems (Warn stays
	// silent on it), so that a caller writing bundles can say which
	// messages its compact histories do not hold.
	Upstream bool
}

func (p Problem) String() string {
	if p.Part < 0 {
		return fmt.Sprintf("message %d: %s", p.Message, p.What)
	}
	return fmt.Sprintf("message %d part %d: %s", p.Message, p.Part, p.What)
}

// Tags of the compact history.
const (
	PrevOpen  = "<previous-chat-history>"
	PrevClose = "</previous-chat-history>"
)

// jsError stands for a JavaScript exception inside a part, an annotation
// or a message. limit is set when it is compact that gives up (a String()
// it does not build), not JavaScript that throws.
type jsError struct {
	msg   string
	limit bool
}

func (e *jsError) Error() string { return e.msg }

func throwf(msg string) error { return &jsError{msg: msg} }

// thrown turns an error of history's renderings into a jsError.
func thrown(err error) *jsError {
	return &jsError{msg: err.Error(), limit: errors.Is(err, history.ErrTooLarge)}
}

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
// summary; 0 and undefined when no message has one. A summary whose
// String() throws (an object with a "toString" key) does not stop the
// upstream's walk: its message is written and the walk goes on.
func Start(msgs []history.Value) (int, history.Value) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].IsNullish() {
			continue
		}
		ch := history.CompressedHistory(msgs[i])
		if !ch.Truthy() {
			continue
		}
		if ch.Kind() != history.String {
			if _, err := history.ToStringChecked(ch); errors.Is(err, history.ErrNoPrimitive) {
				continue
			}
		}
		return i, ch
	}
	return 0, history.Value{}
}

// writer is one serialization under way.
type writer struct {
	p        *Profile
	slash    map[string]SlashItem
	problems func(Problem)
	msg      int // the index of the message being written
}

func (w *writer) report(part int, what string) {
	w.problem(Problem{Part: part, What: what})
}

func (w *writer) problem(p Problem) {
	p.Message = w.msg
	if w.problems != nil {
		w.problems(p)
	} else if Warn != nil && !p.Upstream {
		Warn("serialize: " + p.String())
	}
}

// AppendSerializeFrom is AppendSerialize for a caller that already knows
// Start(msgs): start and summary must be what Start returns, which lets a
// caller serializing many prefixes of one chat read each message's summary
// once.
func AppendSerializeFrom(dst []byte, msgs []history.Value, start int, summary history.Value, opts Options) []byte {
	w := writer{p: opts.Profile, slash: opts.Slash, problems: opts.Problems}
	if w.p == nil {
		w.p = Profiles["e3e"]
	}
	if !w.p.SlashCommands {
		w.slash = nil
	}
	base := len(dst)
	b := dst
	if summary.Truthy() {
		b = append(b, PrevOpen...)
		if summary.Kind() == history.String {
			b = append(b, summary.Str()...)
		} else if s, err := history.ToStringChecked(summary); err != nil {
			w.msg = start
			w.report(-1, "the summary (metadata.compressedHistory) is written empty: "+err.Error())
		} else {
			b = append(b, s...)
		}
		b = append(b, PrevClose...)
	}
	for i, msg := range msgs[start:] {
		w.msg = start + i
		mark := len(b)
		if mark > base {
			b = append(b, '\n')
		}
		body := len(b)
		nb := w.appendMessage(b, msg)
		if len(nb) == body {
			b = nb[:mark] // nothing: not a user or assistant message
			continue
		}
		b = nb
	}
	return b
}

// appendMessage writes one message; nothing for roles other than user and
// assistant. The upstream catches what throws in a part or an annotation
// where it happens, so a message is always written whole; a JavaScript
// exception that still reaches here is compact's bug, and the message is
// left out with a Problem.
func (w *writer) appendMessage(b []byte, msg history.Value) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			je := asJSError(r)
			w.problem(Problem{Part: -1, What: "left out, though the upstream writes it: " + je.msg, Dropped: true})
			out = b
		}
	}()
	if msg.IsNullish() {
		if w.problems != nil {
			w.problem(Problem{Part: -1, What: "left out: the message is " + msg.Kind().String(), Dropped: true, Upstream: true})
		}
		return b
	}
	switch history.Role(msg) {
	case "assistant":
		return w.appendAssistant(b, msg)
	case "user":
		return w.appendUser(b, msg)
	}
	if w.problems != nil {
		w.problem(Problem{Part: -1, What: "left out: its role is " + history.Describe(msg.Get("role")) + ", and only user and assistant messages are serialized", Dropped: true, Upstream: true})
	}
	return b
}

// asJSError returns r, a recovered panic, as a jsError; other panics go on.
func asJSError(r any) *jsError {
	je, ok := r.(*jsError)
	if !ok {
		panic(r)
	}
	return je
}

// partsOf is Array.isArray(message.parts) ? message.parts : [].
func partsOf(msg history.Value) []history.Value {
	parts := msg.Get("parts")
	if parts.Kind() != history.Array {
		return nil
	}
	return parts.Elems()
}

func (w *writer) appendAssistant(b []byte, msg history.Value) []byte {
	b = append(b, "<assistant>"...)
	first := true
	for i, part := range partsOf(msg) {
		mark := len(b)
		if !first {
			b = append(b, '\n')
		}
		var t history.Value
		if part.Kind() == history.Object {
			t = part.Get("type")
			// The common case, a text part with a string text, cannot
			// throw.
			if t.Kind() == history.String && t.Str() == "text" {
				if text := part.Get("text"); text.Kind() == history.String {
					b = appendEscString(b, text.Str())
					first = false
					continue
				}
			}
		}
		nb, emitted := w.assistantPart(b, part, t, i)
		if !emitted {
			b = nb[:mark]
			continue
		}
		b = nb
		first = false
	}
	return append(b, "</assistant>"...)
}

// assistantPart is safeSerializePart: the part's text or marker
// (emitted false for parts that yield nothing), or where that throws,
// "[<type>: serialization-error]" ("unknown" for a type that is not a
// string). t is part.type for an object part.
func (w *writer) assistantPart(b []byte, part, t history.Value, i int) ([]byte, bool) {
	if part.IsNullish() {
		// part.type throws; the catch's part?.type is undefined.
		return w.partError(b, part, i, &jsError{msg: "TypeError: Cannot read properties of " + part.Kind().String() + " (reading 'type')"}), true
	}
	if t.Kind() == history.String && t.Str() == "text" {
		nb, err := appendEscChecked(b, part.Get("text"))
		if err != nil {
			return w.partError(b, part, i, thrown(err)), true
		}
		return nb, true
	}
	if !part.IsObjectLike() {
		return w.partError(b, part, i, &jsError{msg: "TypeError: Cannot use 'in' operator to search for 'input'"}), true
	}
	in := part.Get("input")
	if !in.Truthy() {
		return b, false
	}
	// getErrorSuffix runs before the type is looked at.
	var tp toolPart
	if err := tp.read(part, in); err != nil {
		return w.partError(b, part, i, thrown(err)), true
	}
	if t.Kind() != history.String {
		return w.partError(b, part, i, &jsError{msg: "TypeError: part.type.startsWith is not a function"}), true
	}
	typ := t.Str()
	if !strings.HasPrefix(typ, "tool-") {
		return b, false
	}
	name := typ[len("tool-"):]
	if w.p.OutputOnlyWhenAvailable && !tp.available {
		tp.out = history.Value{}
	}
	mark, ok := w.p.Markers[name]
	if !ok {
		return appendGeneric(b, name, tp), true
	}
	nb, err := callMarker(mark, b, tp)
	if err != nil {
		if w.p.HostMarkers[name] {
			// The host's serializer threw: agent-core catches it and
			// falls back to the generic marker.
			if err.limit {
				w.report(i, "written as the generic [tool-"+name+"] marker: "+err.msg)
			}
			return appendGeneric(b, name, tp), true
		}
		return w.partError(b, part, i, err), true
	}
	return nb, true
}

// appendGeneric writes the generic marker [tool-X{err}].
func appendGeneric(b []byte, name string, tp toolPart) []byte {
	b = append(b, "[tool-"...)
	b = append(b, name...)
	b = tp.appendErr(b)
	return append(b, ']')
}

// callMarker runs a marker, turning what it throws (returned, or panicked
// from deep inside, as appendEsc does) into the error.
func callMarker(mark markerFunc, b []byte, tp toolPart) (out []byte, je *jsError) {
	defer func() {
		if r := recover(); r != nil {
			out, je = b, asJSError(r)
		}
	}()
	nb, err := mark(b, tp)
	if err != nil {
		je, ok := err.(*jsError)
		if !ok {
			je = thrown(err)
		}
		return b, je
	}
	return nb, nil
}

func (w *writer) partError(b []byte, part history.Value, i int, je *jsError) []byte {
	tag := "unknown"
	if t := part.Get("type"); t.Kind() == history.String {
		tag = t.Str()
	}
	if je.limit {
		w.report(i, "written as ["+tag+": serialization-error]: "+je.msg)
	}
	b = append(b, '[')
	b = append(b, tag...)
	return append(b, ": serialization-error]"...)
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

func (w *writer) appendUser(b []byte, msg history.Value) []byte {
	parts := partsOf(msg)
	b = append(b, "<user>"...)
	n := 0 // items written, joined with "\n"
	if len(w.slash) > 0 {
		return w.appendUserSlash(b, msg, parts)
	}
	b = w.appendAnnotations(b, history.Metadata(msg), &n)
	for i, part := range parts {
		if !isTextPart(part) {
			continue
		}
		mark, n0 := len(b), n
		if n > 0 {
			b = append(b, '\n')
		}
		n++
		text := part.Get("text")
		var err error
		if b, err = appendEscChecked(b, text); err != nil {
			// String(text) throws: the part is left out.
			if je := thrown(err); je.limit {
				w.report(i, "text left out: "+je.msg)
			}
			b, n = b[:mark], n0
		}
	}
	return append(b, "</user>"...)
}

// appendUserSlash is appendUser with resolved slash commands: the bodies of
// the resolved links come first, and links in the texts are inlined.
func (w *writer) appendUserSlash(b []byte, msg history.Value, parts []history.Value) []byte {
	var buf [8]history.Value
	texts := buf[:0]
	for _, part := range parts {
		if isTextPart(part) {
			texts = append(texts, part.Get("text"))
		}
	}
	n := 0
	// A text that is not a string throws at matchAll, which skips the
	// part.
	for _, text := range texts {
		if text.Kind() != history.String {
			continue
		}
		for _, m := range slashLinks(text.Str()) {
			item, ok := w.slash[m[2]]
			if !ok {
				continue
			}
			if n > 0 {
				b = append(b, '\n')
			}
			n++
			b = appendSlashCommand(b, item)
		}
	}
	b = w.appendAnnotations(b, history.Metadata(msg), &n)
	for _, text := range texts {
		// inlineSlashLinksAsText(part.text ?? '') calls text.replace,
		// which only a string has: any other text is left out.
		if !text.IsNullish() && text.Kind() != history.String {
			continue
		}
		if n > 0 {
			b = append(b, '\n')
		}
		n++
		if t := text.Str(); strings.Contains(t, slashLinkCore) {
			b = appendEscString(b, slashLink.ReplaceAllString(t, "/$1"))
		} else {
			b = appendEscString(b, t)
		}
	}
	return append(b, "</user>"...)
}

func isTextPart(part history.Value) bool {
	if part.IsNullish() {
		return false
	}
	t := part.Get("type")
	return t.Kind() == history.String && t.Str() == "text"
}

// appendAnnotations writes the [attached: …] and [mentioned: …]
// annotations of a user message, each an item counted in *n. Both are
// built in one try: where building one throws (an attachment whose path is
// not a string, a name whose String() throws), it and the ones after it
// are left out.
func (w *writer) appendAnnotations(b []byte, meta history.Value, n *int) []byte {
	if !meta.Truthy() {
		return b
	}
	escape := w.p.EscapeAnnotations
	if a := meta.Get("attachments"); a.Kind() == history.Array && a.Len() > 0 {
		mark, n0 := len(b), *n
		if *n > 0 {
			b = append(b, '\n')
		}
		*n++
		b = append(b, "[attached: "...)
		var err error
		if b, err = appendAttachmentNames(b, a, escape); err != nil {
			w.annotationError(err, "attached")
			*n = n0
			return b[:mark]
		}
		b = append(b, ']')
	}
	if m := meta.Get("mentions"); m.Kind() == history.Array && m.Len() > 0 {
		mark, n0 := len(b), *n
		if *n > 0 {
			b = append(b, '\n')
		}
		*n++
		b = append(b, "[mentioned: "...)
		var err error
		if b, err = appendMentionLabels(b, m, escape); err != nil {
			w.annotationError(err, "mentioned")
			*n = n0
			return b[:mark]
		}
		b = append(b, ']')
	}
	return b
}

func (w *writer) annotationError(err error, which string) {
	if je := thrown(err); je.limit {
		w.report(-1, "the ["+which+": …] annotation and those after it left out: "+je.msg)
	}
}

// appendName writes String(v), escaped or not.
func appendName(b []byte, v history.Value, escape bool) ([]byte, error) {
	if v.Kind() == history.String {
		if escape {
			return appendEscString(b, v.Str()), nil
		}
		return append(b, v.Str()...), nil
	}
	s, err := history.ToStringChecked(v)
	if err != nil {
		return b, err
	}
	if escape {
		return appendEscString(b, s), nil
	}
	return append(b, s...), nil
}

func orEmpty(v history.Value) history.Value {
	if v.IsNullish() {
		return history.StringValue("")
	}
	return v
}

// appendAttachmentNames writes the [attached: …] names:
// originalFileName ?? the last "/" segment of path ?? "file", null and
// undefined entries left out. A path that is not a string, where it is
// read, throws (a.path?.split is not a function): the upstream computes
// every name before it writes any, so that throw wins over one from a
// name's String() before it.
func appendAttachmentNames(b []byte, a history.Value, escape bool) ([]byte, error) {
	elems := a.Elems()
	first := true
	for k, e := range elems {
		if e.IsNullish() {
			continue
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		name := e.Get("originalFileName")
		if name.IsNullish() {
			switch path := e.Get("path"); path.Kind() {
			case history.String:
				s := path.Str()
				name = history.StringValue(s[strings.LastIndexByte(s, '/')+1:])
			case history.Undefined, history.Null:
				name = history.StringValue("file")
			default:
				return b, errPathSplit
			}
		}
		var err error
		if b, err = appendName(b, name, escape); err != nil {
			if pathThrows(elems[k+1:]) {
				return b, errPathSplit
			}
			return b, err
		}
	}
	return b, nil
}

var errPathSplit = throwf("TypeError: a.path?.split is not a function")

// pathThrows reports whether a name of elems reads a path that is not a
// string.
func pathThrows(elems []history.Value) bool {
	for _, e := range elems {
		if e.IsNullish() || !e.Get("originalFileName").IsNullish() {
			continue
		}
		if path := e.Get("path"); !path.IsNullish() && path.Kind() != history.String {
			return true
		}
	}
	return false
}

// appendMentionLabels writes the [mentioned: …] labels by provider type,
// null and undefined entries left out.
func appendMentionLabels(b []byte, m history.Value, escape bool) ([]byte, error) {
	first := true
	for _, e := range m.Elems() {
		if e.IsNullish() {
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
		var err error
		if b, err = appendName(b, label, escape); err != nil {
			return b, err
		}
	}
	return b, nil
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

// appendEsc is esc(x): String(x ?? ”) with & < > " ' escaped. Where
// String(x) throws it panics with a *jsError, which the part's catch
// recovers.
func appendEsc(b []byte, v history.Value) []byte {
	b, err := appendEscChecked(b, v)
	if err != nil {
		panic(thrown(err))
	}
	return b
}

// appendEscChecked is appendEsc with the error of String(x) returned.
func appendEscChecked(b []byte, v history.Value) ([]byte, error) {
	if v.Kind() == history.String {
		return appendEscString(b, v.Str()), nil
	}
	if v.IsNullish() {
		return b, nil
	}
	s, err := history.ToStringChecked(v)
	if err != nil {
		return b, err
	}
	return appendEscString(b, s), nil
}

// jsString is String(v); where that throws it panics with a *jsError.
func jsString(v history.Value) string {
	if v.Kind() == history.String {
		return v.Str()
	}
	s, err := history.ToStringChecked(v)
	if err != nil {
		panic(thrown(err))
	}
	return s
}

// Warn prints a Problem when Options.Problems is nil. Nil: silent.
var Warn = func(msg string) { fmt.Fprintln(os.Stderr, "compact: warning: "+msg) }

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
