package iostreams

import (
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Text that compact prints comes in part from its inputs: bundle and
// session directory names, chat titles, briefings, error messages quoting
// a file. Written raw to a terminal, a control sequence in it (an OSC
// title "\x1b]0;pwned\x07", a screen clear "\x1b[2J", an OSC 52 clipboard
// write) would act. Escape renders every such character visibly instead;
// the streams of a command (IO.ErrOut always, IO.TextOut for what a
// command prints for a person) pass everything through it.

// Escape returns s with the characters that could act on a terminal
// rendered visibly: C0 controls other than \n and \t, DEL and invalid
// UTF-8 bytes as \xNN; C1 controls (U+0080..U+009F) and the bidirectional
// embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069, the
// "Trojan Source" characters) as \uNNNN. Everything else, the backslash
// included, is kept. The result holds none of those characters, so
// escaping twice changes nothing.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	escapeTo(&b, s[i:], true)
	return b.String()
}

// firstUnsafe is the offset of the first character Escape rewrites, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafeByte(c) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, n) {
			return i
		}
		i += n
	}
	return -1
}

func unsafeByte(c byte) bool { return c < 0x20 && c != '\n' && c != '\t' || c == 0x7f }

func unsafeRune(r rune, n int) bool {
	return r == utf8.RuneError && n <= 1 || r >= 0x80 && r <= 0x9f ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

const hexDigits = "0123456789abcdef"

// escapeTo writes s escaped to b. When final is false, an incomplete
// UTF-8 sequence at the end of s is left unwritten, and its length
// returned: the next write may complete it.
func escapeTo(b *strings.Builder, s string, final bool) (held int) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafeByte(c) {
				b.WriteString(`\x`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&15])
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			if !final && !utf8.FullRuneInString(s[i:]) {
				return len(s) - i
			}
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		case unsafeRune(r, n):
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hexDigits[(r>>shift)&15])
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return 0
}

// EscapeWriter escapes (Escape) everything written through it before
// passing it on. A character split across two writes (as a bufio.Writer
// splits at its buffer's end) is escaped whole: the start of an incomplete
// UTF-8 sequence at the end of a write waits for the next write, or for
// Flush. It is safe for concurrent use; each write is passed on whole, in
// one write.
type EscapeWriter struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte // the start of a character split across writes
	buf  strings.Builder
}

// NewEscapeWriter returns w escaped; an *EscapeWriter is returned as it
// is.
func NewEscapeWriter(w io.Writer) *EscapeWriter {
	if e, ok := w.(*EscapeWriter); ok {
		return e
	}
	return &EscapeWriter{w: w}
}

// Write escapes p and writes it on. It reports len(p) written when the
// escaped text was written whole.
func (e *EscapeWriter) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := string(p)
	if len(e.held) > 0 {
		s = string(e.held) + s
		e.held = e.held[:0]
	}
	if firstUnsafe(s) < 0 {
		if _, err := io.WriteString(e.w, s); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	e.buf.Reset()
	held := escapeTo(&e.buf, s, false)
	e.held = append(e.held, s[len(s)-held:]...)
	if e.buf.Len() > 0 {
		if _, err := io.WriteString(e.w, e.buf.String()); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// WriteString is Write of a string.
func (e *EscapeWriter) WriteString(s string) (int, error) { return e.Write([]byte(s)) }

// Flush writes on, escaped, what waits for the rest of a character.
func (e *EscapeWriter) Flush() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.held) == 0 {
		return nil
	}
	var b strings.Builder
	escapeTo(&b, string(e.held), true)
	e.held = e.held[:0]
	_, err := io.WriteString(e.w, b.String())
	return err
}

// Raw is the writer under w when w is an *EscapeWriter (anything waiting
// in it written first), else w: for what must reach the stream as it is,
// a progress line's own control sequences.
func Raw(w io.Writer) io.Writer {
	if e, ok := w.(*EscapeWriter); ok {
		e.Flush()
		return e.w
	}
	return w
}
