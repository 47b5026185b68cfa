package iostreams

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, tabs\tand\nnewlines — é ✓ 𝄞", "plain text, tabs\tand\nnewlines — é ✓ 𝄞"},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"\x1b[2J", `\x1b[2J`},
		{"nul\x00 cr\r bs\x08 del\x7f", `nul\x00 cr\x0d bs\x08 del\x7f`},
		{"c1 \u009b31m \u0085", `c1 \u009b31m \u0085`},
		{"bidi \u202aa\u202bb\u202cc\u202dd\u202ee \u2066f\u2067g\u2068h\u2069", `bidi \u202aa\u202bb\u202cc\u202dd\u202ee \u2066f\u2067g\u2068h\u2069`},
		{"not utf-8 \xff\xc3 \xed\xa0\x80", `not utf-8 \xff\xc3 \xed\xa0\x80`},
		{`a backslash \x1b stays`, `a backslash \x1b stays`},
		{"left-to-right mark \u200e and U+2028 \u2028 stay", "left-to-right mark \u200e and U+2028 \u2028 stay"},
	} {
		got := Escape(tc.in)
		if got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again := Escape(got); again != got {
			t.Errorf("Escape is not idempotent on %q: %q", got, again)
		}
		if i := firstUnsafe(got); i >= 0 {
			t.Errorf("Escape(%q) = %q still holds %q", tc.in, got, got[i:])
		}
	}
}

// TestEscapeWriterKeepsCharactersSplitAcrossWrites: a bufio.Writer cuts
// its writes anywhere, in the middle of a character too; the pieces are
// put back together, not escaped as bytes that are not UTF-8, and what
// waits at the end is written by Flush.
func TestEscapeWriterKeepsCharactersSplitAcrossWrites(t *testing.T) {
	text := "é ✓ 𝄞 \u009b \u202e \x1b[2J \xff end 𝄞"
	for cut := 1; cut <= 5; cut++ {
		var buf bytes.Buffer
		w := NewEscapeWriter(&buf)
		for i := 0; i < len(text); i += cut {
			n, err := w.Write([]byte(text[i:min(i+cut, len(text))]))
			if err != nil || n != min(cut, len(text)-i) {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got, want := buf.String(), Escape(text); got != want {
			t.Errorf("in pieces of %d: %q, want %q", cut, got, want)
		}
	}
	// An incomplete character at the very end is escaped by Flush.
	var buf bytes.Buffer
	w := NewEscapeWriter(&buf)
	w.Write([]byte("x\xe2\x9c"))
	if buf.String() != "x" {
		t.Errorf("before Flush: %q", buf.String())
	}
	w.Flush()
	if buf.String() != `x\xe2\x9c` {
		t.Errorf("after Flush: %q", buf.String())
	}
	if NewEscapeWriter(w) != w || Raw(w) != &buf {
		t.Error("an EscapeWriter is wrapped twice, or Raw does not unwrap it")
	}
}

// TestEscapeWriterConcurrentWrites: warnings come from worker goroutines;
// each write arrives whole.
func TestEscapeWriterConcurrentWrites(t *testing.T) {
	var buf bytes.Buffer
	w := NewEscapeWriter(&buf)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				w.Write([]byte("warning: é \x1b[2J ✓\n"))
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 1600 || !utf8.ValidString(buf.String()) {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if l != `warning: é \x1b[2J ✓` {
			t.Fatalf("line %q", l)
		}
	}
}

// TestStreams: stderr is escaped always, TextOut always, DataOut only on
// a terminal, Out never; the progress line's own sequences pass.
func TestStreams(t *testing.T) {
	io, _, out, errOut := Test()
	const hostile = "\x1b]0;pwned\x07"
	io.ErrOut.Write([]byte(hostile))
	io.TextOut().Write([]byte(hostile))
	io.DataOut().Write([]byte(hostile))
	io.Out.Write([]byte(hostile))
	io.ProgressOut().Write([]byte("\r\x1b[K"))
	if want := `\x1b]0;pwned\x07` + "\r\x1b[K"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	if want := `\x1b]0;pwned\x07` + hostile + hostile; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	io.SetStdoutTTY(true)
	out.Reset()
	io.DataOut().Write([]byte(hostile))
	if out.String() != `\x1b]0;pwned\x07` {
		t.Errorf("DataOut on a terminal: %q", out.String())
	}
}
